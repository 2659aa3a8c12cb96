/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * IPv6 through lsw_process_burst: the parser over every header and truncation, forwarding
 * (rewrite, hop limit, ECMP, link-local next hop, default route), every drop, ICMPv6 the
 * switch sends, and neighbor discovery: answering, resolving, giving up, announcing.
 */
#include <string.h>
#include <rte_ip.h>
#include <rte_arp.h>
#include "harness.h"

/*
 *   Ethernet0  2001:db8::1/64           hosts (learned by NDP)              mtu 9100
 *   Ethernet4  2001:db8:4::/127         next hop 2001:db8:4::1 (static)      mtu 1500
 *   Ethernet8  2001:db8:8::/127         next hop 2001:db8:8::1, fe80::8:1    mtu 9100
 *   Ethernet12 2001:db8:12::1/64        nothing resolved                     mtu 9100
 *   2001:db8:100::/48 ECMP via 4::1 and 8::1; 2001:db8:200::/48 via 4::1;
 *   2001:db8:300::/48 blackhole; 2001:db8:400::/48 via 2001:db8:12::77 (unresolved);
 *   2001:db8:500::/48 via fe80::8:1 on Ethernet8
 */
#define P0 0
#define P4 1
#define P8 2
#define P12 3
#define CONFIG6 \
	"{\"DEVICE_METADATA\": {\"localhost\": {\"mac\": \"02:00:00:00:00:01\"}}," \
	" \"LSW\": {\"global\": {\"workers\": [1], \"mbufs\": 200000, \"arp_tries\": 3," \
	"   \"arp_retry_ms\": 100}}," \
	" \"PORT\": {\"Ethernet0\": {}, \"Ethernet4\": {\"mtu\": \"1500\"}," \
	"            \"Ethernet8\": {}, \"Ethernet12\": {}}," \
	" \"LSW_PORT\": {\"Ethernet0\": {\"devargs\": \"net_null0\"}," \
	"   \"Ethernet4\": {\"devargs\": \"net_null1\"}," \
	"   \"Ethernet8\": {\"devargs\": \"net_null2\"}," \
	"   \"Ethernet12\": {\"devargs\": \"net_null3\"}}," \
	" \"INTERFACE\": {\"Ethernet0|2001:db8::1/64\": {}, \"Ethernet4|2001:db8:4::/127\": {}," \
	"   \"Ethernet8|2001:db8:8::/127\": {}, \"Ethernet12|2001:db8:12::1/64\": {}," \
	"   \"Ethernet0|10.0.0.0/31\": {}}," \
	" \"STATIC_ROUTE\": {\"2001:db8:100::/48\":" \
	"   {\"nexthop\": \"2001:db8:4::1,2001:db8:8::1\"}," \
	"   \"2001:db8:200::/48\": {\"nexthop\": \"2001:db8:4::1\", \"ifname\": \"Ethernet4\"}," \
	"   \"2001:db8:300::/48\": {\"blackhole\": \"true\"}," \
	"   \"2001:db8:400::/48\": {\"nexthop\": \"2001:db8:12::77\"}," \
	"   \"2001:db8:500::/48\": {\"nexthop\": \"fe80::8:1\", \"ifname\": \"Ethernet8\"}}," \
	" \"NEIGH\": {\"Ethernet4|2001:db8:4::1\": {\"neigh\": \"02:00:00:00:04:01\"," \
	"   \"family\": \"IPv6\"}," \
	"   \"Ethernet8|2001:db8:8::1\": {\"neigh\": \"02:00:00:00:08:01\"}," \
	"   \"Ethernet8|fe80::8:1\": {\"neigh\": \"02:00:00:00:08:02\"}}}"
#define HOST_MAC "02:00:00:00:01:01"

static uint8_t buf[10000];

static struct rte_ipv6_hdr *
ip6_of(struct rte_mbuf *m)
{
	return rte_pktmbuf_mtod_offset(m, struct rte_ipv6_hdr *, 14);
}

static bool
mac_is(const struct rte_ether_addr *a, const char *s)
{
	struct rte_ether_addr b;

	t_mac(s, &b);
	return rte_is_same_ether_addr(a, &b);
}

static bool
ip6_is(const uint8_t *a, const char *s)
{
	uint8_t b[16];

	t_ip6(s, b);
	return memcmp(a, b, 16) == 0;
}

static void
drain(struct t_switch *t)
{
	for (uint16_t p = 0; p < 4; p++) {
		struct rte_mbuf *m;
		while ((m = t_tx_take(t, p)) != NULL)
			rte_pktmbuf_free(m);
	}
}

