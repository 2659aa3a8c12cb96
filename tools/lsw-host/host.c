/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The host engine: what an emulated RoCE NIC does with the frames it receives and when it
 * sends (RC transport, DCQCN, PFC), in rooms as Linux's soft RoCE has them (engine.h). Here
 * the engine's clock: lsw_hosts_poll runs timers, posts and transmission up to a time and
 * says when it next has work; the workload's start, the rate samples and the emulator's
 * stalls; building a run, starting and freeing it.
 */
#include <stdlib.h>
#include <string.h>
#include <rte_common.h>
#include "engine.h"

const char *const lsw_host_ctr_names[LSW_HC_MAX] = {
#define X(n, d) #n,
	LSW_FOREACH_HOST_CTR(X)
#undef X
};

static void
sample_qp(struct lsw_hosts *e, struct lsw_qp *qp, uint64_t now)
{
	struct lsw_host *h = &e->host[qp->src];

	if (e->n_samples == e->sample_cap) {
		uint32_t cap = e->sample_cap ? 2 * e->sample_cap : 4096;
		struct lsw_sample *s = realloc(e->sample, cap * sizeof(*s));
		if (s == NULL)
			abort();
		e->sample = s;
		e->sample_cap = cap;
	}
	e->sample[e->n_samples++] = (struct lsw_sample){
		.t_ns = now - e->start_ns, .qp = qp->idx,
		.stall_us = (float)(e->stall_ns + e->ring_full_ns - e->stall_sampled) / 1000,
		.rate_bps = (float)lsw_host_qp_rate(h, qp, now),
		.tx_bps = (float)((qp->st.bytes_sent - qp->st.bytes_sample) * 8 * NSEC_S /
				  (double)e->sample_ns),
		.alpha = h->c.cc == LSW_CC_NONE ? 0.0f : (float)qp->rp.alpha};
	qp->st.bytes_sample = qp->st.bytes_sent;
}

/* The QPs that sent or may send: the active ones, and those that went idle since the last
 * sample (their last interval's bytes). Not every QP: a Poisson run has a hundred thousand. */
static void
take_samples(struct lsw_hosts *e, uint64_t now)
{
	for (uint16_t i = 0; i < e->n_hosts; i++) {
		const struct lsw_host *h = &e->host[i];
		for (uint32_t k = 0; h->local && k < h->n_active; k++)
			sample_qp(e, &e->qp[h->active[k]], now);
	}
	for (uint32_t k = 0; k < e->n_idle; k++) {
		struct lsw_qp *qp = &e->qp[e->idle[k]];
		if (!qp->active && qp->st.bytes_sent != qp->st.bytes_sample)
			sample_qp(e, qp, now);
	}
	e->n_idle = 0;
	e->stall_sampled = e->stall_ns + e->ring_full_ns;
}

/* A poll later than the last one asked, by more than a stall's threshold. A poll that asked
 * for a time already past (something was due, or waits for the ring) wanted the next at
 * once: late from its own time. */
static void
stall_check(struct lsw_hosts *e, uint64_t now)
{
	uint64_t asked = RTE_MAX(e->want_ns, e->poll_ns);

	e->poll_ns = now;
	if (asked == 0 || now <= asked + LSW_HOST_STALL_NS)
		return;
	uint64_t late = now - asked;
	e->stalls++;
	e->stall_ns += late;
	if (late > e->stall_max_ns)
		e->stall_max_ns = late;
}

/* The workload's clock starts once every host here knows its gateway (and the switch has
 * heard each of them ask), after settle_ns: times in the config count from then. */
static bool
workload_go(struct lsw_hosts *e, uint64_t now)
{
	for (uint16_t i = 0; i < e->n_hosts; i++)
		if (e->host[i].local && (!e->host[i].gw_resolved || !e->host[i].arp_announced))
			return false;
	e->ready = true;
	e->start_ns = now + e->settle_ns;
	for (uint32_t i = 0; i < e->n_posts; i++)
		e->post[i].at += e->start_ns;
	for (uint32_t i = 0; i < e->n_coll; i++)
		e->coll[i].start_at += e->start_ns;
	e->sample_next = e->start_ns;
	for (uint16_t i = 0; i < e->n_hosts; i++) {
		struct lsw_host *h = &e->host[i];
		h->storm_from = e->start_ns + h->c.storm_start_ns;
		h->storm_until = h->c.storm_ns ? h->storm_from + h->c.storm_ns : 0;
		h->storm_next = h->storm_from;
	}
	return true;
}

