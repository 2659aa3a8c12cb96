/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Admission and release (include/lsw/buffer.h). The ingress decision follows SAI/SONiC:
 * reserved first, then shared under the PG's threshold, then (lossless PGs only) headroom;
 * a lossless PG that is out of headroom drops as HEADROOM_OVERFLOW, a lossy one at its
 * threshold as INGRESS_PG_THRESHOLD. The egress queue has its own reserved and shared
 * threshold; lossless traffic is never dropped there, so that XOFF always comes first
 * (ns3-rdma#11). Both decisions are taken before anything is charged. The thresholds are the
 * pool's sharing policy's (lsw_buffer_limit); ABM's inputs come from each port's owner
 * (lsw_buffer_abm_update), read once per run.
 */
#include "lsw/buffer.h"
#include "lsw/dataplane.h"

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

static inline void
wm(uint64_t *w, int64_t v)
{
	if (v > (int64_t)*w)
		*w = (uint64_t)v;
}

/* The size histograms take a run of @same frames of @len bytes in one update. */
static inline void
hist_flush(struct lsw_buffer_lcore *mine, uint8_t tc, uint32_t len, uint32_t same)
{
	if (same) {
		mine->ctr.tc_hist[tc][lsw_hist_bin[len]] += same;
		mine->ctr.len_hist[len] += same;
	}
}

/* Count a frame of @len bytes: @last_len and @same hold the run of equal sizes so far;
 * the caller flushes the last one (hist_flush). */
static inline void
hist_count(struct lsw_buffer_lcore *mine, uint8_t tc, uint32_t len, uint32_t *last_len,
	   uint32_t *same)
{
	uint32_t l = RTE_MIN(len, (uint32_t)LSW_MAX_FRAME);

	if (l != *last_len) {
		hist_flush(mine, tc, *last_len, *same);
		*last_len = l;
		*same = 0;
	}
	(*same)++;
}

/* A run's admission: the class and the state it starts from, read once, and what it adds,
 * written once. The helpers below are always inlined into lsw_buffer_admit_run, so that
 * the struct lives in registers as the locals of one function did. */
struct run {
	uint16_t ip, op;
	uint8_t pg, q, tc;
	bool eg_check; /* hpcc_sim: "egress admission always passes" (CheckEgressAdmission) */
	const struct lsw_prof_dp *pp, *qp;
	const struct lsw_pool_dp *ipool, *epool;
	/* Occupancy at the start: the PG's parts, its pool's shared and headroom, the
	 * queue's parts, its pool's shared. */
	int64_t r0, s0, h0, ips0, ph0, er0, es0, eps0;
	int64_t pkt_room; /* packets the run may add */
	/* ABM's n_p and drain rate: read once for the run, as the simulator takes them once
	 * per update interval. */
	struct lsw_abm_in in_abm, eg_abm;
	/* What the run adds: the PG's reserved, shared, headroom; the queue's reserved and
	 * shared; bytes admitted and refused; admission's drops by reason (WRED's come at
	 * dequeue, tx.c). */
	int64_t dr, ds, dh, der, des;
	uint64_t bytes, dropped_bytes;
	uint16_t admitted, drops[LSW_QDROP_WRED_DROP];
	uint32_t last_len, same; /* runs of equal sizes share one histogram update */
};

static __rte_always_inline void
run_start(struct run *r, struct lsw_buffer_lcore *const *all, uint16_t n,
	  struct lsw_buffer_lcore *mine, const struct lsw_buffer_dp *mc,
	  const struct lsw_pkt_meta *cls)
{
	const uint16_t ip = cls->in_port, op = cls->out_port;
	const uint8_t pg = cls->pg, q = cls->queue;

	*r = (struct run){.ip = ip, .op = op, .pg = pg, .q = q, .tc = cls->tc,
			  .pp = &mc->pg[ip][pg], .qp = &mc->q[op][q], .last_len = UINT32_MAX};
	r->ipool = &mc->pool[r->pp->pool];
	r->epool = &mc->pool[r->qp->pool];
	r->eg_check = r->epool->policy != LSW_POLICY_HPCC_SIM;
	r->r0 = lsw_buffer_pg_occ(all, n, ip, pg, LSW_PART_RESERVED);
	r->s0 = lsw_buffer_pg_occ(all, n, ip, pg, LSW_PART_SHARED);
	r->h0 = lsw_buffer_pg_occ(all, n, ip, pg, LSW_PART_HEADROOM);
	r->ips0 = LSW_BUFFER_POOLWIDE(all, n, mine, pool_shared[r->pp->pool]);
	r->ph0 = r->ipool->hdrm_shared ?
		 LSW_BUFFER_POOLWIDE(all, n, mine, pool_hdrm[r->pp->pool]) : 0;
	r->er0 = lsw_buffer_q_occ(all, n, op, q, 0);
	r->es0 = lsw_buffer_q_occ(all, n, op, q, 1);
	r->eps0 = LSW_BUFFER_POOLWIDE(all, n, mine, pool_shared[r->qp->pool]);
	/* Lossless packets up to the mbufs' limit; lossy ones while the PG holds fewer than
	 * the packets left below pkt_xoff (alpha 1). */
	const int64_t held0 = LSW_BUFFER_POOLWIDE(all, n, mine, pkts_held);
	const int64_t pgh0 = LSW_BUFFER_SUM(all, n, pg_held[ip][pg]);
	r->pkt_room = r->pp->lossless ? (int64_t)mc->pkt_limit - held0 :
		      ((int64_t)mc->pkt_xoff - held0 - pgh0 + 1) / 2;
	if (unlikely(mc->abm_pools)) {
		if (r->ipool->policy == LSW_POLICY_ABM)
			lsw_buffer_abm_in(all, n, mc, false, ip, pg, &r->in_abm);
		/* Unscheduled packets take their alpha at the egress queue only, as ABM's
		 * simulator (an egress queue discipline) has it: a lossless PG's admission then
		 * agrees with its XOFF and XON, which know no packet. Runs are split by the flag
		 * (admit.c): one alpha for the run. */
		if (r->epool->policy == LSW_POLICY_ABM) {
			lsw_buffer_abm_in(all, n, mc, true, op, q, &r->eg_abm);
			r->eg_abm.unsched = cls->flags & LSW_META_UNSCHED;
			r->eg_abm.shift = mc->abm_unsched_shift;
		}
	}
}

/*
 * The common case, decided for the whole run at once: none dropped. Reserved space is
 * taken as one by one would (a packet goes there while it fits), which needs no threshold;
 * then the shared bytes the run adds are checked once, at the run's end. Each policy's
 * threshold only falls as shared bytes are added (complete sharing's stays level), so what
 * fits at the end fits at every packet: the same decisions as one by one. Each packet's
 * charge goes to res[i], whole, its parts first taken as shared; only while the PG or the
 * queue has reserve left are they found one by one (a part is one bit, over the reserve or
 * not). True when the whole run is admitted, its sums in @r; false leaves @r as it was,
 * for run_one_by_one (which writes res anew).
 */
static __rte_always_inline bool
run_whole(struct run *r, struct lsw_buffer_lcore *mine, const struct lsw_buffer_dp *mc,
	  const uint32_t *len, uint16_t k, uint8_t *drop, struct lsw_charge *res)
{
	int64_t fr = 0, fer = 0, ctot = 0;
	uint64_t flen = 0;
	bool one_len = true;

	if (k > r->pkt_room)
		return false;
	for (uint16_t i = 0; i < k; i++) {
		const uint32_t c = lsw_buffer_charge(mc, len[i]);
		res[i] = (struct lsw_charge){.bytes = (uint16_t)c, .len = (uint16_t)len[i],
					     .in_port = (uint8_t)r->ip, .pg = r->pg,
					     .in_part = LSW_PART_SHARED,
					     .eg_part = LSW_PART_SHARED};
		ctot += c;
		flen += len[i];
		one_len &= len[i] == len[0];
	}
	/* Reserve left: none, the common case under load, and every byte is shared (a charge
	 * of 0 bytes, were there one, charges no part). */
	const int64_t rin = (int64_t)r->pp->reserved - r->r0;
	const int64_t rout = (int64_t)r->qp->reserved - r->er0;
	if (rin > 0 || rout > 0)
		for (uint16_t i = 0; i < k; i++) {
			const int64_t c = res[i].bytes;
			const bool in_sh = fr + c > rin, eg_sh = fer + c > rout;
			fr += in_sh ? 0 : c;
			fer += eg_sh ? 0 : c;
			res[i].in_part = in_sh;
			res[i].eg_part = eg_sh;
		}
	const int64_t fs = ctot - fr, fes = ctot - fer;
	if (!((fs == 0 ||
	       (r->ips0 + fs <= (int64_t)r->ipool->shared &&
		r->s0 + fs <= (int64_t)lsw_buffer_limit(r->pp, r->ipool, r->ips0 + fs,
							r->s0 + fs, &r->in_abm))) &&
	      (fes == 0 || r->pp->lossless || !r->eg_check ||
	       (r->eps0 + fes <= (int64_t)r->epool->shared &&
		r->es0 + fes <= (int64_t)lsw_buffer_limit(r->qp, r->epool, r->eps0 + fes,
							  r->es0 + fes, &r->eg_abm)))))
		return false;
	memset(drop, LSW_DROP_NONE, k);
	if (one_len) {
		r->last_len = RTE_MIN(len[0], (uint32_t)LSW_MAX_FRAME);
		r->same = k;
	} else {
		for (uint16_t i = 0; i < k; i++)
			hist_count(mine, r->tc, len[i], &r->last_len, &r->same);
	}
	r->dr = fr, r->ds = fs, r->der = fer, r->des = fes;
	r->bytes = flen;
	r->admitted = k;
	return true;
}

/* Some of the run may be refused: packet by packet, each against the state the ones
 * before it left. */
static __rte_always_inline void
run_one_by_one(struct run *r, struct lsw_buffer_lcore *mine, const struct lsw_buffer_dp *mc,
	       const uint32_t *len, uint16_t k, uint8_t *drop, struct lsw_charge *res)
{
	const struct lsw_prof_dp *pp = r->pp, *qp = r->qp;
	const struct lsw_pool_dp *ipool = r->ipool, *epool = r->epool;
	uint64_t in_thr = 0, eg_thr = 0;
	int64_t in_thr_at = -1, eg_thr_at = -1; /* pool usage the thresholds were taken at */

	for (uint16_t i = 0; i < k; i++) {
		const int64_t c = (int64_t)lsw_buffer_charge(mc, len[i]);
		int in_part, eg_part;
		enum lsw_drop d = LSW_DROP_NONE;

		/* Ingress (port, PG): reserved, shared under the threshold, then headroom. */
		if (r->admitted >= r->pkt_room) {
			d = LSW_DROP_MBUF_LIMIT;
			in_part = LSW_PART_RESERVED;
		} else if (r->r0 + r->dr + c <= (int64_t)pp->reserved) {
			in_part = LSW_PART_RESERVED;
		} else {
			if (in_thr_at != r->ips0 + r->ds) {
				in_thr = lsw_buffer_limit(pp, ipool, r->ips0 + r->ds, r->s0 + r->ds,
							  &r->in_abm);
				in_thr_at = r->ips0 + r->ds;
			}
			if (r->s0 + r->ds + c <= (int64_t)in_thr &&
			    r->ips0 + r->ds + c <= (int64_t)ipool->shared)
				in_part = LSW_PART_SHARED;
			else if (pp->lossless && r->h0 + r->dh + c <= (int64_t)pp->xoff &&
				 (ipool->hdrm_shared == 0 ||
				  r->ph0 + r->dh + c <= (int64_t)ipool->hdrm_shared))
				in_part = LSW_PART_HEADROOM;
			else
				d = pp->lossless ? LSW_DROP_HEADROOM_OVERFLOW :
						   LSW_DROP_INGRESS_PG_THRESHOLD;
		}
		/* Egress (port, queue); lossless traffic is never dropped here. */
		if (r->er0 + r->der + c <= (int64_t)qp->reserved) {
			eg_part = LSW_PART_RESERVED;
		} else {
			eg_part = LSW_PART_SHARED;
			if (d == LSW_DROP_NONE && !pp->lossless && r->eg_check) {
				if (eg_thr_at != r->eps0 + r->des) {
					eg_thr = lsw_buffer_limit(qp, epool, r->eps0 + r->des,
								  r->es0 + r->des, &r->eg_abm);
					eg_thr_at = r->eps0 + r->des;
				}
				if (r->es0 + r->des + c > (int64_t)eg_thr ||
				    r->eps0 + r->des + c > (int64_t)epool->shared)
					d = LSW_DROP_EGRESS_QUEUE_THRESHOLD;
			}
		}
		drop[i] = (uint8_t)d;
		if (d != LSW_DROP_NONE) {
			r->drops[lsw_qdrop_of(d)]++;
			r->dropped_bytes += len[i];
			continue;
		}
		res[i] = (struct lsw_charge){.bytes = (uint16_t)c, .len = (uint16_t)len[i],
					     .in_port = (uint8_t)r->ip, .pg = r->pg,
					     .in_part = (uint8_t)in_part,
					     .eg_part = (uint8_t)eg_part};
		r->dr += in_part == LSW_PART_RESERVED ? c : 0;
		r->ds += in_part == LSW_PART_SHARED ? c : 0;
		r->dh += in_part == LSW_PART_HEADROOM ? c : 0;
		r->der += eg_part == LSW_PART_RESERVED ? c : 0;
		r->des += eg_part == LSW_PART_SHARED ? c : 0;
		r->bytes += len[i];
		r->admitted++;
		hist_count(mine, r->tc, len[i], &r->last_len, &r->same);
	}
}

/* One write per state word for the run, and what it left its PG and queue holding (for
 * their watermarks). */
static __rte_always_inline void
run_commit(const struct run *r, struct lsw_buffer_lcore *mine, uint16_t k)
{
	const uint16_t ip = r->ip, op = r->op;
	const uint8_t pg = r->pg, q = r->q, tc = r->tc;
	const uint8_t ipl = r->pp->pool, epl = r->qp->pool;

	hist_flush(mine, tc, r->last_len, r->same);
	mine->use.pg_occ[ip][pg][LSW_PART_RESERVED] += r->dr;
	mine->use.pg_occ[ip][pg][LSW_PART_SHARED] += r->ds;
	mine->use.pg_occ[ip][pg][LSW_PART_HEADROOM] += r->dh;
	mine->use.pool_shared[ipl] += r->ds;
	mine->use.pool_hdrm[ipl] += r->dh;
	mine->use.pool_used[ipl] += r->dr + r->ds + r->dh;
	mine->use.q_occ[op][q][0] += r->der;
	mine->use.q_occ[op][q][1] += r->des;
	mine->use.pool_shared[epl] += r->des;
	mine->use.pool_used[epl] += r->der + r->des;
	mine->use.pkts_held += r->admitted;
	mine->use.pg_held[ip][pg] += r->admitted;
	mine->ctr.pg_pkts[ip][pg] += r->admitted;
	if (unlikely(r->eg_abm.unsched))
		mine->ctr.q_abm_unsched_pkts[op][q] += r->admitted;
	mine->ctr.pg_bytes[ip][pg] += r->bytes;
	mine->ctr.tc_bytes[tc] += r->bytes;
	mine->ctr.tc_charged[tc] += (uint64_t)(r->dr + r->ds + r->dh);
	if (r->admitted != k) {
		const uint64_t in_drops = r->drops[LSW_QDROP_INGRESS_PG_THRESHOLD] +
					  r->drops[LSW_QDROP_HEADROOM_OVERFLOW] +
					  r->drops[LSW_QDROP_MBUF_LIMIT];
		mine->ctr.pg_drops[ip][pg] += in_drops;
		mine->ctr.q_drop_bytes[op][q] += r->dropped_bytes;
		for (int j = 0; j < LSW_QDROP_WRED_DROP; j++)
			mine->ctr.q_drop_reason[op][q][j] += r->drops[j];
		mine->ctr.pool_drops[ipl] += in_drops;
		mine->ctr.pool_drops[epl] += r->drops[LSW_QDROP_EGRESS_QUEUE_THRESHOLD];
	}
	mine->seen.run_pg[LSW_PART_RESERVED] = r->r0 + r->dr;
	mine->seen.run_pg[LSW_PART_SHARED] = r->s0 + r->ds;
	mine->seen.run_pg[LSW_PART_HEADROOM] = r->h0 + r->dh;
	mine->seen.run_q[0] = r->er0 + r->der;
	mine->seen.run_q[1] = r->es0 + r->des;
}

/*
 * Admit @k packets of @len bytes that share one (ingress port, PG), one (egress port,
 * queue) and one TC, those of @cls, in order. Each is decided against the state as it
 * stands after the ones before it, as if admitted one by one, but the state is read once
 * and written once for the whole run. drop[i] gets the reason packet i is refused, or
 * LSW_DROP_NONE; res[i] what an admitted one was charged. Returns the admitted count.
 */
uint16_t
lsw_buffer_admit_run(struct lsw_buffer_lcore *const *all, uint16_t n, struct lsw_buffer_lcore *mine,
		     const struct lsw_buffer_dp *mc, const struct lsw_pkt_meta *cls,
		     const uint32_t *len, uint16_t k, uint8_t *drop, struct lsw_charge *res)
{
	struct run r;

	run_start(&r, all, n, mine, mc, cls);
	if (unlikely(!run_whole(&r, mine, mc, len, k, drop, res)))
		run_one_by_one(&r, mine, mc, len, k, drop, res);
	run_commit(&r, mine, k);
	return r.admitted;
}

enum lsw_drop
lsw_buffer_admit(struct lsw_buffer_lcore *const *all, uint16_t n, struct lsw_buffer_lcore *mine,
		 const struct lsw_buffer_dp *mc, struct lsw_pkt_meta *meta, uint32_t len)
{
	struct lsw_charge c;
	uint8_t d;

	if (lsw_buffer_admit_run(all, n, mine, mc, meta, &len, 1, &d, &c) == 1)
		lsw_meta_charge(meta, &c);
	return (enum lsw_drop)d;
}

/* Watermarks of (port, PG) @ip/@pg, (port, queue) @op/@q and their pools, after a run
 * admitted to them (lsw_buffer_admit_run): the occupancy it summed and added to, not summed
 * again. Within one worker occupancy only grows during an rx burst, so taking them after
 * each run sees every peak. */
void
lsw_buffer_watermarks(struct lsw_buffer_lcore *const *all, uint16_t n,
		      struct lsw_buffer_lcore *mine, const struct lsw_buffer_dp *mc, uint16_t ip,
		      uint8_t pg, uint16_t op, uint8_t q)
{
	const int64_t r = mine->seen.run_pg[LSW_PART_RESERVED];
	const int64_t s = mine->seen.run_pg[LSW_PART_SHARED];
	const int64_t h = mine->seen.run_pg[LSW_PART_HEADROOM];
	const int64_t er = mine->seen.run_q[0], es = mine->seen.run_q[1];
	uint8_t ipool = mc->pg[ip][pg].pool, epool = mc->q[op][q].pool;

	wm(&mine->wm.pg[ip][pg][LSW_WM_TOTAL], r + s + h);
	wm(&mine->wm.pg[ip][pg][LSW_WM_SHARED], s);
	wm(&mine->wm.pg[ip][pg][LSW_WM_HEADROOM], h);
	wm(&mine->wm.q[op][q][LSW_WM_TOTAL], er + es);
	wm(&mine->wm.q[op][q][LSW_WM_SHARED], es);
	wm(&mine->wm.pool[ipool], LSW_BUFFER_POOLWIDE(all, n, mine, pool_used[ipool]));
	wm(&mine->wm.pool[epool], LSW_BUFFER_POOLWIDE(all, n, mine, pool_used[epool]));
}

void
lsw_buffer_seen_take(struct lsw_buffer_lcore *const *all, uint16_t n,
		     struct lsw_buffer_lcore *mine, uint16_t n_pools)
{
	struct lsw_buffer_seen *s = &mine->seen;

	s->pkts_held = 0;
	for (uint16_t p = 0; p < n_pools; p++)
		s->pool_shared[p] = s->pool_hdrm[p] = s->pool_used[p] = 0;
	for (uint16_t w = 0; w < n; w++) {
		const struct lsw_buffer_use *u = &all[w]->use;
		if (all[w] == mine)
			continue;
		s->pkts_held += lsw_counter_read(&u->pkts_held);
		for (uint16_t p = 0; p < n_pools; p++) {
			s->pool_shared[p] += lsw_counter_read(&u->pool_shared[p]);
			s->pool_hdrm[p] += lsw_counter_read(&u->pool_hdrm[p]);
			s->pool_used[p] += lsw_counter_read(&u->pool_used[p]);
		}
	}
	s->n = n;
}

void
lsw_buffer_abm_in(struct lsw_buffer_lcore *const *all, uint16_t n, const struct lsw_buffer_dp *mc,
		  bool queue, uint16_t port, uint8_t idx, struct lsw_abm_in *a)
{
	const struct lsw_prof_dp *p = queue ? &mc->q[port][idx] : &mc->pg[port][idx];
	int64_t np = LSW_BUFFER_SUM(all, n, abm_sat[p->pool][idx]);

	a->np = np <= 0 ? 0 : np >= UINT32_MAX ? UINT32_MAX : (uint32_t)np;
	a->drain = LSW_ABM_ONE;
	/* A PG has no drain rate of its own: mu / b = 1. A queue not measured yet: 1, as
	 * ABM's simulator starts (DeqRate = 1). */
	if (queue) {
		uint32_t d = lsw_load_relaxed(&all[mc->owner[port]]->abm.drain[port][idx]);
		if (d != 0)
			a->drain = d;
	}
}

/* The threshold of PG @pg of @port holding @s shared bytes. */
static inline uint64_t
pg_limit(struct lsw_buffer_lcore *const *all, uint16_t n, const struct lsw_buffer_dp *mc,
	 uint16_t port, uint8_t pg, int64_t s)
{
	const struct lsw_prof_dp *pp = &mc->pg[port][pg];
	struct lsw_abm_in a = {0};

	if (mc->pool[pp->pool].policy == LSW_POLICY_ABM)
		lsw_buffer_abm_in(all, n, mc, false, port, pg, &a);
	return lsw_buffer_limit(pp, &mc->pool[pp->pool], lsw_buffer_pool_shared(all, n, pp->pool),
				s, &a);
}

uint64_t
lsw_buffer_pg_limit(struct lsw_buffer_lcore *const *all, uint16_t n,
		    const struct lsw_buffer_dp *mc, uint16_t port, uint8_t pg)
{
	int64_t s = lsw_buffer_pg_occ(all, n, port, pg, LSW_PART_SHARED);

	return pg_limit(all, n, mc, port, pg, s);
}

uint64_t
lsw_buffer_q_limit(struct lsw_buffer_lcore *const *all, uint16_t n,
		   const struct lsw_buffer_dp *mc, uint16_t port, uint8_t q)
{
	const struct lsw_prof_dp *qp = &mc->q[port][q];
	struct lsw_abm_in a = {0};

	if (mc->pool[qp->pool].policy == LSW_POLICY_HPCC_SIM)
		return (uint64_t)INT64_MAX; /* egress admission always passes */
	if (mc->pool[qp->pool].policy == LSW_POLICY_ABM)
		lsw_buffer_abm_in(all, n, mc, true, port, q, &a);
	return lsw_buffer_limit(qp, &mc->pool[qp->pool], lsw_buffer_pool_shared(all, n, qp->pool),
				lsw_buffer_q_occ(all, n, port, q, 1), &a);
}

/* A fraction @num / @den in LSW_ABM_ONE units, at most 1. */
static inline uint32_t
abm_frac(unsigned __int128 num, unsigned __int128 den)
{
	if (den == 0 || num >= den)
		return LSW_ABM_ONE;
	return (uint32_t)((num << 16) / den);
}

void
lsw_buffer_abm_update(struct lsw_buffer_lcore *const *all, uint16_t n,
		      struct lsw_buffer_lcore *mine, const struct lsw_buffer_dp *mc,
		      uint16_t port, uint64_t rate_bps, uint64_t now, uint64_t hz)
{
	struct lsw_buffer_abm *a = &mine->abm;
	const uint64_t dt = now - a->at[port];

	if (mc->abm_pools == 0 ||
	    (unsigned __int128)dt * 1000000000u < (unsigned __int128)mc->abm_update_ns * hz)
		return;
	a->at[port] = now;
	for (uint8_t i = 0; i < LSW_NUM_QUEUES; i++) {
		const struct lsw_prof_dp *qp = &mc->q[port][i], *pp = &mc->pg[port][i];
		if (mc->pool[qp->pool].policy == LSW_POLICY_ABM) {
			/* Drain rate: what the queue sent over what the port could have. ABM's
			 * simulator takes a queue under 1/8 of the port (its fair share of 8
			 * queues), idle ones included, or over it, as 1 (UpdateDequeueRate). */
			uint64_t tx = mine->ctr.q_tx_bytes[port][i];
			uint64_t sent = tx - a->tx[port][i];
			a->tx[port][i] = tx;
			uint32_t mu = abm_frac((unsigned __int128)sent * 8 * hz,
					       (unsigned __int128)rate_bps * dt);
			if (mu < LSW_ABM_ONE / LSW_NUM_QUEUES)
				mu = LSW_ABM_ONE;
			lsw_store_relaxed(&a->drain[port][i], mu);
			int64_t occ = lsw_buffer_q_occ(all, n, port, i, 0) +
				      lsw_buffer_q_occ(all, n, port, i, 1);
			uint32_t sat = abm_frac(occ > 0 ? (uint64_t)occ : 0, mc->abm_sat);
			mine->use.abm_sat[qp->pool][i] += (int64_t)sat - a->q_sat[port][i];
			a->q_sat[port][i] = sat;
		}
		if (mc->pool[pp->pool].policy == LSW_POLICY_ABM) {
			int64_t occ = lsw_buffer_pg_occ(all, n, port, i, LSW_PART_RESERVED) +
				      lsw_buffer_pg_occ(all, n, port, i, LSW_PART_SHARED) +
				      lsw_buffer_pg_occ(all, n, port, i, LSW_PART_HEADROOM);
			uint32_t sat = abm_frac(occ > 0 ? (uint64_t)occ : 0, mc->abm_sat);
			mine->use.abm_sat[pp->pool][i] += (int64_t)sat - a->pg_sat[port][i];
			a->pg_sat[port][i] = sat;
		}
	}
}

bool
lsw_buffer_pg_xoff(struct lsw_buffer_lcore *const *all, uint16_t n, const struct lsw_buffer_dp *mc,
		   uint16_t port, uint8_t pg)
{
	const struct lsw_prof_dp *pp = &mc->pg[port][pg];

	if (!pp->lossless)
		return false;
	if (lsw_buffer_pg_occ(all, n, port, pg, LSW_PART_HEADROOM) > 0)
		return true;
	int64_t r = lsw_buffer_pg_occ(all, n, port, pg, LSW_PART_RESERVED);
	int64_t s = lsw_buffer_pg_occ(all, n, port, pg, LSW_PART_SHARED);
	/* An idle PG never pauses, whatever its thresholds (a threshold of 0 would otherwise
	 * send XOFF and XON in turn every loop). */
	if (r + s == 0)
		return false;
	/* Short of packets: past pkt_xoff, or this PG at its share of what is left. */
	int64_t held = lsw_buffer_pkts_held(all, n);
	int64_t pgh = LSW_BUFFER_SUM(all, n, pg_held[port][pg]);
	if (held > (int64_t)mc->pkt_xoff || pgh >= (int64_t)mc->pkt_xoff - held)
		return true;
	uint64_t t = pg_limit(all, n, mc, port, pg, s);
	const struct lsw_pool_dp *pool = &mc->pool[pp->pool];
	/* hpcc_sim: PAUSE once the PG's shared bytes reach T (switch-mmu.cc CheckShouldPause). */
	if (pool->policy == LSW_POLICY_HPCC_SIM)
		return s >= (int64_t)t;
	/* Within one cell of the threshold the next frame goes to headroom. */
	return s + (int64_t)mc->cell > (int64_t)t;
}

bool
lsw_buffer_pg_xon(struct lsw_buffer_lcore *const *all, uint16_t n, const struct lsw_buffer_dp *mc,
		  uint16_t port, uint8_t pg)
{
	const struct lsw_prof_dp *pp = &mc->pg[port][pg];

	int64_t held = lsw_buffer_pkts_held(all, n);
	if (lsw_buffer_pg_occ(all, n, port, pg, LSW_PART_HEADROOM) > 0 ||
	    held > (int64_t)mc->pkt_xon ||
	    LSW_BUFFER_SUM(all, n, pg_held[port][pg]) > (int64_t)mc->pkt_xon - held)
		return false;
	int64_t s = lsw_buffer_pg_occ(all, n, port, pg, LSW_PART_SHARED);
	int64_t t = (int64_t)pg_limit(all, n, mc, port, pg, s);
	/* hpcc_sim: RESUME once no headroom is held and the PG is empty or resume_offset
	 * below T (switch-mmu.cc CheckShouldResume); the profile's xon is not used. */
	if (mc->pool[pp->pool].policy == LSW_POLICY_HPCC_SIM)
		return s == 0 || s + LSW_HPCC_RESUME_OFFSET <= t;
	int64_t lim = t - (int64_t)pp->xon_offset;
	/* SAI: resume at max(xon, limit - xon_offset) of PG usage beyond its reserve. */
	if (lim < (int64_t)pp->xon)
		lim = (int64_t)pp->xon;
	return s == 0 || s <= lim;
}
