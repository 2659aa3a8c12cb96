/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Buffer-sharing policies (BUFFER_POOL.policy; include/lsw/buffer.h): each policy's threshold
 * against its formula, on the model and a fake clock. Closed forms where one exists:
 *   static            each queue stops at its static_th (0: the pool);
 *   complete_sharing  S saturated queues fill the pool, nothing left free;
 *   partitioned       each queue stops at B / N, whatever the others do;
 *   abm               S saturated queues of one priority, nothing draining, each settle at
 *                     alpha * B / (S * (1 + alpha)): together alpha * B / (1 + alpha),
 *                     whatever S (DT's total grows with S);
 *   hpcc_sim          buffers.md T2: XOFF at shared = B' / (8 + k), XON at T - 3072.
 * Then the snapshot's figures (part_share, hpcc_sim's one reserve and headroom per port),
 * validation with JSON paths, and a change of policy by config.set.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "harness.h"
#include "lsw/buffer.h"

#define MIB (1ull << 20)
#define HZ UINT64_C(1000000000) /* fake clock: ticks are nanoseconds */

static struct lsw_buffer_dp mc;
static struct lsw_buffer_lcore *w0, *w1;
static struct lsw_buffer_lcore *all[2];

/* Pool 0 ingress (DT, alpha 2^7: never binds), pool 1 egress with @policy; every PG and
 * queue lossy, no reserve, alpha 2^shift. */
static void
model(uint8_t policy, uint64_t shared, int shift)
{
	memset(&mc, 0, sizeof(mc));
	mc.cell = 64;
	mc.cell_inv = lsw_buffer_cell_inv(64);
	mc.pkt_limit = mc.pkt_xoff = mc.pkt_xon = UINT32_MAX / 2;
	mc.n_pools = 2;
	mc.pool[0] = (struct lsw_pool_dp){.size = 64 * MIB, .shared = 64 * MIB,
					   .type = LSW_POOL_INGRESS, .policy = LSW_POLICY_DT};
	mc.pool[1] = (struct lsw_pool_dp){.size = shared, .shared = shared,
					   .type = LSW_POOL_EGRESS, .policy = policy};
	mc.abm_sat = 64;
	mc.abm_update_ns = 30000;
	mc.abm_pools = policy == LSW_POLICY_ABM ? 2 : 0;
	for (int p = 0; p < LSW_MAX_PORTS; p++)
		for (int i = 0; i < 8; i++) {
			mc.pg[p][i] = (struct lsw_prof_dp){.pool = 0, .dynamic = 1, .shift = 7};
			mc.q[p][i] = (struct lsw_prof_dp){.pool = 1, .dynamic = 1,
							  .shift = (int8_t)shift};
		}
	free(w0);
	free(w1);
	w0 = calloc(1, sizeof(*w0));
	w1 = calloc(1, sizeof(*w1));
	all[0] = w0;
	all[1] = w1;
}

static int
teardown(void **state)
{
	(void)state;
	free(w0);
	free(w1);
	w0 = w1 = NULL;
	return 0;
}

static enum lsw_drop
admit(struct lsw_pkt_meta *m, uint8_t in_port, uint8_t pg, uint8_t out_port, uint8_t q,
      uint32_t len)
{
	*m = (struct lsw_pkt_meta){.in_port = in_port, .pg = pg, .out_port = out_port,
				   .queue = q};
	return lsw_buffer_admit(all, 1, w0, &mc, m, len);
}

static int64_t
q_total(uint16_t port, uint8_t q)
{
	return lsw_buffer_q_occ(all, 1, port, q, 0) + lsw_buffer_q_occ(all, 1, port, q, 1);
}

/* Round-robin 1 KB arrivals into queue 0 of ports 1..S until none takes any more; each
 * round ends with an ABM update of every port (the owner's loop) @dt_ns later. */
