/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Utilization-based ECMP on a fake clock: quality banding and the EWMA, flowlet expiry,
 * tie-breaking and stickiness, reactive rebalance, each mode's choice, a PFC-paused member
 * avoided through the real forwarding path, the ECMP table's refusals by path, and flowlet
 * tables kept across unrelated config changes. IPv6 groups go through the same checks
 * (every mode, PFC pause, member down, hash_qp, rebalance) and their own: the flow label
 * as a hash field, ECMP|<IPv6 prefix> entries applied by config.set, per-group counters
 * and ecmp.groups listing both families.
 */
#include <string.h>
#include "harness.h"
#include "lsw/pfc.h"

#define US 1000u /* fake TSC ticks per microsecond (T_HZ = 1 GHz) */

/* T_CONFIG's switch with an ECMP table: 10.1.0.0/16 is the group over Ethernet4 and
 * Ethernet8 (both 10 Gb/s); PFC on priority 3 of Ethernet4 and Ethernet8. */
#define ECMP_CONFIG(global, group) \
	"{\"ECMP\": {\"GLOBAL\": {" global "}, \"10.1.0.0/16\": {" group "}}," \
	" \"PORT_QOS_MAP\": {\"Ethernet4,Ethernet8\": {\"pfc_enable\": \"3\"}}}"

/* IPv6 beside T_CONFIG's IPv4: /127 links on Ethernet4 and Ethernet8, a /64 on Ethernet12;
 * 2001:db8:1::/48 over Ethernet4 and Ethernet8 (the twin of 10.1.0.0/16), 2001:db8:6::/48
 * over the three (the twin of ECMP3_CONFIG's 10.6.0.0/16). */
#define V6_NET \
	"\"INTERFACE\": {\"Ethernet0|2001:db8::1/64\": {}, \"Ethernet4|2001:db8:4::/127\": {}," \
	"  \"Ethernet8|2001:db8:8::/127\": {}, \"Ethernet12|2001:db8:12::1/64\": {}}," \
	" \"STATIC_ROUTE\": {\"2001:db8:1::/48\": {\"nexthop\": \"2001:db8:4::1,2001:db8:8::1\"}," \
	"  \"2001:db8:6::/48\": {\"nexthop\": \"2001:db8:4::1,2001:db8:8::1,2001:db8:12::9\"}}," \
	" \"NEIGH\": {\"Ethernet4|2001:db8:4::1\": {\"neigh\": \"02:00:00:00:04:01\"}," \
	"  \"Ethernet8|2001:db8:8::1\": {\"neigh\": \"02:00:00:00:08:01\"}," \
	"  \"Ethernet12|2001:db8:12::9\": {\"neigh\": \"02:00:00:00:0c:01\"}}"
#define ECMP6_CONFIG(global, group) \
	"{" V6_NET ", \"ECMP\": {\"GLOBAL\": {" global "}, \"2001:db8:1::/48\": {" group "}}," \
	" \"PORT_QOS_MAP\": {\"Ethernet4,Ethernet8\": {\"pfc_enable\": \"3\"}}}"

static struct t_switch *
ecmp_switch(const char *patch)
{
	struct lsw_errs errs;
	struct lsw_config *c = t_config_patch(T_CONFIG, patch, &errs);

	assert_non_null(c);
	char *doc = json_dumps(c->doc, 0);
	lsw_config_free(c);
	struct t_switch *t = t_switch_new(doc);
	free(doc);
	return t;
}

/* One sample interval (10 us) of @pct percent of 10 Gb/s, @queued bytes waiting. */
static void
feed(struct lsw_ecmp_sig *s, const struct lsw_ecmp_dp *e, uint64_t *tx, uint64_t pct,
     uint64_t queued, uint64_t *now)
{
	*tx += 10000ull * 10 / 8 * pct / 100; /* Mb/s * us / 8 = bytes */
	*now += 10 * US;
	lsw_ecmp_sample(s, e, T_PORT4, *tx, queued, *now);
}

/* Levels 0..7 between min and max, quality = 7 - the weighted sum; the EWMA follows. */
static void
test_quality(void **state)
{
	struct t_switch *t = ecmp_switch(ECMP_CONFIG(
		"\"sample_interval\": 10, \"ewma_exponent\": 0, \"load_min_threshold\": 20,"
		" \"load_max_threshold\": 80, \"queue_min_threshold\": 10000,"
		" \"queue_max_threshold\": 70000, \"load_weight\": 100, \"queue_weight\": 0", ""));
	const struct lsw_ecmp_dp *e = &t->conf->ecmp;
	struct lsw_ecmp_sig s = {0};
	uint64_t tx = 0, now = 1000;
	static const struct { uint64_t pct; uint8_t level; } load[] = {
		{0, 0}, {19, 0}, {20, 1}, {29, 1}, {30, 2}, {49, 3}, {50, 4}, {79, 6}, {80, 7},
		{100, 7},
	};

	(void)state;
	lsw_ecmp_sample(&s, e, T_PORT4, tx, 0, now); /* the first sample only starts */
	assert_int_equal(s.quality, 7);
	for (size_t i = 0; i < RTE_DIM(load); i++) {
		feed(&s, e, &tx, load[i].pct, 0, &now);
		assert_int_equal(s.load_level, load[i].level);
		assert_int_equal(s.quality, 7 - load[i].level);
	}
	/* Queue only (weights 0/100 through a rebuilt snapshot): 10 KB .. 70 KB at 10G. */
	t->sw.cfg->ecmp.w_load = 0;
	t->sw.cfg->ecmp.w_queue = 100;
	t_rebuild(t);
	e = &t->conf->ecmp;
	feed(&s, e, &tx, 100, 9999, &now);
	assert_int_equal(s.queue_level, 0);
	assert_int_equal(s.quality, 7);
	feed(&s, e, &tx, 0, 40000, &now);
	assert_int_equal(s.queue_level, 4);
	assert_int_equal(s.quality, 3);
	/* Half and half: levels 7 and 4 give quality ((7 - 7) * 50 + (7 - 4) * 50) / 100 =
	 * 1.5, rounded down (toward worse) to 1. */
	t->sw.cfg->ecmp.w_load = 50;
	t->sw.cfg->ecmp.w_queue = 50;
	t_rebuild(t);
	e = &t->conf->ecmp;
	feed(&s, e, &tx, 100, 40000, &now);
	assert_int_equal(s.quality, 1);
	/* A slower port scales both bands: 10% of 1 Gb/s is level 0, 1 KB queued level 0 at
	 * 10G but level 1 at 1G (queue band 1..7 KB). */
	t->sw.port[T_PORT4].speed = 1000;
	t_rebuild(t);
	e = &t->conf->ecmp;
	tx += 1000ull * 10 / 8 * 10 / 100;
	now += 10 * US;
	lsw_ecmp_sample(&s, e, T_PORT4, tx, 1000, now);
	assert_int_equal(s.load_level, 0);
	assert_int_equal(s.queue_level, 1);
	t_switch_free(t);
}