/* The parser: each header, then every truncation of a RoCEv2 frame. */
static void
test_parse(void **state)
{
	struct t_flow f = {.src = "2001:db8::2", .dst = "2001:db8:1::1", .sport = 1000,
			   .dport = LSW_ROCEV2_PORT, .payload = 12 + 16, .vlan = -1, .tos = 0x68,
			   .flow_label = 0xabcde};
	struct lsw_pkt_info pi;
	uint16_t len = t_build_ipv6(buf, &f);

	(void)state;
	buf[54 + 8] = 0x0a;  /* BTH opcode */
	buf[54 + 8 + 5] = buf[54 + 8 + 6] = 0;
	buf[54 + 8 + 7] = 0x12; /* dest QP low byte */
	assert_int_equal(lsw_parse(buf, len, &pi), LSW_DROP_NONE);
	assert_int_equal(pi.ethertype, LSW_ETHERTYPE_IPV6);
	assert_int_equal(pi.l3_off, 14);
	assert_int_equal(pi.l4_off, 54);
	assert_int_equal(pi.l3_len, len - 14);
	assert_int_equal(pi.l4_proto, IPPROTO_UDP);
	assert_true(pi.flags & LSW_PF_ROCE);
	assert_int_equal(pi.bth_opcode, 0x0a);
	assert_int_equal(pi.bth_dqpn, 0x12);
	for (uint16_t cut = 0; cut < len; cut++) {
		enum lsw_drop want = cut < 14 ? LSW_DROP_L2_TRUNCATED :
				     cut < len ? LSW_DROP_IPV6_TRUNCATED : LSW_DROP_NONE;
		/* The payload length says more than the frame has, at any cut. */
		assert_int_equal(lsw_parse(buf, cut, &pi), want);
	}
	/* Payload length itself short: the UDP header or the BTH cut by it. */
	for (uint16_t pl = 0; pl < 8 + 12; pl++) {
		buf[18] = (uint8_t)(pl >> 8);
		buf[19] = (uint8_t)pl;
		assert_int_equal(lsw_parse(buf, len, &pi),
				 pl < 8 ? LSW_DROP_L4_TRUNCATED : LSW_DROP_BTH_TRUNCATED);
	}
	/* TCP, ICMPv6, a VLAN tag, a bad version. */
	f.proto = IPPROTO_TCP;
	f.payload = 0;
	len = t_build_ipv6(buf, &f);
	assert_int_equal(lsw_parse(buf, len, &pi), LSW_DROP_NONE);
	assert_true(pi.flags & LSW_PF_L4);
	assert_int_equal(lsw_parse(buf, len - 1, &pi), LSW_DROP_IPV6_TRUNCATED);
	f.proto = IPPROTO_ICMPV6;
	f.icmp_type = 128;
	f.vlan = 0;
	len = t_build_ipv6(buf, &f);
	assert_int_equal(lsw_parse(buf, len, &pi), LSW_DROP_NONE);
	assert_int_equal(pi.l3_off, 18);
	assert_int_equal(pi.l4_proto, IPPROTO_ICMPV6);
	buf[18] = 0x45;
	assert_int_equal(lsw_parse(buf, len, &pi), LSW_DROP_IPV6_BAD_VERSION);
}

/* Routed to 2001:db8:200::/48: MACs rewritten, hop limit 63, the rest untouched. */
static void
test_forward(void **state)
{
	struct t_switch *t = t_switch_new(CONFIG6);
	struct t_flow f = {.dst = "2001:db8:200::9", .sport = 1, .dport = 2, .payload = 100,
			   .vlan = -1};
	uint16_t len = t_build_ipv6(buf, &f);

	(void)state;
	memset(buf + len, 0, 30); /* Ethernet padding is not forwarded */
	t_rx(t, P0, buf, (uint16_t)(len + 30), 0);
	assert_int_equal(t_tx_count(t, P4), 1);
	struct rte_mbuf *m = t_tx_take(t, P4);
	struct rte_ether_hdr *eth = rte_pktmbuf_mtod(m, struct rte_ether_hdr *);
	assert_true(mac_is(&eth->dst_addr, "02:00:00:00:04:01"));
	assert_true(mac_is(&eth->src_addr, "02:00:00:00:00:01"));
	assert_int_equal(rte_be_to_cpu_16(eth->ether_type), RTE_ETHER_TYPE_IPV6);
	assert_int_equal(ip6_of(m)->hop_limits, 63);
	assert_int_equal(m->pkt_len, len);
	assert_memory_equal(rte_pktmbuf_mtod_offset(m, uint8_t *, 14), buf + 14, 7);
	assert_memory_equal(rte_pktmbuf_mtod_offset(m, uint8_t *, 22), buf + 22, len - 22);
	rte_pktmbuf_free(m);
	/* Via a link-local next hop, and a VLAN 0 tag stripped. */
	f.dst = "2001:db8:500::1";
	f.vlan = 0;
	len = t_build_ipv6(buf, &f);
	t_rx(t, P0, buf, len, 0);
	m = t_tx_take(t, P8);
	assert_non_null(m);
	assert_true(mac_is(&rte_pktmbuf_mtod(m, struct rte_ether_hdr *)->dst_addr,
			   "02:00:00:00:08:02"));
	assert_int_equal(m->pkt_len, len - 4);
	rte_pktmbuf_free(m);
	/* IPv4 beside it, on the same port. */
	struct t_flow f4 = {.src = "10.0.0.1", .dst = "10.0.0.0", .proto = IPPROTO_UDP,
			    .vlan = -1};
	len = t_build_ipv4(buf, &f4);
	t_rx(t, P0, buf, len, 0);
	assert_int_equal(t_drops(t, P0, LSW_DROP_LOCAL_UNSUPPORTED), 1);
	t_switch_free(t);
}

/* ECMP: flows (ports, flow labels) spread over both members; a flow stays on one. */
static void
test_ecmp(void **state)
{
	struct t_switch *t = t_switch_new(CONFIG6);
	unsigned int on[2] = {0, 0};

	(void)state;
	for (int i = 0; i < 200; i++) {
		struct t_flow f = {.dst = "2001:db8:100::5", .sport = (uint16_t)(1000 + i),
				   .dport = 4791, .payload = 40, .vlan = -1,
				   .flow_label = (uint32_t)i * 7919};
		uint16_t len = t_build_ipv6(buf, &f);
		for (int rep = 0; rep < 2; rep++)
			t_rx(t, P0, buf, len, 0);
		uint16_t a = t_tx_count(t, P4), b = t_tx_count(t, P8);
		assert_true((a == 2 && b == 0) || (a == 0 && b == 2));
		on[a ? 0 : 1]++;
		drain(t);
	}
	assert_true(on[0] > 60 && on[1] > 60);
	/* RoCEv2 received over IPv6 is counted. */
	assert_int_equal(t->sw.dp.ctr[0].port[P0].ctr[LSW_PC_ROCE_IN_PKTS], 400);
	t_switch_free(t);
}

