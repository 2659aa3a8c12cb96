/* SPDX-License-Identifier: BSD-3-Clause */
/* ARP: answering, learning through the control plane, holding packets while resolving. */
#include <string.h>
#include <rte_arp.h>
#include <rte_ip.h>
#include "harness.h"

static uint8_t buf[2048];

static struct lsw_neigh_msg
take_msg(struct t_switch *t)
{
	struct lsw_neigh_msg msg;

	assert_int_equal(rte_ring_sc_dequeue_elem(t->sw.dp.neigh_ring, &msg, sizeof(msg)), 0);
	return msg;
}

static void
learn(struct t_switch *t)
{
	struct lsw_neigh_msg msg = take_msg(t);

	assert_int_equal(lsw_fibctl_neigh_learn(t->sw.fibc, msg.ip, msg.port, msg.mac,
						msg.flags & LSW_NEIGH_MSG_UPDATE_ONLY, 1), 1);
}

static void
test_answer_request(void **state)
{
	struct t_switch *t = t_switch_new(T_CONFIG);
	uint16_t len = t_build_arp(buf, RTE_ARP_OP_REQUEST, "02:00:00:00:01:01", "10.0.0.1",
				   "00:00:00:00:00:00", "10.0.0.0", "ff:ff:ff:ff:ff:ff");
	struct rte_ether_addr me, host;

	(void)state;
	t_mac(T_SWITCH_MAC, &me);
	t_mac("02:00:00:00:01:01", &host);
	t_rx(t, T_PORT0, buf, len, 0);
	struct rte_mbuf *m = t_tx_take(t, T_PORT0);
	assert_non_null(m);
	struct rte_ether_hdr *eth = rte_pktmbuf_mtod(m, struct rte_ether_hdr *);
	struct rte_arp_hdr *a = (struct rte_arp_hdr *)(eth + 1);
	assert_true(rte_is_same_ether_addr(&eth->dst_addr, &host));
	assert_true(rte_is_same_ether_addr(&eth->src_addr, &me));
	assert_int_equal(rte_be_to_cpu_16(a->arp_opcode), RTE_ARP_OP_REPLY);
	assert_true(rte_is_same_ether_addr(&a->arp_data.arp_sha, &me));
	assert_int_equal(rte_be_to_cpu_32(a->arp_data.arp_sip), t_ip("10.0.0.0"));
	assert_true(rte_is_same_ether_addr(&a->arp_data.arp_tha, &host));
	assert_int_equal(rte_be_to_cpu_32(a->arp_data.arp_tip), t_ip("10.0.0.1"));
	rte_pktmbuf_free(m);
	assert_int_equal(t_event(t, LSW_EV_ARP_REPLY_TX), 1);
	/* The asker is learned: the control plane gets a message and installs a host route. */
	learn(t);
	uint64_t mac = lsw_fib_neigh_mac(t->sw.dp.fib, t_ip("10.0.0.1"), T_PORT0);
	assert_true(mac & LSW_NH_MAC_VALID);
	assert_true(lsw_mac_to_u64(&host) == (mac & ~LSW_NH_MAC_VALID));
	/* Asked again by the same host: answered, but nothing new for the control plane. */
	t_rx(t, T_PORT0, buf, len, 0);
	assert_int_equal(t_tx_count(t, T_PORT0), 1);
	rte_pktmbuf_free(t_tx_take(t, T_PORT0));
	assert_int_equal(rte_ring_count(t->sw.dp.neigh_ring), 0);
	/* A request for another port's address on this port is not answered (nor learned). */
	len = t_build_arp(buf, RTE_ARP_OP_REQUEST, "02:00:00:00:01:01", "10.0.0.1",
			  "00:00:00:00:00:00", "10.0.1.0", "ff:ff:ff:ff:ff:ff");
	t_rx(t, T_PORT0, buf, len, 0);
	assert_int_equal(t_tx_count(t, T_PORT0), 0);
	assert_int_equal(t_drops(t, T_PORT0, LSW_DROP_ARP_OTHER_TARGET), 1);
	assert_int_equal(rte_ring_count(t->sw.dp.neigh_ring), 0);
	/* A sender outside the port's subnet is answered but never learned. */
	len = t_build_arp(buf, RTE_ARP_OP_REQUEST, "02:00:00:00:01:02", "10.9.9.9",
			  "00:00:00:00:00:00", "10.0.0.0", "ff:ff:ff:ff:ff:ff");
	t_rx(t, T_PORT0, buf, len, 0);
	assert_int_equal(t_tx_count(t, T_PORT0), 1);
	assert_int_equal(rte_ring_count(t->sw.dp.neigh_ring), 0);
	/* Malformed: a reply op of 3, a multicast sender. */
	len = t_build_arp(buf, 3, "02:00:00:00:01:01", "10.0.0.1", "00:00:00:00:00:00",
			  "10.0.0.0", "ff:ff:ff:ff:ff:ff");
	t_rx(t, T_PORT0, buf, len, 0);
	len = t_build_arp(buf, 1, "01:00:00:00:01:01", "10.0.0.1", "00:00:00:00:00:00",
			  "10.0.0.0", "ff:ff:ff:ff:ff:ff");
	t_rx(t, T_PORT0, buf, len, 0);
	assert_int_equal(t_drops(t, T_PORT0, LSW_DROP_ARP_MALFORMED), 1);
	assert_int_equal(t_drops(t, T_PORT0, LSW_DROP_SMAC_MULTICAST), 1);
	t_switch_free(t);
}

