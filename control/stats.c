/* SPDX-License-Identifier: BSD-3-Clause */
/* Counter reading: sum the workers' counters (each written by one worker only) and subtract
 * the baseline taken at the last clear. Nothing here writes a worker's memory. */
#include <stdlib.h>
#include <string.h>
#include "switch.h"

static inline uint64_t
rd(const uint64_t *p)
{
	return lsw_counter_read(p);
}

static void
sum_raw(const struct lsw_switch *sw, struct lsw_lcore_counters *s)
{
	memset(s, 0, sizeof(*s));
	for (uint16_t w = 0; w < sw->dp.n_workers; w++) {
		const struct lsw_lcore_counters *c = &sw->dp.ctr[w];
		for (uint16_t p = 0; p < LSW_MAX_PORTS; p++) {
			for (int i = 0; i < LSW_PC_MAX; i++)
				s->port[p].ctr[i] += rd(&c->port[p].ctr[i]);
			for (int i = 0; i < LSW_DROP_MAX; i++)
				s->port[p].drop[i] += rd(&c->port[p].drop[i]);
			for (int n = 0; n < 8; n++) {
#define PFC_ADD(name, f) s->port[p].pfc.f[n] += rd(&c->port[p].pfc.f[n]);
				LSW_FOREACH_PFC_CTR(PFC_ADD)
#undef PFC_ADD
			}
		}
		for (int i = 0; i < LSW_EV_MAX; i++)
			s->event[i] += rd(&c->event[i]);
		s->loops += rd(&c->loops);
		s->busy_loops += rd(&c->busy_loops);
	}
}

/* The raw sums into @s: the open request's reading (made on its first use), else a fresh
 * one. */
static void
read_counters(const struct lsw_switch *sw, struct lsw_lcore_counters *s)
{
	struct lsw_stats_view *v = sw->view;

	if (v == NULL || !v->open) {
		sum_raw(sw, s);
		return;
	}
	if (!v->have_ctr) {
		sum_raw(sw, &v->ctr);
		v->have_ctr = true;
	}
	memcpy(s, &v->ctr, sizeof(*s));
}

void
lsw_stats_view_begin(struct lsw_switch *sw)
{
	if (sw == NULL || sw->view == NULL) /* no switch: the RPC unit test's methods */
		return;
	sw->view->open = true;
	sw->view->have_ctr = sw->view->have_buf = false;
}

void
lsw_stats_view_end(struct lsw_switch *sw)
{
	if (sw != NULL && sw->view != NULL)
		sw->view->open = false;
}

uint64_t
lsw_stats_event(const struct lsw_switch *sw, uint16_t w, enum lsw_event e)
{
	return rd(&sw->dp.ctr[w].event[e]);
}

void
lsw_stats_sum(const struct lsw_switch *sw, struct lsw_lcore_counters *s)
{
	const struct lsw_lcore_counters *b = &sw->base;

	read_counters(sw, s);
	for (uint16_t p = 0; p < LSW_MAX_PORTS; p++) {
		for (int i = 0; i < LSW_PC_MAX; i++)
			s->port[p].ctr[i] -= b->port[p].ctr[i];
		for (int i = 0; i < LSW_DROP_MAX; i++)
			s->port[p].drop[i] -= b->port[p].drop[i];
		for (int n = 0; n < 8; n++) {
#define PFC_SUB(name, f) s->port[p].pfc.f[n] -= b->port[p].pfc.f[n];
			LSW_FOREACH_PFC_CTR(PFC_SUB)
#undef PFC_SUB
		}
	}
	for (int i = 0; i < LSW_EV_MAX; i++)
		s->event[i] -= b->event[i];
}

void
lsw_stats_pmd(const struct lsw_switch *sw, uint16_t port, struct rte_eth_stats *st)
{
	const struct rte_eth_stats *b = &sw->pmd_base[port];

	memset(st, 0, sizeof(*st));
	if (rte_eth_stats_get(sw->port[port].port_id, st) != 0)
		return;
	st->ipackets -= b->ipackets;
	st->opackets -= b->opackets;
	st->ibytes -= b->ibytes;
	st->obytes -= b->obytes;
	st->imissed -= b->imissed;
	st->ierrors -= b->ierrors;
	st->oerrors -= b->oerrors;
	st->rx_nombuf -= b->rx_nombuf;
}

