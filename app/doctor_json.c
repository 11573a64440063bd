/*
 * doctor's JSON object (see doctor_json.h).
 */
#include "app/doctor_json.h"

#include "app/text.h"

static json_t *str_or_null(const char *s)
{
	return s ? app_text_json(s) : json_null();
}

json_t *app_doctor_json(const pyrt_doctor *d)
{
	json_t *checks = json_array();
	if (!checks)
		return NULL;
	for (size_t i = 0; i < pyrt_doctor_count(d); i++) {
		const pyrt_check *c = pyrt_doctor_at(d, i);
		json_t *o = json_pack("{s:s, s:o, s:s, s:o, s:o}", "id", c->id,
				      "title", app_text_json(c->title), "verdict",
				      pyrt_check_verdict_name(c->verdict),
				      "detail", app_text_json(c->detail), "fix",
				      str_or_null(c->fix));
		if (!o || json_array_append_new(checks, o) != 0) {
			json_decref(checks);
			return NULL;
		}
	}
	return json_pack("{s:b, s:o}", "ok", pyrt_doctor_passed(d), "checks",
			 checks);
}

char *app_doctor_json_text(const pyrt_doctor *d)
{
	json_t *obj = app_doctor_json(d);
	char *text = obj ? json_dumps(obj, JSON_INDENT(2) | APP_TEXT_JSON_FLAGS)
			 : NULL;
	json_decref(obj);
	return text;
}