/* The ICMPv6 error in @m: type/code, from the port's address, quoting @orig (@olen). */
static void
check_icmp6_error(struct rte_mbuf *m, uint8_t type, uint8_t code, const uint8_t *orig,
		  uint32_t mtu)
{
	struct rte_ipv6_hdr *ip = ip6_of(m);
	uint8_t *icmp = (uint8_t *)(ip + 1);
	uint32_t plen = rte_be_to_cpu_16(ip->payload_len);

	assert_true(mac_is(&rte_pktmbuf_mtod(m, struct rte_ether_hdr *)->dst_addr, HOST_MAC));
	assert_int_equal(ip->proto, IPPROTO_ICMPV6);
	assert_true(ip6_is(ip->src_addr, "2001:db8::1"));
	assert_true(ip6_is(ip->dst_addr, "2001:db8::2"));
	assert_int_equal(icmp[0], type);
	assert_int_equal(icmp[1], code);
	assert_int_equal(lsw_icmp6_sum(ip, icmp, plen), 0xffff);
	rte_be32_t mtu_be; /* unaligned in the frame (UBSan) */
	memcpy(&mtu_be, icmp + 4, sizeof(mtu_be));
	assert_int_equal(rte_be_to_cpu_32(mtu_be), mtu);
	assert_memory_equal(icmp + 8, orig + 14, 40); /* the offending header */
	assert_true(plen <= 1280 - 40);
}

/* Hop limit 1: time exceeded; too big for Ethernet4: packet too big with its MTU; no
 * route: unreachable; a blackhole: prohibited. */
static void
test_icmp6_errors(void **state)
{
	struct t_switch *t = t_switch_new(CONFIG6);
	struct t_flow f = {.dst = "2001:db8:200::9", .ttl = 1, .payload = 20, .vlan = -1};
	uint16_t len = t_build_ipv6(buf, &f);

	(void)state;
	t_rx(t, P0, buf, len, 0);
	assert_int_equal(t_drops(t, P0, LSW_DROP_TTL), 1);
	struct rte_mbuf *m = t_tx_take(t, P0);
	assert_non_null(m);
	check_icmp6_error(m, 3, 0, buf, 0);
	rte_pktmbuf_free(m);
	f.ttl = 64;
	f.payload = 1500;
	len = t_build_ipv6(buf, &f);
	t_rx(t, P0, buf, len, 0);
	assert_int_equal(t_drops(t, P4, LSW_DROP_EXCEEDS_L3_MTU), 1);
	m = t_tx_take(t, P0);
	assert_non_null(m);
	check_icmp6_error(m, 2, 0, buf, 1500);
	assert_int_equal(m->pkt_len, 14 + 1280); /* quoted up to the minimum MTU */
	rte_pktmbuf_free(m);
	f.payload = 20;
	f.dst = "2001:db8:300::1";
	len = t_build_ipv6(buf, &f);
	t_rx(t, P0, buf, len, 0);
	assert_int_equal(t_drops(t, P0, LSW_DROP_BLACKHOLE_ROUTE), 1);
	m = t_tx_take(t, P0);
	check_icmp6_error(m, 1, 1, buf, 0);
	rte_pktmbuf_free(m);
	f.dst = "3fff::1";
	len = t_build_ipv6(buf, &f);
	t_rx(t, P0, buf, len, 0);
	assert_int_equal(t_drops(t, P0, LSW_DROP_LPM6_MISS), 1);
	m = t_tx_take(t, P0);
	check_icmp6_error(m, 1, 0, buf, 0);
	rte_pktmbuf_free(m);
	/* Never about an ICMPv6 error. */
	f.proto = IPPROTO_ICMPV6;
	f.icmp_type = 1;
	len = t_build_ipv6(buf, &f);
	t_rx(t, P0, buf, len, 0);
	assert_int_equal(t_drops(t, P0, LSW_DROP_LPM6_MISS), 2);
	assert_int_equal(t_tx_count(t, P0), 0);
	/* The limit: a burst of misses gets at most icmp_burst errors at one instant. */
	f.proto = IPPROTO_UDP;
	len = t_build_ipv6(buf, &f);
	for (int i = 0; i < 1000; i++)
		t_rx(t, P0, buf, len, 1000000);
	assert_true(t_tx_count(t, P0) < 1000);
	assert_true(t_event(t, LSW_EV_ICMP_RATE_LIMITED) > 0);
	t_switch_free(t);
}

struct drop_case {
	const char *name;
	struct t_flow f;
	enum lsw_drop reason;
};

