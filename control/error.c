/* SPDX-License-Identifier: BSD-3-Clause */
/* A request's error (error.h). */
#include <stdarg.h>
#include <stdio.h>
#include "error.h"

void
lsw_rpc_fail(struct lsw_rpc_error *e, int code, const char *fmt, ...)
{
	va_list ap;

	e->code = code;
	va_start(ap, fmt);
	vsnprintf(e->message, sizeof(e->message), fmt, ap);
	va_end(ap);
}

json_t *
lsw_rpc_invalid(struct lsw_rpc_error *e)
{
	lsw_rpc_fail(e, LSW_RPC_INVALID_PARAMS, "invalid params");
	return NULL;
}

json_t *
lsw_rpc_nomem(struct lsw_rpc_error *e)
{
	lsw_rpc_fail(e, LSW_RPC_INTERNAL_ERROR, "out of memory");
	return NULL;
}
