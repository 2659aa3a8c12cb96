/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ECN and WRED (buffers.md 4, T6): the marking curve at fixed depths within a 99% binomial
 * interval over 20 000 packets, ECT-only marking, WRED drop of not-ECT packets only where
 * enabled, checksums after marking against a full recompute, IPv6 marking, the departing
 * packet excluded from the depth, RoCE and CNP counting, CNPs on their own TC and never
 * marked.
 */
#include <math.h>
#include <string.h>
#include <rte_ip.h>
#include "harness.h"
#include "lsw/ecn.h"

#define KB 1024u

/* Ethernet0 in; 10.2.0.0/16 out of Ethernet4 (10G). Queue 3 of Ethernet4 marks with the
 * DCQCN curve (5 KB, 200 KB, 1%); queue 1 WRED-drops not-ECT packets on a step at 4500 B;
 * queue 6 (CNPs) marks on the same step. */
#define CONFIG CONFIG_G("")
#define CONFIG_G(global) \
	"{\"DEVICE_METADATA\": {\"localhost\": {\"mac\": \"02:00:00:00:00:01\"}}," \
	" \"LSW\": {\"global\": {\"workers\": [1], \"mbufs\": 200000" global "}}," \
	" \"PORT\": {\"Ethernet0\": {\"speed\": \"100000\"}," \
	" \"Ethernet4\": {\"speed\": \"10000\"}}," \
	" \"LSW_PORT\": {\"Ethernet0\": {\"devargs\": \"net_null0\"}," \
	"   \"Ethernet4\": {\"devargs\": \"net_null1\"}}," \
	" \"INTERFACE\": {\"Ethernet0|10.0.0.0/31\": {}, \"Ethernet4|10.0.1.0/31\": {}}," \
	" \"STATIC_ROUTE\": {\"10.2.0.0/16\": {\"nexthop\": \"10.0.1.1\"}}," \
	" \"NEIGH\": {\"Ethernet4|10.0.1.1\": {\"neigh\": \"02:00:00:00:04:01\"}}," \
	" \"WRED_PROFILE\": {\"DCQCN\": {\"ecn\": \"ecn_green\"," \
	" \"green_min_threshold\": \"5KB\"," \
	"   \"green_max_threshold\": \"200KB\", \"green_drop_probability\": \"1\"}," \
	"  \"STEP\": {\"ecn\": \"ecn_green\", \"wred_green_enable\": \"true\"," \
	"   \"green_min_threshold\": \"4500\", \"green_max_threshold\": \"4500\"}}," \
	" \"QUEUE\": {\"Ethernet4|3\": {\"wred_profile\": \"DCQCN\"}," \
	"   \"Ethernet4|1\": {\"wred_profile\": \"STEP\"}," \
	" \"Ethernet4|6\": {\"wred_profile\": \"STEP\"}}}"

#define E0 0
#define E4 1

static uint8_t buf[2048];

/* A packet to Ethernet4 with @dscp and @ecn, RoCEv2 (BTH @opcode) when @opcode >= 0. */
static uint16_t
frame(uint8_t dscp, uint8_t ecn, int opcode, uint16_t payload)
{
	struct t_flow f = {.dst = "10.2.0.9", .payload = payload, .vlan = -1,
			   .tos = (uint8_t)(dscp << 2 | ecn), .sport = 1234,
			   .dport = opcode >= 0 ? 4791 : 5000};
	uint16_t len = t_build_ipv4(buf, &f);

	if (opcode >= 0)
		buf[14 + 20 + 8] = (uint8_t)opcode;
	return len;
}

/* T6: at a fixed depth q the fraction marked is 0 at or below kmin, pmax (q-kmin)/(kmax-kmin)
 * in between (within the 99% binomial interval), 1 above kmax; not-ECT never marked. */
