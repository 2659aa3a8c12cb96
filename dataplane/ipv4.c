/* SPDX-License-Identifier: BSD-3-Clause */
/* IPv4 forwarding: address checks, LPM, ECMP member pick, TTL, MTU, L2 rewrite. */
#include <rte_ip.h>
#include <rte_hash_crc.h>
#include "lsw/dataplane.h"

/* RoCEv2 received on @in_port, BTH opcode @opcode: counted whatever becomes of it. */
static void
roce_input(struct lsw_worker *w, uint16_t in_port, const struct rte_mbuf *m, uint8_t opcode)
{
	uint64_t *c = w->ctr->port[in_port].ctr;

	c[LSW_PC_ROCE_IN_PKTS]++;
	c[LSW_PC_ROCE_IN_OCTETS] += m->pkt_len;
	if (opcode == LSW_BTH_OP_CNP)
		c[LSW_PC_ROCE_CNP_IN_PKTS]++;
}

/* Where a routed packet of traffic class @tc goes, for admission and drop snapshots. */
static __rte_always_inline void
route_meta(struct lsw_pkt_meta *meta, const struct lsw_buffer_dp *mc, uint16_t in_port,
	   uint8_t tc, uint16_t out)
{
	meta->in_port = (uint8_t)in_port;
	meta->tc = tc;
	meta->pg = mc->tc_pg[in_port][tc];
	meta->out_port = (uint8_t)out;
	meta->queue = mc->tc_q[out][tc];
}

/* The TTL/protocol word m becomes m - 0x100: RFC 1624's HC' = ~(~HC + ~m + m'), where
 * ~m + m' is 0xfeff whatever m. One's complement sums do not depend on byte order (RFC
 * 1071), so it is done on the field as it lies in memory, without byte swaps; one fold
 * suffices, as 0xffff + 0xfeff carries once. */
void
lsw_ipv4_ttl_dec(struct rte_ipv4_hdr *ip)
{
	uint32_t sum = (uint16_t)~ip->hdr_checksum + (uint32_t)RTE_BE16(0xfeff);

	ip->time_to_live--;
	sum = (sum & 0xffff) + (sum >> 16);
	ip->hdr_checksum = (rte_be16_t)~sum;
}

/* First octets a source (bit 0) or a destination (bit 1) may not have, or not always. */
static const uint8_t martian_octet[256] = {
	[0] = 1, [127] = 3, [224 ... 255] = 3,
};

/* Martian addresses, judged on the first octet alone (one table) in the common case: the
 * source's straight from the header, without a byte swap. */
static inline enum lsw_drop
check_addrs(const struct rte_ipv4_hdr *ip, uint32_t dst)
{
	uint8_t s = ((const uint8_t *)&ip->src_addr)[0], d = (uint8_t)(dst >> 24);

	if (likely(((martian_octet[s] & 1) | (martian_octet[d] & 2)) == 0))
		return LSW_DROP_NONE;
	const uint32_t src = rte_be_to_cpu_32(ip->src_addr);
	if (src == 0)
		return LSW_DROP_SIP_UNSPECIFIED;
	if (s == 127)
		return LSW_DROP_SIP_LOOPBACK;
	if (src == UINT32_MAX)
		return LSW_DROP_SIP_BC;
	if (s >= 240)
		return LSW_DROP_SIP_CLASS_E;
	if (s >= 224)
		return LSW_DROP_SIP_MC;
	if (d == 127)
		return LSW_DROP_DIP_LOOPBACK;
	if (d >= 224)
		return LSW_DROP_DIP_MULTICAST;
	return LSW_DROP_NONE; /* source 0.x.y.z other than 0.0.0.0 */
}

static __rte_noinline void
local_input(struct lsw_worker *w, const struct lsw_snapshot *conf, uint16_t in_port,
	    struct rte_mbuf *m, const struct lsw_pkt_info *pi)
{
	enum lsw_drop d = lsw_icmp_echo_reply(m, pi, &conf->port[in_port]);

	if (d != LSW_DROP_NONE) {
		lsw_count_drop(w, in_port, d, m);
		return;
	}
	w->ctr->event[LSW_EV_ICMP_ECHO_REPLY_TX]++;
	lsw_tx_ctl(w, conf, in_port, m);
}

/* The traffic class: from DSCP (or 802.1p where the port maps it); RoCEv2 CNPs ride
 * LSW.global.cnp_tc unless it says "dscp". */
