/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Drop snapshots: what a worker records (port, reason, where the packet arrived and was
 * going, its queue, its first bytes, the RoCE BTH), the bounded store keeping the newest
 * oldest-first as it wraps, a full worker ring counted as missed, filters off, clear.
 */
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <rte_cycles.h>
#include "harness.h"
#include "lsw/dropsnap.h"

static uint8_t buf[2048];

static void
drain(struct t_switch *t)
{
	lsw_dropsnap_poll(&t->sw);
}

static void
test_capture_and_wrap(void **state)
{
	struct t_switch *t = t_switch_new(T_CONFIG);
	struct t_flow miss = {.dst = "192.0.2.1", .payload = 200, .vlan = -1};
	uint64_t seq;

	(void)state;
	t->sw.cfg->g.drop_snapshots = 8;
	assert_int_equal(lsw_dropsnap_init(&t->sw), 0);
	/* 20 LPM misses on Ethernet0: the store keeps the last 8, oldest first. */
	for (int i = 0; i < 20; i++) {
		miss.sport = (uint16_t)i;
		t_rx(t, T_PORT0, buf, t_build_ipv4(buf, &miss), 1000);
	}
	drain(t);
	for (uint32_t i = 0; i < 8; i++) {
		const struct lsw_dropsnap *s = lsw_dropsnap_get(&t->sw, i, &seq);
		assert_non_null(s);
		assert_int_equal(seq, 13 + i);
		assert_int_equal(s->kind, LSW_DROPSNAP_DROP);
		assert_int_equal(s->reason, LSW_DROP_LPM4_MISS);
		assert_int_equal(s->port, T_PORT0);
		assert_int_equal(s->rx_port_id, t->sw.port[T_PORT0].port_id);
		assert_int_equal(s->out_port, LSW_DROPSNAP_NONE); /* never routed */
		assert_int_equal(s->queue, LSW_DROPSNAP_NONE);
		assert_int_equal(s->len, 14 + 20 + 8 + 200);
		assert_int_equal(s->caplen, LSW_DROPSNAP_BYTES);
		assert_int_equal(s->data[14 + 20 + 1], 12 + i); /* UDP source port, low byte */
	}
	assert_null(lsw_dropsnap_get(&t->sw, 8, &seq));

	/* A routed drop knows its way: TTL 1 towards Ethernet4, DSCP 0 (queue 1); RoCE. */
	struct t_flow ttl = {.dst = "10.2.0.1", .payload = 40, .vlan = -1, .ttl = 1,
			     .dport = 4791, .sport = 7};
	uint16_t len = t_build_ipv4(buf, &ttl);
	buf[14 + 20 + 8] = 0x0a;                                 /* BTH: RDMA WRITE ONLY */
	buf[14 + 20 + 8 + 5] = 0x01, buf[14 + 20 + 8 + 6] = 0, buf[14 + 20 + 8 + 7] = 0x23;
	buf[14 + 20 + 8 + 9] = 0, buf[14 + 20 + 8 + 10] = 0, buf[14 + 20 + 8 + 11] = 0x42; /* PSN */
	t_rx(t, T_PORT0, buf, len, 1000);
	drain(t);
	const struct lsw_dropsnap *s = lsw_dropsnap_get(&t->sw, 7, &seq);
	assert_int_equal(seq, 21);
	assert_int_equal(s->reason, LSW_DROP_TTL);
	assert_int_equal(s->out_port, T_PORT4);
	assert_int_equal(s->queue, 1);
	assert_int_equal(s->caplen, len);
	struct lsw_dropsnap_bth r;
	assert_true(lsw_dropsnap_roce(s, &r));
	assert_int_equal(r.opcode, 0x0a);
	assert_int_equal(r.dqpn, 0x010023);
	assert_int_equal(r.psn, 0x42);
	assert_false(lsw_dropsnap_roce(lsw_dropsnap_get(&t->sw, 0, &seq), &r)); /* plain UDP */

	/* A full worker ring costs a counter, never a wait. */
	for (int i = 0; i < LSW_DROPSNAP_RING + 6; i++)
		t_rx(t, T_PORT0, buf, t_build_ipv4(buf, &miss), 1000);
	assert_int_equal(t_event(t, LSW_EV_SNAPSHOT_MISSED), 6);
	drain(t);
	assert_non_null(lsw_dropsnap_get(&t->sw, 7, &seq));
	assert_int_equal(seq, 21 + LSW_DROPSNAP_RING);
	lsw_dropsnap_clear(&t->sw);
	assert_null(lsw_dropsnap_get(&t->sw, 0, &seq));

	/* Off: nothing is taken. */
	__atomic_store_n(&t->sw.dp.dropsnap_mode, 0, __ATOMIC_RELAXED);
	t_rx(t, T_PORT0, buf, t_build_ipv4(buf, &miss), 1000);
	drain(t);
	assert_null(lsw_dropsnap_get(&t->sw, 0, &seq));
	assert_int_equal(t_drops(t, T_PORT0, LSW_DROP_LPM4_MISS), 20 + LSW_DROPSNAP_RING + 6 + 1);
	lsw_dropsnap_free(&t->sw);
	t_switch_free(t);
}

static uint64_t
realtime_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* A snapshot's time_ns (drops.list) is the wall clock when the drop happened: within a
 * second of it, also after a resize of the store (which once reset the clock's anchor and
 * dated every drop to the machine's boot, in 1970), and after re-anchoring. */
static void
test_wall_clock(void **state)
{
	struct t_switch *t = t_switch_new(T_CONFIG);
	struct t_flow miss = {.dst = "192.0.2.1", .payload = 20, .vlan = -1};
	json_t *resp;

	(void)state;
	/* Snapshots carry the real TSC (the harness's own clock is fake). */
	lsw_clock_anchor(&t->sw.clock, rte_get_tsc_hz());
	t->sw.cfg->g.drop_snapshots = 8;
	assert_int_equal(lsw_dropsnap_init(&t->sw), 0);
	for (int i = 0; i < 3; i++) {
		if (i == 1) { /* a resize through config.set */
			t_rpc_ok(t, "config.set",
				 "{\"config\": {\"LSW\": {\"global\": {\"drop_snapshots\": 16}}}}",
				 &resp);
			json_decref(resp);
		}
		if (i == 2) {
			usleep(200000);
			lsw_clock_anchor(&t->sw.clock, rte_get_tsc_hz());
		}
		uint64_t before = realtime_ns();
		t_rx(t, T_PORT0, buf, t_build_ipv4(buf, &miss), 1000);
		uint64_t after = realtime_ns();
		json_t *r = t_rpc_ok(t, "drops.list", NULL, &resp);
		json_t *snaps = json_object_get(r, "snapshots");
		json_t *last = json_array_get(snaps, json_array_size(snaps) - 1);
		uint64_t ns = (uint64_t)json_integer_value(json_object_get(last, "time_ns"));
		assert_true(ns + 1000000000u >= before);
		assert_true(ns <= after + 1000000000u);
		json_decref(resp);
	}
	lsw_dropsnap_free(&t->sw);
	t_switch_free(t);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_capture_and_wrap),
		cmocka_unit_test(test_wall_clock),
	};
	t_eal_init();
	return cmocka_run_group_tests(tests, NULL, NULL);
}
