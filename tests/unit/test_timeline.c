/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The timeline recorder on a fake clock: samples at the interval (late intervals skipped
 * and counted, never doubled), what a sample holds (queue occupancy, what was sent in the
 * interval, PG shared and headroom, pause bits), PFC frames sent as events with their
 * time, a full ring counted and marked by a LOST record, and a run stopped at its size.
 */
#include <string.h>
#include <rte_ip.h>
#include "harness.h"

/* Ethernet0 receives lossless traffic (DSCP 3, PG 3: 8 KB shared, 16 KB headroom) for
 * Ethernet4, which the test drains when it wants. */
#define CONFIG \
	"{\"DEVICE_METADATA\": {\"localhost\": {\"mac\": \"02:00:00:00:00:01\"}}," \
	" \"LSW\": {\"global\": {\"workers\": [1], \"mbufs\": 200000}}," \
	" \"PORT\": {\"Ethernet0\": {\"speed\": \"100000\"}," \
	" \"Ethernet4\": {\"speed\": \"10000\"}}," \
	" \"LSW_PORT\": {\"Ethernet0\": {\"devargs\": \"net_null0\", \"pfc_quanta\": 4096}," \
	"   \"Ethernet4\": {\"devargs\": \"net_null1\"}}," \
	" \"INTERFACE\": {\"Ethernet0|10.0.0.0/31\": {}, \"Ethernet4|10.0.1.0/31\": {}}," \
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
	" \"PORT_QOS_MAP\": {\"Ethernet0,Ethernet4\": {\"pfc_enable\": \"3\"}}}"

#define US 1000ull /* fake ticks (ns) per microsecond */

static uint8_t buf[2048];

static uint16_t
lossless_frame(void)
{
	struct t_flow f = {.dst = "10.2.0.1", .payload = 1000, .vlan = -1};
	uint16_t len = t_build_ipv4(buf, &f);
	struct rte_ipv4_hdr *ip = (struct rte_ipv4_hdr *)(buf + 14);

	ip->type_of_service = 3 << 2;
	ip->hdr_checksum = 0;
	ip->hdr_checksum = rte_ipv4_cksum(ip);
	return len;
}

static void
start(struct t_switch *t, const char *params)
{
	json_t *resp;

	t_rpc_ok(t, "timeline.start", params, &resp);
	json_decref(resp);
}

/* The records of the memory window, oldest first, after a drain. */
static size_t
records(struct t_switch *t, const struct lsw_tl_rec **r)
{
	lsw_timeline_drain(&t->sw);
	assert_true(t->sw.tl.mem_n < t->sw.tl.mem_cap); /* no wrap in these tests */
	*r = t->sw.tl.mem;
	return t->sw.tl.mem_n;
}

static size_t
count(const struct lsw_tl_rec *r, size_t n, uint8_t kind, uint8_t port, uint8_t idx)
{
	size_t c = 0;

	for (size_t i = 0; i < n; i++)
		c += r[i].kind == kind && r[i].port == port && r[i].idx == idx;
	return c;
}

static void
test_interval(void **state)
{
	struct t_switch *t = t_switch_new(CONFIG);
	const struct lsw_tl_rec *r;

	(void)state;
	start(t, "{\"interval_us\": 100, \"record\": [\"ports\"], \"ports\": [\"Ethernet4\"]}");
	/* Polled every 10 us for 10 ms: a sample at the start, then one per 100 us. */
	for (uint64_t now = 1000 * US; now < 11000 * US; now += 10 * US)
		lsw_timeline_poll(&t->w, t->conf, now);
	size_t n = records(t, &r);
	size_t ports = count(r, n, LSW_TL_PORT, 1, LSW_TL_NONE);
	assert_int_equal(ports, 100);
	assert_int_equal(count(r, n, LSW_TL_PORT, 0, LSW_TL_NONE), 0); /* not chosen */
	/* Exactly 100 us apart on the wall clock too (the fake TSC runs at T_HZ). */
	uint64_t prev = 0;
	for (size_t i = 0; i < n; i++) {
		if (r[i].kind != LSW_TL_PORT)
			continue;
		if (prev != 0)
			assert_int_equal(r[i].t - prev, 100 * US);
		prev = r[i].t;
	}
	/* A worker back 1 ms late skips the intervals it missed, and counts them. */
	uint64_t skipped = t_event(t, LSW_EV_TIMELINE_SKIPPED);
	lsw_timeline_poll(&t->w, t->conf, 12050 * US);
	lsw_timeline_poll(&t->w, t->conf, 12099 * US);
	lsw_timeline_poll(&t->w, t->conf, 12100 * US);
	n = records(t, &r);
	assert_int_equal(count(r, n, LSW_TL_PORT, 1, LSW_TL_NONE), ports + 2);
	assert_int_equal(t_event(t, LSW_EV_TIMELINE_SKIPPED) - skipped, 10);
	t_switch_free(t);
}

