/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The memory manager as a model (Choudhury and Hahne, IEEE/ACM ToN 1998): dynamic thresholds (T1),
 * reserve, shared and headroom charging and their release, static thresholds, lossy drops,
 * lossless never dropping while headroom is left, shared headroom, no-shared-buffer
 * profiles, cell rounding, admission by one worker released by another, and the pool-wide
 * sums a worker takes once a loop.
 */
#include <stdlib.h>
#include <string.h>
#include "harness.h"
#include "lsw/buffer.h"

#define MIB (1ull << 20)

static struct lsw_buffer_dp mc;
static struct lsw_buffer_lcore *w0, *w1;
static struct lsw_buffer_lcore *all[2];

/* Pool 0 ingress, pool 1 egress; every PG and queue lossy with reserve 0 and dynamic
 * threshold 2^shift. Tests then adjust what they study. */
static int
setup(void **state)
{
	(void)state;
	memset(&mc, 0, sizeof(mc));
	mc.cell = 64;
	mc.cell_inv = lsw_buffer_cell_inv(64);
	mc.pkt_limit = mc.pkt_xoff = mc.pkt_xon = UINT32_MAX / 2; /* mbufs do not bind here */
	mc.n_pools = 2;
	mc.pool[0] = (struct lsw_pool_dp){.size = 64 * MIB, .shared = 64 * MIB,
					   .type = LSW_POOL_INGRESS};
	mc.pool[1] = (struct lsw_pool_dp){.size = 64 * MIB, .shared = 64 * MIB,
					   .type = LSW_POOL_EGRESS};
	for (int p = 0; p < LSW_MAX_PORTS; p++)
		for (int i = 0; i < 8; i++) {
			mc.pg[p][i] = (struct lsw_prof_dp){.pool = 0, .dynamic = 1, .shift = 7};
			mc.q[p][i] = (struct lsw_prof_dp){.pool = 1, .dynamic = 1, .shift = 7};
		}
	w0 = calloc(1, sizeof(*w0));
	w1 = calloc(1, sizeof(*w1));
	all[0] = w0;
	all[1] = w1;
	return 0;
}

static int
teardown(void **state)
{
	(void)state;
	free(w0);
	free(w1);
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
	return lsw_buffer_q_occ(all, 2, port, q, 0) + lsw_buffer_q_occ(all, 2, port, q, 1);
}

static void
test_charge_exact(void **state)
{
	static const uint32_t cells[] = {1, 7, 16, 64, 96, 100, 128, 208, 254, 1000, 4160, 9238};

	(void)state;
	for (size_t c = 0; c < RTE_DIM(cells); c++) {
		struct lsw_buffer_dp m = {.cell = cells[c],
					  .cell_inv = lsw_buffer_cell_inv(cells[c]),
					  .pkt_limit = UINT32_MAX / 2, .pkt_xoff = UINT32_MAX / 2};
		for (uint32_t len = 0; len <= LSW_MAX_FRAME; len++)
			if (lsw_buffer_charge(&m, len) !=
			    (len + cells[c] - 1) / cells[c] * cells[c])
				fail_msg("cell %u len %u: %u", cells[c], len,
					 lsw_buffer_charge(&m, len));
	}
}

/* T1: S queues saturated with nothing draining each settle at alpha*B/(1+S*alpha), within a
 * cell, and B/(1+S*alpha) stays free. Egress queues here, ingress PGs below. */