uint64_t
lsw_hosts_poll(struct lsw_hosts *e, uint64_t now)
{
	uint64_t next = UINT64_MAX;

	e->now = now;
	stall_check(e, now);
	if (!e->ready && !workload_go(e, now)) {
		/* Only ARP until then: the hosts' own traffic waits. */
		for (uint16_t i = 0; i < e->n_hosts; i++) {
			struct lsw_host *h = &e->host[i];
			if (!h->local)
				continue;
			if (e->io.tx_room(e->io.ctx, h) > 0 && due(h->link_next, now))
				lsw_host_tx_one(e, h, now);
			next = earlier(next, lsw_host_next(e, h, now));
		}
		e->want_ns = next == UINT64_MAX ? 0 : next;
		return next;
	}
	while (e->post_next < e->n_posts && due(e->post[e->post_next].at, now)) {
		const struct lsw_post *p = &e->post[e->post_next++];
		lsw_host_post_msg(e, &e->qp[p->qp], p->size, p->coll_step, now);
	}
	for (uint32_t i = 0; i < e->n_coll; i++) {
		struct lsw_coll *c = &e->coll[i];
		if (c->running || c->iter >= c->iterations)
			continue;
		if (due(c->start_at, now)) {
			c->running = true;
			/* An iteration's JCT counts its compute phase (bench §10.1). */
			c->start_ns = now - c->compute_ns;
			lsw_host_coll_step_start(e, c, now);
		} else {
			next = earlier(next, c->start_at);
		}
	}
	if (e->sample_ns && due(e->sample_next, now) && !lsw_hosts_done(e)) {
		take_samples(e, now);
		while (due(e->sample_next, now))
			e->sample_next += e->sample_ns;
	}
	for (uint16_t i = 0; i < e->n_hosts; i++) {
		struct lsw_host *h = &e->host[i];
		if (!h->local)
			continue;
		lsw_host_pause_expire(h, now);
		if (h->c.rx_buffer)
			lsw_host_rxbuf_drain(h, now);
		lsw_host_qp_timers(e, h, now);
		for (uint32_t room = e->io.tx_room(e->io.ctx, h); room > 0; room--) {
			if (!due(h->link_next, now) || !lsw_host_tx_one(e, h, now))
				break;
		}
		next = earlier(next, lsw_host_next(e, h, now));
	}
	if (e->post_next < e->n_posts)
		next = earlier(next, e->post[e->post_next].at);
	if (e->sample_ns && !lsw_hosts_done(e))
		next = earlier(next, e->sample_next);
	e->want_ns = next == UINT64_MAX ? 0 : next;
	return next;
}

bool
lsw_hosts_done(const struct lsw_hosts *e)
{
	if (!e->ready)
		return false;
	for (uint32_t i = 0; i < e->n_coll; i++) {
		const struct lsw_coll *c = &e->coll[i];
		bool failed = false;
		for (uint32_t k = 0; k < c->n; k++)
			failed |= e->qp[c->qps[k]].error; /* its barrier never comes */
		if (c->iter < c->iterations && !failed)
			return false;
	}
	return e->post_next == e->n_posts && e->msgs_done + e->msgs_failed >= e->msgs_posted;
}

/* ---- building a run ------------------------------------------------------------------- */

int
lsw_hosts_add_qp(struct lsw_hosts *e, uint16_t src, uint16_t dst, enum lsw_op_kind op)
{
	if (e->n_qps == e->qp_cap) {
		uint32_t cap = e->qp_cap ? 2 * e->qp_cap : 64;
		struct lsw_qp *q = realloc(e->qp, cap * sizeof(*q));
		if (q == NULL)
			return -1;
		e->qp = q;
		e->qp_cap = cap;
	}
	struct lsw_qp *qp = &e->qp[e->n_qps];
	memset(qp, 0, sizeof(*qp));
	qp->idx = e->n_qps++;
	qp->qpn = LSW_QPN_BASE + qp->idx;
	qp->src = src;
	qp->dst = dst;
	qp->op = op;
	qp->mtu = RTE_MIN(e->host[src].c.mtu, e->host[dst].c.mtu);
	/* Per-QP UDP source port, as NICs derive it, for ECMP entropy (49152..65535). */
	qp->sport = (uint16_t)(49152 + ((qp->qpn * 2654435761u) >> 18) % 16384);
	return (int)qp->idx;
}

