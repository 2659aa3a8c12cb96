/* SPDX-License-Identifier: BSD-3-Clause */
/* Parser: every header it reads, every way a header can be cut short or wrong. */
#include <string.h>
#include <rte_ip.h>
#include "harness.h"
#include "lsw/parse.h"

static uint8_t buf[10000];

static uint16_t
roce(uint8_t *b, uint16_t payload)
{
	struct t_flow f = {.sport = 49152, .dport = 4791, .payload = payload, .vlan = -1};
	uint16_t len = t_build_ipv4(b, &f);
	uint8_t *bth = b + 14 + 20 + 8;

	if (payload >= 12) {
		bth[0] = 0x0a;                                 /* RDMA WRITE only */
		bth[5] = 0x12, bth[6] = 0x34, bth[7] = 0x56;   /* dest QP */
		bth[9] = 0xab, bth[10] = 0xcd, bth[11] = 0xef; /* PSN */
	}
	struct rte_ipv4_hdr *ip = (struct rte_ipv4_hdr *)(b + 14);
	ip->hdr_checksum = 0;
	ip->hdr_checksum = rte_ipv4_cksum(ip);
	return len;
}

static void
test_roce(void **state)
{
	struct lsw_pkt_info pi;
	uint16_t len = roce(buf, 12 + 64);

	(void)state;
	assert_int_equal(lsw_parse(buf, len, &pi), LSW_DROP_NONE);
	assert_int_equal(pi.ethertype, 0x0800);
	assert_int_equal(pi.l3_off, 14);
	assert_int_equal(pi.l4_off, 34);
	assert_int_equal(pi.l3_len, 20 + 8 + 12 + 64);
	assert_int_equal(pi.l4_proto, IPPROTO_UDP);
	assert_int_equal(pi.sport, 49152);
	assert_int_equal(pi.dport, 4791);
	assert_true(pi.flags & LSW_PF_ROCE);
	assert_true(pi.flags & LSW_PF_L4);
	assert_int_equal(pi.bth_opcode, 0x0a);
	assert_int_equal(pi.bth_dqpn, 0x123456);
	assert_int_equal(pi.bth_psn, 0xabcdef);
	/* One byte short of a BTH. */
	len = roce(buf, 11);
	assert_int_equal(lsw_parse(buf, len, &pi), LSW_DROP_BTH_TRUNCATED);
}

static void
test_vlan(void **state)
{
	struct t_flow f = {.sport = 1, .dport = 2, .vlan = 0x6000 | 0, .payload = 4};
	struct lsw_pkt_info pi;
	uint16_t len = t_build_ipv4(buf, &f);

	(void)state;
	assert_int_equal(lsw_parse(buf, len, &pi), LSW_DROP_NONE);
	assert_true(pi.flags & LSW_PF_VLAN);
	assert_int_equal(pi.vlan_tci >> 13, 3); /* PCP */
	assert_int_equal(pi.l3_off, 18);
	assert_int_equal(pi.sport, 1);
	assert_int_equal(lsw_parse(buf, 17, &pi), LSW_DROP_VLAN_TRUNCATED);
}

static void
test_l2(void **state)
{
	struct lsw_pkt_info pi;

	(void)state;
	memset(buf, 0, 64);
	assert_int_equal(lsw_parse(buf, 0, &pi), LSW_DROP_L2_TRUNCATED);
	assert_int_equal(lsw_parse(buf, 13, &pi), LSW_DROP_L2_TRUNCATED);
	buf[12] = 0x88, buf[13] = 0xcc; /* LLDP */
	assert_int_equal(lsw_parse(buf, 60, &pi), LSW_DROP_UNKNOWN_ETHERTYPE);
	buf[12] = 0x88, buf[13] = 0x08; /* MAC control */
	assert_int_equal(lsw_parse(buf, 60, &pi), LSW_DROP_NONE);
	assert_int_equal(pi.ethertype, LSW_ETHERTYPE_MACCTL);
	buf[0] = 0x01;
	lsw_parse(buf, 60, &pi);
	assert_true(pi.flags & LSW_PF_DMAC_MC);
}

