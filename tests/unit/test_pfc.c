/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * PFC on a fake clock: the frame (encode, decode, bad lengths, unknown opcodes), pause
 * timers at several speeds and quanta (buffers.md T4), bits left alone, XON, pause
 * durations, 802.3x PAUSE, and generation from a lossless PG: XOFF with the configured
 * quanta, refresh at half the pause time, XON once drained; lossy PGs never pause, never
 * take headroom, and do not disturb the lossless one (T10).
 */
#include <string.h>
#include <rte_ip.h>
#include <rte_malloc.h>
#include "harness.h"
#include "lsw/pfc.h"

/* Ethernet0 (100G) receives; Ethernet4 (10G) is where a lossless PG 3 of Ethernet0 sends
 * its packets (static threshold 8 KB, headroom 16 KB); Ethernet8 (25G) runs PFC too.
 * Ethernet12 (25G) honours 802.3x PAUSE instead, with a priority map that sends every
 * priority to queue 0 (which PAUSE must not go through). */
#define CONFIG \
	"{\"DEVICE_METADATA\": {\"localhost\": {\"mac\": \"02:00:00:00:00:01\"}}," \
	" \"LSW\": {\"global\": {\"workers\": [1], \"mbufs\": 200000}}," \
	" \"PORT\": {\"Ethernet0\": {\"speed\": \"100000\"}," \
	" \"Ethernet4\": {\"speed\": \"10000\"}," \
	"   \"Ethernet8\": {\"speed\": \"25000\"}, \"Ethernet12\": {\"speed\": \"25000\"}}," \
	" \"LSW_PORT\": {\"Ethernet0\": {\"devargs\": \"net_null0\", \"pfc_quanta\": 4096}," \
	"   \"Ethernet4\": {\"devargs\": \"net_null1\"}," \
	"   \"Ethernet8\": {\"devargs\": \"net_null2\"}," \
	"   \"Ethernet12\": {\"devargs\": \"net_null3\", \"rx_pause\": true}}," \
	" \"INTERFACE\": {\"Ethernet0|10.0.0.0/31\": {}, \"Ethernet4|10.0.1.0/31\": {}," \
	"   \"Ethernet8|10.0.2.0/31\": {}, \"Ethernet12|10.0.3.0/31\": {}}," \
	" \"STATIC_ROUTE\": {\"10.2.0.0/16\": {\"nexthop\": \"10.0.1.1\"}}," \
	" \"NEIGH\": {\"Ethernet4|10.0.1.1\": {\"neigh\": \"02:00:00:00:04:01\"}}," \
	" \"BUFFER_POOL\": {\"ingress_lossless_pool\": {\"type\": \"ingress\"," \
	" \"mode\": \"static\"}," \
	"   \"egress_lossy_pool\": {\"type\": \"egress\"}}," \
	" \"BUFFER_PROFILE\": {\"ingress_lossy_profile\": {\"pool\": \"ingress_lossless_pool\"," \
	"   \"size\": \"0\", \"static_th\": \"64KB\"}," \
	"   \"egress_lossy_profile\": {\"pool\": \"egress_lossy_pool\", \"dynamic_th\": \"3\"}," \
	"   \"lossless\": {\"pool\": \"ingress_lossless_pool\", \"size\": \"16KB\"," \
	"     \"xoff\": \"16KB\", \"static_th\": \"8KB\"}}," \
	" \"BUFFER_PG\": {\"Ethernet0|3\": {\"profile\": \"lossless\"}}," \
	" \"MAP_PFC_PRIORITY_TO_QUEUE\": {\"ALL0\": {\"0\": \"0\"}}," \
	" \"PORT_QOS_MAP\": {\"Ethernet0,Ethernet4,Ethernet8\": {\"pfc_enable\": \"3,4\"}," \
	"   \"Ethernet12\": {\"pfc_to_queue_map\": \"ALL0\"}}}"

static uint8_t buf[2048];