/* EWMA exponent 2: a step converges geometrically; late samples spread the bytes. */
static void
test_ewma(void **state)
{
	struct t_switch *t = ecmp_switch(ECMP_CONFIG("\"sample_interval\": 10", ""));
	const struct lsw_ecmp_dp *e = &t->conf->ecmp;
	struct lsw_ecmp_sig s = {0};
	uint64_t tx = 0, now = 1000, full = (10000ull * 10 / 8) << LSW_ECMP_FIX;

	(void)state;
	lsw_ecmp_sample(&s, e, T_PORT4, tx, 0, now);
	feed(&s, e, &tx, 100, 0, &now);
	assert_true(s.load >= full / 4 && s.load <= full / 4 + 1);
	feed(&s, e, &tx, 100, 0, &now);
	assert_true(s.load >= full * 7 / 16 && s.load <= full * 7 / 16 + 2);
	for (int i = 0; i < 200; i++)
		feed(&s, e, &tx, 100, 0, &now);
	assert_int_equal(s.load, full);
	assert_int_equal(s.quality, 3); /* load level 7, queue 0: (0 * 50 + 7 * 50) / 100 = 3 */
	/* A worker that slept 100 intervals having sent nothing: the average decays as 100
	 * empty samples would make it, not as one. */
	now += 100 * 10 * US;
	lsw_ecmp_sample(&s, e, T_PORT4, tx, 0, now);
	assert_true(s.load < full / 1000);
	assert_int_equal(s.quality, 7);
	t_switch_free(t);
}

static void
test_best(void **state)
{
	uint64_t rng = 12345;
	uint8_t q[4] = {5, 8, 8, 3};
	unsigned int hits[4] = {0};

	(void)state;
	/* The current member is kept while it is among the best. */
	assert_int_equal(lsw_ecmp_best(q, 4, 0, 2, &rng), 2);
	assert_int_equal(lsw_ecmp_best(q, 4, 0, 1, &rng), 1);
	/* Otherwise a random member of the best band, evenly. */
	for (int i = 0; i < 10000; i++)
		hits[lsw_ecmp_best(q, 4, 0, 0, &rng)]++;
	assert_int_equal(hits[0] + hits[3], 0);
	assert_true(hits[1] > 4500 && hits[2] > 4500);
	/* A paused member (0) loses even against the worst quality (1). */
	uint8_t p[3] = {0, 1, 0};
	assert_int_equal(lsw_ecmp_best(p, 3, 0, 0, &rng), 1);
}

static struct lsw_ecmp_grp_dp
grp(uint8_t mode, struct lsw_ecmp_ws *ws)
{
	return (struct lsw_ecmp_grp_dp){.mode = mode, .mask = 63, .inactivity = 256 * US,
				     .rebalance_iv = 500 * US, .margin = 2, .ws = ws};
}

/* Two flows' hashes in different flowlet buckets (tables index by the top bits). */
#define FLOW_A 0x10000000u
#define FLOW_B 0x20000000u

/* flowlet_quality: a flow stays while its packets come closer than the inactivity time,
 * and takes the best member after a longer gap; counters follow. */
static void
test_flowlet(void **state)
{
	struct lsw_ecmp_ws ws = {0};
	struct lsw_flowlet tbl[64] = {0};
	struct lsw_ecmp_grp_dp g = grp(LSW_ECMP_FLOWLET_QUALITY, &ws);
	uint64_t rng = 1, now = 1000;
	uint8_t q[3] = {8, 4, 4};

	(void)state;
	assert_int_equal(lsw_ecmp_choose(&g, &ws, tbl, 3, q, 0, 0, FLOW_A, now, &rng), 0);
	assert_int_equal(ws.ctr.member[0].flowlets, 1);
	q[0] = 1; /* member 0 congests: the flow stays while it has no gap */
	for (int i = 0; i < 10; i++) {
		now += 200 * US;
		assert_int_equal(lsw_ecmp_choose(&g, &ws, tbl, 3, q, 0, 0, FLOW_A, now, &rng), 0);
	}
	now += 257 * US; /* a gap: a new flowlet, to one of the best */
	uint8_t m = lsw_ecmp_choose(&g, &ws, tbl, 3, q, 0, 0, FLOW_A, now, &rng);
	assert_true(m == 1 || m == 2);
	assert_int_equal(ws.ctr.member[m].flowlets, 1);
	assert_int_equal(ws.ctr.member[m].reassign, 1);
	/* Exactly the inactivity time is still the same flowlet. */
	now += 256 * US;
	q[m] = 1;
	assert_int_equal(lsw_ecmp_choose(&g, &ws, tbl, 3, q, 0, 0, FLOW_A, now, &rng), m);
	/* Another flow (another bucket) is independent. */
	q[0] = 8;
	assert_int_equal(lsw_ecmp_choose(&g, &ws, tbl, 3, q, 0, 0, FLOW_B, now, &rng), 0);
}

/* Reactive rebalance: an active flow on a congested member moves to one better by the
 * margin, one move per group and interval; an uncongested member keeps its flow. */
