/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The timeline recorder, control side (include/lsw/timeline.h): a run starts by creating the
 * workers' rings and publishing a snapshot that tells them what to record; the main loop
 * drains the rings every millisecond, turns each record's TSC into Unix nanoseconds, and
 * appends it to the file or to the memory window; a run stops on timeline.stop, at its
 * duration or size, on a write error or at shutdown, after a snapshot that turns the workers
 * off and a last drain.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <rte_cycles.h>
#include <rte_ring_elem.h>
#include "lsw/log.h"
#include "rpc.h"
#include "switch.h"

const char *const lsw_tl_what_names[] = {
#define LSW_TL_WHAT_NAME(k, name) name,
	LSW_FOREACH_TL_WHAT(LSW_TL_WHAT_NAME)
#undef LSW_TL_WHAT_NAME
	NULL
};

static const struct {
	const char *name;
	const char *field[7];
} kinds[LSW_TL_KIND_MAX] = {
#define LSW_TL_KIND_ROW(k, name, f0, f1, f2, f3, f4, f5, f6) \
	[LSW_TL_##k] = {name, {f0, f1, f2, f3, f4, f5, f6}},
	LSW_FOREACH_TL_KIND(LSW_TL_KIND_ROW)
#undef LSW_TL_KIND_ROW
};

#define MEMORY_DEFAULT (64ull << 20)
#define FILE_DEFAULT   (1ull << 30)

static json_t *
names_of_mask(uint64_t mask, const char *(*name)(const struct lsw_switch *, unsigned int),
	      const struct lsw_switch *sw, unsigned int n)
{
	json_t *a = json_array();

	for (unsigned int i = 0; i < n; i++)
		if (mask >> i & 1)
			json_array_append_new(a, json_string(name(sw, i)));
	return a;
}

static const char *
port_name(const struct lsw_switch *sw, unsigned int i)
{
	return sw->cfg->port[i].name;
}

static const char *
what_name(const struct lsw_switch *sw, unsigned int i)
{
	RTE_SET_USED(sw);
	return lsw_tl_what_names[i];
}

/* The file's first two lines: a magic line, then what a reader needs, as one JSON line. */
static char *
header(const struct lsw_switch *sw)
{
	const struct lsw_timeline_ctl *t = &sw->tl;
	json_t *all = json_array(), *k = json_array(), *speed = json_array();

	for (uint16_t i = 0; i < sw->cfg->n_ports; i++) {
		json_array_append_new(all, json_string(sw->cfg->port[i].name));
		json_array_append_new(speed, json_integer(sw->port[i].speed));
	}
	for (int i = 0; i < LSW_TL_KIND_MAX; i++) {
		json_t *f = json_array();
		for (int j = 0; j < 7; j++)
			json_array_append_new(f, json_string(kinds[i].field[j]));
		json_array_append_new(k, json_pack("{s:s, s:o}", "name", kinds[i].name,
						   "fields", f));
	}
	json_t *h = json_pack("{s:s, s:i, s:i, s:I, s:I, s:o, s:o, s:o, s:o, s:o, s:s}",
		"format", "lsw timeline", "version", 1,
		"record_size", (int)sizeof(struct lsw_tl_rec),
		"start_ns", (json_int_t)t->start_wall_ns,
		"interval_ns", (json_int_t)t->interval_us * 1000,
		"ports", all, "speed_mbps", speed,
		"sampled", names_of_mask(t->ports, port_name, sw, sw->cfg->n_ports),
		"record", names_of_mask(t->what, what_name, sw, LSW_TL_WHAT_MAX), "kinds", k,
		"lsw_version", LSW_VERSION);
	char *js = json_dumps(h, JSON_COMPACT);
	json_decref(h);
	if (js == NULL)
		return NULL;
	size_t n = strlen(js) + 32;
	char *out = malloc(n);
	if (out != NULL)
		snprintf(out, n, "LSWTIMELINE 1\n%s\n", js);
	free(js);
	return out;
}

/* The memory window's records, oldest first, in a file of the timeline format. */
static int
write_memory(const struct lsw_switch *sw, FILE *f)
{
	const struct lsw_timeline_ctl *t = &sw->tl;
	size_t first = t->mem_n < t->mem_cap ? 0 : t->mem_head;
	size_t n1 = RTE_MIN(t->mem_n, t->mem_cap - first);

	if (fputs(t->header, f) == EOF ||
	    fwrite(t->mem + first, sizeof(*t->mem), n1, f) != n1 ||
	    fwrite(t->mem, sizeof(*t->mem), t->mem_n - n1, f) != t->mem_n - n1)
		return -1;
	return 0;
}

/* Keep @n records: append them to the file (up to the size limit: the run is then full), or
 * to the memory window, the oldest overwritten. */
static void
drain(struct lsw_switch *sw)
{
	struct lsw_tl_rec buf[256];
	unsigned int n;

	for (uint16_t w = 0; w < sw->dp.n_workers; w++) {
		struct rte_ring *r = sw->dp.timeline[w];
		while (r != NULL && (n = rte_ring_sc_dequeue_burst_elem(r, buf, sizeof(buf[0]),
									RTE_DIM(buf), NULL)) > 0) {
			for (unsigned int i = 0; i < n; i++)
				buf[i].t = lsw_clock_wall_ns(&sw->clock, buf[i].t);
			lsw_timeline_out(sw, buf, n);
		}
		/* What a worker could not record, as a record where the gap is. */
		uint64_t lost = lsw_stats_event(sw, w, LSW_EV_TIMELINE_LOST);
		if (lost != sw->tl.lost_seen[w]) {
			struct lsw_tl_rec l = {
				.t = lsw_clock_wall_ns(&sw->clock, rte_rdtsc()),
				.kind = LSW_TL_LOST,
				.port = LSW_TL_NONE, .idx = (uint8_t)w,
				.v[0] = lost - sw->tl.lost_seen[w],
			};
			sw->tl.lost += l.v[0];
			sw->tl.lost_seen[w] = lost;
			lsw_timeline_out(sw, &l, 1);
		}
	}
}

static int
rings_create(struct lsw_switch *sw)
{
	char name[RTE_RING_NAMESIZE];

	for (uint16_t w = 0; w < sw->dp.n_workers; w++) {
		if (sw->dp.timeline[w] != NULL)
			continue;
		snprintf(name, sizeof(name), "lsw_tl_%u", w);
		sw->dp.timeline[w] = rte_ring_create_elem(name, sizeof(struct lsw_tl_rec),
							  LSW_TL_RING, SOCKET_ID_ANY,
							  RING_F_SP_ENQ | RING_F_SC_DEQ |
							  RING_F_EXACT_SZ);
		if (sw->dp.timeline[w] == NULL)
			return -1;
	}
	return 0;
}

json_t *
lsw_timeline_start(struct lsw_switch *sw, const struct lsw_timeline_req *q,
		   struct lsw_rpc_error *e)
{
	struct lsw_timeline_ctl *t = &sw->tl;
	FILE *fp = NULL;

	if (t->running) {
		lsw_rpc_fail(e, LSW_RPC_ERR_BUSY, "a timeline is running: timeline.stop first");
		return NULL;
	}
	uint64_t max = q->max_bytes ? q->max_bytes : q->file[0] ? FILE_DEFAULT : MEMORY_DEFAULT;
	if (max < sizeof(struct lsw_tl_rec)) {
		lsw_errs_add(&e->errs, "$.params.max_bytes", "at least one record (%zu bytes)",
			     sizeof(struct lsw_tl_rec));
		return lsw_rpc_invalid(e);
	}
	if (q->file[0] && (fp = fopen(q->file, "wb")) == NULL) {
		lsw_errs_add(&e->errs, "$.params.file", "cannot write %s: %s", q->file,
			     strerror(errno));
		return lsw_rpc_invalid(e);
	}
	struct lsw_tl_rec *mem = NULL;
	if (fp == NULL && (mem = malloc(max / sizeof(*mem) * sizeof(*mem))) == NULL)
		return lsw_rpc_nomem(e);
	if (rings_create(sw) != 0) {
		if (fp != NULL)
			fclose(fp);
		free(mem);
		return lsw_rpc_nomem(e);
	}
	free(t->mem);
	free(t->header);
	uint32_t gen = t->gen + 1;
	*t = (struct lsw_timeline_ctl){
		.what = q->what, .ports = q->ports & (uint32_t)((1ull << sw->cfg->n_ports) - 1),
		.gen = gen, .interval_us = q->interval_us, .max_bytes = max,
		.duration_ns = q->duration_ms * 1000000, .fp = fp, .mem = mem,
		.mem_cap = max / sizeof(*mem), .start_ns = lsw_now_ns(),
		.start_wall_ns = lsw_clock_wall_ns(&sw->clock, rte_rdtsc()),
	};
	snprintf(t->file, sizeof(t->file), "%s", q->file);
	for (uint16_t w = 0; w < sw->dp.n_workers; w++) {
		t->lost_seen[w] = lsw_stats_event(sw, w, LSW_EV_TIMELINE_LOST);
		t->skipped_base += lsw_stats_event(sw, w, LSW_EV_TIMELINE_SKIPPED);
	}
	t->header = header(sw);
	if (t->header == NULL || (fp != NULL && fputs(t->header, fp) == EOF)) {
		lsw_rpc_fail(e, LSW_RPC_ERR_IO, "cannot write %s", q->file);
		goto fail;
	}
	t->running = true;
	if (lsw_snapshot_refresh(sw) != 0) {
		t->running = false;
		lsw_rpc_nomem(e);
		goto fail;
	}
	LSW_LOG(INFO, "timeline started: %s, every %u us", fp ? t->file : "memory",
		t->interval_us);
	return lsw_timeline_status(sw);
fail:
	if (fp != NULL)
		fclose(fp);
	t->fp = NULL;
	return NULL;
}

void
lsw_timeline_stop(struct lsw_switch *sw, const char *reason)
{
	struct lsw_timeline_ctl *t = &sw->tl;

	if (!t->running)
		return;
	t->running = false;
	/* Workers that no longer run read no snapshot: their rings hold all they wrote. After
	 * the publish's grace period no worker records any more. */
	if (sw->workers_running && lsw_snapshot_refresh(sw) != 0)
		LSW_LOG(ERR, "timeline: no memory to turn the workers' recorder off");
	drain(sw);
	for (uint16_t w = 0; w < sw->dp.n_workers; w++)
		t->skipped += lsw_stats_event(sw, w, LSW_EV_TIMELINE_SKIPPED);
	t->skipped -= t->skipped_base;
	t->stop_ns = lsw_now_ns();
	t->stop_reason = t->write_errno ? "write error" : reason;
	if (t->fp != NULL) {
		if (fclose(t->fp) != 0 && t->write_errno == 0)
			t->write_errno = errno;
		t->fp = NULL;
	}
	if (t->write_errno)
		LSW_LOG(ERR, "timeline: %s: %s", t->file, strerror(t->write_errno));
	LSW_LOG(INFO, "timeline stopped (%s): %" PRIu64 " records, %" PRIu64 " lost",
		t->stop_reason, t->records, t->lost);
}

void
lsw_timeline_drain(struct lsw_switch *sw)
{
	struct lsw_timeline_ctl *t = &sw->tl;

	if (!t->running)
		return;
	drain(sw);
	if (t->write_errno)
		lsw_timeline_stop(sw, "write error");
	else if (t->full)
		lsw_timeline_stop(sw, "size");
	else if (t->duration_ns && lsw_now_ns() - t->start_ns >= t->duration_ns)
		lsw_timeline_stop(sw, "duration");
}

int
lsw_timeline_save(struct lsw_switch *sw, const char *path, char *err, size_t errlen)
{
	FILE *f = fopen(path, "wb");

	if (f == NULL) {
		snprintf(err, errlen, "cannot write %s: %s", path, strerror(errno));
		return -1;
	}
	int rc = write_memory(sw, f);
	if (fclose(f) != 0)
		rc = -1;
	if (rc != 0)
		snprintf(err, errlen, "cannot write %s: %s", path, strerror(errno));
	return rc;
}

json_t *
lsw_timeline_status(const struct lsw_switch *sw)
{
	const struct lsw_timeline_ctl *t = &sw->tl;
	uint64_t skipped = 0;

	if (t->gen == 0)
		return json_pack("{s:b}", "running", false);
	for (uint16_t w = 0; w < sw->dp.n_workers; w++)
		skipped += lsw_stats_event(sw, w, LSW_EV_TIMELINE_SKIPPED);
	uint64_t end = t->running ? lsw_now_ns() : t->stop_ns;
	json_t *s = json_pack("{s:b, s:s, s:s?, s:o, s:i, s:o, s:I, s:I, s:I, s:I, s:I, s:I, s:I,"
			      " s:I, s:s?}",
		"running", t->running, "target", t->file[0] ? "file" : "memory",
		"file", t->file[0] ? t->file : NULL,
		"ports", names_of_mask(t->ports, port_name, sw, sw->cfg->n_ports),
		"interval_us", (int)t->interval_us,
		"record", names_of_mask(t->what, what_name, sw, LSW_TL_WHAT_MAX),
		"start_ns", (json_int_t)t->start_wall_ns,
		"elapsed_ms", (json_int_t)((end - t->start_ns) / 1000000),
		"duration_ms", (json_int_t)(t->duration_ns / 1000000),
		"max_bytes", (json_int_t)t->max_bytes,
		"records", (json_int_t)t->records, "bytes", (json_int_t)t->bytes,
		"lost", (json_int_t)t->lost,
		"skipped", (json_int_t)(t->running ? skipped - t->skipped_base : t->skipped),
		"stop_reason", t->running ? NULL : t->stop_reason);
	return s;
}

void
lsw_timeline_free(struct lsw_switch *sw)
{
	lsw_timeline_stop(sw, "shutdown");
	for (uint16_t w = 0; w < LSW_MAX_WORKERS; w++) {
		rte_ring_free(sw->dp.timeline[w]);
		sw->dp.timeline[w] = NULL;
	}
	free(sw->tl.mem);
	free(sw->tl.header);
	sw->tl.mem = NULL;
	sw->tl.header = NULL;
}
