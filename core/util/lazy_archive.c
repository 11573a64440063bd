/*
 * The libarchive functions core/ calls, forwarded to libarchive.so.13 loaded
 * on first use (see lazylib.h).  Each definition takes its prototype from
 * <archive.h> / <archive_entry.h>, so a signature that drifts from the
 * headers fails to compile.  A function core/ starts to call must be added
 * here (the link fails until it is).
 */
#include "core/util/fmt.h"
#include "core/util/lazy_loader.h"
#include "core/util/lazylib.h"

#include <stdarg.h>
#include <stdio.h>

#include <archive.h>
#include <archive_entry.h>

/* libarchive 3.x is soname 13. */
#if ARCHIVE_VERSION_NUMBER < 3000000 || ARCHIVE_VERSION_NUMBER >= 4000000
#error "lazy_archive.c knows libarchive.so.13 (libarchive 3)"
#endif

#define ARCHIVE_SYMS(X) \
	X(archive_read_new) \
	X(archive_read_free) \
	X(archive_read_support_filter_gzip) \
	X(archive_read_support_filter_bzip2) \
	X(archive_read_support_filter_xz) \
	X(archive_read_support_filter_zstd) \
	X(archive_read_support_format_tar) \
	X(archive_read_support_format_gnutar) \
	X(archive_read_support_format_zip) \
	X(archive_read_support_format_zip_seekable) \
	X(archive_read_open_fd) \
	X(archive_read_open) \
	X(archive_read_open_filename) \
	X(archive_read_next_header) \
	X(archive_read_data) \
	X(archive_read_data_block) \
	X(archive_read_data_skip) \
	X(archive_filter_bytes) \
	X(archive_error_string) \
	X(archive_version_details) \
	X(archive_write_new) \
	X(archive_write_free) \
	X(archive_write_close) \
	X(archive_write_add_filter_gzip) \
	X(archive_write_set_format_pax_restricted) \
	X(archive_write_open_fd) \
	X(archive_write_header) \
	X(archive_write_data) \
	X(archive_entry_new) \
	X(archive_entry_free) \
	X(archive_entry_filetype) \
	X(archive_entry_perm) \
	X(archive_entry_pathname) \
	X(archive_entry_pathname_utf8) \
	X(archive_entry_hardlink) \
	X(archive_entry_symlink) \
	X(archive_entry_size) \
	X(archive_entry_size_is_set) \
	X(archive_entry_mtime) \
	X(archive_entry_mtime_nsec) \
	X(archive_entry_mtime_is_set) \
	X(archive_entry_set_pathname) \
	X(archive_entry_set_filetype) \
	X(archive_entry_set_perm) \
	X(archive_entry_set_size) \
	X(archive_entry_set_mtime) \
	X(archive_set_error)

LAZY_LIB_DEFINE(archive_lib, ARCHIVE_SYMS, "libarchive.so.13", "PYRT_TEST_LIBARCHIVE",
		"libarchive13");

int pyrt_lazy_archive(pyrt_error *err)
{
	pyrt_lazy_crypto(NULL); /* first: lazylib.h says why */
	pyrt_lazy_zlib(NULL);
	return pyrt_lazy_lib_load(&archive_lib) ? 0
					   : pyrt_lazy_lib_error(&archive_lib, err);
}

int pyrt_lazy_archive_loaded(void)
{
	return LAZY_LIB_LOADED(archive_lib);
}

#define F(name) (pyrt_lazy_lib_need(&archive_lib), LAZY_FN(archive_lib_table, name))

struct archive *archive_read_new(void)
{
	return F(archive_read_new)();
}

int archive_read_free(struct archive *a)
{
	return F(archive_read_free)(a);
}

int archive_read_support_filter_gzip(struct archive *a)
{
	return F(archive_read_support_filter_gzip)(a);
}

int archive_read_support_filter_bzip2(struct archive *a)
{
	return F(archive_read_support_filter_bzip2)(a);
}

int archive_read_support_filter_xz(struct archive *a)
{
	return F(archive_read_support_filter_xz)(a);
}

int archive_read_support_filter_zstd(struct archive *a)
{
	return F(archive_read_support_filter_zstd)(a);
}

int archive_read_support_format_tar(struct archive *a)
{
	return F(archive_read_support_format_tar)(a);
}

int archive_read_support_format_gnutar(struct archive *a)
{
	return F(archive_read_support_format_gnutar)(a);
}

int archive_read_support_format_zip(struct archive *a)
{
	return F(archive_read_support_format_zip)(a);
}

int archive_read_support_format_zip_seekable(struct archive *a)
{
	return F(archive_read_support_format_zip_seekable)(a);
}

int archive_read_open_fd(struct archive *a, int fd, size_t block)
{
	return F(archive_read_open_fd)(a, fd, block);
}