static void
test_curve(void **state)
{
	struct t_switch *t = t_switch_new(CONFIG);
	const struct lsw_ecn_dp *a = &t->conf->ecn[E4][3];
	const uint64_t depths[] = {0, 5 * KB, 5 * KB + 1, 50 * KB, 102 * KB, 150 * KB, 200 * KB,
				   200 * KB + 1, 1000 * KB};
	const int n = 20000;
	uint16_t len = frame(3, 2, -1, 1000); /* ECT(0) */
	struct rte_mbuf *m = t_mbuf(buf, len);

	(void)state;
	lsw_meta(m)->flags = 0;
	assert_true(a->marks && !a->drops);
	assert_int_equal(t->conf->sched[E4].ecn_min[3], 5 * KB);
	assert_int_equal(t->conf->sched[E4].ecn_min[0], UINT64_MAX);
	for (size_t i = 0; i < RTE_DIM(depths); i++) {
		uint64_t q = depths[i];
		double p = q <= 5 * KB ? 0 : q > 200 * KB ? 1 :
			   0.01 * (double)(q - 5 * KB) / (double)(195 * KB);
		int marked = 0;
		for (int k = 0; k < n; k++) {
			struct rte_ipv4_hdr *ip =
				rte_pktmbuf_mtod_offset(m, struct rte_ipv4_hdr *, 14);
			ip->type_of_service = 3 << 2 | 2;
			assert_false(lsw_ecn_dequeue(&t->w, a, E4, 3, m, q));
			marked += (ip->type_of_service & 3) == 3;
		}
		/* 99%: within 2.576 standard deviations (and at least one packet of slack). */
		double sd = sqrt((double)n * p * (1 - p));
		assert_true(fabs(marked - n * p) <= 2.576 * sd + 1);
	}
	/* Not-ECT: never marked, and not dropped (this profile has no WRED drop). */
	struct rte_ipv4_hdr *ip = rte_pktmbuf_mtod_offset(m, struct rte_ipv4_hdr *, 14);
	ip->type_of_service = 3 << 2;
	for (int k = 0; k < 1000; k++)
		assert_false(lsw_ecn_dequeue(&t->w, a, E4, 3, m, 1000 * KB));
	assert_int_equal(ip->type_of_service, 3 << 2);
	rte_pktmbuf_free(m);
	t_switch_free(t);
}

/* Marking sets CE and the incremental checksum equals a full recompute, for 100 000
 * random headers; CE stays CE; not-ECT is left alone. IPv6 through the traffic class. */
static void
test_mark_headers(void **state)
{
	uint8_t h[40];
	uint64_t rng = 42;

	(void)state;
	for (int i = 0; i < 100000; i++) {
		struct rte_ipv4_hdr *ip = (struct rte_ipv4_hdr *)h;
		for (int k = 0; k < 20; k += 8) {
			uint64_t r = lsw_rand48(&rng) << 16 | lsw_rand48(&rng);
			memcpy(h + k, &r, k + 8 <= 20 ? 8 : 4);
		}
		ip->version_ihl = RTE_IPV4_VHL_DEF;
		ip->type_of_service = (uint8_t)(ip->type_of_service & ~3) | (1 + i % 2); /* ECT */
		ip->hdr_checksum = 0;
		ip->hdr_checksum = rte_ipv4_cksum(ip);
		uint8_t tos = ip->type_of_service;
		assert_int_equal(lsw_ecn_mark_ipv4(h), LSW_ECN_MARKED);
		assert_int_equal(ip->type_of_service, tos | 3);
		assert_true(t_ipv4_csum_ok(ip));
		assert_int_equal(lsw_ecn_mark_ipv4(h), LSW_ECN_WAS_CE);
	}
	struct rte_ipv4_hdr *ip = (struct rte_ipv4_hdr *)h;
	ip->type_of_service = 26 << 2;
	assert_int_equal(lsw_ecn_mark_ipv4(h), LSW_ECN_NOT_ECT);
	assert_int_equal(ip->type_of_service, 26 << 2);
	/* IPv6: version 6, traffic class 0x6a (DSCP 26, ECT(0)), flow label 0x12345. */
	memset(h, 0, sizeof(h));
	h[0] = 0x66, h[1] = 0xa1, h[2] = 0x23, h[3] = 0x45;
	assert_int_equal(lsw_ecn_mark_ipv6(h), LSW_ECN_MARKED);
	assert_int_equal(h[0], 0x66);
	assert_int_equal(h[1], 0xb1); /* traffic class 0x6b: CE, DSCP and flow label kept */
	assert_int_equal(h[2] << 8 | h[3], 0x2345);
	assert_int_equal(lsw_ecn_mark_ipv6(h), LSW_ECN_WAS_CE);
	h[1] = 0x81;
	assert_int_equal(lsw_ecn_mark_ipv6(h), LSW_ECN_NOT_ECT);
}

