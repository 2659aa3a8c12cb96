/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The PFC watchdog's actions end to end on a fake clock (buffers.md T8): the real poll
 * (control/pfcwd.c) watches the real worker code while Ethernet4's peer storms priority 3
 * with XOFF. drop: packets for queue 3 and packets arriving on Ethernet4's priority 3 are
 * dropped and counted (no PG fills, so no PAUSE goes upstream); forward: the queue ignores
 * the pause and drains; alert: nothing changes but the counters. Other queues keep flowing.
 * After the storm the port behaves exactly as before: a pause pauses, nothing is dropped.
 * And the big red switch.
 */
#include <string.h>
#include <rte_ip.h>
#include <rte_malloc.h>
#include "harness.h"
#include "lsw/pfc.h"
#include "pfcwd.h"

#define MS 1000000ull
#define E0 0
#define E4 1

/* Ethernet0 (hosts) <-> Ethernet4 (the storming peer), both lossless on priority 3 with
 * a PG 3 of 16 KB headroom; the watchdog watches Ethernet4: poll 100, D 200, R 400 ms,
 * action the second %s; the first adds PFC_WD entries. */
#define CONFIG_FMT \
	"{\"DEVICE_METADATA\": {\"localhost\": {\"mac\": \"02:00:00:00:00:01\"}}," \
	" \"LSW\": {\"global\": {\"workers\": [1], \"mbufs\": 200000}}," \
	" \"PORT\": {\"Ethernet0\": {\"speed\": \"10000\"}," \
	" \"Ethernet4\": {\"speed\": \"10000\"}}," \
	" \"LSW_PORT\": {\"Ethernet0\": {\"devargs\": \"net_null0\"}," \
	"   \"Ethernet4\": {\"devargs\": \"net_null1\"}}," \
	" \"INTERFACE\": {\"Ethernet0|10.0.0.0/31\": {}, \"Ethernet4|10.0.1.0/31\": {}}," \
	" \"STATIC_ROUTE\": {\"10.2.0.0/16\": {\"nexthop\": \"10.0.1.1\"}," \
	"   \"10.5.0.0/16\": {\"nexthop\": \"10.0.0.1\"}}," \
	" \"NEIGH\": {\"Ethernet4|10.0.1.1\": {\"neigh\": \"02:00:00:00:04:01\"}," \
	"   \"Ethernet0|10.0.0.1\": {\"neigh\": \"02:00:00:00:00:0a\"}}," \
	" \"BUFFER_POOL\": {\"ingress_lossless_pool\": {\"type\": \"ingress\"," \
	" \"mode\": \"static\"}," \
	"   \"egress_lossy_pool\": {\"type\": \"egress\"}}," \
	" \"BUFFER_PROFILE\": {\"ingress_lossy_profile\": {\"pool\": \"ingress_lossless_pool\"," \
	"   \"size\": \"0\", \"static_th\": \"1MB\"}," \
	"   \"egress_lossy_profile\": {\"pool\": \"egress_lossy_pool\", \"dynamic_th\": \"3\"}," \
	"   \"lossless\": {\"pool\": \"ingress_lossless_pool\", \"size\": \"16KB\"," \
	"     \"xoff\": \"16KB\", \"static_th\": \"8KB\"}}," \
	" \"BUFFER_PG\": {\"Ethernet0,Ethernet4|3\": {\"profile\": \"lossless\"}}," \
	" \"PORT_QOS_MAP\": {\"Ethernet0,Ethernet4\": {\"pfc_enable\": \"3\"}," \
	"   \"Ethernet4\": {\"pfc_watchdog_status\": \"enable\"}}," \
	" \"PFC_WD\": {\"GLOBAL\": {\"POLL_INTERVAL\": \"100\"}," \
	" %s\"Ethernet4\": {\"action\": \"%s\"," \
	"   \"detection_time\": \"200\", \"restoration_time\": \"400\"}}}"

static uint8_t buf[2048];