int
lsw_hosts_add_post(struct lsw_hosts *e, uint64_t at, uint32_t qp, uint32_t size, int32_t step)
{
	if (e->n_posts == e->post_cap) {
		uint32_t cap = e->post_cap ? 2 * e->post_cap : 64;
		struct lsw_post *p = realloc(e->post, cap * sizeof(*p));
		if (p == NULL)
			return -1;
		e->post = p;
		e->post_cap = cap;
	}
	e->post[e->n_posts++] = (struct lsw_post){.at = at, .qp = qp, .size = size,
						  .coll_step = step};
	return 0;
}

static int
post_cmp(const void *a, const void *b)
{
	const struct lsw_post *x = a, *y = b;

	if (x->at != y->at)
		return x->at < y->at ? -1 : 1;
	return x->qp < y->qp ? -1 : x->qp > y->qp;
}

void
lsw_hosts_sort_posts(struct lsw_hosts *e)
{
	if (e->n_posts > 1) /* e->post is NULL with none: qsort's argument is nonnull */
		qsort(e->post, e->n_posts, sizeof(*e->post), post_cmp);
}

static uint32_t
pow2_at_least(uint32_t n)
{
	uint32_t p = 16;

	while (p < n)
		p *= 2;
	return p;
}

void
lsw_hosts_start(struct lsw_hosts *e, uint64_t now)
{
	uint32_t touch[LSW_HOST_MAX] = {0};

	for (uint32_t i = 0; i < e->n_qps; i++) {
		touch[e->qp[i].src]++;
		touch[e->qp[i].dst]++;
	}
	e->start_ns = e->now = now;
	for (uint16_t i = 0; i < e->n_hosts; i++) {
		struct lsw_host *h = &e->host[i];
		h->idx = i;
		h->ctl_cap = pow2_at_least(touch[i]);
		h->ctl_ack = calloc(h->ctl_cap, sizeof(uint32_t));
		h->ctl_cnp = calloc(h->ctl_cap, sizeof(uint32_t));
		h->trim_nak = h->c.trim_aware ? calloc(LSW_TRIM_NAK_RING, sizeof(*h->trim_nak)) :
			      NULL;
		if (h->ctl_ack == NULL || h->ctl_cnp == NULL ||
		    (h->c.trim_aware && h->trim_nak == NULL))
			abort();
		h->link_next = now;
		h->rxbuf_at = now;
		h->arp_next = now;
		h->storm_from = 0; /* set when the workload starts */
		if (h->c.gw_mac_static) {
			h->gw_mac = h->c.gw_mac;
			h->gw_resolved = true;
		}
	}
	for (uint32_t i = 0; i < e->n_qps; i++) {
		struct lsw_qp *qp = &e->qp[i];
		struct lsw_host *h = &e->host[qp->src];
		lsw_dcqcn_rp_init(&qp->rp, &h->c.dcqcn, h->c.speed_bps, now);
		qp->next_tx = now;
	}
}

void
lsw_hosts_free(struct lsw_hosts *e)
{
	for (uint16_t i = 0; i < e->n_hosts; i++) {
		free(e->host[i].ctl_ack);
		free(e->host[i].ctl_cnp);
		free(e->host[i].trim_nak);
		free(e->host[i].active);
	}
	for (uint32_t i = 0; i < e->n_qps; i++) {
		free(e->qp[i].msg);
		lsw_host_trim_free(&e->qp[i]);
	}
	for (uint32_t i = 0; i < e->n_coll; i++) {
		free(e->coll[i].qps);
		free(e->coll[i].jct_ns);
	}
	free(e->qp);
	free(e->post);
	free(e->coll);
	free(e->fct);
	free(e->sample);
	free(e->idle);
	memset(e, 0, sizeof(*e));
}
