/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Two workers, real net_null ports: a packet received by the worker that does not own the
 * egress port crosses the handoff ring and is sent (and counted) by the owner. A full ring
 * is a counted drop. Transmission itself: counters are taken from what the PMD accepted.
 */
#include <string.h>
#include <rte_ethdev.h>
#include <rte_malloc.h>
#include "harness.h"

#define CONFIG \
	"{\"DEVICE_METADATA\": {\"localhost\": {\"mac\": \"02:00:00:00:00:01\"}}," \
	" \"LSW\": {\"global\": {\"workers\": [1], \"mbufs\": 4096, \"rx_descriptors\": 64," \
	"                       \"tx_descriptors\": 64}}," \
	" \"PORT\": {\"Ethernet0\": {}, \"Ethernet4\": {}}," \
	" \"LSW_PORT\": {\"Ethernet0\": {\"devargs\": \"net_null10,no-rx=1\"}," \
	"   \"Ethernet4\": {\"devargs\": \"net_null11,no-rx=1\"}}," \
	" \"INTERFACE\": {\"Ethernet0|10.0.0.0/31\": {}, \"Ethernet4|10.0.1.0/31\": {}}," \
	" \"STATIC_ROUTE\": {\"10.2.0.0/16\": {\"nexthop\": \"10.0.1.1\"}}," \
	" \"NEIGH\": {\"Ethernet4|10.0.1.1\": {\"neigh\": \"02:00:00:00:04:01\"}}}"

static uint8_t buf[256];

/* DSCP 0 is TC 1 in the AZURE map, and TC 1 queue 1. */
#define Q 1

static int64_t
q_occ(struct lsw_buffer_lcore *const *mmu, uint16_t port)
{
	return lsw_buffer_q_occ(mmu, 2, port, Q, 0) + lsw_buffer_q_occ(mmu, 2, port, Q, 1);
}

static void
test_handoff(void **state)
{
	struct t_switch *t = t_switch_new(CONFIG);
	struct lsw_switch *sw = &t->sw;
	struct lsw_worker owner;
	struct t_flow f = {.dst = "10.2.0.9", .payload = 20, .vlan = -1};
	uint16_t len = t_build_ipv4(buf, &f);

	(void)state;
	assert_int_equal(t_start_ports(t), 0);
	/* Give Ethernet4 to a second worker (lcore ids are only labels here). */
	sw->cfg->g.n_workers = 2;
	sw->cfg->g.workers[1] = 7;
	sw->cfg->port[1].lcore = 7;
	sw->dp.n_workers = 2;
	t_rebuild(t);
	assert_int_equal(t->conf->port[1].owner, 1);
	assert_int_equal(t->conf->n_owned[1], 1);
	struct rte_ring *r = rte_ring_create("t_handoff", 64, SOCKET_ID_ANY,
					     RING_F_SP_ENQ | RING_F_SC_DEQ);
	sw->dp.handoff[0][1] = r;
	lsw_worker_init(&owner, &sw->dp, 1, 7);

	/* Worker 0 routes 10 packets to Ethernet4: buffered, then handed over on flush. */
	for (int i = 0; i < 10; i++)
		t_rx(t, 0, buf, len, 0);
	assert_int_equal(t_tx_count(t, 1), 10);
	lsw_tx_flush_all(&t->w, t->conf);
	assert_int_equal(rte_ring_count(r), 10);
	/* The owner queues them and sends them; the sender's counters stay at 0, the owner's
	 * count them; the MMU charge taken by one worker is given back by the other. */
	assert_int_equal(lsw_tx_drain_handoff(&owner, t->conf), 10);
	assert_int_equal(rte_ring_count(r), 0);
	struct lsw_buffer_lcore *const *mmu = sw->dp.buffer;
	assert_int_equal(q_occ(mmu, 1), 10 * lsw_buffer_charge(&t->conf->buffer, len));
	assert_int_equal(lsw_egress_run(&owner, t->conf, 1, T_HZ), 10);
	assert_int_equal(q_occ(mmu, 1), 0);
	assert_true(mmu[0]->use.q_occ[1][Q][1] + mmu[0]->use.q_occ[1][Q][0] > 0);
	assert_int_equal(sw->dp.ctr[1].port[1].ctr[LSW_PC_IF_OUT_UCAST_PKTS], 10);
	assert_int_equal(sw->dp.ctr[1].port[1].ctr[LSW_PC_IF_OUT_OCTETS], 10 * len);
	assert_int_equal(sw->dp.ctr[0].port[1].ctr[LSW_PC_IF_OUT_UCAST_PKTS], 0);
	struct rte_eth_stats st;
	rte_eth_stats_get(t->conf->port[1].port_id, &st);
	assert_int_equal(st.opackets, 10);
	/* The summed view (what port.stats reports) sees them once. */
	struct lsw_lcore_counters sum;
	lsw_stats_sum(sw, &sum);
	assert_int_equal(sum.port[1].ctr[LSW_PC_IF_OUT_UCAST_PKTS], 10);
	assert_int_equal(sum.port[0].ctr[LSW_PC_IF_IN_UCAST_PKTS], 10);

	/* A full ring: the overflow is counted against the egress port, nothing leaks. */
	for (int i = 0; i < 100; i++) {
		t_rx(t, 0, buf, len, 0);
		if (t_tx_count(t, 1) == LSW_BURST - 1)
			lsw_tx_flush_all(&t->w, t->conf);
	}
	lsw_tx_flush_all(&t->w, t->conf);
	assert_int_equal(rte_ring_count(r), 63);
	assert_int_equal(sw->dp.ctr[0].port[1].drop[LSW_DROP_TX_RING_FULL], 100 - 63);
	/* One burst per ring per loop: the owner's other work is never starved. */
	assert_int_equal(lsw_tx_drain_handoff(&owner, t->conf), LSW_BURST);
	assert_int_equal(lsw_tx_drain_handoff(&owner, t->conf), 63 - LSW_BURST);
	for (int i = 0; i < 4; i++)
		lsw_egress_run(&owner, t->conf, 1, 2 * T_HZ);
	/* Everything admitted was released, whoever did it. */
	assert_int_equal(q_occ(mmu, 1), 0);
	assert_int_equal(lsw_buffer_pg_occ(mmu, 2, 0, 0, LSW_PART_SHARED) +
			 lsw_buffer_pg_occ(mmu, 2, 0, 0, LSW_PART_RESERVED), 0);

	/* stats.clear on one port: a baseline, the workers' counters untouched. */
	lsw_stats_clear(sw, 1);
	lsw_stats_sum(sw, &sum);
	assert_int_equal(sum.port[1].ctr[LSW_PC_IF_OUT_UCAST_PKTS], 0);
	assert_int_equal(sum.port[1].drop[LSW_DROP_TX_RING_FULL], 0);
	assert_int_equal(sum.port[0].ctr[LSW_PC_IF_IN_UCAST_PKTS], 110);
	assert_int_equal(sw->dp.ctr[1].port[1].ctr[LSW_PC_IF_OUT_UCAST_PKTS], 73);
	struct rte_eth_stats pmd;
	lsw_stats_pmd(sw, 1, &pmd);
	assert_int_equal(pmd.opackets, 0);

	sw->dp.handoff[0][1] = NULL;
	rte_ring_free(r);
	t_switch_free(t);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_handoff),
	};
	t_eal_init();
	return cmocka_run_group_tests(tests, NULL, NULL);
}
