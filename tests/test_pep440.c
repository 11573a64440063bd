/* ctest: test_pep440 */
/*
 * pep440: the specifier subset C decides (==, !=, <, <=, >, >=, ~= over
 * releases of digits and dots), what it leaves to Python (-1), the split of
 * a requirement into name and clauses; and a differential run of a corpus
 * of (specifier, installed version) pairs and requirement strings through
 * C and through the fixture runtime's own packaging (pip's vendored copy,
 * and packaging itself where installed): every answer C gives must be
 * Python's.
 */
#include <criterion/criterion.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/dist/pins.h"
#include "core/runtime/install.h"
#include "core/util/pep440.h"
#include "support.h"

static void sat(const char *spec, const char *v, int want)
{
	cr_assert_eq(pyrt_pep440_satisfies(spec, v), want, "[%s] against %s",
		     spec, v);
}

Test(pep440, comparisons_ignore_trailing_zeros)
{
	sat("==1", "1.0.0", 1);
	sat("==1.0", "1", 1);
	sat("!=1.0", "1.0.0", 0);
	sat("!=1.0", "1.0.1", 1);
	sat(">=0.8", "0.8.11", 1);
	sat(">=0.8", "0.7.99", 0);
	sat(">0.8", "0.8.0", 0);
	sat(">0.8", "0.8.0.1", 1);
	sat("<2", "1.99", 1);
	sat("<2", "2.0", 0);
	sat("<=2", "2.0.0", 1);
	sat("<=2", "2.0.1", 0);
	sat(">=1.10", "1.9", 0);
	sat(">=1.10", "1.10", 1);
}

Test(pep440, compatible_release)
{
	sat("~=1.4.5", "1.4.5", 1);
	sat("~=1.4.5", "1.4.9", 1);
	sat("~=1.4.5", "1.5", 0);
	sat("~=1.4.5", "1.4.4", 0);
	sat("~=2.2", "2.9", 1);
	sat("~=2.2", "3.0", 0);
	sat("~=2.2", "2", 0);
	sat("~=2.0", "2", 1);
	sat("~=1", "1.0", -1);
}

Test(pep440, clause_lists_and_spaces)
{
	sat(">=1.0,<2", "1.5", 1);
	sat(">=1.0,<2", "2.0", 0);
	sat(" >= 1.0 , < 2 ", "1.5", 1);
	sat("== 1.0", "1.0", 1);
	sat(">=1,!=1.5,<2", "1.5.0", 0);
	/* A clause C cannot read makes the whole list Python's, even when an
	 * earlier one already fails. */
	sat("<1,>=1.0a1", "2", -1);
	sat(">=1,", "1", -1);
	sat(",>=1", "1", -1);
	sat(">=1,,<2", "1", -1);
	sat("", "1", -1);
}

Test(pep440, everything_else_is_left_to_python)
{
	const char *const specs[] = {
		"==1.*", "==1.0.*", "===1.0", "==1.0a1", ">=1.0.post1",
		"==1.0+local", ">=v1", ">=01", ">=1.01", ">=1.", ">=.1",
		">=1..2", "=>1", "=1", "~1", ">=1;", "(>=1)", ">= 1 extra",
		">=1234567890", ">=1\t", "!1",
	};
	for (size_t i = 0; i < sizeof specs / sizeof specs[0]; i++)
		sat(specs[i], "1.0", -1);
	const char *const versions[] = {
		"1.0a1", "1.0.post1", "1.0.dev0", "1.0+local", "01", "1.",
		"", "v1", "1.0 ", "1234567890",
	};
	for (size_t i = 0; i < sizeof versions / sizeof versions[0]; i++)
		sat(">=0.1", versions[i], -1);
	cr_assert(pyrt_pep440_is_release("1.2.3"));
	cr_assert(!pyrt_pep440_is_release("1.2.3a"));
}

static void split(const char *req, pyrt_pep440_form want, const char *name,
		  const char *spec)
{
	char got[64] = "";
	const char *s = NULL;
	cr_assert_eq(pyrt_pep440_split(req, got, sizeof got, &s), want, "[%s]",
		     req);
	if (want == PYRT_PEP440_OTHER)
		return;
	cr_assert_str_eq(got, name, "[%s]", req);
	if (want == PYRT_PEP440_SPEC)
		cr_assert_str_eq(s, spec, "[%s]", req);
}

