/* SPDX-License-Identifier: BSD-3-Clause */
/* The workers' configuration: built from the running config, published by pointer swap, the
 * old copy freed after every worker has passed a quiescent state. */
#include <string.h>
#include <rte_bpf.h>
#include <rte_malloc.h>
#include "capture.h"
#include "eal.h"
#include "switch.h"

static void
build_prof(const struct lsw_qos_conf *q, uint16_t idx, struct lsw_prof_dp *p)
{
	const struct lsw_profile_conf *pr = &q->profile[idx];
	bool private_hdrm = q->pool[pr->pool].xoff == 0;

	*p = (struct lsw_prof_dp){
		/* SONiC's size includes a private headroom; the rest is the reserve. */
		.reserved = pr->size - (private_hdrm ? pr->xoff : 0),
		.xoff = pr->xoff, .xon = pr->xon, .xon_offset = pr->xon_offset,
		.static_th = pr->static_th, .pool = (uint8_t)pr->pool,
		.dynamic = pr->mode == LSW_TH_DYNAMIC, .shift = pr->dynamic_th,
		.lossless = pr->xoff > 0,
	};
}

static void
build_buffer(const struct lsw_config *c, struct lsw_buffer_dp *m)
{
	const struct lsw_qos_conf *q = &c->qos;
	uint64_t taken[LSW_MAX_POOLS] = {0};
	/* hpcc_sim's count: one reserve and one headroom per port (switch-mmu.cc total_rsrv,
	 * total_hdrm), the largest of the port's PGs (queues) in the pool. */
	uint64_t taken_port[LSW_MAX_POOLS] = {0};
	uint32_t members[LSW_MAX_POOLS] = {0}; /* PGs and queues charged to each pool */

	m->cell = q->buf.cell;
	m->cell_inv = lsw_buffer_cell_inv(m->cell);
	/* What the mempool leaves for queued packets; lossy ones stop at three quarters, and
	 * lossless PGs pause above that until half (include/lsw/buffer.h). */
	m->pkt_limit = c->g.mbufs - lsw_config_mbuf_reserve(c);
	m->pkt_xoff = m->pkt_limit / 4 * 3;
	m->pkt_xon = m->pkt_limit / 2;
	m->n_pools = q->n_pools;
	for (uint16_t p = 0; p < c->n_ports; p++) {
		const struct lsw_port_qos_conf *pq = &q->port[p];
		uint64_t rsrv_max[LSW_MAX_POOLS] = {0}, hdrm_max[LSW_MAX_POOLS] = {0};
		for (int i = 0; i < 8; i++) {
			build_prof(q, pq->pg_profile[i], &m->pg[p][i]);
			build_prof(q, pq->q_profile[i], &m->q[p][i]);
			const struct lsw_prof_dp *g = &m->pg[p][i], *e = &m->q[p][i];
			bool private_hdrm = q->pool[g->pool].xoff == 0;
			taken[g->pool] += g->reserved + (private_hdrm ? g->xoff : 0);
			taken[e->pool] += e->reserved;
			members[g->pool]++;
			members[e->pool]++;
			rsrv_max[g->pool] = RTE_MAX(rsrv_max[g->pool], g->reserved);
			rsrv_max[e->pool] = RTE_MAX(rsrv_max[e->pool], e->reserved);
			if (private_hdrm)
				hdrm_max[g->pool] = RTE_MAX(hdrm_max[g->pool], g->xoff);
		}
		for (int k = 0; k < LSW_MAX_POOLS; k++)
			taken_port[k] += rsrv_max[k] + hdrm_max[k];
		memcpy(m->dscp_tc[p], q->map[LSW_MAP_DSCP_TO_TC][pq->map[LSW_MAP_DSCP_TO_TC]].v,
		       64);
		m->use_dot1p[p] = pq->map[LSW_MAP_DOT1P_TO_TC] != LSW_NONE;
		if (m->use_dot1p[p])
			memcpy(m->dot1p_tc[p],
			       q->map[LSW_MAP_DOT1P_TO_TC][pq->map[LSW_MAP_DOT1P_TO_TC]].v, 8);
		memcpy(m->tc_pg[p], q->map[LSW_MAP_TC_TO_PG][pq->map[LSW_MAP_TC_TO_PG]].v, 8);
		memcpy(m->tc_q[p], q->map[LSW_MAP_TC_TO_QUEUE][pq->map[LSW_MAP_TC_TO_QUEUE]].v, 8);
	}
	m->abm_sat = (uint32_t)q->buf.abm_saturation;
	m->abm_update_ns = (uint64_t)q->buf.abm_update_us * 1000;
	m->abm_unsched_shift = q->buf.abm_unsched_dynamic_th;
	m->abm_pools = 0;
	for (uint16_t i = 0; i < q->n_pools; i++) {
		const struct lsw_pool_conf *pc = &q->pool[i];
		/* validation keeps this below the size */
		uint64_t used = (pc->policy == LSW_POLICY_HPCC_SIM ? taken_port[i] : taken[i]) +
				pc->xoff;
		uint64_t shared = used < pc->size ? pc->size - used : 0;
		m->pool[i] = (struct lsw_pool_dp){
			.size = pc->size, .shared = shared, .hdrm_shared = pc->xoff,
			.part_share = members[i] ? shared / members[i] : shared,
			.type = pc->type, .policy = pc->policy,
		};
		if (pc->policy == LSW_POLICY_ABM)
			m->abm_pools |= (uint8_t)(1u << i);
	}
	/* Without an ABM pool no packet is flagged: admission's runs stay whole. */
	m->abm_unsched_dscp = m->abm_pools ? q->buf.abm_unsched_dscp : 0;
}