/* An IPv4 frame to @dst with @dscp (DSCP 3: TC 3, PG 3, queue 3; DSCP 0: queue 1). */
static uint16_t
frame(const char *dst, uint8_t dscp)
{
	struct t_flow f = {.src = "10.0.0.1", .dst = dst, .payload = 500, .vlan = -1};
	uint16_t len = t_build_ipv4(buf, &f);
	struct rte_ipv4_hdr *ip = (struct rte_ipv4_hdr *)(buf + 14);

	ip->type_of_service = (uint8_t)(dscp << 2);
	ip->hdr_checksum = 0;
	ip->hdr_checksum = rte_ipv4_cksum(ip);
	return len;
}

/* The peer on Ethernet4 sends a PFC frame for priority 3 (0xffff quanta: 3.4 ms at 10G). */
static void
peer_pfc(struct t_switch *t, uint16_t quanta, uint64_t now)
{
	uint16_t time[8] = {[3] = quanta};
	struct rte_ether_addr src;

	t_mac("02:00:00:00:04:01", &src);
	lsw_pfc_encode(buf, &src, 1 << 3, time);
	t_rx(t, E4, buf, LSW_PFC_FRAME_LEN, now);
}

struct sim {
	struct t_switch *t;
	uint64_t now;
	bool storm;  /* the peer pauses priority 3 every millisecond */
	uint64_t q3; /* packets sent into Ethernet0 for Ethernet4's queue 3 */
};

/* @ms of time, 1 ms steps: the peer storms (or not), one lossless and one lossy packet go
 * towards Ethernet4, both ports run PFC and egress, the watchdog polls. */
static void
run(struct sim *x, unsigned int ms)
{
	struct t_switch *t = x->t;

	for (unsigned int i = 0; i < ms; i++) {
		x->now += MS;
		if (x->storm)
			peer_pfc(t, 0xffff, x->now);
		t_rx(t, E0, buf, frame("10.2.0.9", 3), x->now);
		t_rx(t, E0, buf, frame("10.2.0.9", 0), x->now);
		x->q3++;
		for (uint16_t p = E0; p <= E4; p++) {
			lsw_pfc_poll(&t->w, t->conf, p, x->now);
			lsw_egress_run(&t->w, t->conf, p, x->now);
		}
		lsw_pfcwd_poll(&t->sw, x->now);
		t->conf = t->sw.dp.conf; /* the poll may have published a new snapshot */
	}
}

static uint64_t
tx(struct t_switch *t, uint16_t port, uint8_t q)
{
	return t->w.buffer->ctr.q_tx_pkts[port][q];
}

static uint64_t
pg3_occupancy(struct t_switch *t, uint16_t port)
{
	int64_t s = 0;

	for (int part = 0; part < LSW_PARTS; part++)
		s += t->w.buffer->use.pg_occ[port][3][part];
	return (uint64_t)s;
}

/* A lossless packet from the peer's side (Ethernet4, priority 3) towards Ethernet0. */
static void
from_peer(struct sim *x)
{
	t_rx(x->t, E4, buf, frame("10.5.0.9", 3), x->now);
}