Test(pep440, requirements_split_into_name_and_clauses)
{
	split("python-docx", PYRT_PEP440_BARE, "python-docx", NULL);
	split("  Demo.Pkg  ", PYRT_PEP440_BARE, "Demo.Pkg", NULL);
	split("python-docx>=0.8", PYRT_PEP440_SPEC, "python-docx", ">=0.8");
	split("a >= 1, <2", PYRT_PEP440_SPEC, "a", ">= 1, <2");
	split("x-", PYRT_PEP440_OTHER, NULL, NULL);
	split("-x", PYRT_PEP440_OTHER, NULL, NULL);
	split("x[y]>=1", PYRT_PEP440_OTHER, NULL, NULL);
	split("x (>=1)", PYRT_PEP440_OTHER, NULL, NULL);
	split("x @ https://h/x.whl", PYRT_PEP440_OTHER, NULL, NULL);
	split("x; python_version > '3'", PYRT_PEP440_OTHER, NULL, NULL);
	split("x\t", PYRT_PEP440_OTHER, NULL, NULL);
	split("", PYRT_PEP440_OTHER, NULL, NULL);
	char longname[100];
	memset(longname, 'a', sizeof longname - 1);
	longname[sizeof longname - 1] = '\0';
	split(longname, PYRT_PEP440_OTHER, NULL, NULL);
}

/* ---- the differential run against the fixture runtime's packaging ---- */

static char *work, *box;
static pyrt_pins *pins;

static void setup(void)
{
	work = pt_tmpdir("pep440");
	box = pt_join(work, "box");
	char msg[PYRT_ERROR_MSG_MAX];
	cr_assert_eq(pt_fixture_pins_load(work, &pins, msg, sizeof msg), 0,
		     "%s", msg);
}

static void teardown(void)
{
	pyrt_pins_free(pins);
	pt_rmtree(work);
	free(work);
	free(box);
}

/* Each line "P\tspec\tversion" or "R\trequirement"; the answer line holds
 * one field per packaging found: 1, 0, E (error), "B name" (the checker's
 * bare-name match), "R name marker extras_or_url". */
static const char differential_program[] =
	"import sys, re, site\n"
	"sys.path.extend(p for p in site.getsitepackages() if p not in sys.path)\n"
	"BARE = re.compile(r'\\s*([A-Za-z0-9]|[A-Za-z0-9][A-Za-z0-9._-]*[A-Za-z0-9])\\s*$')\n"
	"impls = []\n"
	"try:\n"
	"    from pip._vendor.packaging.requirements import Requirement\n"
	"    from pip._vendor.packaging import __version__ as v\n"
	"    impls.append(('pip._vendor.packaging-' + v, Requirement))\n"
	"except ImportError:\n"
	"    pass\n"
	"try:\n"
	"    from packaging.requirements import Requirement\n"
	"    from packaging import __version__ as v\n"
	"    impls.append(('packaging-' + v, Requirement))\n"
	"except ImportError:\n"
	"    pass\n"
	"out = open(sys.argv[2], 'w')\n"
	"out.write(' '.join(n for n, _ in impls) + '\\n')\n"
	"reqs = {}\n"
	"def parse(R, s):\n"
	"    k = (id(R), s)\n"
	"    if k not in reqs:\n"
	"        try:\n"
	"            reqs[k] = R(s)\n"
	"        except Exception:\n"
	"            reqs[k] = None\n"
	"    return reqs[k]\n"
	"for line in open(sys.argv[1], encoding='utf-8'):\n"
	"    kind, *rest = line.rstrip('\\n').split('\\t')\n"
	"    res = []\n"
	"    for n, R in impls:\n"
	"        if kind == 'P':\n"
	"            r = parse(R, 'x' + rest[0])\n"
	"            try:\n"
	"                ok = r.specifier.contains(rest[1], prereleases=True)\n"
	"                res.append('1' if ok else '0')\n"
	"            except Exception:\n"
	"                res.append('E')\n"
	"            continue\n"
	"        m = BARE.match(rest[0])\n"
	"        if m:\n"
	"            res.append('B ' + m.group(1))\n"
	"            continue\n"
	"        r = parse(R, rest[0])\n"
	"        res.append('E' if r is None else 'R %s %d %d' % (r.name,\n"
	"                   r.marker is not None, bool(r.extras or r.url)))\n"
	"    out.write('\\t'.join(res) + '\\n')\n";