static uint16_t
pfc_frame(uint8_t enable, const uint16_t *time)
{
	struct rte_ether_addr src;

	t_mac("02:00:00:00:09:09", &src);
	lsw_pfc_encode(buf, &src, enable, time);
	return LSW_PFC_FRAME_LEN;
}

static void
test_codec(void **state)
{
	uint16_t time[8] = {1, 2, 3, 0xffff, 5, 6, 7, 8};
	struct lsw_pfc_frame f;

	(void)state;
	pfc_frame(0x98, time);
	/* buffers.md 2.4 byte for byte. */
	static const uint8_t da[6] = {0x01, 0x80, 0xc2, 0x00, 0x00, 0x01};
	assert_memory_equal(buf, da, 6);
	assert_int_equal(buf[12] << 8 | buf[13], 0x8808);
	assert_int_equal(buf[14] << 8 | buf[15], 0x0101);
	assert_int_equal(buf[16], 0);
	assert_int_equal(buf[17], 0x98);
	assert_int_equal(buf[18 + 2 * 3] << 8 | buf[19 + 2 * 3], 0xffff);
	assert_int_equal(buf[18], 0); /* priority 0 not enabled: its timer is 0 */
	for (int i = 34; i < 60; i++)
		assert_int_equal(buf[i], 0);
	assert_int_equal(lsw_pfc_decode(buf + 14, 46, &f), LSW_DROP_NONE);
	assert_int_equal(f.opcode, LSW_MACCTL_PFC);
	assert_int_equal(f.enable, 0x98);
	assert_int_equal(f.time[3], 0xffff);
	assert_int_equal(f.time[7], 8);
	assert_int_equal(lsw_pfc_decode(buf + 14, 19, &f), LSW_DROP_PFC_MALFORMED);
	assert_int_equal(lsw_pfc_decode(buf + 14, 1, &f), LSW_DROP_PFC_MALFORMED);
	buf[15] = 0x01;
	buf[14] = 0x00; /* PAUSE */
	assert_int_equal(lsw_pfc_decode(buf + 14, 4, &f), LSW_DROP_NONE);
	assert_int_equal(f.enable, 0xff);
	assert_int_equal(lsw_pfc_decode(buf + 14, 3, &f), LSW_DROP_PFC_MALFORMED);
	buf[15] = 0x03;
	assert_int_equal(lsw_pfc_decode(buf + 14, 46, &f), LSW_DROP_MAC_CONTROL_UNKNOWN);
}

static const struct lsw_sched *
sched(struct t_switch *t, uint16_t port)
{
	return t->sw.dp.sched[port];
}

/* T4: a pause of Q quanta stops priority n for Q*512 bit times at the port speed. */
static void
test_rx_timers(void **state)
{
	static const struct {
		uint16_t port;
		uint16_t quanta;
		uint64_t ns;
	} cases[] = {
		{0, 0xffff, 335539},  /* 100G: 335.5 us (65535 * 512 bits / 100 Gb/s) */
		{0, 0x00ff, 1305},    /* 100G: 1.306 us */
		{1, 0xffff, 3355392}, /* 10G: 3.355 ms */
		{2, 0xffff, 1342156}, /* 25G: 1.342 ms */
	};
	struct t_switch *t = t_switch_new(CONFIG);
	const uint64_t now = 1000000;

	(void)state;
	for (size_t i = 0; i < RTE_DIM(cases); i++) {
		uint16_t time[8] = {0};
		time[3] = cases[i].quanta;
		t_rx(t, cases[i].port, buf, pfc_frame(1 << 3, time), now);
		const struct lsw_sched *s = sched(t, cases[i].port);
		assert_int_equal(s->pause_until[3], now + cases[i].ns);
		for (int q = 0; q < 8; q++)
			if (q != 3)
				assert_true(s->pause_until[q] <= now);
		/* XON resumes at once. */
		time[3] = 0;
		t_rx(t, cases[i].port, buf, pfc_frame(1 << 3, time), now + 10);
		assert_true(s->pause_until[3] <= now + 10);
	}
	const struct lsw_pfc_counters *pc = &t->sw.dp.ctr[0].port[0].pfc;
	assert_int_equal(pc->rx_pkts[3], 4);
	assert_int_equal(pc->on2off_rx[3], 2);
	assert_int_equal(pc->rx_pause_ticks[3], 20); /* two pauses ended by XON after 10 ns */
	assert_int_equal(t_tx_count(t, 0), 0); /* consumed, never forwarded */
	t_switch_free(t);
}