/* @n words of @in into @out: added, or the larger kept. Relaxed loads: a worker may be
 * writing them. */
static void
add_words(uint64_t *out, const uint64_t *in, size_t n)
{
	for (size_t i = 0; i < n; i++)
		out[i] += rd(&in[i]);
}

static void
max_words(uint64_t *out, const uint64_t *in, size_t n)
{
	for (size_t i = 0; i < n; i++)
		out[i] = RTE_MAX(out[i], rd(&in[i]));
}

#define WORDS(part) (sizeof(part) / sizeof(uint64_t))

static void
buffer_raw(const struct lsw_switch *sw, struct lsw_buffer_lcore *out)
{
	/* Each part of struct lsw_buffer_lcore holds 64-bit words only (include/lsw/buffer.h);
	 * the occupancy's are signed, and add up alike as unsigned. */
	RTE_BUILD_BUG_ON(sizeof(out->use) % 8 || sizeof(out->wm) % 8 || sizeof(out->ctr) % 8);
	memset(out, 0, sizeof(*out));
	for (uint16_t w = 0; w < sw->dp.n_workers; w++) {
		const struct lsw_buffer_lcore *in = sw->dp.buffer[w];
		add_words((uint64_t *)&out->use, (const uint64_t *)&in->use, WORDS(in->use));
		max_words((uint64_t *)&out->wm, (const uint64_t *)&in->wm, WORDS(in->wm));
		add_words((uint64_t *)&out->ctr, (const uint64_t *)&in->ctr, WORDS(in->ctr));
	}
}

static void
read_buffer(const struct lsw_switch *sw, struct lsw_buffer_lcore *out)
{
	struct lsw_stats_view *v = sw->view;

	if (v == NULL || !v->open) {
		buffer_raw(sw, out);
		return;
	}
	if (!v->have_buf) {
		buffer_raw(sw, &v->buf);
		v->have_buf = true;
	}
	memcpy(out, &v->buf, sizeof(*out));
}

struct lsw_buffer_lcore *
lsw_stats_buffer(const struct lsw_switch *sw, bool raw)
{
	/* The struct is cache-aligned: so is its view. Too large for a stack. */
	struct lsw_buffer_lcore *out = aligned_alloc(__alignof__(*out), sizeof(*out));

	if (out == NULL)
		return NULL;
	read_buffer(sw, out);
	if (raw || sw->buffer_base == NULL)
		return out;
	uint64_t *o = (uint64_t *)&out->ctr;
	const uint64_t *b = (const uint64_t *)&sw->buffer_base->ctr;
	for (size_t i = 0; i < WORDS(out->ctr); i++)
		o[i] -= b[i];
	return out;
}

struct lsw_lcore_counters *
lsw_stats_counters(const struct lsw_switch *sw, bool raw)
{
	struct lsw_lcore_counters *out = aligned_alloc(__alignof__(*out), sizeof(*out));

	if (out == NULL)
		return NULL;
	if (raw)
		read_counters(sw, out);
	else
		lsw_stats_sum(sw, out);
	return out;
}

/* Clear one port (@port >= 0) or everything (-1, events included). */
void
lsw_stats_clear(struct lsw_switch *sw, int port)
{
	struct lsw_lcore_counters now; /* a clear allocates nothing, so it cannot fail */

	sum_raw(sw, &now);
	for (uint16_t p = 0; p < sw->cfg->n_ports; p++) {
		if (port >= 0 && p != port)
			continue;
		sw->base.port[p] = now.port[p];
		rte_eth_stats_get(sw->port[p].port_id, &sw->pmd_base[p]);
	}
	if (port < 0)
		memcpy(sw->base.event, now.event, sizeof(now.event));
	/* Buffer counters: all of them (they are per PG, queue and pool, not only per port). */
	if (port < 0 && sw->buffer_base != NULL)
		buffer_raw(sw, sw->buffer_base);
	if (port < 0)
		lsw_ecmp_clear(sw);
}
