/*
 * One archive download over libcurl's easy API.
 *
 * The body streams into a partial file and through SHA-256 in the same write
 * callback, so the file is never read back.  Writes are batched: TLS hands
 * the body over in 16 KiB records, and one pwrite per 256 KiB is cheaper.
 * The batch is written out at the end of every request, so what a failed
 * or cancelled run leaves on disk is everything it received.  A partial file left by an
 * earlier run is re-hashed once and continued with a Range request; within
 * one call, retries continue from the bytes already on disk with the hash
 * state kept in memory.  The size cap is enforced byte by byte, certificate
 * checks are never relaxed, and plain http:// is only for loopback hosts.
 *
 * There is deliberately no curl_global_init() here: calling it per download
 * would race between threads, and keeping a "done" flag would be global
 * state of ours.  libcurl >= 7.84 (Debian 12 ships 7.88, built "threadsafe")
 * makes the implicit init in curl_easy_init() thread-safe, and OpenSSL 3
 * initialises itself.
 */
#include "core/dist/fetch.h"
#include "core/util/fmt.h"
#include "core/util/lazylib.h"

#include "core/util/fs.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <curl/curl.h>

#include "core/util/clock.h"
#include "core/util/redact.h"

#define FETCH_BUFFER_SIZE (256L * 1024)
#define FETCH_WRITE_BATCH (256 * 1024)
#define FETCH_MAX_REDIRS 5L
#define FETCH_REHASH_BUF (1024 * 1024)
#define FETCH_BACKOFF_MAX_MS 60000u
#define FETCH_SLEEP_SLICE_MS 50u

/* What the current response's body does to the partial file. */
enum body_mode { BODY_UNDECIDED, BODY_KEEP, BODY_DISCARD };

/* Why the write or progress callback stopped the transfer. */
enum stop_reason { STOP_NONE, STOP_CANCEL, STOP_CAP, STOP_IO, STOP_RANGE,
		   STOP_NOT_ARCHIVE };

/* What the attempt loop does after one request. */
enum outcome { OUT_DONE, OUT_RETRY, OUT_RESTART, OUT_FAIL };

struct fetch {
	const pyrt_fetch_opts *opts;
	char shown[2048];     /* opts->url as messages name it: no
				 credentials, no query values */
	const pyrt_events *ev;
	pyrt_error *err;
	pyrt_fetch_result *result;
	CURL *curl;
	int fd;
	pyrt_sha256 *sha;
	uint64_t cap;
	uint64_t have;        /* bytes in the partial file or the batch, all
				 of them hashed */
	unsigned char *batch; /* the last wlen of them, not yet written */
	size_t wlen;
	double t0;            /* when the download step began */
	int remove_partial;   /* its bytes are known to be wrong */
	int regular;          /* the partial file was opened and is a file */
	int unproven;         /* it holds bytes of a 200 whose length was not
				 given: kept only if the download completes */
	int loopback;         /* the URL's host is 127/8, ::1 or localhost */

	/* Reset for every attempt. */
	double attempt_t0;
	uint64_t body_from;   /* have when this response's body began */
	long status;
	long long cr_start;   /* Content-Range first byte, -1 when absent */
	long long cr_total;   /* Content-Range complete length, -1 when absent */
	long long length;     /* what the response said its file has, -1 unknown */
	curl_off_t dltotal;
	enum body_mode mode;
	enum stop_reason stop;
	int io_errno;
	double last_progress; /* < 0 before the first emission */
	char reason[CURL_ERROR_SIZE + 64]; /* why this attempt should be retried */
	char curl_err[CURL_ERROR_SIZE];
};

/* Parse url with libcurl's own parser, so we judge what curl will fetch. */
static CURLU *url_parse(const char *url)
{
	CURLU *u = curl_url();
	if (!u)
		return NULL;
	if (!url || curl_url_set(u, CURLUPART_URL, url, 0) != CURLUE_OK) {
		curl_url_cleanup(u);
		return NULL;
	}
	return u;
}

/* 127.0.0.0/8, ::1 (also as ::ffff:127.x.y.z) and localhost. */
static int host_is_loopback(const char *host)
{
	char buf[64];
	size_t len = strlen(host);
	struct in_addr a4;
	struct in6_addr a6;

	if (strcasecmp(host, "localhost") == 0)
		return 1;
	if (inet_pton(AF_INET, host, &a4) == 1)
		return (ntohl(a4.s_addr) >> 24) == 127;
	if (len < 3 || len >= sizeof buf || host[0] != '[' ||
	    host[len - 1] != ']')
		return 0;
	memcpy(buf, host + 1, len - 2);
	buf[len - 2] = '\0';
	if (inet_pton(AF_INET6, buf, &a6) != 1)
		return 0;
	if (IN6_IS_ADDR_LOOPBACK(&a6))
		return 1;
	return IN6_IS_ADDR_V4MAPPED(&a6) && a6.s6_addr[12] == 127;
}

/*
 * Refuse, before any connection, URLs that are not https or loopback http;
 * *loopback says whether the host is one.  Messages name the URL as shown.
 */
static int url_check(const char *url, const char *shown, int *loopback,
		     pyrt_error *err)
{
	CURLU *u = url_parse(url);
	char *scheme = NULL, *host = NULL;
	int rc = 0;

	*loopback = 0;
	if (!u)
		return pyrt_error_set(err, PYRT_E_USAGE,
				      "invalid download URL '%s'", shown);
	if (curl_url_get(u, CURLUPART_SCHEME, &scheme, 0) != CURLUE_OK ||
	    curl_url_get(u, CURLUPART_HOST, &host, 0) != CURLUE_OK) {
		rc = pyrt_error_set(err, PYRT_E_USAGE,
				    "invalid download URL '%s'", shown);
		goto cleanup;
	}
	*loopback = host_is_loopback(host);
	if (strcasecmp(scheme, "https") == 0)
		goto cleanup;
	if (strcasecmp(scheme, "http") != 0)
		rc = pyrt_error_set(err, PYRT_E_USAGE,
				    "unsupported URL %s: https is required",
				    shown);
	else if (!*loopback)
		rc = pyrt_error_set(err, PYRT_E_USAGE,
				    "refusing plain http URL %s: https is "
				    "required (http is only allowed for "
				    "loopback hosts)", shown);
cleanup:
	curl_free(scheme);
	curl_free(host);
	curl_url_cleanup(u);
	return rc;
}

/* Start the file and the digest over from byte 0. */
static int partial_truncate(struct fetch *f)
{
	if (ftruncate(f->fd, 0) != 0)
		return pyrt_error_set_errno(f->err, PYRT_E_IO, errno,
					    "cannot truncate %s",
					    f->opts->partial_path);
	f->wlen = 0;
	if (pyrt_sha256_reset(f->sha) < 0)
		return pyrt_error_set(f->err, PYRT_E_INTERNAL,
				      "SHA-256 reset failed");
	f->have = 0;
	f->unproven = 0;
	f->result->resumed_from = 0;
	return 0;
}