static void
test_drops(void **state)
{
	static const struct drop_case cases[] = {
		{"sip mc", {.src = "ff02::5"}, LSW_DROP_SIP_MC},
		{"sip ::", {.src = "::"}, LSW_DROP_SIP_UNSPECIFIED},
		{"sip ::1", {.src = "::1"}, LSW_DROP_SIP_LOOPBACK},
		{"dip ::1", {.dst = "::1"}, LSW_DROP_DIP_LOOPBACK},
		{"dip ::", {.dst = "::"}, LSW_DROP_DIP_UNSPECIFIED},
		{"sip link-local routed", {.src = "fe80::2"}, LSW_DROP_SIP_LINK_LOCAL},
		{"dip other link-local", {.dst = "fe80::99"}, LSW_DROP_DIP_LINK_LOCAL},
		{"dip mc scope 0", {.dst = "ff00::1", .dmac = "33:33:00:00:00:01"},
		 LSW_DROP_IPV6_MC_SCOPE0},
		{"dip mc scope 1", {.dst = "ff01::1", .dmac = "33:33:00:00:00:01"},
		 LSW_DROP_IPV6_MC_SCOPE1},
		{"dip mc site", {.dst = "ff05::1", .dmac = "33:33:00:00:00:01"},
		 LSW_DROP_DIP_MULTICAST},
		{"udp to ff02::1", {.dst = "ff02::1", .dmac = "33:33:00:00:00:01"},
		 LSW_DROP_DIP_MULTICAST},
		{"uc dip mc dmac", {.dmac = "33:33:00:00:00:01"}, LSW_DROP_UC_DIP_MC_DMAC},
		{"hop limit 0", {.ttl = 0}, LSW_DROP_TTL},
		{"udp to switch", {.dst = "2001:db8::1"}, LSW_DROP_LOCAL_UNSUPPORTED},
		{"udp to link-local", {.dst = "fe80::ff:fe00:1"}, LSW_DROP_LOCAL_UNSUPPORTED},
	};
	struct t_switch *t = t_switch_new(CONFIG6);

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct t_flow f = cases[i].f;
		f.vlan = -1;
		f.payload = 10;
		if (f.dst == NULL)
			f.dst = "2001:db8:200::1";
		if (f.ttl == 0 && cases[i].reason != LSW_DROP_TTL)
			f.ttl = 64;
		if (cases[i].reason == LSW_DROP_TTL)
			f.ttl = 0;
		uint16_t len = t_build_ipv6(buf, &f);
		if (cases[i].reason == LSW_DROP_TTL)
			buf[21] = 0;
		uint64_t before = t_drops(t, P0, cases[i].reason);
		t_rx(t, P0, buf, len, 0);
		if (t_drops(t, P0, cases[i].reason) != before + 1)
			fail_msg("%s: %s not counted", cases[i].name,
				 lsw_drop_name(cases[i].reason));
		assert_int_equal(t_tx_count(t, P4) + t_tx_count(t, P8) + t_tx_count(t, P12), 0);
		drain(t);
	}
	t_switch_free(t);
}

/* A neighbor solicitation from @src (on @port, MAC HOST_MAC) for @target, to @dst. */
static uint16_t
build_ns(uint8_t *b, const char *src, const char *dst, const char *dmac, const char *target,
	 bool slla)
{
	struct t_flow f = {.src = src, .dst = dst, .dmac = dmac, .smac = HOST_MAC,
			   .proto = IPPROTO_ICMPV6, .icmp_type = 135, .ttl = 255, .vlan = -1,
			   .payload = (uint16_t)(16 + (slla ? 8 : 0))};
	uint16_t len = t_build_ipv6(b, &f);
	struct rte_ipv6_hdr *ip = (struct rte_ipv6_hdr *)(b + 14);
	uint8_t *icmp = b + 54;

	memset(icmp + 4, 0, 4 + 16 + 8);
	t_ip6(target, icmp + 8);
	if (slla) {
		icmp[24] = 1;
		icmp[25] = 1;
		t_mac(HOST_MAC, (struct rte_ether_addr *)(icmp + 26));
	}
	icmp[2] = icmp[3] = 0;
	uint16_t s = (uint16_t)~lsw_icmp6_sum(ip, icmp, len - 54u);
	memcpy(icmp + 2, &s, 2);
	return len;
}

/* An NS for the switch's global and link-local addresses is answered; the host is
 * learned; an NS for another target, or one that was routed (hop limit), is dropped. */
static void
test_ndp_answer(void **state)
{
	struct t_switch *t = t_switch_new(CONFIG6);
	const char *targets[] = {"2001:db8::1", "fe80::ff:fe00:1"};

	(void)state;
	for (int k = 0; k < 2; k++) {
		uint16_t len = build_ns(buf, "2001:db8::2", "ff02::1:ff00:1", "33:33:ff:00:00:01",
					targets[k], true);
		t_rx(t, P0, buf, len, 0);
		struct rte_mbuf *m = t_tx_take(t, P0);
		assert_non_null(m);
		struct rte_ipv6_hdr *ip = ip6_of(m);
		uint8_t *icmp = (uint8_t *)(ip + 1);
		assert_true(mac_is(&rte_pktmbuf_mtod(m, struct rte_ether_hdr *)->dst_addr,
				   HOST_MAC));
		assert_int_equal(ip->hop_limits, 255);
		assert_true(ip6_is(ip->src_addr, targets[k]));
		assert_true(ip6_is(ip->dst_addr, "2001:db8::2"));
		assert_int_equal(icmp[0], 136);
		assert_int_equal(icmp[4], 0xe0); /* router, solicited, override */
		assert_true(ip6_is(icmp + 8, targets[k]));
		assert_int_equal(icmp[24], 2);   /* target link-layer address */
		assert_true(mac_is((struct rte_ether_addr *)(icmp + 26), "02:00:00:00:00:01"));
		assert_int_equal(lsw_icmp6_sum(ip, icmp, 32), 0xffff);
		rte_pktmbuf_free(m);
	}
	assert_int_equal(t_event(t, LSW_EV_NDP_NS_RX), 2);
	/* The host was learned from the solicitation: traffic to it goes at once. */
	lsw_neigh_process(&t->sw);
	struct t_flow f = {.src = "2001:db8:200::7", .dst = "2001:db8::2", .payload = 10,
			   .vlan = -1};
	uint16_t len = t_build_ipv6(buf, &f);
	t_rx(t, P4, buf, len, 0);
	struct rte_mbuf *m = t_tx_take(t, P0);
	assert_non_null(m);
	assert_true(mac_is(&rte_pktmbuf_mtod(m, struct rte_ether_hdr *)->dst_addr, HOST_MAC));
	rte_pktmbuf_free(m);
	/* Another target; a routed one; a duplicate-address probe for ours (to all nodes). */
	len = build_ns(buf, "2001:db8::2", "ff02::1:ff00:9", "33:33:ff:00:00:09",
		       "2001:db8::9", true);
	t_rx(t, P0, buf, len, 0);
	assert_int_equal(t_drops(t, P0, LSW_DROP_NDP_OTHER_TARGET), 1);
	len = build_ns(buf, "2001:db8::2", "2001:db8::1", NULL, "2001:db8::1", true);
	buf[21] = 64;
	t_rx(t, P0, buf, len, 0);
	assert_int_equal(t_drops(t, P0, LSW_DROP_NDP_MALFORMED), 1);
	len = build_ns(buf, "::", "ff02::1:ff00:1", "33:33:ff:00:00:01", "2001:db8::1", false);
	t_rx(t, P0, buf, len, 0);
	m = t_tx_take(t, P0);
	assert_non_null(m);
	assert_true(ip6_is(ip6_of(m)->dst_addr, "ff02::1"));
	assert_true(mac_is(&rte_pktmbuf_mtod(m, struct rte_ether_hdr *)->dst_addr,
			   "33:33:00:00:00:01"));
	rte_pktmbuf_free(m);
	/* A probe with a source link-layer option is invalid. */
	len = build_ns(buf, "::", "ff02::1:ff00:1", "33:33:ff:00:00:01", "2001:db8::1", true);
	t_rx(t, P0, buf, len, 0);
	assert_int_equal(t_drops(t, P0, LSW_DROP_NDP_MALFORMED), 2);
	t_switch_free(t);
}

