/* SPDX-License-Identifier: BSD-3-Clause */
/* IPv4 forwarding through lsw_process_burst: rewrite, ECMP, every drop, ICMP it sends. */
#include <string.h>
#include <rte_ip.h>
#include <rte_icmp.h>
#include "harness.h"

static uint8_t buf[10000];

static struct rte_ipv4_hdr *
ip_of(struct rte_mbuf *m)
{
	return rte_pktmbuf_mtod_offset(m, struct rte_ipv4_hdr *, 14);
}

static void
test_ttl_checksum(void **state)
{
	struct rte_ipv4_hdr ip;

	(void)state;
	srand(7);
	for (int i = 0; i < 100000; i++) {
		uint8_t *b = (uint8_t *)&ip;
		for (size_t j = 0; j < sizeof(ip); j++)
			b[j] = (uint8_t)rand();
		ip.version_ihl = 0x45;
		ip.time_to_live = (uint8_t)(2 + rand() % 254);
		ip.hdr_checksum = 0;
		ip.hdr_checksum = rte_ipv4_cksum(&ip);
		uint8_t ttl = ip.time_to_live;
		lsw_ipv4_ttl_dec(&ip);
		assert_int_equal(ip.time_to_live, ttl - 1);
		assert_true(t_ipv4_csum_ok(&ip));
	}
}

static void
test_forward_rewrite(void **state)
{
	struct t_switch *t = t_switch_new(T_CONFIG);
	struct t_flow f = {.dst = "10.2.3.4", .sport = 1, .dport = 2, .payload = 100, .vlan = -1};
	uint16_t len = t_build_ipv4(buf, &f);
	struct rte_ether_addr want;

	(void)state;
	t_rx(t, T_PORT0, buf, len, 0);
	assert_int_equal(t_tx_count(t, T_PORT4), 1);
	struct rte_mbuf *m = t_tx_take(t, T_PORT4);
	struct rte_ether_hdr *eth = rte_pktmbuf_mtod(m, struct rte_ether_hdr *);
	t_mac("02:00:00:00:04:01", &want);
	assert_true(rte_is_same_ether_addr(&eth->dst_addr, &want));
	t_mac(T_SWITCH_MAC, &want);
	assert_true(rte_is_same_ether_addr(&eth->src_addr, &want));
	assert_int_equal(ip_of(m)->time_to_live, 63);
	assert_true(t_ipv4_csum_ok(ip_of(m)));
	assert_int_equal(m->pkt_len, len);
	/* Everything past the TTL/checksum is untouched. */
	assert_memory_equal(rte_pktmbuf_mtod_offset(m, uint8_t *, 34), buf + 34, len - 34);
	rte_pktmbuf_free(m);
	const struct lsw_port_counters *pc = &t->sw.dp.ctr[0].port[T_PORT0];
	assert_int_equal(pc->ctr[LSW_PC_IF_IN_UCAST_PKTS], 1);
	assert_int_equal(pc->ctr[LSW_PC_IF_IN_OCTETS], len);
	t_switch_free(t);
}

/* Bytes after the IP packet are not forwarded: Ethernet padding, or 8000 bytes of garbage
 * behind a 146-byte packet (which would have outgrown the egress port's shaper bucket and
 * stuck in its queue: found by the packet fuzzer). */
static void
test_trailing_bytes(void **state)
{
	struct t_switch *t = t_switch_new(T_CONFIG);
	struct t_flow f = {.dst = "10.2.3.4", .sport = 1, .dport = 2, .payload = 100, .vlan = -1};
	uint16_t len = t_build_ipv4(buf, &f);

	(void)state;
	memset(buf + len, 0x5a, 8000);
	t_rx(t, T_PORT0, buf, (uint16_t)(len + 8000), 0);
	assert_int_equal(t_tx_count(t, T_PORT4), 1);
	struct rte_mbuf *m = t_tx_take(t, T_PORT4);
	assert_int_equal(m->pkt_len, len);
	assert_memory_equal(rte_pktmbuf_mtod_offset(m, uint8_t *, 34), buf + 34, len - 34);
	rte_pktmbuf_free(m);
	t_switch_free(t);
}

