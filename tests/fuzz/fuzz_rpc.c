/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * libFuzzer target: the bytes a client writes on lsw's JSON-RPC socket. They take the path of
 * conn_process() in control/rpc/rpc_server.c: framing (lsw_rpc_next: an object or a batch,
 * a line for anything else), json_loadb, lsw_rpc_handle, json_dumps. The switch is built by
 * the unit-test harness from tests/fuzz/switch.json, with its net_null ports started, the
 * drop snapshot store (with three dropped packets in it) and an RPC server, so that every
 * registered method's real handler runs.
 *
 * Each request is checked against JSON-RPC 2.0 and lsw's own promises:
 *   - a request with a usable id gets exactly one response, with that id; a notification
 *     gets none; anything else gets an Invalid Request error with a null id; a batch gets
 *     its responses in order, an empty one a single error;
 *   - a response has "jsonrpc": "2.0", an id, and "result" xor "error"; an error has an
 *     integer code (JSON-RPC's, or the server error range lsw's own are in) and a string
 *     message; INTERNAL_ERROR (a handler that failed without saying why, or an answer that
 *     could not be built) never happens;
 *   - the response serialises, parses back to the same value, and holds no newline (answers
 *     are newline-delimited);
 *   - the running config document changes only through a method of writers[] that did not
 *     fail (or a notification of one), and a changed one still validates;
 *   - whatever config.set accepted can be undone: after each input the starting config is
 *     applied back through lsw_config_hot_check and lsw_config_apply, so that every input
 *     starts from the same switch and a crash reproduces from its input alone;
 *   - then DPDK's heap holds what it held at the start (rte_malloc memory is invisible to
 *     ASan and LeakSanitizer, which check the rest), and every mbuf is back in the pool.
 * A failed check prints the request and the response and aborts, which libFuzzer reports as
 * a crash with the input saved.
 *
 * Run: tools/fuzz-rpc [SECONDS] (README.md, Tests).
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <rte_malloc.h>
#include "harness.h"
#include "rpc.h"
#include "rpc_server.h"

#ifndef LSW_FUZZ_CONFIG
#define LSW_FUZZ_CONFIG "tests/fuzz/switch.json"
#endif

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/*
 * What the fuzzer never calls, and why; an input asking for it is rejected whole (libFuzzer
 * keeps it out of the corpus). config.set's port restarts for a new MTU stay in: they take
 * microseconds on net_null.
 */
static const struct {
	const char *method;
	const char *param;      /* NULL: always; else only when params has this member */
} skipped[] = {
	/* Writes a file: by default the one the switch started with, tests/fuzz/switch.json. */
	{"config.save", NULL},
	/* Reads the file the input names: /dev/zero or a FIFO would never return. */
	{"config.diff", "path"},
	/* Creates the file the input names, anywhere (its other params are checked first,
	 * tests/unit/test_capture.c covers them). */
	{"capture.start", NULL},
};

/* The methods that change the running config document when they succeed. */
static const char *const writers[] = {
	"config.set", "port.set", "route.add", "route.del", "neighbor.add", "neighbor.del",
};

static struct t_switch *ts;
static struct lsw_switch *sw;
static json_t *initial;          /* the config document the switch started with */
static uint64_t heap_count, heap_bytes; /* DPDK's heap then (see dpdk_heap) */
static unsigned int heap_ecmp;   /* and how many ECMP counter blocks it held */
static uint32_t snaps;           /* drop snapshots stored (see seed_drops) */
static unsigned int mbufs;       /* in the harness's pool */
static bool print_answers;       /* LSW_FUZZ_PRINT set: to replay an input and see why */

/* What DPDK's heap holds, which ASan and LeakSanitizer do not see. */
static void
dpdk_heap(uint64_t *count, uint64_t *bytes)
{
	struct rte_malloc_socket_stats st;

	*count = *bytes = 0;
	for (unsigned int i = 0; i < rte_socket_count(); i++)
		if (rte_malloc_get_socket_stats(rte_socket_id_by_idx(i), &st) == 0) {
			*count += st.alloc_count;
			*bytes += st.heap_allocsz_bytes;
		}
}

static unsigned int
ecmp_slots(void)
{
	unsigned int n = 0;

	for (size_t i = 0; i < RTE_DIM(sw->ecmp); i++)
		n += sw->ecmp[i] != NULL;
	for (size_t i = 0; i < RTE_DIM(sw->ecmp6); i++)
		n += sw->ecmp6[i] != NULL;
	return n;
}

