/* SPDX-License-Identifier: BSD-3-Clause */
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "jsonv.h"
#include "rpc.h"
#include "switch.h"

#define MAX_METHODS 128

static const struct lsw_rpc_method *methods[MAX_METHODS];
static size_t n_methods;

static int
cmp_methods(const void *a, const void *b)
{
	return strcmp((*(const struct lsw_rpc_method *const *)a)->name,
		      (*(const struct lsw_rpc_method *const *)b)->name);
}

void
lsw_rpc_register(const struct lsw_rpc_method *m)
{
	if (n_methods == MAX_METHODS || lsw_rpc_method_find(m->name) != NULL ||
	    m->args_size > LSW_RPC_ARGS_MAX || (m->params != NULL && m->args_size == 0)) {
		fprintf(stderr, "lsw: RPC method %s registered twice, table full, or its args "
			"do not fit\n", m->name);
		abort();
	}
	methods[n_methods++] = m;
	qsort(methods, n_methods, sizeof(methods[0]), cmp_methods);
}

size_t
lsw_rpc_method_count(void)
{
	return n_methods;
}

const struct lsw_rpc_method *
lsw_rpc_method_at(size_t i)
{
	return i < n_methods ? methods[i] : NULL;
}

const struct lsw_rpc_method *
lsw_rpc_method_find(const char *name)
{
	for (size_t i = 0; i < n_methods; i++)
		if (strcmp(methods[i]->name, name) == 0)
			return methods[i];
	return NULL;
}

bool
lsw_rpc_port_param(const struct lsw_switch *sw, json_t *v, const char *path, int *port,
		   struct lsw_errs *errs)
{
	const char *name;

	if (!lsw_jv_str(v, path, LSW_NAME_LEN, &name, errs))
		return false;
	*port = lsw_config_port_index(sw->cfg, name);
	if (*port >= 0)
		return true;
	lsw_errs_add(errs, path, "no port named '%s'", name);
	return false;
}

bool
lsw_rpc_port_field(const struct lsw_field *f, json_t *v, const char *path, void *out, void *ctx,
		   struct lsw_errs *errs)
{
	return lsw_rpc_port_param(ctx, v, path, (int *)((char *)out + f->off), errs);
}

static const struct lsw_field port_rows[] = {
	LSW_RPC_PORT_ROW(struct lsw_rpc_port_args, port),
};
const struct lsw_fields lsw_rpc_port_params = LSW_FIELDS(port_rows);

json_t *
lsw_rpc_call(struct lsw_switch *sw, const struct lsw_rpc_method *m, json_t *params,
	     struct lsw_rpc_error *e)
{
	static const struct lsw_fields none = {NULL, 0};
	const struct lsw_fields *rows = m->params ? m->params : &none;
	/* Every args struct fits (lsw_rpc_register checks); aligned for any member. */
	_Alignas(max_align_t) unsigned char args[LSW_RPC_ARGS_MAX];

	memset(args, 0, m->args_size);
	lsw_decode_defaults(rows, args);
	if (!lsw_decode(params, "$.params", rows, args, sw, NULL, &e->errs) ||
	    e->errs.n != 0)
		return lsw_rpc_invalid(e);
	return m->fn(sw, args, e);
}

json_t *
lsw_rpc_error_response(json_t *id, int code, const char *message, json_t *data)
{
	json_t *err = json_pack("{s:i, s:o}", "code", code, "message", lsw_jv_text(message));

	if (data != NULL)
		json_object_set_new(err, "data", data);
	return json_pack("{s:s, s:O, s:o}", "jsonrpc", "2.0", "id", id ? id : json_null(),
			 "error", err);
}

