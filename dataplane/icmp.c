/* SPDX-License-Identifier: BSD-3-Clause */
/* ICMP the switch answers (echo) and originates (time exceeded, fragmentation needed). */
#include <rte_ip.h>
#include <rte_icmp.h>
#include "lsw/dataplane.h"

#define ICMP_ERR_MAX_QUOTE 548 /* RFC 1812 4.3.2.3: the error stays within 576 bytes */

/* Data starts at the Ethernet header; drop a VLAN tag so replies go out untagged. */
struct rte_ether_hdr *
lsw_icmp_untag(struct rte_mbuf *m, const struct lsw_pkt_info *pi)
{
	if (pi->flags & LSW_PF_VLAN) {
		struct rte_ether_hdr eth = *rte_pktmbuf_mtod(m, struct rte_ether_hdr *);
		struct rte_ether_hdr *n = (struct rte_ether_hdr *)rte_pktmbuf_adj(m, 4);
		n->dst_addr = eth.dst_addr;
		n->src_addr = eth.src_addr;
		return n;
	}
	return rte_pktmbuf_mtod(m, struct rte_ether_hdr *);
}

enum lsw_drop
lsw_icmp_echo_reply(struct rte_mbuf *m, const struct lsw_pkt_info *pi,
		    const struct lsw_port_dp *port)
{
	struct rte_ipv4_hdr *ip = rte_pktmbuf_mtod_offset(m, struct rte_ipv4_hdr *, pi->l3_off);
	uint32_t ihl = rte_ipv4_hdr_len(ip), len = pi->l3_len - ihl;

	if (pi->l4_proto != IPPROTO_ICMP || (pi->flags & LSW_PF_FRAGMENT))
		return LSW_DROP_LOCAL_UNSUPPORTED;
	if (len < sizeof(struct rte_icmp_hdr))
		return LSW_DROP_ICMP_MALFORMED;
	struct rte_icmp_hdr *icmp = (struct rte_icmp_hdr *)((uint8_t *)ip + ihl);
	if (icmp->icmp_type != RTE_IP_ICMP_ECHO_REQUEST)
		return LSW_DROP_LOCAL_UNSUPPORTED;
	if (rte_raw_cksum(icmp, len) != 0xffff)
		return LSW_DROP_ICMP_MALFORMED;

	/* Type 8 -> 0, code unchanged: RFC 1624 update of the first 16-bit word. */
	uint32_t sum = (uint16_t)~rte_be_to_cpu_16(icmp->icmp_cksum);
	sum += (uint16_t)~(RTE_IP_ICMP_ECHO_REQUEST << 8 | icmp->icmp_code);
	sum += (uint16_t)(RTE_IP_ICMP_ECHO_REPLY << 8 | icmp->icmp_code);
	sum = (sum & 0xffff) + (sum >> 16);
	sum = (sum & 0xffff) + (sum >> 16);
	icmp->icmp_type = RTE_IP_ICMP_ECHO_REPLY;
	icmp->icmp_cksum = rte_cpu_to_be_16((uint16_t)~sum);

	rte_be32_t a = ip->src_addr;
	ip->src_addr = ip->dst_addr;
	ip->dst_addr = a;
	ip->time_to_live = 64;
	ip->hdr_checksum = 0;
	ip->hdr_checksum = rte_ipv4_cksum(ip);

	/* Back to the neighbor it came from, the switch's own return path. */
	struct rte_ether_hdr *eth = lsw_icmp_untag(m, pi);
	eth->dst_addr = eth->src_addr;
	eth->src_addr = port->mac;
	return LSW_DROP_NONE;
}

/* The switch-wide limit on originated errors (icmp_rate per second, icmp_burst at once),
 * shared by every worker: N workers must not send N times the rate. A token bucket kept as
 * one word (GCRA: the time the bucket would be full again), so that a compare-and-swap
 * updates it without a lock; errors are rare next to packets. */
bool
lsw_icmp_allow(struct lsw_dp *dp, const struct lsw_snapshot *conf, uint64_t now)
{
	if (conf->icmp_rate == 0 || conf->icmp_burst == 0)
		return false;
	const uint64_t step = RTE_MAX(dp->tsc_hz / conf->icmp_rate, UINT64_C(1));
	const uint64_t tau = (uint64_t)(conf->icmp_burst - 1) * step;
	uint64_t tat = lsw_load_relaxed(&dp->icmp_tat), next;

	do {
		uint64_t base = (int64_t)(tat - now) > 0 ? tat : now;
		if (base - now > tau)
			return false;
		next = base + step;
	} while (!lsw_cas_relaxed(&dp->icmp_tat, &tat, next));
	return true;
}