static uint64_t
fill(int s_count, uint64_t now, uint64_t dt_ns)
{
	struct lsw_pkt_meta m;
	bool any = true;

	while (any) {
		any = false;
		for (int i = 1; i <= s_count; i++)
			if (admit(&m, 0, 0, (uint8_t)i, 0, 1024) == LSW_DROP_NONE)
				any = true;
		now += dt_ns;
		for (int i = 1; i <= s_count; i++)
			lsw_buffer_abm_update(all, 1, w0, &mc, (uint16_t)i, 1000000000, now, HZ);
	}
	return now;
}

static void
test_complete_sharing(void **state)
{
	struct lsw_pkt_meta m;

	(void)state;
	/* One queue alone takes the whole pool: no per-queue limit. */
	model(LSW_POLICY_COMPLETE_SHARING, 1 * MIB, 0);
	fill(1, 0, 0);
	assert_int_equal(q_total(1, 0), 1 * MIB);
	assert_int_equal(admit(&m, 0, 0, 2, 0, 1024), LSW_DROP_EGRESS_QUEUE_THRESHOLD);
	assert_int_equal(lsw_buffer_q_limit(all, 1, &mc, 1, 0), 1 * MIB);
	assert_int_equal(lsw_buffer_q_limit(all, 1, &mc, 2, 0), 0);
	/* S queues share it all, B / S each, nothing left free (DT would leave
	 * B / (1 + S alpha)). */
	for (int s = 2; s <= 8; s *= 2) {
		model(LSW_POLICY_COMPLETE_SHARING, 1 * MIB, 0);
		fill(s, 0, 0);
		assert_int_equal(lsw_buffer_pool_shared(all, 1, 1), 1 * MIB);
		for (int i = 1; i <= s; i++)
			assert_true(llabs(q_total((uint16_t)i, 0) - (int64_t)(MIB / s)) <= 1024);
	}
	/* A lossless PG of a complete-sharing pool pauses when the pool is within a cell of
	 * full, whoever filled it, and resumes once xon_offset is free again. */
	model(LSW_POLICY_COMPLETE_SHARING, 1 * MIB, 0);
	mc.pool[0] = mc.pool[1];
	mc.pool[0].type = LSW_POOL_INGRESS;
	mc.pool[1] = (struct lsw_pool_dp){.size = 64 * MIB, .shared = 64 * MIB,
					   .type = LSW_POOL_EGRESS};
	mc.pg[0][3] = (struct lsw_prof_dp){.pool = 0, .dynamic = 1, .xoff = 65536,
					    .xon_offset = 8192, .lossless = 1};
	struct lsw_pkt_meta ms[1100];
	int k = 0;
	while (!lsw_buffer_pg_xoff(all, 1, &mc, 0, 3)) {
		assert_int_equal(admit(&ms[k], 0, 3, 1, 3, 1024), LSW_DROP_NONE);
		assert_int_equal(ms[k++].in_part, LSW_PART_SHARED);
	}
	assert_int_equal(lsw_buffer_pool_shared(all, 1, 0), 1 * MIB);
	/* Headroom, never a drop, while it lasts. */
	assert_int_equal(admit(&ms[k], 0, 3, 1, 3, 1024), LSW_DROP_NONE);
	assert_int_equal(ms[k++].in_part, LSW_PART_HEADROOM);
	int released = 0;
	while (!lsw_buffer_pg_xon(all, 1, &mc, 0, 3))
		lsw_buffer_release(w0, &mc, &ms[--k]), released++;
	/* The headroom frame, then 8 KB of shared. */
	assert_int_equal(released, 1 + 8);
	while (k > 0)
		lsw_buffer_release(w0, &mc, &ms[--k]);
	assert_int_equal(w0->use.pool_used[0] + w0->use.pool_used[1], 0);
}

static void
test_partitioned(void **state)
{
	struct lsw_pkt_meta m;

	(void)state;
	/* 16 slots of 64 KB: each queue stops at its share, alone or not. */
	model(LSW_POLICY_PARTITIONED, 1 * MIB, 7);
	mc.pool[1].part_share = MIB / 16;
	fill(1, 0, 0);
	assert_int_equal(q_total(1, 0), 64 * 1024);
	fill(3, 0, 0);
	for (int i = 1; i <= 3; i++)
		assert_int_equal(q_total((uint16_t)i, 0), 64 * 1024);
	assert_int_equal(admit(&m, 0, 0, 1, 0, 64), LSW_DROP_EGRESS_QUEUE_THRESHOLD);
	assert_int_equal(lsw_buffer_q_limit(all, 1, &mc, 9, 5), 64 * 1024);
}