static __rte_always_inline uint8_t
classify(const struct lsw_snapshot *conf, uint16_t in_port, const struct rte_ipv4_hdr *ip,
	 const struct lsw_pkt_info *pi)
{
	const struct lsw_buffer_dp *mc = &conf->buffer;
	uint8_t tc = (mc->use_dot1p[in_port] && (pi->flags & LSW_PF_VLAN)) ?
		mc->dot1p_tc[in_port][pi->vlan_tci >> 13] :
		mc->dscp_tc[in_port][ip->type_of_service >> 2];

	if (unlikely(pi->flags & LSW_PF_ROCE) && pi->bth_opcode == LSW_BTH_OP_CNP &&
	    conf->cnp_tc != LSW_CNP_TC_DSCP)
		tc = conf->cnp_tc;
	return tc;
}

/* The member of FORWARD group @gid for @m, counted per member. The default hash inline:
 * hash * n >> 32 maps it onto [0, n) without a division; other modes out of line. */
static __rte_always_inline uint8_t
ecmp_pick(struct lsw_worker *w, const struct lsw_snapshot *conf, uint32_t gid,
	  const struct lsw_nhg *g, const struct rte_mbuf *m, const struct rte_ipv4_hdr *ip,
	  const struct lsw_pkt_info *pi, uint16_t in_port, uint32_t crc, uint64_t now)
{
	/* A group newer than the snapshot (the FIB changes first): hash until it has one. */
	const struct lsw_ecmp_grp_dp *eg = lsw_ecmp_grp(&conf->ecmp, false, gid);
	if (unlikely(eg == NULL))
		return lsw_ecmp_hash_live(lsw_hash_mix(crc, conf->ecmp_seed), g->n,
					  conf->ecmp_down ?
					  lsw_ecmp_live(w->dp, false, conf, g) : 0);
	uint8_t i;

	/* The flow label is IPv6's: with or without it, the 5-tuple. */
	if (likely(eg->mode == LSW_ECMP_HASH &&
		   (eg->fields | LSW_HF_IPV6_FLOW_LABEL) == LSW_HF_DEFAULT)) {
		uint32_t h = lsw_hash_mix(crc, eg->seed);
		/* A port down anywhere (rare): the members' ports are checked. */
		i = likely(conf->ecmp_down == 0) ? (uint8_t)((uint64_t)h * g->n >> 32) :
		    lsw_ecmp_hash_live(h, g->n, lsw_ecmp_live(w->dp, false, conf, g));
	} else
		i = lsw_ecmp_select(w, conf, eg, g, false, ip, pi, classify(conf, in_port, ip, pi),
				    now);
	lsw_ecmp_count(w, eg, i, m->pkt_len);
	return i;
}

/*
 * The IPv4 path in three stages, as l3fwd's: check, route, forward. Each is always inlined
 * into lsw_ipv4_input, so that the code is what one function gave; what is rare stays out
 * of line (local_input, lsw_wd_dropped, lsw_icmp_error, lsw_nexthop_hold, lsw_ecmp_select).
 */

/* Check: RoCEv2 counted, martian addresses and a unicast destination in a multicast frame
 * refused. The reason to drop, or LSW_DROP_NONE. */
static __rte_always_inline enum lsw_drop
ipv4_check(struct lsw_worker *w, uint16_t in_port, const struct rte_mbuf *m,
	   const struct lsw_pkt_info *pi, const struct rte_ipv4_hdr *ip, uint32_t dst)
{
	enum lsw_drop d;

	if (unlikely(pi->flags & LSW_PF_ROCE))
		roce_input(w, in_port, m, pi->bth_opcode);
	d = check_addrs(ip, dst);
	if (unlikely(d != LSW_DROP_NONE))
		return d;
	if (unlikely(pi->flags & LSW_PF_DMAC_MC))
		return LSW_DROP_UC_DIP_MC_DMAC;
	return LSW_DROP_NONE;
}

/* Where the route sends a packet. */
struct ipv4_next {
	uint16_t out;       /* the egress port */
	uint32_t nh_ip;     /* the next hop (the destination itself on a connected subnet) */
	uint64_t mac;       /* LSW_NH_MAC_VALID | its MAC, or 0: to be resolved by ARP */
};

/* Route: from the LPM's value @v, the next hop (an ECMP group's member) or the connected
 * port. True when @m is to be forwarded as @nx says; false when not, *@d then the reason
 * to drop it, or LSW_DROP_NONE when the switch took it (ICMP echo to its own address). */