/*
 * Dropped packets for drops.list to find, filter and decode, fed to the worker as the
 * harness does: a RoCEv2 one into the blackhole route, one routed to Ethernet12 (admin
 * down), one over Ethernet8's MTU without DF. None makes the switch send anything (no ICMP,
 * no ARP), so every mbuf comes back.
 */
static void
seed_drops(void)
{
	static const struct t_flow flows[] = {
		{.dst = "10.4.0.1", .sport = 1000, .dport = 4791, .payload = 64, .vlan = -1},
		{.dst = "10.0.1.5", .sport = 1001, .dport = 4791, .payload = 64, .vlan = 0},
		{.dst = "10.3.0.1", .sport = 1002, .dport = 5000, .payload = 1600, .vlan = -1},
	};
	static uint8_t frame[2048];
	static uint64_t now;

	for (size_t i = 0; i < RTE_DIM(flows); i++) {
		now += T_HZ / 1000;
		t_rx(ts, 0, frame, t_build_ipv4(frame, &flows[i]), now);
	}
	lsw_dropsnap_poll(sw);
}

static void
cleanup(void)
{
	lsw_rpc_server_destroy(sw->rpc);
	sw->rpc = NULL;
}

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	const char *path = getenv("LSW_FUZZ_CONFIG") ? getenv("LSW_FUZZ_CONFIG") : LSW_FUZZ_CONFIG;
	struct lsw_rpc_limits lim = {.max_conns = 1, .max_request = 1 << 20, .timeout_ms = 1000};
	static char text[1 << 16];
	char err[256];
	FILE *f = fopen(path, "r");
	size_t n;

	RTE_SET_USED(argc);
	RTE_SET_USED(argv);
	print_answers = getenv("LSW_FUZZ_PRINT") != NULL;
	if (f == NULL || (n = fread(text, 1, sizeof(text) - 1, f)) == 0) {
		fprintf(stderr, "fuzz_rpc: cannot read %s (set LSW_FUZZ_CONFIG)\n", path);
		exit(1);
	}
	fclose(f);
	text[n] = '\0';
	ts = t_switch_new(text);
	sw = &ts->sw;
	/* What lsw's setup() has and the harness leaves out: running ports, the clear baseline
	 * of the MMU counters, the drop snapshot store, the server switch.info reports on. */
	if (t_start_ports(ts) != 0) {
		fprintf(stderr, "fuzz_rpc: cannot start the net_null ports\n");
		exit(1);
	}
	sw->buffer_base = rte_zmalloc("fuzz_mmu_base", sizeof(*sw->buffer_base), 0);
	if (sw->buffer_base == NULL || lsw_dropsnap_init(sw) != 0) {
		fprintf(stderr, "fuzz_rpc: out of memory\n");
		exit(1);
	}
	snprintf(sw->rpc_path, sizeof(sw->rpc_path), "%s/lsw-fuzz-%d.sock",
		 getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp", (int)getpid());
	snprintf(sw->config_path, sizeof(sw->config_path), "%s", path);
	sw->rpc = lsw_rpc_server_create(sw, sw->rpc_path, &lim, err, sizeof(err));
	if (sw->rpc == NULL) {
		fprintf(stderr, "fuzz_rpc: %s\n", err);
		exit(1);
	}
	/* Nobody connects: the names can go now, so that a crash leaves nothing behind. */
	snprintf(err, sizeof(err), "%s.lock", sw->rpc_path);
	unlink(sw->rpc_path);
	unlink(err);
	atexit(cleanup);
	sw->start_ns = lsw_now_ns();
	seed_drops();
	snaps = sw->dropsnaps.n;
	mbufs = rte_mempool_avail_count(t_pool());
	initial = json_deep_copy(sw->cfg->doc);
	dpdk_heap(&heap_count, &heap_bytes);
	heap_ecmp = ecmp_slots();
	return 0;
}

static void __attribute__((noreturn))
bug(const char *what, const char *req, size_t req_len, const json_t *resp)
{
	char *r = resp ? json_dumps(resp, JSON_COMPACT) : NULL;

	fprintf(stderr, "fuzz_rpc: %s\n  request:  %.*s\n  response: %s\n", what,
		(int)RTE_MIN(req_len, (size_t)4096), req, r ? r : "(none)");
	free(r);
	abort();
}

static bool
usable_id(const json_t *id)
{
	return json_is_string(id) || json_is_number(id) || json_is_null(id);
}

