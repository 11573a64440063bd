#include "app/status.h"

#include "core/runtime/box.h"
#include "core/util/fs.h"

static int status_read(const char *box_root, const pyrt_fs_seen *walked,
		       const pyrt_pins *pins, const char *platform_key,
		       int deep, pyrt_status_cache *cache, pyrt_status *st,
		       pyrt_error *err)
{
	pyrt_box *box = NULL;
	pyrt_error berr = PYRT_ERROR_INIT;
	int rc = pyrt_box_open_seen(&box, box_root, 0, walked, &berr);
	if (rc == PYRT_E_UNTRUSTED) {
		pyrt_status_untrusted(st, pins, platform_key, berr.msg);
		return 0;
	}
	if (rc)
		return pyrt_error_set(err, rc, "%s", berr.msg);
	rc = pyrt_status_read(box, pins, platform_key, deep, cache, st, err);
	pyrt_box_free(box);
	return rc;
}

int app_status_read(const char *box_root, const pyrt_pins *pins,
		    const char *platform_key, int deep,
		    pyrt_status_cache *cache, pyrt_status *st,
		    pyrt_error *err)
{
	return status_read(box_root, NULL, pins, platform_key, deep, cache, st,
			   err);
}

int app_status_read_memo_seen(const char *box_root,
			      const pyrt_fs_seen *walked,
			      const pyrt_pins *pins, const char *platform_key,
			      int deep, pyrt_status *st, pyrt_error *err)
{
	pyrt_status_cache *c = pyrt_status_cache_new_in_box();
	if (!c)
		return pyrt_error_set(err, PYRT_E_NOMEM, "out of memory");
	int rc = status_read(box_root, walked, pins, platform_key, deep, c,
			     st, err);
	pyrt_status_cache_free(c);
	return rc;
}

int app_status_read_memo(const char *box_root, const pyrt_pins *pins,
			 const char *platform_key, int deep,
			 pyrt_status *st, pyrt_error *err)
{
	return app_status_read_memo_seen(box_root, NULL, pins, platform_key,
					 deep, st, err);
}
