/* SPDX-License-Identifier: BSD-3-Clause */
/* Drop and mark snapshots, the worker's side (include/lsw/dropsnap.h). */
#include <string.h>
#include <rte_ring_elem.h>
#include "lsw/dataplane.h"
#include "lsw/dropsnap.h"

const char *const lsw_dropsnap_kind_names[] = {"drop", "mark", "trim", NULL};

/* Reasons counted once the packet was routed and classified, so that its metadata says
 * where it was going; the earlier ones (parsing, filters, routing) know only the port. */
static bool
routed(uint16_t d)
{
	switch (d) {
	case LSW_DROP_TTL:
	case LSW_DROP_EXCEEDS_L3_MTU:
	case LSW_DROP_L3_EGRESS_LINK_DOWN:
	case LSW_DROP_UNRESOLVED_NEXT_HOP:
	case LSW_DROP_NEIGH_HOLD_OVERFLOW:
	case LSW_DROP_PFC_WD_RX_DROP:
	case LSW_DROP_INGRESS_PG_THRESHOLD:
	case LSW_DROP_HEADROOM_OVERFLOW:
	case LSW_DROP_EGRESS_QUEUE_THRESHOLD:
	case LSW_DROP_WRED_DROP:
	case LSW_DROP_PFC_WD_TX_DROP:
	case LSW_DROP_TX_RING_FULL:
	case LSW_DROP_TX_QUEUE_FULL:
	case LSW_DROP_SHUTDOWN:
		return true;
	default:
		return false;
	}
}

void
lsw_dropsnap_take(struct lsw_worker *w, uint16_t port, uint8_t kind, uint16_t reason,
		  struct rte_mbuf *m)
{
	struct rte_ring *r = w->dp->dropsnap[w->idx];

	if (r == NULL)
		return;
	/* The worker is the ring's only producer: free room can only grow behind our back, so
	 * the room last seen is there still. A ring found full is looked at again the next
	 * loop, not at the next drop: under a flood of drops each costs its counters alone,
	 * not a read of the line the control plane writes as it drains. */
	if (w->snap_room == 0) {
		if (w->snap_full_at == w->ctr->loops + 1 ||
		    (w->snap_room = rte_ring_free_count(r)) == 0) {
			w->snap_full_at = w->ctr->loops + 1;
			w->ctr->event[LSW_EV_SNAPSHOT_MISSED]++;
			return;
		}
	}
	w->snap_room--;
	const struct lsw_pkt_meta *meta = lsw_meta(m);
	struct lsw_dropsnap s = {
		.tsc = rte_rdtsc(),
		.len = (uint16_t)RTE_MIN(m->pkt_len, (uint32_t)UINT16_MAX),
		.reason = reason,
		.rx_port_id = m->port == RTE_MBUF_PORT_INVALID ? LSW_DROPSNAP_PORT_NONE : m->port,
		.kind = kind,
		.port = (uint8_t)port,
		.out_port = LSW_DROPSNAP_NONE,
		.queue = LSW_DROPSNAP_NONE,
		.caplen = (uint8_t)RTE_MIN(m->data_len, (uint16_t)LSW_DROPSNAP_BYTES),
	};
	if (meta->flags & LSW_META_CTL) {
		s.out_port = (uint8_t)port; /* switch-originated: only sent, never routed */
	} else if (kind != LSW_DROPSNAP_DROP || routed(reason)) {
		s.out_port = meta->out_port;
		s.queue = meta->queue;
	}
	memcpy(s.data, rte_pktmbuf_mtod(m, const void *), s.caplen);
	rte_ring_sp_enqueue_elem(r, &s, sizeof(s));
}