static void
test_vlan0_stripped(void **state)
{
	struct t_switch *t = t_switch_new(T_CONFIG);
	struct t_flow f = {.dst = "10.2.3.4", .payload = 10, .vlan = 3 << 13};
	uint16_t len = t_build_ipv4(buf, &f);

	(void)state;
	t_rx(t, T_PORT0, buf, len, 0);
	struct rte_mbuf *m = t_tx_take(t, T_PORT4);
	assert_non_null(m);
	assert_int_equal(m->pkt_len, len - 4);
	assert_int_equal(rte_be_to_cpu_16(rte_pktmbuf_mtod(m, struct rte_ether_hdr *)->ether_type),
			 RTE_ETHER_TYPE_IPV4);
	assert_true(t_ipv4_csum_ok(ip_of(m)));
	rte_pktmbuf_free(m);
	f.vlan = 100;
	len = t_build_ipv4(buf, &f);
	t_rx(t, T_PORT0, buf, len, 0);
	assert_int_equal(t_drops(t, T_PORT0, LSW_DROP_VLAN_TAG_NOT_ALLOWED), 1);
	t_switch_free(t);
}

/* What the NIC reports of the IPv4 header checksum (ol_flags) is trusted, by the fast path
 * and the careful way alike: GOOD forwards a header whose checksum is wrong, unsummed; BAD
 * drops a right one as IPV4_BAD_CHECKSUM; UNKNOWN and NONE (ports without the offload) are
 * verified in software. Priority-tagged frames take the careful way. */
static void
test_nic_checksum(void **state)
{
	static const struct {
		uint64_t flags;
		bool wrong, forwarded;
	} cases[] = {
		{RTE_MBUF_F_RX_IP_CKSUM_GOOD, true, true},
		{RTE_MBUF_F_RX_IP_CKSUM_GOOD, false, true},
		{RTE_MBUF_F_RX_IP_CKSUM_BAD, false, false},
		{RTE_MBUF_F_RX_IP_CKSUM_UNKNOWN, false, true},
		{RTE_MBUF_F_RX_IP_CKSUM_UNKNOWN, true, false},
		{RTE_MBUF_F_RX_IP_CKSUM_NONE, false, true},
		{RTE_MBUF_F_RX_IP_CKSUM_NONE, true, false},
	};
	struct t_switch *t = t_switch_new(T_CONFIG);
	uint64_t bad = 0;

	(void)state;
	for (int vlan = -1; vlan <= 0; vlan++) {
		struct t_flow f = {.dst = "10.2.3.4", .payload = 30, .vlan = vlan};
		const uint16_t len = t_build_ipv4(buf, &f), l3 = vlan < 0 ? 14 : 18;
		for (size_t i = 0; i < RTE_DIM(cases); i++) {
			struct lsw_pkt_info pi;
			buf[l3 + 10] ^= cases[i].wrong ? 0x5a : 0;
			/* The parse, both ways, says so. */
			enum lsw_drop want = cases[i].forwarded ? LSW_DROP_NONE :
					     LSW_DROP_IPV4_BAD_CHECKSUM;
			assert_int_equal(lsw_parse_rx(buf, len, cases[i].flags, &pi), want);
			assert_int_equal(lsw_parse_careful_rx(buf, len, cases[i].flags, &pi), want);
			struct rte_mbuf *m = t_mbuf(buf, len);
			m->port = t->sw.port[T_PORT0].port_id;
			m->ol_flags = cases[i].flags;
			if (vlan < 0) { /* the fast path itself takes it, or leaves it as it was */
				bool took = lsw_ipv4_fast(&t->w, t->conf, T_PORT0,
							  &t->conf->port[T_PORT0], m, 0);
				assert_int_equal(took, cases[i].forwarded);
				if (took)
					lsw_admit_flush(&t->w, t->conf);
				else
					lsw_process_burst(&t->w, t->conf, T_PORT0, &m, 1, 0);
			} else {
				lsw_process_burst(&t->w, t->conf, T_PORT0, &m, 1, 0);
			}
			bad += !cases[i].forwarded;
			assert_int_equal(t_drops(t, T_PORT0, LSW_DROP_IPV4_BAD_CHECKSUM), bad);
			m = t_tx_take(t, T_PORT4);
			assert_true((m != NULL) == cases[i].forwarded);
			rte_pktmbuf_free(m);
			buf[l3 + 10] ^= cases[i].wrong ? 0x5a : 0;
		}
	}
	t_switch_free(t);
}

/* LSW_PORT.priority_tagging: routed frames leave Ethernet4 with VID 0 and the PCP of their
 * TC (TC_TO_DOT1P_MAP), whether they came tagged or not (other ports stay untagged:
 * test_vlan0_stripped). Bad values are refused by path. */