static void
test_rebalance(void **state)
{
	struct lsw_ecmp_ws ws = {0};
	struct lsw_flowlet tbl[64] = {0};
	struct lsw_ecmp_grp_dp g = grp(LSW_ECMP_FLOWLET_QUALITY, &ws);
	uint64_t rng = 1, now = 1000;
	uint8_t q[2] = {8, 7};

	(void)state;
	g.rebalance = 1;
	g.inactivity = 10000 * US; /* flows that never pause */
	assert_int_equal(lsw_ecmp_choose(&g, &ws, tbl, 2, q, 0, 0, FLOW_A, now, &rng), 0);
	assert_int_equal(lsw_ecmp_choose(&g, &ws, tbl, 2, q, 0, 0, FLOW_B, now, &rng), 0);
	q[0] = 7;
	q[1] = 8; /* better by 1: below the margin of 2 */
	now += 600 * US;
	assert_int_equal(lsw_ecmp_choose(&g, &ws, tbl, 2, q, 1, 0, FLOW_A, now, &rng), 0);
	q[0] = 5; /* better by 3, but member 0 is not congested */
	now += 100 * US;
	assert_int_equal(lsw_ecmp_choose(&g, &ws, tbl, 2, q, 0, 0, FLOW_A, now, &rng), 0);
	now += 100 * US; /* congested: the first packet moves its flow */
	assert_int_equal(lsw_ecmp_choose(&g, &ws, tbl, 2, q, 1, 0, FLOW_A, now, &rng), 1);
	assert_int_equal(ws.ctr.member[1].rebalance, 1);
	assert_int_equal(lsw_ecmp_choose(&g, &ws, tbl, 2, q, 1, 0, FLOW_A, now + 1, &rng), 1);
	/* The second flow waits for the next interval. */
	now += 100 * US;
	assert_int_equal(lsw_ecmp_choose(&g, &ws, tbl, 2, q, 1, 0, FLOW_B, now, &rng), 0);
	now += 400 * US;
	assert_int_equal(lsw_ecmp_choose(&g, &ws, tbl, 2, q, 1, 0, FLOW_B, now, &rng), 1);
	assert_int_equal(ws.ctr.member[1].rebalance, 2);
	assert_int_equal(ws.ctr.member[0].flowlets + ws.ctr.member[1].flowlets, 2);
}

/* Each mode: hash is the multiply-shift of the hash; packet_random uses every member;
 * packet_quality follows the best per packet; fixed keeps a flow forever; flowlet_random
 * picks a random member per new flowlet. */
static void
test_modes(void **state)
{
	struct lsw_ecmp_ws ws = {0};
	struct lsw_flowlet tbl[64] = {0};
	uint64_t rng = 99, now = 1000;
	uint8_t q[4] = {8, 8, 8, 8};
	unsigned int hits[4] = {0};

	(void)state;
	struct lsw_ecmp_grp_dp g = grp(LSW_ECMP_HASH, &ws);
	for (uint32_t h = 0; h < 1000; h++)
		assert_int_equal(lsw_ecmp_choose(&g, &ws, tbl, 4, q, 0, 0, h * 0x9e3779b9u, now,
						 &rng),
				 (uint8_t)(((uint64_t)(h * 0x9e3779b9u) * 4) >> 32));
	g = grp(LSW_ECMP_PACKET_RANDOM, &ws);
	for (int i = 0; i < 4000; i++)
		hits[lsw_ecmp_choose(&g, &ws, tbl, 4, q, 0, 0, 5, now, &rng)]++;
	for (int i = 0; i < 4; i++)
		assert_true(hits[i] > 800);
	g = grp(LSW_ECMP_PACKET_QUALITY, &ws);
	q[2] = 9;
	assert_int_equal(lsw_ecmp_choose(&g, &ws, tbl, 4, q, 0, 0, 5, now, &rng), 2);
	q[2] = 1;
	q[3] = 9;
	assert_int_equal(lsw_ecmp_choose(&g, &ws, tbl, 4, q, 0, 0, 5, ++now, &rng), 3);
	assert_int_equal(ws.ctr.member[3].reassign, 1);
	memset(tbl, 0, sizeof(tbl));
	g = grp(LSW_ECMP_FIXED, &ws);
	assert_int_equal(lsw_ecmp_choose(&g, &ws, tbl, 4, q, 0, 0, 6, now, &rng), 3);
	q[3] = 1;
	q[0] = 9;
	now += 1000000 * US; /* a long gap, a better member: still pinned */
	assert_int_equal(lsw_ecmp_choose(&g, &ws, tbl, 4, q, 0, 0, 6, now, &rng), 3);
	memset(tbl, 0, sizeof(tbl));
	memset(hits, 0, sizeof(hits));
	g = grp(LSW_ECMP_FLOWLET_RANDOM, &ws);
	for (int i = 0; i < 4000; i++) {
		now += 300 * US; /* every packet a new flowlet */
		hits[lsw_ecmp_choose(&g, &ws, tbl, 4, q, 0, 0, 7, now, &rng)]++;
	}
	for (int i = 0; i < 4; i++)
		assert_true(hits[i] > 800);
}

/* hash_qp separates flows that differ only in the BTH destination QP; hash does not. */
static void
test_hash_qp(void **state)
{
	struct lsw_pkt_info pi = {.flags = LSW_PF_ROCE | LSW_PF_L4, .l4_proto = 17,
				  .sport = 1000, .dport = 4791};
	uint32_t h0 = 0, seen = 0;

	(void)state;
	for (uint32_t qp = 1; qp <= 64; qp++) {
		pi.bth_dqpn = qp;
		uint32_t a = lsw_ecmp_hash_fields(1, 2, &pi, LSW_HF_DEFAULT, 7);
		uint32_t b = lsw_ecmp_hash_fields(1, 2, &pi, LSW_HF_DEFAULT | LSW_HF_ROCE_DQP, 7);
		if (qp == 1)
			h0 = a;
		assert_int_equal(a, h0);
		seen |= 1u << (((uint64_t)b * 4) >> 32);
	}
	assert_int_equal(seen, 0xf);
	/* Fields off leave the hash alone; a different seed changes it. */
	assert_int_equal(lsw_ecmp_hash_fields(1, 2, &pi, LSW_HF_SRC_IP, 7),
			 lsw_ecmp_hash_fields(1, 3, &pi, LSW_HF_SRC_IP, 7));
	assert_int_not_equal(lsw_ecmp_hash_fields(1, 2, &pi, LSW_HF_SRC_IP, 7),
			     lsw_ecmp_hash_fields(1, 2, &pi, LSW_HF_SRC_IP, 8));
}

static uint8_t buf[2048];

/* Through the forwarding path: while Ethernet4's peer pauses priority 3, no new flowlet of
 * TC 3 goes there, and TC 0 (not paused) still uses both members; an IPv6 group (@v6) as
 * an IPv4 one. */