static void
test_ipv4_errors(void **state)
{
	struct t_flow f = {.sport = 5, .dport = 6, .vlan = -1, .payload = 10};
	struct rte_ipv4_hdr *ip = (struct rte_ipv4_hdr *)(buf + 14);
	struct lsw_pkt_info pi;
	uint16_t len = t_build_ipv4(buf, &f);

	(void)state;
	assert_int_equal(lsw_parse(buf, len, &pi), LSW_DROP_NONE);
	/* Short of the fixed header, of the options, of the payload. */
	assert_int_equal(lsw_parse(buf, 14 + 19, &pi), LSW_DROP_IPV4_TRUNCATED);
	assert_int_equal(lsw_parse(buf, (uint16_t)(len - 1), &pi), LSW_DROP_IPV4_TRUNCATED);
	ip->version_ihl = 0x4f; /* 60-byte header, 38 bytes present */
	ip->hdr_checksum = 0;
	assert_int_equal(lsw_parse(buf, 14 + 38, &pi), LSW_DROP_IPV4_TRUNCATED);
	ip->version_ihl = 0x44;
	assert_int_equal(lsw_parse(buf, len, &pi), LSW_DROP_IPV4_BAD_IHL);
	ip->version_ihl = 0x65;
	assert_int_equal(lsw_parse(buf, len, &pi), LSW_DROP_IPV4_BAD_VERSION);
	len = t_build_ipv4(buf, &f);
	ip->total_length = rte_cpu_to_be_16(19);
	assert_int_equal(lsw_parse(buf, len, &pi), LSW_DROP_IPV4_BAD_LENGTH);
	/* Every bit of the total length counts: 0x8000 + what the frame holds is too long. */
	ip->total_length = rte_cpu_to_be_16((uint16_t)(0x8000 + len - 14));
	assert_int_equal(lsw_parse(buf, len, &pi), LSW_DROP_IPV4_TRUNCATED);
	len = t_build_ipv4(buf, &f);
	ip->hdr_checksum ^= 1;
	assert_int_equal(lsw_parse(buf, len, &pi), LSW_DROP_IPV4_BAD_CHECKSUM);
	/* UDP cut short inside a valid IP header. */
	f.payload = 0;
	len = t_build_ipv4(buf, &f);
	ip->total_length = rte_cpu_to_be_16(20 + 7);
	ip->hdr_checksum = 0;
	ip->hdr_checksum = rte_ipv4_cksum(ip);
	assert_int_equal(lsw_parse(buf, len, &pi), LSW_DROP_L4_TRUNCATED);
	f.proto = IPPROTO_TCP;
	len = t_build_ipv4(buf, &f);
	assert_int_equal(lsw_parse(buf, len, &pi), LSW_DROP_NONE);
	assert_int_equal(pi.dport, 6);
	ip->total_length = rte_cpu_to_be_16(20 + 19);
	ip->hdr_checksum = 0;
	ip->hdr_checksum = rte_ipv4_cksum(ip);
	assert_int_equal(lsw_parse(buf, len, &pi), LSW_DROP_L4_TRUNCATED);
}

/* Headers with options: the checksum covers them (the 20-byte header has its own unrolled
 * sum), and L4 starts after them. */