static void
test_gratuitous(void **state)
{
	struct t_switch *t = t_switch_new(T_CONFIG);
	struct lsw_fibctl *fc = t->sw.fibc;
	uint16_t len = t_build_arp(buf, RTE_ARP_OP_REQUEST, "02:00:00:00:05:05", "192.168.5.9",
				   "00:00:00:00:00:00", "192.168.5.9", "ff:ff:ff:ff:ff:ff");

	(void)state;
	t_rx(t, T_PORT12, buf, len, 0);
	struct lsw_neigh_msg msg = take_msg(t);
	assert_true(msg.flags & LSW_NEIGH_MSG_UPDATE_ONLY);
	/* Unknown neighbor: a gratuitous ARP does not create it. */
	assert_int_equal(lsw_fibctl_neigh_learn(fc, msg.ip, msg.port, msg.mac, true, 1), 0);
	assert_int_equal(lsw_fibctl_nh_find(fc, t_ip("192.168.5.9")), -1);
	/* Known (learned) neighbor: it moves to the new MAC. */
	assert_int_equal(lsw_fibctl_neigh_learn(fc, msg.ip, msg.port, 0x010203040506ull, false,
						1), 1);
	assert_int_equal(lsw_fibctl_neigh_learn(fc, msg.ip, msg.port, msg.mac, true, 2), 1);
	uint64_t mac = lsw_fib_neigh_mac(t->sw.dp.fib, t_ip("192.168.5.9"), T_PORT12);
	assert_true(mac == msg.mac);
	/* The same again changes nothing. */
	assert_int_equal(lsw_fibctl_neigh_learn(fc, msg.ip, msg.port, msg.mac, true, 3), 0);
	/* A static neighbor is never overwritten. */
	assert_int_equal(lsw_fibctl_neigh_learn(fc, t_ip("10.0.1.1"), T_PORT4, 0x0a0b0c0d0e0full,
						false, 1), 0);
	mac = lsw_fib_neigh_mac(t->sw.dp.fib, t_ip("10.0.1.1"), T_PORT4);
	struct rte_ether_addr want;
	t_mac("02:00:00:00:04:01", &want);
	assert_true((mac & ~LSW_NH_MAC_VALID) == lsw_mac_to_u64(&want));
	t_switch_free(t);
}

/* A connected destination nobody has resolved: hold, ARP, release on the reply. */
static void
test_glean_hold_release(void **state)
{
	struct t_switch *t = t_switch_new(T_CONFIG);
	struct t_flow f = {.dst = "192.168.5.20", .sport = 1, .dport = 2, .vlan = -1};
	uint16_t len = t_build_ipv4(buf, &f);

	(void)state;
	for (int i = 0; i < 3; i++)
		t_rx(t, T_PORT0, buf, len, 100);
	assert_int_equal(t_event(t, LSW_EV_NEIGH_HELD), 3);
	/* One ARP request, not one per packet. */
	assert_int_equal(t_tx_count(t, T_PORT12), 1);
	struct rte_mbuf *m = t_tx_take(t, T_PORT12);
	struct rte_arp_hdr *a = rte_pktmbuf_mtod_offset(m, struct rte_arp_hdr *, 14);
	assert_int_equal(m->pkt_len, 60);
	assert_int_equal(rte_be_to_cpu_16(a->arp_opcode), RTE_ARP_OP_REQUEST);
	assert_int_equal(rte_be_to_cpu_32(a->arp_data.arp_tip), t_ip("192.168.5.20"));
	assert_int_equal(rte_be_to_cpu_32(a->arp_data.arp_sip), t_ip("192.168.5.1"));
	assert_true(rte_is_broadcast_ether_addr(
		&rte_pktmbuf_mtod(m, struct rte_ether_hdr *)->dst_addr));
	rte_pktmbuf_free(m);
	/* Not resolved yet: nothing moves. */
	lsw_nexthop_poll(&t->w, t->conf, 200);
	assert_int_equal(t_tx_count(t, T_PORT12), 0);
	/* The reply comes in, the control plane learns it, the next poll sends all three. */
	len = t_build_arp(buf, RTE_ARP_OP_REPLY, "02:00:00:00:05:14", "192.168.5.20",
			  T_SWITCH_MAC, "192.168.5.1", T_SWITCH_MAC);
	t_rx(t, T_PORT12, buf, len, 300);
	assert_int_equal(t_event(t, LSW_EV_ARP_REPLY_RX), 1);
	learn(t);
	lsw_nexthop_poll(&t->w, t->conf, 400);
	assert_int_equal(t_tx_count(t, T_PORT12), 3);
	assert_int_equal(t->w.n_held, 0);
	struct rte_ether_addr want;
	t_mac("02:00:00:00:05:14", &want);
	for (int i = 0; i < 3; i++) {
		m = t_tx_take(t, T_PORT12);
		assert_true(rte_is_same_ether_addr(
			&rte_pktmbuf_mtod(m, struct rte_ether_hdr *)->dst_addr, &want));
		assert_int_equal(
			rte_pktmbuf_mtod_offset(m, struct rte_ipv4_hdr *, 14)->time_to_live, 63);
		rte_pktmbuf_free(m);
	}
	assert_int_equal(t_event(t, LSW_EV_NEIGH_RELEASED), 3);
	/* From now on the host route forwards at once. */
	len = t_build_ipv4(buf, &f);
	t_rx(t, T_PORT0, buf, len, 500);
	assert_int_equal(t_tx_count(t, T_PORT12), 1);
	t_switch_free(t);
}