static void
check_paused_member(bool v6)
{
	struct t_switch *t = ecmp_switch(v6 ? ECMP6_CONFIG("\"sample_interval\": 10",
							   "\"mode\": \"flowlet_quality\"") :
					 ECMP_CONFIG("\"sample_interval\": 10",
						     "\"mode\": \"flowlet_quality\""));
	uint16_t time[8] = {[3] = 0xffff};
	struct rte_ether_addr src;
	uint64_t now = 1000;

	for (int i = 0; i < 3; i++) { /* qualities published: both idle */
		lsw_ecmp_poll(&t->w, t->conf, T_PORT4, now);
		lsw_ecmp_poll(&t->w, t->conf, T_PORT8, now);
		now += 10 * US;
	}
	t_mac("02:00:00:00:04:01", &src);
	lsw_pfc_encode(buf, &src, 1 << 3, time);
	t_rx(t, T_PORT4, buf, LSW_PFC_FRAME_LEN, now);
	assert_int_equal(t->sw.dp.ecmp_sig[T_PORT4].paused, 1 << 3);
	for (int dscp = 0; dscp <= 3; dscp += 3) {
		for (uint16_t sport = 1; sport <= 64; sport++) {
			struct t_flow f = {.dst = v6 ? "2001:db8:1::9" : "10.1.0.9",
					   .src = v6 ? "2001:db8::2" : NULL, .payload = 100,
					   .vlan = -1, .sport = sport, .dport = 4791,
					   .tos = (uint8_t)(dscp << 2)};
			uint16_t len = v6 ? t_build_ipv6(buf, &f) : t_build_ipv4(buf, &f);
			t_rx(t, T_PORT0, buf, len, now);
		}
		uint16_t n4 = t_tx_count(t, T_PORT4), n8 = t_tx_count(t, T_PORT8);
		if (dscp == 3) {
			assert_int_equal(n4, 0);
			assert_int_equal(n8, 64);
		} else {
			assert_true(n4 > 10 && n8 > 10 && n4 + n8 == 64);
		}
		for (uint16_t p = T_PORT4; p <= T_PORT8; p++) {
			struct rte_mbuf *m;
			while ((m = t_tx_take(t, p)) != NULL)
				rte_pktmbuf_free(m);
		}
		now += 1000 * US; /* past the inactivity: every flow a new flowlet */
	}
	/* The group's counters: 128 packets, the paused member none of TC 3's. */
	const struct lsw_ecmp_grp_dp *g = NULL;
	for (uint32_t i = 0; i < LSW_MAX_NHG6; i++)
		if (lsw_ecmp_grp(&t->conf->ecmp, v6, i) != NULL &&
		    lsw_ecmp_grp(&t->conf->ecmp, v6, i)->mode == LSW_ECMP_FLOWLET_QUALITY)
			g = lsw_ecmp_grp(&t->conf->ecmp, v6, i);
	assert_non_null(g);
	assert_int_equal(g->ws[0].ctr.member[0].pkts + g->ws[0].ctr.member[1].pkts, 128);
	assert_true(g->ws[0].ctr.member[1].pkts > 64);
	t_switch_free(t);
}

static void
test_paused_member(void **state)
{
	(void)state;
	check_paused_member(false);
	check_paused_member(true);
}

/* Tables survive a snapshot that leaves the group's settings alone, and are replaced when
 * the mode changes. */
static void
test_tables_kept(void **state)
{
	struct t_switch *t = ecmp_switch(ECMP_CONFIG("", "\"mode\": \"flowlet_random\""));
	struct lsw_ecmp_grp_dp *g = NULL;
	uint32_t gid = 0;

	(void)state;
	for (uint32_t i = 0; i < t->conf->ecmp.n_grp; i++)
		if (t->conf->ecmp.grp[i].ws != NULL)
			gid = i;
	g = &t->conf->ecmp.grp[gid];
	assert_int_equal(g->mode, LSW_ECMP_FLOWLET_RANDOM);
	assert_int_equal(g->mask, 4095);
	struct lsw_flowlet *tbl = g->tbl[0];
	assert_non_null(tbl);
	t->sw.cfg->ecmp.w_load = 30;
	t->sw.cfg->ecmp.w_queue = 70;
	t_rebuild(t);
	assert_ptr_equal(t->conf->ecmp.grp[gid].tbl[0], tbl);
	t->sw.cfg->ecmp.grp[0].mode = LSW_ECMP_FLOWLET_QUALITY;
	t_rebuild(t);
	assert_non_null(t->conf->ecmp.grp[gid].tbl[0]);
	assert_ptr_not_equal(t->conf->ecmp.grp[gid].tbl[0], tbl);
	t->sw.cfg->ecmp.grp[0].mode = LSW_ECMP_HASH;
	t_rebuild(t);
	assert_null(t->conf->ecmp.grp[gid].tbl[0]);
	t_switch_free(t);
}

/* A group of three over Ethernet4, Ethernet8 and Ethernet12 (a failed member). */
#define ECMP3_CONFIG(mode) \
	"{\"STATIC_ROUTE\": {\"10.6.0.0/16\": {\"nexthop\": \"10.0.1.1,10.0.1.3,192.168.5.9\"}}," \
	" \"NEIGH\": {\"Ethernet12|192.168.5.9\": {\"neigh\": \"02:00:00:00:0c:01\"}}," \
	" \"ECMP\": {\"GLOBAL\": {\"sample_interval\": 10}," \
	" \"10.6.0.0/16\": {\"mode\": \"" mode "\"}}}"

/* ECMP3_CONFIG with the IPv6 twin, the mode for both. */
#define ECMP36_CONFIG(mode) \
	"{" V6_NET ", \"ECMP\": {\"GLOBAL\": {\"sample_interval\": 10}," \
	" \"2001:db8:6::/48\": {\"mode\": \"" mode "\"}}}"

/* 64 flows (UDP source ports 1..64; RoCE, QP @qp, or QP = the port when @qp is 0) to
 * 10.6.0.9, or 2001:db8:6::9 (@v6): the port each went out on, in @out[sport]. */
