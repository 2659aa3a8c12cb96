/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Buffer methods: buffer.pools, buffer.profiles, pg.stats, queue.stats, buffer.stats,
 * buffer.histogram, watermark.clear. Counter names are SAI's
 * (SAI_INGRESS_PRIORITY_GROUP_STAT_*, SAI_QUEUE_STAT_*, SAI_BUFFER_POOL_STAT_*).
 */
#include <stdlib.h>
#include "jsonv.h"
#include "rpc.h"
#include "switch.h"


static struct lsw_buffer_lcore *
buffer_view(struct lsw_switch *sw, struct lsw_rpc_error *e)
{
	struct lsw_buffer_lcore *v = lsw_stats_buffer(sw, false);

	if (v == NULL)
		lsw_rpc_nomem(e);
	return v;
}

static void
set_u64(json_t *o, const char *name, uint64_t v)
{
	json_object_set_new(o, name, json_integer((json_int_t)v));
}

/* The PG's (@queue false) or queue's current shared threshold under its pool's policy, from
 * the workers' live state (what admission would use now). */
static uint64_t
threshold_now(const struct lsw_switch *sw, bool queue, uint16_t port, uint8_t i)
{
	const struct lsw_snapshot *conf = sw->dp.conf;

	return queue ? lsw_buffer_q_limit(sw->dp.buffer, conf->n_workers, &conf->buffer, port, i) :
		       lsw_buffer_pg_limit(sw->dp.buffer, conf->n_workers, &conf->buffer, port, i);
}

static json_t *
buffer_pools(struct lsw_switch *sw, const void *args, struct lsw_rpc_error *e)
{
	const struct lsw_qos_conf *q = &sw->cfg->qos;
	const struct lsw_buffer_dp *mc = &sw->dp.conf->buffer;

	RTE_SET_USED(args);
	struct lsw_buffer_lcore *v = buffer_view(sw, e);
	if (v == NULL)
		return NULL;
	json_t *a = json_array();
	for (uint16_t i = 0; i < q->n_pools; i++) {
		const struct lsw_pool_conf *p = &q->pool[i];
		json_t *o = json_pack("{s:s, s:s, s:s, s:s, s:I, s:I, s:I, s:I, s:I, s:I, s:I}",
			"name", p->name, "type", lsw_pool_type_names[p->type],
			"mode", lsw_th_mode_names[p->mode],
			"policy", lsw_pool_policy_names[p->policy], "size", (json_int_t)p->size,
			"shared_size", (json_int_t)mc->pool[i].shared, "xoff", (json_int_t)p->xoff,
			"CURR_OCCUPANCY_BYTES", (json_int_t)v->use.pool_used[i],
			"SHARED_CURR_OCCUPANCY_BYTES", (json_int_t)v->use.pool_shared[i],
			"XOFF_ROOM_CURR_OCCUPANCY_BYTES", (json_int_t)v->use.pool_hdrm[i],
			"WATERMARK_BYTES", (json_int_t)v->wm.pool[i]);
#define POOL_CTR(name, f) set_u64(o, #name, v->ctr.pool_##f[i]);
		LSW_FOREACH_POOL_CTR(POOL_CTR)
#undef POOL_CTR
		json_array_append_new(a, o);
	}
	free(v);
	return a;
}

static const struct lsw_rpc_method m_buffer_pools = {
	.name = "buffer.pools",
	.summary = "Buffer pools: size, shared size, occupancy, watermark, drops",
	.fn = buffer_pools,
};
LSW_RPC_REGISTER(m_buffer_pools)

/* "Ethernet0|3-4" style keys for what uses profile @idx. */
static json_t *
profile_users(const struct lsw_config *c, uint16_t idx)
{
	json_t *a = json_array();
	char key[64];

	for (uint16_t p = 0; p < c->n_ports; p++)
		for (int pg = 0; pg < 2; pg++) {
			const uint16_t *b = pg ? c->qos.port[p].pg_profile :
					    c->qos.port[p].q_profile;
			for (int i = 0; i < 8; i++) {
				if (b[i] != idx)
					continue;
				int j = i;
				while (j + 1 < 8 && b[j + 1] == idx)
					j++;
				if (j > i)
					snprintf(key, sizeof(key), "%s %s|%d-%d",
						 pg ? "PG" : "QUEUE", c->port[p].name, i, j);
				else
					snprintf(key, sizeof(key), "%s %s|%d",
						 pg ? "PG" : "QUEUE", c->port[p].name, i);
				json_array_append_new(a, json_string(key));
				i = j;
			}
		}
	return a;
}