static void
t1_case(bool ingress, uint64_t b, int shift, int s_count)
{
	double alpha = shift >= 0 ? (double)(1 << shift) : 1.0 / (1 << -shift);
	struct lsw_pkt_meta m;

	setup(NULL);
	mc.pool[ingress ? 0 : 1].shared = b;
	for (int p = 0; p < LSW_MAX_PORTS; p++) {
		struct lsw_prof_dp *pr = ingress ? &mc.pg[p][0] : &mc.q[p][0];
		pr->shift = (int8_t)shift;
	}
	/* Round-robin arrivals until no queue takes any more. */
	bool any = true;
	while (any) {
		any = false;
		for (int i = 0; i < s_count; i++) {
			uint8_t in = ingress ? (uint8_t)i : 0, out = ingress ? 31 : (uint8_t)i;
			if (admit(&m, in, 0, out, 0, 1024) == LSW_DROP_NONE)
				any = true;
		}
	}
	double want = alpha * (double)b / (1 + s_count * alpha);
	for (int i = 0; i < s_count; i++) {
		int64_t got = ingress ? lsw_buffer_pg_occ(all, 1, (uint16_t)i, 0, LSW_PART_SHARED) :
					lsw_buffer_q_occ(all, 1, (uint16_t)i, 0, 1);
		if (got > want + 1024 || got < want - 1024)
			fail_msg("%s S=%d alpha=2^%d: queue %d holds %lld, want %.0f",
				 ingress ? "PG" : "queue", s_count, shift, i, (long long)got, want);
	}
	int64_t used = lsw_buffer_pool_shared(all, 1, ingress ? 0 : 1);
	double free_want = (double)b / (1 + s_count * alpha);
	assert_true((double)(b - (uint64_t)used) >= free_want - s_count * 1024.0);
	teardown(NULL);
}

static void
test_t1_dynamic_threshold(void **state)
{
	(void)state;
	for (int s = 1; s <= 4; s *= 2)
		for (int k = -2; k <= 3; k++) {
			t1_case(false, 8 * MIB, k, s);
			t1_case(true, 8 * MIB, k, s);
		}
	/* The worked values of buffers.md T1: B = 8 MiB, alpha = 1. */
	setup(NULL);
	mc.pool[1].shared = 8 * MIB;
	mc.q[1][0].shift = 0;
	mc.q[2][0].shift = 0;
	struct lsw_pkt_meta m;
	while (admit(&m, 0, 0, 1, 0, 64) == LSW_DROP_NONE)
		;
	assert_true(llabs(q_total(1, 0) - 4194304) <= 64);
	teardown(NULL);
}

static void
test_reserve_shared_headroom(void **state)
{
	struct lsw_pkt_meta m[64];
	int n = 0;

	(void)state;
	/* A lossless PG: 4 KB reserved, 16 KB of shared (static), 8 KB of headroom. */
	mc.pg[0][3] = (struct lsw_prof_dp){.pool = 0, .reserved = 4096, .dynamic = 0,
					    .static_th = 16384, .xoff = 8192, .lossless = 1};
	assert_false(lsw_buffer_pg_xoff(all, 1, &mc, 0, 3));
	for (; n < 4; n++) { /* 4 x 1024: the reserve */
		assert_int_equal(admit(&m[n], 0, 3, 1, 3, 1024), LSW_DROP_NONE);
		assert_int_equal(m[n].in_part, LSW_PART_RESERVED);
	}
	for (; n < 20; n++) { /* 16 more: shared up to static_th */
		assert_int_equal(admit(&m[n], 0, 3, 1, 3, 1024), LSW_DROP_NONE);
		assert_int_equal(m[n].in_part, LSW_PART_SHARED);
	}
	assert_true(lsw_buffer_pg_xoff(all, 1, &mc, 0, 3)); /* at the XOFF point */
	for (; n < 28; n++) { /* 8 into headroom */
		assert_int_equal(admit(&m[n], 0, 3, 1, 3, 1024), LSW_DROP_NONE);
		assert_int_equal(m[n].in_part, LSW_PART_HEADROOM);
	}
	/* Out of headroom: a lossless drop is a headroom overflow, counted everywhere. */
	assert_int_equal(admit(&m[n], 0, 3, 1, 3, 1024), LSW_DROP_HEADROOM_OVERFLOW);
	assert_int_equal(w0->ctr.pg_drops[0][3], 1);
	assert_int_equal(w0->ctr.q_drop_reason[1][3][LSW_QDROP_HEADROOM_OVERFLOW], 1);
	assert_int_equal(w0->ctr.pool_drops[0], 1);
	assert_int_equal(lsw_buffer_pg_occ(all, 1, 0, 3, LSW_PART_RESERVED), 4096);
	assert_int_equal(lsw_buffer_pg_occ(all, 1, 0, 3, LSW_PART_SHARED), 16384);
	assert_int_equal(lsw_buffer_pg_occ(all, 1, 0, 3, LSW_PART_HEADROOM), 8192);
	assert_int_equal(lsw_buffer_pool_shared(all, 1, 0), 16384);
	assert_int_equal(w0->ctr.pg_pkts[0][3], 28);
	/* Release in arrival order: each packet gives back what it took. The PG stays paused
	 * while headroom holds anything, and resumes once shared is back under XON. */
	for (int i = 0; i < 28; i++) {
		lsw_buffer_release(w0, &mc, &m[i]);
		if (i < 27)
			assert_false(lsw_buffer_pg_xon(all, 1, &mc, 0, 3));
	}
	assert_true(lsw_buffer_pg_xon(all, 1, &mc, 0, 3));
	for (int p = 0; p < LSW_PARTS; p++)
		assert_int_equal(lsw_buffer_pg_occ(all, 1, 0, 3, p), 0);
	assert_int_equal(q_total(1, 3), 0);
	assert_int_equal(w0->use.pool_used[0] + w0->use.pool_used[1], 0);
}