static void
test_static(void **state)
{
	(void)state;
	/* static_th per queue, whatever the others hold; 0 means the pool's B (SAI). */
	model(LSW_POLICY_STATIC, 1 * MIB, 0);
	for (int p = 0; p < LSW_MAX_PORTS; p++)
		mc.q[p][0] = (struct lsw_prof_dp){.pool = 1, .dynamic = 0,
						  .static_th = 100 * 1024};
	mc.q[9][0].static_th = 0;
	fill(3, 0, 0);
	for (int i = 1; i <= 3; i++)
		assert_int_equal(q_total((uint16_t)i, 0), 100 * 1024);
	assert_int_equal(lsw_buffer_q_limit(all, 1, &mc, 1, 0), 100 * 1024);
	assert_int_equal(lsw_buffer_q_limit(all, 1, &mc, 9, 0), 1 * MIB);
}

/* ABM's threshold against its formula: T = alpha (B - Q) / n_p * mu / b. */
static void
test_abm_formula(void **state)
{
	struct lsw_pkt_meta m;

	(void)state;
	model(LSW_POLICY_ABM, 8 * MIB, 0);
	mc.abm_sat = 4096;
	/* Not measured yet: n_p = 1 (at least), mu = 1: DT's threshold. */
	assert_int_equal(lsw_buffer_q_limit(all, 1, &mc, 1, 0), 8 * MIB);
	/* Queue 1/0 holds 64 KB (saturated), 2/0 holds 2 KB (half), 3/1 64 KB (another
	 * priority: not counted in n_0). */
	for (int i = 0; i < 64; i++) {
		assert_int_equal(admit(&m, 0, 0, 1, 0, 1024), LSW_DROP_NONE);
		assert_int_equal(admit(&m, 0, 1, 3, 1, 1024), LSW_DROP_NONE);
	}
	for (int i = 0; i < 2; i++)
		assert_int_equal(admit(&m, 0, 0, 2, 0, 1024), LSW_DROP_NONE);
	uint64_t now = 1000000;
	for (uint16_t p = 1; p <= 3; p++)
		lsw_buffer_abm_update(all, 1, w0, &mc, p, 1000000000, now, HZ);
	/* Within the update interval nothing is taken again. */
	lsw_buffer_abm_update(all, 1, w0, &mc, 1, 1000000000, now + 29999, HZ);
	/* 1/0 sends half of what 1 Gb/s carries in 30 us (3750 B): mu = 1/2. 2/0 sends 1/16
	 * of it, under ABM's floor of 1/8: counted as 1. */
	w0->ctr.q_tx_bytes[1][0] += 1875;
	w0->ctr.q_tx_bytes[2][0] += 234;
	now += 30000;
	for (uint16_t p = 1; p <= 3; p++)
		lsw_buffer_abm_update(all, 1, w0, &mc, p, 1000000000, now, HZ);
	struct lsw_abm_in a;
	lsw_buffer_abm_in(all, 1, &mc, true, 1, 0, &a);
	assert_int_equal(a.np, LSW_ABM_ONE + LSW_ABM_ONE / 2);
	assert_int_equal(a.drain, LSW_ABM_ONE / 2);
	lsw_buffer_abm_in(all, 1, &mc, true, 2, 0, &a);
	assert_int_equal(a.drain, LSW_ABM_ONE);
	lsw_buffer_abm_in(all, 1, &mc, true, 3, 1, &a);
	assert_int_equal(a.np, LSW_ABM_ONE);
	double free_b = (double)(8 * MIB) - (double)lsw_buffer_pool_shared(all, 1, 1);
	double want = 1.0 * free_b / 1.5 * 0.5;
	assert_true(fabs((double)lsw_buffer_q_limit(all, 1, &mc, 1, 0) - want) <= 1);
	want = free_b / 1.5 * 1.0;
	assert_true(fabs((double)lsw_buffer_q_limit(all, 1, &mc, 2, 0) - want) <= 1);
	want = free_b / 1.0;
	assert_true(fabs((double)lsw_buffer_q_limit(all, 1, &mc, 3, 1) - want) <= 1);
	/* alpha 1/4 scales it. */
	mc.q[1][0].shift = -2;
	want = free_b / 4 / 1.5 * 0.5;
	assert_true(fabs((double)lsw_buffer_q_limit(all, 1, &mc, 1, 0) - want) <= 1);
	/* A queue that empties leaves n_p at the next update. */
	while (q_total(2, 0) > 0) {
		struct lsw_pkt_meta r = {.in_port = 0, .pg = 0, .out_port = 2, .queue = 0,
					 .charged = 1024, .in_part = LSW_PART_SHARED,
					 .eg_part = LSW_PART_SHARED};
		lsw_buffer_release(w0, &mc, &r);
	}
	now += 30000;
	lsw_buffer_abm_update(all, 1, w0, &mc, 2, 1000000000, now, HZ);
	lsw_buffer_abm_in(all, 1, &mc, true, 1, 0, &a);
	assert_int_equal(a.np, LSW_ABM_ONE);
}