static const char *const spec_versions[] = {
	"0", "1", "1.0", "1.0.0", "1.2", "1.2.0", "1.2.3", "2", "0.8",
	"0.8.11", "1.10", "01", "1.01", "1.*", "1.0.*", "1.0a1", "1.0.post1",
	"1.0.dev0", "1.0+local", "v1.0", "1..0", "1.", ".1", "1.0.0.0",
	"999999999", "1234567890", "2.2", "1.4.5",
};
static const char *const ops[] = {
	"==", "!=", "<", "<=", ">", ">=", "~=", "===", "", "=", "=>",
};
static const char *const installed[] = {
	"0", "1", "1.0", "1.0.0", "1.1", "1.2", "1.2.0", "1.2.3", "1.2.4",
	"1.3", "1.4.5", "1.4.9", "1.5", "2", "2.0.1", "2.2", "2.9", "3", "0.8",
	"0.8.11", "0.9", "1.9", "1.10", "10", "01", "1.0a1", "1.0.post1",
	"1.0.dev0", "1.0+local", "1.0.0.0.1", "999999999", "1000000000",
};
static const char *const odd_specs[] = {
	"", ",", ">=1,", ",>=1", ">=1,,<2", " >= 1.0 , < 2 ", ">=1.0;",
	"(>=1.0)", ">=1.0 extra", ">=1.0,<2,!=1.5", "~=1", "~= 1.4.5 ",
	">=1 ,<2", "==1.0, ==1", "> 0", "<0",
};
static const char *const odd_reqs[] = {
	"demo", "Demo.Pkg", "demo_pkg", "a", "1x", "x-", "-x", "x..y",
	" demo ", "demo [x]", "demo[x]>=1", "demo @ https://h/x.whl",
	"demo; python_version > '3'", "demo>=1; python_version > '3'",
	"demo (>=1.0)", "demo>=1.0 extra", "demo >= 1.0", "demo>=1,<2",
	"python-docx>=0.8", "python-docx", "openpyxl", "demo~=1.0",
	"demo.>=1", "demo->=1", "a.b-c_d>=1",
};

/* The corpus as lines (kind, text[, version]), written to path. */
static size_t write_corpus(const char *path, char ***lines)
{
	size_t cap = 65536, n = 0;
	char **l = calloc(cap, sizeof *l);
	FILE *f = fopen(path, "w");
	cr_assert(l && f);
	char spec[256];
#define ADD(...) do { cr_assert(n < cap); \
		cr_assert(asprintf(&l[n], __VA_ARGS__) > 0); \
		fprintf(f, "%s\n", l[n++]); } while (0)
#define NELEM(a) (sizeof(a) / sizeof((a)[0]))
	for (size_t o = 0; o < NELEM(ops); o++)
		for (size_t v = 0; v < NELEM(spec_versions); v++)
			for (int sp = 0; sp < 2; sp++) {
				snprintf(spec, sizeof spec, "%s%s%s", ops[o],
					 sp ? " " : "", spec_versions[v]);
				for (size_t i = 0; i < NELEM(installed); i++)
					ADD("P\t%s\t%s", spec, installed[i]);
				ADD("R\tdemo%s", spec);
			}
	for (size_t s = 0; s < NELEM(odd_specs); s++) {
		for (size_t i = 0; i < NELEM(installed); i++)
			ADD("P\t%s\t%s", odd_specs[s], installed[i]);
		ADD("R\tdemo%s", odd_specs[s]);
	}
	/* Clause lists, drawn with a fixed seed so a failure repeats. */
	unsigned seed = 440;
	for (int k = 0; k < 400; k++) {
		size_t len = 0;
		int clauses = 1 + (int)(rand_r(&seed) % 3);
		spec[0] = '\0';
		for (int c = 0; c < clauses; c++) {
			char v[64];
			int parts = 1 + (int)(rand_r(&seed) % 4);
			size_t vl = 0;
			for (int p = 0; p < parts; p++)
				vl += (size_t)snprintf(v + vl, sizeof v - vl,
						       "%s%u", p ? "." : "",
						       rand_r(&seed) % 13);
			len += (size_t)snprintf(spec + len, sizeof spec - len,
						"%s%s%s", c ? "," : "",
						ops[rand_r(&seed) % 7], v);
		}
		for (size_t i = 0; i < NELEM(installed); i++)
			ADD("P\t%s\t%s", spec, installed[i]);
	}
	for (size_t r = 0; r < NELEM(odd_reqs); r++)
		ADD("R\t%s", odd_reqs[r]);
#undef ADD
	fclose(f);
	*lines = l;
	return n;
}

/* One corpus line through C and against Python's fields; 1 when C decided
 * it, 0 when it left it to Python. */