/* Every queued packet holds an mbuf, a second resource beside the bytes (as an ASIC's
 * packet descriptors). A lossy PG stops at a dynamic threshold of the packets left below
 * pkt_xoff (alpha 1: alone, it takes half), counted as MBUF_LIMIT in the PG's, the
 * queue's and the pool's drops, so that other PGs still get packets; a lossless PG goes on
 * to pkt_limit, pausing its peer at its threshold or past pkt_xoff, until pkt_xon. */
static void
test_mbuf_limit(void **state)
{
	struct lsw_pkt_meta m[200];
	int n = 0;

	(void)state;
	mc.pkt_limit = 100;
	mc.pkt_xoff = 75;
	mc.pkt_xon = 50;
	mc.pg[0][3] = (struct lsw_prof_dp){.pool = 0, .dynamic = 1, .shift = 7,
					    .xoff = 1 << 20, .lossless = 1};
	for (; n < 38; n++) /* small lossy frames: far under any byte threshold */
		assert_int_equal(admit(&m[n], 0, 0, 1, 0, 64), LSW_DROP_NONE);
	/* 38 held: 38 >= 75 - 38. The PG is at its share. */
	assert_int_equal(admit(&m[n], 0, 0, 1, 0, 64), LSW_DROP_MBUF_LIMIT);
	assert_int_equal(w0->ctr.q_drop_reason[1][0][LSW_QDROP_MBUF_LIMIT], 1);
	assert_int_equal(w0->ctr.pg_drops[0][0], 1);
	assert_int_equal(w0->ctr.pool_drops[0], 1);
	/* Another lossy PG still gets its share of what is left: (75 - 38) / 2. */
	for (int i = 0; i < 19; i++, n++)
		assert_int_equal(admit(&m[n], 2, 0, 1, 1, 64), LSW_DROP_NONE);
	assert_int_equal(admit(&m[n], 2, 0, 1, 1, 64), LSW_DROP_MBUF_LIMIT);
	assert_false(lsw_buffer_pg_xoff(all, 1, &mc, 0, 3)); /* PG 3 holds nothing yet */
	/* Lossless: on to pkt_limit, pausing from the first (57 held: its share is 18). */
	assert_int_equal(admit(&m[n++], 0, 3, 1, 3, 64), LSW_DROP_NONE);
	assert_false(lsw_buffer_pg_xoff(all, 1, &mc, 0, 3));
	for (; n < 100; n++)
		assert_int_equal(admit(&m[n], 0, 3, 1, 3, 64), LSW_DROP_NONE);
	assert_true(lsw_buffer_pg_xoff(all, 1, &mc, 0, 3));
	assert_int_equal(admit(&m[n], 0, 3, 1, 3, 64), LSW_DROP_MBUF_LIMIT);
	assert_int_equal(lsw_buffer_pkts_held(all, 1), 100);
	/* The lossy ones leave: held 43, PG 3 43 > 50 - 43: still paused. */
	for (int i = 0; i < 57; i++)
		lsw_buffer_release(w0, &mc, &m[i]);
	assert_false(lsw_buffer_pg_xon(all, 1, &mc, 0, 3));
	/* Down to 25: 25 <= 50 - 25, it may resume. */
	for (int i = 57; i < 75; i++)
		lsw_buffer_release(w0, &mc, &m[i]);
	assert_true(lsw_buffer_pg_xon(all, 1, &mc, 0, 3));
	for (int i = 75; i < 100; i++)
		lsw_buffer_release(w0, &mc, &m[i]);
	assert_int_equal(lsw_buffer_pkts_held(all, 1), 0);
	mc.pkt_limit = mc.pkt_xoff = mc.pkt_xon = UINT32_MAX / 2;
}