/* Feed the bytes already in the partial file into the digest, once. */
static int partial_rehash(struct fetch *f)
{
	const char *path = f->opts->partial_path;
	unsigned char *buf = NULL;
	uint64_t left = f->have;
	int rc = 0;
	/* Read through our own descriptor, not the name: what is hashed is
	 * what the download continues. */
	uint64_t off = 0;
	buf = malloc(FETCH_REHASH_BUF);
	if (!buf) {
		rc = pyrt_error_set(f->err, PYRT_E_NOMEM,
				    "out of memory re-hashing %s", path);
		goto cleanup;
	}
	while (left > 0) {
		size_t want = left < FETCH_REHASH_BUF ? (size_t)left
						      : FETCH_REHASH_BUF;
		ssize_t n = pread(f->fd, buf, want, (off_t)off);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			rc = pyrt_error_set_errno(f->err, PYRT_E_IO, errno,
						  "cannot read %s", path);
			goto cleanup;
		}
		if (n == 0) {
			rc = pyrt_error_set(f->err, PYRT_E_IO,
					    "%s shrank while it was re-hashed",
					    path);
			goto cleanup;
		}
		if (pyrt_sha256_update(f->sha, buf, (size_t)n) < 0) {
			rc = pyrt_error_set(f->err, PYRT_E_INTERNAL,
					    "SHA-256 update failed");
			goto cleanup;
		}
		left -= (uint64_t)n;
		off += (uint64_t)n;
		if (pyrt_events_cancelled(f->ev)) {
			rc = pyrt_error_set(f->err, PYRT_E_CANCELLED,
					    "download cancelled");
			goto cleanup;
		}
	}
cleanup:
	free(buf);
	return rc;
}

/*
 * Open (never truncate) the partial file and take over what is in it; bytes
 * beyond the cap cannot belong to the file we want, so they are dropped.
 */
static int partial_open(struct fetch *f)
{
	const char *path = f->opts->partial_path;
	struct stat st;

	/* The partial is ours alone: a planted symlink or someone else's
	 * file there must never receive the archive. */
	f->fd = pyrt_fs_open_state(path, O_RDWR | O_CREAT, 0600, f->err);
	if (f->fd < 0) {
		int rc = f->fd;
		f->fd = -1;
		return rc;
	}
	if (fstat(f->fd, &st) != 0)
		return pyrt_error_set_errno(f->err, PYRT_E_IO, errno,
					    "cannot stat %s", path);
	if (!S_ISREG(st.st_mode))
		return pyrt_error_set(f->err, PYRT_E_IO,
				      "%s is not a regular file", path);
	f->regular = 1;
	f->have = (uint64_t)st.st_size;
	if (f->have > f->cap) {
		pyrt_events_log(f->ev, PYRT_LOG_INFO,
				"discarding %s: %llu bytes is more than the "
				"expected %llu", path,
				(unsigned long long)f->have,
				(unsigned long long)f->cap);
		return partial_truncate(f);
	}
	f->result->resumed_from = f->have;
	return f->have ? partial_rehash(f) : 0;
}

/* Report progress, at most once per interval unless forced. */
static int progress_emit(struct fetch *f, int force)
{
	double now = pyrt_now();
	double interval = f->opts->progress_interval_s;
	pyrt_progress p;

	if (!force && f->last_progress >= 0 &&
	    now - f->last_progress < interval)
		return 0;
	f->last_progress = now;
	p.done = f->have;
	if (f->opts->expected_size)
		p.total = f->opts->expected_size;
	else if (f->mode == BODY_KEEP && f->cr_total >= 0)
		p.total = (uint64_t)f->cr_total;
	else if (f->mode == BODY_KEEP && f->dltotal > 0)
		p.total = (uint64_t)f->dltotal + f->body_from;
	else
		p.total = force ? f->have : 0;
	p.elapsed = now - f->t0;
	p.rate = now > f->attempt_t0
		 ? (double)(f->have - f->body_from) / (now - f->attempt_t0)
		 : 0.0;
	return pyrt_events_progress(f->ev, PYRT_STEP_DOWNLOAD, &p);
}

/* Only records; the front end draws on its own clock. */
static int xferinfo_cb(void *clientp, curl_off_t dltotal, curl_off_t dlnow,
		       curl_off_t ultotal, curl_off_t ulnow)
{
	struct fetch *f = clientp;
	f->dltotal = dltotal;
	if (progress_emit(f, 0) != 0 || pyrt_events_cancelled(f->ev)) {
		f->stop = STOP_CANCEL;
		return 1;
	}
	return 0;
}

/*
 * Content-Range: "bytes A-B/T" on a 206, with "*" in place of A-B on a 416.
 * Fields that are absent stay -1.
 */
static void parse_content_range(const char *v, size_t len, long long *start,
				long long *total)
{
	char buf[128];
	char *p, *end;

	if (len >= sizeof buf)
		return;
	memcpy(buf, v, len);
	buf[len] = '\0';
	p = buf + strspn(buf, " \t");
	if (strncasecmp(p, "bytes", 5) != 0)
		return;
	p += 5 + strspn(p + 5, " \t");
	if (*p != '*') {
		errno = 0;
		long long s = strtoll(p, &end, 10);
		if (errno || end == p || *end != '-' || s < 0)
			return;
		*start = s;
	}
	p = strchr(p, '/');
	if (!p || p[1] == '*')
		return;
	errno = 0;
	long long t = strtoll(p + 1, &end, 10);
	if (!errno && end != p + 1 && t >= 0)
		*total = t;
}

/*
 * Headers of every response (redirects included): a status line starts a
 * new response, so what we keep always belongs to the last one.
 */
static size_t header_cb(char *buf, size_t size, size_t nitems, void *userdata)
{
	struct fetch *f = userdata;
	size_t len = size * nitems;
	static const char cr[] = "content-range:";

	if (len >= 5 && strncmp(buf, "HTTP/", 5) == 0) {
		f->cr_start = -1;
		f->cr_total = -1;
	} else if (len > sizeof cr - 1 &&
		   strncasecmp(buf, cr, sizeof cr - 1) == 0) {
		size_t vlen = len - (sizeof cr - 1);
		while (vlen > 0 && (buf[sizeof cr - 2 + vlen] == '\r' ||
				    buf[sizeof cr - 2 + vlen] == '\n'))
			vlen--;
		parse_content_range(buf + sizeof cr - 1, vlen, &f->cr_start,
				    &f->cr_total);
	}
	return len;
}

