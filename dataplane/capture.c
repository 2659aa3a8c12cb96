/* SPDX-License-Identifier: BSD-3-Clause */
/* Live capture, the worker's side (include/lsw/capture.h): filter, copy, hand over. */
#include <rte_bpf.h>
#include <rte_cycles.h>
#include <rte_ethdev.h>
#include <rte_ring_elem.h>
#include "lsw/dataplane.h"

/* The copies of one burst, kept back until we know which frames the PMD took. */
struct stage {
	uint16_t n;
	uint16_t pkt[LSW_BURST * LSW_CAPTURE_MAX];  /* the frame each copy is of */
	struct lsw_capture_rec rec[LSW_BURST * LSW_CAPTURE_MAX];
};

static inline bool
wanted(const struct lsw_capture_sess_dp *s, struct rte_mbuf *m)
{
	if (s->bpf == NULL)
		return true;
	/* A cBPF program returns the bytes to keep: 0 rejects the frame. */
	return (s->jit != NULL ? s->jit(m) : rte_bpf_exec(s->bpf, m)) != 0;
}

/* The first @snaplen bytes of @m: a small copy when they fit one, else (or when the small
 * pool is empty) one from the pool of whole frames; NULL when neither has one. */
static inline struct rte_mbuf *
snap(const struct lsw_dp *dp, struct rte_mbuf *m, uint32_t snaplen)
{
	struct rte_mbuf *c = NULL;

	if (RTE_MIN(snaplen, m->pkt_len) <= LSW_CAPTURE_SMALL)
		c = rte_pktmbuf_copy(m, dp->capture_small, 0, snaplen);
	return c != NULL ? c : rte_pktmbuf_copy(m, dp->capture_pool, 0, snaplen);
}

/* What each session of @port in direction @dir wants of @pkts, copied into @st. The filter
 * runs on the frame itself, so that only what is kept is copied. A copy the pools could not
 * give is staged too (m NULL): it is missed only if the frame leaves. */
static void
copy(const struct lsw_snapshot *conf, const struct lsw_dp *dp, uint16_t port, uint8_t dir,
     struct rte_mbuf **pkts, uint16_t n, uint64_t tsc, struct stage *st)
{
	n = RTE_MIN(n, (uint16_t)LSW_BURST); /* no caller passes more than a burst */
	st->n = 0;
	for (uint8_t i = 0; i < conf->capture.n; i++) {
		const struct lsw_capture_sess_dp *s = &conf->capture.s[i];
		if (s->port != port || !(s->dirs >> dir & 1))
			continue;
		for (uint16_t k = 0; k < n; k++) {
			struct rte_mbuf *m = pkts[k];
			if (!wanted(s, m))
				continue;
			st->pkt[st->n] = k;
			st->rec[st->n++] = (struct lsw_capture_rec){
				.m = snap(dp, m, s->snaplen),
				.tsc = tsc, .len = m->pkt_len, .port = (uint8_t)port, .dir = dir,
				.slot = s->slot,
			};
		}
	}
}

static inline void
missed(struct lsw_worker *w, uint8_t slot)
{
	w->ctr->event[LSW_EV_CAPTURE_MISSED]++;
	w->ctr->capture_missed[slot]++;
}

/* Hand over the copies of the first @sent frames; those of the others go back. */
static void
commit(struct lsw_worker *w, struct stage *st, uint16_t sent)
{
	uint16_t k = 0;

	for (uint16_t i = 0; i < st->n; i++) {
		struct lsw_capture_rec *r = &st->rec[i];
		if (st->pkt[i] >= sent)
			rte_pktmbuf_free(r->m); /* not sent (yet): its copy comes when it is */
		else if (r->m == NULL)
			missed(w, r->slot);
		else
			st->rec[k++] = *r;
	}
	if (k == 0)
		return;
	unsigned int q = rte_ring_sp_enqueue_burst_elem(w->dp->capture[w->idx], st->rec,
						       sizeof(st->rec[0]), k, NULL);
	for (uint16_t i = (uint16_t)q; i < k; i++) {
		missed(w, st->rec[i].slot);
		rte_pktmbuf_free(st->rec[i].m);
	}
}

void
lsw_capture_rx(struct lsw_worker *w, const struct lsw_snapshot *conf, uint16_t port,
	       struct rte_mbuf **pkts, uint16_t n, uint64_t now)
{
	struct stage st;

	copy(conf, w->dp, port, LSW_CAPTURE_RX, pkts, n, now, &st);
	commit(w, &st, n);
}

uint16_t
lsw_capture_tx_burst(struct lsw_worker *w, const struct lsw_snapshot *conf, uint16_t port,
		     struct rte_mbuf **pkts, uint16_t n)
{
	struct stage st;

	/* Copied before the burst: a PMD such as memif frees the frames it takes at once. */
	copy(conf, w->dp, port, LSW_CAPTURE_TX, pkts, n, rte_rdtsc(), &st);
	uint16_t sent = rte_eth_tx_burst(conf->port[port].port_id, 0, pkts, n);
	commit(w, &st, sent);
	return sent;
}
