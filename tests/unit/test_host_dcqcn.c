/* SPDX-License-Identifier: BSD-3-Clause */
/* DCQCN on a fake clock (Zhu et al., SIGCOMM 2015): the NP's CNP pacing, the RP's
 * cut, fast recovery, alpha's decay, the increase stages and each named profile. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <math.h>
#include <cmocka.h>
#include "dcqcn.h"

#define US 1000ull
#define LINE 10000000000ull

/* 10 ms of all-CE traffic (a packet a microsecond) with a 50 us interval: 200 +- 1 CNPs;
 * four QPs, four times as many. */
static void
np_pacing(void **state)
{
	struct lsw_dcqcn_conf c;
	uint64_t last[4] = {0}, cnps = 0;

	(void)state;
	lsw_dcqcn_profile(LSW_DCQCN_PAPER, LINE, &c);
	assert_int_equal(c.cnp_interval_ns, 50 * US);
	for (uint64_t t = 1000; t <= 10000 * US; t += US)
		cnps += lsw_dcqcn_np_ce(&last[0], &c, t);
	assert_true(cnps >= 199 && cnps <= 201);
	cnps = 0;
	for (int q = 0; q < 4; q++)
		last[q] = 0;
	for (uint64_t t = 1000; t <= 10000 * US; t += US)
		for (int q = 0; q < 4; q++)
			cnps += lsw_dcqcn_np_ce(&last[q], &c, t + (uint64_t)q * 250);
	assert_true(cnps >= 4 * 199 && cnps <= 4 * 201);
}

/* One CNP with alpha 1 halves the rate; RT keeps the old rate; fast recovery halves the gap
 * each period: >= 98.4% of RT after 5. */
static void
rp_cut_and_recover(void **state)
{
	struct lsw_dcqcn_conf c;
	struct lsw_dcqcn_rp rp;

	(void)state;
	lsw_dcqcn_profile(LSW_DCQCN_PAPER, LINE, &c);
	c.byte_counter = 0; /* the timer alone, so that the periods are exact */
	lsw_dcqcn_rp_init(&rp, &c, LINE, 0);
	assert_true(rp.alpha == 1.0);
	assert_int_equal(lsw_dcqcn_rp_cnp(&rp, &c, LINE, 1000), LSW_DCQCN_CNP_CUT);
	assert_true(fabs(rp.rc - LINE / 2.0) < 1);
	assert_true(rp.rt == (double)LINE);
	for (int n = 1; n <= 5; n++) {
		lsw_dcqcn_rp_advance(&rp, &c, LINE, 1000 + (uint64_t)n * c.rate_timer_ns);
		double want = LINE - (LINE / 2.0) / pow(2, n);
		assert_true(fabs(rp.rc - want) < 1);
	}
	assert_true(rp.rc >= 0.984 * rp.rt);
	assert_int_equal(rp.increases[0], 5);
	assert_int_equal(rp.increases[1], 0);
}

/* With g = 1/256 alpha halves in about 177 alpha-timer periods (ln 2 / -ln(1 - g)). */
static void
rp_alpha_half_life(void **state)
{
	struct lsw_dcqcn_conf c;
	struct lsw_dcqcn_rp rp;
	int n;

	(void)state;
	lsw_dcqcn_profile(LSW_DCQCN_PAPER, LINE, &c);
	lsw_dcqcn_rp_init(&rp, &c, LINE, 0);
	lsw_dcqcn_rp_cnp(&rp, &c, LINE, 0); /* alpha 1 from here, its timer running */
	assert_true(rp.alpha == 1.0);
	for (n = 1; n < 1000; n++) {
		lsw_dcqcn_rp_advance(&rp, &c, LINE, (uint64_t)n * c.alpha_timer_ns);
		if (rp.alpha <= 0.5)
			break;
	}
	assert_true(n >= 176 && n <= 178);
	/* A CNP: alpha = (1 - g) alpha + g. */
	double a = rp.alpha;
	lsw_dcqcn_rp_cnp(&rp, &c, LINE, (uint64_t)n * c.alpha_timer_ns);
	assert_true(fabs(rp.alpha - ((1 - c.g) * a + c.g)) < 1e-12);
}

/* After F stages, additive increase moves RT by R_AI; once both counters are past F, hyper
 * increase by R_HAI. */