/*
 * Is this response the pinned archive?  Only then may its bytes join the
 * partial file: a proxy or captive portal answering 200 with a page of its
 * own must not leave that page behind as a "prefix" for the next run to
 * resume.  Without a pinned size any response is taken, and the digest
 * judges it.
 */
static int body_is_archive(struct fetch *f, long status)
{
	uint64_t want = f->opts->expected_size;
	curl_off_t cl = -1;

	if (status == 206) {
		f->length = f->cr_total;
		return !want || f->cr_total < 0 || (uint64_t)f->cr_total == want;
	}
	curl_easy_getinfo(f->curl, CURLINFO_CONTENT_LENGTH_DOWNLOAD_T, &cl);
	f->length = cl >= 0 ? (long long)cl : -1;
	return !want || cl < 0 || (uint64_t)cl == want;
}

/*
 * Decide, from the final response's status, where its body goes: 206 must
 * continue exactly at our end, 200 means the server ignored the Range and
 * the file starts over, anything else is not the file.  A 200 or 206 for a
 * file of another size than the pinned one stops the transfer before a
 * byte is written, and leaves the partial file as it was.
 */
static int body_begin(struct fetch *f)
{
	long status = 0;
	curl_easy_getinfo(f->curl, CURLINFO_RESPONSE_CODE, &status);
	f->status = status;
	f->mode = BODY_DISCARD;
	if ((status == 200 || status == 206) && !body_is_archive(f, status)) {
		f->stop = STOP_NOT_ARCHIVE;
		return -1;
	}
	if (status == 206) {
		if (f->cr_start < 0 || (uint64_t)f->cr_start != f->have) {
			f->stop = STOP_RANGE;
			return -1;
		}
		if (f->have > 0)
			f->result->resumes++;
		f->mode = BODY_KEEP;
	} else if (status == 200) {
		if (f->have > 0) {
			if (pyrt_events_log(f->ev, PYRT_LOG_INFO,
					    "server ignored the range "
					    "request; downloading from the "
					    "start") != 0) {
				f->stop = STOP_CANCEL;
				return -1;
			}
			if (partial_truncate(f) < 0) {
				f->stop = STOP_IO;
				return -1;
			}
		}
		if (f->opts->expected_size && f->length < 0)
			f->unproven = 1;
		f->mode = BODY_KEEP;
	}
	f->body_from = f->have;
	return 0;
}

/* Write len bytes at offset at; *done says how many made it. */
static int write_at(struct fetch *f, const void *data, size_t len,
		    uint64_t at, size_t *done)
{
	const char *p = data;
	*done = 0;
	while (*done < len) {
		ssize_t n = pwrite(f->fd, p + *done, len - *done,
				   (off_t)(at + *done));
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			f->io_errno = n < 0 ? errno : EIO;
			return -1;
		}
		*done += (size_t)n;
	}
	return 0;
}

/*
 * Write the batch at its place in the file.  On failure only what reached
 * the file counts as had (the digest is then ahead of it, but a write
 * failure ends the download; a later run re-hashes the file).
 */
static int partial_flush(struct fetch *f)
{
	uint64_t at = f->have - f->wlen;
	size_t done = 0;
	int rc = f->wlen ? write_at(f, f->batch, f->wlen, at, &done) : 0;
	if (rc < 0)
		f->have = at + done;
	f->wlen = 0;
	return rc;
}

/*
 * A failed write of the partial file, with the fix for the usual causes: a
 * full disk or quota, and a file size limit (RLIMIT_FSIZE; main() ignores
 * SIGXFSZ so the write fails with EFBIG instead of killing us).
 */
static int write_error(struct fetch *f, pyrt_error *err)
{
	int e = f->io_errno ? f->io_errno : EIO;
	const char *fix = "";

	if (e == ENOSPC || e == EDQUOT)
		fix = "; free space on that filesystem and run the install "
		      "again (the download resumes)";
	else if (e == EFBIG)
		fix = "; the file size limit (ulimit -f) is below the "
		      "archive's size: raise it and run the install again";
	return pyrt_error_set(err, PYRT_E_IO, "cannot write %s: %s%s",
			      f->opts->partial_path, strerror(e), fix);
}

/* Hash the bytes, then batch them (or write a large block straight out). */
static int partial_append(struct fetch *f, const char *data, size_t len)
{
	if (pyrt_sha256_update(f->sha, data, len) < 0) {
		f->io_errno = EIO;
		return -1;
	}
	if (f->wlen + len > FETCH_WRITE_BATCH && partial_flush(f) < 0)
		return -1;
	if (len >= FETCH_WRITE_BATCH) {
		size_t done = 0;
		int rc = write_at(f, data, len, f->have, &done);
		f->have += done;
		return rc;
	}
	memcpy(f->batch + f->wlen, data, len);
	f->wlen += len;
	f->have += len;
	return 0;
}

/* Body bytes: checked against the cap, hashed, batched, in that order. */
static size_t write_cb(char *data, size_t size, size_t nmemb, void *userdata)
{
	struct fetch *f = userdata;
	size_t len = size * nmemb;

	if (f->mode == BODY_UNDECIDED && body_begin(f) < 0)
		return 0;
	if (f->mode == BODY_DISCARD)
		return len;
	if (pyrt_events_cancelled(f->ev)) {
		f->stop = STOP_CANCEL;
		return 0;
	}
	if (len > f->cap - f->have) {
		f->stop = STOP_CAP;
		return 0;
	}
	if (partial_append(f, data, len) < 0) {
		f->stop = STOP_IO;
		return 0;
	}
	return len;
}

/*
 * --cacert replaces the system CAs, the same on every libcurl build: CAINFO
 * alone leaves OpenSSL builds also trusting the compiled-in CA directory
 * (Debian: /etc/ssl/certs), so that is switched off, for the server and for
 * an HTTPS proxy.  Backends without a CA directory have none to switch off.
 */
static CURLcode ca_path_off(CURL *c)
{
	CURLcode cc = curl_easy_setopt(c, CURLOPT_CAPATH, (char *)NULL);
	if (cc == CURLE_OK || cc == CURLE_NOT_BUILT_IN)
		cc = curl_easy_setopt(c, CURLOPT_PROXY_CAPATH, (char *)NULL);
	return cc == CURLE_NOT_BUILT_IN ? CURLE_OK : cc;
}