/* A queue's WRED_PROFILE, green (lsw has no policer), for the dequeue path. */
static void
build_ecn(const struct lsw_config *c, uint16_t profile, struct lsw_ecn_dp *a, uint64_t *min)
{
	*a = (struct lsw_ecn_dp){.marks = false};
	*min = UINT64_MAX;
	if (profile == LSW_NONE)
		return;
	const struct lsw_ecn_conf *w = &c->qos.ecn[profile];
	const struct lsw_ecn_curve_conf *mk = &w->mark[LSW_GREEN], *dr = &w->wred[LSW_GREEN];
	a->marks = w->ecn[LSW_GREEN];
	a->drops = w->drop[LSW_GREEN];
	lsw_ecn_curve_set(&a->mark, mk->min, mk->max, mk->prob);
	lsw_ecn_curve_set(&a->drop, dr->min, dr->max, dr->prob);
	if (a->marks)
		*min = mk->min;
	if (a->drops)
		*min = RTE_MIN(*min, dr->min);
}

static void
build_sched(const struct lsw_switch *sw, uint16_t p, struct lsw_sched_dp *s,
	    struct lsw_ecn_dp *ecn)
{
	const struct lsw_config *c = sw->cfg;
	const struct lsw_buffer_conf *b = &c->qos.buf;

	/* The bucket is what lsw may hand the PMD ahead of the line rate: small, so that a
	 * pause stops the port within a few frames (inflight.c). */
	*s = (struct lsw_sched_dp){
		.rate_bps = (uint64_t)sw->port[p].speed * 1000000,
		.burst_bytes = lsw_port_tx_burst_bytes(c, p, sw->port[p].speed),
		.catchup_bytes = (uint64_t)sw->port[p].speed * c->port[p].catchup_us / 8,
		.overhead = b->shaper_overhead,
	};
	for (int q = 0; q < LSW_NUM_QUEUES; q++) {
		const struct lsw_sched_conf *sc = &c->qos.sched[c->qos.port[p].q_sched[q]];
		if (sc->type == LSW_SCHED_STRICT)
			s->strict_mask |= (uint8_t)(1 << q);
		s->quantum[q] = (uint32_t)sc->weight * LSW_DWRR_QUANTUM;
		build_ecn(c, c->qos.port[p].q_ecn[q], &ecn[q], &s->ecn_min[q]);
	}
}

/* What the workers record from the next snapshot on (timeline.c keeps the run). */
static void
build_timeline(const struct lsw_switch *sw, struct lsw_timeline_dp *d)
{
	const struct lsw_timeline_ctl *t = &sw->tl;

	*d = (struct lsw_timeline_dp){0};
	if (!t->running)
		return;
	*d = (struct lsw_timeline_dp){
		.what = t->what, .ports = t->ports, .gen = t->gen,
		.interval = RTE_MAX((uint64_t)t->interval_us * sw->dp.tsc_hz / 1000000, 1ull),
	};
}

/* The capture sessions the workers copy for (capture.c keeps them). */
static void
build_capture(const struct lsw_switch *sw, struct lsw_snapshot *d)
{
	const struct lsw_capture_ctl *ctl = sw->capture;
	struct lsw_capture_dp *c = &d->capture;

	*c = (struct lsw_capture_dp){.n = 0};
	for (int i = 0; ctl != NULL && i < LSW_CAPTURE_MAX; i++) {
		const struct lsw_capture_sess *s = ctl->slot[i];
		struct rte_bpf_jit jit = {.func = NULL};
		if (s == NULL || s->stopping)
			continue;
		/* No JIT on this machine, or not for this filter: the interpreter. */
		if (s->bpf == NULL || !s->jit_ok || rte_bpf_get_jit(s->bpf, &jit) != 0)
			jit.func = NULL;
		c->s[c->n++] = (struct lsw_capture_sess_dp){
			.bpf = s->bpf, .jit = jit.func, .snaplen = s->snaplen, .slot = (uint8_t)i,
			.port = (uint8_t)s->port, .dirs = s->dirs,
		};
		if (s->dirs & LSW_CAPTURE_DIR_RX)
			c->rx_ports |= 1u << s->port;
		if (s->dirs & LSW_CAPTURE_DIR_TX)
			c->tx_ports |= 1u << s->port;
	}
}