static void
test_xon_offset(void **state)
{
	struct lsw_pkt_meta m[32];

	(void)state;
	mc.pg[0][3] = (struct lsw_prof_dp){.pool = 0, .dynamic = 0, .static_th = 16384,
					    .xoff = 8192, .xon_offset = 4096, .lossless = 1};
	for (int i = 0; i < 20; i++)
		admit(&m[i], 0, 3, 1, 3, 1024);
	/* 16 KB shared + 4 KB headroom. Headroom out first: still above T - xon_offset. */
	for (int i = 0; i < 4; i++)
		lsw_buffer_release(w0, &mc, &m[16 + i]);
	assert_false(lsw_buffer_pg_xon(all, 1, &mc, 0, 3));
	for (int i = 0; i < 4; i++)
		lsw_buffer_release(w0, &mc, &m[i]);
	assert_true(lsw_buffer_pg_xon(all, 1, &mc, 0, 3)); /* 12 KB <= 16 - 4 KB */
	for (int i = 4; i < 16; i++)
		lsw_buffer_release(w0, &mc, &m[i]);
}

static void
test_lossy_drops(void **state)
{
	struct lsw_pkt_meta m;
	int ok = 0;

	(void)state;
	/* Ingress: a static threshold of 10 KB. */
	mc.pg[2][0] = (struct lsw_prof_dp){.pool = 0, .dynamic = 0, .static_th = 10240};
	while (admit(&m, 2, 0, 5, 1, 1000) == LSW_DROP_NONE)
		ok++;
	assert_int_equal(ok, 10); /* 1000 B frames charge 1024 */
	assert_int_equal(admit(&m, 2, 0, 5, 1, 1000), LSW_DROP_INGRESS_PG_THRESHOLD);
	assert_int_equal(w0->ctr.q_drop_reason[5][1][LSW_QDROP_INGRESS_PG_THRESHOLD], 2);
	/* Egress: the queue's own threshold, for lossy traffic. */
	mc.q[6][2] = (struct lsw_prof_dp){.pool = 1, .dynamic = 0, .static_th = 2048};
	assert_int_equal(admit(&m, 3, 0, 6, 2, 1024), LSW_DROP_NONE);
	assert_int_equal(admit(&m, 3, 0, 6, 2, 1024), LSW_DROP_NONE);
	assert_int_equal(admit(&m, 3, 0, 6, 2, 1024), LSW_DROP_EGRESS_QUEUE_THRESHOLD);
	assert_int_equal(w0->ctr.q_drop_reason[6][2][LSW_QDROP_EGRESS_QUEUE_THRESHOLD], 1);
	assert_int_equal(w0->ctr.q_drop_bytes[6][2], 1024);
	/* ... but lossless traffic into the same queue is never dropped there. */
	mc.pg[4][3] = (struct lsw_prof_dp){.pool = 0, .dynamic = 1, .shift = 7, .xoff = 65536,
					    .lossless = 1};
	for (int i = 0; i < 10; i++)
		assert_int_equal(admit(&m, 4, 3, 6, 2, 1024), LSW_DROP_NONE);
	/* dynamic_th <= -8: no shared buffer at all; only the reserve. */
	mc.pg[7][1] = (struct lsw_prof_dp){.pool = 0, .dynamic = 1, .shift = -8,
					    .reserved = 2048};
	assert_int_equal(admit(&m, 7, 1, 8, 0, 1024), LSW_DROP_NONE);
	assert_int_equal(admit(&m, 7, 1, 8, 0, 1024), LSW_DROP_NONE);
	assert_int_equal(admit(&m, 7, 1, 8, 0, 1024), LSW_DROP_INGRESS_PG_THRESHOLD);
}

