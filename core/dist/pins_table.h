/*
 * The pins table as const C data (internal to core).  tools/pins_embed.c
 * parses pins.yaml at build time, with the same pyrt_pins_load_file() and
 * the same checks as a --pins file, and writes the result as one of these
 * (build/pins_builtin.c).  The builtin pins are then a copy of const data:
 * no YAML parse and no libyaml on the path of `pyrt status` (issue 13).
 */
#ifndef PYRT_PINS_TABLE_H
#define PYRT_PINS_TABLE_H

#include <stddef.h>

#include "core/dist/pins.h"

typedef struct pyrt_pins_table {
	const char *implementation;
	const char *version;
	const char *build;
	const pyrt_pin_archive *archives; /**< NULL when n_archives is 0 */
	size_t n_archives;
	const char *const *baseline;      /**< NULL when n_baseline is 0 */
	size_t n_baseline;
	const char *interpreter;          /**< NULL for `layout: none` */
} pyrt_pins_table;

/** The table generated from pins.yaml (build/pins_builtin.c). */
extern const pyrt_pins_table pyrt_pins_builtin_table;

/**
 * A heap pins handle holding copies of table's strings, freed with
 * pyrt_pins_free like a parsed one.  The table is trusted (it passed the
 * parser at build time), so nothing is checked again; the only failure is
 * PYRT_E_NOMEM.
 */
int pyrt_pins_from_table(pyrt_pins **out, const pyrt_pins_table *table,
			 const char *source, pyrt_error *err);

#endif
