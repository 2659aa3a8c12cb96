/* SPDX-License-Identifier: BSD-3-Clause */
/* capture.start, capture.stop and capture.list: live capture to pcapng (capture.c). */
#include <inttypes.h>
#include <limits.h>
#include <string.h>
#include "capture.h"
#include "jsonv.h"
#include "rpc.h"
#include "switch.h"

/* A string member kept as a pointer into the params (alive while the method runs). */
static bool
str_param(const struct lsw_field *f, json_t *v, const char *path, void *out, void *ctx,
	  struct lsw_errs *errs)
{
	RTE_SET_USED(ctx);
	return lsw_jv_str(v, path, (size_t)f->max, (const char **)((char *)out + f->off), errs);
}

static bool
file_param(const struct lsw_field *f, json_t *v, const char *path, void *out, void *ctx,
	   struct lsw_errs *errs)
{
	const char **p = (const char **)((char *)out + f->off);

	if (!str_param(f, v, path, out, ctx, errs))
		return false;
	if ((*p)[0] == '/')
		return true;
	lsw_errs_add(errs, path, "an absolute path, please (lsw's working directory is not "
		     "the client's)");
	return false;
}

#define AT(m) LSW_AT(struct lsw_capture_req, m)
static const struct lsw_field start_rows[] = {
	LSW_RPC_PORT_ROW_REQUIRED(struct lsw_capture_req, port),
	{.name = "direction", .type = LSW_F_ENUM, AT(dir), .choices = lsw_capture_dir_names,
	 .dflt = 2, .doc = "rx|tx|both"},
	{.name = "filter", .type = LSW_F_CUSTOM, .off = offsetof(struct lsw_capture_req, filter),
	 .fn = str_param, .max = LSW_CAPTURE_FILTER_MAX, .doc = "string (tcpdump syntax)"},
	{.name = "snaplen", .type = LSW_F_UINT, AT(snaplen), .min = 1,
	 .max = LSW_CAPTURE_SNAPLEN_MAX, .dflt = LSW_CAPTURE_SNAPLEN_MAX, .doc = "integer"},
	{.name = "count", .type = LSW_F_UINT, AT(count), .max = UINT32_MAX,
	 .doc = "integer (0: no limit)"},
	{.name = "duration_ms", .type = LSW_F_UINT, AT(duration_ms), .max = 7 * 86400000u,
	 .doc = "integer (0: no limit)"},
	{.name = "file", .type = LSW_F_CUSTOM, .off = offsetof(struct lsw_capture_req, file),
	 .fn = file_param, .max = PATH_MAX - 1, .doc = "string (absolute path of the pcapng)",
	 .required = "the pcapng file to write, an absolute path"},
};
#undef AT
static const struct lsw_fields start_params = LSW_FIELDS(start_rows);

static json_t *
sess_json(struct lsw_switch *sw, const struct lsw_capture_sess *s)
{
	const bool running = s->state == LSW_CAPTURE_RUNNING;
	uint64_t end = running ? lsw_now_ns() : s->end_ns;
	const char *dir = lsw_capture_dir_names[s->dirs == LSW_CAPTURE_DIR_BOTH ? 2 :
					       s->dirs == LSW_CAPTURE_DIR_TX];
	json_t *o = json_pack("{s:I, s:s, s:s, s:s?, s:I, s:I, s:I, s:s, s:s, s:I, s:I, s:I, "
			      "s:I, s:I}",
		"id", (json_int_t)s->id, "port", sw->cfg->port[s->port].name,
		"direction", dir, "filter", s->filter, "snaplen", (json_int_t)s->snaplen,
		"count", (json_int_t)s->count, "duration_ms", (json_int_t)s->duration_ms,
		"file", s->file, "state", running ? "running" : "done",
		"frames", (json_int_t)s->frames, "bytes", (json_int_t)s->bytes,
		"missed", (json_int_t)lsw_capture_missed(sw, s),
		"start_time_ns", (json_int_t)s->start_wall_ns,
		"elapsed_ms", (json_int_t)((end - s->start_ns) / 1000000));

	if (o == NULL)
		return NULL;
	json_object_set_new(o, "stopped_by", running ? json_null() :
			    json_string(lsw_capture_end_names[s->end]));
	if (s->error[0])
		json_object_set_new(o, "error", lsw_jv_text(s->error));
	return o;
}