static json_t *
buffer_profiles(struct lsw_switch *sw, const void *args, struct lsw_rpc_error *e)
{
	const struct lsw_qos_conf *q = &sw->cfg->qos;

	RTE_SET_USED(args);
	RTE_SET_USED(e);
	json_t *a = json_array();
	for (uint16_t i = 0; i < q->n_profiles; i++) {
		const struct lsw_profile_conf *p = &q->profile[i];
		json_t *o = json_pack("{s:s, s:s, s:s, s:I, s:I, s:I, s:I, s:b, s:b, s:o, s:s}",
			"name", p->name, "pool", q->pool[p->pool].name,
			"mode", lsw_th_mode_names[p->mode],
			"size", (json_int_t)p->size, "xoff", (json_int_t)p->xoff,
			"xon", (json_int_t)p->xon, "xon_offset", (json_int_t)p->xon_offset,
			"lossless", p->xoff > 0, "computed", p->computed,
			"used_by", profile_users(sw->cfg, i),
			"packet_discard_action", lsw_discard_action_names[p->discard]);
		if (p->mode == LSW_TH_DYNAMIC)
			json_object_set_new(o, "dynamic_th", json_integer(p->dynamic_th));
		else
			json_object_set_new(o, "static_th", json_integer((json_int_t)p->static_th));
		json_array_append_new(a, o);
	}
	return a;
}

static const struct lsw_rpc_method m_buffer_profiles = {
	.name = "buffer.profiles",
	.summary = "Buffer profiles (computed headroom ones too) and the PGs/queues using them",
	.fn = buffer_profiles,
};
LSW_RPC_REGISTER(m_buffer_profiles)

static json_t *
pg_json(const struct lsw_switch *sw, const struct lsw_buffer_lcore *v, uint16_t p, int pg)
{
	const struct lsw_buffer_dp *mc = &sw->dp.conf->buffer;
	const int64_t *o = v->use.pg_occ[p][pg];
	const uint64_t *wm = v->wm.pg[p][pg];
	const struct lsw_prof_dp *pr = &mc->pg[p][pg];
	json_t *r = json_object();

#define PG_CTR(name, f) set_u64(r, #name, v->ctr.pg_##f[p][pg]);
	LSW_FOREACH_PG_CTR(PG_CTR)
#undef PG_CTR
	json_object_update_new(r, json_pack("{s:I, s:I, s:I, s:I, s:I, s:I, s:s, s:b, s:I}",
		"CURR_OCCUPANCY_BYTES", (json_int_t)(o[0] + o[1] + o[2]),
		"WATERMARK_BYTES", (json_int_t)wm[LSW_WM_TOTAL],
		"SHARED_CURR_OCCUPANCY_BYTES", (json_int_t)o[LSW_PART_SHARED],
		"SHARED_WATERMARK_BYTES", (json_int_t)wm[LSW_WM_SHARED],
		"XOFF_ROOM_CURR_OCCUPANCY_BYTES", (json_int_t)o[LSW_PART_HEADROOM],
		"XOFF_ROOM_WATERMARK_BYTES", (json_int_t)wm[LSW_WM_HEADROOM],
		"profile", sw->cfg->qos.profile[sw->cfg->qos.port[p].pg_profile[pg]].name,
		"lossless", pr->lossless,
		"threshold_bytes", (json_int_t)threshold_now(sw, false, p, (uint8_t)pg)));
	return r;
}

