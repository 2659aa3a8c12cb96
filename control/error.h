/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The error a request gets back (a JSON-RPC error: code, message, the offending fields by
 * JSON path). The control plane's operations that serve a request (capture.c, timeline.c,
 * config_apply.c, ...) fill it as the methods in rpc/ do, without using the registry.
 */
#ifndef LSW_CONTROL_ERROR_H
#define LSW_CONTROL_ERROR_H

#include <jansson.h>
#include <rte_common.h>
#include "jsonv.h"
#include "lsw/rpc.h"

struct lsw_rpc_error {
	int code;               /* 0 = none */
	char message[160];
	struct lsw_errs errs;   /* per-field details of LSW_RPC_INVALID_PARAMS */
};

/* Set @e to @code and the formatted message. */
void lsw_rpc_fail(struct lsw_rpc_error *e, int code, const char *fmt, ...)
	__rte_format_printf(3, 4);
/* INVALID_PARAMS ("invalid params"), for @e whose errs say which; returns NULL. */
json_t *lsw_rpc_invalid(struct lsw_rpc_error *e);
/* INTERNAL_ERROR, "out of memory"; returns NULL. */
json_t *lsw_rpc_nomem(struct lsw_rpc_error *e);

#endif /* LSW_CONTROL_ERROR_H */
