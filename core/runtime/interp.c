/* One run of py/doctor_interp.py and the parsing of what it printed. */
#include "core/runtime/interp.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/util/error.h"
#include "core/util/fmt.h"
#include "core/util/proc.h"
#include "core/util/py_programs.h"

#define IMPORTS_TAG "PYRT-IMPORTS " /* py/doctor_interp.py prints it */

/* The failures after the last IMPORTS_TAG line of output ("" when "ok");
 * 0 when there is none.  The last: a module imported before it may print
 * anything, the tag included, but never after it. */
static int interp_imports(const char *output, char *out, size_t len)
{
	const char *tag = NULL;
	for (const char *p = output; (p = strstr(p, IMPORTS_TAG)); p++)
		if (p == output || p[-1] == '\n')
			tag = p;
	if (!tag)
		return 0;
	tag += strlen(IMPORTS_TAG);
	size_t n = strcspn(tag, "\n");
	if (n == 2 && strncmp(tag, "ok", 2) == 0)
		n = 0;
	pyrt_fmt_text(out, len, "%.*s", (int)n, tag);
	return 1;
}

/* Version, prefix and imports from a run that exited 0. */
static void interp_parse(const char *output, pyrt_interp_report *out)
{
	if (sscanf(output, "%31s", out->version) != 1) {
		out->version[0] = '\0';
		return;
	}
	const char *nl = strchr(output, '\n');
	const char *prefix = nl ? nl + 1 : "";
	size_t n = strcspn(prefix, "\n");
	/* A prefix that does not fit is none: it is compared as a path. */
	if (n < sizeof out->prefix) {
		memcpy(out->prefix, prefix, n);
		out->prefix[n] = '\0';
	}
	out->imports_known = interp_imports(output, out->imports,
					    sizeof out->imports);
}

size_t pyrt_interp_argv(const char **argv, const char *python)
{
	size_t k = 0;
	argv[k++] = python;
	argv[k++] = "-I";
	argv[k++] = "--check-hash-based-pycs";
	argv[k++] = "always";
	return k;
}

int pyrt_interp_report_run(const char *python, const char *install_dir,
			   const char *const *reqs, size_t nreqs,
			   double timeout_s, const atomic_int *cancel,
			   pyrt_interp_report *out)
{
	memset(out, 0, sizeof *out);
	const char **argv = calloc(nreqs + PYRT_INTERP_PREFIX_LEN + 6, sizeof *argv);
	char **envp = pyrt_proc_scrubbed_env(install_dir);
	if (!argv || !envp) {
		free(argv);
		pyrt_proc_env_free(envp);
		return PYRT_E_NOMEM;
	}
	size_t k = pyrt_interp_argv(argv, python);
	argv[k++] = "-S";
	argv[k++] = "-B"; /* no bytecode left in the install it checks */
	argv[k++] = "-c";
	argv[k++] = pyrt_py_doctor_interp;
	for (size_t i = 0; i < nreqs; i++)
		argv[k++] = reqs[i];
	pyrt_proc_opts po = PYRT_PROC_OPTS_INIT;
	po.argv = argv;
	po.envp = (const char *const *)envp;
	po.cwd = install_dir;
	po.timeout_s = timeout_s;
	po.capture_max = 256 * 1024; /* room for what imports may print */
	po.cancel = cancel;
	pyrt_proc_result pr;
	memset(&pr, 0, sizeof pr);
	pyrt_error perr = PYRT_ERROR_INIT;
	int rc = pyrt_proc_run(&po, &pr, &perr);
	pyrt_proc_env_free(envp);
	free(argv);
	if (rc)
		pyrt_fmt_text(out->why, sizeof out->why, "%s", perr.msg);
	else if (pr.cancelled)
		rc = PYRT_E_CANCELLED;
	else if (pr.timed_out)
		pyrt_fmt_text(out->why, sizeof out->why,
			      "did not answer within %.0f s", timeout_s);
	else if (!pr.exited || pr.exit_code != 0)
		pyrt_fmt_text(out->why, sizeof out->why,
			      "does not start (%s %d): %.200s",
			      pr.exited ? "exit" : "killed by signal",
			      pr.exited ? pr.exit_code : pr.term_signal,
			      pr.output && pr.output[strspn(pr.output, " \t\r\n")]
				      ? pr.output : "it printed nothing");
	else if (pr.output)
		interp_parse(pr.output, out);
	pyrt_proc_result_clear(&pr);
	return rc == PYRT_E_NOMEM || rc == PYRT_E_CANCELLED ? rc : 0;
}