static json_t *
queue_json(const struct lsw_switch *sw, const struct lsw_buffer_lcore *v, uint16_t p, int q)
{
	const struct lsw_qos_conf *qc = &sw->cfg->qos;
	const int64_t *o = v->use.q_occ[p][q];
	const uint64_t *wm = v->wm.q[p][q], *dr = v->ctr.q_drop_reason[p][q];
	const struct lsw_fifo *f = &sw->dp.sched[p]->q[q];
	/* The owner moves the indexes; a slightly stale difference is fine here. The head
	 * first (published after the tail it passed): a tail read first could fall behind a
	 * head the owner moves meanwhile, and the difference would wrap to ~4 billion. */
	uint32_t head = lsw_acquire(&f->head);
	uint32_t pkts = lsw_load_relaxed(&f->tail) - head;
	const struct lsw_sched_conf *sc = &qc->sched[qc->port[p].q_sched[q]];
	uint16_t wr = qc->port[p].q_ecn[q];
	json_t *r = json_object(), *drops = json_object();
	uint64_t dropped = 0;

#define QUEUE_CTR(name, f) set_u64(r, #name, v->ctr.q_##f[p][q]);
	LSW_FOREACH_QUEUE_CTR(QUEUE_CTR)
#undef QUEUE_CTR
	for (int i = 0; i < LSW_QDROP_MAX; i++) {
		set_u64(drops, lsw_drop_name(lsw_qdrop_reason(i)), dr[i]);
		dropped += dr[i];
	}
	set_u64(r, "DROPPED_PACKETS", dropped);
	/* SAI's count of WRED drops is the WRED_DROP reason's. */
	set_u64(r, "WRED_DROPPED_PACKETS", dr[LSW_QDROP_WRED_DROP]);
	json_object_update_new(r, json_pack("{s:I, s:i, s:I, s:I, s:I, s:o, s:s, s:s, s:s, s:i,"
					    " s:I, s:s?}",
		"CURR_OCCUPANCY_BYTES", (json_int_t)(o[0] + o[1]),
		"CURR_OCCUPANCY_PACKETS", (int)pkts,
		"WATERMARK_BYTES", (json_int_t)wm[LSW_WM_TOTAL],
		"SHARED_CURR_OCCUPANCY_BYTES", (json_int_t)o[1],
		"SHARED_WATERMARK_BYTES", (json_int_t)wm[LSW_WM_SHARED],
		"drops", drops,
		"profile", qc->profile[qc->port[p].q_profile[q]].name,
		"scheduler", sc->name, "type", lsw_sched_type_names[sc->type],
		"weight", sc->weight, "threshold_bytes",
		(json_int_t)threshold_now(sw, true, p, (uint8_t)q),
		"wred_profile", wr == LSW_NONE ? NULL : qc->ecn[wr].name));
	/* ABM's inputs, as admission reads them now (fractions). */
	const struct lsw_snapshot *conf = sw->dp.conf;
	if (conf->buffer.pool[conf->buffer.q[p][q].pool].policy == LSW_POLICY_ABM) {
		struct lsw_abm_in a;
		lsw_buffer_abm_in(sw->dp.buffer, conf->n_workers, &conf->buffer, true, p,
				  (uint8_t)q, &a);
		json_object_set_new(r, "abm", json_pack("{s:f, s:f}",
			"n_p", RTE_MAX(a.np, LSW_ABM_ONE) / (double)LSW_ABM_ONE,
			"drain", a.drain / (double)LSW_ABM_ONE));
	}
	return r;
}

/* pg.stats and queue.stats: {"ports": {"Ethernet0": {"0": {...}, ... "7": {...}}}}. */
static json_t *
per_port(struct lsw_switch *sw, const void *args, struct lsw_rpc_error *e, bool pg)
{
	const int port = ((const struct lsw_rpc_port_args *)args)->port;
	struct lsw_buffer_lcore *v = buffer_view(sw, e);
	if (v == NULL)
		return NULL;
	json_t *ports = json_object();
	for (uint16_t p = 0; p < sw->cfg->n_ports; p++) {
		if (port >= 0 && p != port)
			continue;
		json_t *o = json_object();
		for (int i = 0; i < 8; i++) {
			char k[4];
			snprintf(k, sizeof(k), "%d", i);
			json_object_set_new(o, k, pg ? pg_json(sw, v, p, i) :
					    queue_json(sw, v, p, i));
		}
		json_object_set_new(ports, sw->cfg->port[p].name, o);
	}
	free(v);
	return json_pack("{s:I, s:o}", "timestamp_ns", (json_int_t)lsw_now_ns(), "ports", ports);
}

static json_t *
pg_stats(struct lsw_switch *sw, const void *args, struct lsw_rpc_error *e)
{
	return per_port(sw, args, e, true);
}

static json_t *
queue_stats(struct lsw_switch *sw, const void *args, struct lsw_rpc_error *e)
{
	return per_port(sw, args, e, false);
}