/* A well-formed notification (JSON-RPC 2.0, 4.1): a request object without an id. */
static bool
is_notification(json_t *r)
{
	const char *k;
	json_t *v;

	if (!json_is_object(r) || json_object_get(r, "id") != NULL)
		return false;
	json_object_foreach(r, k, v) {
		if (strcmp(k, "jsonrpc") != 0 && strcmp(k, "method") != 0 &&
		    strcmp(k, "params") != 0)
			return false;
	}
	v = json_object_get(r, "jsonrpc");
	if (!json_is_string(v) || strcmp(json_string_value(v), "2.0") != 0)
		return false;
	v = json_object_get(r, "params");
	return json_is_string(json_object_get(r, "method")) &&
	       (v == NULL || json_is_object(v) || json_is_array(v));
}

/* JSON-RPC 2.0's codes but INTERNAL_ERROR, or one of the server's own (-32099..-32000). */
static bool
known_code(json_int_t c)
{
	return c == LSW_RPC_PARSE_ERROR || c == LSW_RPC_INVALID_REQUEST ||
	       c == LSW_RPC_METHOD_NOT_FOUND || c == LSW_RPC_INVALID_PARAMS ||
	       (c >= -32099 && c <= -32000);
}

/* NULL when @resp is a well-formed JSON-RPC 2.0 response, else what is wrong with it. */
static const char *
bad_response(json_t *resp)
{
	json_t *v = json_object_get(resp, "jsonrpc"), *err = json_object_get(resp, "error");
	json_t *data, *errs, *e;
	size_t i;

	if (!json_is_object(resp))
		return "a response is not an object";
	if (!json_is_string(v) || strcmp(json_string_value(v), "2.0") != 0)
		return "a response lacks \"jsonrpc\": \"2.0\"";
	if (!usable_id(json_object_get(resp, "id")))
		return "a response lacks a string, number or null id";
	if ((json_object_get(resp, "result") != NULL) == (err != NULL))
		return "a response has not exactly one of result and error";
	if (json_object_size(resp) != 3)
		return "a response has other members than jsonrpc, id, result/error";
	if (err == NULL)
		return NULL;
	v = json_object_get(err, "code");
	if (!json_is_object(err) || !json_is_integer(v) ||
	    !json_is_string(json_object_get(err, "message")))
		return "an error lacks an integer code or a string message";
	if (json_integer_value(v) == LSW_RPC_INTERNAL_ERROR)
		return "INTERNAL_ERROR: a handler failed without an error, or no answer was built";
	if (!known_code(json_integer_value(v)))
		return "an error code outside JSON-RPC's and the server error range";
	data = json_object_get(err, "data");
	if (json_object_size(err) != (data ? 3u : 2u))
		return "an error has other members than code, message, data";
	if (data == NULL)
		return NULL;
	/* error.data.errors: what lsw_rpc_fail's callers gathered, one {path, message} each. */
	errs = json_object_get(data, "errors");
	if (!json_is_object(data) || !json_is_array(errs) || json_array_size(errs) == 0)
		return "error.data is not {\"errors\": [at least one]}";
	json_array_foreach(errs, i, e) {
		const char *p = json_string_value(json_object_get(e, "path"));
		if (p == NULL || p[0] != '$' ||
		    !json_is_string(json_object_get(e, "message")))
			return "an error.data.errors entry lacks a $-path or a message";
	}
	return NULL;
}

/* What the answer to request @r must be: none (a notification), one with its id, or an
 * Invalid Request error with a null id (not a request, or an id of the wrong type). */
enum expect { EXP_NONE, EXP_ID, EXP_INVALID };

static enum expect
expect(json_t *r)
{
	json_t *id = json_object_get(r, "id");

	if (!json_is_object(r))
		return EXP_INVALID;
	if (id != NULL)
		return usable_id(id) ? EXP_ID : EXP_INVALID;
	return is_notification(r) ? EXP_NONE : EXP_INVALID;
}

static bool
is_method(json_t *r, const char *name)
{
	const char *m = json_string_value(json_object_get(r, "method"));

	return m != NULL && strcmp(m, name) == 0;
}

/* May the config document have changed, given request @r and its response (NULL: none)? */
static bool
may_change_doc(json_t *r, json_t *resp)
{
	json_t *err = json_object_get(resp, "error");
	size_t i;

	for (i = 0; i < RTE_DIM(writers) && !is_method(r, writers[i]); i++)
		;
	if (i == RTE_DIM(writers))
		return false;
	if (resp == NULL || err == NULL)
		return true;
	/* A port that refused its new MTU: the document says what each port really has. */
	return json_integer_value(json_object_get(err, "code")) == LSW_RPC_ERR_DEVICE;
}