static json_t *
handle_one(struct lsw_switch *sw, json_t *req)
{
	static const char *const members[] = {"jsonrpc", "method", "params", "id", NULL};
	struct lsw_rpc_error e = {0};
	json_t *id, *params, *v, *result;
	const char *k;

	if (!json_is_object(req))
		return lsw_rpc_error_response(NULL, LSW_RPC_INVALID_REQUEST,
					      "a request is a JSON object", NULL);
	id = json_object_get(req, "id");
	if (id != NULL && !json_is_string(id) && !json_is_number(id) && !json_is_null(id))
		return lsw_rpc_error_response(NULL, LSW_RPC_INVALID_REQUEST,
					      "id must be a string, a number or null", NULL);
	json_object_foreach(req, k, v) {
		const char *const *m;
		for (m = members; *m && strcmp(*m, k) != 0; m++)
			;
		if (*m == NULL) {
			snprintf(e.message, sizeof(e.message), "unknown member '%s'", k);
			return lsw_rpc_error_response(id, LSW_RPC_INVALID_REQUEST, e.message, NULL);
		}
	}
	v = json_object_get(req, "jsonrpc");
	if (!json_is_string(v) || strcmp(json_string_value(v), "2.0") != 0)
		return lsw_rpc_error_response(id, LSW_RPC_INVALID_REQUEST,
					      "jsonrpc must be \"2.0\"", NULL);
	v = json_object_get(req, "method");
	if (!json_is_string(v))
		return lsw_rpc_error_response(id, LSW_RPC_INVALID_REQUEST,
					      "method must be a string", NULL);
	const struct lsw_rpc_method *m = lsw_rpc_method_find(json_string_value(v));
	params = json_object_get(req, "params");
	if (params != NULL && !json_is_object(params) && !json_is_array(params))
		return lsw_rpc_error_response(id, LSW_RPC_INVALID_REQUEST,
					      "params must be an object", NULL);
	if (m == NULL) {
		if (id == NULL)
			return NULL;
		snprintf(e.message, sizeof(e.message), "no method '%s' (see rpc.methods)",
			 json_string_value(v));
		return lsw_rpc_error_response(id, LSW_RPC_METHOD_NOT_FOUND, e.message, NULL);
	}
	if (params != NULL && json_is_array(params)) {
		result = NULL;
		lsw_rpc_fail(&e, LSW_RPC_INVALID_PARAMS, "params must be an object of named "
			     "parameters");
	} else {
		json_t *p = params ? json_incref(params) : json_object();
		lsw_stats_view_begin(sw);
		result = lsw_rpc_call(sw, m, p, &e);
		lsw_stats_view_end(sw);
		json_decref(p);
	}
	if (id == NULL) { /* a notification gets no answer, not even an error */
		json_decref(result);
		return NULL;
	}
	if (result != NULL)
		return json_pack("{s:s, s:O, s:o}", "jsonrpc", "2.0", "id", id, "result", result);
	if (e.code == 0)
		lsw_rpc_fail(&e, LSW_RPC_INTERNAL_ERROR, "internal error");
	json_t *data = e.errs.n ? json_pack("{s:o}", "errors", lsw_errs_to_json(&e.errs)) : NULL;
	return lsw_rpc_error_response(id, e.code, e.message, data);
}

json_t *
lsw_rpc_handle(struct lsw_switch *sw, json_t *req)
{
	if (!json_is_array(req))
		return handle_one(sw, req);
	if (json_array_size(req) == 0)
		return lsw_rpc_error_response(NULL, LSW_RPC_INVALID_REQUEST, "empty batch", NULL);
	json_t *out = json_array(), *r;
	size_t i;
	json_array_foreach(req, i, r) {
		json_t *resp = handle_one(sw, r);
		if (resp != NULL)
			json_array_append_new(out, resp);
	}
	if (json_array_size(out) == 0) {
		json_decref(out);
		return NULL;
	}
	return out;
}

static json_t *
rpc_methods(struct lsw_switch *sw, const void *args, struct lsw_rpc_error *e)
{
	char params[512];
	json_t *a;

	RTE_SET_USED(sw);
	RTE_SET_USED(args);
	RTE_SET_USED(e);
	a = json_array();
	for (size_t i = 0; i < n_methods; i++) {
		params[0] = '\0';
		if (methods[i]->params != NULL)
			lsw_decode_doc(methods[i]->params, params, sizeof(params));
		/* Every method is safe while forwarding: the main lcore serves them while the
		 * workers run (struct lsw_rpc_method). */
		json_array_append_new(a, json_pack("{s:s, s:s, s:s, s:b}", "name", methods[i]->name,
						   "description", methods[i]->summary, "params",
						   params, "safe_while_forwarding", true));
	}
	return a;
}

static const struct lsw_rpc_method m_rpc_methods = {
	.name = "rpc.methods",
	.summary = "List every method with a one-line description and its params",
	.fn = rpc_methods,
};
LSW_RPC_REGISTER(m_rpc_methods)