/* ABM's steady state: S saturated queues of one priority, none draining (mu / b = 1 by
 * ABM's floor): q = alpha (B - S q) / S, so q* = alpha B / (S (1 + alpha)). */
static void
test_abm_steady_state(void **state)
{
	(void)state;
	for (int shift = -1; shift <= 1; shift++)
		for (int s = 1; s <= 4; s *= 2) {
			double alpha = shift >= 0 ? (double)(1 << shift) : 0.5;
			model(LSW_POLICY_ABM, 8 * MIB, shift);
			fill(s, 0, 30000);
			double want = alpha * (double)(8 * MIB) / (s * (1 + alpha));
			for (int i = 1; i <= s; i++) {
				int64_t got = q_total((uint16_t)i, 0);
				if (fabs((double)got - want) > 2048)
					fail_msg("S=%d alpha=%g: queue %d holds %lld, "
						 "want %.0f", s, alpha, i, (long long)got,
						 want);
			}
			/* The priority's total does not grow with S. */
			double total = (double)lsw_buffer_pool_shared(all, 1, 1);
			assert_true(fabs(total - alpha * (double)(8 * MIB) / (1 + alpha)) <=
				    2048.0 * s);
		}
}

/* ABM's unscheduled packets (LSW_META_UNSCHED, a message's first BDP) are admitted with
 * alpha 2^abm_unsched_shift: past a queue's threshold for the rest, a lone queue takes
 * the pool up to alpha_u B / (1 + alpha_u). A DT pool does not read the flag. */
static void
test_abm_unsched(void **state)
{
	struct lsw_pkt_meta m;

	(void)state;
	model(LSW_POLICY_ABM, 8 * MIB, 0);
	mc.abm_unsched_shift = 10;
	fill(1, 0, 30000);
	assert_true(llabs(q_total(1, 0) - (int64_t)(4 * MIB)) <= 2048);
	assert_int_equal(admit(&m, 0, 0, 1, 0, 1024), LSW_DROP_EGRESS_QUEUE_THRESHOLD);
	uint64_t thr = lsw_buffer_q_limit(all, 1, &mc, 1, 0);
	int n = 0;
	for (;;) {
		m = (struct lsw_pkt_meta){.out_port = 1, .flags = LSW_META_UNSCHED};
		if (lsw_buffer_admit(all, 1, w0, &mc, &m, 1024) != LSW_DROP_NONE)
			break;
		n++;
	}
	/* 1024 (B - q) = q: q = 1024 B / 1025, within a packet. */
	double want = 1024.0 * (double)(8 * MIB) / 1025;
	if (fabs((double)q_total(1, 0) - want) > 1024)
		fail_msg("unscheduled: the queue holds %lld, want %.0f (%d admitted)",
			 (long long)q_total(1, 0), want, n);
	assert_int_equal(w0->ctr.q_abm_unsched_pkts[1][0], n);
	/* What the queue's threshold says (queue.stats) is the scheduled packets'. */
	assert_true(lsw_buffer_q_limit(all, 1, &mc, 1, 0) < thr);
	assert_int_equal(admit(&m, 0, 0, 1, 0, 1024), LSW_DROP_EGRESS_QUEUE_THRESHOLD);

	/* DT: the flag changes nothing. */
	model(LSW_POLICY_DT, 8 * MIB, 0);
	mc.abm_unsched_shift = 10;
	fill(1, 0, 30000);
	m = (struct lsw_pkt_meta){.out_port = 1, .flags = LSW_META_UNSCHED};
	assert_int_equal(lsw_buffer_admit(all, 1, w0, &mc, &m, 1024),
			 LSW_DROP_EGRESS_QUEUE_THRESHOLD);
}

