/*
 * Bounded YAML loading: a streaming pass over libyaml's events judges the
 * document, then libyaml's own loader builds it.  Two passes because the
 * loader has no hook for limits; the first pass stops at the first offence,
 * so the expensive input (deep nesting) is never scanned further than the
 * limit plus libyaml's 1024-character lookahead.  Our files are at most
 * 1 MiB, so reading a good one twice costs nothing that matters.
 */
#include "core/util/yamldoc.h"

#include "core/util/fmt.h"
#include "core/util/lazylib.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

/* How a judged event leaves the pass. */
enum { JUDGE_GO_ON = 0, JUDGE_DONE = 1, JUDGE_REFUSED = -1 };

/* The pass's state: depth, documents seen, and what single asks. */
typedef struct judge_state {
	int depth;
	int docs;
	int single;
	int second; /* a second document began: refuse at its first node */
} judge_state;

static int problem(pyrt_yaml_problem *pb, size_t line, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int problem(pyrt_yaml_problem *pb, size_t line, const char *fmt, ...)
{
	va_list ap;

	pb->line = line;
	pb->nomem = 0;
	va_start(ap, fmt);
	pyrt_fmt_vtext(pb->what, sizeof pb->what, fmt, ap);
	va_end(ap);
	return JUDGE_REFUSED;
}

/* 1-based line of a byte offset, for reader errors that carry no mark. */
static size_t offset_line(const char *data, size_t len, size_t off)
{
	size_t line = 1;

	for (size_t i = 0; i < off && i < len; i++)
		if (data[i] == '\n')
			line++;
	return line;
}

/* libyaml's own complaint, with its line. */
static int parser_problem(pyrt_yaml_problem *pb, const yaml_parser_t *parser,
			  const char *data, size_t len)
{
	size_t line = parser->problem_mark.line + 1;

	if (parser->error == YAML_MEMORY_ERROR) {
		problem(pb, 1, "out of memory");
		pb->nomem = 1;
		return JUDGE_REFUSED;
	}
	if (parser->error == YAML_READER_ERROR)
		line = offset_line(data, len, parser->problem_offset);
	if (parser->context)
		return problem(pb, line, "invalid YAML: %s (%s at line %zu)",
			       parser->problem ? parser->problem : "error",
			       parser->context, parser->context_mark.line + 1);
	return problem(pb, line, "invalid YAML: %s",
		       parser->problem ? parser->problem : "error");
}

/* An anchor name as document text: short, control bytes replaced. */
static void shown_name(char *buf, size_t cap, const unsigned char *s)
{
	size_t o = 0;

	for (; s && *s && o + 4 < cap; s++)
		buf[o++] = (*s < 0x20 || *s == 0x7f) ? '?' : (char)*s;
	if (s && *s) {
		memcpy(buf + o, "...", 3);
		o += 3;
	}
	buf[o] = '\0';
}

/* One event against the limits. */
static int judge(judge_state *js, const yaml_event_t *ev,
		 pyrt_yaml_problem *pb)
{
	size_t line = ev->start_mark.line + 1;
	char name[40];

	if (js->second && ev->type != YAML_DOCUMENT_START_EVENT)
		return problem(pb, line, "expected a single YAML document; "
			       "remove the second one");
	switch (ev->type) {
	case YAML_SEQUENCE_START_EVENT:
	case YAML_MAPPING_START_EVENT:
		if (++js->depth > PYRT_YAML_DEPTH_MAX)
			return problem(pb, line, "nesting deeper than %d "
				       "levels: pyrt reads YAML nested at "
				       "most %d deep; remove the extra levels",
				       PYRT_YAML_DEPTH_MAX,
				       PYRT_YAML_DEPTH_MAX);
		return JUDGE_GO_ON;
	case YAML_SEQUENCE_END_EVENT:
	case YAML_MAPPING_END_EVENT:
		js->depth--;
		return JUDGE_GO_ON;
	case YAML_ALIAS_EVENT:
		shown_name(name, sizeof name, ev->data.alias.anchor);
		return problem(pb, line, "alias *%s: pyrt reads YAML without "
			       "aliases; write the value out in full", name);
	case YAML_DOCUMENT_START_EVENT:
		if (++js->docs > 1)
			js->second = 1;
		return JUDGE_GO_ON;
	case YAML_DOCUMENT_END_EVENT:
		/* The loader reads the first document only; so do we, unless
		 * a second one must be refused. */
		return js->single ? JUDGE_GO_ON : JUDGE_DONE;
	case YAML_STREAM_END_EVENT:
		return JUDGE_DONE;
	default:
		return JUDGE_GO_ON;
	}
}

/* The streaming pass: 0 when the document is within the limits. */
static int judge_stream(const char *data, size_t len, int single,
			pyrt_yaml_problem *pb)
{
	yaml_parser_t parser;
	judge_state js = { .single = single };
	int rc = JUDGE_GO_ON;

	if (!yaml_parser_initialize(&parser)) {
		problem(pb, 1, "out of memory");
		pb->nomem = 1;
		return -1;
	}
	yaml_parser_set_input_string(&parser, (const unsigned char *)data,
				     len);
	while (rc == JUDGE_GO_ON) {
		yaml_event_t ev;

		if (!yaml_parser_parse(&parser, &ev)) {
			rc = parser_problem(pb, &parser, data, len);
			break;
		}
		rc = judge(&js, &ev, pb);
		yaml_event_delete(&ev);
	}
	yaml_parser_delete(&parser);
	return rc == JUDGE_DONE ? 0 : -1;
}

int pyrt_yamldoc_load(yaml_document_t *doc, const char *data, size_t len,
		      int single, pyrt_yaml_problem *pb)
{
	yaml_parser_t parser;
	int ok;

	memset(pb, 0, sizeof *pb);
	pyrt_error lib_err = PYRT_ERROR_INIT;
	if (pyrt_lazy_yaml(&lib_err) != 0) {
		problem(pb, 1, "%s", lib_err.msg);
		pb->no_library = 1;
		return -1;
	}
	if (!data)
		data = ""; /* libyaml insists on a buffer, even an empty one */
	if (judge_stream(data, len, single, pb) != 0)
		return -1;
	if (!yaml_parser_initialize(&parser)) {
		problem(pb, 1, "out of memory");
		pb->nomem = 1;
		return -1;
	}
	yaml_parser_set_input_string(&parser, (const unsigned char *)data,
				     len);
	ok = yaml_parser_load(&parser, doc);
	if (!ok)
		parser_problem(pb, &parser, data, len);
	yaml_parser_delete(&parser);
	return ok ? 0 : -1;
}