static const struct lsw_rpc_method m_pg_stats = {
	.name = "pg.stats",
	.summary = "Ingress priority groups: SAI counters, occupancy, headroom, watermarks",
	.params = &lsw_rpc_port_params,
	.args_size = sizeof(struct lsw_rpc_port_args),
	.fn = pg_stats,
};
LSW_RPC_REGISTER(m_pg_stats)

static const struct lsw_rpc_method m_queue_stats = {
	.name = "queue.stats",
	.summary = "Egress queues: SAI counters, occupancy, watermarks, drops by reason",
	.params = &lsw_rpc_port_params,
	.args_size = sizeof(struct lsw_rpc_port_args),
	.fn = queue_stats,
};
LSW_RPC_REGISTER(m_queue_stats)

/* Bytes of packets over bytes charged for @cell, from the exact length histogram. */
static double
efficiency(const uint64_t *len_hist, uint32_t cell, uint64_t *pkts_out)
{
	double bytes = 0, charged = 0;
	uint64_t pkts = 0;

	for (uint32_t l = 1; l <= LSW_MAX_FRAME; l++) {
		if (len_hist[l] == 0)
			continue;
		bytes += (double)l * (double)len_hist[l];
		charged += (double)((l + cell - 1) / cell * cell) * (double)len_hist[l];
		pkts += len_hist[l];
	}
	if (pkts_out)
		*pkts_out = pkts;
	return charged > 0 ? bytes / charged : 1.0;
}

struct histogram_args {
	double target;          /* efficiency the recommended cell keeps */
};

static bool
efficiency_param(const struct lsw_field *f, json_t *v, const char *path, void *out, void *ctx,
		 struct lsw_errs *errs)
{
	RTE_SET_USED(ctx);
	if (!json_is_number(v) || json_number_value(v) <= 0 || json_number_value(v) > 1) {
		lsw_errs_add(errs, path, "a number in (0, 1]");
		return false;
	}
	*(double *)((char *)out + f->off) = json_number_value(v);
	return true;
}

static const struct lsw_field histogram_rows[] = {
	{.name = "target_efficiency", .type = LSW_F_CUSTOM,
	 .off = offsetof(struct histogram_args, target), .fn = efficiency_param,
	 .doc = "number (0, 1], default 0.95"},
};
static const struct lsw_fields histogram_params = LSW_FIELDS(histogram_rows);

static json_t *
buffer_histogram(struct lsw_switch *sw, const void *args, struct lsw_rpc_error *e)
{
	static const uint32_t candidates[] = {
		32, 48, 64, 80, 96, 128, 144, 160, 176, 192, 208, 224, 240, 256, 288, 320, 384,
		416, 512, 1024, 2048, 4096, 4160, 8192,
	};
	const double given = ((const struct histogram_args *)args)->target;
	const double target = given > 0 ? given : 0.95;

	struct lsw_buffer_lcore *v = buffer_view(sw, e);
	if (v == NULL)
		return NULL;
	json_t *tcs = json_object();
	for (int tc = 0; tc < LSW_NUM_TC; tc++) {
		json_t *bins = json_array();
		uint64_t pkts = 0;
		for (int b = 0; b < LSW_HIST_BINS; b++) {
			json_array_append_new(bins, json_pack("{s:i, s:I}", "le", lsw_hist_bound[b],
				"packets", (json_int_t)v->ctr.tc_hist[tc][b]));
			pkts += v->ctr.tc_hist[tc][b];
		}
		char k[4];
		snprintf(k, sizeof(k), "%d", tc);
		json_object_set_new(tcs, k, json_pack("{s:I, s:I, s:I, s:f, s:o}",
			"packets", (json_int_t)pkts, "bytes", (json_int_t)v->ctr.tc_bytes[tc],
			"charged_bytes", (json_int_t)v->ctr.tc_charged[tc],
			"efficiency", v->ctr.tc_charged[tc] ? (double)v->ctr.tc_bytes[tc] /
							  (double)v->ctr.tc_charged[tc] : 1.0,
			"bins", bins));
	}
	/* The largest cell that keeps the target efficiency for what was seen: an ASIC's cell
	 * count (pointer memory) shrinks as cells grow. */
	json_t *cands = json_array();
	uint32_t best = 0;
	uint64_t seen;
	for (size_t i = 0; i < RTE_DIM(candidates); i++) {
		double eff = efficiency(v->ctr.len_hist, candidates[i], &seen);
		json_array_append_new(cands, json_pack("{s:i, s:f}", "cell", candidates[i],
						       "efficiency", eff));
		if (eff >= target && candidates[i] > best)
			best = candidates[i];
	}
	double now_eff = efficiency(v->ctr.len_hist, sw->dp.conf->buffer.cell, &seen);
	json_t *ai = json_array();
	for (unsigned int i = 0; i < sw->cfg->qos.buf.n_ai_sizes; i++)
		json_array_append_new(ai, json_integer(sw->cfg->qos.buf.ai_sizes[i]));
	free(v);
	return json_pack("{s:i, s:o, s:I, s:f, s:o, s:f, s:o, s:o}",
		"cell", sw->dp.conf->buffer.cell, "ai_packet_sizes", ai,
		"packets", (json_int_t)seen,
		"efficiency", now_eff, "tcs", tcs, "target_efficiency", target,
		"recommended_cell", best ? json_integer(best) : json_null(),
		"candidates", cands);
}