/* n_p is a sum of deltas from each port's owner; drain rates are read from the owner. */
static void
test_abm_two_workers(void **state)
{
	struct lsw_pkt_meta m;

	(void)state;
	model(LSW_POLICY_ABM, 8 * MIB, 0);
	mc.owner[2] = 1;
	for (int i = 0; i < 4; i++) {
		m = (struct lsw_pkt_meta){.in_port = 0, .pg = 0, .out_port = 1, .queue = 0};
		assert_int_equal(lsw_buffer_admit(all, 2, w0, &mc, &m, 1024), LSW_DROP_NONE);
		m = (struct lsw_pkt_meta){.in_port = 0, .pg = 0, .out_port = 2, .queue = 0};
		assert_int_equal(lsw_buffer_admit(all, 2, w1, &mc, &m, 1024), LSW_DROP_NONE);
	}
	lsw_buffer_abm_update(all, 2, w0, &mc, 1, 1000000000, 1000000, HZ);
	lsw_buffer_abm_update(all, 2, w1, &mc, 2, 1000000000, 1000000, HZ);
	w1->ctr.q_tx_bytes[2][0] += 1875;
	lsw_buffer_abm_update(all, 2, w1, &mc, 2, 1000000000, 1030000, HZ);
	struct lsw_abm_in a;
	lsw_buffer_abm_in(all, 2, &mc, true, 1, 0, &a);
	assert_int_equal(a.np, 2 * LSW_ABM_ONE);
	assert_int_equal(a.drain, LSW_ABM_ONE);
	lsw_buffer_abm_in(all, 2, &mc, true, 2, 0, &a);
	assert_int_equal(a.drain, LSW_ABM_ONE / 2);
	assert_true(w0->use.abm_sat[1][0] == LSW_ABM_ONE && w1->use.abm_sat[1][0] == LSW_ABM_ONE);
}

/* buffers.md T2: B = 32 MiB, 32 ports of 100G with 1 us links: headroom 37 500 and reserve
 * 4096 per port leave B' = 32 223 360; with shift 3 and k congested PGs XOFF comes at
 * shared = B' / (8 + k); XON once the headroom is empty and shared + 3072 <= T. */
