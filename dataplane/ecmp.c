/* SPDX-License-Identifier: BSD-3-Clause */
/* Utilization-based ECMP: uplink quality sampling and the member choice of each mode. */
#include <rte_hash_crc.h>
#include "lsw/dataplane.h"
#include "lsw/ecn.h"

const char *const lsw_ecmp_mode_names[LSW_ECMP_N_MODES + 1] = {
	"hash", "hash_qp", "flowlet_random", "flowlet_quality", "packet_quality",
	"packet_random", "fixed", NULL,
};

const char *const lsw_hash_field_names[] = {
	"SRC_IP", "DST_IP", "L4_SRC_PORT", "L4_DST_PORT", "IP_PROTOCOL", "IPV6_FLOW_LABEL",
	"ROCE_DEST_QP", NULL,
};

/* @k steps of avg += (x - avg) * 2^-shift, rounded away from avg so that it reaches x. After
 * 16 << shift steps what is left of the old value is below e^-16: stop there. */
static uint64_t
ewma(uint64_t avg, uint64_t x, uint8_t shift, uint64_t k)
{
	uint64_t round = (UINT64_C(1) << shift) - 1;

	k = RTE_MIN(k, UINT64_C(16) << shift);
	for (uint64_t i = 0; i < k && avg != x; i++) {
		if (x > avg)
			avg += (x - avg + round) >> shift;
		else
			avg -= (avg - x + round) >> shift;
	}
	return avg;
}

void
lsw_ecmp_sample(struct lsw_ecmp_sig *s, const struct lsw_ecmp_dp *e, uint16_t port,
		uint64_t tx_bytes, uint64_t queued, uint64_t now)
{
	if (s->last == 0 || e->sample == 0) {
		s->last = now;
		s->last_tx = tx_bytes;
		s->quality = LSW_ECMP_LEVELS - 1;
		return;
	}
	uint64_t k = (now - s->last) / e->sample;
	if (k == 0)
		return;
	/* An idle or sleeping worker samples late: the bytes spread over the intervals that
	 * passed, each an EWMA step. */
	uint64_t per = ((tx_bytes - s->last_tx) << LSW_ECMP_FIX) / k;
	lsw_store_relaxed(&s->load, ewma(s->load, per, e->shift, k));
	lsw_store_relaxed(&s->queue, ewma(s->queue, queued << LSW_ECMP_FIX, e->shift, k));
	s->last += k * e->sample;
	s->last_tx = tx_bytes;
	uint8_t ll = lsw_ecmp_level(s->load, e->load_thr[port]);
	uint8_t ql = lsw_ecmp_level(s->queue, e->queue_thr[port]);
	/* Broadcom DLB and Juniper: the weighted sum of the qualities (7 - level), rounded
	 * down, so that a half-congested member counts as worse, not better. */
	const uint32_t top = LSW_ECMP_LEVELS - 1;
	uint32_t q = ((top - ll) * e->w_load + (top - ql) * e->w_queue) / 100;
	lsw_store_relaxed(&s->load_level, ll);
	lsw_store_relaxed(&s->queue_level, ql);
	lsw_store_relaxed(&s->quality, (uint8_t)RTE_MIN(q, top));
}

/* The fields both families share, after the addresses (and the flow label). */
static inline uint32_t
hash_l4(uint32_t h, const struct lsw_pkt_info *pi, uint8_t f, uint32_t seed)
{
	if (f & (LSW_HF_L4_SRC_PORT | LSW_HF_L4_DST_PORT))
		h = rte_hash_crc_4byte((f & LSW_HF_L4_SRC_PORT ? (uint32_t)pi->sport << 16 : 0) |
				       (f & LSW_HF_L4_DST_PORT ? pi->dport : 0), h);
	if (f & LSW_HF_IP_PROTOCOL)
		h = rte_hash_crc_4byte(pi->l4_proto, h);
	if ((f & LSW_HF_ROCE_DQP) && (pi->flags & LSW_PF_ROCE))
		h = rte_hash_crc_4byte(pi->bth_dqpn, h);
	return lsw_hash_mix(h, seed);
}

