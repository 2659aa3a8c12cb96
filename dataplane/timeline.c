/* SPDX-License-Identifier: BSD-3-Clause */
/* The timeline recorder, worker side (include/lsw/timeline.h): samples of the ports a worker
 * owns at the interval, and events as they happen, into the worker's own ring. */
#include <rte_ring_elem.h>
#include "lsw/dataplane.h"

static void
put(struct lsw_worker *w, const struct lsw_tl_rec *r, unsigned int n)
{
	/* Never waits: what does not fit is counted, and the control plane writes a LOST
	 * record for it, so that a reader knows where the gap is. */
	unsigned int done = rte_ring_sp_enqueue_burst_elem(w->dp->timeline[w->idx], r,
							   sizeof(*r), n, NULL);

	w->ctr->event[LSW_EV_TIMELINE_RECORDS] += done;
	w->ctr->event[LSW_EV_TIMELINE_LOST] += n - done;
}

void
lsw_timeline_event(struct lsw_worker *w, uint8_t kind, uint16_t port, uint8_t idx, uint32_t v0,
		   uint64_t now)
{
	struct lsw_tl_rec r = {.t = now, .kind = kind, .port = (uint8_t)port, .idx = idx,
			       .v0 = v0};

	put(w, &r, 1);
}

void
lsw_timeline_put(struct lsw_worker *w, const struct lsw_tl_rec *r)
{
	put(w, r, 1);
}

/* Counters and occupancy are read as every other reader does: each worker's, summed. */
#define RD(x) lsw_counter_read(&(x))

/* What happened since the previous sample: @cur less @last, and @last moved on. On a
 * fresh run the baseline is the current value. */
static uint64_t
delta(uint64_t *last, uint64_t cur, bool fresh)
{
	uint64_t d = fresh ? 0 : cur - *last;

	*last = cur;
	return d;
}

/* Occupancy summed from the workers' signed deltas is negative for a moment when a
 * release is read before its admission: that is nothing. */
static inline uint64_t
pos(int64_t v)
{
	return v > 0 ? (uint64_t)v : 0;
}

/* Whether @r is all zeros: then it is written only when the last one of its queue or PG
 * (@idle's bit @i) was not. Idle queues and PGs are most of a port's: left out, they cost
 * the worker nothing to write and the reader nothing to store. */
static bool
keep(const struct lsw_tl_rec *r, uint8_t *idle, unsigned int i)
{
	bool zero = r->v0 == 0;

	for (unsigned int k = 0; k < RTE_DIM(r->v) && zero; k++)
		zero = r->v[k] == 0;
	if (!zero) {
		*idle &= (uint8_t)~(1u << i);
		return true;
	}
	if (*idle >> i & 1)
		return false;
	*idle |= (uint8_t)(1u << i);
	return true;
}

static unsigned int
sample_queues(struct lsw_worker *w, const struct lsw_snapshot *conf, uint16_t port,
	      struct lsw_tl_rec *r, uint64_t now, bool fresh)
{
	const struct lsw_sched *s = w->dp->sched[port];
	unsigned int n = 0;

	if (fresh)
		w->tl.q_idle[port] = 0;
	for (uint8_t q = 0; q < LSW_NUM_QUEUES; q++) {
		uint64_t c[5] = {0};
		for (uint16_t i = 0; i < conf->n_workers; i++) {
			const struct lsw_buffer_ctr *b = &w->dp->buffer[i]->ctr;
			c[0] += RD(b->q_tx_pkts[port][q]);
			c[1] += RD(b->q_tx_bytes[port][q]);
			c[2] += RD(b->q_ecn_marked_pkts[port][q]);
			for (int d = 0; d < LSW_QDROP_MAX; d++)
				c[3] += RD(b->q_drop_reason[port][q][d]);
			c[4] += RD(b->q_drop_bytes[port][q]);
		}
		r[n] = (struct lsw_tl_rec){
			.t = now, .kind = LSW_TL_QUEUE, .port = (uint8_t)port, .idx = q,
			.v0 = lsw_fifo_count(&s->q[q]), .v[0] = s->q[q].bytes,
		};
		for (int k = 0; k < 5; k++)
			r[n].v[1 + k] = delta(&w->tl.q_last[port][q][k], c[k], fresh);
		n += keep(&r[n], &w->tl.q_idle[port], q);
	}
	return n;
}

static unsigned int
sample_pgs(struct lsw_worker *w, const struct lsw_snapshot *conf, uint16_t port,
	   struct lsw_tl_rec *r, uint64_t now, bool fresh)
{
	struct lsw_buffer_lcore *const *all = w->dp->buffer;
	unsigned int n = 0;

	if (fresh)
		w->tl.pg_idle[port] = 0;
	for (uint8_t pg = 0; pg < LSW_NUM_PG; pg++) {
		int64_t held = 0;
		for (uint16_t i = 0; i < conf->n_workers; i++)
			held += RD(all[i]->use.pg_held[port][pg]);
		r[n] = (struct lsw_tl_rec){
			.t = now, .kind = LSW_TL_PG, .port = (uint8_t)port, .idx = pg,
			.v0 = (uint32_t)pos(held),
			.v[0] = pos(lsw_buffer_pg_occ(all, conf->n_workers, port, pg,
						      LSW_PART_RESERVED)),
			.v[1] = pos(lsw_buffer_pg_occ(all, conf->n_workers, port, pg,
						      LSW_PART_SHARED)),
			.v[2] = pos(lsw_buffer_pg_occ(all, conf->n_workers, port, pg,
						      LSW_PART_HEADROOM)),
		};
		n += keep(&r[n], &w->tl.pg_idle[port], pg);
	}
	return n;
}