/* BUFFER_POOL.xoff: lossless PGs draw headroom from one pool-wide budget. */
static void
test_shared_headroom(void **state)
{
	struct lsw_pkt_meta m;

	(void)state;
	mc.pool[0].hdrm_shared = 4096;
	for (int p = 0; p < 2; p++)
		mc.pg[p][3] = (struct lsw_prof_dp){.pool = 0, .dynamic = 1, .shift = -8,
						    .xoff = 8192, .lossless = 1};
	assert_int_equal(admit(&m, 0, 3, 9, 3, 1024), LSW_DROP_NONE);
	assert_int_equal(admit(&m, 0, 3, 9, 3, 1024), LSW_DROP_NONE);
	assert_int_equal(admit(&m, 1, 3, 9, 3, 1024), LSW_DROP_NONE);
	assert_int_equal(admit(&m, 1, 3, 9, 3, 1024), LSW_DROP_NONE);
	/* Each PG is within its own 8 KB, but the pool's 4 KB are used up. */
	assert_int_equal(admit(&m, 1, 3, 9, 3, 1024), LSW_DROP_HEADROOM_OVERFLOW);
	assert_int_equal(w0->use.pool_hdrm[0], 4096);
}

/* Thresholds at their edges: an idle PG never pauses, even with no shared buffer; a static
 * threshold of 0 is no limit (SAI), alpha 2^40 and more saturates instead of wrapping; and
 * headroom charged before BUFFER_POOL.xoff changes is given back exactly after it. */
static void
test_threshold_edges(void **state)
{
	struct lsw_pkt_meta m[4];

	(void)state;
	/* dynamic_th -8: no shared buffer; no reserve. Idle: no XOFF, ever. */
	mc.pg[0][3] = (struct lsw_prof_dp){.pool = 0, .dynamic = 1, .shift = -8,
					    .xoff = 8192, .lossless = 1};
	for (int i = 0; i < 3; i++)
		assert_false(lsw_buffer_pg_xoff(all, 1, &mc, 0, 3));
	assert_int_equal(admit(&m[0], 0, 3, 1, 3, 1024), LSW_DROP_NONE);
	assert_int_equal(m[0].in_part, LSW_PART_HEADROOM);
	assert_true(lsw_buffer_pg_xoff(all, 1, &mc, 0, 3));
	assert_false(lsw_buffer_pg_xon(all, 1, &mc, 0, 3));
	/* BUFFER_POOL.xoff appears while that packet sits in headroom: released exactly. */
	mc.pool[0].hdrm_shared = 65536;
	assert_int_equal(admit(&m[1], 0, 3, 1, 3, 1024), LSW_DROP_NONE);
	assert_int_equal(lsw_buffer_pg_occ(all, 1, 0, 3, LSW_PART_HEADROOM), 2048);
	mc.pool[0].hdrm_shared = 0; /* ... and goes again before the second leaves */
	lsw_buffer_release(w0, &mc, &m[0]);
	lsw_buffer_release(w0, &mc, &m[1]);
	assert_int_equal(w0->use.pool_hdrm[0], 0);
	assert_true(lsw_buffer_pg_xon(all, 1, &mc, 0, 3));
	assert_false(lsw_buffer_pg_xoff(all, 1, &mc, 0, 3));
	/* static_th 0: the whole shared pool (64 MB here), not nothing. */
	mc.pg[1][0] = (struct lsw_prof_dp){.pool = 0, .dynamic = 0, .static_th = 0};
	assert_int_equal(admit(&m[2], 1, 0, 1, 0, 1024), LSW_DROP_NONE);
	assert_int_equal(m[2].in_part, LSW_PART_SHARED);
	assert_true(lsw_buffer_threshold(&mc.pg[1][0], &mc.pool[0], 0) == 64 * MIB);
	/* alpha = 2^40, 2^63, 2^127: saturated thresholds, and packets admitted. */
	static const int8_t shifts[] = {40, 63, 127};
	for (size_t i = 0; i < RTE_DIM(shifts); i++) {
		mc.pg[2][0] = (struct lsw_prof_dp){.pool = 0, .dynamic = 1, .shift = shifts[i]};
		assert_true(lsw_buffer_threshold(&mc.pg[2][0], &mc.pool[0], 0) ==
			    (uint64_t)INT64_MAX);
		assert_int_equal(admit(&m[3], 2, 0, 1, 0, 1024), LSW_DROP_NONE);
		lsw_buffer_release(w0, &mc, &m[3]);
	}
	lsw_buffer_release(w0, &mc, &m[2]);
	assert_int_equal(w0->use.pool_used[0] + w0->use.pool_used[1], 0);
}