uint32_t
lsw_ecmp_hash_fields(uint32_t src, uint32_t dst, const struct lsw_pkt_info *pi, uint8_t f,
		     uint32_t seed)
{
	uint32_t h = 0;

	if (f & LSW_HF_SRC_IP)
		h = rte_hash_crc_4byte(src, h);
	if (f & LSW_HF_DST_IP)
		h = rte_hash_crc_4byte(dst, h);
	return hash_l4(h, pi, f, seed);
}

/* With the default fields, the CRC of ipv6.c's flow_crc6 (the addresses in one run, the
 * label, the ports, the next header), so that a group's mode leaves its flows' hash alone. */
uint32_t
lsw_ecmp_hash_fields6(const uint8_t *addrs, uint32_t vtc_flow, const struct lsw_pkt_info *pi,
		      uint8_t f, uint32_t seed)
{
	/* The addresses sit 2 bytes off 8-byte alignment in the frame and rte_hash_crc
	 * loads 8 bytes at a time (UBSan): hashed from a copy. */
	uint64_t a[4];
	uint32_t h = 0;

	memcpy(a, addrs, sizeof(a));
	if (f & LSW_HF_SRC_IP)
		h = rte_hash_crc(&a[0], 16, h);
	if (f & LSW_HF_DST_IP)
		h = rte_hash_crc(&a[2], 16, h);
	if (f & LSW_HF_IPV6_FLOW_LABEL)
		h = rte_hash_crc_4byte(vtc_flow & rte_cpu_to_be_32(0xfffff), h);
	return hash_l4(h, pi, f, seed);
}

/* Uniform in [0, n). */
static inline uint8_t
rand_below(uint64_t *rng, uint8_t n)
{
	return (uint8_t)((lsw_rand48(rng) * n) >> 48);
}

uint8_t
lsw_ecmp_best(const uint8_t *q, uint8_t n, uint32_t live, int cur, uint64_t *rng)
{
	uint32_t set = 0;
	uint8_t best = 0;

	if (live == 0)
		live = (uint32_t)((1ull << n) - 1);
	for (uint8_t i = 0; i < n; i++) {
		if (!(live >> i & 1))
			continue;
		if (set == 0 || q[i] > best) {
			best = q[i];
			set = 1u << i;
		} else if (q[i] == best) {
			set |= 1u << i;
		}
	}
	if (cur >= 0 && (set >> cur & 1))
		return (uint8_t)cur;
	/* A random member of the best band. */
	return lsw_ecmp_nth(set, rand_below(rng, (uint8_t)__builtin_popcount(set)));
}

