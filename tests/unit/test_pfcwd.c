/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The watchdog's timing on a fake clock (buffers.md T7): poll 100 ms, detection 200 ms,
 * restoration 400 ms. A continuous storm triggers after >= D and <= D + P; one shorter
 * than D never does; restore comes R to R + P after the last XOFF; an XON-only storm
 * restores (sonic-swss#4581); detected/restored move by exactly one per storm.
 */
#include "harness.h"
#include "pfcwd.h"

#define MS 1000000ull
#define P (100 * MS)
#define D (200 * MS)
#define R (400 * MS)
#define STEP (1 * MS) /* the simulated link advances in 1 ms steps */

/* A queue behind a peer: it holds data; the peer pauses it in [pause_from, pause_to) by
 * refreshed XOFFs; while not paused it sends. */
struct sim {
	struct lsw_wd_queue q;
	struct lsw_wd_sample s;
	uint64_t now, pause_from, pause_to;
	uint64_t storm_at, restore_at;
	int storms, restores;
};

static void
run(struct sim *x, uint64_t until)
{
	for (; x->now < until; x->now += STEP) {
		bool paused = x->now >= x->pause_from && x->now < x->pause_to;
		x->s.paused = paused;
		if (paused)
			x->s.pause_ns += STEP;
		else
			x->s.tx_pkts += 10;
		x->s.occupancy = 4096;
		if ((x->now % P) == 0) {
			enum lsw_wd_event e = lsw_pfcwd_step(&x->q, &x->s, x->now, D, R, false);
			if (e == LSW_WD_STORM) {
				x->storms++;
				x->storm_at = x->now;
			} else if (e == LSW_WD_RESTORE) {
				x->restores++;
				x->restore_at = x->now;
			}
		}
	}
}

static void
test_detect_and_restore(void **state)
{
	(void)state;
	/* Storms starting at several phases of the poll. */
	for (uint64_t start = 1000 * MS; start < 1100 * MS; start += 7 * MS) {
		struct sim x = {.now = 0, .pause_from = start, .pause_to = start + 2000 * MS};
		run(&x, 5000 * MS);
		assert_int_equal(x.storms, 1);
		assert_true(x.storm_at >= start + D && x.storm_at <= start + D + P);
		assert_int_equal(x.restores, 1);
		assert_true(x.restore_at >= x.pause_to + R && x.restore_at <= x.pause_to + R + P);
		assert_int_equal(x.q.detected, 1);
		assert_int_equal(x.q.restored, 1);
	}
}

static void
test_short_storm(void **state)
{
	(void)state;
	/* Shorter than D, at every phase: never a storm. */
	for (uint64_t start = 1000 * MS; start < 1100 * MS; start += 7 * MS) {
		struct sim x = {.pause_from = start, .pause_to = start + D - 1 * MS};
		run(&x, 3000 * MS);
		assert_int_equal(x.storms, 0);
	}
	/* An empty queue is not stormed, however long it is paused. */
	struct lsw_wd_queue q = {0};
	struct lsw_wd_sample s = {.paused = true};
	for (uint64_t t = 0; t < 2000 * MS; t += P) {
		s.pause_ns = t;
		assert_int_equal(lsw_pfcwd_step(&q, &s, t, D, R, false), LSW_WD_NONE);
	}
}

static void
test_xon_storm_restores(void **state)
{
	struct sim x = {.pause_from = 1000 * MS, .pause_to = 2000 * MS};

	(void)state;
	run(&x, 2500 * MS);
	assert_int_equal(x.storms, 1);
	/* Now the peer sends nothing but XON frames: no pause time, the queue restores. */
	run(&x, 4000 * MS);
	assert_int_equal(x.restores, 1);
	/* Restoration 0: stormed until the operator says otherwise. */
	struct lsw_wd_queue q = {.state = LSW_WD_STORMED, .primed = true};
	struct lsw_wd_sample s = {0};
	for (uint64_t t = 0; t < 10000 * MS; t += P)
		assert_int_equal(lsw_pfcwd_step(&q, &s, t, D, 0, false), LSW_WD_NONE);
}

/* Alert: restore on the first poll without the storm condition, restoration_time or not
 * (SONiC's detect script), so the next storm is detected and counted again. */
static void
test_alert_restores_with_the_storm(void **state)
{
	struct lsw_wd_queue q = {.state = LSW_WD_STORMED, .primed = true, .last_ns = 0};
	struct lsw_wd_sample s = {.occupancy = 4096, .paused = true};

	(void)state;
	s.pause_ns = P;
	assert_int_equal(lsw_pfcwd_step(&q, &s, P, D, 0, true), LSW_WD_NONE); /* still storm */
	s.tx_pkts = 5; /* the pause ended, the queue sent */
	s.paused = false;
	assert_int_equal(lsw_pfcwd_step(&q, &s, 2 * P, D, 0, true), LSW_WD_RESTORE);
	assert_int_equal(q.state, LSW_WD_OPERATIONAL);
	assert_int_equal(q.restored, 1);
}

/* The pause counter read a little low (a pause closed between the two reads) neither
 * wraps into a storm nor makes a calm poll look paused later. */
static void
test_pause_counter_backwards(void **state)
{
	struct lsw_wd_queue q = {0};
	struct lsw_wd_sample s = {.occupancy = 4096, .pause_ns = 10 * MS};

	(void)state;
	assert_int_equal(lsw_pfcwd_step(&q, &s, 0, D, R, false), LSW_WD_NONE);
	for (uint64_t t = P; t <= 10 * P; t += P) {
		s.pause_ns = 10 * MS - 1000; /* lower than last time */
		assert_int_equal(lsw_pfcwd_step(&q, &s, t, D, R, false), LSW_WD_NONE);
		assert_int_equal(q.storm_ns, 0);
	}
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_detect_and_restore),
		cmocka_unit_test(test_short_storm),
		cmocka_unit_test(test_xon_storm_restores),
		cmocka_unit_test(test_alert_restores_with_the_storm),
		cmocka_unit_test(test_pause_counter_backwards),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