static void
check_action(const char *action)
{
	char json[4096];
	snprintf(json, sizeof(json), CONFIG_FMT, "", action);
	struct sim x = {.t = t_switch_new(json), .now = 1000 * MS};
	struct t_switch *t = x.t;
	const struct lsw_wd_queue *wq = &t->sw.wdq[E4][3];
	const struct lsw_wd_stats *st = &t->sw.wds[E4][3];

	assert_int_equal(t_start_ports(t), 0);
	/* Before: traffic flows, then a storm starts. Queue 3 fills and stops. */
	run(&x, 300);
	assert_int_equal(tx(t, E4, 3), x.q3);
	x.storm = true;
	run(&x, 5);
	uint64_t before = tx(t, E4, 3), start = x.now;
	run(&x, 195);
	assert_int_equal(wq->state, LSW_WD_OPERATIONAL); /* not before D */
	while (wq->state == LSW_WD_OPERATIONAL && x.now - start < 400 * MS)
		run(&x, 1);
	assert_int_equal(wq->state, LSW_WD_STORMED);
	assert_true(x.now - start <= 300 * MS); /* within D + P */
	assert_int_equal(wq->detected, 1);
	uint64_t lossy = tx(t, E4, 1);
	uint64_t tx_drops = t_drops(t, E4, LSW_DROP_PFC_WD_TX_DROP);
	uint32_t held = lsw_fifo_count(&t->sw.dp.sched[E4]->q[3]);
	run(&x, 50);
	assert_true(tx(t, E4, 1) >= lossy + 49); /* the lossy queue keeps flowing */

	uint64_t got = tx(t, E4, 3);
	uint64_t rx_drops = t_drops(t, E4, LSW_DROP_PFC_WD_RX_DROP);
	tx_drops = t_drops(t, E4, LSW_DROP_PFC_WD_TX_DROP) - tx_drops;
	for (int i = 0; i < 10; i++)
		from_peer(&x);
	if (strcmp(action, "drop") == 0) {
		assert_int_equal(t->conf->port[E4].wd_drop, 1 << 3);
		assert_int_equal(got, before); /* nothing sent: what was queued is dropped */
		assert_int_equal(lsw_fifo_count(&t->sw.dp.sched[E4]->q[3]), 0);
		/* What the queue held, then every packet for it meanwhile. */
		assert_int_equal(tx_drops, held + 50);
		assert_int_equal(t_drops(t, E4, LSW_DROP_PFC_WD_RX_DROP), rx_drops + 10);
		assert_int_equal(pg3_occupancy(t, E4), 0);
		/* nothing paused upstream */
		assert_int_equal(t->sw.dp.sched[E4]->pfc.tx_xoff_pg, 0);
	} else if (strcmp(action, "forward") == 0) {
		assert_int_equal(t->conf->port[E4].wd_drop, 0);
		assert_int_equal(t->conf->port[E4].wd_ignore_pause, 1 << 3);
		assert_true(got >= before + 50); /* drains as lossy under the storm */
		assert_int_equal(tx_drops + rx_drops, 0);
		/* Lossy now: PG 3 fills past its XOFF point and pauses nobody. */
		for (int i = 0; i < 30; i++)
			from_peer(&x);
		lsw_pfc_poll(&t->w, t->conf, E4, x.now);
		assert_true(pg3_occupancy(t, E4) > 16 * 1024);
		assert_int_equal(t->sw.dp.sched[E4]->pfc.tx_xoff_pg |
				 t->sw.dp.sched[E4]->pfc.tx_xoff, 0);
	} else {
		assert_int_equal(t->conf->port[E4].wd_drop | t->conf->port[E4].wd_ignore_pause, 0);
		assert_int_equal(got, before); /* still paused: alert changes nothing */
		assert_int_equal(tx_drops + rx_drops, 0);
	}
	for (uint16_t p = E0; p <= E4; p++)
		while (t_tx_count(t, p) && lsw_egress_run(&t->w, t->conf, p, x.now))
			;

	/* The storm ends: R to R + P after the last XOFF expired, the queue restores; an
	 * alert queue, which drains as soon as the pause ends, at the next poll. */
	x.storm = false;
	uint64_t calm = x.now;
	while (wq->state == LSW_WD_STORMED && x.now - calm < 1000 * MS)
		run(&x, 1);
	assert_int_equal(wq->state, LSW_WD_OPERATIONAL);
	assert_int_equal(wq->restored, 1);
	if (strcmp(action, "alert") == 0)
		assert_true(x.now - calm <= 104 * MS);
	else
		assert_true(x.now - calm >= 400 * MS && x.now - calm <= 504 * MS);
	/* The storm's counters equal the drops counted per packet (T7's ground truth). */
	assert_int_equal(st->last[1], t_drops(t, E4, LSW_DROP_PFC_WD_TX_DROP));
	assert_int_equal(st->last[3], t_drops(t, E4, LSW_DROP_PFC_WD_RX_DROP));

	/* After: exactly as before the storm. A pause pauses queue 3 again, nothing drops. */
	assert_int_equal(t->conf->port[E4].wd_drop | t->conf->port[E4].wd_ignore_pause, 0);
	tx_drops = t_drops(t, E4, LSW_DROP_PFC_WD_TX_DROP);
	rx_drops = t_drops(t, E4, LSW_DROP_PFC_WD_RX_DROP);
	run(&x, 10);
	peer_pfc(t, 0xffff, x.now);
	before = tx(t, E4, 3);
	uint64_t q3 = x.q3;
	run(&x, 3); /* within the 3.4 ms pause */
	assert_int_equal(tx(t, E4, 3), before);
	assert_int_equal(lsw_fifo_count(&t->sw.dp.sched[E4]->q[3]), x.q3 - q3);
	from_peer(&x);
	assert_true(pg3_occupancy(t, E4) > 0);
	peer_pfc(t, 0, x.now); /* XON */
	run(&x, 1);
	assert_int_equal(tx(t, E4, 3), before + x.q3 - q3);
	assert_int_equal(t_drops(t, E4, LSW_DROP_PFC_WD_TX_DROP), tx_drops);
	assert_int_equal(t_drops(t, E4, LSW_DROP_PFC_WD_RX_DROP), rx_drops);
	assert_int_equal(wq->detected, 1);
	for (uint16_t p = E0; p <= E4; p++)
		while (t_tx_count(t, p) && lsw_egress_run(&t->w, t->conf, p, x.now))
			;
	t_switch_free(t);
}

