/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Admission and release (include/lsw/mmu.h). The ingress decision follows SAI/SONiC:
 * reserved first, then shared under the PG's threshold, then (lossless PGs only) headroom;
 * a lossless PG that is out of headroom drops as HEADROOM_OVERFLOW, a lossy one at its
 * threshold as INGRESS_PG_THRESHOLD. The egress queue has its own reserved and shared
 * threshold; lossless traffic is never dropped there, so that XOFF always comes first
 * (ns3-rdma#11). Both decisions are taken before anything is charged.
 */
#include <rte_mbuf_dyn.h>
#include "lsw/mmu.h"

int lsw_meta_offset = -1;

const uint32_t lsw_hist_bound[LSW_HIST_BINS] = {
	64, 127, 255, 511, 1023, 1518, 2047, 4095, 4159, LSW_MAX_FRAME,
};
uint8_t lsw_hist_bin[LSW_MAX_FRAME + 1];

RTE_INIT(lsw_hist_bin_init)
{
	unsigned int b = 0;

	for (uint32_t len = 0; len <= LSW_MAX_FRAME; len++) {
		while (len > lsw_hist_bound[b])
			b++;
		lsw_hist_bin[len] = (uint8_t)b;
	}
}

int
lsw_meta_register(void)
{
	static const struct rte_mbuf_dynfield desc = {
		.name = "lsw_pkt_meta",
		.size = sizeof(struct lsw_pkt_meta),
		.align = __alignof__(struct lsw_pkt_meta),
	};

	lsw_meta_offset = rte_mbuf_dynfield_register(&desc);
	return lsw_meta_offset < 0 ? -1 : 0;
}

static inline int64_t
pool_hdrm(struct lsw_mmu_lcore *const *all, uint16_t n, uint8_t pool)
{
	return LSW_MMU_SUM(all, n, pool_hdrm[pool]);
}

static inline int64_t
pool_used(struct lsw_mmu_lcore *const *all, uint16_t n, uint8_t pool)
{
	return LSW_MMU_SUM(all, n, pool_used[pool]);
}

static inline void
wm(uint64_t *w, int64_t v)
{
	if (v > (int64_t)*w)
		*w = (uint64_t)v;
}

enum lsw_drop
lsw_mmu_admit(struct lsw_mmu_lcore *const *all, uint16_t n, struct lsw_mmu_lcore *mine,
	      const struct lsw_mmu_conf *mc, struct lsw_pkt_meta *meta, uint32_t len)
{
	const uint16_t ip = meta->in_port, op = meta->out_port;
	const uint8_t pg = meta->pg, q = meta->queue;
	const struct lsw_mmu_prof *pp = &mc->pg[ip][pg], *qp = &mc->q[op][q];
	const struct lsw_mmu_pool *ipool = &mc->pool[pp->pool], *epool = &mc->pool[qp->pool];
	const uint64_t c = lsw_mmu_charge(mc->cell, len);
	int64_t r = lsw_mmu_pg_occ(all, n, ip, pg, LSW_PART_RESERVED);
	int64_t s = lsw_mmu_pg_occ(all, n, ip, pg, LSW_PART_SHARED);
	int64_t h = lsw_mmu_pg_occ(all, n, ip, pg, LSW_PART_HEADROOM);
	int64_t ips = lsw_mmu_pool_shared(all, n, pp->pool);
	int in_part, eg_part;
	enum lsw_drop d = LSW_DROP_NONE;

	/* Ingress (port, PG). */
	if (r + (int64_t)c <= (int64_t)pp->reserved) {
		in_part = LSW_PART_RESERVED;
	} else if (s + (int64_t)c <= (int64_t)lsw_mmu_threshold(pp, ipool, ips) &&
		   ips + (int64_t)c <= (int64_t)ipool->shared) {
		in_part = LSW_PART_SHARED;
	} else if (pp->lossless && h + (int64_t)c <= (int64_t)pp->xoff &&
		   (ipool->hdrm_shared == 0 ||
		    pool_hdrm(all, n, pp->pool) + (int64_t)c <= (int64_t)ipool->hdrm_shared)) {
		in_part = LSW_PART_HEADROOM;
	} else {
		in_part = -1;
		d = pp->lossless ? LSW_DROP_HEADROOM_OVERFLOW : LSW_DROP_INGRESS_PG_THRESHOLD;
	}

	/* Egress (port, queue). */
	int64_t er = lsw_mmu_q_occ(all, n, op, q, 0), es = lsw_mmu_q_occ(all, n, op, q, 1);
	int64_t eps = lsw_mmu_pool_shared(all, n, qp->pool);
	if (er + (int64_t)c <= (int64_t)qp->reserved)
		eg_part = LSW_PART_RESERVED;
	else
		eg_part = LSW_PART_SHARED;
	if (d == LSW_DROP_NONE && eg_part == LSW_PART_SHARED && !pp->lossless &&
	    (es + (int64_t)c > (int64_t)lsw_mmu_threshold(qp, epool, eps) ||
	     eps + (int64_t)c > (int64_t)epool->shared))
		d = LSW_DROP_EGRESS_QUEUE_THRESHOLD;

	if (d != LSW_DROP_NONE) {
		mine->pg_drops[ip][pg] += d != LSW_DROP_EGRESS_QUEUE_THRESHOLD;
		mine->q_drop_pkts[op][q]++;
		mine->q_drop_bytes[op][q] += len;
		mine->q_drop_reason[op][q][d == LSW_DROP_INGRESS_PG_THRESHOLD ? LSW_QDROP_PG :
			d == LSW_DROP_HEADROOM_OVERFLOW ? LSW_QDROP_HEADROOM : LSW_QDROP_QUEUE]++;
		mine->pool_drops[d == LSW_DROP_EGRESS_QUEUE_THRESHOLD ? qp->pool : pp->pool]++;
		return d;
	}

	/* Charge. */
	meta->charged = (uint32_t)c;
	meta->in_part = (uint8_t)in_part;
	meta->eg_part = (uint8_t)eg_part;
	meta->flags |= LSW_META_CHARGED;
	mine->pg_occ[ip][pg][in_part] += (int64_t)c;
	if (in_part == LSW_PART_SHARED)
		mine->pool_shared[pp->pool] += (int64_t)c;
	else if (in_part == LSW_PART_HEADROOM && ipool->hdrm_shared)
		mine->pool_hdrm[pp->pool] += (int64_t)c;
	mine->pool_used[pp->pool] += (int64_t)c;
	mine->q_occ[op][q][eg_part == LSW_PART_SHARED] += (int64_t)c;
	if (eg_part == LSW_PART_SHARED)
		mine->pool_shared[qp->pool] += (int64_t)c;
	mine->pool_used[qp->pool] += (int64_t)c;

	/* Counters; watermarks are taken once per burst (lsw_mmu_watermarks). */
	mine->pg_pkts[ip][pg]++;
	mine->pg_bytes[ip][pg] += len;
	uint32_t l = RTE_MIN(len, (uint32_t)LSW_MAX_FRAME);
	mine->tc_hist[meta->tc][lsw_hist_bin[l]]++;
	mine->tc_bytes[meta->tc] += len;
	mine->tc_charged[meta->tc] += c;
	mine->len_hist[l]++;
	return LSW_DROP_NONE;
}

/* Watermarks of (port, PG) @ip/@pg, (port, queue) @op/@q and their pools, from the summed
 * occupancy now. Within one worker occupancy only grows during an rx burst, so taking
 * them after each burst sees every peak. */
void
lsw_mmu_watermarks(struct lsw_mmu_lcore *const *all, uint16_t n, struct lsw_mmu_lcore *mine,
		   const struct lsw_mmu_conf *mc, uint16_t ip, uint8_t pg, uint16_t op, uint8_t q)
{
	int64_t r = lsw_mmu_pg_occ(all, n, ip, pg, LSW_PART_RESERVED);
	int64_t s = lsw_mmu_pg_occ(all, n, ip, pg, LSW_PART_SHARED);
	int64_t h = lsw_mmu_pg_occ(all, n, ip, pg, LSW_PART_HEADROOM);
	int64_t er = lsw_mmu_q_occ(all, n, op, q, 0), es = lsw_mmu_q_occ(all, n, op, q, 1);
	uint8_t ipool = mc->pg[ip][pg].pool, epool = mc->q[op][q].pool;

	wm(&mine->pg_wm[ip][pg][0], r + s + h);
	wm(&mine->pg_wm[ip][pg][1], s);
	wm(&mine->pg_wm[ip][pg][2], h);
	wm(&mine->q_wm[op][q][0], er + es);
	wm(&mine->q_wm[op][q][1], es);
	wm(&mine->pool_wm[ipool], pool_used(all, n, ipool));
	wm(&mine->pool_wm[epool], pool_used(all, n, epool));
}

void
lsw_mmu_release(struct lsw_mmu_lcore *mine, const struct lsw_mmu_conf *mc,
		const struct lsw_pkt_meta *meta)
{
	const struct lsw_mmu_prof *pp = &mc->pg[meta->in_port][meta->pg];
	const struct lsw_mmu_prof *qp = &mc->q[meta->out_port][meta->queue];
	const int64_t c = meta->charged;

	mine->pg_occ[meta->in_port][meta->pg][meta->in_part] -= c;
	if (meta->in_part == LSW_PART_SHARED)
		mine->pool_shared[pp->pool] -= c;
	else if (meta->in_part == LSW_PART_HEADROOM && mc->pool[pp->pool].hdrm_shared)
		mine->pool_hdrm[pp->pool] -= c;
	mine->pool_used[pp->pool] -= c;
	mine->q_occ[meta->out_port][meta->queue][meta->eg_part == LSW_PART_SHARED] -= c;
	if (meta->eg_part == LSW_PART_SHARED)
		mine->pool_shared[qp->pool] -= c;
	mine->pool_used[qp->pool] -= c;
}

bool
lsw_mmu_pg_xoff(struct lsw_mmu_lcore *const *all, uint16_t n, const struct lsw_mmu_conf *mc,
		uint16_t port, uint8_t pg)
{
	const struct lsw_mmu_prof *pp = &mc->pg[port][pg];

	if (!pp->lossless)
		return false;
	if (lsw_mmu_pg_occ(all, n, port, pg, LSW_PART_HEADROOM) > 0)
		return true;
	int64_t s = lsw_mmu_pg_occ(all, n, port, pg, LSW_PART_SHARED);
	uint64_t t = lsw_mmu_threshold(pp, &mc->pool[pp->pool],
				       lsw_mmu_pool_shared(all, n, pp->pool));
	/* Within one cell of the threshold the next frame goes to headroom. */
	return s + (int64_t)mc->cell > (int64_t)t;
}

bool
lsw_mmu_pg_xon(struct lsw_mmu_lcore *const *all, uint16_t n, const struct lsw_mmu_conf *mc,
	       uint16_t port, uint8_t pg)
{
	const struct lsw_mmu_prof *pp = &mc->pg[port][pg];

	if (lsw_mmu_pg_occ(all, n, port, pg, LSW_PART_HEADROOM) > 0)
		return false;
	int64_t s = lsw_mmu_pg_occ(all, n, port, pg, LSW_PART_SHARED);
	int64_t t = (int64_t)lsw_mmu_threshold(pp, &mc->pool[pp->pool],
					       lsw_mmu_pool_shared(all, n, pp->pool));
	int64_t lim = t - (int64_t)pp->xon_offset;
	/* SAI: resume at max(xon, limit - xon_offset) of PG usage beyond its reserve. */
	if (lim < (int64_t)pp->xon)
		lim = (int64_t)pp->xon;
	return s == 0 || s <= lim;
}