/* A NA from @ip (@mac) answering our solicitation. */
static uint16_t
build_na(uint8_t *b, const char *ip, const char *mac, bool solicited)
{
	struct t_flow f = {.src = ip, .dst = "2001:db8:12::1", .smac = mac,
			   .proto = IPPROTO_ICMPV6, .icmp_type = 136, .ttl = 255, .vlan = -1,
			   .payload = 24};
	uint16_t len = t_build_ipv6(b, &f);
	uint8_t *icmp = b + 54;

	memset(icmp + 4, 0, 28);
	icmp[4] = solicited ? 0x60 : 0x20;
	t_ip6(ip, icmp + 8);
	icmp[24] = 2;
	icmp[25] = 1;
	t_mac(mac, (struct rte_ether_addr *)(icmp + 26));
	icmp[2] = icmp[3] = 0;
	uint16_t s = (uint16_t)~lsw_icmp6_sum((struct rte_ipv6_hdr *)(b + 14), icmp, 32);
	memcpy(icmp + 2, &s, 2);
	return len;
}

/* A packet to an unresolved host is held; NS to its solicited-node group, retried every
 * arp_retry_ms, then given up after arp_tries (fake clock). A second one is answered and
 * released. */
static void
test_ndp_resolve(void **state)
{
	struct t_switch *t = t_switch_new(CONFIG6);
	struct t_flow f = {.dst = "2001:db8:12::5", .payload = 10, .vlan = -1};
	uint16_t len = t_build_ipv6(buf, &f);

	(void)state;
	t_rx(t, P0, buf, len, 0);
	assert_int_equal(t->w.n_held, 1);
	struct rte_mbuf *m = t_tx_take(t, P12);
	assert_non_null(m);
	struct rte_ipv6_hdr *ip = ip6_of(m);
	uint8_t *icmp = (uint8_t *)(ip + 1);
	assert_true(mac_is(&rte_pktmbuf_mtod(m, struct rte_ether_hdr *)->dst_addr,
			   "33:33:ff:00:00:05"));
	assert_true(ip6_is(ip->dst_addr, "ff02::1:ff00:5"));
	assert_true(ip6_is(ip->src_addr, "2001:db8:12::1"));
	assert_int_equal(icmp[0], 135);
	assert_true(ip6_is(icmp + 8, "2001:db8:12::5"));
	assert_int_equal(icmp[24], 1);
	assert_int_equal(lsw_icmp6_sum(ip, icmp, 32), 0xffff);
	rte_pktmbuf_free(m);
	/* Retries at 100 ms, 200 ms; the third period ends it. */
	lsw_nexthop_poll(&t->w, t->conf, 99 * 1000000ull);
	assert_int_equal(t_tx_count(t, P12), 0);
	lsw_nexthop_poll(&t->w, t->conf, 100 * 1000000ull);
	lsw_nexthop_poll(&t->w, t->conf, 200 * 1000000ull);
	assert_int_equal(t_event(t, LSW_EV_NDP_NS_TX), 3);
	lsw_nexthop_poll(&t->w, t->conf, 300 * 1000000ull);
	assert_int_equal(t_drops(t, P0, LSW_DROP_UNRESOLVED_NEXT_HOP), 1);
	assert_int_equal(t->w.n_held, 0);
	drain(t);
	/* Via a static route's unresolved next hop, answered this time. */
	f.dst = "2001:db8:400::1";
	len = t_build_ipv6(buf, &f);
	t_rx(t, P0, buf, len, 0);
	t_rx(t, P0, buf, len, 0);
	assert_int_equal(t_event(t, LSW_EV_NEIGH_HELD), 3);
	drain(t);
	len = build_na(buf, "2001:db8:12::77", "02:00:00:00:12:77", true);
	t_rx(t, P12, buf, len, 0);
	assert_int_equal(t_event(t, LSW_EV_NDP_NA_RX), 1);
	lsw_neigh_process(&t->sw);
	lsw_nexthop_poll(&t->w, t->conf, 1000);
	assert_int_equal(t_tx_count(t, P12), 2);
	m = t_tx_take(t, P12);
	assert_true(mac_is(&rte_pktmbuf_mtod(m, struct rte_ether_hdr *)->dst_addr,
			   "02:00:00:00:12:77"));
	assert_int_equal(ip6_of(m)->hop_limits, 63);
	rte_pktmbuf_free(m);
	drain(t);
	/* An unsolicited NA only refreshes: a new host is not created by it. */
	len = build_na(buf, "2001:db8:12::88", "02:00:00:00:12:88", false);
	t_rx(t, P12, buf, len, 0);
	lsw_neigh_process(&t->sw);
	assert_true(lsw_fib6ctl_nh_find(t->sw.fib6c, buf + 54 + 8, P12) < 0);
	t_switch_free(t);
}

