/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Two workers, real net_null ports: a packet received by the worker that does not own the
 * egress port crosses the handoff ring, with its charge in the entry, and is sent (and
 * counted) by the owner. A full ring stops the sender's rx and drops nothing; an owner whose
 * egress is behind drains no more than it sends; it polls a sender's rings only when the
 * sender's bell says there is more. Transmission itself: counters are taken
 * from what the PMD accepted, unicast as the frame's flag says.
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
	/* 255 entries: a ring of 256 slots keeps one free */
	struct rte_ring *r = rte_ring_create_elem("t_handoff", sizeof(struct lsw_hoent), 256,
						  SOCKET_ID_ANY, RING_F_SP_ENQ | RING_F_SC_DEQ);
	sw->dp.handoff[0][1] = r;
	sw->dp.ho_bell = rte_zmalloc(NULL, sizeof(*sw->dp.ho_bell) * LSW_MAX_WORKERS, 0);
	lsw_worker_init(&owner, &sw->dp, 1, 7);

	/* Worker 0 routes 10 packets to Ethernet4: staged, then handed over on flush. */
	for (int i = 0; i < 10; i++)
		t_rx(t, 0, buf, len, 0);
	assert_int_equal(t_tx_count(t, 1), 10);
	assert_int_equal(lsw_handoff_flush_all(&t->w, t->conf), 0);
	assert_int_equal(rte_ring_count(r), 10);
	assert_int_equal(sw->dp.ho_bell[0].sent[1], 10);
	/* The charge is in the entry, not written into the packet's meta. */
	struct lsw_hoent e0;
	assert_int_equal(rte_ring_dequeue_elem(r, &e0, sizeof(e0)), 0);
	assert_int_equal(e0.mq & LSW_HO_QUEUE, Q);
	assert_int_equal(e0.c.bytes, lsw_buffer_charge(&t->conf->buffer, len));
	assert_int_equal(e0.c.len, len);
	assert_false(lsw_meta(lsw_hoent_mbuf(e0.mq))->flags & LSW_META_CHARGED);
	assert_int_equal(rte_ring_enqueue_elem(r, &e0, sizeof(e0)), 0);
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

	/* A full ring: what it cannot take stays staged, and the sender's next loop takes no
	 * rx burst (until then it takes a burst at most: the stage holds two). */
	assert_true(lsw_worker_rx_gate(&t->w, t->conf));
	for (int i = 0; i < 300; i++)
		t_rx(t, 0, buf, len, 0);
	assert_int_equal(rte_ring_count(r), 255);
	assert_int_equal(t->w.hob[1].n, 300 - 255);
	assert_int_equal(t->w.ho_full, 1u << 1);
	assert_int_equal(sw->dp.ctr[0].port[1].drop[LSW_DROP_TX_RING_FULL], 0);
	assert_false(lsw_worker_rx_gate(&t->w, t->conf));
	assert_int_equal(t_event(t, LSW_EV_RX_HELD), 1);
	/* The owner is not behind: it drains its rings whole; then the stage goes. */
	assert_int_equal(lsw_tx_drain_handoff(&owner, t->conf), 255);
	assert_true(lsw_worker_rx_gate(&t->w, t->conf));
	assert_int_equal(t->w.hob[1].n, 0);
	assert_int_equal(rte_ring_count(r), 300 - 255);
	assert_int_equal(lsw_tx_drain_handoff(&owner, t->conf), 300 - 255);
	for (int i = 0; i < 16; i++)
		lsw_egress_run(&owner, t->conf, 1, (uint64_t)(2 + i) * T_HZ);
	assert_int_equal(t_tx_count(t, 1), 0);

	/* An owner behind (its egress sent full bursts to the loop's limit) drains what a
	 * loop sends, and the rest waits in the ring. */
	for (int i = 0; i < 5 * LSW_BURST; i++)
		t_rx(t, 0, buf, len, 0);
	assert_int_equal(lsw_handoff_flush_all(&t->w, t->conf), 0);
	sw->dp.sched[1]->behind = true;
	assert_int_equal(lsw_tx_drain_handoff(&owner, t->conf), LSW_TX_ROUNDS * LSW_BURST);
	lsw_worker_egress(&owner, t->conf, 20 * T_HZ);
	assert_true(sw->dp.sched[1]->behind);
	lsw_worker_egress(&owner, t->conf, 21 * T_HZ);
	assert_false(sw->dp.sched[1]->behind);
	assert_int_equal(t_tx_count(t, 1), 0);
	assert_int_equal(rte_ring_count(r), 0);

	/* A stage full and its ring too (a sender that kept receiving): a counted drop, its
	 * charge given back; at shutdown the stage is dropped too. */
	for (int i = 0; i < 255 + LSW_HANDOFF_STAGE + 5; i++)
		t_rx(t, 0, buf, len, 0);
	assert_int_equal(sw->dp.ctr[0].port[1].drop[LSW_DROP_TX_RING_FULL], 5);
	lsw_worker_drop_all(&t->w, t->conf);
	assert_int_equal(sw->dp.ctr[0].port[1].drop[LSW_DROP_SHUTDOWN], LSW_HANDOFF_STAGE);
	assert_int_equal(lsw_tx_drain_handoff(&owner, t->conf), 255);
	for (int i = 0; i < 16; i++)
		lsw_egress_run(&owner, t->conf, 1, (uint64_t)(30 + i) * T_HZ);
	/* Everything admitted was released, whoever did it. */
	assert_int_equal(q_occ(mmu, 1), 0);
	assert_int_equal(lsw_buffer_pg_occ(mmu, 2, 0, 0, LSW_PART_SHARED) +
			 lsw_buffer_pg_occ(mmu, 2, 0, 0, LSW_PART_RESERVED), 0);
	assert_int_equal(lsw_buffer_pkts_held(mmu, 2), 0);
	/* The owner polls a sender's rings only when its bell says there is more: an entry
	 * put in the ring without ringing waits until the bell rings. */
	assert_int_equal(owner.ho_got[0], sw->dp.ho_bell[0].sent[1]);
	t_rx(t, 0, buf, len, 0);
	assert_int_equal(rte_ring_enqueue_elem(r, &t->w.hob[1].e[0], sizeof(e0)), 0);
	t->w.hob[1].n = 0;
	assert_int_equal(lsw_tx_drain_handoff(&owner, t->conf), 0);
	sw->dp.ho_bell[0].sent[1]++;
	assert_int_equal(lsw_tx_drain_handoff(&owner, t->conf), 1);
	assert_int_equal(lsw_egress_run(&owner, t->conf, 1, 50 * T_HZ), 1);

	/* stats.clear on one port: a baseline, the workers' counters untouched. */
	lsw_stats_clear(sw, 1);
	lsw_stats_sum(sw, &sum);
	assert_int_equal(sum.port[1].ctr[LSW_PC_IF_OUT_UCAST_PKTS], 0);
	assert_int_equal(sum.port[1].drop[LSW_DROP_TX_RING_FULL], 0);
	assert_int_equal(sum.port[0].ctr[LSW_PC_IF_IN_UCAST_PKTS],
			 10 + 300 + 5 * LSW_BURST + 255 + LSW_HANDOFF_STAGE + 5 + 1);
	assert_int_equal(sw->dp.ctr[1].port[1].ctr[LSW_PC_IF_OUT_UCAST_PKTS],
			 10 + 300 + 5 * LSW_BURST + 255 + 1);
	struct rte_eth_stats pmd;
	lsw_stats_pmd(sw, 1, &pmd);
	assert_int_equal(pmd.opackets, 0);

	sw->dp.handoff[0][1] = NULL;
	rte_ring_free(r);
	rte_free(sw->dp.ho_bell);
	sw->dp.ho_bell = NULL;
	t_switch_free(t);
}