static void
test_drop(void **state)
{
	(void)state;
	check_action("drop");
}

static void
test_forward(void **state)
{
	(void)state;
	check_action("forward");
}

static void
test_alert(void **state)
{
	(void)state;
	check_action("alert");
}

/* BIG_RED_SWITCH: every watched queue is stormed with drop at the next poll, without any
 * storm (Ethernet4) or over the action of a storm in progress (Ethernet0, forward);
 * turning it off undoes it as a restore, with the storm's counters closed. */
static void
test_big_red_switch(void **state)
{
	char json[4096];
	/* Ethernet0 is watched too (a PFC_WD entry alone watches its lossless priorities). */
	snprintf(json, sizeof(json), CONFIG_FMT,
		 "\"Ethernet0\": {\"action\": \"forward\", \"detection_time\": \"200\"}, ",
		 "forward");
	struct sim x = {.t = t_switch_new(json), .now = 1000 * MS};
	struct t_switch *t = x.t;
	const struct lsw_wd_queue *wq = &t->sw.wdq[E4][3];
	const struct lsw_wd_stats *st = &t->sw.wds[E4][3];

	(void)state;
	assert_int_equal(t_start_ports(t), 0);
	run(&x, 300);
	x.storm = true; /* Ethernet4's peer storms: forward after D */
	run(&x, 400);
	assert_int_equal(wq->state, LSW_WD_STORMED);
	assert_int_equal(t->conf->port[E4].wd_drop, 0);
	assert_int_equal(t->conf->port[E4].wd_ignore_pause, 1 << 3);
	t->sw.cfg->qos.wd.big_red_switch = true; /* what config.set publishes */
	run(&x, 101);
	assert_int_equal(st->action, LSW_WD_DROP);
	assert_int_equal(wq->detected, 1); /* the same storm, now dropping */
	assert_int_equal(t->conf->port[E4].wd_drop, 1 << 3);
	assert_int_equal(t->sw.wdq[E0][3].state, LSW_WD_STORMED); /* no storm there */
	assert_int_equal(t->conf->port[E0].wd_drop, 1 << 3);
	uint64_t drops = t_drops(t, E4, LSW_DROP_PFC_WD_TX_DROP), lossy = tx(t, E4, 1);
	run(&x, 10);
	assert_int_equal(t_drops(t, E4, LSW_DROP_PFC_WD_TX_DROP), drops + 10);
	assert_int_equal(tx(t, E4, 1), lossy + 10);
	/* Ethernet0 stops being watched while the switch is still on: restored, counted. */
	t->sw.cfg->qos.port[E0].pfcwd_enable = 0;
	run(&x, 101);
	assert_int_equal(t->sw.wdq[E0][3].state, LSW_WD_OPERATIONAL);
	assert_int_equal(t->conf->port[E0].wd_drop, 0);
	x.storm = false;
	t->sw.cfg->qos.wd.big_red_switch = false;
	run(&x, 101);
	assert_int_equal(wq->state, LSW_WD_OPERATIONAL);
	assert_int_equal(wq->restored, 1);
	assert_int_equal(t->sw.wdq[E0][3].restored, 1);
	assert_int_equal(st->last[1], t_drops(t, E4, LSW_DROP_PFC_WD_TX_DROP));
	assert_int_equal(t->conf->port[E4].wd_drop | t->conf->port[E4].wd_ignore_pause, 0);
	assert_int_equal(t->conf->port[E0].wd_drop | t->conf->port[E0].wd_ignore_pause, 0);
	run(&x, 10); /* the last XOFF (3.4 ms) is over: queue 3 forwards again */
	uint64_t sent = tx(t, E4, 3);
	run(&x, 10);
	assert_int_equal(tx(t, E4, 3), sent + 10);
	for (uint16_t p = E0; p <= E4; p++)
		while (t_tx_count(t, p) && lsw_egress_run(&t->w, t->conf, p, x.now))
			;
	t_switch_free(t);
}