static void
test_contents(void **state)
{
	struct t_switch *t = t_switch_new(CONFIG);
	const struct lsw_tl_rec *r;
	uint64_t now = 1000 * US;
	uint16_t len = lossless_frame();

	(void)state;
	assert_int_equal(t_start_ports(t), 0); /* net_null: Ethernet4 sends for real */
	start(t, "{\"interval_us\": 100}");
	lsw_timeline_poll(&t->w, t->conf, now);
	/* Until PG 3 of Ethernet0 is past its XOFF point, Ethernet4 not drained. */
	unsigned int in = 0;
	while (!(t->sw.dp.sched[0]->pfc.tx_xoff_pg >> 3 & 1)) {
		assert_true(in < 100);
		t_rx(t, 0, buf, len, now);
		lsw_pfc_poll(&t->w, t->conf, 0, now);
		in++;
	}
	struct rte_mbuf *m = lsw_pfc_take_frame(&t->w, t->conf, 0, now + 5);
	assert_non_null(m);
	rte_pktmbuf_free(m);
	t_rx(t, 0, buf, len, now + 10); /* into the headroom */
	in++;
	now += 100 * US;
	lsw_timeline_poll(&t->w, t->conf, now);
	size_t n = records(t, &r);

	/* The first sample's time is the run's zero: the XOFF came 5 ns after it, with the
	 * port's quanta. */
	uint64_t t0 = UINT64_MAX;
	for (size_t i = 0; i < n; i++)
		t0 = RTE_MIN(t0, r[i].kind == LSW_TL_PORT ? r[i].t : UINT64_MAX);
	size_t pfc = 0;
	for (size_t i = 0; i < n; i++)
		if (r[i].kind == LSW_TL_PFC_TX) {
			assert_int_equal(r[i].port, 0);
			assert_int_equal(r[i].idx, 3);
			assert_int_equal(r[i].v0, 4096);
			assert_int_equal(r[i].t - t0, 5);
			pfc++;
		}
	assert_int_equal(pfc, 1);
	/* The second sample: Ethernet4's queue 3 holds every frame (none was sent),
	 * Ethernet0's PG 3 its shared part full and the rest in headroom, and Ethernet0
	 * pauses its peer on priority 3. */
	const struct lsw_tl_rec *q = NULL, *pg = NULL, *p0 = NULL;
	uint64_t pools = 0;
	for (size_t i = 0; i < n; i++) {
		if (r[i].t != t0 + 100 * US)
			continue;
		if (r[i].kind == LSW_TL_QUEUE && r[i].port == 1 && r[i].idx == 3)
			q = &r[i];
		if (r[i].kind == LSW_TL_PG && r[i].port == 0 && r[i].idx == 3)
			pg = &r[i];
		if (r[i].kind == LSW_TL_PORT && r[i].port == 0)
			p0 = &r[i];
		if (r[i].kind == LSW_TL_POOL)
			pools |= 1ull << r[i].idx;
	}
	assert_non_null(q);
	assert_non_null(pg);
	assert_non_null(p0);
	assert_int_equal(pools, (1ull << t->conf->buffer.n_pools) - 1);
	assert_int_equal(q->v0, in);
	assert_int_equal(q->v[0], (uint64_t)in * len);
	assert_int_equal(q->v[1], 0); /* nothing sent */
	assert_int_equal(pg->v0, in);
	/* Shared up to its 8 KB threshold (in whole frames), then the headroom. */
	assert_true(pg->v[1] <= 8192 && pg->v[1] + 2 * len > 8192);
	assert_true(pg->v[2] > 0);
	assert_int_equal(p0->v[1], in); /* received in the interval */
	assert_int_equal(p0->v[5], 1u << 3); /* pausing its peer */
	assert_int_equal(p0->v[4], 0);

	/* Ethernet4 sends what its shaper allows: the next sample says how much, and what
	 * is left. */
	uint32_t sent = lsw_egress_run(&t->w, t->conf, 1, now);
	assert_true(sent > 0 && sent <= in);
	now += 100 * US;
	lsw_timeline_poll(&t->w, t->conf, now);
	n = records(t, &r);
	q = NULL;
	for (size_t i = 0; i < n; i++)
		if (r[i].t == t0 + 200 * US && r[i].kind == LSW_TL_QUEUE && r[i].port == 1 &&
		    r[i].idx == 3)
			q = &r[i];
	assert_non_null(q);
	assert_int_equal(q->v0, in - sent);
	assert_int_equal(q->v[1], sent);
	assert_int_equal(q->v[2], (uint64_t)sent * len);
	t_switch_free(t);
}