static void
send_flows(struct t_switch *t, bool v6, uint64_t now, uint32_t qp, uint16_t sports,
	   uint16_t *out)
{
	static const uint16_t ports[] = {T_PORT4, T_PORT8, T_PORT12};

	for (uint16_t sport = 1; sport <= 64; sport++) {
		struct t_flow f = {.dst = v6 ? "2001:db8:6::9" : "10.6.0.9", .payload = 100,
				   .vlan = -1, .sport = sports ? sports : sport, .dport = 4791,
				   .src = v6 ? "2001:db8::2" : NULL};
		uint16_t len = v6 ? t_build_ipv6(buf, &f) : t_build_ipv4(buf, &f);
		uint32_t dqpn = qp ? qp : sport;
		uint8_t *bth = buf + (v6 ? 62 : 42); /* Ethernet, IP, UDP */
		memset(bth, 0, 12);
		bth[5] = (uint8_t)(dqpn >> 16);
		bth[6] = (uint8_t)(dqpn >> 8);
		bth[7] = (uint8_t)dqpn;
		t_rx(t, T_PORT0, buf, len, now);
		out[sport] = UINT16_MAX;
		for (unsigned int i = 0; i < RTE_DIM(ports); i++) {
			struct rte_mbuf *m = t_tx_take(t, ports[i]);
			if (m == NULL)
				continue;
			assert_int_equal(out[sport], UINT16_MAX);
			out[sport] = ports[i];
			rte_pktmbuf_free(m);
		}
	}
}

/* The ECMP settings of the group that @dst takes (an IPv6 address when @v6). */
static const struct lsw_ecmp_grp_dp *
grp_of(struct t_switch *t, bool v6, const char *dst)
{
	uint8_t ip6[16];
	uint32_t v;

	if (v6) {
		t_ip6(dst, ip6);
		v = lsw_fib6_lookup(t->sw.dp.fib6, ip6);
	} else {
		assert_int_equal(rte_lpm_lookup(t->sw.dp.fib->lpm, t_ip(dst), &v), 0);
	}
	const struct lsw_ecmp_grp_dp *g = lsw_ecmp_grp(&t->conf->ecmp, v6, v);
	assert_non_null(g);
	return g;
}

/* The group over three members. */
static const struct lsw_ecmp_grp_dp *
grp3(struct t_switch *t, bool v6)
{
	return grp_of(t, v6, v6 ? "2001:db8:6::9" : "10.6.0.9");
}

static uint64_t
link_down_drops(struct t_switch *t)
{
	uint64_t n = 0;

	for (uint16_t p = 0; p < 4; p++)
		n += t_drops(t, p, LSW_DROP_L3_EGRESS_LINK_DOWN);
	return n;
}

/* An uplink fails (oper down, or admin down): no mode sends to it, nothing is dropped as
 * L3_EGRESS_LINK_DOWN; in hash modes only its flows move, and they come back when it does
 * (P3). */
static void
check_member_down(const char *mode, bool admin, bool v6)
{
	char patch[2048];
	snprintf(patch, sizeof(patch), v6 ? ECMP36_CONFIG("%s") : ECMP3_CONFIG("%s"), mode);
	struct t_switch *t = ecmp_switch(patch);
	uint16_t before[65], after[65], back[65];
	uint64_t now = 1000;
	bool sticky = strcmp(mode, "packet_random") != 0 && strcmp(mode, "packet_quality") != 0;

	for (int i = 0; i < 3; i++, now += 10 * US)
		for (uint16_t p = T_PORT4; p <= T_PORT12; p++)
			lsw_ecmp_poll(&t->w, t->conf, p, now);
	send_flows(t, v6, now, 0, 0, before);
	if (admin)
		t->sw.cfg->port[T_PORT8].admin_up = false;
	else
		t->sw.port[T_PORT8].link_down = true;
	t_rebuild(t);
	assert_true(t->conf->ecmp_down == 1u << T_PORT8);
	now += 10 * US; /* within the flowlet gap: flows stay where they were */
	send_flows(t, v6, now, 0, 0, after);
	unsigned int moved = 0, on8 = 0;
	for (int f = 1; f <= 64; f++) {
		assert_true(after[f] == T_PORT4 || after[f] == T_PORT12);
		on8 += before[f] == T_PORT8;
		if (before[f] == T_PORT8)
			moved++;
		else if (sticky)
			assert_int_equal(after[f], before[f]);
	}
	assert_true(on8 > 0 && moved == on8);
	assert_int_equal(link_down_drops(t), 0);
	/* Back up: hash flows return to where they were. */
	if (admin)
		t->sw.cfg->port[T_PORT8].admin_up = true;
	else
		t->sw.port[T_PORT8].link_down = false;
	t_rebuild(t);
	assert_int_equal(t->conf->ecmp_down, 0);
	now += 10 * US;
	send_flows(t, v6, now, 0, 0, back);
	if (strncmp(mode, "hash", 4) == 0)
		assert_memory_equal(&back[1], &before[1], 64 * sizeof(back[0]));
	unsigned int again = 0;
	now += 100000 * US; /* past every flowlet gap: new flowlets may take it again */
	for (int k = 0; k < 4 && again == 0; k++, now += 100000 * US) {
		for (uint16_t p = T_PORT4; p <= T_PORT12; p++)
			lsw_ecmp_poll(&t->w, t->conf, p, now);
		send_flows(t, v6, now, 0, 0, back);
		for (int f = 1; f <= 64; f++)
			again += back[f] == T_PORT8;
	}
	/* Modes without a preference take it again; the quality ones keep a flow on a member
	 * that is among the best (all are idle here), and fixed keeps it where it went. */
	if (!lsw_ecmp_uses_quality(grp3(t, v6)->mode))
		assert_true(again > 0);
	t_switch_free(t);
}

static void
test_member_down(void **state)
{
	static const char *const modes[] = {"hash", "hash_qp", "flowlet_random",
		"flowlet_quality", "packet_quality", "packet_random", "fixed"};

	(void)state;
	for (unsigned int i = 0; i < RTE_DIM(modes); i++)
		check_member_down(modes[i], false, false);
	check_member_down("hash", true, false);
}

/* The same for an IPv6 group, in every mode. */
static void
test_member_down6(void **state)
{
	(void)state;
	for (uint8_t m = 0; m < LSW_ECMP_N_MODES; m++)
		check_member_down(lsw_ecmp_mode_names[m], false, true);
	check_member_down("flowlet_quality", true, true);
}

/* P2 through the forwarding path: 64 RoCE flows that differ only in their destination QP
 * all take one member under hash and spread over all three under hash_qp; IPv4 and IPv6. */