static void
test_priority_tagging(void **state)
{
	static const char *const bads[][3] = {
		{"{\"LSW_PORT\": {\"Ethernet4\": {\"priority_tagging\": \"yes\"}}}",
		 "$.LSW_PORT.Ethernet4.priority_tagging", "true or false"},
		{"{\"TC_TO_DOT1P_MAP\": {\"P\": {\"8\": \"1\"}}}", "$.TC_TO_DOT1P_MAP.P['8']",
		 "traffic classes"},
		{"{\"PORT_QOS_MAP\": {\"Ethernet4\": {\"tc_to_dot1p_map\": \"NOPE\"}}}",
		 "$.PORT_QOS_MAP.Ethernet4.tc_to_dot1p_map", "NOPE"},
	};
	struct lsw_errs errs;
	struct lsw_config *c = t_config_patch(T_CONFIG,
		"{\"LSW_PORT\": {\"Ethernet4\": {\"priority_tagging\": true}},"
		" \"TC_TO_DOT1P_MAP\": {\"P\": {\"3\": \"5\", \"1\": \"2\"}},"
		" \"PORT_QOS_MAP\": {\"Ethernet4\": {\"tc_to_dot1p_map\": \"P\"}}}", &errs);

	(void)state;
	t_config_refused(T_CONFIG, bads, RTE_DIM(bads));
	assert_non_null(c);
	char *doc = json_dumps(c->doc, 0);
	lsw_config_free(c);
	struct t_switch *t = t_switch_new(doc);
	free(doc);
	/* DSCP 3 is TC 3 (AZURE), DSCP 0 TC 1; the second one arrives priority-tagged. */
	for (int i = 0; i < 2; i++) {
		struct t_flow f = {.dst = "10.2.3.4", .payload = 100, .vlan = i ? 1 << 13 : -1,
				   .tos = i ? 0 : 3 << 2};
		uint16_t len = t_build_ipv4(buf, &f);
		t_rx(t, T_PORT0, buf, len, 0);
		struct rte_mbuf *m = t_tx_take(t, T_PORT4);
		assert_non_null(m);
		const uint8_t *o = rte_pktmbuf_mtod(m, const uint8_t *);
		assert_int_equal(m->pkt_len, i ? len : len + 4);
		assert_int_equal(o[12] << 8 | o[13], RTE_ETHER_TYPE_VLAN);
		assert_int_equal(o[14] << 8 | o[15], (i ? 2 : 5) << 13); /* PCP, VID 0 */
		assert_int_equal(o[16] << 8 | o[17], RTE_ETHER_TYPE_IPV4);
		const struct rte_ipv4_hdr *ip = (const struct rte_ipv4_hdr *)(o + 18);
		assert_int_equal(ip->time_to_live, 63);
		assert_true(t_ipv4_csum_ok(ip));
		rte_pktmbuf_free(m);
	}
	t_switch_free(t);
}

static void
test_ecmp(void **state)
{
	struct t_switch *t = t_switch_new(T_CONFIG);
	struct t_flow f = {.dst = "10.1.0.9", .dport = 4791, .payload = 12, .vlan = -1};
	int first[64];

	(void)state;
	for (int i = 0; i < 64; i++) {
		f.sport = (uint16_t)(1000 + i);
		uint16_t len = t_build_ipv4(buf, &f);
		t_rx(t, T_PORT0, buf, len, 0);
		assert_int_equal(t_tx_count(t, T_PORT4) + t_tx_count(t, T_PORT8), 1);
		first[i] = t_tx_count(t, T_PORT4) ? T_PORT4 : T_PORT8;
		rte_pktmbuf_free(t_tx_take(t, (uint16_t)first[i]));
	}
	int on4 = 0;
	for (int i = 0; i < 64; i++)
		on4 += first[i] == T_PORT4;
	assert_true(on4 > 16 && on4 < 48); /* both members used */
	/* A flow stays on its member. */
	for (int i = 0; i < 64; i++) {
		f.sport = (uint16_t)(1000 + i);
		uint16_t len = t_build_ipv4(buf, &f);
		t_rx(t, T_PORT0, buf, len, 0);
		assert_int_equal(t_tx_count(t, (uint16_t)first[i]), 1);
		rte_pktmbuf_free(t_tx_take(t, (uint16_t)first[i]));
	}
	t_switch_free(t);
}