/* @resp must be an error @code with a null id. */
static void
check_error(json_t *resp, int code, const char *req, size_t len)
{
	const char *why;

	if (resp == NULL)
		bug("a request was not answered", req, len, NULL);
	if ((why = bad_response(resp)) != NULL)
		bug(why, req, len, resp);
	if (!json_is_null(json_object_get(resp, "id")) ||
	    json_integer_value(json_object_get(json_object_get(resp, "error"), "code")) != code)
		bug("not a request, and not answered with the right error and a null id", req,
		    len, resp);
}

/* Check the response to one request @r (not a batch); returns may_change_doc. */
static bool
check_one(json_t *r, json_t *resp, const char *req, size_t len)
{
	const char *why;

	if ((why = bad_response(resp)) != NULL)
		bug(why, req, len, resp);
	switch (expect(r)) {
	case EXP_ID:
		if (!json_equal(json_object_get(resp, "id"), json_object_get(r, "id")))
			bug("a response does not carry its request's id", req, len, resp);
		break;
	case EXP_INVALID:
		check_error(resp, LSW_RPC_INVALID_REQUEST, req, len);
		break;
	case EXP_NONE:
		bug("a notification was answered", req, len, resp);
	}
	return may_change_doc(r, resp);
}

/* Check what lsw_rpc_handle answered to @v; returns whether the config may have changed. */
static bool
check_answer(json_t *v, json_t *resp, const char *req, size_t len)
{
	bool change = false;
	size_t i, j = 0;
	json_t *r;

	if (!json_is_array(v)) {
		if (resp == NULL) {
			if (expect(v) != EXP_NONE)
				bug("a request was not answered", req, len, NULL);
			return may_change_doc(v, NULL);
		}
		return check_one(v, resp, req, len);
	}
	if (json_array_size(v) == 0) {
		/* An empty batch is one invalid request (JSON-RPC 2.0, 6). */
		if (resp == NULL || json_is_array(resp))
			bug("an empty batch did not get a single error", req, len, resp);
		return check_one(v, resp, req, len);
	}
	if (resp != NULL && (!json_is_array(resp) || json_array_size(resp) == 0))
		bug("a batch was not answered with a non-empty array", req, len, resp);
	json_array_foreach(v, i, r) {
		if (expect(r) == EXP_NONE) {
			change |= may_change_doc(r, NULL);
			continue;
		}
		if (resp == NULL || j == json_array_size(resp))
			bug("a request in a batch was not answered", req, len, resp);
		change |= check_one(r, json_array_get(resp, j++), req, len);
	}
	if (resp != NULL && j != json_array_size(resp))
		bug("a batch got more responses than it has requests", req, len, resp);
	return change;
}

/* The answer as the server sends it: compact JSON and a newline, which must be the only one,
 * and which a client parses back to the same value. */
static void
check_serialised(json_t *resp, const char *req, size_t len)
{
	char *txt = json_dumps(resp, JSON_COMPACT);
	json_error_t je;
	json_t *back;

	if (txt == NULL)
		bug("the response does not serialise", req, len, resp);
	if (strchr(txt, '\n') != NULL)
		bug("the serialised response holds a newline", req, len, resp);
	back = json_loads(txt, JSON_REJECT_DUPLICATES, &je);
	if (back == NULL || !json_equal(back, resp))
		bug("the serialised response does not parse back to itself", req, len, resp);
	if (print_answers)
		fprintf(stderr, "%s\n", txt);
	json_decref(back);
	free(txt);
}

static bool
has_skipped_method(json_t *v)
{
	size_t i;
	json_t *r;

	if (json_is_array(v)) {
		json_array_foreach(v, i, r) {
			if (has_skipped_method(r))
				return true;
		}
		return false;
	}
	for (size_t k = 0; k < RTE_DIM(skipped); k++)
		if (is_method(v, skipped[k].method) &&
		    (skipped[k].param == NULL ||
		     json_object_get(json_object_get(v, "params"), skipped[k].param) != NULL))
			return true;
	return false;
}