static void
test_qp_flows(void **state)
{
	uint16_t out[65];

	(void)state;
	for (int k = 0; k < 4; k++) {
		bool qp_mode = k & 1, v6 = k >> 1;
		struct t_switch *t = ecmp_switch(v6 ? (qp_mode ? ECMP36_CONFIG("hash_qp") :
							ECMP36_CONFIG("hash")) :
						 (qp_mode ? ECMP3_CONFIG("hash_qp") :
							ECMP3_CONFIG("hash")));
		unsigned int used[4] = {0}, n = 0;
		send_flows(t, v6, 1000, 0, 4000, out); /* one UDP port: QPs 1..64 */
		for (int f = 1; f <= 64; f++)
			if (used[out[f]]++ == 0)
				n++;
		assert_int_equal(n, qp_mode ? 3 : 1);
		t_switch_free(t);
	}
}

/* The flow label is a hash field of IPv6 groups: with the default fields, flows that differ
 * only in it spread (the CRC of the addresses, the label, the ports and the next header, as
 * IPv6's hash always was); without it they all take one member; alone it spreads them. */
static void
test_flow_label6(void **state)
{
	static const char *const fields[] = {
		"", "\"hash_fields\": \"SRC_IP,DST_IP,L4_SRC_PORT,L4_DST_PORT,IP_PROTOCOL\"",
		"\"hash_fields\": [\"IPV6_FLOW_LABEL\"]",
	};
	struct lsw_pkt_info pi = {.flags = LSW_PF_L4, .l4_proto = 17, .sport = 7, .dport = 9};
	uint8_t addrs[32];
	uint32_t vtc = rte_cpu_to_be_32(6u << 28 | 0xabcde);

	(void)state;
	t_ip6("2001:db8::2", addrs);
	t_ip6("2001:db8:6::9", addrs + 16);
	uint32_t h = rte_hash_crc(addrs, 32, 0);
	h = rte_hash_crc_4byte(rte_cpu_to_be_32(0xabcde), h);
	h = rte_hash_crc_4byte(7u << 16 | 9, h);
	h = rte_hash_crc_4byte(17, h);
	assert_int_equal(lsw_ecmp_hash_fields6(addrs, vtc, &pi, LSW_HF_DEFAULT, 5),
			 lsw_hash_mix(h, 5));
	/* The traffic class is not the label's. */
	assert_int_equal(lsw_ecmp_hash_fields6(addrs, vtc ^ rte_cpu_to_be_32(0xff00000), &pi,
					       LSW_HF_DEFAULT, 5), lsw_hash_mix(h, 5));
	for (unsigned int k = 0; k < RTE_DIM(fields); k++) {
		char patch[2048];
		snprintf(patch, sizeof(patch), ECMP6_CONFIG("", "%s"), fields[k]);
		struct t_switch *t = ecmp_switch(patch);
		unsigned int on4 = 0, on8 = 0;
		for (uint32_t label = 1; label <= 64; label++) {
			struct t_flow f = {.src = "2001:db8::2", .dst = "2001:db8:1::9",
					   .payload = 100, .vlan = -1, .sport = 7, .dport = 9,
					   .flow_label = label * 40503u};
			t_rx(t, T_PORT0, buf, t_build_ipv6(buf, &f), 1000);
			struct rte_mbuf *m;
			while ((m = t_tx_take(t, T_PORT4)) != NULL && ++on4)
				rte_pktmbuf_free(m);
			while ((m = t_tx_take(t, T_PORT8)) != NULL && ++on8)
				rte_pktmbuf_free(m);
		}
		assert_int_equal(on4 + on8, 64);
		if (k == 1)
			assert_true(on4 == 64 || on8 == 64);
		else
			assert_true(on4 > 10 && on8 > 10);
		t_switch_free(t);
	}
}

/* The member each of 64 IPv6 flows to 2001:db8:1::9 went out on, at @now, in @out. */
static void
send_flows6(struct t_switch *t, uint64_t now, uint16_t *out)
{
	for (uint16_t sport = 1; sport <= 64; sport++) {
		struct t_flow f = {.src = "2001:db8::2", .dst = "2001:db8:1::9", .payload = 100,
				   .vlan = -1, .sport = sport, .dport = 9};
		t_rx(t, T_PORT0, buf, t_build_ipv6(buf, &f), now);
		struct rte_mbuf *m = t_tx_take(t, T_PORT4);
		out[sport] = m != NULL ? 0 : 1;
		if (m == NULL)
			m = t_tx_take(t, T_PORT8);
		assert_non_null(m);
		rte_pktmbuf_free(m);
	}
}

/* Reactive rebalance of an IPv6 group through the forwarding path: flows that never pause
 * leave a congested member one per rebalance interval, counted as REBALANCES. */
static void
test_rebalance6(void **state)
{
	struct t_switch *t = ecmp_switch(ECMP6_CONFIG("\"sample_interval\": 10",
		"\"mode\": \"flowlet_quality\", \"rebalance\": true, "
		"\"inactivity_time\": 100000, \"rebalance_interval\": 500"));
	uint16_t a[65], b[65];
	uint64_t now = 10000000;

	(void)state;
	for (int i = 0; i < 3; i++, now += 10 * US)
		for (uint16_t p = T_PORT4; p <= T_PORT8; p++)
			lsw_ecmp_poll(&t->w, t->conf, p, now);
	send_flows6(t, now, a);
	unsigned int on0 = 0;
	for (int f = 1; f <= 64; f++)
		on0 += a[f] == 0;
	assert_true(on0 > 1 && on0 < 64);
	/* Member 0 (Ethernet4) congests: a queue builds, its quality falls. */
	struct lsw_ecmp_sig *sig = &t->sw.dp.ecmp_sig[T_PORT4];
	sig->quality = 2;
	sig->queue_level = 4;
	now += 10 * US;
	send_flows6(t, now, b);
	unsigned int moved = 0;
	for (int f = 1; f <= 64; f++) {
		assert_true(b[f] == a[f] || (a[f] == 0 && b[f] == 1));
		moved += b[f] != a[f];
	}
	assert_int_equal(moved, 1);
	now += 500 * US; /* the next interval: one more */
	send_flows6(t, now, a);
	moved = 0;
	for (int f = 1; f <= 64; f++)
		moved += b[f] != a[f];
	assert_int_equal(moved, 1);
	const struct lsw_ecmp_grp_dp *g = grp_of(t, true, "2001:db8:1::9");
	assert_int_equal(g->ws[0].ctr.member[1].rebalance, 2);
	assert_int_equal(g->ws[0].ctr.member[0].pkts + g->ws[0].ctr.member[1].pkts, 192);
	t_switch_free(t);
}