/* Every option of the handle that does not change between attempts. */
static int handle_setup(struct fetch *f)
{
	const pyrt_fetch_opts *o = f->opts;
	CURL *c = f->curl;
	CURLcode cc = CURLE_OK;

#define SETOPT(opt, val) \
	do { if (cc == CURLE_OK) cc = curl_easy_setopt(c, opt, val); } while (0)
	SETOPT(CURLOPT_URL, o->url);
	SETOPT(CURLOPT_PROTOCOLS_STR, "http,https");
	SETOPT(CURLOPT_REDIR_PROTOCOLS_STR, "https");
	SETOPT(CURLOPT_FOLLOWLOCATION, 1L);
	SETOPT(CURLOPT_MAXREDIRS, FETCH_MAX_REDIRS);
	SETOPT(CURLOPT_SSL_VERIFYPEER, 1L);
	SETOPT(CURLOPT_SSL_VERIFYHOST, 2L);
	if (o->cacert) {
		SETOPT(CURLOPT_CAINFO, o->cacert);
		SETOPT(CURLOPT_PROXY_CAINFO, o->cacert);
	}
	/*
	 * Plain http is allowed to loopback only because it never leaves the
	 * machine; a proxy from the environment would carry it (and the
	 * mirror's credentials) elsewhere.  Loopback never goes through one.
	 */
	if (f->loopback)
		SETOPT(CURLOPT_NOPROXY, "*");
	SETOPT(CURLOPT_USERAGENT, "pyrt/" PYRT_VERSION);
	SETOPT(CURLOPT_FAILONERROR, 0L);
	/* The archive's own bytes are hashed: never let curl decode them. */
	SETOPT(CURLOPT_HTTP_CONTENT_DECODING, 0L);
	/* No SIGALRM-based DNS timeouts: we may run in a thread. */
	SETOPT(CURLOPT_NOSIGNAL, 1L);
	SETOPT(CURLOPT_BUFFERSIZE, FETCH_BUFFER_SIZE);
	SETOPT(CURLOPT_MAXFILESIZE_LARGE, (curl_off_t)f->cap);
	SETOPT(CURLOPT_CONNECTTIMEOUT, o->connect_timeout_s);
	SETOPT(CURLOPT_LOW_SPEED_LIMIT, o->low_speed_limit);
	SETOPT(CURLOPT_LOW_SPEED_TIME, o->low_speed_time_s);
	SETOPT(CURLOPT_ERRORBUFFER, f->curl_err);
	SETOPT(CURLOPT_WRITEFUNCTION, write_cb);
	SETOPT(CURLOPT_WRITEDATA, f);
	SETOPT(CURLOPT_HEADERFUNCTION, header_cb);
	SETOPT(CURLOPT_HEADERDATA, f);
	SETOPT(CURLOPT_XFERINFOFUNCTION, xferinfo_cb);
	SETOPT(CURLOPT_XFERINFODATA, f);
	SETOPT(CURLOPT_NOPROGRESS, 0L);
#undef SETOPT
	if (cc == CURLE_OK && o->cacert)
		cc = ca_path_off(c);
	if (cc != CURLE_OK)
		return pyrt_error_set(f->err, PYRT_E_INTERNAL,
				      "cannot configure libcurl: %s",
				      curl_easy_strerror(cc));
	return 0;
}

/* The file grew past what it can be: its bytes are wrong, drop them. */
static enum outcome fail_cap(struct fetch *f)
{
	f->remove_partial = 1;
	pyrt_error_set(f->err, PYRT_E_NETWORK,
		       "download of %s exceeds the cap of %llu bytes%s",
		       f->shown, (unsigned long long)f->cap,
		       f->opts->expected_size ? " (the pinned size)" : "");
	return OUT_FAIL;
}

/* A complete response whose size is not the pinned one.  A 200 that never
 * stated its length has now shown it is not the archive: it goes. */
static enum outcome fail_size(struct fetch *f)
{
	pyrt_error_set(f->err, PYRT_E_NETWORK,
		       "download of %s ended after %llu bytes, expected %llu; "
		       "%s", f->shown, (unsigned long long)f->have,
		       (unsigned long long)f->opts->expected_size,
		       f->unproven ? "that is not the archive, nothing of it "
				     "was kept"
				   : "the partial file is kept");
	return OUT_FAIL;
}

/*
 * The answer was some other file (a captive portal's or a proxy's page, a
 * different build): nothing of it was written, and asking again would get
 * the same, so this is final.
 */
static enum outcome fail_not_archive(struct fetch *f)
{
	char size[64] = "of unknown size";
	if (f->length >= 0)
		pyrt_fmt_text(size, sizeof size, "of %lld bytes", f->length);
	pyrt_error_set(f->err, PYRT_E_NETWORK,
		       "%s answered HTTP %ld with a file %s, but the pinned "
		       "archive has %llu bytes: that is not the archive (a "
		       "captive portal or proxy page?); nothing of it was "
		       "kept; check the network or --mirror and retry",
		       f->shown, f->status, size,
		       (unsigned long long)f->opts->expected_size);
	return OUT_FAIL;
}

/* Transient transport failures are worth another try; the rest are not. */
static int curl_transient(CURLcode cc)
{
	switch (cc) {
	case CURLE_COULDNT_CONNECT:
	case CURLE_RECV_ERROR:
	case CURLE_SEND_ERROR:
	case CURLE_PARTIAL_FILE:
	case CURLE_OPERATION_TIMEDOUT:
	case CURLE_GOT_NOTHING:
	case CURLE_HTTP2:
	case CURLE_HTTP2_STREAM:
		return 1;
	default:
		return 0;
	}
}

/*
 * libcurl refused to follow a redirect to a scheme other than https (plain
 * http would let anyone on the path change the archive and see the
 * mirror's credentials): say so, naming the target without credentials.
 */
static int redirect_refused(struct fetch *f)
{
	char *target = NULL;
	char shown[2048];
	long hops = 0;

	/* The refused URL is where the handle was sent last. */
	if (curl_easy_getinfo(f->curl, CURLINFO_REDIRECT_COUNT, &hops) !=
	    CURLE_OK || hops < 1 ||
	    curl_easy_getinfo(f->curl, CURLINFO_EFFECTIVE_URL, &target) !=
	    CURLE_OK || !target)
		return 0;
	pyrt_redact_url(target, shown, sizeof shown);
	pyrt_error_set(f->err, PYRT_E_NETWORK,
		       "%s redirected to %s, which is refused: redirects are "
		       "followed to https only; point --mirror at an https "
		       "URL that serves the file itself", f->shown, shown);
	return 1;
}

/* A transfer that libcurl itself reports as failed. */
/*
 * The proxy libcurl takes from the environment for this URL, as
 * "http://p:3128 (https_proxy)" without credentials, or "" when none (a
 * loopback URL never uses one).  no_proxy may still exempt the host.
 */
static void fetch_proxy(const struct fetch *f, char *buf, size_t len)
{
	int https = strncasecmp(f->opts->url, "https:", 6) == 0;
	const char *vars[] = { https ? "https_proxy" : "http_proxy",
			       https ? "HTTPS_PROXY" : NULL, "all_proxy",
			       "ALL_PROXY" };
	buf[0] = '\0';
	if (f->loopback)
		return;
	for (size_t i = 0; i < sizeof vars / sizeof *vars; i++) {
		const char *v = vars[i] ? getenv(vars[i]) : NULL;
		if (!v || !*v)
			continue;
		char url[512];
		pyrt_redact_url(v, url, sizeof url);
		pyrt_fmt_text(buf, len, "%s (%s)", url, vars[i]);
		return;
	}
}

