/*
 * The libmicrohttpd functions serve/ calls, forwarded to libmicrohttpd.so.12
 * loaded when `pyrt serve` starts (core/util/lazylib.h explains why): linking it
 * maps GnuTLS and nine more libraries into every pyrt start, while only
 * serve uses it.  Each definition takes its prototype from <microhttpd.h>,
 * so a signature that drifts fails to compile; a function serve/ starts to
 * call must be added here (the link fails until it is).
 */
#include "core/util/lazy_loader.h"
#include "serve/internal.h"

#include <stdarg.h>
#include <stdint.h>

#include <microhttpd.h>

#define MHD_SYMS(X) \
	X(MHD_start_daemon_va) X(MHD_stop_daemon) \
	X(MHD_get_connection_values) X(MHD_lookup_connection_value) \
	X(MHD_queue_response) X(MHD_suspend_connection) \
	X(MHD_resume_connection) X(MHD_create_response_from_callback) \
	X(MHD_create_response_from_buffer) \
	X(MHD_create_response_from_buffer_with_free_callback_cls) X(MHD_destroy_response) \
	X(MHD_add_response_header) X(MHD_get_connection_info)

LAZY_LIB_DEFINE(mhd_lib, MHD_SYMS, "libmicrohttpd.so.12", "PYRT_TEST_LIBMHD",
		"libmicrohttpd12");

int srv_lazy_mhd(pyrt_error *err)
{
	return pyrt_lazy_lib_load(&mhd_lib) ? 0 : pyrt_lazy_lib_error(&mhd_lib, err);
}

#define F(name) (pyrt_lazy_lib_need(&mhd_lib), LAZY_FN(mhd_lib_table, name))

/* The library's own variadic entry takes the options as a va_list. */
struct MHD_Daemon *MHD_start_daemon(unsigned int flags, uint16_t port,
				    MHD_AcceptPolicyCallback apc, void *apc_cls,
				    MHD_AccessHandlerCallback dh, void *dh_cls,
				    ...)
{
	va_list ap;
	va_start(ap, dh_cls);
	struct MHD_Daemon *d = F(MHD_start_daemon_va)(flags, port, apc, apc_cls,
						      dh, dh_cls, ap);
	va_end(ap);
	return d;
}

void MHD_stop_daemon(struct MHD_Daemon *daemon)
{
	F(MHD_stop_daemon)(daemon);
}

int MHD_get_connection_values(struct MHD_Connection *connection,
			      enum MHD_ValueKind kind,
			      MHD_KeyValueIterator iterator, void *iterator_cls)
{
	return F(MHD_get_connection_values)(connection, kind, iterator,
					    iterator_cls);
}

const char *MHD_lookup_connection_value(struct MHD_Connection *connection,
					enum MHD_ValueKind kind,
					const char *key)
{
	return F(MHD_lookup_connection_value)(connection, kind, key);
}

enum MHD_Result MHD_queue_response(struct MHD_Connection *connection,
				   unsigned int status_code,
				   struct MHD_Response *response)
{
	return F(MHD_queue_response)(connection, status_code, response);
}

void MHD_suspend_connection(struct MHD_Connection *connection)
{
	F(MHD_suspend_connection)(connection);
}

void MHD_resume_connection(struct MHD_Connection *connection)
{
	F(MHD_resume_connection)(connection);
}

struct MHD_Response *
MHD_create_response_from_callback(uint64_t size, size_t block_size,
				  MHD_ContentReaderCallback crc, void *crc_cls,
				  MHD_ContentReaderFreeCallback crfc)
{
	return F(MHD_create_response_from_callback)(size, block_size, crc,
						    crc_cls, crfc);
}

struct MHD_Response *
MHD_create_response_from_buffer(size_t size, void *buffer,
				enum MHD_ResponseMemoryMode mode)
{
	return F(MHD_create_response_from_buffer)(size, buffer, mode);
}

struct MHD_Response *
MHD_create_response_from_buffer_with_free_callback_cls(
	size_t size, void *buffer, MHD_ContentReaderFreeCallback crfc,
	void *crfc_cls)
{
	return F(MHD_create_response_from_buffer_with_free_callback_cls)(
		size, buffer, crfc, crfc_cls);
}

void MHD_destroy_response(struct MHD_Response *response)
{
	F(MHD_destroy_response)(response);
}

enum MHD_Result MHD_add_response_header(struct MHD_Response *response,
					const char *header, const char *content)
{
	return F(MHD_add_response_header)(response, header, content);
}

/* Only the info types that take no extra argument are asked for. */
const union MHD_ConnectionInfo *
MHD_get_connection_info(struct MHD_Connection *connection,
			enum MHD_ConnectionInfoType info_type, ...)
{
	return F(MHD_get_connection_info)(connection, info_type);
}