static void
test_rx_bits(void **state)
{
	struct t_switch *t = t_switch_new(CONFIG);
	const struct lsw_sched *s = sched(t, 0);
	uint16_t time[8] = {100, 100, 100, 100, 100, 100, 100, 100};

	(void)state;
	/* Priority 3 and 4 enabled on the port; a frame pausing 0, 3 and 4 pauses 3 and 4. */
	t_rx(t, 0, buf, pfc_frame(0x19, time), 5000);
	assert_true(s->pause_until[3] > 5000 && s->pause_until[4] > 5000);
	assert_true(s->pause_until[0] <= 5000);
	/* A frame for priority 4 alone leaves 3 as it was. */
	uint64_t p3 = s->pause_until[3];
	time[4] = 200;
	t_rx(t, 0, buf, pfc_frame(0x10, time), 5100);
	assert_int_equal(s->pause_until[3], p3);
	assert_true(s->pause_until[4] > p3);
	assert_int_equal(t->sw.dp.ctr[0].port[0].pfc.rx_pkts[0], 1); /* counted, not honoured */
	/* The pause runs out by itself: the poll notices and accounts its duration. */
	lsw_pfc_poll(&t->w, t->conf, 0, 1000000);
	assert_int_equal(s->pfc.rx_paused, 0);
	assert_int_equal(t->sw.dp.ctr[0].port[0].pfc.rx_pause_ticks[3], p3 - 5000);
	/* Malformed and unknown MAC control frames are counted drops. */
	t_rx(t, 0, buf, 30, 1000000);
	buf[15] = 0x05;
	t_rx(t, 0, buf, 60, 1000000);
	assert_int_equal(t_drops(t, 0, LSW_DROP_PFC_MALFORMED), 1);
	assert_int_equal(t_drops(t, 0, LSW_DROP_MAC_CONTROL_UNKNOWN), 1);
	t_switch_free(t);
}

static void
test_pause_8023x(void **state)
{
	struct t_switch *t = t_switch_new(CONFIG);
	uint16_t time[8] = {0};

	(void)state;
	pfc_frame(0, time);
	buf[14] = 0x00, buf[15] = 0x01, buf[16] = 0x01, buf[17] = 0x00; /* PAUSE 256 quanta */
	t_rx(t, 0, buf, 60, 100);
	assert_int_equal(t_drops(t, 0, LSW_DROP_PAUSE_NOT_ENABLED), 1);
	t_rx(t, 3, buf, 60, 100); /* Ethernet12 honours it: every queue, whatever the map */
	const uint64_t until = 100 + 256 * 512 * 1000 / 25000;
	for (int q = 0; q < 8; q++)
		assert_int_equal(sched(t, 3)->pause_until[q], until);
	assert_int_equal(t_event(t, LSW_EV_PAUSE_RX), 1);
	assert_int_equal(t->sw.dp.ctr[0].port[3].pfc.rx_pkts[0], 0); /* not a PFC frame */
	/* It runs out by itself; a PAUSE of time 0 resumes at once. */
	lsw_pfc_poll(&t->w, t->conf, 3, until);
	assert_int_equal(sched(t, 3)->pfc.rx_port_paused, 0);
	t_rx(t, 3, buf, 60, until + 10);
	assert_int_equal(sched(t, 3)->pause_until[5], until + 10 + 5242);
	/* Frames the switch makes (ARP, ICMP) wait too: 802.3x stops every data frame. */
	uint8_t arp[64];
	assert_int_equal(t_start_ports(t), 0);
	uint16_t len = t_build_arp(arp, 1, "02:00:00:00:0c:09", "10.0.3.1", "00:00:00:00:00:00",
				   "10.0.3.0", "ff:ff:ff:ff:ff:ff");
	t_rx(t, 3, arp, len, until + 11);
	assert_int_equal(lsw_fifo_count(&sched(t, 3)->ctl), 1);
	assert_int_equal(lsw_egress_run(&t->w, t->conf, 3, until + 12), 0);
	assert_int_equal(lsw_fifo_count(&sched(t, 3)->ctl), 1); /* still held */
	assert_true(lsw_egress_wait(&t->w, t->conf, 3, until + 12) >= 5242 - 2);
	buf[16] = 0x00, buf[17] = 0x00;
	t_rx(t, 3, buf, 60, until + 20);
	assert_true(sched(t, 3)->pause_until[5] <= until + 20);
	assert_int_equal(t_event(t, LSW_EV_PAUSE_RX), 3);
	assert_int_equal(lsw_egress_wait(&t->w, t->conf, 3, until + 21), 0);
	assert_int_equal(lsw_egress_run(&t->w, t->conf, 3, until + 21), 1); /* the ARP reply */
	t_switch_free(t);
}