static enum outcome judge_curl(struct fetch *f, CURLcode cc)
{
	const char *url = f->shown;
	const char *detail;

	/* libcurl's message may quote the URL or a redirect target. */
	pyrt_redact(f->curl_err);
	detail = f->curl_err[0] ? f->curl_err : curl_easy_strerror(cc);

	switch (cc) {
	case CURLE_PEER_FAILED_VERIFICATION:
	case CURLE_SSL_ISSUER_ERROR:
	case CURLE_SSL_INVALIDCERTSTATUS:
	case CURLE_SSL_PINNEDPUBKEYNOTMATCH:
		if (f->opts->cacert)
			/* The bundle given replaces the system's: the fix is
			 * another bundle, not the option already passed. */
			pyrt_error_set(f->err, PYRT_E_NETWORK,
				       "certificate verification failed for %s "
				       "(%s); the CA bundle in use (%s) does "
				       "not hold the CA that signed this "
				       "server's certificate — pass --cacert "
				       "a bundle that holds it (it replaces the system "
				       "CAs, so add them to it if other hosts "
				       "need them)", url, detail,
				       f->opts->cacert);
		else
			pyrt_error_set(f->err, PYRT_E_NETWORK,
				       "certificate verification failed for %s "
				       "(%s); if the server uses a private CA, "
				       "pass its certificate with --cacert "
				       "FILE", url, detail);
		return OUT_FAIL;
	case CURLE_SSL_CACERT_BADFILE:
		pyrt_error_set(f->err, PYRT_E_NETWORK,
			       "cannot load the CA bundle %s (%s); check "
			       "--cacert", f->opts->cacert ? f->opts->cacert
							   : "(system default)",
			       detail);
		return OUT_FAIL;
	case CURLE_ABORTED_BY_CALLBACK:
		pyrt_error_set(f->err, PYRT_E_CANCELLED,
			       "download of %s cancelled", url);
		return OUT_FAIL;
	case CURLE_FILESIZE_EXCEEDED:
		return fail_cap(f);
	case CURLE_UNSUPPORTED_PROTOCOL:
		if (redirect_refused(f))
			return OUT_FAIL;
		break;
	default:
		break;
	}
	/* A proxy's failure names the proxy: its address is not in
	 * libcurl's message, and it is the thing to fix. */
	char proxy[600], via[640] = "";
	fetch_proxy(f, proxy, sizeof proxy);
	if (proxy[0] && (cc == CURLE_COULDNT_RESOLVE_PROXY ||
			 cc == CURLE_COULDNT_CONNECT || cc == CURLE_PROXY))
		pyrt_fmt_text(via, sizeof via, " through the proxy %s", proxy);
	if (curl_transient(cc)) {
		pyrt_fmt_text(f->reason, sizeof f->reason, "%s%s", detail, via);
		return OUT_RETRY;
	}
	pyrt_error_set(f->err, PYRT_E_NETWORK, "download of %s failed: %s%s",
		       url, detail, via);
	return OUT_FAIL;
}

/*
 * 416 to our Range: the partial file already is the whole file, or it is
 * longer than the server's file and must start over.
 */
static enum outcome judge_416(struct fetch *f)
{
	uint64_t want = f->opts->expected_size;
	int server_total = f->cr_total >= 0 && (uint64_t)f->cr_total == f->have;

	if (f->have == 0) {
		pyrt_error_set(f->err, PYRT_E_NETWORK, "HTTP 416 from %s",
			       f->shown);
		return OUT_FAIL;
	}
	if (want ? f->have == want : server_total) {
		f->result->resumes++;
		return OUT_DONE;
	}
	if (server_total)
		return fail_size(f);
	if (pyrt_events_log(f->ev, PYRT_LOG_INFO, "the partial file is "
			    "longer than the server's file; starting over") != 0) {
		pyrt_error_set(f->err, PYRT_E_CANCELLED,
			       "download of %s cancelled", f->shown);
		return OUT_FAIL;
	}
	if (partial_truncate(f) < 0)
		return OUT_FAIL;
	return OUT_RESTART;
}

/* A transfer that completed at the HTTP level: judge the status. */
static enum outcome judge_status(struct fetch *f)
{
	long s = f->status;

	if (s == 200 || s == 206) {
		uint64_t want = f->opts->expected_size;
		return !want || f->have == want ? OUT_DONE : fail_size(f);
	}
	if (s == 416)
		return judge_416(f);
	if (s == 408 || s == 429 || (s >= 500 && s <= 599)) {
		pyrt_fmt_text(f->reason, sizeof f->reason, "HTTP %ld", s);
		return OUT_RETRY;
	}
	pyrt_error_set(f->err, PYRT_E_NETWORK, "HTTP %ld from %s", s,
		       f->shown);
	return OUT_FAIL;
}

/* Why one request ended, and what the attempt loop should do next. */
static enum outcome judge(struct fetch *f, CURLcode cc)
{
	switch (f->stop) {
	case STOP_CANCEL:
		pyrt_error_set(f->err, PYRT_E_CANCELLED,
			       "download of %s cancelled", f->shown);
		return OUT_FAIL;
	case STOP_CAP:
		return fail_cap(f);
	case STOP_IO:
		write_error(f, f->err);
		return OUT_FAIL;
	case STOP_NOT_ARCHIVE:
		return fail_not_archive(f);
	case STOP_RANGE:
		if (partial_truncate(f) < 0)
			return OUT_FAIL;
		pyrt_fmt_text(f->reason, sizeof f->reason,
			      "the server sent a different byte range than asked");
		return OUT_RETRY;
	case STOP_NONE:
		break;
	}
	if (cc != CURLE_OK)
		return judge_curl(f, cc);
	return judge_status(f);
}

/* -v: what one attempt asked and got, URL redacted. */
static void attempt_debug(const struct fetch *f, CURLcode cc)
{
	char proxy[600];
	fetch_proxy(f, proxy, sizeof proxy);
	pyrt_events_log(f->ev, PYRT_LOG_DEBUG,
			"GET %s (attempt %u, from byte %llu, %s%s): %s%ld, "
			"%.2f s", f->shown, f->result->attempts,
			(unsigned long long)f->body_from,
			proxy[0] ? "proxy " : "no proxy", proxy,
			cc == CURLE_OK ? "HTTP " : "no response, HTTP ",
			f->status, pyrt_now() - f->attempt_t0);
}