/* Ten 1 KB packets queued on a step at 4500 B: each leaves 9000, 8000, ... bytes behind it
 * (itself excluded), so the first five are marked, not six. Not-ECT ones are dropped
 * instead (WRED on), counted per queue and port; what is left is sent. */
static void
test_dequeue(void **state)
{
	struct t_switch *t = t_switch_new(CONFIG);

	(void)state;
	assert_int_equal(t_start_ports(t), 0);
	uint16_t len = frame(0, 1, -1, 1000 - 42); /* DSCP 0: TC 1, queue 1, ECT(1), 1000 B */
	for (int i = 0; i < 10; i++)
		t_rx(t, E0, buf, len, 1000);
	assert_int_equal(lsw_fifo_count(&t->sw.dp.sched[E4]->q[1]), 10);
	while (lsw_egress_run(&t->w, t->conf, E4, 1000000000))
		;
	const struct lsw_buffer_lcore *mmu = t->w.buffer;
	assert_int_equal(mmu->ctr.q_ecn_marked_pkts[E4][1], 5);
	assert_int_equal(mmu->ctr.q_ecn_marked_bytes[E4][1], 5000);
	assert_int_equal(mmu->ctr.q_tx_pkts[E4][1], 10);
	assert_int_equal(t->sw.dp.ctr[0].port[E4].ctr[LSW_PC_ECN_MARKED_PACKETS], 5);
	assert_int_equal(t->sw.dp.ctr[0].port[E4].ctr[LSW_PC_ROCE_ECN_MARKED_PKTS], 0);
	/* The same with not-ECT: the first five are WRED-dropped. */
	len = frame(0, 0, -1, 1000 - 42);
	for (int i = 0; i < 10; i++)
		t_rx(t, E0, buf, len, 2000);
	while (lsw_egress_run(&t->w, t->conf, E4, 2000000000))
		;
	assert_int_equal(mmu->ctr.q_drop_reason[E4][1][LSW_QDROP_WRED_DROP], 5);
	assert_int_equal(mmu->ctr.q_wred_drop_bytes[E4][1], 5000);
	assert_int_equal(t_drops(t, E4, LSW_DROP_WRED_DROP), 5);
	assert_int_equal(mmu->ctr.q_tx_pkts[E4][1], 15);
	assert_int_equal(mmu->ctr.q_tx_bytes[E4][1], 15000);
	assert_int_equal(mmu->ctr.q_ecn_marked_pkts[E4][1], 5);
	assert_int_equal(mmu->use.q_occ[E4][1][0] + mmu->use.q_occ[E4][1][1], 0); /* all released */
	t_switch_free(t);
}

/* A starved port whose worker woke late makes up the line time it owes (the shaper's
 * catch-up), and ECN looks at the queue less those owed bytes: the queue the line would
 * have. Eight 1000-byte frames on the 4500-byte step: sent by a worker on time, the first
 * three see 7000, 6000 and 5000 bytes behind them and are marked; sent by a worker 5.5
 * frame times late on a starved port, that first run sees about 4500 bytes fewer and marks
 * none. */