static struct rte_mbuf *
take_pfc(struct t_switch *t, uint16_t port, uint64_t now, uint8_t *enable, uint16_t *time)
{
	struct rte_mbuf *m = lsw_pfc_take_frame(&t->w, t->conf, port, now);
	struct lsw_pfc_frame f;

	if (m == NULL)
		return NULL;
	assert_int_equal(m->pkt_len, LSW_PFC_FRAME_LEN);
	assert_int_equal(lsw_pfc_decode(rte_pktmbuf_mtod_offset(m, uint8_t *, 14), 46, &f),
			 LSW_DROP_NONE);
	*enable = f.enable;
	memcpy(time, f.time, sizeof(f.time));
	rte_pktmbuf_free(m);
	return m;
}

/* Lossless packets (DSCP 3: TC 3, PG 3) into Ethernet0 until PG 3 crosses XOFF; Ethernet4
 * is never drained here. Leaves the frame in buf and returns its length. */
static uint16_t
to_xoff(struct t_switch *t, uint64_t now)
{
	struct t_flow f = {.dst = "10.2.0.1", .payload = 1000, .vlan = -1};
	uint16_t len = t_build_ipv4(buf, &f);
	struct rte_ipv4_hdr *ip = (struct rte_ipv4_hdr *)(buf + 14);

	ip->type_of_service = 3 << 2;
	ip->hdr_checksum = 0;
	ip->hdr_checksum = rte_ipv4_cksum(ip);
	for (int sent = 0; !(sched(t, 0)->pfc.tx_xoff_pg >> 3 & 1); sent++) {
		assert_true(sent < 100);
		t_rx(t, 0, buf, len, now);
		lsw_pfc_poll(&t->w, t->conf, 0, now);
	}
	return len;
}

