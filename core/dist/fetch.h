/*
 * Download one archive over HTTPS into a partial file, hashing the bytes as
 * they arrive.  Resumes a partial file with a Range request (re-hashing the
 * bytes already there first), retries transient failures with backoff, cuts
 * off stalls and over-long bodies.  Certificate checks are always on; plain
 * http:// is accepted only for loopback hosts, and loopback is never reached
 * through a proxy.  Messages name the URL without credentials or query
 * values (pyrt_redact_url).
 */
#ifndef PYRT_FETCH_H
#define PYRT_FETCH_H

#include <stdint.h>

#include "core/util/error.h"
#include "core/util/events.h"
#include "core/util/sha256.h"

#define PYRT_FETCH_OPTS_VERSION 1
#define PYRT_FETCH_HARD_CAP (512ull * 1024 * 1024)

typedef struct pyrt_fetch_opts {
	unsigned int version;
	const char *url;
	const char *partial_path;  /**< created 0600 if absent; resumed if present */
	const char *cacert;        /**< CA bundle that replaces the system CAs
				        (for the server and an HTTPS proxy),
				        or NULL for the system CAs */
	uint64_t expected_size;    /**< the pin's size, 0 when unknown; also the cap */
	uint64_t max_size;         /**< cap when expected_size is 0 */
	unsigned int max_attempts; /**< total tries of one download */
	unsigned int backoff_ms;   /**< first pause between tries; doubles */
	long connect_timeout_s;
	long low_speed_limit;      /**< bytes/s below which ... */
	long low_speed_time_s;     /**< ... for this long is a stall */
	double progress_interval_s;/**< at most one on_progress per interval */
} pyrt_fetch_opts;

#define PYRT_FETCH_OPTS_INIT { PYRT_FETCH_OPTS_VERSION, NULL, NULL, NULL, 0, \
	PYRT_FETCH_HARD_CAP, 4, 500, 20, 1024, 30, 0.1 }

typedef struct pyrt_fetch_result {
	char sha256[PYRT_SHA256_HEX_LEN + 1]; /**< of the whole file */
	uint64_t bytes;        /**< size of the complete file */
	uint64_t resumed_from; /**< bytes already present and kept, 0 if none */
	unsigned int resumes;  /**< answers that continued bytes already on
				    disk (a 206, or a 416 for a complete
				    file): the digest then covers bytes of
				    an earlier answer or run */
	unsigned int attempts;
	long http_status;      /**< of the last response */
} pyrt_fetch_result;

/**
 * Fetch opts->url into opts->partial_path.  On success the file is complete
 * and result->sha256 is its digest.  On failure (PYRT_E_NETWORK,
 * PYRT_E_IO, PYRT_E_CANCELLED, PYRT_E_USAGE for a refused URL) the partial
 * file is kept for a later resume only when it can be the start of the
 * archive: it is removed when empty, when its bytes are known to be wrong
 * (cap exceeded), or when they came from a 200 that did not state its
 * length while a size is pinned.  An answer for a file of another size than
 * expected_size (a captive portal's 200) is refused before a byte of it is
 * written (PYRT_E_NETWORK, not retried).
 */
int pyrt_fetch(const pyrt_fetch_opts *opts, const pyrt_events *ev,
	       pyrt_fetch_result *result, pyrt_error *err);

/**
 * The URL to fetch when a mirror is set: the mirror's path + "/" + the last
 * two path segments of url (python-build-standalone's "<build>/<file>", the
 * layout uv's mirrors use), keeping the mirror's userinfo and query
 * ("https://u:p@h/p?x=1" gives "https://u:p@h/p/<build>/<file>?x=1").  A
 * trailing '/' on the mirror's path is ignored, its fragment dropped, url's
 * query and fragment too.  *out is malloc'd and holds the credentials: show
 * it only through pyrt_redact_url.
 */
int pyrt_fetch_mirror_url(const char *url, const char *mirror, char **out,
			  pyrt_error *err);

/**
 * Whether pyrt would fetch from url: https, or plain http to a loopback
 * host, with a host.  0, or PYRT_E_USAGE with "<what> <url>: why" (the URL
 * redacted), for checking --mirror and --index-url before anything starts.
 */
int pyrt_fetch_url_check(const char *url, const char *what, pyrt_error *err);

/** What pyrt_fetch_probe found: one line for people, no credentials. */
typedef struct pyrt_fetch_probe_result {
	int ok;             /**< DNS, TCP, the proxy and TLS all passed */
	const char *stage;  /**< where it stopped: "dns", "proxy", "tcp",
			         "tls", "timeout", "other"; "" when ok */
	long ms;            /**< how long it took */
	char line[1024];    /**< "host:443: DNS, TCP and TLS (certificate
			         verified) in 12 ms, direct", or what
			         failed and how */
} pyrt_fetch_probe_result;

/**
 * Can a download reach url's host now?  DNS, a TCP connection (through the
 * proxy libcurl takes from the environment, as a download would), and the
 * TLS handshake verified with cacert (NULL: the system CAs), with libcurl's
 * CONNECT_ONLY: no request is sent.  Bounded by timeout_s.  0 with res
 * filled either way; an error only when libcurl cannot be used.
 */
int pyrt_fetch_probe(const char *url, const char *cacert, long timeout_s,
		     pyrt_fetch_probe_result *res, pyrt_error *err);

/** The host part of a URL into buf (for consent screens), "" if none;
 *  one that does not fit ends in "..." (core/util/fmt.h). */
void pyrt_fetch_url_host(const char *url, char *buf, size_t len);

#endif
