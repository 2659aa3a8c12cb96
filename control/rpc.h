/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * JSON-RPC method registry and dispatch, independent of the transport (rpc_server.c).
 * Feature files register their methods with LSW_RPC_REGISTER, SPDK style; rpc.methods lists
 * them. Handlers run on the main lcore and validate their params strictly.
 */
#ifndef LSW_CONTROL_RPC_H
#define LSW_CONTROL_RPC_H

#include <stdbool.h>
#include <jansson.h>
#include <rte_common.h>
#include "config.h"
#include "lsw/rpc.h"

struct lsw_switch;

struct lsw_rpc_error {
	int code;               /* 0 = none */
	char message[160];
	struct lsw_errs errs;   /* per-field details of LSW_RPC_INVALID_PARAMS */
};

typedef json_t *(*lsw_rpc_fn)(struct lsw_switch *sw, json_t *params, struct lsw_rpc_error *e);

struct lsw_rpc_method {
	const char *name;       /* object.verb */
	const char *summary;    /* one line */
	const char *params;     /* one line: names and types, "" when none */
	bool safe_while_forwarding; /* never stalls or disturbs the workers */
	lsw_rpc_fn fn;          /* returns the result, or NULL with @e set */
};

void lsw_rpc_register(const struct lsw_rpc_method *m);
#define LSW_RPC_REGISTER(m) \
	RTE_INIT(lsw_rpc_register_##m) { lsw_rpc_register(&m); }

size_t lsw_rpc_method_count(void);
const struct lsw_rpc_method *lsw_rpc_method_at(size_t i);
const struct lsw_rpc_method *lsw_rpc_method_find(const char *name);

/* One parsed request or batch in; the response (NULL when nothing is to be sent) out. */
json_t *lsw_rpc_handle(struct lsw_switch *sw, json_t *req);
json_t *lsw_rpc_error_response(json_t *id, int code, const char *message, json_t *data);

/* Params helpers: they fill @e and return false/negative on bad input. */
bool lsw_rpc_params_check(json_t *params, const char *const *allowed, struct lsw_rpc_error *e);
/* Optional or required "port" by name: index, -1 when absent and optional, -2 on error. */
int lsw_rpc_port_param(struct lsw_switch *sw, json_t *params, bool required,
		       struct lsw_rpc_error *e);
/* config.set's work: merge @patch over the running config, validate, apply; the result or
 * NULL with @e set (the running state unchanged). */
json_t *lsw_rpc_config_apply(struct lsw_switch *sw, json_t *patch, struct lsw_rpc_error *e);
void lsw_rpc_fail(struct lsw_rpc_error *e, int code, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

#endif
