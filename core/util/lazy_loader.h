/*
 * The loader behind every library pyrt dlopen()s on first use (lazylib.h
 * says why): core's lazy_*.c and the front ends' own (tui/lazy_curses.c,
 * serve/lazy_mhd.c).  One library, opened once, every symbol resolved up
 * front so a library that lacks one fails at load, with a message, not at
 * a later call.
 */
#ifndef PYRT_LAZY_LOADER_H
#define PYRT_LAZY_LOADER_H

#include <stddef.h>

#include "core/util/error.h"

struct pyrt_lazy_lib {
	const char *soname;   /* what dlopen() is given */
	const char *test_env; /* test builds: env var that overrides soname */
	const char *package;  /* the Debian package that ships soname */
	const char *const *names; /* symbol names, in table order */
	void **table;         /* filled by pyrt_lazy_lib_load */
	size_t count;
	int state;            /* 0 not tried, 1 loaded, 2 failed (sticky) */
	char why[512];        /* dlerror() of a failed load */
};

/** Open lib once; 1 when every symbol resolved. */
int pyrt_lazy_lib_load(struct pyrt_lazy_lib *lib);

/** For a stub whose caller skipped pyrt_lazy_*(): load or abort(), naming
 *  the library on stderr (a bug in pyrt, never a user's mistake). */
void pyrt_lazy_lib_need(struct pyrt_lazy_lib *lib);

/** The refusal for a library that did not load. */
int pyrt_lazy_lib_error(const struct pyrt_lazy_lib *lib, pyrt_error *err);

/* LAZY_LIB_DEFINE(var, SYMS, soname, env, package): the symbol table and
 * the struct pyrt_lazy_lib `var` for the X-macro list SYMS(X) of function names
 * (each lazy_*.c had spelled these out the same way). */
#define LAZY_AS_INDEX(n) LAZY_I_##n,
#define LAZY_AS_NAME(n) #n,
#define LAZY_LIB_DEFINE(var, SYMS, so, env, pkg) \
	enum { SYMS(LAZY_AS_INDEX) var##_count }; \
	static const char *const var##_names[] = { SYMS(LAZY_AS_NAME) }; \
	static void *var##_table[var##_count]; \
	static struct pyrt_lazy_lib var = { \
		.soname = so, .test_env = env, .package = pkg, \
		.names = var##_names, .table = var##_table, \
		.count = var##_count, \
	}

/* Whether lib is loaded (the *_loaded() functions). */
#define LAZY_LIB_LOADED(lib) (__atomic_load_n(&(lib).state, __ATOMIC_ACQUIRE) == 1)

/* A table slot as the function it holds: T(lib, name) has name's type. */
#define LAZY_FN(table, name) ((__typeof__(&name))(table)[LAZY_I_##name])

#endif