static void
check_icmp_error(struct rte_mbuf *m, uint8_t type, uint8_t code, const uint8_t *orig,
		 uint16_t mtu)
{
	struct rte_ipv4_hdr *ip = ip_of(m);
	struct rte_icmp_hdr *icmp = (struct rte_icmp_hdr *)(ip + 1);
	struct rte_ether_addr want;

	t_mac("02:00:00:00:01:01", &want);
	assert_true(rte_is_same_ether_addr(&rte_pktmbuf_mtod(m, struct rte_ether_hdr *)->dst_addr,
					   &want));
	assert_true(t_ipv4_csum_ok(ip));
	assert_int_equal(rte_be_to_cpu_32(ip->src_addr), t_ip("10.0.0.0"));
	assert_int_equal(rte_be_to_cpu_32(ip->dst_addr), t_ip("10.0.0.1"));
	assert_int_equal(icmp->icmp_type, type);
	assert_int_equal(icmp->icmp_code, code);
	assert_int_equal(rte_be_to_cpu_16(icmp->icmp_seq_nb), mtu);
	uint16_t icmp_len = (uint16_t)(rte_be_to_cpu_16(ip->total_length) - 20);
	assert_int_equal(rte_raw_cksum(icmp, icmp_len), 0xffff);
	/* The original header, as it arrived (TTL not yet decremented), is quoted. */
	assert_memory_equal(icmp + 1, orig + 14, 28);
}

static void
test_ttl_expired(void **state)
{
	struct t_switch *t = t_switch_new(T_CONFIG);
	struct t_flow f = {.dst = "10.2.3.4", .ttl = 1, .sport = 9, .dport = 9, .vlan = -1};
	uint16_t len = t_build_ipv4(buf, &f);

	(void)state;
	t_rx(t, T_PORT0, buf, len, 0);
	assert_int_equal(t_drops(t, T_PORT0, LSW_DROP_TTL), 1);
	assert_int_equal(t_tx_count(t, T_PORT4), 0);
	struct rte_mbuf *m = t_tx_take(t, T_PORT0);
	assert_non_null(m);
	check_icmp_error(m, 11, 0, buf, 0);
	rte_pktmbuf_free(m);
	assert_int_equal(t_event(t, LSW_EV_ICMP_ERROR_TX), 1);
	/* No ICMP error about an ICMP error. */
	f.proto = IPPROTO_ICMP;
	len = t_build_ipv4(buf, &f);
	buf[34] = 11;
	t_rx(t, T_PORT0, buf, len, 0);
	assert_int_equal(t_drops(t, T_PORT0, LSW_DROP_TTL), 2);
	assert_int_equal(t_tx_count(t, T_PORT0), 0);
	t_switch_free(t);
}

static void
test_icmp_rate_limit(void **state)
{
	struct t_switch *t = t_switch_new(T_CONFIG);
	struct t_flow f = {.dst = "10.2.3.4", .ttl = 1, .vlan = -1};
	uint16_t len = t_build_ipv4(buf, &f);
	uint64_t now = 10 * T_HZ; /* bucket full: icmp_burst (100) tokens */

	(void)state;
	for (int i = 0; i < 150; i++) {
		t_rx(t, T_PORT0, buf, len, now);
		while (t_tx_count(t, T_PORT0))
			rte_pktmbuf_free(t_tx_take(t, T_PORT0));
	}
	assert_int_equal(t_event(t, LSW_EV_ICMP_ERROR_TX), 100);
	assert_int_equal(t_event(t, LSW_EV_ICMP_RATE_LIMITED), 50);
	/* 10 ms later at 1000/s: 10 more. */
	now += T_HZ / 100;
	for (int i = 0; i < 20; i++) {
		t_rx(t, T_PORT0, buf, len, now);
		while (t_tx_count(t, T_PORT0))
			rte_pktmbuf_free(t_tx_take(t, T_PORT0));
	}
	assert_int_equal(t_event(t, LSW_EV_ICMP_ERROR_TX), 110);
	assert_int_equal(t_drops(t, T_PORT0, LSW_DROP_TTL), 170);
	/* The bucket is the switch's, not the worker's: another worker gets nothing now, and
	 * what the rate gives back is shared (1 ms: one error, whoever sends it). */
	assert_false(lsw_icmp_allow(&t->sw.dp, t->conf, now));
	now += T_HZ / 1000;
	assert_true(lsw_icmp_allow(&t->sw.dp, t->conf, now));
	t_rx(t, T_PORT0, buf, len, now);
	assert_int_equal(t_event(t, LSW_EV_ICMP_ERROR_TX), 110);
	assert_int_equal(t_event(t, LSW_EV_ICMP_RATE_LIMITED), 61);
	t_switch_free(t);
}