uint8_t
lsw_ecmp_choose(const struct lsw_ecmp_grp_dp *g, struct lsw_ecmp_ws *ws, struct lsw_flowlet *tbl,
		uint8_t n, const uint8_t *q, uint32_t busy, uint32_t live, uint32_t hash,
		uint64_t now, uint64_t *rng)
{
	const uint32_t all = (uint32_t)((1ull << n) - 1);
	struct lsw_ecmp_ctr *c = &ws->ctr;
	uint8_t m;

	if (g->mode == LSW_ECMP_HASH || g->mode == LSW_ECMP_HASH_QP)
		return lsw_ecmp_hash_live(hash, n, live);
	if (live == 0)
		live = all;
	if (g->mode == LSW_ECMP_PACKET_RANDOM)
		return lsw_ecmp_nth(live, rand_below(rng, (uint8_t)__builtin_popcount(live)));

	/* The top bits: the low ones of the multiplicative mix are the CRC's, only permuted
	 * by the seed, so two flows sharing an entry would share it under every seed. */
	struct lsw_flowlet *e = &tbl[((uint64_t)hash * (g->mask + 1)) >> 32];
	int cur = e->last != 0 && e->member < n ? e->member : -1;
	/* A flow on a member that went down moves as a new flowlet would, at once. */
	bool active = cur >= 0 && now - e->last <= g->inactivity && (live >> cur & 1);

	switch (g->mode) {
	case LSW_ECMP_PACKET_QUALITY:
		m = lsw_ecmp_best(q, n, live, cur, rng);
		if (cur >= 0 && m != cur)
			c->member[m].reassign++;
		break;
	case LSW_ECMP_FIXED:
		if (cur >= 0 && (live >> cur & 1)) {
			m = (uint8_t)cur;
			break;
		}
		m = lsw_ecmp_best(q, n, live, -1, rng);
		c->member[m].flowlets++;
		break;
	default: /* flowlet_random, flowlet_quality */
		if (active) {
			m = (uint8_t)cur;
			/* Reactive rebalance of flows that never pause: away from a congested
			 * member (@busy) to one better by the margin. One
			 * move per group and interval, so that the qualities show a move before
			 * the next is decided (no herding); a member that merely carries its
			 * flow is left alone, since moving a lone flow only moves the load. */
			if (g->rebalance && (busy >> cur & 1) &&
			    now - ws->last_move >= g->rebalance_iv) {
				uint8_t b = lsw_ecmp_best(q, n, live, cur, rng);
				if (q[b] >= q[cur] + g->margin) {
					ws->last_move = now;
					m = b;
					c->member[m].rebalance++;
				}
			}
			break;
		}
		m = g->mode == LSW_ECMP_FLOWLET_RANDOM ?
		    lsw_ecmp_nth(live, rand_below(rng, (uint8_t)__builtin_popcount(live))) :
		    lsw_ecmp_best(q, n, live, cur, rng);
		c->member[m].flowlets++;
		if (cur >= 0 && m != cur)
			c->member[m].reassign++;
		break;
	}
	/* ecmp.stats counts the entries in use: it reads them as they stand. */
	lsw_store_relaxed(&e->last, now != 0 ? now : 1);
	lsw_store_relaxed(&e->member, m);
	return m;
}

void
lsw_ecmp_publish_paused(struct lsw_worker *w, uint16_t port, uint64_t now)
{
	const struct lsw_sched *s = w->dp->sched[port];
	uint8_t paused = 0;

	for (int q = 0; q < LSW_NUM_QUEUES; q++)
		if ((int64_t)(s->pause_until[q] - now) > 0)
			paused |= (uint8_t)(1u << q);
	lsw_store_relaxed(&w->dp->ecmp_sig[port].paused, paused);
}

/* Sample @port's load and queue and publish its quality and PFC-paused queues (owner).
 * Once per sample interval: out of line, so that the worker loop stays small enough for
 * the IPv4 path to inline into it. */
__rte_noinline void
lsw_ecmp_port_sample(struct lsw_worker *w, const struct lsw_snapshot *conf, uint16_t port,
		     uint64_t now)
{
	const struct lsw_sched *s = w->dp->sched[port];
	uint64_t queued = s->ctl.bytes + s->pend_bytes; /* what the PMD refused leaves first */

	for (int q = 0; q < LSW_NUM_QUEUES; q++)
		queued += s->q[q].bytes;
	lsw_ecmp_publish_paused(w, port, now);
	lsw_ecmp_sample(&w->dp->ecmp_sig[port], &conf->ecmp, port,
			w->ctr->port[port].ctr[LSW_PC_IF_OUT_OCTETS], queued, now);
}

/* The moves a group's members counted on this worker: reassignments and rebalances. */
static void
moves(const struct lsw_ecmp_ws *ws, uint8_t n, uint64_t *reassign, uint64_t *rebalance)
{
	*reassign = *rebalance = 0;
	for (uint8_t i = 0; i < n; i++) {
		*reassign += ws->ctr.member[i].reassign;
		*rebalance += ws->ctr.member[i].rebalance;
	}
}