static void
rp_stages(void **state)
{
	struct lsw_dcqcn_conf c;
	struct lsw_dcqcn_rp rp;

	(void)state;
	lsw_dcqcn_profile(LSW_DCQCN_PAPER, LINE, &c);
	lsw_dcqcn_rp_init(&rp, &c, LINE, 0);
	lsw_dcqcn_rp_cnp(&rp, &c, LINE, 0);
	lsw_dcqcn_rp_cnp(&rp, &c, LINE, 1); /* a second cut right after: RT stays (clamp) */
	double rt = rp.rt;
	/* Timer stages 1..5: fast recovery. 6: additive (byte stage still 0). */
	lsw_dcqcn_rp_advance(&rp, &c, LINE, 1 + 6 * c.rate_timer_ns);
	assert_int_equal(rp.increases[0], 5);
	assert_int_equal(rp.increases[1], 1);
	assert_true(fabs(rp.rt - (rt + c.rai_bps)) < 1);
	/* Six byte-counter events: both counters past F, so the next is hyper. */
	lsw_dcqcn_rp_sent(&rp, &c, LINE, (uint32_t)(6 * c.byte_counter));
	double before = rp.rt;
	lsw_dcqcn_rp_advance(&rp, &c, LINE, 1 + 7 * c.rate_timer_ns);
	assert_true(rp.increases[2] >= 1);
	assert_true(rp.rt > before || rp.rt == (double)LINE);
}

/* NVIDIA's decrease is at most min_dec_fac; the HPCC simulator's does not clamp RT on a
 * second cut with no increase in between; rates never leave [min_rate, line]. */
static void
rp_profiles(void **state)
{
	struct lsw_dcqcn_conf c;
	struct lsw_dcqcn_rp rp;

	(void)state;
	lsw_dcqcn_profile(LSW_DCQCN_MLX, LINE, &c);
	assert_int_equal(c.rate_reduce_ns, 4 * US);
	lsw_dcqcn_rp_init(&rp, &c, LINE, 0);
	rp.alpha = 1.0;
	lsw_dcqcn_rp_cnp(&rp, &c, LINE, 0);
	assert_true(rp.rc >= LINE * 0.5 - 1);
	/* Within the rate-reduce period the CNP waits, and acts when the period ends. */
	assert_int_equal(lsw_dcqcn_rp_cnp(&rp, &c, LINE, 2 * US), LSW_DCQCN_CNP_DEFERRED);
	assert_true(rp.cnp_pending);
	assert_int_equal(lsw_dcqcn_rp_cnp(&rp, &c, LINE, 3 * US), LSW_DCQCN_CNP_MERGED);
	double rc = rp.rc;
	lsw_dcqcn_rp_advance(&rp, &c, LINE, 4 * US);
	assert_true(rp.rc < rc);
	assert_int_equal(rp.decreases, 2);

	lsw_dcqcn_profile(LSW_DCQCN_HPCC_SIM, 25000000000ull, &c);
	assert_int_equal(c.rai_bps, 5000000);
	assert_int_equal(c.rhai_bps, 50000000);
	lsw_dcqcn_rp_init(&rp, &c, 25000000000ull, 0);
	lsw_dcqcn_rp_cnp(&rp, &c, 25000000000ull, 0);
	double rt = rp.rt;
	lsw_dcqcn_rp_cnp(&rp, &c, 25000000000ull, 10 * US);
	assert_true(rp.rt == rt); /* no increase in between: the target stays */
	for (int i = 0; i < 200; i++)
		lsw_dcqcn_rp_cnp(&rp, &c, 25000000000ull, (uint64_t)(20 + 10 * i) * US);
	assert_true(rp.rc >= (double)c.min_rate_bps);
	lsw_dcqcn_rp_advance(&rp, &c, 25000000000ull, 10000000000ull);
	assert_true(rp.rc <= 25000000000.0);
}

/* A QP created long before its traffic: no alpha decay and no timers before its first CNP,
 * which finds alpha at its initial value (mlx5's INITIAL_ALPHA_VALUE) and cuts with it;
 * alpha moves after the cut (the paper's order). */