/* The group @prefix in ecmp.groups's or ecmp.stats's @res, or NULL. */
static json_t *
group_of(json_t *res, const char *prefix)
{
	json_t *g;
	size_t i;

	json_array_foreach(json_object_get(res, "groups"), i, g)
		if (strcmp(json_string_value(json_object_get(g, "prefix")), prefix) == 0)
			return g;
	return NULL;
}

/* ecmp.groups lists both families; an ECMP|<IPv6 prefix> entry changes its group's mode
 * live through config.set; a bad one is refused by its path and changes nothing; the
 * group's counters add up to the packets it forwarded, in ecmp.stats by its prefix. */
static void
test_groups6(void **state)
{
	struct t_switch *t = ecmp_switch(ECMP36_CONFIG("flowlet_random"));
	json_t *resp, *res, *g;
	uint16_t out[65];

	(void)state;
	res = t_rpc_ok(t, "ecmp.groups", NULL, &resp);
	g = group_of(res, "10.1.0.0/16");
	assert_non_null(g);
	assert_string_equal(json_string_value(json_object_get(g, "family")), "IPv4");
	assert_int_equal(json_array_size(json_object_get(g, "hash_fields")), 5);
	g = group_of(res, "2001:db8:6::/48");
	assert_non_null(g);
	assert_string_equal(json_string_value(json_object_get(g, "family")), "IPv6");
	assert_string_equal(json_string_value(json_object_get(g, "mode")), "flowlet_random");
	assert_string_equal(json_string_value(json_array_get(json_object_get(g, "hash_fields"),
							     5)), "IPV6_FLOW_LABEL");
	json_t *ms = json_object_get(g, "members");
	assert_int_equal(json_array_size(ms), 3);
	assert_string_equal(json_string_value(json_object_get(json_array_get(ms, 2), "ip")),
			    "2001:db8:12::9");
	assert_string_equal(json_string_value(json_object_get(json_array_get(ms, 2), "port")),
			    "Ethernet12");
	json_decref(resp);

	send_flows(t, true, 1000, 0, 0, out);
	res = t_rpc_ok(t, "ecmp.stats", "{\"prefix\": \"2001:db8:6:0::/48\"}", &resp);
	assert_int_equal(json_array_size(json_object_get(res, "groups")), 1);
	json_int_t pkts = 0, flowlets = 0;
	size_t i;
	json_array_foreach(json_object_get(group_of(res, "2001:db8:6::/48"), "members"), i, g) {
		pkts += json_integer_value(json_object_get(g, "PACKETS"));
		flowlets += json_integer_value(json_object_get(g, "FLOWLETS"));
	}
	assert_int_equal(pkts, 64);
	/* A flowlet per table entry: two of 64 flows may share one of the 4096. */
	assert_true(flowlets >= 60 && flowlets <= 64);
	json_decref(resp);

	/* Live: the mode of the IPv6 group, through config.set. */
	res = t_rpc_ok(t, "config.set", "{\"config\": {\"ECMP\": {\"2001:db8:6::/48\": "
		       "{\"mode\": \"packet_quality\", \"hash_fields\": \"SRC_IP\"}}}}", &resp);
	json_decref(resp);
	assert_int_equal(grp3(t, true)->mode, LSW_ECMP_PACKET_QUALITY);
	assert_int_equal(grp3(t, true)->fields, LSW_HF_SRC_IP);
	assert_int_equal(grp_of(t, false, "10.1.0.9")->mode, LSW_ECMP_HASH); /* GLOBAL's */
	res = t_rpc_ok(t, "ecmp.groups", NULL, &resp);
	assert_string_equal(json_string_value(json_object_get(group_of(res, "2001:db8:6::/48"),
							      "mode")), "packet_quality");
	json_decref(resp);
	/* Refused by path, nothing changed. */
	resp = t_rpc(t, "config.set", "{\"config\": {\"ECMP\": {\"2001:db8:6::/48\": "
		     "{\"mode\": \"fixed\", \"rebalance\": true}}}}");
	assert_string_equal(t_error_path(resp), "$.ECMP['2001:db8:6::/48'].rebalance");
	json_decref(resp);
	assert_int_equal(grp3(t, true)->mode, LSW_ECMP_PACKET_QUALITY);
	/* ecmp.stats by a prefix with no group. */
	resp = t_rpc(t, "ecmp.stats", "{\"prefix\": \"2001:db8:7::/48\"}");
	assert_string_equal(t_error_path(resp), "$.params.prefix");
	json_decref(resp);
	/* The group goes (route.add leaves its route one next hop): its ECMP entry goes with
	 * it, as an IPv4 route's does. */
	res = t_rpc_ok(t, "route.add", "{\"prefix\": \"2001:db8:6::/48\", \"replace\": true,"
		       " \"nexthop\": \"2001:db8:4::1\"}", &resp);
	json_decref(resp);
	res = t_rpc_ok(t, "ecmp.groups", NULL, &resp);
	assert_null(group_of(res, "2001:db8:6::/48"));
	assert_non_null(group_of(res, "10.1.0.0/16"));
	json_decref(resp);
	/* Back to a group with an entry of its own; route.del takes both. */
	res = t_rpc_ok(t, "route.add", "{\"prefix\": \"2001:db8:6::/48\", \"replace\": true,"
		       " \"nexthop\": \"2001:db8:4::1,2001:db8:8::1\"}", &resp);
	json_decref(resp);
	res = t_rpc_ok(t, "config.set", "{\"config\": {\"ECMP\": {\"2001:db8:6::/48\": "
		       "{\"mode\": \"fixed\"}}}}", &resp);
	json_decref(resp);
	assert_int_equal(grp3(t, true)->mode, LSW_ECMP_FIXED);
	res = t_rpc_ok(t, "route.del", "{\"prefix\": \"2001:db8:6::/48\"}", &resp);
	json_decref(resp);
	res = t_rpc_ok(t, "ecmp.groups", NULL, &resp);
	assert_null(group_of(res, "2001:db8:6::/48"));
	json_decref(resp);
	t_switch_free(t);
}