/* One hold queue under both families: an IPv4 and an IPv6 next hop wait on one port at
 * once, each asked for in its own protocol, and each released alone when it resolves. */
static void
test_hold_both_families(void **state)
{
	static const char v4[] = "\"Ethernet0|10.0.0.0/31\": {}";
	char config[sizeof(CONFIG6) + 64];
	const char *at = strstr(CONFIG6, v4);
	struct rte_mbuf *m;

	(void)state;
	assert_non_null(at);
	/* CONFIG6 with an IPv4 subnet on Ethernet12 too. */
	snprintf(config, sizeof(config), "%.*s%s, \"Ethernet12|192.168.5.1/24\": {}%s",
		 (int)(at - CONFIG6), CONFIG6, v4, at + strlen(v4));
	struct t_switch *t = t_switch_new(config);
	struct t_flow f4 = {.dst = "192.168.5.20", .sport = 1, .dport = 2, .vlan = -1};
	struct t_flow f6 = {.dst = "2001:db8:12::5", .payload = 10, .vlan = -1};

	t_rx(t, P0, buf, t_build_ipv4(buf, &f4), 0);
	t_rx(t, P0, buf, t_build_ipv6(buf, &f6), 0);
	assert_int_equal(t->w.n_held, 2);
	assert_int_equal(t_event(t, LSW_EV_ARP_REQUEST_TX), 1);
	assert_int_equal(t_event(t, LSW_EV_NDP_NS_TX), 1);
	drain(t);
	/* The IPv6 next hop answers first: its packet alone goes. */
	t_rx(t, P12, buf, build_na(buf, "2001:db8:12::5", "02:00:00:00:12:05", true), 0);
	lsw_neigh_process(&t->sw);
	lsw_nexthop_poll(&t->w, t->conf, 1000);
	assert_int_equal(t_tx_count(t, P12), 1);
	m = t_tx_take(t, P12);
	assert_int_equal(rte_be_to_cpu_16(rte_pktmbuf_mtod(m, struct rte_ether_hdr *)->ether_type),
			 RTE_ETHER_TYPE_IPV6);
	assert_true(mac_is(&rte_pktmbuf_mtod(m, struct rte_ether_hdr *)->dst_addr,
			   "02:00:00:00:12:05"));
	rte_pktmbuf_free(m);
	assert_int_equal(t->w.n_held, 1);
	/* Then the IPv4 one, by ARP. */
	uint16_t len = t_build_arp(buf, RTE_ARP_OP_REPLY, "02:00:00:00:05:14", "192.168.5.20",
				   "02:00:00:00:00:01", "192.168.5.1", "02:00:00:00:00:01");
	t_rx(t, P12, buf, len, 0);
	lsw_neigh_process(&t->sw);
	lsw_nexthop_poll(&t->w, t->conf, 2000);
	assert_int_equal(t_tx_count(t, P12), 1);
	m = t_tx_take(t, P12);
	assert_int_equal(rte_be_to_cpu_16(rte_pktmbuf_mtod(m, struct rte_ether_hdr *)->ether_type),
			 RTE_ETHER_TYPE_IPV4);
	assert_true(mac_is(&rte_pktmbuf_mtod(m, struct rte_ether_hdr *)->dst_addr,
			   "02:00:00:00:05:14"));
	rte_pktmbuf_free(m);
	assert_int_equal(t->w.n_held, 0);
	assert_int_equal(t_event(t, LSW_EV_NEIGH_RELEASED), 2);
	t_switch_free(t);
}

/* ICMPv6 echo to the global and link-local addresses; unsolicited NAs at start. */
static void
test_echo_announce(void **state)
{
	struct t_switch *t = t_switch_new(CONFIG6);
	const char *dsts[] = {"2001:db8::1", "fe80::ff:fe00:1", "2001:db8:12::1"};

	(void)state;
	for (int k = 0; k < 3; k++) {
		struct t_flow f = {.dst = dsts[k], .proto = IPPROTO_ICMPV6, .icmp_type = 128,
				   .payload = 56, .vlan = -1};
		uint16_t len = t_build_ipv6(buf, &f);
		t_rx(t, P0, buf, len, 0);
		struct rte_mbuf *m = t_tx_take(t, P0);
		assert_non_null(m);
		struct rte_ipv6_hdr *ip = ip6_of(m);
		uint8_t *icmp = (uint8_t *)(ip + 1);
		assert_int_equal(icmp[0], 129);
		assert_true(ip6_is(ip->src_addr, dsts[k]));
		assert_true(ip6_is(ip->dst_addr, "2001:db8::2"));
		assert_int_equal(lsw_icmp6_sum(ip, icmp, 64), 0xffff);
		assert_memory_equal(icmp + 4, buf + 54 + 4, 60);
		rte_pktmbuf_free(m);
	}
	assert_int_equal(t_event(t, LSW_EV_ICMP6_ECHO_REPLY_TX), 3);
	/* A bad checksum. */
	struct t_flow f = {.dst = "2001:db8::1", .proto = IPPROTO_ICMPV6, .icmp_type = 128,
			   .payload = 8, .vlan = -1};
	uint16_t len = t_build_ipv6(buf, &f);
	buf[len - 1] ^= 1;
	t_rx(t, P0, buf, len, 0);
	assert_int_equal(t_drops(t, P0, LSW_DROP_ICMP_MALFORMED), 1);
	/* Announcements: the link-local and global address of each port, once. */
	lsw_ndp_announce(&t->w, t->conf);
	lsw_ndp_announce(&t->w, t->conf);
	assert_int_equal(t_event(t, LSW_EV_NDP_NA_UNSOLICITED_TX), 8);
	struct rte_mbuf *m = t_tx_take(t, P4);
	assert_non_null(m);
	uint8_t *icmp = rte_pktmbuf_mtod_offset(m, uint8_t *, 54);
	assert_int_equal(icmp[0], 136);
	assert_int_equal(icmp[4], 0xa0); /* router, override, not solicited */
	assert_true(ip6_is(ip6_of(m)->dst_addr, "ff02::1"));
	rte_pktmbuf_free(m);
	t_switch_free(t);
}