static int compare(const char *line, char *py, size_t impls)
{
	char buf[512];
	snprintf(buf, sizeof buf, "%s", line);
	char *text = strchr(buf, '\t') + 1;
	char *fields[4];
	size_t nf = 0;
	for (char *s = strtok(py, "\t"); s && nf < 4; s = strtok(NULL, "\t"))
		fields[nf++] = s;
	cr_assert_eq(nf, impls, "answer for [%s]", line);
	if (buf[0] == 'P') {
		char *version = strchr(text, '\t');
		*version++ = '\0';
		int c = pyrt_pep440_satisfies(text, version);
		if (c < 0)
			return 0;
		for (size_t i = 0; i < nf; i++)
			cr_assert_str_eq(fields[i], c ? "1" : "0",
					 "C says %d for [%s] against %s, Python "
					 "(%zu) %s", c, text, version, i,
					 fields[i]);
		return 1;
	}
	char name[128], want[200];
	const char *clauses;
	pyrt_pep440_form f = pyrt_pep440_split(text, name, sizeof name,
					       &clauses);
	if (f == PYRT_PEP440_SPEC && pyrt_pep440_satisfies(clauses, "0") < 0)
		f = PYRT_PEP440_OTHER;
	if (f == PYRT_PEP440_OTHER)
		return 0;
	snprintf(want, sizeof want, f == PYRT_PEP440_BARE ? "B %s" : "R %s 0 0",
		 name);
	for (size_t i = 0; i < nf; i++)
		cr_assert_str_eq(fields[i], want, "requirement [%s]", text);
	return 1;
}

/* The corpus through the packaging copies interp finds; every line C
 * decides must match.  Returns the pairs C decided. */
static size_t run_differential(const char *interp, const char *corpus,
			       char **lines, size_t n)
{
	char *answers = pt_join(work, "answers.tsv");
	char *prog = pt_join(work, "differential.py");
	pt_write(prog, differential_program);
	cr_assert_eq(pt_sh("'%s' -I -S '%s' '%s' '%s'", interp, prog, corpus,
			   answers), 0);
	FILE *f = fopen(answers, "r");
	cr_assert_not_null(f);
	char head[512], py[512];
	cr_assert_not_null(fgets(head, sizeof head, f));
	size_t impls = 1;
	for (const char *s = head; *s; s++)
		impls += *s == ' ';
	cr_assert(strlen(head) > 1, "%s has no packaging at all", interp);
	size_t decided = 0, pairs = 0, pairs_decided = 0;
	for (size_t i = 0; i < n; i++) {
		cr_assert_not_null(fgets(py, sizeof py, f), "line %zu", i);
		py[strcspn(py, "\n")] = '\0';
		int d = compare(lines[i], py, impls);
		decided += (size_t)d;
		if (lines[i][0] == 'P') {
			pairs++;
			pairs_decided += (size_t)d;
		}
	}
	fclose(f);
	head[strcspn(head, "\n")] = '\0';
	fprintf(stderr, "differential (%s): %zu corpus lines, %zu decided in "
		"C, all equal to Python (%s); (specifier, version) pairs %zu, "
		"%zu decided\n", interp, n, decided, head, pairs,
		pairs_decided);
	free(answers);
	free(prog);
	return pairs_decided;
}

Test(pep440_differential, c_agrees_with_the_runtimes_packaging,
     .init = setup, .fini = teardown, .timeout = 600)
{
	char msg[PYRT_ERROR_MSG_MAX];
	cr_assert_eq(pt_install_fixture(box, pins, msg, sizeof msg), 0, "%s",
		     msg);

	char *corpus = pt_join(work, "corpus.tsv");
	char **lines = NULL;
	size_t n = write_corpus(corpus, &lines);
	char interp[PATH_MAX];
	snprintf(interp, sizeof interp, "%s/runtime/python/current/bin/python3",
		 box);
	size_t pairs_decided = run_differential(interp, corpus, lines, n);
	/* The host's Python too, when it has a newer packaging (Debian's
	 * python3-packaging): the semantics must hold across versions. */
	if (access("/usr/bin/python3", X_OK) == 0 &&
	    pt_sh("/usr/bin/python3 -c 'import packaging' 2>/dev/null") == 0)
		cr_assert_eq(run_differential("/usr/bin/python3", corpus, lines,
					      n), pairs_decided);
	cr_assert_gt(pairs_decided, 1000, "C decides the common cases");
	for (size_t i = 0; i < n; i++)
		free(lines[i]);
	free(lines);
	free(corpus);
}
