/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ECN marking and WRED drop at dequeue (include/lsw/ecn.h). Called by the egress loop only
 * when the queue left behind is deeper than the lowest threshold of its profile, so that a
 * queue below kmin pays one compare per packet.
 */
#include <rte_ether.h>
#include <rte_ip.h>
#include "lsw/dataplane.h"
#include "lsw/ecn.h"

enum lsw_ecn_result
lsw_ecn_mark_ipv4(uint8_t *l3)
{
	struct rte_ipv4_hdr *ip = (struct rte_ipv4_hdr *)l3;
	uint16_t old = (uint16_t)(ip->version_ihl << 8 | ip->type_of_service);

	switch (ip->type_of_service & 3) {
	case 0:
		return LSW_ECN_NOT_ECT;
	case 3:
		return LSW_ECN_WAS_CE;
	}
	ip->type_of_service |= 3;
	ip->hdr_checksum = lsw_csum_update16(ip->hdr_checksum, old, old | 3);
	return LSW_ECN_MARKED;
}

enum lsw_ecn_result
lsw_ecn_mark_ipv6(uint8_t *l3)
{
	/* Version (4 bits), traffic class (8), flow label (20): ECN is bits 20-21. */
	switch (l3[1] >> 4 & 3) {
	case 0:
		return LSW_ECN_NOT_ECT;
	case 3:
		return LSW_ECN_WAS_CE;
	}
	l3[1] |= 3 << 4;
	return LSW_ECN_MARKED;
}

/* The ECN field of the IP packet in @m (routed frames leave untagged): -1 if not IP. */
static int
ecn_field(const struct rte_mbuf *m, uint8_t **l3)
{
	const struct rte_ether_hdr *eth = rte_pktmbuf_mtod(m, const struct rte_ether_hdr *);

	*l3 = rte_pktmbuf_mtod_offset(m, uint8_t *, RTE_ETHER_HDR_LEN);
	if (eth->ether_type == rte_cpu_to_be_16(RTE_ETHER_TYPE_IPV4))
		return (*l3)[1] & 3;
	if (eth->ether_type == rte_cpu_to_be_16(RTE_ETHER_TYPE_IPV6))
		return (*l3)[1] >> 4 & 3;
	return -1;
}

bool
lsw_ecn_dequeue(struct lsw_worker *w, const struct lsw_ecn_dp *a, uint16_t port, uint8_t q,
		struct rte_mbuf *m, uint64_t qlen)
{
	const struct lsw_pkt_meta *meta = lsw_meta(m);
	uint8_t *l3;
	int ecn;

	/* The congestion notification itself must get through; a trim is a loss signal
	 * already, never CE-marked (UEC). One test for both. */
	if (meta->flags & (LSW_META_CNP | LSW_META_TRIMMED))
		return false;
	if ((ecn = ecn_field(m, &l3)) < 0)
		return false;
	if (ecn != 0 && a->marks) {
		if (!lsw_ecn_hit(&a->mark, qlen, &w->rng))
			return false;
		enum lsw_ecn_result r = l3[0] >> 4 == 6 ? lsw_ecn_mark_ipv6(l3) :
							  lsw_ecn_mark_ipv4(l3);
		if (r == LSW_ECN_MARKED) {
			w->buffer->ctr.q_ecn_marked_pkts[port][q]++;
			w->buffer->ctr.q_ecn_marked_bytes[port][q] += m->pkt_len;
			w->ctr->port[port].ctr[LSW_PC_ECN_MARKED_PACKETS]++;
			if (meta->flags & LSW_META_ROCE)
				w->ctr->port[port].ctr[LSW_PC_ROCE_ECN_MARKED_PKTS]++;
			if (lsw_load_relaxed(&w->dp->dropsnap_mode) & LSW_DROPSNAP_MARKS)
				lsw_dropsnap_take(w, port, LSW_DROPSNAP_MARK, 0, m);
		}
		return false;
	}
	return a->drops && lsw_ecn_hit(&a->drop, qlen, &w->rng);
}