static bool
is_icmp_error(const struct rte_ipv4_hdr *ip, const struct lsw_pkt_info *pi)
{
	if (pi->l4_proto != IPPROTO_ICMP || pi->l3_len < rte_ipv4_hdr_len(ip) + 1)
		return false;
	uint8_t type = *((const uint8_t *)ip + rte_ipv4_hdr_len(ip));
	return type == 3 || type == 4 || type == 5 || type == 11 || type == 12;
}

/*
 * Send ICMP @type/@code about @orig (left untouched) back out of @in_port to the neighbor it
 * came from. RFC 1812: never about an ICMP error or a non-first fragment.
 */
__rte_noinline __rte_cold void
lsw_icmp_error(struct lsw_worker *w, const struct lsw_snapshot *conf, uint16_t in_port,
	       struct rte_mbuf *orig, const struct lsw_pkt_info *pi, uint8_t type, uint8_t code,
	       uint16_t mtu, uint64_t now)
{
	const struct rte_ipv4_hdr *oip =
		rte_pktmbuf_mtod_offset(orig, const struct rte_ipv4_hdr *, pi->l3_off);
	const struct lsw_port_dp *p = &conf->port[in_port];
	uint32_t src = lsw_port_src_addr(p, rte_be_to_cpu_32(oip->src_addr));

	if (src == 0 || is_icmp_error(oip, pi) ||
	    (oip->fragment_offset & rte_cpu_to_be_16(RTE_IPV4_HDR_OFFSET_MASK)))
		return;
	if (!lsw_icmp_allow(w->dp, conf, now)) {
		w->ctr->event[LSW_EV_ICMP_RATE_LIMITED]++;
		return;
	}
	struct rte_mbuf *m = rte_pktmbuf_alloc(w->dp->pool);
	if (m == NULL) {
		w->ctr->event[LSW_EV_MBUF_ALLOC_FAILED]++;
		return;
	}
	uint16_t quote = RTE_MIN(pi->l3_len, ICMP_ERR_MAX_QUOTE);
	uint16_t ip_len = (uint16_t)(sizeof(struct rte_ipv4_hdr) + 8 + quote);
	uint8_t *d = (uint8_t *)rte_pktmbuf_append(m, (uint16_t)(RTE_ETHER_HDR_LEN + ip_len));
	struct rte_ether_hdr *eth = (struct rte_ether_hdr *)d;
	struct rte_ipv4_hdr *ip = (struct rte_ipv4_hdr *)(eth + 1);
	struct rte_icmp_hdr *icmp = (struct rte_icmp_hdr *)(ip + 1);

	eth->dst_addr = rte_pktmbuf_mtod(orig, struct rte_ether_hdr *)->src_addr;
	eth->src_addr = p->mac;
	eth->ether_type = rte_cpu_to_be_16(LSW_ETHERTYPE_IPV4);
	*ip = (struct rte_ipv4_hdr){
		.version_ihl = RTE_IPV4_VHL_DEF,
		.total_length = rte_cpu_to_be_16(ip_len),
		.time_to_live = 64,
		.next_proto_id = IPPROTO_ICMP,
		.src_addr = rte_cpu_to_be_32(src),
		.dst_addr = oip->src_addr,
	};
	ip->hdr_checksum = rte_ipv4_cksum(ip);
	icmp->icmp_type = type;
	icmp->icmp_code = code;
	icmp->icmp_cksum = 0;
	/* Unused word, except "next-hop MTU" in its low half for fragmentation needed. */
	icmp->icmp_ident = 0;
	icmp->icmp_seq_nb = rte_cpu_to_be_16(mtu);
	memcpy(icmp + 1, oip, quote);
	icmp->icmp_cksum = (uint16_t)~rte_raw_cksum(icmp, 8u + quote);
	w->ctr->event[LSW_EV_ICMP_ERROR_TX]++;
	lsw_tx_ctl(w, conf, in_port, m);
}