static const struct lsw_rpc_method m_buffer_histogram = {
	.name = "buffer.histogram",
	.summary = "Frame sizes per TC, buffer efficiency, and a recommended cell size",
	.params = &histogram_params,
	.args_size = sizeof(struct histogram_args),
	.fn = buffer_histogram,
};
LSW_RPC_REGISTER(m_buffer_histogram)

static json_t *
buffer_stats(struct lsw_switch *sw, const void *args, struct lsw_rpc_error *e)
{
	const struct lsw_buffer_conf *b = &sw->cfg->qos.buf;

	RTE_SET_USED(args);
	struct lsw_buffer_lcore *v = buffer_view(sw, e);
	if (v == NULL)
		return NULL;
	uint64_t bytes = 0, charged = 0, pkts = 0, drops = 0;
	for (int tc = 0; tc < LSW_NUM_TC; tc++) {
		bytes += v->ctr.tc_bytes[tc];
		charged += v->ctr.tc_charged[tc];
	}
	for (uint16_t p = 0; p < sw->cfg->n_ports; p++)
		for (int q = 0; q < 8; q++) {
			pkts += v->ctr.pg_pkts[p][q];
			for (int r = 0; r < LSW_QDROP_WRED_DROP; r++) /* admission drops */
				drops += v->ctr.q_drop_reason[p][q][r];
		}
	json_t *ai = json_array();
	for (unsigned int i = 0; i < b->n_ai_sizes; i++)
		json_array_append_new(ai, json_integer(b->ai_sizes[i]));
	json_t *r = json_pack("{s:I, s:i, s:o, s:i, s:I, s:I, s:I, s:I, s:f, s:I}",
		"buffer_size", (json_int_t)b->total, "cell", sw->dp.conf->buffer.cell,
		"ai_packet_sizes", ai, "mbuf_data_room",
		(int)rte_pktmbuf_data_room_size(sw->dp.pool),
		"admitted_packets", (json_int_t)pkts, "admitted_bytes", (json_int_t)bytes,
		"charged_bytes", (json_int_t)charged, "dropped_packets", (json_int_t)drops,
		"efficiency", charged ? (double)bytes / (double)charged : 1.0,
		"timestamp_ns", (json_int_t)lsw_now_ns());
	free(v);
	json_object_set_new(r, "pools", buffer_pools(sw, NULL, e));
	return r;
}

static const struct lsw_rpc_method m_buffer_stats = {
	.name = "buffer.stats",
	.summary = "Buffer summary: size, cell, admitted and charged bytes, efficiency, pools",
	.fn = buffer_stats,
};
LSW_RPC_REGISTER(m_buffer_stats)

static json_t *
watermark_clear(struct lsw_switch *sw, const void *args, struct lsw_rpc_error *e)
{

	RTE_SET_USED(args);
	RTE_SET_USED(e);
	/* Each worker resets the watermarks it keeps on its next loop. */
	uint64_t gen = sw->dp.wm_clear_gen + 1; /* the main lcore is its only writer */
	lsw_publish(&sw->dp.wm_clear_gen, gen);
	return json_pack("{s:b, s:I}", "cleared", 1, "generation", (json_int_t)gen);
}

static const struct lsw_rpc_method m_watermark_clear = {
	.name = "watermark.clear",
	.summary = "Clear PG, queue and pool watermarks (each worker on its next loop)",
	.fn = watermark_clear,
};
LSW_RPC_REGISTER(m_watermark_clear)