int archive_read_open(struct archive *a, void *data, archive_open_callback *o, archive_read_callback *r, archive_close_callback *c)
{
	return F(archive_read_open)(a, data, o, r, c);
}

int archive_read_open_filename(struct archive *a, const char *name, size_t block)
{
	return F(archive_read_open_filename)(a, name, block);
}

int archive_read_next_header(struct archive *a, struct archive_entry **e)
{
	return F(archive_read_next_header)(a, e);
}

la_ssize_t archive_read_data(struct archive *a, void *buf, size_t len)
{
	return F(archive_read_data)(a, buf, len);
}

int archive_read_data_block(struct archive *a, const void **buf, size_t *len, la_int64_t *off)
{
	return F(archive_read_data_block)(a, buf, len, off);
}

int archive_read_data_skip(struct archive *a)
{
	return F(archive_read_data_skip)(a);
}

la_int64_t archive_filter_bytes(struct archive *a, int n)
{
	return F(archive_filter_bytes)(a, n);
}

const char *archive_error_string(struct archive *a)
{
	return F(archive_error_string)(a);
}

const char *archive_version_details(void)
{
	return F(archive_version_details)();
}

struct archive *archive_write_new(void)
{
	return F(archive_write_new)();
}

int archive_write_free(struct archive *a)
{
	return F(archive_write_free)(a);
}

int archive_write_close(struct archive *a)
{
	return F(archive_write_close)(a);
}

int archive_write_add_filter_gzip(struct archive *a)
{
	return F(archive_write_add_filter_gzip)(a);
}

int archive_write_set_format_pax_restricted(struct archive *a)
{
	return F(archive_write_set_format_pax_restricted)(a);
}

int archive_write_open_fd(struct archive *a, int fd)
{
	return F(archive_write_open_fd)(a, fd);
}

int archive_write_header(struct archive *a, struct archive_entry *e)
{
	return F(archive_write_header)(a, e);
}

la_ssize_t archive_write_data(struct archive *a, const void *buf, size_t len)
{
	return F(archive_write_data)(a, buf, len);
}

struct archive_entry *archive_entry_new(void)
{
	return F(archive_entry_new)();
}

void archive_entry_free(struct archive_entry *e)
{
	F(archive_entry_free)(e);
}

__LA_MODE_T archive_entry_filetype(struct archive_entry *e)
{
	return F(archive_entry_filetype)(e);
}

__LA_MODE_T archive_entry_perm(struct archive_entry *e)
{
	return F(archive_entry_perm)(e);
}

const char *archive_entry_pathname(struct archive_entry *e)
{
	return F(archive_entry_pathname)(e);
}

const char *archive_entry_pathname_utf8(struct archive_entry *e)
{
	return F(archive_entry_pathname_utf8)(e);
}

const char *archive_entry_hardlink(struct archive_entry *e)
{
	return F(archive_entry_hardlink)(e);
}

const char *archive_entry_symlink(struct archive_entry *e)
{
	return F(archive_entry_symlink)(e);
}

la_int64_t archive_entry_size(struct archive_entry *e)
{
	return F(archive_entry_size)(e);
}

int archive_entry_size_is_set(struct archive_entry *e)
{
	return F(archive_entry_size_is_set)(e);
}

time_t archive_entry_mtime(struct archive_entry *e)
{
	return F(archive_entry_mtime)(e);
}

long archive_entry_mtime_nsec(struct archive_entry *e)
{
	return F(archive_entry_mtime_nsec)(e);
}

int archive_entry_mtime_is_set(struct archive_entry *e)
{
	return F(archive_entry_mtime_is_set)(e);
}

void archive_entry_set_pathname(struct archive_entry *e, const char *p)
{
	F(archive_entry_set_pathname)(e, p);
}

void archive_entry_set_filetype(struct archive_entry *e, unsigned int t)
{
	F(archive_entry_set_filetype)(e, t);
}

void archive_entry_set_perm(struct archive_entry *e, __LA_MODE_T m)
{
	F(archive_entry_set_perm)(e, m);
}

void archive_entry_set_size(struct archive_entry *e, la_int64_t n)
{
	F(archive_entry_set_size)(e, n);
}

void archive_entry_set_mtime(struct archive_entry *e, time_t t, long ns)
{
	F(archive_entry_set_mtime)(e, t, ns);
}

/* Formatted here: a va_list cannot be handed to a variadic function. */
void archive_set_error(struct archive *a, int err, const char *fmt, ...)
{
	char msg[1024];
	va_list ap;
	va_start(ap, fmt);
	pyrt_fmt_vtext(msg, sizeof msg, fmt, ap);
	va_end(ap);
	F(archive_set_error)(a, err, "%s", msg);
}