static void
test_generation(void **state)
{
	struct t_switch *t = t_switch_new(CONFIG);
	uint64_t now = 1000;
	uint8_t enable;
	uint16_t time[8];

	(void)state;
	uint16_t len = to_xoff(t, now);
	/* XOFF for priority 3 (pfc_to_pg maps it to PG 3), with the port's quanta. */
	assert_non_null(take_pfc(t, 0, now, &enable, time));
	assert_int_equal(enable, 1 << 3);
	assert_int_equal(time[3], 4096);
	assert_null(lsw_pfc_take_frame(&t->w, t->conf, 0, now)); /* nothing more pending */
	/* Headroom absorbs what the peer still sends: no drop. */
	for (int i = 0; i < 10; i++)
		t_rx(t, 0, buf, len, now);
	assert_int_equal(t_drops(t, 0, LSW_DROP_HEADROOM_OVERFLOW), 0);
	/* Refresh at half the pause: 4096 quanta at 100G = 20.97 us, so at 10.48 us. */
	uint64_t half = 4096ull * 512 * 1000 / 100000 / 2;
	lsw_pfc_poll(&t->w, t->conf, 0, now + half - 1);
	assert_null(lsw_pfc_take_frame(&t->w, t->conf, 0, now + half - 1));
	lsw_pfc_poll(&t->w, t->conf, 0, now + half);
	assert_non_null(take_pfc(t, 0, now + half, &enable, time));
	assert_int_equal(enable, 1 << 3);
	assert_int_equal(time[3], 4096);
	/* Drained (the test takes what Ethernet4 holds): XON, time 0. */
	while (t_tx_count(t, 1))
		rte_pktmbuf_free(t_tx_take(t, 1));
	lsw_pfc_poll(&t->w, t->conf, 0, now + half + 5);
	assert_non_null(take_pfc(t, 0, now + half + 5, &enable, time));
	assert_int_equal(enable, 1 << 3);
	assert_int_equal(time[3], 0);
	const struct lsw_pfc_counters *pc = &t->sw.dp.ctr[0].port[0].pfc;
	assert_int_equal(pc->tx_pkts[3], 3);
	assert_int_equal(pc->tx_pause_ticks[3], half + 5);
	assert_int_equal(pc->tx_pkts[0] + pc->tx_pkts[4], 0);
	t_switch_free(t);
}

/* PFC turned off (config.set) while the peer is paused: it gets an XON at once, and the
 * pause stops counting; nothing more is sent. */
static void
test_pfc_off_resumes_peer(void **state)
{
	struct t_switch *t = t_switch_new(CONFIG);
	uint8_t enable;
	uint16_t time[8];

	(void)state;
	to_xoff(t, 1000);
	assert_non_null(take_pfc(t, 0, 1000, &enable, time));
	assert_int_equal(time[3], 4096);
	t->sw.cfg->qos.port[0].pfc_enable = 0;
	t_rebuild(t);
	lsw_pfc_poll(&t->w, t->conf, 0, 1500);
	assert_non_null(take_pfc(t, 0, 1500, &enable, time));
	assert_int_equal(enable, 1 << 3);
	assert_int_equal(time[3], 0);
	assert_int_equal(t->sw.dp.ctr[0].port[0].pfc.tx_pause_ticks[3], 500);
	lsw_pfc_poll(&t->w, t->conf, 0, 1000000);
	assert_null(lsw_pfc_take_frame(&t->w, t->conf, 0, 1000000));
	t_switch_free(t);
}

/* A port that goes admin down while it pauses its peer: the pending XOFF and the XON that
 * would end the pause are dropped with the link (found by the packet fuzzer: the XON
 * waited for ever). Back up with its PG still congested, it sends its XOFF at once. */
