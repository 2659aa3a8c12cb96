/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * IPv6 forwarding, in IPv4's three stages (ipv4.c): check (address rules), route (rte_fib6,
 * then the next hop or ECMP member), forward (classify, hop limit, MTU, L2 rewrite). There
 * is no header checksum to fix. What is rare stays out of line (ndp.c, icmp6.c).
 */
#include <rte_ip.h>
#include "lsw/dataplane.h"

/* Multicast scope: the low nibble of the second byte (RFC 4291 2.7). */
#define MC_SCOPE(a) ((a)[1] & 0x0f)

static void
roce_input(struct lsw_worker *w, uint16_t in_port, const struct rte_mbuf *m,
	   const struct lsw_pkt_info *pi)
{
	uint64_t *c = w->ctr->port[in_port].ctr;

	c[LSW_PC_ROCE_IN_PKTS]++;
	c[LSW_PC_ROCE_IN_OCTETS] += m->pkt_len;
	if (pi->bth_opcode == LSW_BTH_OP_CNP)
		c[LSW_PC_ROCE_CNP_IN_PKTS]++;
}

/* The traffic class octet: bits 20-27 of the first word. */
static inline uint8_t
traffic_class(const struct rte_ipv6_hdr *ip)
{
	return (uint8_t)(rte_be_to_cpu_32(ip->vtc_flow) >> 20);
}

/* As IPv4's classify: DSCP (the traffic class's high six bits) or 802.1p, CNPs apart. */
static __rte_always_inline uint8_t
classify6(const struct lsw_snapshot *conf, uint16_t in_port, const struct rte_ipv6_hdr *ip,
	  const struct lsw_pkt_info *pi)
{
	const struct lsw_buffer_dp *mc = &conf->buffer;
	uint8_t tc = (mc->use_dot1p[in_port] && (pi->flags & LSW_PF_VLAN)) ?
		mc->dot1p_tc[in_port][pi->vlan_tci >> 13] :
		mc->dscp_tc[in_port][traffic_class(ip) >> 2];

	if (unlikely(pi->flags & LSW_PF_ROCE) && pi->bth_opcode == LSW_BTH_OP_CNP &&
	    conf->cnp_tc != LSW_CNP_TC_DSCP)
		tc = conf->cnp_tc;
	return tc;
}

/* The member of FORWARD group @gid for @m, counted per member, in IPv4's modes
 * (ipv4.c's ecmp_pick): the default hash here, the other modes out of line. The default
 * fields hash the flow label too (RFC 6438). */
static __rte_always_inline uint32_t
ecmp_pick6(struct lsw_worker *w, const struct lsw_snapshot *conf, uint32_t gid,
	   const struct lsw_nhg *g, const struct rte_mbuf *m, const struct rte_ipv6_hdr *ip,
	   const struct lsw_pkt_info *pi, uint16_t in_port, uint64_t now)
{
	/* A group newer than the snapshot (the FIB changes first): hashed with the switch's
	 * seed until it has one, as IPv4's. */
	const struct lsw_ecmp_grp_dp *eg = lsw_ecmp_grp(&conf->ecmp, true, gid);
	uint8_t i;

	if (eg == NULL || (eg->mode == LSW_ECMP_HASH && eg->fields == LSW_HF_DEFAULT)) {
		uint32_t h = lsw_ecmp_hash_fields6(ip->src_addr, ip->vtc_flow, pi, LSW_HF_DEFAULT,
						   eg != NULL ? eg->seed : conf->ecmp_seed);
		/* A member whose port is down is left out (its flows spread, the others
		 * stay). */
		i = lsw_ecmp_hash_live(h, g->n, unlikely(conf->ecmp_down) ?
				       lsw_ecmp_live(w->dp, true, conf, g) : 0);
		if (eg == NULL)
			return i;
	} else {
		i = lsw_ecmp_select(w, conf, eg, g, true, ip, pi, classify6(conf, in_port, ip, pi),
				    now);
	}
	lsw_ecmp_count(w, eg, i, m->pkt_len);
	return i;
}

/*
 * Check: the address rules, as IPv4's (SAI's names). Multicast destinations are the
 * switch's (NDP) or dropped; link-local ones are the port's or dropped. LSW_DROP_NONE and
 * *@local when the packet is for the switch itself.
 */