static void
test_hpcc_t2(void **state)
{
	static const int64_t want[] = {3580373, 3222336, 2685280, 2013960};
	static const int ks[] = {1, 2, 4, 8};

	(void)state;
	for (size_t c = 0; c < RTE_DIM(ks); c++) {
		int k = ks[c];
		model(LSW_POLICY_HPCC_SIM, 64 * MIB, 7);
		mc.cell = 1; /* the simulator counts bytes */
		mc.cell_inv = lsw_buffer_cell_inv(1);
		mc.pool[0] = (struct lsw_pool_dp){.size = 32 * MIB, .shared = 32223360,
						   .type = LSW_POOL_INGRESS,
						   .policy = LSW_POLICY_HPCC_SIM};
		for (int p = 0; p < 32; p++)
			mc.pg[p][3] = (struct lsw_prof_dp){.pool = 0, .reserved = 4096,
							    .xoff = 37500, .dynamic = 1,
							    .shift = -3, .lossless = 1};
		int64_t at[8] = {0};
		int paused = 0;
		static struct lsw_pkt_meta ms[8][4000];
		int n[8] = {0};
		while (paused < k)
			for (int p = 0; p < k; p++) {
				if (at[p])
					continue;
				struct lsw_pkt_meta *m = &ms[p][n[p]++];
				assert_int_equal(admit(m, (uint8_t)p, 3, 31, 3, 1000),
						 LSW_DROP_NONE);
				/* XOFF is decided at arrival. */
				if (lsw_buffer_pg_xoff(all, 1, &mc, (uint16_t)p, 3)) {
					at[p] = lsw_buffer_pg_occ(all, 1, (uint16_t)p, 3,
								  LSW_PART_SHARED);
					paused++;
				}
			}
		for (int p = 0; p < k; p++)
			if (llabs(at[p] - want[c]) > 2000)
				fail_msg("k=%d: PG %d paused at %lld, want %lld", k, p,
					 (long long)at[p], (long long)want[c]);
		/* Past T: headroom, up to the port's 37 500. */
		struct lsw_pkt_meta *h = &ms[0][n[0]++];
		assert_int_equal(admit(h, 0, 3, 31, 3, 1000), LSW_DROP_NONE);
		assert_int_equal(h->in_part, LSW_PART_HEADROOM);
		/* The simulator releases a PG's headroom bytes first, whichever packet leaves;
		 * lsw releases each frame's own charge (exact per packet), so here the frames
		 * charged to headroom leave first. While any is held, no XON. */
		assert_false(lsw_buffer_pg_xon(all, 1, &mc, 0, 3));
		for (int j = 0; j < n[0]; j++)
			if (ms[0][j].in_part == LSW_PART_HEADROOM) {
				lsw_buffer_release(w0, &mc, &ms[0][j]);
				ms[0][j].charged = 0;
			}
		assert_int_equal(lsw_buffer_pg_occ(all, 1, 0, 3, LSW_PART_HEADROOM), 0);
		/* Then oldest first: XON once shared + 3072 <= T. */
		int i = 0;
		while (!lsw_buffer_pg_xon(all, 1, &mc, 0, 3))
			lsw_buffer_release(w0, &mc, &ms[0][i++]);
		int64_t s = lsw_buffer_pg_occ(all, 1, 0, 3, LSW_PART_SHARED);
		int64_t t = (int64_t)lsw_buffer_pg_limit(all, 1, &mc, 0, 3);
		assert_true(s + LSW_HPCC_RESUME_OFFSET <= t);
		/* ... and one frame earlier it was not (T was 1000 / 8 lower then). */
		if (!(s + 1000 + LSW_HPCC_RESUME_OFFSET > t - 126))
			fail_msg("k=%d: XON at s=%lld t=%lld after %d releases", k, (long long)s,
				 (long long)t, i);
	}
	/* Egress admission always passes: a lossy frame to a queue with no shared buffer at
	 * all is taken. */
	model(LSW_POLICY_HPCC_SIM, 1 * MIB, -8);
	struct lsw_pkt_meta m;
	for (int i = 0; i < 100; i++)
		assert_int_equal(admit(&m, 0, 0, 1, 0, 1024), LSW_DROP_NONE);
}

/* The switch most policy tests build: two ports, a lossless PG 3 and 4 on each (reserve
 * 4096, headroom 37 500). */
static const char *base =
	"{\"LSW\": {\"global\": {\"workers\": [1], \"mbufs\": 8192},"
	"          \"buffer\": {\"size\": \"4MB\"}},"
	" \"PORT\": {\"Ethernet0\": {}, \"Ethernet4\": {}},"
	" \"LSW_PORT\": {\"Ethernet0\": {\"devargs\": \"net_null0\"},"
	"              \"Ethernet4\": {\"devargs\": \"net_null1\"}},"
	" \"BUFFER_POOL\": {\"ingress_lossless_pool\": {\"type\": \"ingress\", \"size\": \"4MB\"},"
	"                 \"egress_lossy_pool\": {\"type\": \"egress\", \"size\": \"4MB\"}},"
	" \"BUFFER_PROFILE\": {"
	"   \"ingress_lossy_profile\": {\"pool\": \"ingress_lossless_pool\","
	"                             \"dynamic_th\": \"0\"},"
	"   \"pg_lossless\": {\"pool\": \"ingress_lossless_pool\", \"dynamic_th\": \"-3\","
	"                   \"size\": \"41596\", \"xoff\": \"37500\", \"xon\": \"0\"},"
	"   \"egress_lossy_profile\": {\"pool\": \"egress_lossy_pool\", \"dynamic_th\": \"0\"}},"
	" \"BUFFER_PG\": {\"Ethernet0,Ethernet4|3-4\": {\"profile\": \"pg_lossless\"}},"
	" \"PORT_QOS_MAP\": {\"Ethernet0,Ethernet4\": {\"pfc_enable\": \"3,4\"}}}";