/* One request, continuing from whatever the partial file holds. */
static enum outcome attempt(struct fetch *f)
{
	char range[32];
	CURLcode cc;

	f->attempt_t0 = pyrt_now();
	f->body_from = f->have;
	f->status = 0;
	f->cr_start = f->cr_total = -1;
	f->length = -1;
	f->dltotal = 0;
	f->mode = BODY_UNDECIDED;
	f->stop = STOP_NONE;
	f->io_errno = 0;
	f->reason[0] = f->curl_err[0] = '\0';
	if (pyrt_events_cancelled(f->ev))
		f->stop = STOP_CANCEL;
	else if (f->have > 0 &&
		 pyrt_events_log(f->ev, PYRT_LOG_INFO, "resuming at %llu bytes",
				 (unsigned long long)f->have) != 0)
		f->stop = STOP_CANCEL;
	if (f->stop != STOP_NONE)
		return judge(f, CURLE_OK);

	pyrt_fmt_text(range, sizeof range, "%llu-", (unsigned long long)f->have);
	curl_easy_setopt(f->curl, CURLOPT_RANGE, f->have ? range : NULL);
	cc = curl_easy_perform(f->curl);
	/* Whatever the outcome, what arrived is on disk before it is judged. */
	if (partial_flush(f) < 0 && f->stop == STOP_NONE)
		f->stop = STOP_IO;
	curl_easy_getinfo(f->curl, CURLINFO_RESPONSE_CODE, &f->status);
	f->result->http_status = f->status;
	attempt_debug(f, cc);
	/* An empty body never reached write_cb: decide its fate now. */
	if (cc == CURLE_OK && f->mode == BODY_UNDECIDED && f->stop == STOP_NONE)
		body_begin(f);
	return judge(f, cc);
}

/* Sleep between attempts in short slices so a cancel is not delayed. */
static int backoff_sleep(struct fetch *f, unsigned int ms)
{
	while (ms > 0) {
		unsigned int slice = ms < FETCH_SLEEP_SLICE_MS
				     ? ms : FETCH_SLEEP_SLICE_MS;
		struct timespec ts = { 0, (long)slice * 1000000L };
		if (pyrt_events_cancelled(f->ev))
			return pyrt_error_set(f->err, PYRT_E_CANCELLED,
					      "download of %s cancelled",
					      f->shown);
		nanosleep(&ts, NULL);
		ms -= slice;
	}
	return 0;
}

/*
 * Attempts until one succeeds, one fails for good, or the budget is spent.
 * A restart from byte 0 after a 416 does not use up an attempt, once.
 */
static int attempts_run(struct fetch *f)
{
	const pyrt_fetch_opts *o = f->opts;
	unsigned int budget = o->max_attempts ? o->max_attempts : 1;
	unsigned int backoff = o->backoff_ms;
	int restarted = 0;
	unsigned int *n = &f->result->attempts;

	for (;;) {
		enum outcome out;
		(*n)++;
		out = attempt(f);
		if (out == OUT_DONE)
			return 0;
		if (out == OUT_FAIL)
			return f->err->code ? f->err->code
			       : pyrt_error_set(f->err, PYRT_E_INTERNAL,
						"download failed without a "
						"reason");
		if (out == OUT_RESTART && !restarted) {
			restarted = 1;
			budget++;
			continue;
		}
		if (out == OUT_RESTART)
			pyrt_fmt_text(f->reason, sizeof f->reason,
				      "the server's file is shorter than the "
				      "partial file");
		if (*n >= budget)
			return pyrt_error_set(f->err, PYRT_E_NETWORK,
					      "download of %s failed after %u "
					      "attempt%s: %s", f->shown, *n,
					      *n == 1 ? "" : "s", f->reason);
		if (pyrt_events_log(f->ev, PYRT_LOG_WARN,
				    "download interrupted (%s); retrying in "
				    "%u ms, attempt %u of %u", f->reason,
				    backoff, *n + 1, budget) != 0)
			return pyrt_error_set(f->err, PYRT_E_CANCELLED,
					      "download of %s cancelled",
					      f->shown);
		if (backoff_sleep(f, backoff) < 0)
			return f->err->code;
		backoff = backoff > FETCH_BACKOFF_MAX_MS / 2
			  ? FETCH_BACKOFF_MAX_MS : backoff * 2;
	}
}

/* The file is complete: make it durable, then report the digest. */
static int fetch_finish(struct fetch *f)
{
	if (partial_flush(f) < 0)
		return write_error(f, f->err);
	if (fsync(f->fd) != 0)
		return pyrt_error_set_errno(f->err, PYRT_E_IO, errno,
					    "cannot sync %s",
					    f->opts->partial_path);
	if (pyrt_sha256_final_hex(f->sha, f->result->sha256) < 0)
		return pyrt_error_set(f->err, PYRT_E_INTERNAL,
				      "SHA-256 finish failed");
	if (progress_emit(f, 1) != 0)
		return pyrt_error_set(f->err, PYRT_E_CANCELLED,
				      "download of %s cancelled",
				      f->shown);
	return 0;
}

int pyrt_fetch(const pyrt_fetch_opts *opts, const pyrt_events *ev,
	       pyrt_fetch_result *result, pyrt_error *err)
{
	pyrt_error local = PYRT_ERROR_INIT;
	struct fetch f;
	int rc;

	if (!err)
		err = &local;
	if (!opts || !result || opts->version != PYRT_FETCH_OPTS_VERSION ||
	    !opts->url || !opts->partial_path)
		return pyrt_error_set(err, PYRT_E_INTERNAL,
				      "pyrt_fetch: missing arguments or "
				      "unknown options version");
	if ((rc = pyrt_lazy_curl(err)) != 0)
		return rc;
	memset(result, 0, sizeof *result);
	memset(&f, 0, sizeof f);
	f.opts = opts;
	f.ev = ev;
	f.err = err;
	f.result = result;
	f.fd = -1;
	f.cap = opts->expected_size ? opts->expected_size
		: opts->max_size ? opts->max_size : PYRT_FETCH_HARD_CAP;
	f.t0 = pyrt_now();
	f.last_progress = -1;

	pyrt_redact_url(opts->url, f.shown, sizeof f.shown);
	rc = url_check(opts->url, f.shown, &f.loopback, err);
	if (rc < 0)
		return rc;
	rc = pyrt_sha256_ready(err);
	if (rc < 0)
		return rc;
	f.sha = pyrt_sha256_new();
	f.batch = malloc(FETCH_WRITE_BATCH);
	if (!f.sha || !f.batch) {
		rc = pyrt_error_set(err, PYRT_E_NOMEM, "out of memory");
		goto cleanup;
	}
	rc = partial_open(&f);
	if (rc < 0)
		goto cleanup;
	f.curl = curl_easy_init();
	if (!f.curl) {
		rc = pyrt_error_set(err, PYRT_E_NOMEM,
				    "cannot start a libcurl session");
		goto cleanup;
	}
	rc = handle_setup(&f);
	if (rc < 0)
		goto cleanup;
	rc = attempts_run(&f);
	if (rc < 0)
		goto cleanup;
	rc = fetch_finish(&f);
cleanup:
	if (f.fd >= 0 && partial_flush(&f) < 0 && rc == 0)
		rc = write_error(&f, err);
	result->bytes = f.have;
	curl_easy_cleanup(f.curl);
	if (f.fd >= 0 && close(f.fd) != 0 && rc == 0)
		rc = pyrt_error_set_errno(err, PYRT_E_IO, errno,
					  "cannot close %s",
					  opts->partial_path);
	/* A failed download keeps only bytes that can begin the archive: an
	 * empty file (a 404, a refused answer) or the body of a 200 whose
	 * length was never stated is no head start for the next run. */
	if (rc != 0 && f.regular && (f.have == 0 || f.unproven))
		f.remove_partial = 1;
	if (f.remove_partial)
		unlink(opts->partial_path);
	pyrt_sha256_free(f.sha);
	free(f.batch);
	return rc;
}