/* Config: the IPv6 tables' refusals, each by its JSON path. */
static void
test_bad_configs(void **state)
{
	static const char *const cases[][3] = {
		{"{\"INTERFACE\": {\"Ethernet0|fe80::1/64\": {}}}",
		 "$.INTERFACE['Ethernet0|fe80::1/64']", "EUI-64"},
		{"{\"INTERFACE\": {\"Ethernet0|2001:db8::1/129\": {}}}",
		 "$.INTERFACE['Ethernet0|2001:db8::1/129']", "IPv6 address/prefix-length"},
		{"{\"INTERFACE\": {\"Ethernet0|ff02::1/64\": {}}}",
		 "$.INTERFACE['Ethernet0|ff02::1/64']", "unicast"},
		{"{\"INTERFACE\": {\"Ethernet4|2001:db8::2/64\": {}}}",
		 "$.INTERFACE['Ethernet4|2001:db8::2/64']", "overlaps"},
		{"{\"STATIC_ROUTE\": {\"2001:db8:9::1/48\": {\"nexthop\": \"2001:db8::2\"}}}",
		 "$.STATIC_ROUTE['2001:db8:9::1/48']", "host bits"},
		{"{\"STATIC_ROUTE\": {\"2001:db8:9::/48\": {\"nexthop\": \"10.0.0.1\"}}}",
		 "$.STATIC_ROUTE['2001:db8:9::/48'].nexthop", "not an IPv6 address"},
		{"{\"STATIC_ROUTE\": {\"2001:db8:9::/48\": {\"nexthop\": \"2001:db9::1\"}}}",
		 "$.STATIC_ROUTE['2001:db8:9::/48'].nexthop", "not on any connected subnet"},
		{"{\"STATIC_ROUTE\": {\"::/0\": {\"nexthop\": \"fe80::1\"}}}",
		 "$.STATIC_ROUTE['::/0'].ifname", "link-local"},
		{"{\"STATIC_ROUTE\": {\"::/0\": {\"nexthop\": \"2001:db8::1\"}}}",
		 "$.STATIC_ROUTE['::/0'].nexthop", "own address"},
		{"{\"STATIC_ROUTE\": {\"2001:db8::/64\": {\"nexthop\": \"2001:db8:4::1\"}}}",
		 "$.STATIC_ROUTE['2001:db8::/64']", "connected subnet"},
		{"{\"NEIGH\": {\"Ethernet0|2001:db8:4::1\": {\"neigh\": \"02:00:00:00:00:07\"}}}",
		 "$.NEIGH['Ethernet0|2001:db8:4::1']", "not on a subnet"},
		{"{\"NEIGH\": {\"Ethernet0|2001:db8::5\": {\"neigh\": \"02:00:00:00:00:07\","
		 " \"family\": \"IPv4\"}}}", "$.NEIGH['Ethernet0|2001:db8::5'].family",
		 "does not match"},
		{"{\"NEIGH\": {\"Ethernet0|ff02::1\": {\"neigh\": \"02:00:00:00:00:07\"}}}",
		 "$.NEIGH['Ethernet0|ff02::1']", "unicast"},
	};

	(void)state;
	t_config_refused(CONFIG6, cases, sizeof(cases) / sizeof(cases[0]));
}

/* Changes at run time (config.set), under traffic: the default route comes and goes. */
static void
test_runtime_changes(void **state)
{
	struct t_switch *t = t_switch_new(CONFIG6);
	struct t_flow f = {.dst = "3fff::1", .payload = 10, .vlan = -1};
	uint16_t len = t_build_ipv6(buf, &f);
	json_t *resp;

	(void)state;
	t_rx(t, P0, buf, len, 0);
	assert_int_equal(t_drops(t, P0, LSW_DROP_LPM6_MISS), 1);
	drain(t);
	t_rpc_ok(t, "config.set", "{\"config\": {\"STATIC_ROUTE\": {\"::/0\": "
		 "{\"nexthop\": \"2001:db8:8::1\"}}}}", &resp);
	json_decref(resp);
	t_rx(t, P0, buf, len, 0);
	assert_int_equal(t_tx_count(t, P8), 1);
	drain(t);
	t_rpc_ok(t, "config.set", "{\"config\": {\"STATIC_ROUTE\": {\"::/0\": null}}}", &resp);
	json_decref(resp);
	t_rx(t, P0, buf, len, 0);
	assert_int_equal(t_drops(t, P0, LSW_DROP_LPM6_MISS), 2);
	/* A new address on Ethernet12 answers at once. */
	t_rpc_ok(t, "config.set", "{\"config\": {\"INTERFACE\": {\"Ethernet12|fd00:12::1/127\":"
		 " {}}}}", &resp);
	json_decref(resp);
	drain(t);
	struct t_flow e = {.dst = "fd00:12::1", .proto = IPPROTO_ICMPV6, .icmp_type = 128,
			   .payload = 8, .vlan = -1};
	len = t_build_ipv6(buf, &e);
	t_rx(t, P0, buf, len, 0);
	assert_int_equal(t_event(t, LSW_EV_ICMP6_ECHO_REPLY_TX), 1);
	t_switch_free(t);
}