static void
test_ipv4_options(void **state)
{
	struct t_flow f = {.sport = 1234, .dport = 5678, .vlan = -1, .payload = 10};
	struct rte_ipv4_hdr *ip = (struct rte_ipv4_hdr *)(buf + 14);
	struct lsw_pkt_info pi;

	(void)state;
	for (uint32_t opt = 4; opt <= 40; opt += 36) {
		uint16_t len = t_build_ipv4(buf, &f);
		/* the L4 header and payload move up by the options' length */
		memmove(buf + 14 + 20 + opt, buf + 14 + 20, len - 14 - 20);
		memset(buf + 14 + 20, 1, opt); /* NOPs */
		len = (uint16_t)(len + opt);
		ip->version_ihl = (uint8_t)(0x40 | (20 + opt) / 4);
		ip->total_length = rte_cpu_to_be_16((uint16_t)(rte_be_to_cpu_16(ip->total_length) +
								opt));
		ip->hdr_checksum = 0;
		ip->hdr_checksum = rte_ipv4_cksum(ip);
		assert_int_equal(lsw_parse(buf, len, &pi), LSW_DROP_NONE);
		assert_int_equal(pi.l4_off, 14 + 20 + opt);
		assert_int_equal(pi.sport, 1234);
		assert_int_equal(pi.dport, 5678);
		buf[14 + 20 + opt - 1] ^= 0x10; /* the last option byte */
		assert_int_equal(lsw_parse(buf, len, &pi), LSW_DROP_IPV4_BAD_CHECKSUM);
	}
}

static void
test_padding_and_fragments(void **state)
{
	struct t_flow f = {.sport = 5, .dport = 6, .vlan = -1};
	struct rte_ipv4_hdr *ip = (struct rte_ipv4_hdr *)(buf + 14);
	struct lsw_pkt_info pi;
	uint16_t len = t_build_ipv4(buf, &f); /* 42 bytes */

	(void)state;
	memset(buf + len, 0, 60 - len);
	assert_int_equal(lsw_parse(buf, 60, &pi), LSW_DROP_NONE); /* Ethernet padding */
	assert_int_equal(pi.l3_len, 28);
	/* A later fragment: no L4, whatever its first bytes hold. */
	ip->fragment_offset = rte_cpu_to_be_16(100);
	ip->hdr_checksum = 0;
	ip->hdr_checksum = rte_ipv4_cksum(ip);
	assert_int_equal(lsw_parse(buf, len, &pi), LSW_DROP_NONE);
	assert_true(pi.flags & LSW_PF_FRAGMENT);
	assert_false(pi.flags & LSW_PF_L4);
	/* The first fragment keeps its ports. */
	ip->fragment_offset = rte_cpu_to_be_16(RTE_IPV4_HDR_MF_FLAG);
	ip->hdr_checksum = 0;
	ip->hdr_checksum = rte_ipv4_cksum(ip);
	assert_int_equal(lsw_parse(buf, len, &pi), LSW_DROP_NONE);
	assert_true(pi.flags & LSW_PF_FRAGMENT);
	assert_true(pi.flags & LSW_PF_L4);
}

static void
test_ipv6(void **state)
{
	struct lsw_pkt_info pi;

	(void)state;
	memset(buf, 0, 200);
	buf[12] = 0x86, buf[13] = 0xdd;
	buf[14] = 0x60;
	buf[14 + 4] = 0, buf[14 + 5] = 8 + 12; /* payload length */
	buf[14 + 6] = IPPROTO_UDP;
	buf[54 + 2] = 4791 >> 8, buf[54 + 3] = 4791 & 0xff;
	buf[62] = 0x81;                         /* CNP */
	assert_int_equal(lsw_parse(buf, 54 + 20, &pi), LSW_DROP_NONE);
	assert_true(pi.flags & LSW_PF_ROCE);
	assert_int_equal(pi.bth_opcode, 0x81);
	assert_int_equal(pi.l3_len, 60);
	assert_int_equal(lsw_parse(buf, 54 + 19, &pi), LSW_DROP_IPV6_TRUNCATED);
	assert_int_equal(lsw_parse(buf, 14 + 39, &pi), LSW_DROP_IPV6_TRUNCATED);
	buf[14] = 0x40;
	assert_int_equal(lsw_parse(buf, 54 + 20, &pi), LSW_DROP_IPV6_BAD_VERSION);
}