static void
test_lost_and_size(void **state)
{
	struct t_switch *t = t_switch_new(CONFIG);
	const struct lsw_tl_rec *r;
	uint64_t now = 1000 * US;

	(void)state;
	/* The first sample is 9 records (8 queues and the port); then the queues, idle, are
	 * left out and each sample is the port's record. Never drained: the ring fills. */
	start(t, "{\"interval_us\": 10, \"record\": [\"queues\", \"ports\"], "
	      "\"ports\": [\"Ethernet0\"], \"max_bytes\": \"16M\"}");
	lsw_timeline_poll(&t->w, t->conf, now);
	assert_int_equal(t_event(t, LSW_EV_TIMELINE_RECORDS), 9);
	unsigned int samples = LSW_TL_RING + 10;
	for (unsigned int i = 1; i < samples; i++) {
		now += 10 * US;
		lsw_timeline_poll(&t->w, t->conf, now);
	}
	uint64_t lost = t_event(t, LSW_EV_TIMELINE_LOST);
	assert_int_equal(lost, 9 + (uint64_t)(samples - 1) - LSW_TL_RING); /* RING_F_EXACT_SZ */
	size_t n = records(t, &r);
	assert_int_equal(count(r, n, LSW_TL_LOST, LSW_TL_NONE, 0), 1);
	for (size_t i = 0; i < n; i++)
		if (r[i].kind == LSW_TL_LOST)
			assert_int_equal(r[i].v[0], lost);
	assert_int_equal(t->sw.tl.lost, lost);
	/* Nothing more lost once drained. */
	lsw_timeline_poll(&t->w, t->conf, now);
	lsw_timeline_drain(&t->sw);
	assert_int_equal(t_event(t, LSW_EV_TIMELINE_LOST), lost);
	json_t *resp = t_rpc(t, "timeline.stop", NULL);
	json_decref(resp);

	/* A file of 100 records' size: the run stops itself there, by its own account. */
	char path[] = "/tmp/lsw-test-timeline-XXXXXX";
	int fd = mkstemp(path);
	assert_true(fd >= 0);
	close(fd);
	char params[256];
	snprintf(params, sizeof(params), "{\"file\": \"%s\", \"max_bytes\": %zu}", path,
		 100 * sizeof(struct lsw_tl_rec));
	start(t, params);
	for (int i = 0; i < 60; i++, now += 100 * US)
		lsw_timeline_poll(&t->w, t->conf, now);
	lsw_timeline_drain(&t->sw);
	assert_false(t->sw.tl.running);
	assert_string_equal(t->sw.tl.stop_reason, "size");
	assert_int_equal(t->sw.tl.records, 100);
	FILE *f = fopen(path, "rb");
	char line[16];
	assert_non_null(fgets(line, sizeof(line), f));
	assert_string_equal(line, "LSWTIMELINE 1\n");
	assert_int_equal(fseek(f, 0, SEEK_END), 0);
	long size = ftell(f);
	fclose(f);
	assert_int_equal((size_t)size, strlen(t->sw.tl.header) + 100 * sizeof(struct lsw_tl_rec));
	unlink(path);
	t_switch_free(t);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_interval),
		cmocka_unit_test(test_contents),
		cmocka_unit_test(test_lost_and_size),
	};

	t_eal_init();
	return cmocka_run_group_tests(tests, NULL, NULL);
}
