/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Drop and mark snapshots, the control plane's side: the main lcore drains each worker's
 * ring (include/lsw/dropsnap.h) into one bounded store of the last LSW.global.drop_snapshots
 * entries, oldest overwritten first, and decodes them for drops.list.
 */
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <rte_cycles.h>
#include <rte_malloc.h>
#include <rte_ring_elem.h>
#include "lsw/log.h"
#include "switch.h"

static void
set_mode(struct lsw_switch *sw)
{
	const struct lsw_global_conf *g = &sw->cfg->g;
	uint8_t mode = (g->drop_snapshots ? LSW_DROPSNAP_DROPS : 0) |
		       (g->drop_snapshots && g->mark_snapshots ? LSW_DROPSNAP_MARKS : 0);

	lsw_store_relaxed(&sw->dp.dropsnap_mode, mode);
}

/* The store holds @n entries (0: none); what it held is dropped. */
static int
store_resize(struct lsw_switch *sw, uint32_t n)
{
	struct lsw_dropsnap *e = NULL;

	if (n && (e = rte_zmalloc("lsw_snaps", sizeof(*e) * n, 0)) == NULL)
		return -1;
	rte_free(sw->dropsnaps.e);
	sw->dropsnaps = (struct lsw_dropsnap_store){.e = e, .cap = n, .seq = sw->dropsnaps.seq};
	return 0;
}

int
lsw_dropsnap_init(struct lsw_switch *sw)
{
	char name[RTE_RING_NAMESIZE];

	for (uint16_t w = 0; w < sw->dp.n_workers; w++) {
		snprintf(name, sizeof(name), "lsw_snap_%u", w);
		sw->dp.dropsnap[w] = rte_ring_create_elem(name, sizeof(struct lsw_dropsnap),
							  LSW_DROPSNAP_RING,
						      SOCKET_ID_ANY, RING_F_SP_ENQ | RING_F_SC_DEQ |
						      RING_F_EXACT_SZ);
		if (sw->dp.dropsnap[w] == NULL)
			return -1;
	}
	if (store_resize(sw, sw->cfg->g.drop_snapshots) != 0)
		return -1;
	set_mode(sw);
	return 0;
}

void
lsw_dropsnap_free(struct lsw_switch *sw)
{
	for (uint16_t w = 0; w < LSW_MAX_WORKERS; w++) {
		rte_ring_free(sw->dp.dropsnap[w]);
		sw->dp.dropsnap[w] = NULL;
	}
	rte_free(sw->dropsnaps.e);
	sw->dropsnaps.e = NULL;
}

int
lsw_dropsnap_config(struct lsw_switch *sw, const struct lsw_config *old)
{
	if (old->g.drop_snapshots != sw->cfg->g.drop_snapshots &&
	    store_resize(sw, sw->cfg->g.drop_snapshots) != 0)
		return -1;
	set_mode(sw);
	return 0;
}

void
lsw_dropsnap_poll(struct lsw_switch *sw)
{
	struct lsw_dropsnap_store *st = &sw->dropsnaps;
	struct lsw_dropsnap tmp[32];

	for (uint16_t w = 0; w < sw->dp.n_workers; w++) {
		struct rte_ring *r = sw->dp.dropsnap[w];
		unsigned int n;
		while (r != NULL &&
		       (n = rte_ring_sc_dequeue_burst_elem(r, tmp, sizeof(tmp[0]), 32, NULL)) > 0) {
			for (unsigned int i = 0; i < n && st->cap; i++) {
				st->e[st->head] = tmp[i];
				st->head = (st->head + 1) % st->cap;
				st->n += st->n < st->cap;
				st->seq++;
			}
		}
	}
}

void
lsw_dropsnap_clear(struct lsw_switch *sw)
{
	lsw_dropsnap_poll(sw); /* what the workers handed over so far goes too */
	sw->dropsnaps.head = sw->dropsnaps.n = 0;
}

const struct lsw_dropsnap *
lsw_dropsnap_get(const struct lsw_switch *sw, uint32_t i, uint64_t *seq)
{
	const struct lsw_dropsnap_store *st = &sw->dropsnaps;

	if (i >= st->n)
		return NULL;
	/* Oldest first: the oldest is at head once the store has wrapped. */
	uint32_t idx = (st->head + st->cap - st->n + i) % st->cap;
	*seq = st->seq - st->n + i + 1;
	return &st->e[idx];
}

bool
lsw_dropsnap_roce(const struct lsw_dropsnap *s, struct lsw_dropsnap_bth *r)
{
	const uint8_t *p = s->data;
	uint32_t len = s->caplen, off = 12;

	if (len < 14)
		return false;
	uint16_t et = (uint16_t)(p[off] << 8 | p[off + 1]);
	if (et == 0x8100 && len >= 18) { /* the ingress tag, if dropped before removal */
		off += 4;
		et = (uint16_t)(p[off] << 8 | p[off + 1]);
	}
	off += 2;
	if (et != 0x0800 || len < off + 20 || p[off] >> 4 != 4 || p[off + 9] != 17)
		return false;
	off += (uint32_t)(p[off] & 0xf) * 4;
	if (len < off + 8 + 12 || (p[off + 2] << 8 | p[off + 3]) != 4791)
		return false;
	const uint8_t *bth = p + off + 8;
	r->opcode = bth[0];
	r->dqpn = (uint32_t)bth[5] << 16 | (uint32_t)bth[6] << 8 | bth[7];
	r->psn = (uint32_t)bth[9] << 16 | (uint32_t)bth[10] << 8 | bth[11];
	return true;
}