/* route.add/del and neighbor.add/del with IPv6, route.list and neighbor.list showing both
 * families, bad params refused by their JSON path. */
static void
test_rpc(void **state)
{
	struct t_switch *t = t_switch_new(CONFIG6);
	struct t_flow f = {.dst = "3fff::1", .payload = 10, .vlan = -1};
	uint16_t len = t_build_ipv6(buf, &f);
	json_t *resp, *r;

	(void)state;
	t_rpc_ok(t, "route.add", "{\"prefix\": \"::/0\", \"nexthop\": \"fe80::8:1\","
		 " \"ifname\": \"Ethernet8\"}", &resp);
	json_decref(resp);
	t_rx(t, P0, buf, len, 0);
	struct rte_mbuf *m = t_tx_take(t, P8);
	assert_non_null(m);
	assert_true(mac_is(&rte_pktmbuf_mtod(m, struct rte_ether_hdr *)->dst_addr,
			   "02:00:00:00:08:02"));
	rte_pktmbuf_free(m);
	t_rpc_ok(t, "neighbor.add", "{\"port\": \"Ethernet8\", \"ip\": \"fe80::8:1\","
		 " \"mac\": \"02:00:00:00:08:03\", \"replace\": true}", &resp);
	json_decref(resp);
	t_rx(t, P0, buf, len, 0);
	m = t_tx_take(t, P8);
	assert_true(mac_is(&rte_pktmbuf_mtod(m, struct rte_ether_hdr *)->dst_addr,
			   "02:00:00:00:08:03"));
	rte_pktmbuf_free(m);
	r = t_rpc_ok(t, "route.list", NULL, &resp);
	bool v4 = false, dflt = false, local = false;
	size_t i;
	json_t *o;
	json_array_foreach(r, i, o) {
		const char *p = json_string_value(json_object_get(o, "prefix"));
		const char *fam = json_string_value(json_object_get(o, "family"));
		v4 |= strcmp(fam, "IPv4") == 0;
		dflt |= strcmp(p, "::/0") == 0 && strcmp(fam, "IPv6") == 0;
		local |= strcmp(p, "2001:db8::1/128") == 0 &&
			 strcmp(json_string_value(json_object_get(o, "type")), "local") == 0;
	}
	assert_true(v4 && dflt && local);
	json_decref(resp);
	r = t_rpc_ok(t, "neighbor.list", NULL, &resp);
	bool ll = false;
	json_array_foreach(r, i, o)
		ll |= strcmp(json_string_value(json_object_get(o, "ip")), "fe80::8:1") == 0 &&
		      strcmp(json_string_value(json_object_get(o, "state")), "static") == 0;
	assert_true(ll);
	json_decref(resp);
	t_rpc_ok(t, "route.del", "{\"prefix\": \"::/0\"}", &resp);
	json_decref(resp);
	t_rpc_ok(t, "neighbor.del", "{\"port\": \"Ethernet8\", \"ip\": \"fe80::8:1\"}",
		 &resp);
	json_decref(resp);
	drain(t);
	t_rx(t, P0, buf, len, 0);
	assert_int_equal(t_drops(t, P0, LSW_DROP_LPM6_MISS), 1);
	/* Refusals name the param, or the config field the change would break. */
	static const char *const bad[][3] = {
		{"route.add", "{\"prefix\": \"2001:db8:9::1/48\", \"nexthop\": \"2001:db8::2\"}",
		 "$.params.prefix"},
		{"route.add", "{\"prefix\": \"2001:db8:9::/129\", \"nexthop\": \"2001:db8::2\"}",
		 "$.params.prefix"},
		{"route.add", "{\"prefix\": \"2001:db8:9::/48\", \"nexthop\": \"2001:db9::2\"}",
		 "$.STATIC_ROUTE['2001:db8:9::/48'].nexthop"},
		{"route.del", "{\"prefix\": \"2001:db8:9::/48\"}", "$.params.prefix"},
		{"neighbor.add", "{\"port\": \"Ethernet0\", \"ip\": \"2001:db8::g\","
		 " \"mac\": \"02:00:00:00:00:07\"}", "$.params.ip"},
		{"neighbor.add", "{\"port\": \"Ethernet4\", \"ip\": \"2001:db8::7\","
		 " \"mac\": \"02:00:00:00:00:07\"}", "$.NEIGH['Ethernet4|2001:db8::7']"},
	};
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		resp = t_rpc(t, bad[i][0], bad[i][1]);
		char *txt = json_dumps(resp, 0);
		if (strstr(txt, bad[i][2]) == NULL)
			fail_msg("%s %s: no error at %s in %s", bad[i][0], bad[i][1], bad[i][2],
				 txt);
		free(txt);
		json_decref(resp);
	}
	t_switch_free(t);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse),
		cmocka_unit_test(test_forward),
		cmocka_unit_test(test_ecmp),
		cmocka_unit_test(test_icmp6_errors),
		cmocka_unit_test(test_drops),
		cmocka_unit_test(test_ndp_answer),
		cmocka_unit_test(test_ndp_resolve),
		cmocka_unit_test(test_hold_both_families),
		cmocka_unit_test(test_echo_announce),
		cmocka_unit_test(test_bad_configs),
		cmocka_unit_test(test_runtime_changes),
		cmocka_unit_test(test_rpc),
	};

	t_eal_init();
	return cmocka_run_group_tests(tests, NULL, NULL);
}