static void
test_admin_down_drops_pfc(void **state)
{
	struct t_switch *t = t_switch_new(CONFIG);
	uint8_t enable;
	uint16_t time[8];

	(void)state;
	to_xoff(t, 1000);
	assert_int_not_equal(sched(t, 0)->pfc.tx_xoff, 0); /* the XOFF is pending */
	t->conf->port[0].admin_up = 0;
	lsw_egress_run(&t->w, t->conf, 0, 1000);
	const struct lsw_pfc_port *pf = &sched(t, 0)->pfc;
	assert_int_equal(pf->tx_xoff | pf->tx_xon | pf->tx_paused | pf->tx_xoff_pg, 0);
	assert_null(lsw_pfc_take_frame(&t->w, t->conf, 0, 1000));
	/* Still down and still congested: whatever the poll wants to send is dropped again. */
	lsw_pfc_poll(&t->w, t->conf, 0, 2000);
	lsw_egress_run(&t->w, t->conf, 0, 2000);
	assert_int_equal(pf->tx_xoff | pf->tx_xon, 0);
	/* Back up, PG 3 above XOFF: XOFF now, not at the next refresh. */
	t->conf->port[0].admin_up = 1;
	lsw_pfc_poll(&t->w, t->conf, 0, 3000);
	assert_non_null(take_pfc(t, 0, 3000, &enable, time));
	assert_int_equal(enable, 1 << 3);
	assert_int_equal(time[3], 4096);
	/* Drained while down: no XON is left waiting, and none goes out once it is up. */
	t->conf->port[0].admin_up = 0;
	lsw_egress_run(&t->w, t->conf, 0, 4000);
	while (t_tx_count(t, 1))
		rte_pktmbuf_free(t_tx_take(t, 1));
	lsw_pfc_poll(&t->w, t->conf, 0, 5000);
	lsw_egress_run(&t->w, t->conf, 0, 5000);
	assert_int_equal(pf->tx_xoff | pf->tx_xon | pf->tx_xoff_pg, 0);
	t->conf->port[0].admin_up = 1;
	lsw_pfc_poll(&t->w, t->conf, 0, 6000);
	assert_null(lsw_pfc_take_frame(&t->w, t->conf, 0, 6000));
	t_switch_free(t);
}

/* No mbuf for a PFC frame: it is put off (counted), not lost, and goes out next time. */
static void
test_deferred(void **state)
{
	struct t_switch *t = t_switch_new(CONFIG);
	static struct rte_mbuf *all[300000];
	struct rte_mempool *pfc = rte_pktmbuf_pool_create("t_pfc_pool", 4, 0, 0,
							  RTE_PKTMBUF_HEADROOM + 64,
							  SOCKET_ID_ANY);
	struct rte_mbuf *held[4];
	unsigned int n = 0;
	uint8_t enable;
	uint16_t time[8];

	(void)state;
	assert_non_null(pfc);
	t->sw.dp.pfc_pool = pfc;
	to_xoff(t, 1000);
	/* Data took every mbuf: the XOFF still goes, from the PFC frames' own pool. */
	while (n < RTE_DIM(all) && (all[n] = rte_pktmbuf_alloc(t_pool())) != NULL)
		n++;
	struct rte_mbuf *m = lsw_pfc_take_frame(&t->w, t->conf, 0, 1000);
	assert_non_null(m);
	assert_ptr_equal(m->pool, pfc);
	rte_pktmbuf_free(m);
	rte_pktmbuf_free_bulk(all, n);
	/* That pool empty too: the frame is put off to the next loop, and counted. */
	to_xoff(t, 1000);
	t->w.dp->sched[0]->pfc.tx_xoff = 1 << 3;
	for (int i = 0; i < 4; i++)
		held[i] = rte_pktmbuf_alloc(pfc);
	assert_null(lsw_pfc_take_frame(&t->w, t->conf, 0, 1001));
	assert_int_equal(t_event(t, LSW_EV_PFC_TX_DEFERRED), 1);
	rte_pktmbuf_free_bulk(held, 4);
	assert_non_null(take_pfc(t, 0, 1002, &enable, time));
	assert_int_equal(enable, 1 << 3);
	assert_int_equal(time[3], 4096);
	assert_int_equal(t->sw.dp.ctr[0].port[0].pfc.tx_pkts[3], 2);
	t->sw.dp.pfc_pool = NULL;
	t_switch_free(t);
	rte_mempool_free(pfc);
}

/* T10: lossy PG 0 saturated alongside lossless PG 3 whose sender obeys the pause. PG 0
 * drops at its threshold, never sends XOFF and never uses headroom; PG 3 pauses its own
 * priority only and loses nothing. */