/* stats.clear does not reach the watchdog: a clear during a storm leaves its _LAST counters
 * whole (they wrapped to about 1.8e19), and a clear after a long storm does not delay the
 * next detection until the cleared pause time is earned back. */
static void
test_clear(void **state)
{
	char json[4096];
	snprintf(json, sizeof(json), CONFIG_FMT, "", "drop");
	struct sim x = {.t = t_switch_new(json), .now = 1000 * MS};
	struct t_switch *t = x.t;
	const struct lsw_wd_queue *wq = &t->sw.wdq[E4][3];
	const struct lsw_wd_stats *st = &t->sw.wds[E4][3];

	(void)state;
	t->sw.buffer_base = rte_zmalloc("test_mmu_base", sizeof(*t->sw.buffer_base), 0);
	assert_non_null(t->sw.buffer_base);
	assert_int_equal(t_start_ports(t), 0);
	run(&x, 300);
	x.storm = true;
	run(&x, 2000);
	assert_int_equal(wq->state, LSW_WD_STORMED);
	lsw_stats_clear(&t->sw, -1);
	run(&x, 100);
	x.storm = false;
	uint64_t calm = x.now;
	while (wq->state == LSW_WD_STORMED && x.now - calm < 1000 * MS)
		run(&x, 1);
	assert_int_equal(wq->restored, 1);
	assert_true(st->last[1] > 0);
	assert_int_equal(st->last[1], t_drops(t, E4, LSW_DROP_PFC_WD_TX_DROP));
	assert_int_equal(st->last[3], t_drops(t, E4, LSW_DROP_PFC_WD_RX_DROP));
	/* A clear, then a new storm: detected within D + P as the first one was. */
	lsw_stats_clear(&t->sw, -1);
	run(&x, 10);
	x.storm = true;
	uint64_t start = x.now;
	while (wq->state == LSW_WD_OPERATIONAL && x.now - start < 2000 * MS)
		run(&x, 1);
	assert_int_equal(wq->state, LSW_WD_STORMED);
	assert_true(x.now - start <= 300 * MS);
	assert_int_equal(wq->detected, 2);
	x.storm = false;
	for (uint16_t p = E0; p <= E4; p++)
		while (t_tx_count(t, p) && lsw_egress_run(&t->w, t->conf, p, x.now))
			;
	rte_free(t->sw.buffer_base);
	t->sw.buffer_base = NULL;
	t_switch_free(t);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_drop),
		cmocka_unit_test(test_forward),
		cmocka_unit_test(test_alert),
		cmocka_unit_test(test_big_red_switch),
		cmocka_unit_test(test_clear),
	};
	t_eal_init();
	return cmocka_run_group_tests(tests, NULL, NULL);
}
