/* Helpers shared by the criterion tests: temp dirs, fixtures, an event recorder. */
#ifndef PYRT_TEST_SUPPORT_H
#define PYRT_TEST_SUPPORT_H

#include <stddef.h>

#include "core/util/events.h"

/** A fresh directory under $PYRT_TEST_TMP (or /tmp); malloc'd path. */
char *pt_tmpdir(const char *tag);
/** rm -rf path (test cleanup only). */
void pt_rmtree(const char *path);
/** malloc'd "a/b". */
char *pt_join(const char *a, const char *b);
/** Run a shell command built with printf formatting; returns its exit status. */
int pt_sh(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/** Write a file with the given text (0644). */
void pt_write(const char *path, const char *text);
/** Read a whole file into a malloc'd string, or NULL. */
char *pt_read(const char *path);
/** Source and build directories (from ctest's environment, or "." ). */
const char *pt_source_dir(void);
const char *pt_binary_dir(void);

/**
 * Build (once, cached under the build dir) the shared fixtures: a test CA and
 * server certificate, the fixture runtime archive and its pins.  Returns the
 * fixtures directory: ca.pem, server.pem, server.key, runtime.tar.gz,
 * runtime.sha256, pins.yaml (url https://127.0.0.1:PORT placeholder-free:
 * tests pass --mirror).
 */
const char *pt_fixtures(void);

/** A loopback HTTPS mirror (tests/fixtures/mirror.py) serving a directory. */
typedef struct pt_mirror {
	int pid;
	int port;
	char base[128];   /* "https://127.0.0.1:PORT" */
	char log[4096];   /* its request log */
} pt_mirror;

/** Start a mirror over www with the fixtures' certificate; aborts on failure. */
void pt_mirror_start(pt_mirror *m, const char *www);
/** Stop it by pid and reap it. */
void pt_mirror_stop(pt_mirror *m);

/**
 * Write a pins file into dir/name for the fixture runtime with the given
 * url, version and sha256 (NULL: the fixture's own); returns malloc'd path.
 */
char *pt_fixture_pins(const char *dir, const char *name, const char *url,
		      const char *version, const char *sha256);

struct pyrt_marker;

/**
 * Lay the record of a hand-made install into install_dir (installs/<id>):
 * a manifest.tsv listing its python/ directory, and m as marker.json with
 * every field the caller left empty filled with a valid value (source,
 * installed_at, pins, archive_bytes, files, the manifest's digest, the
 * baseline state).  Aborts the test on failure.
 */
void pt_lay_record(const char *install_dir, struct pyrt_marker *m);

/** The fixture's host platform key ("linux-x86_64-gnu" on amd64). */
const char *pt_host_key(void);

struct pyrt_pins;
struct pyrt_status;
struct pyrt_error;
/** Open the box at root and read its status (no memo); 0, or the open's
 *  or the read's code with err filled. */
int pt_status_read(const char *root, const struct pyrt_pins *pins,
		   const char *key, int deep, struct pyrt_status *st,
		   struct pyrt_error *err);

/** The fixture pins (pt_fixture_pins with an unreachable URL: tests
 *  install --from-file) written in dir and loaded; 0, or pyrt's code with
 *  msg filled. */
int pt_fixture_pins_load(const char *dir, struct pyrt_pins **out, char *msg,
			 size_t msglen);

/** Install the fixture runtime (pt_fixtures()/runtime.tar.gz, offline, no
 *  baseline) into box under pins; 0, or pyrt's code with msg filled. */
int pt_install_fixture(const char *box, const struct pyrt_pins *pins,
		       char *msg, size_t msglen);

/** Everything an events struct reported, for assertions. */
typedef struct pt_recorder {
	int steps_begun[PYRT_STEP__COUNT];
	int steps_ended[PYRT_STEP__COUNT];
	int steps_failed[PYRT_STEP__COUNT];
	int progress_calls;
	unsigned long long last_done, last_total;
	char log[16384];     /* every log line, '\n'-joined (truncated) */
	int cancel_after_progress; /* >0: return 1 from the Nth progress call */
} pt_recorder;

/** An events struct whose callbacks fill rec. */
pyrt_events pt_recorder_events(pt_recorder *rec);

#endif