static void
test_arp(void **state)
{
	struct lsw_pkt_info pi;
	uint16_t len = t_build_arp(buf, 1, "02:00:00:00:01:01", "10.0.0.1", "00:00:00:00:00:00",
				   "10.0.0.0", "ff:ff:ff:ff:ff:ff");

	(void)state;
	assert_int_equal(lsw_parse(buf, len, &pi), LSW_DROP_NONE);
	assert_int_equal(pi.ethertype, LSW_ETHERTYPE_ARP);
	assert_int_equal(lsw_parse(buf, (uint16_t)(len - 1), &pi), LSW_DROP_ARP_MALFORMED);
	buf[14 + 4] = 8; /* hardware address length */
	assert_int_equal(lsw_parse(buf, len, &pi), LSW_DROP_ARP_MALFORMED);
}

/* Random bytes never crash the parser nor produce an out-of-range reason or offset. */
static void
test_random(void **state)
{
	struct lsw_pkt_info pi;

	(void)state;
	srand(1);
	for (int i = 0; i < 200000; i++) {
		uint16_t len = (uint16_t)(rand() % 200);
		for (uint16_t j = 0; j < len; j++)
			buf[j] = (uint8_t)rand();
		if (i & 1) /* give half of them a plausible IPv4 start */
			buf[12] = 0x08, buf[13] = 0, buf[14] = 0x45;
		enum lsw_drop d = lsw_parse(buf, len, &pi);
		assert_true(d < LSW_DROP_MAX);
		if (d == LSW_DROP_NONE && pi.ethertype == LSW_ETHERTYPE_IPV4)
			assert_true(pi.l3_off + pi.l3_len <= len);
	}
}

/* lsw_parse's fast path for plain IPv4 and the careful path agree, in the reason and in
 * every byte of lsw_pkt_info: on valid frames of each L4 kind (RoCE too), tagged or not,
 * and on each with one header bit flipped (its checksum fixed or not), cut short or
 * padded. Most valid ones take the fast path, so a difference there is found. */
static void
test_plain_equals_careful(void **state)
{
	static const uint8_t protos[] = {IPPROTO_UDP, IPPROTO_TCP, IPPROTO_ICMP};
	struct lsw_pkt_info a, b;
	unsigned int plain = 0;

	(void)state;
	srand(2);
	for (int i = 0; i < 200000; i++) {
		struct t_flow f = {
			.proto = protos[i % 3], .sport = 49152, .dport = i & 4 ? 4791 : 80,
			.payload = (uint16_t)(rand() % 64), .vlan = i % 17 == 0 ? 5 : -1,
			.df = i & 8, .dmac = i & 16 ? "01:00:5e:00:00:01" : NULL,
		};
		uint16_t len = t_build_ipv4(buf, &f);

		t_mangle_ipv4(buf, &len, rand() % 4); /* 3 times in 4 */
		enum lsw_drop da = lsw_parse(buf, len, &a), db = lsw_parse_careful(buf, len, &b);
		assert_int_equal(da, db);
		assert_memory_equal(&a, &b, sizeof(a));
		plain += da == LSW_DROP_NONE && a.ethertype == LSW_ETHERTYPE_IPV4 &&
			 a.l4_off == 34 && !(a.flags & (LSW_PF_VLAN | LSW_PF_FRAGMENT));
	}
	assert_true(plain > 80000); /* 89590 of them when written */
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_roce),
		cmocka_unit_test(test_vlan),
		cmocka_unit_test(test_l2),
		cmocka_unit_test(test_ipv4_errors),
		cmocka_unit_test(test_ipv4_options),
		cmocka_unit_test(test_padding_and_fragments),
		cmocka_unit_test(test_ipv6),
		cmocka_unit_test(test_arp),
		cmocka_unit_test(test_random),
		cmocka_unit_test(test_plain_equals_careful),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