static void
test_lossy_isolation(void **state)
{
	struct t_switch *t = t_switch_new(CONFIG);
	struct t_flow f = {.dst = "10.2.0.1", .payload = 1400, .vlan = -1};
	static uint8_t lossless[2048];
	uint16_t len = t_build_ipv4(buf, &f); /* DSCP 0: TC 1, PG 0 */
	uint16_t llen = t_build_ipv4(lossless, &f);
	struct rte_ipv4_hdr *ip = (struct rte_ipv4_hdr *)(lossless + 14);
	uint8_t enable;
	uint16_t time[8];
	int sent = 0, xoffs = 0;

	(void)state;
	ip->type_of_service = 3 << 2;
	ip->hdr_checksum = 0;
	ip->hdr_checksum = rte_ipv4_cksum(ip);
	for (int i = 0; i < 4000; i++) {
		uint64_t now = 1000 + i;
		t_rx(t, 0, buf, len, now);
		/* The lossless sender stops while it is paused (the pause never ends here). */
		if (!(sched(t, 0)->pfc.tx_xoff_pg >> 3 & 1)) {
			t_rx(t, 0, lossless, llen, now);
			sent++;
		}
		lsw_pfc_poll(&t->w, t->conf, 0, now);
		while (take_pfc(t, 0, now, &enable, time) != NULL) {
			assert_int_equal(enable, 1 << 3);
			xoffs++;
		}
		assert_int_equal(t->w.buffer->use.pg_occ[0][0][LSW_PART_HEADROOM], 0);
	}
	assert_true(t_drops(t, 0, LSW_DROP_INGRESS_PG_THRESHOLD) > 1000);
	assert_int_equal(t_drops(t, 0, LSW_DROP_HEADROOM_OVERFLOW), 0);
	assert_true(xoffs >= 1);
	/* Every lossless packet is queued for Ethernet4's queue 3. */
	assert_int_equal(t->w.buffer->ctr.pg_pkts[0][3], sent);
	assert_int_equal(lsw_fifo_count(&sched(t, 1)->q[3]), sent);
	assert_int_equal(t->sw.dp.ctr[0].port[0].pfc.tx_pkts[0], 0);
	t_switch_free(t);
}

/* A software peer over net_memif (lab_dcqcn's leaf): 1 Gb/s, MTU 4200, 4 KB frames, a ring
 * of 8 slots, a computed ("NULL") profile. The worst case after the PG crosses its XOFF
 * point: the rest of the rx burst that crossed it (the worker admits a burst whole), a full
 * ring (the worker was preempted before the XOFF went out) and the peer's burst. The
 * computed headroom holds all of it: counting the ring once, it dropped one frame in CI. */
#define MEMIF_CONFIG \
	"{\"DEVICE_METADATA\": {\"localhost\": {\"mac\": \"02:00:00:00:00:01\"}}," \
	" \"LSW\": {\"global\": {\"workers\": [1], \"mbufs\": 200000}}," \
	" \"PORT\": {\"Ethernet0\": {\"speed\": \"1000\", \"mtu\": \"4200\"}," \
	"   \"Ethernet4\": {\"speed\": \"1000\", \"mtu\": \"4200\"}}," \
	" \"LSW_PORT\": {\"Ethernet0\": {\"devargs\":" \
	"     \"net_memif0,role=server,socket=/nonexistent/l0.sock,rsize=3\"}," \
	"   \"Ethernet4\": {\"devargs\": \"net_null1\"}}," \
	" \"INTERFACE\": {\"Ethernet0|10.0.0.0/31\": {}, \"Ethernet4|10.0.1.0/31\": {}}," \
	" \"STATIC_ROUTE\": {\"10.2.0.0/16\": {\"nexthop\": \"10.0.1.1\"}}," \
	" \"NEIGH\": {\"Ethernet4|10.0.1.1\": {\"neigh\": \"02:00:00:00:04:01\"}}," \
	" \"BUFFER_POOL\": {\"ingress_lossless_pool\": {\"type\": \"ingress\"," \
	"     \"mode\": \"dynamic\", \"size\": \"2MB\"}," \
	"   \"egress_lossless_pool\": {\"type\": \"egress\", \"mode\": \"static\"," \
	"     \"size\": \"2MB\"}}," \
	" \"BUFFER_PROFILE\": {\"ingress_lossy_profile\": {\"pool\": \"ingress_lossless_pool\"," \
	"     \"dynamic_th\": \"0\"}," \
	"   \"egress_lossy_profile\": {\"pool\": \"egress_lossless_pool\"," \
	"     \"static_th\": \"2MB\"}}," \
	" \"DEFAULT_LOSSLESS_BUFFER_PARAMETER\": {\"AZURE\": {\"default_dynamic_th\": \"-4\"}}," \
	" \"PORT_QOS_MAP\": {\"Ethernet0,Ethernet4\": {\"pfc_enable\": \"3\"}}," \
	" \"CABLE_LENGTH\": {\"AZURE\": {\"Ethernet0\": \"5m\", \"Ethernet4\": \"5m\"}}," \
	" \"BUFFER_PG\": {\"Ethernet0|3\": {\"profile\": \"NULL\"}}}"