struct lsw_snapshot *
lsw_snapshot_build(struct lsw_switch *sw)
{
	const struct lsw_config *c = sw->cfg;
	struct lsw_snapshot *d = rte_zmalloc("lsw_snapshot", sizeof(*d), RTE_CACHE_LINE_SIZE);

	if (d == NULL)
		return NULL;
	d->n_ports = c->n_ports;
	d->n_workers = c->g.n_workers;
	d->idle_sleep_us = c->g.idle_sleep_us;
	d->direct = c->g.direct;
	d->ecmp_seed = lsw_seed_mix(c->g.ecmp_seed);
	d->cnp_tc = c->g.cnp_tc;
	d->arp_retry_ms = c->g.arp_retry_ms;
	d->arp_tries = c->g.arp_tries;
	d->icmp_rate = c->g.icmp_rate;
	d->icmp_burst = c->g.icmp_burst;
	for (uint16_t i = 0; i < c->n_ports; i++) {
		const struct lsw_port_conf *pc = &c->port[i];
		struct lsw_port_dp *p = &d->port[i];
		p->port_id = sw->port[i].port_id;
		p->admin_up = pc->admin_up;
		if (!pc->admin_up || sw->port[i].link_down)
			d->ecmp_down |= 1u << i;
		p->suspended = sw->suspended[i];
		p->mtu = pc->mtu;
		p->mac = sw->port[i].mac;
		p->n_addr = pc->n_addr;
		for (unsigned int a = 0; a < pc->n_addr; a++) {
			p->addr[a] = pc->addr[a].ip;
			p->plen[a] = pc->addr[a].plen;
		}
		p->n_addr6 = pc->n_addr6;
		for (unsigned int a = 0; a < pc->n_addr6; a++) {
			memcpy(p->addr6[a], pc->addr6[a].ip, 16);
			p->plen6[a] = pc->addr6[a].plen;
		}
		lsw_ip6_ll_from_mac(p->ll6, &p->mac);
		for (uint16_t w = 0; w < c->g.n_workers; w++)
			if (c->g.workers[w] == (unsigned int)pc->lcore)
				p->owner = w;
		const struct lsw_port_qos_conf *pq = &c->qos.port[i];
		p->pfc_enable = pq->pfc_enable;
		p->rx_pause = pc->rx_pause;
		p->pfc_quanta = pc->pfc_quanta;
		p->wd_ignore_pause = sw->wd_ignore_pause[i];
		for (int prio = 0; prio < 8; prio++) {
			p->pfc_to_q[prio] =
				c->qos.map[LSW_MAP_PFC_TO_QUEUE][pq->map[LSW_MAP_PFC_TO_QUEUE]]
					.v[prio];
			uint8_t pg =
				c->qos.map[LSW_MAP_PFC_TO_PG][pq->map[LSW_MAP_PFC_TO_PG]].v[prio];
			/* A priority whose queue the watchdog stormed (drop, forward) is lossy
			 * until restored: it neither honours nor generates PFC. */
			if ((pq->pfc_enable >> prio & 1) &&
			    !(p->wd_ignore_pause >> p->pfc_to_q[prio] & 1))
				p->pg_prios[pg] |= (uint8_t)(1u << prio);
		}
		p->wd_drop = sw->wd_drop[i];
		p->prio_tag = pc->prio_tag;
		memcpy(p->tc_pcp, c->qos.map[LSW_MAP_TC_TO_DOT1P][pq->map[LSW_MAP_TC_TO_DOT1P]].v,
		       sizeof(p->tc_pcp));
		d->owned[p->owner][d->n_owned[p->owner]++] = (uint8_t)i;
		build_sched(sw, i, &d->sched[i], d->ecn[i]);
	}
	build_buffer(c, &d->buffer);
	for (uint16_t i = 0; i < c->n_ports; i++)
		d->buffer.owner[i] = (uint8_t)d->port[i].owner; /* ABM reads drain rates there */
	build_timeline(sw, &d->timeline);
	lsw_trim_build(c, &d->trim);
	build_capture(sw, d);
	if (lsw_ecmp_build(sw, d) != 0) {
		rte_free(d);
		return NULL;
	}
	return d;
}

int
lsw_snapshot_refresh(struct lsw_switch *sw)
{
	struct lsw_snapshot *conf = lsw_snapshot_build(sw);

	if (conf == NULL)
		return -1;
	lsw_snapshot_publish(sw, conf);
	return 0;
}

void
lsw_snapshot_publish(struct lsw_switch *sw, struct lsw_snapshot *conf)
{
	struct lsw_snapshot *old = sw->dp.conf;

	lsw_publish(&sw->dp.conf, conf);
	sw->snapshot_gen++;
	lsw_timeline_event_cp(sw, LSW_TL_CONFIG, LSW_TL_NONE, LSW_TL_NONE,
			      (uint32_t)sw->snapshot_gen, 0);
	if (old == NULL)
		return;
	/* Returns at once for workers that are offline (asleep) or not started. */
	rte_rcu_qsbr_synchronize(sw->dp.qsv, RTE_QSBR_THRID_INVALID);
	lsw_ecmp_retire(old, conf);
	rte_free(old);
}
