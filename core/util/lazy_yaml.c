/*
 * The libyaml functions pyrt calls, forwarded to libyaml-0.so.2 loaded on
 * first use (see lazylib.h).  `pyrt status` with the built-in pins reads
 * no YAML at all (the table is parsed when pyrt is built), so it should not
 * map and relocate libyaml either.  Every document is loaded through
 * pyrt_yamldoc_load(), which loads the library first and turns a missing
 * one into a refusal naming it; the yaml_document_* calls that follow only
 * run on a document it loaded.  Prototypes come from <yaml.h>.
 */
#include "core/util/lazy_loader.h"
#include "core/util/lazylib.h"

#include <yaml.h>

#define YAML_SYMS(X) \
	X(yaml_parser_initialize) X(yaml_parser_delete) \
	X(yaml_parser_set_input_string) X(yaml_parser_parse) \
	X(yaml_parser_load) X(yaml_event_delete) X(yaml_document_delete) \
	X(yaml_document_get_node) X(yaml_document_get_root_node)

LAZY_LIB_DEFINE(yaml_lib, YAML_SYMS, "libyaml-0.so.2", "PYRT_TEST_LIBYAML",
		"libyaml-0-2");

int pyrt_lazy_yaml(pyrt_error *err)
{
	return pyrt_lazy_lib_load(&yaml_lib) ? 0 : pyrt_lazy_lib_error(&yaml_lib, err);
}

int pyrt_lazy_yaml_loaded(void)
{
	return LAZY_LIB_LOADED(yaml_lib);
}

#define F(name) (pyrt_lazy_lib_need(&yaml_lib), LAZY_FN(yaml_lib_table, name))

int yaml_parser_initialize(yaml_parser_t *parser)
{
	return F(yaml_parser_initialize)(parser);
}

void yaml_parser_delete(yaml_parser_t *parser)
{
	F(yaml_parser_delete)(parser);
}

void yaml_parser_set_input_string(yaml_parser_t *parser,
				  const unsigned char *input, size_t size)
{
	F(yaml_parser_set_input_string)(parser, input, size);
}

int yaml_parser_parse(yaml_parser_t *parser, yaml_event_t *event)
{
	return F(yaml_parser_parse)(parser, event);
}

int yaml_parser_load(yaml_parser_t *parser, yaml_document_t *document)
{
	return F(yaml_parser_load)(parser, document);
}

void yaml_event_delete(yaml_event_t *event)
{
	F(yaml_event_delete)(event);
}

void yaml_document_delete(yaml_document_t *document)
{
	F(yaml_document_delete)(document);
}

yaml_node_t *yaml_document_get_node(yaml_document_t *document, int index)
{
	return F(yaml_document_get_node)(document, index);
}

yaml_node_t *yaml_document_get_root_node(yaml_document_t *document)
{
	return F(yaml_document_get_root_node)(document);
}