static __rte_always_inline bool
ipv4_route(struct lsw_worker *w, const struct lsw_snapshot *conf, uint16_t in_port,
	   struct rte_mbuf *m, const struct lsw_pkt_info *pi, const struct rte_ipv4_hdr *ip,
	   uint32_t dst, uint32_t v, uint64_t now, struct ipv4_next *nx, enum lsw_drop *d)
{
	const struct lsw_fib *fib = w->fib;
	const struct lsw_nh *nh;

	if (likely(v & LSW_FIB_NH_BIT)) {
		nh = &fib->nh[v & ~LSW_FIB_NH_BIT];
	} else {
		const struct lsw_nhg *g = lsw_acquire(&fib->group[v]);
		switch (g->type) {
		case LSW_NHG_FORWARD: {
			/* The flow's CRC only for a group: a next hop needs none. It waits for
			 * nothing the lookup gives, so a predicted branch runs it alongside. */
			uint32_t crc = lsw_flow_crc(ip, pi);
			nh = &fib->nh[g->member[ecmp_pick(w, conf, v, g, m, ip, pi, in_port, crc,
							  now)]];
			break;
		}
		case LSW_NHG_LOCAL:
			local_input(w, conf, in_port, m, pi);
			*d = LSW_DROP_NONE;
			return false;
		case LSW_NHG_GLEAN:
			*nx = (struct ipv4_next){.out = g->port, .nh_ip = dst, .mac = 0};
			return true;
		default:
			*d = LSW_DROP_BLACKHOLE_ROUTE;
			return false;
		}
	}
	*nx = (struct ipv4_next){.out = nh->port, .nh_ip = nh->ip, .mac = lsw_acquire(&nh->mac)};
	return true;
}

/* Forward: classify (after the route, so that the lookup does not wait for it), then TTL,
 * egress admin state and MTU, and the packet goes to admission with its new Ethernet
 * header, or waits for ARP. What the egress port refuses is counted there; the reason to
 * drop it on the ingress port (TTL) is returned, else LSW_DROP_NONE. */
static __rte_always_inline enum lsw_drop
ipv4_forward(struct lsw_worker *w, const struct lsw_snapshot *conf, uint16_t in_port,
	     struct rte_mbuf *m, const struct lsw_pkt_info *pi, struct rte_ipv4_hdr *ip,
	     const struct ipv4_next *nx, uint64_t now)
{
	const struct lsw_buffer_dp *mc = &conf->buffer;
	struct lsw_pkt_meta *meta = lsw_meta(m); /* flags cleared on receive (worker.c) */
	const uint16_t out = nx->out;

	/* From here on a drop snapshot knows where the packet was going. */
	uint8_t tc = classify(conf, in_port, ip, pi);
	if (unlikely(pi->flags & LSW_PF_ROCE))
		meta->flags = LSW_META_ROCE |
			      (pi->bth_opcode == LSW_BTH_OP_CNP ? LSW_META_CNP : 0);
	meta->flags |= lsw_buffer_unsched(mc, ip->type_of_service >> 2);
	route_meta(meta, mc, in_port, tc, out);

	if (unlikely(ip->time_to_live <= 1)) {
		lsw_icmp_error(w, conf, in_port, m, pi, 11, 0, 0, now);
		return LSW_DROP_TTL;
	}
	const struct lsw_port_dp *op = &conf->port[out];
	if (unlikely(!op->admin_up)) {
		lsw_count_drop(w, out, LSW_DROP_L3_EGRESS_LINK_DOWN, m);
		return LSW_DROP_NONE;
	}
	if (unlikely(pi->l3_len > op->mtu)) {
		if (ip->fragment_offset & rte_cpu_to_be_16(RTE_IPV4_HDR_DF_FLAG))
			lsw_icmp_error(w, conf, in_port, m, pi, 3, 4, op->mtu, now);
		lsw_count_drop(w, out, LSW_DROP_EXCEEDS_L3_MTU, m);
		return LSW_DROP_NONE;
	}
	/* Bytes after the IP packet (Ethernet padding, or garbage) are not forwarded, as a
	 * router rebuilds the frame: a frame longer than the MTU allows would never fit the
	 * egress port's shaper bucket. */
	if (unlikely(m->pkt_len > (uint32_t)pi->l3_off + pi->l3_len))
		rte_pktmbuf_trim(m, (uint16_t)(m->pkt_len - pi->l3_off - pi->l3_len));
	lsw_ipv4_ttl_dec(ip);
	if (likely(nx->mac & LSW_NH_MAC_VALID)) {
		lsw_l2_routed(m, nx->mac, op, tc, pi->flags & LSW_PF_VLAN, LSW_ETHERTYPE_IPV4);
		lsw_admit_enqueue(w, conf, in_port, op, out, m);
		return LSW_DROP_NONE;
	}
	/* Held untagged: the header is written when the neighbor resolves. */
	if (pi->flags & LSW_PF_VLAN)
		rte_pktmbuf_adj(m, 4);
	lsw_nexthop_hold(w, conf, in_port, out, &(struct lsw_nh_addr){.ip = nx->nh_ip}, m, now);
	return LSW_DROP_NONE;
}

