/*
 * Every check support staff need at an unprovisioned or broken desktop, each
 * with a verdict and the fix: platform, pins, box root, lock, runtime,
 * marker vs files, interpreter, baseline, plugins, free disk, CA bundle,
 * proxy variables (values redacted), stale staging, and when asked the
 * network: the archive's host and the index, reached as a download would.
 * A box whose packages come from a wheelhouse (air-gapped) has the
 * wheelhouse checked on disk instead of an index it never reaches.
 */
#ifndef PYRT_DOCTOR_H
#define PYRT_DOCTOR_H

#include <stddef.h>

#include "core/dist/pins.h"
#include "core/runtime/box.h"
#include "core/util/error.h"
#include "core/util/events.h"

typedef enum pyrt_check_verdict {
	PYRT_CHECK_PASS = 0,
	PYRT_CHECK_WARN,   /**< worth knowing, does not fail doctor */
	PYRT_CHECK_FAIL,
	PYRT_CHECK_SKIP    /**< could not be checked because an earlier one failed */
} pyrt_check_verdict;

typedef struct pyrt_check {
	const char *id;       /**< stable: "platform", "pins", "box_root", ... */
	const char *title;    /**< "Platform supported" */
	pyrt_check_verdict verdict;
	const char *detail;   /**< what was seen, one line */
	const char *fix;      /**< the command or action, NULL when passing */
} pyrt_check;

typedef struct pyrt_doctor pyrt_doctor;

typedef struct pyrt_doctor_opts {
	unsigned int version;
	/** the box, opened by the caller (app_doctor_run) once; a root
	 *  pyrt_box_open refuses as untrusted goes to pyrt_doctor_refused */
	const pyrt_box *box;
	const pyrt_pins *pins;
	const char *platform_key;
	const char *cacert;     /**< the CA bundle install would use, or NULL */
	int network;            /**< try the archive's host and the index */
	const char *mirror;     /**< --mirror: the archive's URL under it */
	const char *index_url;  /**< pip's index; NULL: PIP_INDEX_URL, else
				     PyPI */
	long network_timeout_s; /**< per host; 0: DOCTOR_NET_TIMEOUT_S */
	/** The box's package source when it is a wheelhouse (--wheelhouse,
	 *  PYRT_WHEELHOUSE, or the box's declared.json): checked on disk
	 *  (the folder passes the gate and holds a wheel for each baseline
	 *  requirement) in place of pip's index, which it never reaches. */
	const char *wheelhouse;
	/** Where wheelhouse or index_url came from, for the detail ("--index-url",
	 *  "the box's declared source"); NULL: "--wheelhouse"/"--index-url". */
	const char *source_from;
} pyrt_doctor_opts;

#define PYRT_DOCTOR_OPTS_VERSION 1
#define PYRT_DOCTOR_OPTS_INIT { PYRT_DOCTOR_OPTS_VERSION, NULL, NULL, NULL, NULL, \
	0, NULL, NULL, 0, NULL, NULL }

int pyrt_doctor_run(pyrt_doctor **out, const pyrt_doctor_opts *opts,
		    const pyrt_events *ev, pyrt_error *err);

/**
 * doctor's answer for a box root pyrt_box_open refused as PYRT_E_UNTRUSTED
 * (refusal: its error): one failed "box_root" check naming what to do,
 * and nothing in the box is read or run.  0 with *out, or PYRT_E_NOMEM.
 */
int pyrt_doctor_refused(pyrt_doctor **out, const char *box_root,
			const pyrt_error *refusal, pyrt_error *err);
void pyrt_doctor_free(pyrt_doctor *d);

/**
 * When <box_root>/plugins, a plugin's folder or its plugin.yaml is not
 * readable by this user (a umask of 077 when root made them), the command
 * that opens them to every user of the box into buf ("sudo chmod -R go+rX
 * '<box>/plugins'" when they are another's) and 1; else 0.
 */
int pyrt_doctor_plugins_fix(const char *box_root, char *buf, size_t len);

/**
 * Replace every check's detail and fix by fn's word for it (fn returns a
 * malloc'd string, or NULL when out of memory): how app/ renders the
 * commands in them for the options in effect.  Returns 0, or
 * PYRT_E_NOMEM (the checks keep their old words).
 */
int pyrt_doctor_map_text(pyrt_doctor *d,
			 char *(*fn)(const char *text, void *arg), void *arg);

size_t pyrt_doctor_count(const pyrt_doctor *d);
const pyrt_check *pyrt_doctor_at(const pyrt_doctor *d, size_t i);
/** 1 when no check failed. */
int pyrt_doctor_passed(const pyrt_doctor *d);
const char *pyrt_check_verdict_name(pyrt_check_verdict v);

/**
 * Write a support bundle (tar.gz, 0600): doctor.json (given by the caller,
 * already redacted), the newest install log, the marker, platform facts —
 * with URL userinfo, tokens and credentials redacted.
 */
/* out_path "-" writes the tar.gz to stdout.  Members sit in one folder,
 * pyrt-bundle/. */
int pyrt_doctor_bundle(const pyrt_doctor *d, const char *doctor_json,
		       const char *out_path, pyrt_error *err);

#endif