/* Parse, dispatch and check one framed request; -1 when it names a skipped method. */
static int
one_request(const char *p, size_t end, bool framed)
{
	json_error_t je;
	json_t *v, *resp;
	char *before, *after;
	bool change = false;

	v = json_loadb(p, end, framed ? JSON_REJECT_DUPLICATES : JSON_DECODE_ANY, &je);
	if (v != NULL && has_skipped_method(v)) {
		json_decref(v);
		return -1;
	}
	before = json_dumps(sw->cfg->doc, JSON_COMPACT | JSON_SORT_KEYS);
	if (v == NULL || !framed) {
		/* The server's own answers: send_error() in rpc_server.c. */
		int code = v == NULL ? LSW_RPC_PARSE_ERROR : LSW_RPC_INVALID_REQUEST;
		resp = lsw_rpc_error_response(NULL, code, v == NULL ? je.text :
					      LSW_RPC_MSG_NOT_A_REQUEST, NULL);
		check_error(resp, code, p, end);
	} else {
		resp = lsw_rpc_handle(sw, v);
		change = check_answer(v, resp, p, end);
	}
	if (resp != NULL)
		check_serialised(resp, p, end);
	after = json_dumps(sw->cfg->doc, JSON_COMPACT | JSON_SORT_KEYS);
	if (before == NULL || after == NULL)
		bug("the running config document does not serialise", p, end, resp);
	if (strcmp(before, after) != 0) {
		struct lsw_errs errs = {0};
		struct lsw_config *c;
		if (!change)
			bug("the running config document changed, not by a method of writers[] "
			    "that succeeded", p, end, resp);
		c = lsw_config_from_json(sw->cfg->doc, &errs);
		if (c == NULL)
			bug("the running config document no longer validates", p, end, resp);
		lsw_config_free(c);
	}
	free(before);
	free(after);
	json_decref(resp);
	json_decref(v);
	return 0;
}

/* Back to the starting config, the way config.set would take it there. */
static void
restore(void)
{
	struct lsw_errs errs = {0};
	struct lsw_config *n;
	json_t *doc;

	if (json_equal(sw->cfg->doc, initial))
		return;
	doc = json_deep_copy(initial); /* the config keeps it, and port.set writes into it */
	n = lsw_config_from_json(doc, &errs);
	json_decref(doc);
	if (n != NULL)
		lsw_config_hot_check(sw->cfg, n, rte_pktmbuf_data_room_size(sw->dp.pool) -
				     RTE_PKTMBUF_HEADROOM, &errs);
	if (n == NULL || errs.n != 0) {
		char *cur = json_dumps(sw->cfg->doc, JSON_COMPACT);
		fprintf(stderr, "fuzz_rpc: the starting config cannot be applied back over\n  %s\n",
			cur);
		for (unsigned int i = 0; i < errs.n && i < LSW_ERRS_MAX; i++)
			fprintf(stderr, "  %s: %s\n", errs.e[i].path, errs.e[i].msg);
		free(cur);
		abort();
	}
	if (lsw_config_apply(sw, n) != 0) {
		fprintf(stderr, "fuzz_rpc: applying the starting config back failed\n");
		abort();
	}
}

/* As conn_process() in control/rpc/rpc_server.c (the same lsw_rpc_next), with a check after
 * each request. What is left unframed at the end is a partial request, which the server
 * drops at end of input. */
int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *in = (const char *)data;
	uint64_t count, bytes;
	size_t off = 0;
	int rc = 0;

	while (rc == 0) {
		size_t skip, end;
		bool framed, whole = lsw_rpc_next(in + off, size - off, &skip, &end, &framed);
		const char *p = in + off + skip;
		if (!whole)
			break;
		if (framed && (end > size - off - skip ||
			       (p[end - 1] != '}' && p[end - 1] != ']' && p[end - 1] != '{' &&
				p[end - 1] != '[')))
			bug("lsw_rpc_frame ended a request inside it", p, size - off - skip, NULL);
		rc = one_request(p, end, framed);
		off += skip + end;
	}
	restore();
	/* drops.clear, or a new store size: the snapshots again, for the next input. */
	if (sw->dropsnaps.n != snaps) {
		lsw_dropsnap_clear(sw);
		seed_drops();
	}
	if (rte_mempool_avail_count(t_pool()) != mbufs) {
		fprintf(stderr, "fuzz_rpc: %u mbufs in the pool, not %u\n",
			rte_mempool_avail_count(t_pool()), mbufs);
		abort();
	}
	dpdk_heap(&count, &bytes);
	/* A next-hop group's ECMP counters stay allocated after the group is gone, for the
	 * next group of that id (ecmp.c): a new one is no leak, and the baseline moves. */
	if (ecmp_slots() != heap_ecmp) {
		heap_ecmp = ecmp_slots();
		heap_count = count;
		heap_bytes = bytes;
	}
	if (count != heap_count || bytes != heap_bytes) {
		fprintf(stderr, "fuzz_rpc: DPDK's heap holds %" PRIu64 " blocks, %" PRIu64 " bytes "
			"after the starting config came back, not %" PRIu64 ", %" PRIu64 "\n",
			count, bytes, heap_count, heap_bytes);
		abort();
	}
	return rc;
}