/* A static route whose next hop is unresolved: ARP for the next hop, not the destination;
 * retry every arp_retry_ms, give up after arp_tries. */
static void
test_nexthop_timeout(void **state)
{
	struct t_switch *t = t_switch_new(T_CONFIG);
	struct t_flow f = {.dst = "10.4.1.1", .vlan = -1};
	uint16_t len = t_build_ipv4(buf, &f);
	const uint64_t retry = T_HZ; /* arp_retry_ms 1000 */

	(void)state;
	t_rx(t, T_PORT0, buf, len, 0);
	struct rte_mbuf *m = t_tx_take(t, T_PORT12);
	assert_non_null(m);
	assert_int_equal(rte_be_to_cpu_32(rte_pktmbuf_mtod_offset(m, struct rte_arp_hdr *, 14)
					  ->arp_data.arp_tip), t_ip("192.168.5.77"));
	rte_pktmbuf_free(m);
	lsw_nexthop_poll(&t->w, t->conf, retry - 1);
	assert_int_equal(t_tx_count(t, T_PORT12), 0);
	lsw_nexthop_poll(&t->w, t->conf, retry);       /* second request */
	assert_int_equal(t_tx_count(t, T_PORT12), 1);
	lsw_nexthop_poll(&t->w, t->conf, 2 * retry);   /* third */
	assert_int_equal(t_tx_count(t, T_PORT12), 2);
	assert_int_equal(t_drops(t, T_PORT0, LSW_DROP_UNRESOLVED_NEXT_HOP), 0);
	lsw_nexthop_poll(&t->w, t->conf, 3 * retry);   /* arp_tries (3) used up */
	assert_int_equal(t_tx_count(t, T_PORT12), 2);
	assert_int_equal(t_drops(t, T_PORT0, LSW_DROP_UNRESOLVED_NEXT_HOP), 1);
	assert_int_equal(t->w.n_held, 0);
	assert_int_equal(t_event(t, LSW_EV_ARP_REQUEST_TX), 3);
	t_switch_free(t);
}

static void
test_hold_overflow(void **state)
{
	struct t_switch *t = t_switch_new(T_CONFIG);
	struct t_flow f = {.vlan = -1};
	char dst[32];

	(void)state;
	/* LSW_HOLD_PKTS per next hop. */
	f.dst = "192.168.5.30";
	uint16_t len = t_build_ipv4(buf, &f);
	for (int i = 0; i < LSW_HOLD_PKTS + 2; i++)
		t_rx(t, T_PORT0, buf, len, 0);
	assert_int_equal(t_drops(t, T_PORT0, LSW_DROP_NEIGH_HOLD_OVERFLOW), 2);
	/* LSW_HOLD_SLOTS next hops. */
	for (int i = 0; i < LSW_HOLD_SLOTS + 3; i++) {
		snprintf(dst, sizeof(dst), "192.168.5.%d", 100 + i);
		f.dst = dst;
		len = t_build_ipv4(buf, &f);
		t_rx(t, T_PORT0, buf, len, 0);
		while (t_tx_count(t, T_PORT12)) /* the ARP requests, before the buffer fills */
			rte_pktmbuf_free(t_tx_take(t, T_PORT12));
	}
	assert_int_equal(t->w.n_held, LSW_HOLD_SLOTS);
	assert_int_equal(t_drops(t, T_PORT0, LSW_DROP_NEIGH_HOLD_OVERFLOW), 2 + 4);
	t_switch_free(t); /* frees what is held: the fixture checks every mbuf came back */
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_answer_request),
		cmocka_unit_test(test_gratuitous),
		cmocka_unit_test(test_glean_hold_release),
		cmocka_unit_test(test_nexthop_timeout),
		cmocka_unit_test(test_hold_overflow),
	};
	t_eal_init();
	return cmocka_run_group_tests(tests, NULL, NULL);
}