/* A frame whose destination lsw wrote says whether it is unicast (lsw_ucast_flag), so that
 * the port's owner counts it without reading its data; one lsw did not write is read. */
static void
test_ucast_flag(void **state)
{
	struct t_switch *t = t_switch_new(CONFIG);
	struct lsw_port_counters *pc = &t->sw.dp.ctr[0].port[1];
	static const struct rte_ether_addr smac = {{2, 0, 0, 0, 0, 1}};
	/* lsw_mac_to_u64's order: the first byte lowest (01:00:5e:00:00:01, 02:..:04:01) */
	const uint64_t group = UINT64_C(0x0100005e0001), one = UINT64_C(0x010400000002);
	struct rte_mbuf *m;

	(void)state;
	assert_int_equal(t_start_ports(t), 0);
	assert_int_not_equal(lsw_ucast_flag, 0);
	/* A stale flag (net_ring hands a sent mbuf back as it was) is cleared for a group. */
	m = rte_pktmbuf_alloc(t_pool());
	assert_non_null(rte_pktmbuf_append(m, 60));
	m->ol_flags |= lsw_ucast_flag;
	lsw_l2_write(m, group, &smac, LSW_ETHERTYPE_IPV4);
	assert_int_equal(rte_pktmbuf_mtod(m, uint8_t *)[0], 0x01);
	assert_false(m->ol_flags & lsw_ucast_flag);
	lsw_tx_ctl(&t->w, t->conf, 1, m);
	assert_int_equal(lsw_egress_run(&t->w, t->conf, 1, T_HZ), 1);
	assert_int_equal(pc->ctr[LSW_PC_IF_OUT_NON_UCAST_PKTS], 1);
	assert_int_equal(pc->ctr[LSW_PC_IF_OUT_UCAST_PKTS], 0);
	/* Unicast: flagged, counted unicast. */
	m = rte_pktmbuf_alloc(t_pool());
	assert_non_null(rte_pktmbuf_append(m, 60));
	lsw_l2_write(m, one, &smac, LSW_ETHERTYPE_IPV4);
	assert_int_equal(rte_pktmbuf_mtod(m, uint8_t *)[0], 0x02);
	assert_true(m->ol_flags & lsw_ucast_flag);
	lsw_tx_ctl(&t->w, t->conf, 1, m);
	assert_int_equal(lsw_egress_run(&t->w, t->conf, 1, T_HZ), 1);
	assert_int_equal(pc->ctr[LSW_PC_IF_OUT_UCAST_PKTS], 1);
	/* A frame lsw did not write (no flag) is read: a broadcast counts as one. */
	m = rte_pktmbuf_alloc(t_pool());
	memset(rte_pktmbuf_append(m, 60), 0xff, 60);
	lsw_tx_ctl(&t->w, t->conf, 1, m);
	assert_int_equal(lsw_egress_run(&t->w, t->conf, 1, T_HZ), 1);
	assert_int_equal(pc->ctr[LSW_PC_IF_OUT_NON_UCAST_PKTS], 2);
	/* Routed frames carry it. */
	struct t_flow f = {.dst = "10.2.0.9", .payload = 20, .vlan = -1};
	uint16_t len = t_build_ipv4(buf, &f);
	t_rx(t, 0, buf, len, 0);
	m = t_tx_take(t, 1);
	assert_non_null(m);
	assert_true(m->ol_flags & lsw_ucast_flag);
	rte_pktmbuf_free(m);
	t_switch_free(t);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_handoff),
		cmocka_unit_test(test_ucast_flag),
	};
	t_eal_init();
	return cmocka_run_group_tests(tests, NULL, NULL);
}