static void
test_memif_peer_headroom(void **state)
{
	static uint8_t big[4300];
	struct t_switch *t = t_switch_new(MEMIF_CONFIG);
	struct t_flow f = {.dst = "10.2.0.1", .payload = 4200 - 28, .vlan = -1,
			   .tos = 3 << 2};
	const struct lsw_config *c = t->sw.cfg;
	const uint64_t now = 1000;

	(void)state;
	uint16_t len = t_build_ipv4(big, &f);
	assert_int_equal(len, 4214);
	const uint32_t slots = lsw_port_ring_slots(c, 0, 1000);
	const uint64_t burst = lsw_port_tx_burst_bytes(c, 0, 1000);
	assert_int_equal(slots, 8);
	int prof = lsw_config_find("pg_lossless_1000_5m_profile", c->qos.profile,
				   c->qos.n_profiles, sizeof(c->qos.profile[0]));
	assert_true(prof >= 0);
	const uint64_t xoff = c->qos.profile[prof].xoff;
	/* Up to the frame that crosses XOFF, one frame a burst. */
	for (int sent = 0; !(sched(t, 0)->pfc.tx_xoff_pg >> 3 & 1); sent++) {
		assert_true(sent < 1000);
		t_rx(t, 0, big, len, now);
		lsw_pfc_poll(&t->w, t->conf, 0, now);
	}
	const int64_t before = t->w.buffer->use.pg_occ[0][3][LSW_PART_HEADROOM];
	/* The rest of that burst, a full ring, the peer's burst. */
	const uint32_t after = slots - 1 + slots + (uint32_t)((burst + len - 1) / len);
	for (uint32_t i = 0; i < after; i++)
		t_rx(t, 0, big, len, now);
	assert_int_equal(t_drops(t, 0, LSW_DROP_HEADROOM_OVERFLOW), 0);
	const int64_t used = t->w.buffer->use.pg_occ[0][3][LSW_PART_HEADROOM];
	assert_true(used - before >= (int64_t)after * len);
	assert_true(used <= (int64_t)xoff);
	/* The headroom is that and a margin, not another ring: a ring more overflows. */
	for (uint32_t i = 0; i < slots; i++)
		t_rx(t, 0, big, len, now);
	assert_true(t_drops(t, 0, LSW_DROP_HEADROOM_OVERFLOW) > 0);
	t_switch_free(t);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_codec),
		cmocka_unit_test(test_rx_timers),
		cmocka_unit_test(test_rx_bits),
		cmocka_unit_test(test_pause_8023x),
		cmocka_unit_test(test_generation),
		cmocka_unit_test(test_deferred),
		cmocka_unit_test(test_pfc_off_resumes_peer),
		cmocka_unit_test(test_admin_down_drops_pfc),
		cmocka_unit_test(test_lossy_isolation),
		cmocka_unit_test(test_memif_peer_headroom),
	};
	t_eal_init();
	return cmocka_run_group_tests(tests, NULL, NULL);
}