static void
test_mtu(void **state)
{
	struct t_switch *t = t_switch_new(T_CONFIG);
	struct t_flow f = {.dst = "10.2.3.4", .payload = 1500 - 28, .vlan = -1};
	uint16_t len = t_build_ipv4(buf, &f);

	(void)state;
	t_rx(t, T_PORT0, buf, len, 0); /* exactly 1500: fits Ethernet4 */
	assert_int_equal(t_tx_count(t, T_PORT4), 1);
	f.payload++;
	len = t_build_ipv4(buf, &f);
	t_rx(t, T_PORT0, buf, len, 0); /* no DF: dropped silently */
	assert_int_equal(t_drops(t, T_PORT4, LSW_DROP_EXCEEDS_L3_MTU), 1);
	assert_int_equal(t_tx_count(t, T_PORT0), 0);
	f.df = true;
	len = t_build_ipv4(buf, &f);
	t_rx(t, T_PORT0, buf, len, 0);
	assert_int_equal(t_drops(t, T_PORT4, LSW_DROP_EXCEEDS_L3_MTU), 2);
	struct rte_mbuf *m = t_tx_take(t, T_PORT0);
	assert_non_null(m);
	check_icmp_error(m, 3, 4, buf, 1500);
	rte_pktmbuf_free(m);
	t_switch_free(t);
}

struct drop_case {
	const char *name;
	struct t_flow f;
	enum lsw_drop reason;
	uint16_t port;
};

static void
test_drops(void **state)
{
	static const struct drop_case cases[] = {
		{"no route", {.dst = "172.16.0.1"}, LSW_DROP_LPM4_MISS, T_PORT0},
		{"blackhole", {.dst = "10.3.0.1"}, LSW_DROP_BLACKHOLE_ROUTE, T_PORT0},
		{"sip mc", {.src = "224.0.0.5"}, LSW_DROP_SIP_MC, T_PORT0},
		{"sip class e", {.src = "250.0.0.5"}, LSW_DROP_SIP_CLASS_E, T_PORT0},
		{"sip bc", {.src = "255.255.255.255"}, LSW_DROP_SIP_BC, T_PORT0},
		{"sip 0", {.src = "0.0.0.0"}, LSW_DROP_SIP_UNSPECIFIED, T_PORT0},
		{"sip lo", {.src = "127.0.0.1"}, LSW_DROP_SIP_LOOPBACK, T_PORT0},
		{"dip lo", {.dst = "127.0.0.1"}, LSW_DROP_DIP_LOOPBACK, T_PORT0},
		{"dip mc", {.dst = "239.1.1.1", .dmac = "01:00:5e:01:01:01"},
		 LSW_DROP_DIP_MULTICAST, T_PORT0},
		{"uc dip bc dmac", {.dst = "10.2.0.1", .dmac = "ff:ff:ff:ff:ff:ff"},
		 LSW_DROP_UC_DIP_MC_DMAC, T_PORT0},
		{"dmac", {.dmac = "02:00:00:00:00:99"}, LSW_DROP_DMAC_MISMATCH, T_PORT0},
		{"smac mc", {.smac = "03:00:00:00:00:01"}, LSW_DROP_SMAC_MULTICAST, T_PORT0},
		{"udp to switch", {.dst = "10.0.1.0"}, LSW_DROP_LOCAL_UNSUPPORTED, T_PORT0},
	};
	struct t_switch *t = t_switch_new(T_CONFIG);

	(void)state;
	for (size_t i = 0; i < RTE_DIM(cases); i++) {
		struct t_flow f = cases[i].f;
		f.vlan = -1;
		if (f.dst == NULL)
			f.dst = "10.2.0.1";
		uint16_t len = t_build_ipv4(buf, &f);
		uint64_t before = t_drops(t, cases[i].port, cases[i].reason);
		t_rx(t, T_PORT0, buf, len, 0);
		if (t_drops(t, cases[i].port, cases[i].reason) != before + 1)
			fail_msg("%s: %s not counted", cases[i].name,
				 lsw_drop_name(cases[i].reason));
		for (uint16_t p = 0; p < 4; p++)
			assert_int_equal(t_tx_count(t, p), 0);
	}
	/* An IPv6 header of zeros (test_ipv6.c has the rest), then what lsw does not route. */
	memset(buf, 0, 80);
	t_mac(T_SWITCH_MAC, (struct rte_ether_addr *)buf);
	t_mac("02:00:00:00:01:01", (struct rte_ether_addr *)(buf + 6));
	buf[12] = 0x86, buf[13] = 0xdd, buf[14] = 0x60;
	uint64_t unspec = t_drops(t, T_PORT0, LSW_DROP_SIP_UNSPECIFIED);
	t_rx(t, T_PORT0, buf, 80, 0);
	assert_int_equal(t_drops(t, T_PORT0, LSW_DROP_SIP_UNSPECIFIED), unspec + 1);
	buf[12] = 0x88, buf[13] = 0x08;
	t_rx(t, T_PORT0, buf, 60, 0);
	assert_int_equal(t_drops(t, T_PORT0, LSW_DROP_MAC_CONTROL_UNKNOWN), 1);
	/* A frame in two segments. */
	struct t_flow f = {.dst = "10.2.0.1", .vlan = -1};
	uint16_t len = t_build_ipv4(buf, &f);
	struct rte_mbuf *m = t_mbuf(buf, len), *m2 = t_mbuf(buf, 10);
	assert_int_equal(rte_pktmbuf_chain(m, m2), 0);
	lsw_process_burst(&t->w, t->conf, T_PORT0, &m, 1, 0);
	assert_int_equal(t_drops(t, T_PORT0, LSW_DROP_MULTI_SEGMENT), 1);
	t_switch_free(t);
}