static void
test_dequeue_late(void **state)
{
	(void)state;
	for (int late = 0; late < 2; late++) {
		struct t_switch *t = t_switch_new(CONFIG);
		assert_int_equal(t_start_ports(t), 0);
		const uint64_t hz = t->sw.dp.tsc_hz;
		const uint64_t frame_ticks = (1000 + 24) * 8 * hz / 10000000000ull;
		uint16_t len = frame(0, 1, -1, 1000 - 42);
		for (int i = 0; i < 8; i++)
			t_rx(t, E0, buf, len, 1);
		struct lsw_sched *s = t->sw.dp.sched[E4];
		uint64_t now = 1;
		if (late) {
			/* No tokens yet: the run ends short of them, the port starved. */
			assert_int_equal(lsw_egress_run(&t->w, t->conf, E4, now), 0);
			assert_true(s->starved);
			now += frame_ticks * 11 / 2;
			assert_int_equal(lsw_egress_run(&t->w, t->conf, E4, now), 5);
			assert_int_equal(t->w.buffer->ctr.q_ecn_marked_pkts[E4][1], 0);
		} else {
			now += hz; /* idle long: a full (small) bucket, not starved */
		}
		/* The rest on time. */
		for (int i = 0; i < 16 && lsw_fifo_count(&s->q[1]) != 0; i++) {
			now += frame_ticks;
			lsw_egress_run(&t->w, t->conf, E4, now);
		}
		assert_int_equal(t->w.buffer->ctr.q_tx_pkts[E4][1], 8);
		assert_int_equal(t->w.buffer->ctr.q_ecn_marked_pkts[E4][1], late ? 0 : 3);
		t_switch_free(t);
	}
}

/* RoCEv2 is counted on the way in; a CNP (opcode 0x81) rides TC 6 whatever its DSCP and is
 * never marked, while other RoCE packets in the same marking queue are. */
static void
test_roce_cnp(void **state)
{
	struct t_switch *t = t_switch_new(CONFIG);
	const uint64_t *in = t->sw.dp.ctr[0].port[E0].ctr;
	const uint64_t *out = t->sw.dp.ctr[0].port[E4].ctr;

	(void)state;
	assert_int_equal(t_start_ports(t), 0);
	uint16_t len = frame(26, 2, 0x81, 20); /* CNP, DSCP 26 (TC 1 by AZURE) */
	for (int i = 0; i < 8; i++)
		t_rx(t, E0, buf, len, 1000);
	assert_int_equal(lsw_fifo_count(&t->sw.dp.sched[E4]->q[6]), 8);
	assert_int_equal(in[LSW_PC_ROCE_IN_PKTS], 8);
	assert_int_equal(in[LSW_PC_ROCE_IN_OCTETS], 8u * len);
	assert_int_equal(in[LSW_PC_ROCE_CNP_IN_PKTS], 8);
	len = frame(48, 2, 0x04, 1000); /* RoCE SEND ONLY on DSCP 48: TC 6 too */
	for (int i = 0; i < 8; i++)
		t_rx(t, E0, buf, len, 1000);
	assert_int_equal(lsw_fifo_count(&t->sw.dp.sched[E4]->q[6]), 16);
	assert_int_equal(in[LSW_PC_ROCE_CNP_IN_PKTS], 8);
	while (lsw_egress_run(&t->w, t->conf, E4, 1000000000))
		;
	/* 16 queued on a 4500-byte step: the CNPs went first and are untouched although
	 * they left more than 4500 bytes behind; of the 1042-byte RoCE packets, the three
	 * that left 5 or more behind were marked. */
	assert_int_equal(t->w.buffer->ctr.q_tx_pkts[E4][6], 16);
	assert_int_equal(t->w.buffer->ctr.q_ecn_marked_pkts[E4][6], 3);
	assert_int_equal(out[LSW_PC_ROCE_ECN_MARKED_PKTS], 3);
	t_switch_free(t);
}

/* With cnp_tc "dscp", a CNP is classified like any packet. */
static void
test_cnp_by_dscp(void **state)
{
	struct t_switch *t = t_switch_new(CONFIG_G(", \"cnp_tc\": \"dscp\""));

	(void)state;
	uint16_t len = frame(26, 2, 0x81, 20);
	t_rx(t, E0, buf, len, 1000);
	assert_int_equal(lsw_fifo_count(&t->sw.dp.sched[E4]->q[1]), 1); /* DSCP 26: TC 1 */
	t_switch_free(t);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_curve),
		cmocka_unit_test(test_mark_headers),
		cmocka_unit_test(test_dequeue),
		cmocka_unit_test(test_dequeue_late),
		cmocka_unit_test(test_roce_cnp),
		cmocka_unit_test(test_cnp_by_dscp),
	};
	t_eal_init();
	return cmocka_run_group_tests(tests, NULL, NULL);
}
