/*
 * A PYRT_LAZY=OFF build links libmicrohttpd (CMakeLists.txt) and leaves
 * out lazy_mhd.c: there is nothing to load.
 */
#include "serve/internal.h"

int srv_lazy_mhd(pyrt_error *err)
{
	(void)err;
	return 0;
}
