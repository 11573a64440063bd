/*
 * Loading a YAML document with limits, for every YAML file pyrt reads
 * (pins, plugin manifests, themes).  libyaml's loader has none: its scanner
 * does work per token in proportion to the flow nesting depth, so a 500 KB
 * file nested 100,000 deep costs minutes, and aliases let a small file
 * stand for a huge tree.  Our schemas are a few levels deep and never need
 * an alias, so anything else is refused before the document is built.
 */
#ifndef PYRT_YAMLDOC_H
#define PYRT_YAMLDOC_H

#include <stddef.h>

#include <yaml.h>

/* Deeper than any schema we read (pins use 3 levels, themes 4), yet
 * cheap to reach: the scan stops at the first collection past it. */
#define PYRT_YAML_DEPTH_MAX 32

/* Why a document was refused: where, and one line saying what and the fix. */
typedef struct pyrt_yaml_problem {
	size_t line;    /**< 1-based */
	int nomem;      /**< out of memory: what is empty */
	int no_library; /**< libyaml could not be loaded: what names it and
			     its Debian package (no line of the file is wrong) */
	char what[384];
} pyrt_yaml_problem;

/**
 * Load the first document of data into doc, loading libyaml first (see
 * core/util/lazy_yaml.c).  One streaming pass first
 * refuses, at the first offence: invalid YAML ("invalid YAML: ..."),
 * collections nested deeper than PYRT_YAML_DEPTH_MAX, any alias, and when
 * single is set a second document.  Returns 0 (free doc with
 * yaml_document_delete) or -1 with *pb filled and doc untouched.
 */
int pyrt_yamldoc_load(yaml_document_t *doc, const char *data, size_t len,
		      int single, pyrt_yaml_problem *pb);

#endif