/* The path of url with the query and fragment dropped; malloc'd by curl. */
static int url_path(const char *url, char **path)
{
	CURLU *u = url_parse(url);
	int ok;
	if (!u)
		return -1;
	ok = curl_url_get(u, CURLUPART_PATH, path, 0) == CURLUE_OK;
	curl_url_cleanup(u);
	return ok ? 0 : -1;
}

static int url_parse_ok(const char *url)
{
	CURLU *u = url_parse(url);
	curl_url_cleanup(u);
	return u != NULL;
}

/* The last two segments of url's path ("<build>/<file>"), malloc'd by curl
 * in *path with *tail pointing into it and *tlen its length; -1 when the
 * path has fewer. */
static int url_tail(const char *url, char **path, const char **tail,
		    size_t *tlen)
{
	size_t plen;
	int seen = 0;
	const char *t;

	if (url_path(url, path) < 0)
		return -1;
	plen = strlen(*path);
	while (plen > 0 && (*path)[plen - 1] == '/')
		plen--;
	for (t = *path + plen; t > *path; t--)
		if (t[-1] == '/' && ++seen == 2)
			break;
	if (seen < 2 || t[0] == '/')
		return -1;
	*tail = t;
	*tlen = plen - (size_t)(t - *path);
	return 0;
}

/*
 * The mirror is taken apart with libcurl's URL API, so its query (a token,
 * a signature) goes after the path instead of the file name landing inside
 * it.  The pieces are joined as strings because setting a path through the
 * API rewrites its percent-escapes ("%2B" becomes "%2b"); the result is
 * parsed once more to be sure it is one URL.
 */
int pyrt_fetch_mirror_url(const char *url, const char *mirror, char **out,
			  pyrt_error *err)
{
	char *path = NULL, *base = NULL, *query = NULL;
	char shown[2048];
	const char *tail = NULL;
	size_t tlen = 0, blen;
	int rc = 0;
	CURLU *m = NULL;

	if ((rc = pyrt_lazy_curl(err)) != 0)
		return rc;

	if (out)
		*out = NULL;
	if (!url || !mirror || !out)
		return pyrt_error_set(err, PYRT_E_INTERNAL,
				      "pyrt_fetch_mirror_url: missing argument");
	pyrt_redact_url(mirror, shown, sizeof shown);
	m = url_parse(mirror);
	if (!m || curl_url_set(m, CURLUPART_FRAGMENT, NULL, 0) != CURLUE_OK) {
		rc = pyrt_error_set(err, PYRT_E_USAGE,
				    "invalid mirror URL '%s'", shown);
		goto cleanup;
	}
	if (curl_url_get(m, CURLUPART_QUERY, &query, 0) != CURLUE_OK)
		query = NULL; /* none */
	if (curl_url_set(m, CURLUPART_QUERY, NULL, 0) != CURLUE_OK ||
	    curl_url_get(m, CURLUPART_URL, &base, 0) != CURLUE_OK) {
		rc = pyrt_error_set(err, PYRT_E_USAGE,
				    "invalid mirror URL '%s'", shown);
		goto cleanup;
	}
	pyrt_redact_url(url, shown, sizeof shown);
	if (!url_parse_ok(url)) {
		rc = pyrt_error_set(err, PYRT_E_USAGE,
				    "invalid download URL '%s'", shown);
		goto cleanup;
	}
	if (url_tail(url, &path, &tail, &tlen) < 0) {
		rc = pyrt_error_set(err, PYRT_E_USAGE,
				    "cannot map %s onto a mirror: its path "
				    "needs at least two segments", shown);
		goto cleanup;
	}
	blen = strlen(base);
	while (blen > 0 && base[blen - 1] == '/')
		blen--;
	if (asprintf(out, "%.*s/%.*s%s%s", (int)blen, base, (int)tlen, tail,
		     query ? "?" : "", query ? query : "") < 0) {
		*out = NULL;
		rc = pyrt_error_set(err, PYRT_E_NOMEM, "out of memory");
		goto cleanup;
	}
	if (!url_parse_ok(*out)) {
		free(*out);
		*out = NULL;
		pyrt_redact_url(mirror, shown, sizeof shown);
		rc = pyrt_error_set(err, PYRT_E_USAGE,
				    "cannot build a download URL from the "
				    "mirror %s", shown);
	}
cleanup:
	curl_free(query);
	curl_free(base);
	curl_free(path);
	curl_url_cleanup(m);
	return rc;
}

void pyrt_fetch_url_host(const char *url, char *buf, size_t len)
{
	CURLU *u;
	char *host = NULL;

	if (!buf || len == 0)
		return;
	buf[0] = '\0';
	if (pyrt_lazy_curl(NULL) != 0)
		return;
	u = url_parse(url);
	if (!u)
		return;
	if (curl_url_get(u, CURLUPART_HOST, &host, 0) == CURLUE_OK)
		pyrt_fmt_text(buf, len, "%s", host);
	curl_free(host);
	curl_url_cleanup(u);
}

int pyrt_fetch_url_check(const char *url, const char *what, pyrt_error *err)
{
	char shown[2048];
	int loopback = 0;
	pyrt_error why = PYRT_ERROR_INIT;
	int rc = pyrt_lazy_curl(err);
	if (rc != 0)
		return rc;
	pyrt_redact_url(url ? url : "", shown, sizeof shown);
	if (!url || !*url || url_check(url, shown, &loopback, &why) != 0)
		return pyrt_error_set(err, PYRT_E_USAGE, "%s %s: %s", what,
				      shown, why.msg[0] ? why.msg
				      : "not a URL");
	return 0;
}