static void
rp_alpha_starts_at_first_cnp(void **state)
{
	struct lsw_dcqcn_conf c;
	struct lsw_dcqcn_rp rp;

	(void)state;
	for (int p = 0; p < LSW_DCQCN_PROFILE_MAX; p++) {
		lsw_dcqcn_profile((enum lsw_dcqcn_profile)p, LINE, &c);
		lsw_dcqcn_rp_init(&rp, &c, LINE, 0);
		lsw_dcqcn_rp_advance(&rp, &c, LINE, 1000000000ull); /* a second idle */
		assert_true(rp.alpha == c.initial_alpha);
		assert_true(rp.rc == (double)LINE);
		assert_int_equal(lsw_dcqcn_rp_next(&rp, &c), UINT64_MAX);
		assert_int_equal(lsw_dcqcn_rp_cnp(&rp, &c, LINE, 1000000000ull),
				 LSW_DCQCN_CNP_CUT);
		double cut = LINE * c.initial_alpha / 2;
		double most = LINE * (100 - c.min_dec_fac) / 100.0;
		assert_true(fabs(rp.rc - (LINE - (cut < most ? cut : most))) < 1);
		assert_true(fabs(rp.alpha - ((1 - c.g) * c.initial_alpha + c.g)) < 1e-12);
	}
}

/* Every CNP is a cut, a deferred cut or merged into a waiting one: over a random stream of
 * CNPs and timer runs, cuts + deferred + merged = CNPs, and once every period has ended
 * the decreases are the cuts and the deferred ones. Each cut leaves at most
 * RC (1 - alpha/2) with the alpha before it. */
static void
rp_every_cnp_accounted(void **state)
{
	struct lsw_dcqcn_conf c;
	struct lsw_dcqcn_rp rp;
	uint64_t n[3] = {0}, now = 0, seed = 12345;

	(void)state;
	for (int p = 0; p < LSW_DCQCN_PROFILE_MAX; p++) {
		lsw_dcqcn_profile((enum lsw_dcqcn_profile)p, LINE, &c);
		lsw_dcqcn_scale(&c, 40);
		lsw_dcqcn_rp_init(&rp, &c, LINE, now);
		n[0] = n[1] = n[2] = 0;
		for (int i = 0; i < 20000; i++) {
			seed = seed * 6364136223846793005ull + 1442695040888963407ull;
			now += (seed >> 33) % (2 * c.rate_timer_ns / 3 + 1);
			if ((seed >> 20) & 1) {
				lsw_dcqcn_rp_advance(&rp, &c, LINE, now);
				continue;
			}
			lsw_dcqcn_rp_advance(&rp, &c, LINE, now);
			double rc = rp.rc, alpha = rp.alpha;
			bool pending = rp.cnp_pending;
			enum lsw_dcqcn_cnp w = lsw_dcqcn_rp_cnp(&rp, &c, LINE, now);
			n[w]++;
			if (w == LSW_DCQCN_CNP_CUT) {
				double most = rc * (100 - c.min_dec_fac) / 100;
				double cut = rc * alpha / 2 < most ? rc * alpha / 2 : most;
				assert_true(rp.rc <= rc - cut + 1 ||
					    rp.rc == (double)c.min_rate_bps);
			} else {
				assert_true(rp.rc == rc);
				assert_int_equal(w == LSW_DCQCN_CNP_MERGED, pending);
			}
		}
		lsw_dcqcn_rp_advance(&rp, &c, LINE, now + c.rate_reduce_ns + 1);
		assert_int_equal(rp.decreases, n[LSW_DCQCN_CNP_CUT] + n[LSW_DCQCN_CNP_DEFERRED]);
		assert_true(n[LSW_DCQCN_CNP_CUT] > 0);
		/* Only profiles with a rate-reduce period defer or merge. */
		assert_int_equal(c.rate_reduce_ns == 0,
				 n[LSW_DCQCN_CNP_DEFERRED] + n[LSW_DCQCN_CNP_MERGED] == 0);
	}
}

/* A 100G profile run on a 1G link: times stretched 100x, rates shrunk 100x. */
static void
scale(void **state)
{
	struct lsw_dcqcn_conf c;

	(void)state;
	lsw_dcqcn_profile(LSW_DCQCN_MLX, 100000000000ull, &c);
	lsw_dcqcn_scale(&c, 100);
	assert_int_equal(c.rate_timer_ns, 30000 * US);
	assert_int_equal(c.cnp_interval_ns, 400 * US);
	assert_int_equal(c.rai_bps, 50000);
	assert_int_equal(c.min_rate_bps, 10000);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(np_pacing),
		cmocka_unit_test(rp_cut_and_recover),
		cmocka_unit_test(rp_alpha_half_life),
		cmocka_unit_test(rp_alpha_starts_at_first_cnp),
		cmocka_unit_test(rp_every_cnp_accounted),
		cmocka_unit_test(rp_stages),
		cmocka_unit_test(rp_profiles),
		cmocka_unit_test(scale),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