/* A run decides each packet as if admitted one by one. */
static void
test_run_equals_single(void **state)
{
	struct lsw_pkt_meta ms[40], m1[40];
	struct lsw_charge res[40];
	uint32_t len[40];
	uint8_t drop[40];

	(void)state;
	mc.pg[0][0] = (struct lsw_prof_dp){.pool = 0, .reserved = 3000, .dynamic = 0,
					    .static_th = 20000};
	for (int i = 0; i < 40; i++) {
		len[i] = 60 + (uint32_t)(i * 97 % 1400);
		ms[i] = (struct lsw_pkt_meta){.in_port = 0, .pg = 0, .out_port = 1, .queue = 0};
	}
	uint16_t ok = lsw_buffer_admit_run(all, 1, w1, &mc, &ms[0], len, 40, drop, res);
	for (int i = 0; i < 40; i++)
		if (drop[i] == LSW_DROP_NONE)
			lsw_meta_charge(&ms[i], &res[i]);
	struct lsw_buffer_lcore *runs = w1;
	w1 = calloc(1, sizeof(*w1)); /* now admit one by one into a fresh share */
	all[0] = w1;
	uint16_t ok1 = 0;
	for (int i = 0; i < 40; i++) {
		m1[i] = (struct lsw_pkt_meta){.in_port = 0, .pg = 0, .out_port = 1, .queue = 0};
		enum lsw_drop d = lsw_buffer_admit(all, 1, w1, &mc, &m1[i], len[i]);
		assert_int_equal(d, drop[i]);
		if (d == LSW_DROP_NONE) {
			ok1++;
			assert_int_equal(m1[i].in_part, ms[i].in_part);
			assert_int_equal(m1[i].charged, ms[i].charged);
		}
	}
	assert_int_equal(ok, ok1);
	assert_true(ok < 40); /* the case reaches the threshold */
	assert_memory_equal(runs->use.pg_occ, w1->use.pg_occ, sizeof(w1->use.pg_occ));
	assert_memory_equal(runs->ctr.tc_hist, w1->ctr.tc_hist, sizeof(w1->ctr.tc_hist));
	free(runs);
	all[0] = w0;
}

/* Admit @pre packets of @pre_len one by one into @w, then @k of @len: as a run when @run. */
static void
sweep_admit(struct lsw_buffer_lcore *w, int pre, uint32_t pre_len, const uint32_t *len, int k,
	    bool run, struct lsw_pkt_meta *ms, uint8_t *drop)
{
	struct lsw_pkt_meta pm;
	struct lsw_charge res[40];

	all[0] = w;
	for (int i = 0; i < pre; i++) {
		pm = (struct lsw_pkt_meta){.in_port = 3, .pg = 1, .out_port = 4, .queue = 2};
		(void)lsw_buffer_admit(all, 1, w, &mc, &pm, pre_len);
	}
	for (int i = 0; i < k; i++) {
		ms[i] = (struct lsw_pkt_meta){.in_port = 3, .pg = 1, .out_port = 4, .queue = 2};
		if (!run)
			drop[i] = (uint8_t)lsw_buffer_admit(all, 1, w, &mc, &ms[i], len[i]);
	}
	if (!run)
		return;
	(void)lsw_buffer_admit_run(all, 1, w, &mc, &ms[0], len, (uint16_t)k, drop, res);
	for (int i = 0; i < k; i++)
		if (drop[i] == LSW_DROP_NONE)
			lsw_meta_charge(&ms[i], &res[i]);
}

