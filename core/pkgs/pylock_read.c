/*
 * A pylock.toml read by the runtime: the gate opens it, the interpreter
 * reads it from that descriptor (its fd 4) and answers in JSON, and the
 * wheels that fit this machine become the built-in pins' lock.
 */
#include "core/pkgs/pylock_read.h"

#include <fcntl.h>
#include <jansson.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/dist/platform.h"
#include "core/pkgs/wheellock.h"
#include "core/runtime/box.h"
#include "core/runtime/interp.h"
#include "core/util/fmt.h"
#include "core/util/proc.h"
#include "core/util/py_programs.h"
#include "core/util/trust.h"

#define READ_TIMEOUT_S 30.0
#define READ_OUTPUT_MAX (8 * 1024 * 1024)

int pyrt_pylock_is_name(const char *path)
{
	const char *slash = path ? strrchr(path, '/') : NULL;
	const char *f = slash ? slash + 1 : path;
	size_t n = f ? strlen(f) : 0;
	if (n == 11 && strcmp(f, "pylock.toml") == 0)
		return 1;
	/* pylock.NAME.toml, NAME without a dot */
	if (n < 13 || strncmp(f, "pylock.", 7) != 0 ||
	    strcmp(f + n - 5, ".toml") != 0)
		return 0;
	const char *dot = strchr(f + 7, '.');
	return dot == f + n - 5;
}

/* The interpreter of the box's active install, or the fix. */
static int reader_python(const char *box_root, const pyrt_pins *pins,
			 char *python, size_t len, pyrt_error *err)
{
	pyrt_box *box = NULL;
	char install[PATH_MAX];
	pyrt_error berr = PYRT_ERROR_INIT; /* the fix below says it better */
	int rc = pyrt_box_open(&box, box_root, 0, &berr);
	if (!rc)
		rc = pyrt_box_active_install(box, install, sizeof install,
					     &berr);
	if (!rc)
		rc = pyrt_box_interpreter(install, pins, python, len, &berr);
	pyrt_box_free(box);
	if (!rc && access(python, X_OK) == 0)
		return 0;
	return pyrt_error_set(err, PYRT_E_NOT_READY, "a pylock.toml is read "
			      "by the runtime's own Python, and %s has no "
			      "runtime to read it with; install one first "
			      "(pyrt install --no-baseline --box-root %s), then "
			      "pass --pins pylock.toml", box_root, box_root);
}

/* The last line of output that starts a JSON object, or NULL. */
static const char *last_json_line(const char *s)
{
	const char *found = NULL;
	for (const char *p = s; p && *p;) {
		if (*p == '{')
			found = p;
		p = strchr(p, '\n');
		if (p)
			p++;
	}
	return found;
}

/* Run py/pylock_read.py on fd; its JSON answer into *out. */
static int reader_run(const char *python, int fd, const char *path,
		      json_t **out, pyrt_error *err)
{
	const char *argv[PYRT_INTERP_PREFIX_LEN + 5];
	size_t k = pyrt_interp_argv(argv, python);
	argv[k++] = "-S";
	argv[k++] = "-B";
	argv[k++] = "-c";
	argv[k++] = pyrt_py_pylock_read;
	argv[k] = NULL;
	char **envp = pyrt_proc_scrubbed_env("/");
	if (!envp)
		return pyrt_error_set(err, PYRT_E_NOMEM, "out of memory");
	pyrt_proc_opts po = PYRT_PROC_OPTS_INIT;
	po.argv = argv;
	po.envp = (const char *const *)envp;
	po.cwd = "/";
	po.timeout_s = READ_TIMEOUT_S;
	po.capture_max = READ_OUTPUT_MAX;
	po.keep_fd = fd;
	pyrt_proc_result pr;
	memset(&pr, 0, sizeof pr);
	int rc = pyrt_proc_run(&po, &pr, err);
	pyrt_proc_env_free(envp);
	const char *last = !rc && pr.exited && pr.exit_code == 0 &&
			   !pr.truncated && pr.output
			   ? last_json_line(pr.output) : NULL;
	if (!rc && !(last && (*out = json_loads(last, JSON_DISABLE_EOF_CHECK,
					       NULL))))
		rc = pyrt_error_set(err, PYRT_E_INTERPRETER, "the runtime's "
				    "Python did not read %s (%s %d); run \"pyrt "
				    "doctor\"", path, pr.timed_out ? "timed out"
				    : "exit status", pr.exited ? pr.exit_code
				    : 128 + pr.term_signal);
	pyrt_proc_result_clear(&pr);
	return rc;
}

