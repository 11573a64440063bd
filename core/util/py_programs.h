/*
 * The Python programs pyrt runs inside the managed interpreter with -c, as
 * written in py/<name>.py and embedded at build time (cmake/embed.cmake):
 * each is NUL-terminated, and its _size counts the NUL, as sizeof would.
 * They stay real files so pyflakes and the unit tests (tests/py) read
 * exactly what runs.
 */
#ifndef PYRT_PY_PROGRAMS_H
#define PYRT_PY_PROGRAMS_H

#include <stddef.h>

/** The wheelhouse installer (fastwheel.h). */
extern const char pyrt_py_fastwheel[];
extern const size_t pyrt_py_fastwheel_size;
/** The interpreter's own report (interp.c): doctor's interpreter check,
 *  the baseline's import check. */
extern const char pyrt_py_doctor_interp[];
extern const size_t pyrt_py_doctor_interp_size;
/** The plugin requirement checker (plugins.c). */
extern const char pyrt_py_plugin_check[];
extern const size_t pyrt_py_plugin_check_size;
/** smoke's .docx writer (smoke.c). */
extern const char pyrt_py_smoke[];
extern const size_t pyrt_py_smoke_size;
/** install's check of a staged interpreter (install.c). */
extern const char pyrt_py_install_check[];
extern const size_t pyrt_py_install_check_size;
/** The wheel lock's check and closure of the requirements (wheellock.c). */
extern const char pyrt_py_lock_closure[];
extern const size_t pyrt_py_lock_closure_size;
/** A PEP 751 pylock.toml's wheels, read with tomllib (pylock_read.c). */
extern const char pyrt_py_pylock_read[];
extern const size_t pyrt_py_pylock_read_size;

#endif