/* Where a connect-only attempt stopped, by libcurl's code. */
static const char *probe_stage(CURLcode cc)
{
	switch (cc) {
	case CURLE_COULDNT_RESOLVE_HOST:
		return "dns";
	case CURLE_COULDNT_RESOLVE_PROXY:
	case CURLE_PROXY:
	case CURLE_RECV_ERROR:
		return "proxy";
	case CURLE_COULDNT_CONNECT:
		return "tcp";
	case CURLE_OPERATION_TIMEDOUT:
		return "timeout";
	case CURLE_PEER_FAILED_VERIFICATION:
	case CURLE_SSL_CONNECT_ERROR:
	case CURLE_SSL_CACERT_BADFILE:
	case CURLE_SSL_ISSUER_ERROR:
	case CURLE_SSL_CERTPROBLEM:
		return "tls";
	default:
		return "other";
	}
}

/* The sentence for a failed probe: the stage in words, the proxy when it
 * is the thing that failed, libcurl's own words last. */
static void probe_failed(pyrt_fetch_probe_result *res, CURLcode cc,
			 const char *hostport, const char *proxy,
			 const char *cacert, long timeout_s, char *curl_err)
{
	pyrt_redact(curl_err);
	const char *why = curl_err[0] ? curl_err : curl_easy_strerror(cc);
	const char *via = proxy[0] ? proxy : "none (direct)";
	res->stage = probe_stage(cc);
	/* Through a proxy, the connection that failed was the proxy's. */
	if (proxy[0] && cc == CURLE_COULDNT_CONNECT)
		res->stage = "proxy";
	if (strcmp(res->stage, "dns") == 0)
		pyrt_fmt_text(res->line, sizeof res->line, "%s: DNS: the name does "
			      "not resolve (%s)", hostport, why);
	else if (strcmp(res->stage, "proxy") == 0)
		pyrt_fmt_text(res->line, sizeof res->line, "%s: the proxy %s "
			      "failed (%s)", hostport, proxy, why);
	else if (strcmp(res->stage, "tcp") == 0)
		pyrt_fmt_text(res->line, sizeof res->line, "%s: TCP: cannot "
			      "connect (%s)", hostport, why);
	else if (strcmp(res->stage, "timeout") == 0)
		pyrt_fmt_text(res->line, sizeof res->line, "%s: no answer within "
			      "%ld s, proxy %s (%s)", hostport, timeout_s, via,
			      why);
	else if (strcmp(res->stage, "tls") == 0)
		pyrt_fmt_text(res->line, sizeof res->line, "%s: TLS: %s (CA bundle "
			      "%s)", hostport, why, cacert ? cacert
						           : "the system's");
	else
		pyrt_fmt_text(res->line, sizeof res->line, "%s: %s (proxy %s)",
			      hostport, why, via);
}

int pyrt_fetch_probe(const char *url, const char *cacert, long timeout_s,
		     pyrt_fetch_probe_result *res, pyrt_error *err)
{
	memset(res, 0, sizeof *res);
	res->stage = "";
	int rc = pyrt_lazy_curl(err);
	if (rc)
		return rc;
	char shown[2048], host[512], proxy[600];
	pyrt_redact_url(url, shown, sizeof shown);
	int loopback = 0;
	pyrt_error uerr = PYRT_ERROR_INIT;
	if (url_check(url, shown, &loopback, &uerr) != 0) {
		res->stage = "other";
		pyrt_fmt_text(res->line, sizeof res->line, "%s", uerr.msg);
		return 0;
	}
	struct fetch f;
	memset(&f, 0, sizeof f);
	pyrt_fetch_opts fo = PYRT_FETCH_OPTS_INIT;
	fo.url = url;
	f.opts = &fo;
	f.loopback = loopback;
	fetch_proxy(&f, proxy, sizeof proxy);
	CURL *c = curl_easy_init();
	if (!c)
		return pyrt_error_set(err, PYRT_E_NOMEM, "out of memory");
	char curl_err[CURL_ERROR_SIZE] = "";
	CURLcode cc = CURLE_OK;
#define SETOPT(opt, val) \
	do { if (cc == CURLE_OK) cc = curl_easy_setopt(c, opt, val); } while (0)
	SETOPT(CURLOPT_URL, url);
	SETOPT(CURLOPT_PROTOCOLS_STR, "http,https");
	SETOPT(CURLOPT_CONNECT_ONLY, 1L);
	SETOPT(CURLOPT_SSL_VERIFYPEER, 1L);
	SETOPT(CURLOPT_SSL_VERIFYHOST, 2L);
	if (cacert) {
		SETOPT(CURLOPT_CAINFO, cacert);
		SETOPT(CURLOPT_PROXY_CAINFO, cacert);
	}
	/* As a download: loopback never goes through a proxy. */
	if (loopback)
		SETOPT(CURLOPT_NOPROXY, "*");
	SETOPT(CURLOPT_NOSIGNAL, 1L);
	SETOPT(CURLOPT_TIMEOUT, timeout_s);
	SETOPT(CURLOPT_CONNECTTIMEOUT, timeout_s);
	SETOPT(CURLOPT_ERRORBUFFER, curl_err);
#undef SETOPT
	if (cc == CURLE_OK && cacert)
		cc = ca_path_off(c);
	if (cc != CURLE_OK) {
		curl_easy_cleanup(c);
		return pyrt_error_set(err, PYRT_E_INTERNAL,
				      "cannot configure libcurl: %s",
				      curl_easy_strerror(cc));
	}
	double t0 = pyrt_now();
	cc = curl_easy_perform(c);
	res->ms = (long)((pyrt_now() - t0) * 1000);
	pyrt_fetch_url_host(url, host, sizeof host);
	/* The port the URL names, else the scheme's. */
	long port = strncasecmp(url, "https:", 6) == 0 ? 443 : 80;
	char hostport[600], *named = NULL;
	CURLU *u = url_parse(url);
	if (u && curl_url_get(u, CURLUPART_PORT, &named, 0) == CURLUE_OK &&
	    named)
		port = strtol(named, NULL, 10);
	curl_free(named);
	curl_url_cleanup(u);
	pyrt_fmt_text(hostport, sizeof hostport, "%s:%ld", host, port);
	if (cc == CURLE_OK) {
		res->ok = 1;
		pyrt_fmt_text(res->line, sizeof res->line, "%s: DNS, TCP and %s in "
			      "%ld ms, %s%s", hostport,
			      strncasecmp(url, "https:", 6) == 0
			      ? "TLS (certificate verified)" : "plain http",
			      res->ms, proxy[0] ? "through the proxy " : "direct",
			      proxy);
	} else {
		probe_failed(res, cc, hostport, proxy, cacert, timeout_s,
			     curl_err);
	}
	curl_easy_cleanup(c);
	return 0;
}