static __rte_always_inline enum lsw_drop
ipv6_check(const struct lsw_port_dp *p, const struct lsw_pkt_info *pi,
	   const struct rte_ipv6_hdr *ip, bool *local)
{
	const uint8_t *s = ip->src_addr, *d = ip->dst_addr;

	*local = false;
	/* The common case in one test: neither address starts 00, fe or ff. */
	if (likely((uint8_t)(s[0] + 1) > 1 && s[0] != 0xfe && (uint8_t)(d[0] + 1) > 1 &&
		   d[0] != 0xfe)) {
		if (unlikely(pi->flags & LSW_PF_DMAC_MC))
			return LSW_DROP_UC_DIP_MC_DMAC;
		return LSW_DROP_NONE;
	}
	if (lsw_ip6_is_mc(d)) {
		if (MC_SCOPE(d) == 0)
			return LSW_DROP_IPV6_MC_SCOPE0;
		if (MC_SCOPE(d) == 1)
			return LSW_DROP_IPV6_MC_SCOPE1;
		if (MC_SCOPE(d) != 2 || lsw_ip6_is_mc(s))
			return lsw_ip6_is_mc(s) ? LSW_DROP_SIP_MC : LSW_DROP_DIP_MULTICAST;
		*local = true; /* link scope: NDP (a duplicate-address probe comes from ::) */
		return LSW_DROP_NONE;
	}
	if (lsw_ip6_is_mc(s))
		return LSW_DROP_SIP_MC;
	if (lsw_ip6_is_zero(s))
		return LSW_DROP_SIP_UNSPECIFIED;
	if (lsw_ip6_is_loopback(s))
		return LSW_DROP_SIP_LOOPBACK;
	if (lsw_ip6_is_loopback(d))
		return LSW_DROP_DIP_LOOPBACK;
	if (lsw_ip6_is_zero(d))
		return LSW_DROP_DIP_UNSPECIFIED;
	if (pi->flags & LSW_PF_DMAC_MC)
		return LSW_DROP_UC_DIP_MC_DMAC;
	if (lsw_ip6_is_ll(d)) {
		if (!lsw_ip6_eq(d, p->ll6))
			return LSW_DROP_DIP_LINK_LOCAL;
		*local = true;
	}
	return LSW_DROP_NONE;
}

/* Where the route sends a packet. */
struct ipv6_next {
	uint16_t out;          /* the egress port */
	uint16_t nh;           /* the next hop's id; LSW_MAX_NH6 on a connected subnet */
	const uint8_t *nh_ip;  /* the next hop (the destination itself on a connected subnet) */
	uint64_t mac;          /* LSW_NH_MAC_VALID | its MAC, or 0: to be resolved by NDP */
};

/* Route: the FIB, then the next hop (an ECMP group's member: hashed) or the connected
 * port. True when @m is to be forwarded as @nx says; false when not, *@d then the reason
 * to drop, or LSW_DROP_NONE when the switch took it. */
static __rte_always_inline bool
ipv6_route(struct lsw_worker *w, const struct lsw_snapshot *conf, uint16_t in_port,
	   struct rte_mbuf *m, const struct lsw_pkt_info *pi, const struct rte_ipv6_hdr *ip,
	   uint64_t now, struct ipv6_next *nx, enum lsw_drop *d)
{
	const struct lsw_fib6 *fib = w->dp->fib6;
	uint32_t v = lsw_fib6_lookup(fib, ip->dst_addr), id;

	if (likely(v & LSW_FIB6_NH_BIT)) {
		id = v & ~LSW_FIB6_NH_BIT;
	} else if (unlikely(v == LSW_FIB6_MISS)) {
		lsw_icmp6_error(w, conf, in_port, m, pi, 1, 0, 0, now); /* no route */
		*d = LSW_DROP_LPM6_MISS;
		return false;
	} else {
		const struct lsw_nhg *g = lsw_acquire(&fib->group[v]);
		switch (g->type) {
		case LSW_NHG_FORWARD:
			id = g->member[ecmp_pick6(w, conf, v, g, m, ip, pi, in_port, now)];
			break;
		case LSW_NHG_LOCAL:
			lsw_ndp_local(w, conf, in_port, m, pi, now);
			*d = LSW_DROP_NONE;
			return false;
		case LSW_NHG_GLEAN:
			*nx = (struct ipv6_next){.out = g->port, .nh = LSW_MAX_NH6,
						 .nh_ip = ip->dst_addr, .mac = 0};
			return true;
		default:
			lsw_icmp6_error(w, conf, in_port, m, pi, 1, 1, 0, now); /* prohibited */
			*d = LSW_DROP_BLACKHOLE_ROUTE;
			return false;
		}
	}
	const struct lsw_nh6 *nh = &fib->nh[id];
	*nx = (struct ipv6_next){.out = nh->port, .nh = (uint16_t)id, .nh_ip = nh->ip,
				 .mac = lsw_acquire(&nh->mac)};
	return true;
}

/* Forward: classify, the source scope, hop limit, egress state and MTU, then admission
 * with the new Ethernet header, or a wait for NDP. The reason to drop on the ingress port
 * is returned, else LSW_DROP_NONE. */