/* The member of group @g (settings @eg) for this packet of traffic class @tc; @ip its IPv4
 * header, or its IPv6 one when @v6 (the group is then the IPv6 FIB's). Kept out of
 * line: inlined (LTO does), it makes lsw_ipv4_input too big to inline into the worker
 * loop, which cost every packet 10% even with the default hash mode, which never calls
 * it. */
__rte_noinline uint8_t
lsw_ecmp_select(struct lsw_worker *w, const struct lsw_snapshot *conf,
		const struct lsw_ecmp_grp_dp *eg, const struct lsw_nhg *g, bool v6,
		const void *ip, const struct lsw_pkt_info *pi, uint8_t tc, uint64_t now)
{
	uint8_t fields = eg->fields | (eg->mode == LSW_ECMP_HASH_QP ? LSW_HF_ROCE_DQP : 0);
	const struct rte_ipv4_hdr *ip4 = ip;
	const struct rte_ipv6_hdr *ip6 = ip;
	uint32_t h = v6 ? lsw_ecmp_hash_fields6(ip6->src_addr, ip6->vtc_flow, pi, fields,
						eg->seed) :
		     lsw_ecmp_hash_fields(ip4->src_addr, ip4->dst_addr, pi, fields, eg->seed);
	uint8_t q[LSW_MAX_ECMP];
	uint32_t busy = 0, live = 0;

	if (unlikely(conf->ecmp_down != 0))
		live = lsw_ecmp_live(w->dp, v6, conf, g);
	/* A member whose queue for this class PFC pauses is worse than the worst quality: a
	 * paused uplink sends nothing and so looks idle to a load-only measure. */
	if (lsw_ecmp_uses_quality(eg->mode) || eg->rebalance)
		for (uint8_t i = 0; i < g->n; i++) {
			uint16_t port = lsw_nh_port(w->dp, v6, g->member[i]);
			const struct lsw_ecmp_sig *sig = &w->dp->ecmp_sig[port];
			uint8_t paused = lsw_load_relaxed(&sig->paused);
			q[i] = (paused >> conf->buffer.tc_q[port][tc] & 1) ? 0 :
			       lsw_load_relaxed(&sig->quality) + 1;
			/* Congested: paused, a queue building, or loaded past load_max. */
			if (q[i] == 0 || lsw_load_relaxed(&sig->queue_level) > 0 ||
			    lsw_load_relaxed(&sig->load_level) == LSW_ECMP_LEVELS - 1)
				busy |= 1u << i;
		}
	struct lsw_ecmp_ws *ws = &eg->ws[w->idx];
	if (likely(!lsw_timeline_events(conf)))
		return lsw_ecmp_choose(eg, ws, eg->tbl[w->idx], g->n, q, busy, live, h, now,
				       &w->rng);
	/* A timeline records each move: the choice counts it on the member it chose. */
	uint64_t reassign, rebalance, reassign1, rebalance1;
	moves(ws, g->n, &reassign, &rebalance);
	uint8_t m = lsw_ecmp_choose(eg, ws, eg->tbl[w->idx], g->n, q, busy, live, h, now,
				    &w->rng);
	moves(ws, g->n, &reassign1, &rebalance1);
	uint16_t port = lsw_nh_port(w->dp, v6, g->member[m]);
	uint32_t gid = (uint32_t)(eg - (v6 ? conf->ecmp.grp6 : conf->ecmp.grp));
	if (reassign1 != reassign)
		lsw_timeline_event(w, LSW_TL_ECMP_REASSIGN, port, m, gid, now);
	if (rebalance1 != rebalance)
		lsw_timeline_event(w, LSW_TL_ECMP_REBALANCE, port, m, gid, now);
	return m;
}