static void
test_admin_down(void **state)
{
	struct t_switch *t = t_switch_new(T_CONFIG);
	struct t_flow f = {.dst = "10.2.0.1", .vlan = -1};
	uint16_t len = t_build_ipv4(buf, &f);

	(void)state;
	t->conf->port[T_PORT4].admin_up = 0;
	t_rx(t, T_PORT0, buf, len, 0);
	assert_int_equal(t_drops(t, T_PORT4, LSW_DROP_L3_EGRESS_LINK_DOWN), 1);
	t->conf->port[T_PORT0].admin_up = 0;
	t_rx(t, T_PORT0, buf, len, 0);
	assert_int_equal(t_drops(t, T_PORT0, LSW_DROP_IRIF_DISABLED), 1);
	t_switch_free(t);
}

static void
test_echo(void **state)
{
	struct t_switch *t = t_switch_new(T_CONFIG);
	/* Ping the address of another port: the switch answers for all its addresses. */
	struct t_flow f = {.dst = "10.0.1.2", .proto = IPPROTO_ICMP, .payload = 56, .vlan = -1};
	uint16_t len = t_build_ipv4(buf, &f);
	struct rte_icmp_hdr *icmp = (struct rte_icmp_hdr *)(buf + 34);

	(void)state;
	icmp->icmp_type = RTE_IP_ICMP_ECHO_REQUEST;
	icmp->icmp_ident = rte_cpu_to_be_16(77);
	icmp->icmp_cksum = 0;
	icmp->icmp_cksum = (uint16_t)~rte_raw_cksum(icmp, 8 + 56);
	t_rx(t, T_PORT0, buf, len, 0);
	struct rte_mbuf *m = t_tx_take(t, T_PORT0);
	assert_non_null(m);
	struct rte_ipv4_hdr *ip = ip_of(m);
	struct rte_icmp_hdr *r = (struct rte_icmp_hdr *)(ip + 1);
	assert_true(t_ipv4_csum_ok(ip));
	assert_int_equal(rte_be_to_cpu_32(ip->src_addr), t_ip("10.0.1.2"));
	assert_int_equal(rte_be_to_cpu_32(ip->dst_addr), t_ip("10.0.0.1"));
	assert_int_equal(r->icmp_type, RTE_IP_ICMP_ECHO_REPLY);
	assert_int_equal(rte_be_to_cpu_16(r->icmp_ident), 77);
	assert_int_equal(rte_raw_cksum(r, 8 + 56), 0xffff);
	assert_memory_equal(r + 1, icmp + 1, 56);
	rte_pktmbuf_free(m);
	assert_int_equal(t_event(t, LSW_EV_ICMP_ECHO_REPLY_TX), 1);
	/* A corrupted echo is refused. */
	icmp->icmp_cksum ^= 0x10;
	t_rx(t, T_PORT0, buf, len, 0);
	assert_int_equal(t_drops(t, T_PORT0, LSW_DROP_ICMP_MALFORMED), 1);
	assert_int_equal(t_tx_count(t, T_PORT0), 0);
	t_switch_free(t);
}

