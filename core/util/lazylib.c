/*
 * dlopen() on first use (see lazylib.h).  The loaded library is process
 * state by nature, so this is the one place core keeps some: each library's
 * table, filled once under a lock and never changed after.
 */
#include "core/util/fmt.h"
#include "core/util/lazy_loader.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static pthread_mutex_t lazy_mu = PTHREAD_MUTEX_INITIALIZER;

static int lazy_open(struct pyrt_lazy_lib *lib)
{
	const char *name = lib->soname;
#ifdef PYRT_TEST_HOOKS
	/* e2e tests make a library "missing" without uninstalling it. */
	const char *o = getenv(lib->test_env);
	if (o && *o)
		name = o;
#endif
	void *h = dlopen(name, RTLD_NOW | RTLD_LOCAL);
	if (!h) {
		const char *e = dlerror();
		pyrt_fmt_text(lib->why, sizeof lib->why, "%s", e ? e : "dlopen failed");
		return 0;
	}
	for (size_t i = 0; i < lib->count; i++) {
		dlerror();
		lib->table[i] = dlsym(h, lib->names[i]);
		if (!lib->table[i]) {
			pyrt_fmt_text(lib->why, sizeof lib->why, "%s has no %s",
				      name, lib->names[i]);
			/* The handle stays open: a library's destructors may
			 * not expect a close this early; the process is about
			 * to refuse anyway. */
			return 0;
		}
	}
	/* Never dlclose()d: pointers into it live as long as the process. */
	return 1;
}

int pyrt_lazy_lib_load(struct pyrt_lazy_lib *lib)
{
	int st = __atomic_load_n(&lib->state, __ATOMIC_ACQUIRE);
	if (st)
		return st == 1;
	pthread_mutex_lock(&lazy_mu);
	st = lib->state;
	if (!st) {
		st = lazy_open(lib) ? 1 : 2;
		__atomic_store_n(&lib->state, st, __ATOMIC_RELEASE);
	}
	pthread_mutex_unlock(&lazy_mu);
	return st == 1;
}

int pyrt_lazy_lib_error(const struct pyrt_lazy_lib *lib, pyrt_error *err)
{
	return pyrt_error_set(err, PYRT_E_UNSUPPORTED,
			      "%s could not be loaded (%s); install the Debian "
			      "package %s (apt-get install %s)", lib->soname,
			      lib->why, lib->package, lib->package);
}

void pyrt_lazy_lib_need(struct pyrt_lazy_lib *lib)
{
	if (pyrt_lazy_lib_load(lib))
		return;
	pyrt_error err = PYRT_ERROR_INIT;
	pyrt_lazy_lib_error(lib, &err);
	/* Only reachable when an entry point forgot pyrt_lazy_*(): say what
	 * is missing rather than jump through a NULL pointer. */
	fprintf(stderr, "pyrt: %s\n", err.msg);
	abort();
}