static void
set(struct t_switch *t, const char *params)
{
	json_t *resp;

	t_rpc_ok(t, "config.set", params, &resp);
	json_decref(resp);
}

static const struct lsw_pool_dp *
pool_dp(struct t_switch *t, int i)
{
	return &t->conf->buffer.pool[i];
}

static void
test_snapshot(void **state)
{
	(void)state;
	struct t_switch *t = t_switch_new(base);
	/* DT by default: every PG's reserve and headroom come off the pool. */
	const uint64_t four = 4 * MIB;
	assert_int_equal(pool_dp(t, 0)->policy, LSW_POLICY_DT);
	assert_int_equal(pool_dp(t, 0)->shared, four - 4 * 41596);
	/* hpcc_sim counts one per port (switch-mmu.cc total_rsrv, total_hdrm). */
	set(t, "{\"config\": {\"BUFFER_POOL\": {\"ingress_lossless_pool\":"
		 " {\"policy\": \"hpcc_sim\"}}}}");
	assert_int_equal(pool_dp(t, 0)->policy, LSW_POLICY_HPCC_SIM);
	assert_int_equal(pool_dp(t, 0)->shared, four - 2 * 41596);
	/* partitioned: 16 PGs on two ports share the pool's shared bytes. */
	set(t, "{\"config\": {\"BUFFER_POOL\": {\"egress_lossy_pool\":"
		 " {\"policy\": \"partitioned\"}}}}");
	assert_int_equal(pool_dp(t, 1)->policy, LSW_POLICY_PARTITIONED);
	assert_int_equal(pool_dp(t, 1)->part_share, four / 16);
	/* abm: the owners keep n_p, the snapshot says which pools and how often. */
	set(t, "{\"config\": {\"BUFFER_POOL\": {\"egress_lossy_pool\":"
		 " {\"policy\": \"abm\"}}, \"LSW\": {\"buffer\": {\"abm_update_us\": \"300\","
		 " \"abm_saturation\": \"64KB\"}}}}");
	assert_int_equal(t->conf->buffer.abm_pools, 2);
	assert_int_equal(t->conf->buffer.abm_update_ns, 300000);
	assert_int_equal(t->conf->buffer.abm_sat, 65536);
	assert_int_equal(t->conf->buffer.abm_unsched_dscp, 0);
	assert_int_equal(t->conf->buffer.abm_unsched_shift, 10);
	set(t, "{\"config\": {\"LSW\": {\"buffer\": {\"abm_unsched_dscp\": [11, 1],"
		 " \"abm_unsched_dynamic_th\": \"6\"}}}}");
	assert_int_equal(t->conf->buffer.abm_unsched_dscp, 1ull << 11 | 1ull << 1);
	assert_int_equal(t->conf->buffer.abm_unsched_shift, 6);
	/* buffer.pools says so. */
	json_t *resp;
	json_t *r = t_rpc_ok(t, "buffer.pools", NULL, &resp);
	assert_string_equal(json_string_value(json_object_get(json_array_get(r, 1), "policy")),
			    "abm");
	assert_string_equal(json_string_value(json_object_get(json_array_get(r, 0), "policy")),
			    "hpcc_sim");
	json_decref(resp);
	/* static: the pool's profiles must move to static_th in the same change. */
	set(t, "{\"config\": {\"BUFFER_POOL\": {\"egress_lossy_pool\":"
		 " {\"policy\": \"static\"}}, \"BUFFER_PROFILE\": {\"egress_lossy_profile\":"
		 " {\"dynamic_th\": null, \"static_th\": \"1MB\"}}}}");
	assert_int_equal(pool_dp(t, 1)->policy, LSW_POLICY_STATIC);
	assert_int_equal(t->conf->buffer.q[0][0].static_th, MIB);
	assert_int_equal(t->conf->buffer.abm_pools, 0);
	/* Without an ABM pool no packet is flagged unscheduled. */
	assert_int_equal(t->conf->buffer.abm_unsched_dscp, 0);
	/* complete_sharing takes profiles of either mode. */
	set(t, "{\"config\": {\"BUFFER_POOL\": {\"egress_lossy_pool\":"
		 " {\"policy\": \"complete_sharing\"}}}}");
	assert_int_equal(pool_dp(t, 1)->policy, LSW_POLICY_COMPLETE_SHARING);
	t_switch_free(t);
}