/* Everything @a and @b send on every port, frame by frame: bytes and meta. */
static void
same_tx(struct t_switch *a, struct t_switch *b)
{
	for (uint16_t p = 0; p < 4; p++) {
		assert_int_equal(t_tx_count(a, p), t_tx_count(b, p));
		struct rte_mbuf *ma, *mb;
		while ((ma = t_tx_take(a, p)) != NULL) {
			mb = t_tx_take(b, p);
			assert_non_null(mb);
			assert_int_equal(ma->pkt_len, mb->pkt_len);
			assert_memory_equal(rte_pktmbuf_mtod(ma, void *),
					    rte_pktmbuf_mtod(mb, void *), ma->pkt_len);
			/* A switch-originated frame's meta says only that it is one. */
			const struct lsw_pkt_meta *xa = lsw_meta(ma), *xb = lsw_meta(mb);
			assert_int_equal(xa->flags, xb->flags);
			if (xa->flags & LSW_META_CTL)
				goto next;
			assert_int_equal(xa->in_port, xb->in_port);
			assert_int_equal(xa->tc, xb->tc);
			assert_int_equal(xa->pg, xb->pg);
			assert_int_equal(xa->out_port, xb->out_port);
			assert_int_equal(xa->queue, xb->queue);
next:
			rte_pktmbuf_free(ma);
			rte_pktmbuf_free(mb);
		}
	}
}

/* Either switch of a pair, changed alike. One frame in four to Ethernet4's queues 0-6 is
 * refused (no reserve, no shared buffer) and trimmed (to 60-315 bytes, to queue 7), so that
 * both ways must make the same trims too. */
static void
both_conf(struct t_switch *t, int i)
{
	struct lsw_snapshot *c = t->conf;
	const bool trim = i % 4 == 1;
	static const struct lsw_prof_dp refuse = {.dynamic = 1, .shift = -8};

	c->direct = i >= 60000; /* the second half in "direct" forwarding */
	c->port[T_PORT4].admin_up = i % 23 != 0;
	c->port[T_PORT4].prio_tag = i % 7 == 0;
	c->cnp_tc = i % 3 == 0 ? LSW_CNP_TC_DSCP : 6;
	for (int d = 0; d < 64; d++)
		c->buffer.dscp_tc[T_PORT0][d] = (uint8_t)(d % 8);
	for (int q = 0; q < 7; q++)
		c->buffer.q[T_PORT4][q] = trim ? refuse : c->buffer.q[T_PORT4][7];
	c->trim.q_trim[T_PORT4] = trim ? 0x7f : 0;
	c->trim.size = (uint16_t)(60 + i % 256);
	c->trim.dscp[T_PORT4] = (uint8_t)(i % 64);
	c->trim.queue = 7;
	/* ABM's unscheduled DSCPs: both ways flag the same packets (their meta is compared). */
	c->buffer.abm_unsched_dscp = i % 5 == 0 ? 0 : 0x0123456789abcdefull * (uint64_t)(i | 1);
}

/*
 * The fast path (lsw_ipv4_fast) against the careful way (lsw_parse, lsw_ipv4_input) on
 * 120,000 frames of every kind, each fed to one switch of a pair: frames the fast path
 * takes must leave both switches alike (the frames sent, their meta, every counter and
 * drop, the buffer's state, the trims of refused frames), and a frame it leaves must be as
 * it was, nothing counted.
 */