static const char *const bads[][3] = {
	{"{\"ECMP\": {\"GLOBAL\": {\"mode\": \"ecmp\"}}}", "$.ECMP.GLOBAL.mode", "one of"},
	{"{\"ECMP\": {\"GLOBAL\": {\"load_weight\": 60}}}", "$.ECMP.GLOBAL.load_weight",
	 "add up to 100"},
	{"{\"ECMP\": {\"GLOBAL\": {\"load_min_threshold\": 80, \"load_max_threshold\": 20}}}",
	 "$.ECMP.GLOBAL.load_max_threshold", "not above"},
	{"{\"ECMP\": {\"GLOBAL\": {\"queue_min_threshold\": \"1MB\"}}}",
	 "$.ECMP.GLOBAL.queue_max_threshold", "not above"},
	{"{\"ECMP\": {\"GLOBAL\": {\"flowlet_table_size\": 1000}}}",
	 "$.ECMP.GLOBAL.flowlet_table_size", "power of two"},
	{"{\"ECMP\": {\"GLOBAL\": {\"ewma_exponent\": 11}}}", "$.ECMP.GLOBAL.ewma_exponent",
	 "range"},
	{"{\"ECMP\": {\"GLOBAL\": {\"inactivity_time\": 0}}}", "$.ECMP.GLOBAL.inactivity_time",
	 "range"},
	{"{\"ECMP\": {\"GLOBAL\": {\"hash_fields\": \"SRC_IP,VLAN\"}}}",
	 "$.ECMP.GLOBAL.hash_fields[1]", "one of"},
	{"{\"ECMP\": {\"GLOBAL\": {\"hash_fields\": []}}}", "$.ECMP.GLOBAL.hash_fields",
	 "non-empty"},
	{"{\"ECMP\": {\"GLOBAL\": {\"rebalance\": true}}}", "$.ECMP.GLOBAL.rebalance",
	 "flowlet_quality only"},
	{"{\"ECMP\": {\"GLOBAL\": {\"rebalance_margin\": 8}}}", "$.ECMP.GLOBAL.rebalance_margin",
	 "range"},
	{"{\"ECMP\": {\"GLOBAL\": {\"flowlets\": 1}}}", "$.ECMP.GLOBAL.flowlets", "unknown"},
	{"{\"ECMP\": {\"10.2.0.0/16\": {\"mode\": \"hash\"}}}", "$.ECMP['10.2.0.0/16']",
	 "two or more next hops"},
	{"{\"ECMP\": {\"10.9.0.0/16\": {\"mode\": \"hash\"}}}", "$.ECMP['10.9.0.0/16']",
	 "no STATIC_ROUTE"},
	{"{\"ECMP\": {\"uplinks\": {\"mode\": \"hash\"}}}", "$.ECMP.uplinks", "GLOBAL or"},
	{"{\"ECMP\": {\"10.1.0.0/16\": {\"sample_interval\": 5}}}",
	 "$.ECMP['10.1.0.0/16'].sample_interval", "ECMP.GLOBAL"},
	{"{\"ECMP\": {\"10.1.0.0/16\": {\"mode\": \"packet_random\", \"rebalance\": true}}}",
	 "$.ECMP['10.1.0.0/16'].rebalance", "flowlet_quality only"},
	{"{\"ECMP\": {\"10.1.0.0/16\": {}, \"default|10.1.0.0/16\": {}}}",
	 "$.ECMP['default|10.1.0.0/16']", "twice"},
	/* IPv6 entries, against V6_NET */
	{"{" V6_NET ", \"ECMP\": {\"2001:db8:9::/48\": {\"mode\": \"hash\"}}}",
	 "$.ECMP['2001:db8:9::/48']", "no STATIC_ROUTE"},
	{"{" V6_NET ", \"ECMP\": {\"2001:db8:1::/64\": {\"mode\": \"hash\"}}}",
	 "$.ECMP['2001:db8:1::/64']", "no STATIC_ROUTE"},
	{"{" V6_NET ", \"STATIC_ROUTE\": {\"2001:db8:2::/48\": {\"nexthop\": \"2001:db8:4::1\"}},"
	 " \"ECMP\": {\"2001:db8:2::/48\": {}}}", "$.ECMP['2001:db8:2::/48']",
	 "two or more next hops"},
	{"{" V6_NET ", \"ECMP\": {\"2001:db8:1::/48\": {}, \"default|2001:db8:1:0::/48\": {}}}",
	 "$.ECMP['default|2001:db8:1:0::/48']", "twice"},
	{"{" V6_NET ", \"ECMP\": {\"2001:db8:1::/48\": {\"mode\": \"spray\"}}}",
	 "$.ECMP['2001:db8:1::/48'].mode", "one of"},
	{"{" V6_NET ", \"ECMP\": {\"2001:db8:1::/48\": {\"hash_fields\": \"FLOW_LABEL\"}}}",
	 "$.ECMP['2001:db8:1::/48'].hash_fields[0]", "one of"},
	{"{" V6_NET ", \"ECMP\": {\"2001:db8:1::/48\": {\"mode\": \"hash\", "
	 "\"rebalance\": true}}}", "$.ECMP['2001:db8:1::/48'].rebalance", "flowlet_quality only"},
	{"{" V6_NET ", \"ECMP\": {\"2001:db8:1::/48\": {\"flowlet_table_size\": 100}}}",
	 "$.ECMP['2001:db8:1::/48'].flowlet_table_size", "power of two"},
	{"{" V6_NET ", \"ECMP\": {\"2001:db8:1::/48\": {\"load_weight\": 10}}}",
	 "$.ECMP['2001:db8:1::/48'].load_weight", "ECMP.GLOBAL"},
	{"{\"ECMP\": {\"2001:db8::/481\": {}}}", "$.ECMP['2001:db8::/481']", "GLOBAL or"},
};

static void
test_bad(void **state)
{
	(void)state;
	t_config_refused(T_CONFIG, bads, RTE_DIM(bads));
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_quality),
		cmocka_unit_test(test_ewma),
		cmocka_unit_test(test_best),
		cmocka_unit_test(test_flowlet),
		cmocka_unit_test(test_rebalance),
		cmocka_unit_test(test_modes),
		cmocka_unit_test(test_hash_qp),
		cmocka_unit_test(test_paused_member),
		cmocka_unit_test(test_tables_kept),
		cmocka_unit_test(test_member_down),
		cmocka_unit_test(test_qp_flows),
		cmocka_unit_test(test_member_down6),
		cmocka_unit_test(test_flow_label6),
		cmocka_unit_test(test_rebalance6),
		cmocka_unit_test(test_groups6),
		cmocka_unit_test(test_bad),
	};

	t_eal_init();
	return cmocka_run_group_tests(tests, NULL, NULL);
}
