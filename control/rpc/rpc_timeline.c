/* SPDX-License-Identifier: BSD-3-Clause */
/* timeline.start, timeline.stop, timeline.status and timeline.save (timeline.c). */
#include <string.h>
#include "jsonv.h"
#include "rpc.h"
#include "switch.h"

/* "ports": a list of port names, into a mask. */
static bool
ports_field(const struct lsw_field *f, json_t *v, const char *path, void *out, void *ctx,
	    struct lsw_errs *errs)
{
	uint32_t *mask = (uint32_t *)((char *)out + f->off);
	char at[LSW_PATH_LEN];
	size_t i;
	json_t *x;

	if (!json_is_array(v) || json_array_size(v) == 0) {
		lsw_errs_add(errs, path, "a non-empty list of port names");
		return false;
	}
	*mask = 0;
	json_array_foreach(v, i, x) {
		int port;
		lsw_path_index(at, path, i);
		if (!lsw_rpc_port_param(ctx, x, at, &port, errs))
			return false;
		*mask |= 1u << port;
	}
	return true;
}

/* "record": a list of what to record (lsw_tl_what_names), into LSW_TL_W bits. */
static bool
what_field(const struct lsw_field *f, json_t *v, const char *path, void *out, void *ctx,
	   struct lsw_errs *errs)
{
	uint8_t *what = (uint8_t *)((char *)out + f->off);
	char at[LSW_PATH_LEN];
	unsigned int bit;
	size_t i;
	json_t *x;

	RTE_SET_USED(ctx);
	if (!json_is_array(v) || json_array_size(v) == 0) {
		lsw_errs_add(errs, path, "a non-empty list of: queues, pgs, ports, pools, ecmp, "
			     "events");
		return false;
	}
	*what = 0;
	json_array_foreach(v, i, x) {
		lsw_path_index(at, path, i);
		if (!lsw_jv_enum(x, at, lsw_tl_what_names, &bit, errs))
			return false;
		*what |= (uint8_t)(1u << bit);
	}
	return true;
}

#define AT(m) LSW_AT(struct lsw_timeline_req, m)
static const struct lsw_field start_rows[] = {
	{.name = "ports", .type = LSW_F_CUSTOM, AT(ports), .dflt = UINT32_MAX, .fn = ports_field,
	 .doc = "[string]"},
	{.name = "interval_us", .type = LSW_F_UINT, AT(interval_us), .min = 10, .max = 1000000,
	 .dflt = 100, .doc = "integer"},
	{.name = "record", .type = LSW_F_CUSTOM, AT(what), .dflt = (1 << LSW_TL_WHAT_MAX) - 1,
	 .fn = what_field, .doc = "[queues|pgs|ports|pools|ecmp|events]"},
	{.name = "file", .type = LSW_F_STR, AT(file), .doc = "string"},
	{.name = "max_bytes", .type = LSW_F_SIZE, AT(max_bytes), .max = 1ull << 40,
	 .doc = "size"},
	{.name = "duration_ms", .type = LSW_F_UINT, AT(duration_ms), .max = 86400000ull * 365,
	 .doc = "integer"},
};
#undef AT
static const struct lsw_fields start_params = LSW_FIELDS(start_rows);

static json_t *
timeline_start(struct lsw_switch *sw, const void *args, struct lsw_rpc_error *e)
{
	const struct lsw_timeline_req *q = args;

	if (q->file[0] != '\0' && q->file[0] != '/') {
		lsw_errs_add(&e->errs, "$.params.file", "an absolute path (the switch's working "
			     "directory is not the caller's)");
		return lsw_rpc_invalid(e);
	}
	return lsw_timeline_start(sw, q, e);
}

static const struct lsw_rpc_method m_timeline_start = {
	.name = "timeline.start",
	.summary = "Record queues, PGs, ports, pools, ECMP every interval, and events, to a "
		   "file or a memory window",
	.params = &start_params,
	.args_size = sizeof(struct lsw_timeline_req),
	.fn = timeline_start,
};
LSW_RPC_REGISTER(m_timeline_start)

static json_t *
timeline_stop(struct lsw_switch *sw, const void *args, struct lsw_rpc_error *e)
{
	RTE_SET_USED(args);
	if (!sw->tl.running) {
		lsw_rpc_fail(e, LSW_RPC_ERR_BUSY, "no timeline is running");
		return NULL;
	}
	lsw_timeline_stop(sw, "rpc");
	return lsw_timeline_status(sw);
}

static const struct lsw_rpc_method m_timeline_stop = {
	.name = "timeline.stop",
	.summary = "Stop the running timeline: its last records written, its file closed",
	.fn = timeline_stop,
};
LSW_RPC_REGISTER(m_timeline_stop)

static json_t *
timeline_status(struct lsw_switch *sw, const void *args, struct lsw_rpc_error *e)
{
	RTE_SET_USED(args);
	RTE_SET_USED(e);
	return lsw_timeline_status(sw);
}

static const struct lsw_rpc_method m_timeline_status = {
	.name = "timeline.status",
	.summary = "The running timeline (or the last one): what, where, records, lost",
	.fn = timeline_status,
};
LSW_RPC_REGISTER(m_timeline_status)

struct save_args {
	char file[1024];
};

static const struct lsw_field save_rows[] = {
	{.name = "file", .type = LSW_F_STR, LSW_AT(struct save_args, file), .doc = "string",
	 .required = "the file to write"},
};
static const struct lsw_fields save_params = LSW_FIELDS(save_rows);

static json_t *
timeline_save(struct lsw_switch *sw, const void *args, struct lsw_rpc_error *e)
{
	const struct save_args *a = args;
	char err[256];

	if (a->file[0] != '/') {
		lsw_errs_add(&e->errs, "$.params.file", "an absolute path");
		return lsw_rpc_invalid(e);
	}
	if (sw->tl.mem == NULL) {
		lsw_rpc_fail(e, LSW_RPC_ERR_BUSY, "no memory timeline to save (timeline.start "
			     "without a file records one)");
		return NULL;
	}
	lsw_timeline_drain(sw); /* the window up to now */
	if (lsw_timeline_save(sw, a->file, err, sizeof(err)) != 0) {
		lsw_rpc_fail(e, LSW_RPC_ERR_IO, "%s", err);
		return NULL;
	}
	return json_pack("{s:s, s:I}", "file", a->file, "records", (json_int_t)sw->tl.mem_n);
}

static const struct lsw_rpc_method m_timeline_save = {
	.name = "timeline.save",
	.summary = "Write the memory window of the timeline (running or stopped) to a file",
	.params = &save_params,
	.args_size = sizeof(struct save_args),
	.fn = timeline_save,
};
LSW_RPC_REGISTER(m_timeline_save)