static void
sample_port(struct lsw_worker *w, const struct lsw_snapshot *conf, uint16_t port,
	    struct lsw_tl_rec *r, uint64_t now, bool fresh)
{
	const struct lsw_pfc_port *pf = &w->dp->sched[port]->pfc;
	uint64_t c[4] = {0};

	for (uint16_t i = 0; i < conf->n_workers; i++) {
		const uint64_t *pc = w->dp->ctr[i].port[port].ctr;
		c[0] += RD(pc[LSW_PC_IF_IN_OCTETS]);
		c[1] += RD(pc[LSW_PC_IF_IN_UCAST_PKTS]) + RD(pc[LSW_PC_IF_IN_NON_UCAST_PKTS]);
		c[2] += RD(pc[LSW_PC_IF_OUT_OCTETS]);
		c[3] += RD(pc[LSW_PC_IF_OUT_UCAST_PKTS]) + RD(pc[LSW_PC_IF_OUT_NON_UCAST_PKTS]);
	}
	*r = (struct lsw_tl_rec){.t = now, .kind = LSW_TL_PORT, .port = (uint8_t)port,
				 .idx = LSW_TL_NONE};
	for (int k = 0; k < 4; k++)
		r->v[k] = delta(&w->tl.port_last[port][k], c[k], fresh);
	/* An 802.3x PAUSE stops every priority. */
	r->v[4] = pf->rx_port_paused ? 0xff : pf->rx_paused;
	r->v[5] = pf->tx_paused;
}

static void
sample_ecmp(struct lsw_worker *w, uint16_t port, struct lsw_tl_rec *r, uint64_t now)
{
	const struct lsw_ecmp_sig *sig = &w->dp->ecmp_sig[port];

	*r = (struct lsw_tl_rec){
		.t = now, .kind = LSW_TL_ECMP, .port = (uint8_t)port, .idx = LSW_TL_NONE,
		.v0 = sig->quality, .v[0] = sig->load_level, .v[1] = sig->queue_level,
		.v[2] = sig->paused,
	};
}

static void
sample_pools(struct lsw_worker *w, const struct lsw_snapshot *conf, uint64_t now)
{
	struct lsw_tl_rec r[LSW_MAX_POOLS];

	for (uint8_t i = 0; i < conf->buffer.n_pools; i++) {
		int64_t c[3] = {0};
		for (uint16_t k = 0; k < conf->n_workers; k++) {
			const struct lsw_buffer_use *u = &w->dp->buffer[k]->use;
			c[0] += RD(u->pool_used[i]);
			c[1] += RD(u->pool_shared[i]);
			c[2] += RD(u->pool_hdrm[i]);
		}
		r[i] = (struct lsw_tl_rec){.t = now, .kind = LSW_TL_POOL, .port = LSW_TL_NONE,
					   .idx = i};
		for (int k = 0; k < 3; k++)
			r[i].v[k] = pos(c[k]);
	}
	put(w, r, conf->buffer.n_pools);
}

void
lsw_timeline_sample(struct lsw_worker *w, const struct lsw_snapshot *conf, uint64_t now)
{
	const struct lsw_timeline_dp *tl = &conf->timeline;
	struct lsw_timeline_worker *s = &w->tl;
	bool fresh = s->gen != tl->gen;

	if (fresh) {
		s->gen = tl->gen;
		s->next = now;
	}
	for (unsigned int i = 0; i < conf->n_owned[w->idx]; i++) {
		uint16_t port = conf->owned[w->idx][i];
		struct lsw_tl_rec r[LSW_NUM_QUEUES + LSW_NUM_PG + 2];
		unsigned int n = 0;
		if (!(tl->ports >> port & 1))
			continue;
		if (tl->what & LSW_TL_W(QUEUES))
			n += sample_queues(w, conf, port, r + n, now, fresh);
		if (tl->what & LSW_TL_W(PGS))
			n += sample_pgs(w, conf, port, r + n, now, fresh);
		if (tl->what & LSW_TL_W(PORTS))
			sample_port(w, conf, port, &r[n++], now, fresh);
		if (tl->what & LSW_TL_W(ECMP))
			sample_ecmp(w, port, &r[n++], now);
		if (n != 0)
			put(w, r, n);
	}
	/* The pools are switch-wide: the first worker samples them. */
	if (w->idx == 0 && (tl->what & LSW_TL_W(POOLS)))
		sample_pools(w, conf, now);
	/* The next sample one interval after this one was due, not after now, so that the
	 * samples keep to the interval on average; intervals the worker was too late for
	 * (asleep, preempted) are skipped and counted, never recorded twice. */
	s->next += tl->interval;
	if ((int64_t)(now - s->next) >= 0) {
		uint64_t late = (now - s->next) / tl->interval + 1;
		w->ctr->event[LSW_EV_TIMELINE_SKIPPED] += late;
		s->next += late * tl->interval;
	}
}