static const char *const bads[][3] = {
	{"{\"BUFFER_POOL\": {\"egress_lossy_pool\": {\"policy\": \"fair\"}}}",
	 "$.BUFFER_POOL.egress_lossy_pool.policy", "one of"},
	{"{\"BUFFER_POOL\": {\"egress_lossy_pool\": {\"policy\": \"static\","
	 " \"mode\": \"dynamic\"}}}", "$.BUFFER_POOL.egress_lossy_pool.policy", "static_th"},
	{"{\"BUFFER_POOL\": {\"egress_lossy_pool\": {\"policy\": \"abm\", \"mode\": \"static\"}}}",
	 "$.BUFFER_POOL.egress_lossy_pool.policy", "dynamic_th"},
	/* A static pool's dynamic_th profile: the mode follows the policy. */
	{"{\"BUFFER_POOL\": {\"egress_lossy_pool\": {\"policy\": \"static\"}}}",
	 "$.BUFFER_PROFILE.egress_lossy_profile.dynamic_th", "static"},
	{"{\"BUFFER_POOL\": {\"ingress_lossless_pool\": {\"policy\": 3}}}",
	 "$.BUFFER_POOL.ingress_lossless_pool.policy", "string"},
	{"{\"LSW\": {\"buffer\": {\"abm_update_us\": \"0\"}}}", "$.LSW.buffer.abm_update_us",
	 "range"},
	{"{\"LSW\": {\"buffer\": {\"abm_saturation\": \"2GB\"}}}", "$.LSW.buffer.abm_saturation",
	 ""},
	{"{\"LSW\": {\"buffer\": {\"abm_unsched_dscp\": 3}}}", "$.LSW.buffer.abm_unsched_dscp",
	 "array"},
	{"{\"LSW\": {\"buffer\": {\"abm_unsched_dscp\": [3, 64]}}}",
	 "$.LSW.buffer.abm_unsched_dscp[1]", "range"},
	{"{\"LSW\": {\"buffer\": {\"abm_unsched_dscp\": [3, 3]}}}",
	 "$.LSW.buffer.abm_unsched_dscp[1]", "twice"},
	{"{\"LSW\": {\"buffer\": {\"abm_unsched_dynamic_th\": \"200\"}}}",
	 "$.LSW.buffer.abm_unsched_dynamic_th", "range"},
};

static void
test_bad(void **state)
{
	(void)state;
	t_config_refused(base, bads, RTE_DIM(bads));
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(test_complete_sharing, teardown),
		cmocka_unit_test_teardown(test_partitioned, teardown),
		cmocka_unit_test_teardown(test_static, teardown),
		cmocka_unit_test_teardown(test_abm_formula, teardown),
		cmocka_unit_test_teardown(test_abm_steady_state, teardown),
		cmocka_unit_test_teardown(test_abm_unsched, teardown),
		cmocka_unit_test_teardown(test_abm_two_workers, teardown),
		cmocka_unit_test_teardown(test_hpcc_t2, teardown),
		cmocka_unit_test(test_snapshot),
		cmocka_unit_test(test_bad),
	};

	t_eal_init();
	return cmocka_run_group_tests(tests, NULL, NULL);
}