/* The route and what follows it, for the LPM's value @v. */
static __rte_always_inline void
ipv4_routed(struct lsw_worker *w, const struct lsw_snapshot *conf, uint16_t in_port,
	    struct rte_mbuf *m, const struct lsw_pkt_info *pi, struct rte_ipv4_hdr *ip,
	    uint32_t dst, uint32_t v, uint64_t now)
{
	struct ipv4_next nx;
	enum lsw_drop d;

	if (unlikely(!ipv4_route(w, conf, in_port, m, pi, ip, dst, v, now, &nx, &d))) {
		if (d == LSW_DROP_NONE)
			return; /* the switch's own */
		goto drop_in;
	}
	d = ipv4_forward(w, conf, in_port, m, pi, ip, &nx, now);
	if (likely(d == LSW_DROP_NONE))
		return;
drop_in:
	lsw_count_drop(w, in_port, d, m);
}

void
lsw_ipv4_input(struct lsw_worker *w, const struct lsw_snapshot *conf, uint16_t in_port,
	       struct rte_mbuf *m, const struct lsw_pkt_info *pi, uint64_t now)
{
	struct rte_ipv4_hdr *ip = rte_pktmbuf_mtod_offset(m, struct rte_ipv4_hdr *, pi->l3_off);
	uint32_t dst = rte_be_to_cpu_32(ip->dst_addr);
	enum lsw_drop d;
	uint32_t v;

	/* Every drop on the ingress port at one call, as a single function had it. */
	d = ipv4_check(w, in_port, m, pi, ip, dst);
	if (unlikely(d != LSW_DROP_NONE))
		goto drop_in;
	if (unlikely(rte_lpm_lookup(w->lpm, dst, &v) != 0)) {
		d = LSW_DROP_LPM4_MISS;
		goto drop_in;
	}
	ipv4_routed(w, conf, in_port, m, pi, ip, dst, v, now);
	return;
drop_in:
	lsw_count_drop(w, in_port, d, m);
}

/* The fast path's routes to a group (ECMP, the switch's own address, glean, blackhole):
 * the packet info it skipped, then the careful stages from the route on. Out of line: the
 * member pick is large, and inlined twice it would crowd the per-packet loop. */
static __rte_noinline void
fast_group(struct lsw_worker *w, const struct lsw_snapshot *conf, uint16_t in_port,
	   struct rte_mbuf *m, uint32_t tlen, uint32_t v, uint64_t now)
{
	uint8_t *eth = rte_pktmbuf_mtod(m, uint8_t *);
	struct rte_ipv4_hdr *ip = (struct rte_ipv4_hdr *)(eth + RTE_ETHER_HDR_LEN);
	struct lsw_pkt_info pi;

	lsw_meta(m)->flags = 0; /* as handle_one: ipv4_forward sets only RoCE's and ABM's */
	(void)lsw_parse_plain(eth, tlen, &pi); /* its checks passed in lsw_ipv4_fast */
	if (unlikely(pi.flags & LSW_PF_ROCE))
		roce_input(w, in_port, m, pi.bth_opcode);
	ipv4_routed(w, conf, in_port, m, &pi, ip, rte_be_to_cpu_32(ip->dst_addr), v, now);
}

/*
 * The fast path: a plain IPv4 frame (lsw_parse_plain_ipv4) to the port's own MAC from a
 * unicast source, none of whose addresses the switch refuses, routed to a resolved next
 * hop on a port that is up and whose MTU it fits: nearly every frame a switch forwards.
 * It decides from the header words in registers, without filling lsw_pkt_info, and does
 * only what the careful way (handle_one, lsw_ipv4_input) would do to such a frame. Any
 * other frame is left to the careful way (false) before anything is done to it; one routed
 * to a group takes the careful stages from the route on (fast_group). test_fast_equals_careful
 * (test_ipv4) checks that both ways give the same frames, meta, counters and drops.
 */
