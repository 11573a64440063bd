/*
 * The builtin pins: a copy of the table tools/pins_embed.c generated from
 * pins.yaml at build time.  A file of its own so that pyrt_core links
 * without the generated table unless this is used: the generator links
 * pyrt_core and must not need its own output.
 */
#include "core/dist/pins.h"
#include "core/dist/pins_table.h"

int pyrt_pins_load_builtin(pyrt_pins **out, pyrt_error *err)
{
	return pyrt_pins_from_table(out, &pyrt_pins_builtin_table, "builtin",
				    err);
}