/* A run that fits is decided for the whole run at once: the same as one by one at every
 * policy, reserve and occupancy, and on both sides of each boundary. */
static void
test_run_fast_equals_single(void **state)
{
	static const uint8_t policies[] = {LSW_POLICY_DT, LSW_POLICY_STATIC,
					   LSW_POLICY_COMPLETE_SHARING, LSW_POLICY_PARTITIONED};
	static const uint32_t reserves[] = {0, 1000, 2050, 4096}; /* not all whole cells */
	struct lsw_pkt_meta ms[40], m1[40];
	uint8_t drop_r[40], drop_1[40];
	uint32_t len[40];
	int cases = 0, all_admitted = 0, some_dropped = 0;

	(void)state;
	for (int i = 0; i < 40; i++)
		len[i] = i % 3 == 0 ? 64 : 60 + (uint32_t)(i * 37 % 200);
	for (size_t po = 0; po < RTE_DIM(policies); po++)
	for (size_t r = 0; r < RTE_DIM(reserves); r++)
	for (int lossless = 0; lossless < 2; lossless++)
	for (int pre = 0; pre < 120; pre += 7) {
		mc.pool[0] = (struct lsw_pool_dp){.size = 32768, .shared = 16384,
						   .part_share = 6000, .policy = policies[po]};
		mc.pool[1] = (struct lsw_pool_dp){.size = 32768, .shared = 12000,
						   .part_share = 5000, .policy = policies[po]};
		mc.pg[3][1] = (struct lsw_prof_dp){.pool = 0, .reserved = reserves[r],
						    .dynamic = policies[po] != LSW_POLICY_STATIC,
						    .shift = -1, .static_th = 5000,
						    .xoff = lossless ? 3000 : 0,
						    .lossless = (uint8_t)lossless};
		mc.q[4][2] = (struct lsw_prof_dp){.pool = 1, .reserved = reserves[3 - r],
						   .dynamic = policies[po] != LSW_POLICY_STATIC,
						   .shift = 0, .static_th = 7000};
		struct lsw_buffer_lcore *wr = calloc(1, sizeof(*wr));
		struct lsw_buffer_lcore *w1s = calloc(1, sizeof(*w1s));
		int k = 8 + pre % 33;
		uint32_t pre_len = pre % 2 ? 64 : 128;
		sweep_admit(wr, pre, pre_len, len, k, true, ms, drop_r);
		sweep_admit(w1s, pre, pre_len, len, k, false, m1, drop_1);
		int admitted = 0;
		for (int i = 0; i < k; i++) {
			assert_int_equal(drop_r[i], drop_1[i]);
			if (drop_r[i] != LSW_DROP_NONE)
				continue;
			admitted++;
			assert_int_equal(ms[i].in_part, m1[i].in_part);
			assert_int_equal(ms[i].eg_part, m1[i].eg_part);
			assert_int_equal(ms[i].charged, m1[i].charged);
		}
		assert_memory_equal(&wr->use, &w1s->use, sizeof(wr->use));
		assert_memory_equal(&wr->ctr, &w1s->ctr, sizeof(wr->ctr));
		all_admitted += admitted == k;
		some_dropped += admitted < k;
		cases++;
		free(wr);
		free(w1s);
	}
	all[0] = w0;
	/* The sweep crosses the boundaries: runs that fit whole and runs that do not. */
	assert_true(all_admitted > cases / 8 && some_dropped > cases / 8);
}

/* Admitted by one worker, released by another: the sums are what counts. */
static void
test_two_workers(void **state)
{
	struct lsw_pkt_meta m[8];

	(void)state;
	for (int i = 0; i < 8; i++) {
		m[i] = (struct lsw_pkt_meta){.in_port = 1, .pg = 0, .out_port = 2, .queue = 1};
		assert_int_equal(lsw_buffer_admit(all, 2, w0, &mc, &m[i], 100), LSW_DROP_NONE);
	}
	for (int i = 0; i < 8; i++)
		lsw_buffer_release(w1, &mc, &m[i]);
	assert_true(w0->use.q_occ[2][1][1] == 8 * 128 && w1->use.q_occ[2][1][1] == -8 * 128);
	assert_int_equal(q_total(2, 1), 0);
	assert_int_equal(lsw_buffer_pool_shared(all, 2, 0) + lsw_buffer_pool_shared(all, 2, 1), 0);
}

