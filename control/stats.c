/* SPDX-License-Identifier: BSD-3-Clause */
/* Counter reading: sum the workers' counters (each written by one worker only) and subtract
 * the baseline taken at the last clear. Nothing here writes a worker's memory. */
#include <stddef.h>
#include <string.h>
#include "switch.h"

static inline uint64_t
rd(const uint64_t *p)
{
	return __atomic_load_n(p, __ATOMIC_RELAXED);
}

void
lsw_stats_sum_raw(const struct lsw_switch *sw, struct lsw_lcore_counters *s)
{
	memset(s, 0, sizeof(*s));
	for (uint16_t w = 0; w < sw->dp.n_workers; w++) {
		const struct lsw_lcore_counters *c = &sw->dp.ctr[w];
		for (uint16_t p = 0; p < LSW_MAX_PORTS; p++) {
			for (int i = 0; i < LSW_PC_MAX; i++)
				s->port[p].ctr[i] += rd(&c->port[p].ctr[i]);
			for (int i = 0; i < LSW_DROP_MAX; i++)
				s->port[p].drop[i] += rd(&c->port[p].drop[i]);
			const uint64_t *pi = (const uint64_t *)&c->port[p].pfc;
			uint64_t *po = (uint64_t *)&s->port[p].pfc;
			for (size_t i = 0; i < sizeof(c->port[p].pfc) / 8; i++)
				po[i] += rd(&pi[i]);
		}
		for (int i = 0; i < LSW_EV_MAX; i++)
			s->event[i] += rd(&c->event[i]);
		s->loops += rd(&c->loops);
		s->busy_loops += rd(&c->busy_loops);
	}
}

void
lsw_stats_sum(const struct lsw_switch *sw, struct lsw_lcore_counters *s)
{
	const struct lsw_lcore_counters *b = &sw->base;

	lsw_stats_sum_raw(sw, s);
	for (uint16_t p = 0; p < LSW_MAX_PORTS; p++) {
		for (int i = 0; i < LSW_PC_MAX; i++)
			s->port[p].ctr[i] -= b->port[p].ctr[i];
		for (int i = 0; i < LSW_DROP_MAX; i++)
			s->port[p].drop[i] -= b->port[p].drop[i];
		const uint64_t *pb = (const uint64_t *)&b->port[p].pfc;
		uint64_t *po = (uint64_t *)&s->port[p].pfc;
		for (size_t i = 0; i < sizeof(b->port[p].pfc) / 8; i++)
			po[i] -= pb[i];
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

/* struct lsw_buffer_lcore is all 64-bit words in three regions: occupancy deltas (summed),
 * watermarks (max), counters (summed, minus the baseline). */
#define MMU_WORDS(from, to) \
	((offsetof(struct lsw_buffer_lcore, to) - offsetof(struct lsw_buffer_lcore, from)) / 8)

void
lsw_stats_buffer_raw(const struct lsw_switch *sw, struct lsw_buffer_lcore *out)
{
	const size_t occ = offsetof(struct lsw_buffer_lcore, pg_occ) / 8;
	const size_t wm = offsetof(struct lsw_buffer_lcore, pg_wm) / 8;
	const size_t ctr = offsetof(struct lsw_buffer_lcore, pg_pkts) / 8;
	const size_t end = sizeof(struct lsw_buffer_lcore) / 8;
	uint64_t *o = (uint64_t *)out;

	RTE_BUILD_BUG_ON(sizeof(struct lsw_buffer_lcore) % 8 != 0);
	memset(out, 0, sizeof(*out));
	for (uint16_t w = 0; w < sw->dp.n_workers; w++) {
		const uint64_t *in = (const uint64_t *)sw->dp.buffer[w];
		for (size_t i = occ; i < wm; i++)
			o[i] += rd(&in[i]);
		for (size_t i = wm; i < wm + MMU_WORDS(pg_wm, wm_gen); i++)
			o[i] = RTE_MAX(o[i], rd(&in[i]));
		for (size_t i = ctr; i < end; i++)
			o[i] += rd(&in[i]);
	}
}

void
lsw_stats_buffer(const struct lsw_switch *sw, struct lsw_buffer_lcore *out)
{
	const size_t ctr = offsetof(struct lsw_buffer_lcore, pg_pkts) / 8;
	const uint64_t *b = (const uint64_t *)sw->buffer_base;
	uint64_t *o = (uint64_t *)out;

	lsw_stats_buffer_raw(sw, out);
	for (size_t i = ctr; b != NULL && i < sizeof(*out) / 8; i++)
		o[i] -= b[i];
}

/* Clear one port (@port >= 0) or everything (-1, events included). */
void
lsw_stats_clear(struct lsw_switch *sw, int port)
{
	struct lsw_lcore_counters now;

	lsw_stats_sum_raw(sw, &now);
	for (uint16_t p = 0; p < sw->cfg->n_ports; p++) {
		if (port >= 0 && p != port)
			continue;
		sw->base.port[p] = now.port[p];
		rte_eth_stats_get(sw->port[p].port_id, &sw->pmd_base[p]);
	}
	if (port < 0)
		memcpy(sw->base.event, now.event, sizeof(now.event));
	/* MMU counters: all of them (they are per PG, queue and pool, not only per port). */
	if (port < 0 && sw->buffer_base != NULL)
		lsw_stats_buffer_raw(sw, sw->buffer_base);
	if (port < 0)
		lsw_ecmp_clear(sw);
}