static __rte_always_inline enum lsw_drop
ipv6_forward(struct lsw_worker *w, const struct lsw_snapshot *conf, uint16_t in_port,
	     struct rte_mbuf *m, const struct lsw_pkt_info *pi, struct rte_ipv6_hdr *ip,
	     const struct ipv6_next *nx, uint64_t now)
{
	const struct lsw_buffer_dp *mc = &conf->buffer;
	struct lsw_pkt_meta *meta = lsw_meta(m);
	const uint16_t out = nx->out;

	uint8_t tc = classify6(conf, in_port, ip, pi);
	if (unlikely(pi->flags & LSW_PF_ROCE))
		meta->flags = LSW_META_ROCE |
			      (pi->bth_opcode == LSW_BTH_OP_CNP ? LSW_META_CNP : 0);
	meta->flags |= lsw_buffer_unsched(mc, traffic_class(ip) >> 2);
	meta->in_port = (uint8_t)in_port;
	meta->tc = tc;
	meta->pg = mc->tc_pg[in_port][tc];
	meta->out_port = (uint8_t)out;
	meta->queue = mc->tc_q[out][tc];

	/* RFC 4291 2.5.6: a link-local source never leaves its link. */
	if (unlikely(lsw_ip6_is_ll(ip->src_addr))) {
		lsw_icmp6_error(w, conf, in_port, m, pi, 1, 2, 0, now); /* beyond scope */
		return LSW_DROP_SIP_LINK_LOCAL;
	}
	if (unlikely(ip->hop_limits <= 1)) {
		lsw_icmp6_error(w, conf, in_port, m, pi, 3, 0, 0, now);
		return LSW_DROP_TTL;
	}
	const struct lsw_port_dp *op = &conf->port[out];
	if (unlikely(!op->admin_up)) {
		lsw_count_drop(w, out, LSW_DROP_L3_EGRESS_LINK_DOWN, m);
		return LSW_DROP_NONE;
	}
	if (unlikely(pi->l3_len > op->mtu)) {
		/* IPv6 routers never fragment: always packet too big (RFC 8200 5). */
		lsw_icmp6_error(w, conf, in_port, m, pi, 2, 0, op->mtu, now);
		lsw_count_drop(w, out, LSW_DROP_EXCEEDS_L3_MTU, m);
		return LSW_DROP_NONE;
	}
	if (unlikely(m->pkt_len > (uint32_t)pi->l3_off + pi->l3_len))
		rte_pktmbuf_trim(m, (uint16_t)(m->pkt_len - pi->l3_off - pi->l3_len));
	ip->hop_limits--;
	if (likely(nx->mac & LSW_NH_MAC_VALID)) {
		lsw_l2_routed(m, nx->mac, op, tc, pi->flags & LSW_PF_VLAN, LSW_ETHERTYPE_IPV6);
		lsw_l3_output(w, conf, out, m);
		return LSW_DROP_NONE;
	}
	if (pi->flags & LSW_PF_VLAN)
		rte_pktmbuf_adj(m, 4);
	struct lsw_nh_addr a = {.v6 = 1, .nh = nx->nh};
	memcpy(a.ip6, nx->nh_ip, 16); /* @nx->nh_ip may point into @m's header */
	lsw_nexthop_hold(w, conf, in_port, out, &a, m, now);
	return LSW_DROP_NONE;
}

void
lsw_ipv6_input(struct lsw_worker *w, const struct lsw_snapshot *conf, uint16_t in_port,
	       struct rte_mbuf *m, const struct lsw_pkt_info *pi, uint64_t now)
{
	struct rte_ipv6_hdr *ip = rte_pktmbuf_mtod_offset(m, struct rte_ipv6_hdr *, pi->l3_off);
	struct ipv6_next nx;
	enum lsw_drop d;
	bool local;

	if (unlikely(pi->flags & LSW_PF_ROCE))
		roce_input(w, in_port, m, pi);
	d = ipv6_check(&conf->port[in_port], pi, ip, &local);
	if (unlikely(d != LSW_DROP_NONE))
		goto drop_in;
	if (unlikely(local)) {
		lsw_ndp_local(w, conf, in_port, m, pi, now);
		return;
	}
	if (unlikely(!ipv6_route(w, conf, in_port, m, pi, ip, now, &nx, &d))) {
		if (d == LSW_DROP_NONE)
			return;
		goto drop_in;
	}
	d = ipv6_forward(w, conf, in_port, m, pi, ip, &nx, now);
	if (likely(d == LSW_DROP_NONE))
		return;
drop_in:
	lsw_count_drop(w, in_port, d, m);
}