/* The pool-wide sums a worker takes once a loop: its own share current, the others' as
 * taken; the per-PG and per-queue ones live. A packet limit of 10, lossless (alpha aside). */
static void
test_seen_sums(void **state)
{
	struct lsw_pkt_meta m[16];

	(void)state;
	mc.pkt_limit = mc.pkt_xoff = mc.pkt_xon = 10;
	mc.pg[1][3] = (struct lsw_prof_dp){.pool = 0, .dynamic = 1, .shift = 7,
					    .xoff = 1 << 20, .lossless = 1};
	for (int i = 0; i < 16; i++)
		m[i] = (struct lsw_pkt_meta){.in_port = 1, .pg = 3, .out_port = 2, .queue = 3};
	for (int i = 0; i < 4; i++)
		assert_int_equal(lsw_buffer_admit(all, 2, w1, &mc, &m[i], 100), LSW_DROP_NONE);
	lsw_buffer_seen_take(all, 2, w0, mc.n_pools);
	assert_int_equal(w0->seen.pkts_held, 4);
	assert_int_equal(w0->seen.pool_shared[0], 4 * 128);
	assert_int_equal(w0->seen.pool_used[1], 4 * 128);
	/* Worker 1 admits 4 more after the take: worker 0 sees 4 held, so 6 fit... */
	for (int i = 4; i < 8; i++)
		assert_int_equal(lsw_buffer_admit(all, 2, w1, &mc, &m[i], 100), LSW_DROP_NONE);
	for (int i = 8; i < 14; i++)
		assert_int_equal(lsw_buffer_admit(all, 2, w0, &mc, &m[i], 100), LSW_DROP_NONE);
	/* ...its own admissions count at once... */
	assert_int_equal(lsw_buffer_admit(all, 2, w0, &mc, &m[14], 100), LSW_DROP_MBUF_LIMIT);
	/* ...and the next loop's take has the rest: nothing more fits. */
	assert_int_equal(lsw_buffer_pkts_held(all, 2), 14);
	lsw_buffer_seen_take(all, 2, w0, mc.n_pools);
	assert_int_equal(w0->seen.pkts_held, 8);
	assert_int_equal(lsw_buffer_admit(all, 2, w0, &mc, &m[15], 100), LSW_DROP_MBUF_LIMIT);
	/* Released by either worker, the sums come back to 0. */
	for (int i = 0; i < 14; i++)
		lsw_buffer_release(i % 2 ? w0 : w1, &mc, &m[i]);
	lsw_buffer_seen_take(all, 2, w0, mc.n_pools);
	assert_int_equal(w0->seen.pkts_held + w0->use.pkts_held, 0);
	assert_int_equal(LSW_BUFFER_POOLWIDE(all, 2, w0, pool_shared[0]), 0);
	assert_int_equal(LSW_BUFFER_POOLWIDE(all, 2, w0, pool_used[1]), 0);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_charge_exact),
		cmocka_unit_test(test_t1_dynamic_threshold),
		cmocka_unit_test_setup_teardown(test_reserve_shared_headroom, setup, teardown),
		cmocka_unit_test_setup_teardown(test_xon_offset, setup, teardown),
		cmocka_unit_test_setup_teardown(test_mbuf_limit, setup, teardown),
		cmocka_unit_test_setup_teardown(test_threshold_edges, setup, teardown),
		cmocka_unit_test_setup_teardown(test_lossy_drops, setup, teardown),
		cmocka_unit_test_setup_teardown(test_shared_headroom, setup, teardown),
		cmocka_unit_test_setup_teardown(test_run_equals_single, setup, teardown),
		cmocka_unit_test_setup_teardown(test_run_fast_equals_single, setup, teardown),
		cmocka_unit_test_setup_teardown(test_two_workers, setup, teardown),
		cmocka_unit_test_setup_teardown(test_seen_sums, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