static void
test_fast_equals_careful(void **state)
{
#define ONE_IN(list) (rand() % 4 ? 0 : rand() % (int)RTE_DIM(list))
	/* The routes of T_CONFIG: a next hop, an ECMP group, the same next hop, a blackhole,
	 * an unresolved next hop, the switch's own address, none; martians. */
	static const char *const dsts[] = {"10.2.3.4", "10.1.7.7", "10.2.0.1", "10.3.0.1",
		"10.4.0.9", "10.0.1.0", "172.16.0.1", "127.0.0.1", "239.1.1.1", "10.0.0.1"};
	static const char *const srcs[] = {"10.0.0.1", "10.0.0.1", "0.0.0.5", "0.0.0.0",
		"127.0.0.1", "224.0.0.5", "250.0.0.1", "255.255.255.255"};
	static const char *const dmacs[] = {NULL, NULL, NULL, "02:00:00:00:00:99",
		"01:00:5e:01:01:01", "ff:ff:ff:ff:ff:ff", "03:00:00:00:00:01"};
	static const uint8_t protos[] = {IPPROTO_UDP, IPPROTO_UDP, IPPROTO_TCP, IPPROTO_ICMP, 47};
	struct t_switch *a = t_switch_new(T_CONFIG), *b = t_switch_new(T_CONFIG);
	unsigned int took = 0, left = 0;

	(void)state;
	srand(5);
	for (int i = 0; i < 120000; i++) {
		/* Each field as the fast path wants it 3 times in 4 (the first of its list; the
		 * first two destinations). */
		struct t_flow f = {
			.dst = dsts[rand() % 4 ? rand() % 2 : rand() % (int)RTE_DIM(dsts)],
			.src = srcs[ONE_IN(srcs)], .dmac = dmacs[ONE_IN(dmacs)],
			.smac = rand() % 16 ? NULL : "03:00:00:00:00:02",
			.proto = protos[ONE_IN(protos)], .sport = (uint16_t)rand(),
			.dport = rand() % 2 ? 4791 : 80,
			.ttl = (uint8_t)(rand() % 4 ? 64 : rand() % 3),
			.payload = (uint16_t)(rand() % 8 ? rand() % 64 : 1400 + rand() % 200),
			.vlan = rand() % 13 ? -1 : rand() % 2, .df = rand() % 2,
			.tos = (uint8_t)rand(),
		};
		uint16_t len = t_build_ipv4(buf, &f);
		const uint16_t l4 = f.vlan >= 0 ? 38 : 34;
		if (f.dport == 4791 && rand() % 2) /* a CNP's BTH opcode */
			buf[l4 + 8] = 0x81;
		t_mangle_ipv4(buf, &len, rand() % 8); /* 3 times in 8 */
		both_conf(a, i);
		both_conf(b, i);
		struct rte_mbuf *ma = t_mbuf(buf, len), *mb = t_mbuf(buf, len);
		const uint64_t now = (uint64_t)i * 1000;
		struct lsw_pkt_info pi;
		struct lsw_port_counters before[4];
		memcpy(before, a->sw.dp.ctr[0].port, sizeof(before));
		if (lsw_ipv4_fast(&a->w, a->conf, T_PORT0, &a->conf->port[T_PORT0], ma, now)) {
			took++;
			lsw_admit_flush(&a->w, a->conf);
			/* What handle_one does to a frame the fast path takes. */
			lsw_meta(mb)->flags = 0;
			assert_int_equal(lsw_parse(rte_pktmbuf_mtod(mb, uint8_t *), len, &pi),
					 LSW_DROP_NONE);
			assert_int_equal(pi.ethertype, LSW_ETHERTYPE_IPV4);
			lsw_ipv4_input(&b->w, b->conf, T_PORT0, mb, &pi, now);
			lsw_admit_flush(&b->w, b->conf);
		} else {
			left++;
			assert_int_equal(ma->pkt_len, len);
			assert_memory_equal(rte_pktmbuf_mtod(ma, void *), buf, len);
			assert_memory_equal(before, a->sw.dp.ctr[0].port, sizeof(before));
			for (uint16_t p = 0; p < 4; p++)
				assert_int_equal(t_tx_count(a, p), 0);
			lsw_process_burst(&a->w, a->conf, T_PORT0, &ma, 1, now);
			lsw_process_burst(&b->w, b->conf, T_PORT0, &mb, 1, now);
		}
		same_tx(a, b);
		const struct lsw_lcore_counters *ca = &a->sw.dp.ctr[0], *cb = &b->sw.dp.ctr[0];
		assert_memory_equal(ca->port, cb->port, 4 * sizeof(ca->port[0]));
		assert_memory_equal(ca->event, cb->event, sizeof(ca->event));
		assert_int_equal(a->w.n_held, b->w.n_held);
		/* All sent and released: what stays are the buffer's counters and watermarks. */
		if (i % 64 == 0 || i == 119999)
			assert_memory_equal(a->w.buffer, b->w.buffer, sizeof(*a->w.buffer));
	}
	assert_true(took > 10000 && left > 10000);
	/* Trims were made, both ways, and taken by their queue. */
	assert_true(a->sw.dp.ctr[0].port[T_PORT4].ctr[LSW_PC_TX_TRIM_PACKETS] > 1000);
	lsw_worker_drop_all(&a->w, a->conf); /* what waits for ARP */
	lsw_worker_drop_all(&b->w, b->conf);
	t_switch_free(a);
	t_switch_free(b);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ttl_checksum),
		cmocka_unit_test(test_forward_rewrite),
		cmocka_unit_test(test_trailing_bytes),
		cmocka_unit_test(test_vlan0_stripped),
		cmocka_unit_test(test_nic_checksum),
		cmocka_unit_test(test_ecmp),
		cmocka_unit_test(test_ttl_expired),
		cmocka_unit_test(test_icmp_rate_limit),
		cmocka_unit_test(test_priority_tagging),
		cmocka_unit_test(test_mtu),
		cmocka_unit_test(test_drops),
		cmocka_unit_test(test_admin_down),
		cmocka_unit_test(test_echo),
		cmocka_unit_test(test_fast_equals_careful),
	};
	t_eal_init();
	return cmocka_run_group_tests(tests, NULL, NULL);
}