static json_t *
capture_start(struct lsw_switch *sw, const void *args, struct lsw_rpc_error *e)
{
	uint32_t id = lsw_capture_start(sw, args, e);

	return id ? sess_json(sw, lsw_capture_find(sw, id)) : NULL;
}

static const struct lsw_rpc_method m_capture_start = {
	.name = "capture.start",
	.summary = "Capture a port's frames (rx, tx or both; tcpdump filter) into a pcapng file",
	.params = &start_params,
	.args_size = sizeof(struct lsw_capture_req),
	.fn = capture_start,
};
LSW_RPC_REGISTER(m_capture_start)

struct id_args {
	int64_t id;      /* -1: none given */
};

static const struct lsw_field stop_rows[] = {
	{.name = "id", .type = LSW_F_UINT, LSW_AT(struct id_args, id), .min = 1,
	 .max = UINT32_MAX, .dflt = -1, .doc = "integer", .required = "a capture session's id"},
};
static const struct lsw_fields stop_params = LSW_FIELDS(stop_rows);

static const struct lsw_field list_rows[] = {
	{.name = "id", .type = LSW_F_UINT, LSW_AT(struct id_args, id), .min = 1,
	 .max = UINT32_MAX, .dflt = -1, .doc = "integer"},
};
static const struct lsw_fields list_params = LSW_FIELDS(list_rows);

static struct lsw_capture_sess *
find(struct lsw_switch *sw, int64_t id, struct lsw_rpc_error *e)
{
	struct lsw_capture_sess *s = lsw_capture_find(sw, (uint32_t)id);

	if (s == NULL) {
		lsw_errs_add(&e->errs, "$.params.id", "no capture session %" PRId64
			     " (capture.list shows the last %d)", id, LSW_CAPTURE_KEEP);
		lsw_rpc_invalid(e);
	}
	return s;
}

static json_t *
capture_stop(struct lsw_switch *sw, const void *args, struct lsw_rpc_error *e)
{
	struct lsw_capture_sess *s = find(sw, ((const struct id_args *)args)->id, e);

	if (s == NULL)
		return NULL;
	lsw_capture_poll(sw, lsw_now_ns()); /* a session at its limit ends by itself first */
	if (lsw_capture_stop(sw, s, LSW_CAPTURE_END_STOP) != 0)
		return lsw_rpc_nomem(e);
	return sess_json(sw, s);
}

static const struct lsw_rpc_method m_capture_stop = {
	.name = "capture.stop",
	.summary = "Stop a capture session: its last frames written, its file closed; its figures",
	.params = &stop_params,
	.args_size = sizeof(struct id_args),
	.fn = capture_stop,
};
LSW_RPC_REGISTER(m_capture_stop)

static json_t *
capture_list(struct lsw_switch *sw, const void *args, struct lsw_rpc_error *e)
{
	const int64_t id = ((const struct id_args *)args)->id;
	json_t *list = json_array();

	if (id >= 0 && find(sw, id, e) == NULL) {
		json_decref(list);
		return NULL;
	}
	lsw_capture_poll(sw, lsw_now_ns()); /* the frames written so far */
	/* Oldest first: by id (the entries are reused in any order). */
	for (uint32_t last = 0, next; sw->capture != NULL; last = next) {
		const struct lsw_capture_sess *s = NULL;
		next = UINT32_MAX;
		for (int i = 0; i < LSW_CAPTURE_KEEP; i++) {
			const struct lsw_capture_sess *c = &sw->capture->s[i];
			if (c->state != LSW_CAPTURE_FREE && c->id > last && c->id <= next) {
				next = c->id;
				s = c;
			}
		}
		if (s == NULL)
			break;
		if (id < 0 || s->id == id)
			json_array_append_new(list, sess_json(sw, s));
	}
	/* What the pools hold while the main loop is away: the figure a capture's rate needs. */
	return json_pack("{s:i, s:{s:I, s:i, s:i}, s:o}", "max_running", LSW_CAPTURE_MAX,
			 "buffer", "frames", (json_int_t)lsw_capture_big_n(sw),
			 "small", LSW_CAPTURE_SMALL_N, "small_bytes", LSW_CAPTURE_SMALL,
			 "sessions", list);
}

static const struct lsw_rpc_method m_capture_list = {
	.name = "capture.list",
	.summary = "Capture sessions, running and done: port, direction, filter, frames, missed",
	.params = &list_params,
	.args_size = sizeof(struct id_args),
	.fn = capture_list,
};
LSW_RPC_REGISTER(m_capture_list)