bool
lsw_ipv4_fast(struct lsw_worker *w, const struct lsw_snapshot *conf, uint16_t in_port,
	      const struct lsw_port_dp *p, struct rte_mbuf *m, uint64_t now)
{
	uint8_t *eth = rte_pktmbuf_mtod(m, uint8_t *);
	uint32_t tlen;
	uint64_t dmac;

	if (unlikely(m->nb_segs != 1 ||
		     !lsw_parse_plain_ipv4(eth, m->data_len, m->ol_flags, &tlen)))
		return false;
	/* The destination MAC is the port's, unicast; the source's I/G bit clear. */
	memcpy(&dmac, eth, sizeof(dmac));
	if (unlikely(((dmac ^ lsw_mac_to_u64(&p->mac)) & RTE_LEN2MASK(48, uint64_t)) |
		     (dmac & 1) | (eth[RTE_ETHER_ADDR_LEN] & 1)))
		return false;
	struct rte_ipv4_hdr *ip = (struct rte_ipv4_hdr *)(eth + RTE_ETHER_HDR_LEN);
	const uint32_t dst = rte_be_to_cpu_32(ip->dst_addr);
	if (unlikely(((martian_octet[((const uint8_t *)&ip->src_addr)[0]] & 1) |
		      (martian_octet[dst >> 24] & 2)) != 0))
		return false;
	/* The L4 header: long enough (else the careful parse names the reason), RoCEv2? */
	const uint8_t proto = ip->next_proto_id;
	const uint32_t l4 = RTE_ETHER_HDR_LEN + sizeof(*ip), avail = tlen - sizeof(*ip);
	bool roce = false;
	if (proto == IPPROTO_UDP) {
		if (unlikely(avail < 8))
			return false;
		if (((uint32_t)eth[l4 + 2] << 8 | eth[l4 + 3]) == LSW_ROCEV2_PORT) {
			if (unlikely(avail < 8 + LSW_BTH_LEN))
				return false;
			roce = true;
		}
	} else if (unlikely(proto == IPPROTO_TCP && avail < 20)) {
		return false;
	}
	uint32_t v;
	if (unlikely(rte_lpm_lookup(w->lpm, dst, &v) != 0))
		return false;
	if (unlikely(!(v & LSW_FIB_NH_BIT))) {
		fast_group(w, conf, in_port, m, tlen, v, now);
		return true;
	}
	const struct lsw_nh *nh = &w->fib->nh[v & ~LSW_FIB_NH_BIT];
	const uint64_t mac = lsw_acquire(&nh->mac);
	const uint16_t out = nh->port;
	const struct lsw_port_dp *op = &conf->port[out];
	if (unlikely(!(mac & LSW_NH_MAC_VALID) || ip->time_to_live <= 1 || !op->admin_up ||
		     tlen > op->mtu))
		return false; /* ARP, ICMP time exceeded, the egress port's drops */

	/* Taken: what the careful way does to such a frame, in its order. */
	const struct lsw_buffer_dp *mc = &conf->buffer;
	struct lsw_pkt_meta *meta = lsw_meta(m);
	uint8_t tc = mc->dscp_tc[in_port][ip->type_of_service >> 2];
	uint8_t flags = lsw_buffer_unsched(mc, ip->type_of_service >> 2);
	if (unlikely(roce)) {
		const uint8_t opcode = eth[l4 + 8];
		roce_input(w, in_port, m, opcode);
		flags |= LSW_META_ROCE;
		if (opcode == LSW_BTH_OP_CNP) {
			flags |= LSW_META_CNP;
			if (conf->cnp_tc != LSW_CNP_TC_DSCP)
				tc = conf->cnp_tc;
		}
	}
	meta->flags = flags;
	route_meta(meta, mc, in_port, tc, out);
	if (unlikely(m->pkt_len > RTE_ETHER_HDR_LEN + tlen))
		rte_pktmbuf_trim(m, (uint16_t)(m->pkt_len - RTE_ETHER_HDR_LEN - tlen));
	lsw_ipv4_ttl_dec(ip);
	lsw_l2_routed(m, mac, op, tc, false, LSW_ETHERTYPE_IPV4);
	lsw_admit_enqueue(w, conf, in_port, op, out, m);
	return true;
}
