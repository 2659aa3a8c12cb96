/* SPDX-License-Identifier: BSD-3-Clause */
/* JSON-RPC framing and dispatch, without a socket; and every method is documented. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "harness.h"
#include "rpc.h"
#include "rpc_server.h"

static void
test_frame(void **state)
{
	(void)state;
	assert_int_equal(lsw_rpc_frame("{}", 2), 2);
	assert_int_equal(lsw_rpc_frame("{\"a\":[1,{\"b\":2}]}  {", 21), 17);
	assert_int_equal(lsw_rpc_frame("{\"a\":[1,{\"b\":2}]", 16), 0);       /* incomplete */
	assert_int_equal(lsw_rpc_frame("{\"a\":\"}]{[\"}x", 13), 12);          /* in a string */
	assert_int_equal(lsw_rpc_frame("{\"a\":\"\\\"}\"}", 11), 11);          /* escaped quote */
	assert_int_equal(lsw_rpc_frame("{\"a\":\"\\\\\"}", 10), 10);           /* escaped \ */
	assert_int_equal(lsw_rpc_frame("[{]", 3), 3);                        /* mismatch */
	assert_int_equal(lsw_rpc_frame("[]", 2), 2);
	char deep[600];
	memset(deep, '[', sizeof(deep));
	assert_int_equal(lsw_rpc_frame(deep, sizeof(deep)), 257);           /* nesting limit */
}

static json_t *
call(const char *req)
{
	json_error_t je;
	json_t *r = json_loads(req, JSON_DECODE_ANY, &je);

	assert_non_null(r);
	json_t *resp = lsw_rpc_handle(NULL, r);
	json_decref(r);
	return resp;
}

static int
err_code(json_t *resp)
{
	json_t *e = json_object_get(resp, "error");

	assert_non_null(e);
	return (int)json_integer_value(json_object_get(e, "code"));
}

static void
test_dispatch(void **state)
{
	json_t *r;

	(void)state;
	r = call("{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"rpc.methods\"}");
	assert_int_equal(json_integer_value(json_object_get(r, "id")), 7);
	json_t *res = json_object_get(r, "result");
	assert_true(json_is_array(res));
	assert_true(json_array_size(res) == lsw_rpc_method_count());
	json_decref(r);
	r = call("{\"jsonrpc\":\"2.0\",\"id\":\"x\",\"method\":\"rpc.methods\",\"params\":{}}");
	assert_string_equal(json_string_value(json_object_get(r, "id")), "x");
	assert_non_null(json_object_get(r, "result"));
	json_decref(r);

	static const struct {
		const char *req;
		int code;
	} bad[] = {
		{"1", LSW_RPC_INVALID_REQUEST},
		{"{\"id\":1,\"method\":\"rpc.methods\"}", LSW_RPC_INVALID_REQUEST},
		{"{\"jsonrpc\":\"1.0\",\"id\":1,\"method\":\"rpc.methods\"}",
		 LSW_RPC_INVALID_REQUEST},
		{"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":5}", LSW_RPC_INVALID_REQUEST},
		{"{\"jsonrpc\":\"2.0\",\"id\":{},\"method\":\"rpc.methods\"}",
		 LSW_RPC_INVALID_REQUEST},
		{"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"rpc.methods\",\"x\":1}",
		 LSW_RPC_INVALID_REQUEST},
		{"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"rpc.methods\",\"params\":3}",
		 LSW_RPC_INVALID_REQUEST},
		{"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"no.such\"}", LSW_RPC_METHOD_NOT_FOUND},
		{"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"rpc.methods\",\"params\":[1]}",
		 LSW_RPC_INVALID_PARAMS},
		{"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"rpc.methods\",\"params\":{\"a\":1}}",
		 LSW_RPC_INVALID_PARAMS},
		{"[]", LSW_RPC_INVALID_REQUEST},
	};
	for (size_t i = 0; i < RTE_DIM(bad); i++) {
		r = call(bad[i].req);
		if (r == NULL || err_code(r) != bad[i].code)
			fail_msg("%s: expected error %d", bad[i].req, bad[i].code);
		json_decref(r);
	}
	/* Invalid params name the field by JSON path. */
	r = call("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"rpc.methods\",\"params\":{\"a\":1}}");
	json_t *errs = json_object_get(json_object_get(json_object_get(r, "error"), "data"),
				       "errors");
	assert_string_equal(json_string_value(json_object_get(json_array_get(errs, 0), "path")),
			    "$.params.a");
	json_decref(r);
}

static void
test_notifications_and_batches(void **state)
{
	json_t *r;

	(void)state;
	/* Notifications get no answer, not even an error. */
	assert_null(call("{\"jsonrpc\":\"2.0\",\"method\":\"rpc.methods\"}"));
	assert_null(call("{\"jsonrpc\":\"2.0\",\"method\":\"no.such\"}"));
	assert_null(call("[{\"jsonrpc\":\"2.0\",\"method\":\"rpc.methods\"}]"));
	r = call("[{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"rpc.methods\"},"
		 " {\"jsonrpc\":\"2.0\",\"method\":\"rpc.methods\"},"
		 " {\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"nope\"}, 5]");
	assert_true(json_is_array(r));
	assert_int_equal(json_array_size(r), 3);
	assert_non_null(json_object_get(json_array_get(r, 0), "result"));
	assert_int_equal(err_code(json_array_get(r, 1)), LSW_RPC_METHOD_NOT_FOUND);
	assert_int_equal(err_code(json_array_get(r, 2)), LSW_RPC_INVALID_REQUEST);
	assert_true(json_is_null(json_object_get(json_array_get(r, 2), "id")));
	json_decref(r);
}

/* Every registered method has a section "### `name`" in control/rpc/RPC.md. */
static void
test_documented(void **state)
{
	const char *root = getenv("LSW_SOURCE_ROOT");
	char path[512], heading[128];

	(void)state;
	snprintf(path, sizeof(path), "%s/control/rpc/RPC.md", root ? root : ".");
	FILE *f = fopen(path, "r");
	assert_non_null(f);
	static char doc[1 << 20];
	size_t n = fread(doc, 1, sizeof(doc) - 1, f);
	doc[n] = '\0';
	fclose(f);
	assert_true(lsw_rpc_method_count() >= 8);
	/* ... and the document names no method that does not exist. */
	size_t sections = 0;
	for (const char *p = strstr(doc, "\n### `"); p != NULL; p = strstr(p + 1, "\n### `")) {
		char name[64];
		if (sscanf(p, "\n### `%63[^`]`", name) == 1 && lsw_rpc_method_find(name) == NULL)
			fail_msg("control/rpc/RPC.md documents %s, which is not registered", name);
		sections++;
	}
	assert_int_equal(sections, lsw_rpc_method_count());
	for (size_t i = 0; i < lsw_rpc_method_count(); i++) {
		const struct lsw_rpc_method *m = lsw_rpc_method_at(i);
		snprintf(heading, sizeof(heading), "\n### `%s`\n", m->name);
		if (strstr(doc, heading) == NULL)
			fail_msg("%s has no section in control/rpc/RPC.md", m->name);
		assert_true(strlen(m->summary) > 10);
	}
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_frame),
		cmocka_unit_test(test_dispatch),
		cmocka_unit_test(test_notifications_and_batches),
		cmocka_unit_test(test_documented),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