/* The answer's wheels that fit platform, as the pins' lock for it. */
static int reader_lock(pyrt_pins *pins, const char *platform, json_t *j,
		       const char *path, pyrt_error *err)
{
	const char *e = json_string_value(json_object_get(j, "error"));
	json_t *list = json_object_get(j, "wheels");
	if (e || !json_is_array(list))
		return pyrt_error_set(err, PYRT_E_PINS, "%s: %.400s", path,
				      e ? e : "no answer");
	size_t n = json_array_size(list), k = 0;
	pyrt_pin_wheel *w = calloc(n ? n : 1, sizeof *w);
	if (!w)
		return pyrt_error_set(err, PYRT_E_NOMEM, "out of memory");
	for (size_t i = 0; i < n; i++) {
		json_t *row = json_array_get(list, i);
		const char *file = json_string_value(json_array_get(row, 0));
		const char *sha = json_string_value(json_array_get(row, 1));
		json_int_t size = json_integer_value(json_array_get(row, 2));
		if (!file || !sha || size <= 0 ||
		    !pyrt_wheellock_fits(file, platform))
			continue;
		int dup = 0;
		for (size_t q = 0; q < k && !dup; q++)
			dup = strcmp(w[q].file, file) == 0;
		if (dup)
			continue;
		w[k].file = file;
		w[k].sha256 = sha;
		w[k++].size = (uint64_t)size;
	}
	int rc = k == 0
		 ? pyrt_error_set(err, PYRT_E_PINS, "%s: none of its %zu "
				  "wheel(s) is for this platform (%s)", path,
				  n, platform)
		 : pyrt_pins_set_lock(pins, platform, w, k, err);
	free(w);
	return rc;
}

int pyrt_pylock_load_pins(pyrt_pins **out, const char *path,
			  const char *box_root, pyrt_error *err)
{
	*out = NULL;
	pyrt_pins *pins = NULL;
	pyrt_platform here;
	char python[PATH_MAX];
	json_t *j = NULL;
	int fd = -1;
	int rc = pyrt_trust_open("pins file", path, 0, &fd, err);
	if (!rc)
		rc = pyrt_pins_load_builtin(&pins, err);
	if (!rc)
		rc = pyrt_platform_detect(&here, err);
	if (!rc && !pyrt_pins_find(pins, here.key))
		rc = pyrt_error_set(err, PYRT_E_PINS, "%s: the built-in pins "
				    "pin no runtime for this platform (%s)",
				    path, here.key);
	if (!rc)
		rc = reader_python(box_root, pins, python, sizeof python, err);
	if (!rc)
		rc = reader_run(python, fd, path, &j, err);
	if (!rc)
		rc = reader_lock(pins, here.key, j, path, err);
	if (!rc) {
		char source[PATH_MAX + 32];
		pyrt_fmt_text(source, sizeof source, "builtin with %s", path);
		if (pyrt_pins_set_source(pins, source) != 0)
			rc = pyrt_error_set(err, PYRT_E_NOMEM, "out of memory");
	}
	json_decref(j);
	if (fd >= 0)
		close(fd);
	if (rc) {
		pyrt_pins_free(pins);
		return rc;
	}
	*out = pins;
	return 0;
}
