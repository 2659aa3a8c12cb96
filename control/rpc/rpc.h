/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * JSON-RPC method registry and dispatch, independent of the transport (rpc_server.c).
 * Feature files register their methods with LSW_RPC_REGISTER, SPDK style; rpc.methods lists
 * them. Handlers run on the main lcore; their params are checked by rows before they run.
 */
#ifndef LSW_CONTROL_RPC_H
#define LSW_CONTROL_RPC_H

#include <stdbool.h>
#include <jansson.h>
#include <rte_common.h>
#include "config.h"
#include "decode.h"
#include "lsw/rpc.h"
#include "error.h"

struct lsw_switch;

/* A method's handler: @args is its params as its rows decoded them (defaults filled in). */
typedef json_t *(*lsw_rpc_fn)(struct lsw_switch *sw, const void *args, struct lsw_rpc_error *e);

/* Every method runs on the main lcore while the workers forward: none may make a worker
 * wait or drop a packet (rpc.methods says "safe_while_forwarding" of each). */
struct lsw_rpc_method {
	const char *name;       /* object.verb */
	const char *summary;    /* one line */
	/* Its params as rows (decode.h): the dispatcher decodes the params object into a
	 * struct of @args_size bytes with them, refusing any other member, and rpc.methods
	 * lists them (a row's .doc is its type there). NULL: no params. */
	const struct lsw_fields *params;
	size_t args_size;
	lsw_rpc_fn fn;          /* returns the result, or NULL with @e set */
};

#define LSW_RPC_ARGS_MAX 4096   /* the largest args struct a method may have */

void lsw_rpc_register(const struct lsw_rpc_method *m);
#define LSW_RPC_REGISTER(m) \
	RTE_INIT(lsw_rpc_register_##m) { lsw_rpc_register(&m); }

size_t lsw_rpc_method_count(void);
const struct lsw_rpc_method *lsw_rpc_method_at(size_t i);
const struct lsw_rpc_method *lsw_rpc_method_find(const char *name);

/* One parsed request or batch in; the response (NULL when nothing is to be sent) out. */
json_t *lsw_rpc_handle(struct lsw_switch *sw, json_t *req);
json_t *lsw_rpc_error_response(json_t *id, int code, const char *message, json_t *data);
/* Run @m with @params (an object): decoded by its rows, then its handler. What the
 * dispatcher does for a request; stats.get and telemetry call methods this way too. */
json_t *lsw_rpc_call(struct lsw_switch *sw, const struct lsw_rpc_method *m, json_t *params,
		     struct lsw_rpc_error *e);

/* Params helpers. */
/* The port named by @v at @path: its index into *@port. False, with the error, when @v
 * names no port. */
bool lsw_rpc_port_param(const struct lsw_switch *sw, json_t *v, const char *path, int *port,
			struct lsw_errs *errs);
/* Rows of an optional "port" (-1 when absent) or a required one, into an int member. */
#define LSW_RPC_PORT_ROW(T, m) \
	{.name = "port", .type = LSW_F_CUSTOM, LSW_AT(T, m), .dflt = -1, \
	 .fn = lsw_rpc_port_field, .doc = "string"}
#define LSW_RPC_PORT_ROW_REQUIRED(T, m) \
	{.name = "port", .type = LSW_F_CUSTOM, LSW_AT(T, m), .dflt = -1, \
	 .fn = lsw_rpc_port_field, .doc = "string", .required = "a port name"}
bool lsw_rpc_port_field(const struct lsw_field *f, json_t *v, const char *path, void *out,
			void *ctx, struct lsw_errs *errs);
/* The params of the methods that take an optional port alone. */
struct lsw_rpc_port_args {
	int port;               /* -1: every port */
};
extern const struct lsw_fields lsw_rpc_port_params;
/* config.set's work: merge @patch over the running config, validate, apply; the result or
 * NULL with @e set (the running state unchanged). */
json_t *lsw_rpc_config_apply(struct lsw_switch *sw, json_t *patch, struct lsw_rpc_error *e);

#endif
