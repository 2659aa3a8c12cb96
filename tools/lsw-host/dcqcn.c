/* SPDX-License-Identifier: BSD-3-Clause */
#include <string.h>
#include <rte_common.h>
#include "dcqcn.h"

const char *const lsw_cc_algo_names[LSW_CC_ALGO_MAX + 1] = {"none", "dcqcn", NULL};
const char *const lsw_dcqcn_profile_names[LSW_DCQCN_PROFILE_MAX + 1] = {
	"paper", "mlx", "hpcc-sim", NULL};

#define US 1000ull
#define MBPS 1000000ull

void
lsw_dcqcn_profile(enum lsw_dcqcn_profile p, uint64_t line_bps, struct lsw_dcqcn_conf *c)
{
	memset(c, 0, sizeof(*c));
	c->initial_alpha = 1.0;
	c->min_dec_fac = 50;
	switch (p) {
	case LSW_DCQCN_PAPER:
		/* Zhu et al. as later papers cite it. R_HAI and the minimum rate are not given:
		 * 10 x R_AI is the ratio the HPCC simulator and NVIDIA use, 1 Mb/s NVIDIA's
		 * floor. */
		c->g = 1.0 / 256;
		c->alpha_timer_ns = 55 * US;
		c->rate_timer_ns = 55 * US;
		c->byte_counter = 10000000;
		c->fast_recovery = 5;
		c->rai_bps = 40 * MBPS;
		c->rhai_bps = 400 * MBPS;
		c->min_rate_bps = 1 * MBPS;
		c->cnp_interval_ns = 50 * US;
		c->clamp_tgt_rate = true;
		break;
	case LSW_DCQCN_MLX:
		/* NVIDIA firmware: alpha in 0..1023 with DCE_TCP_G 1019 is a gain of 5/1024, its
		 * timer DCE_TCP_RTT 1 us; RPG_BYTE_RESET 32767 units of 64 bytes. */
		c->g = 5.0 / 1024;
		c->initial_alpha = 1023.0 / 1024;
		c->alpha_timer_ns = 1 * US;
		c->rate_timer_ns = 300 * US;
		c->byte_counter = 32767ull * 64;
		c->fast_recovery = 1;
		c->rai_bps = 5 * MBPS;
		c->rhai_bps = 50 * MBPS;
		c->min_rate_bps = 1 * MBPS;
		c->cnp_interval_ns = 4 * US;
		c->rate_reduce_ns = 4 * US;
		c->clamp_tgt_rate = false;
		break;
	case LSW_DCQCN_HPCC_SIM:
	default:
		/* The HPCC simulator's run.py "dcqcn" at bw Gb/s: the increases scale with it. */
		c->g = 1.0 / 256;
		c->alpha_timer_ns = 1 * US;
		c->rate_timer_ns = 300 * US;
		c->byte_counter = 0;
		c->fast_recovery = 0; /* its rpgThreshold 1: additive at the first event */
		c->rai_bps = 5 * MBPS * line_bps / 25000000000ull;
		c->rhai_bps = 50 * MBPS * line_bps / 25000000000ull;
		c->min_rate_bps = 100 * MBPS;
		c->cnp_interval_ns = 4 * US;
		c->rate_reduce_ns = 4 * US;
		c->clamp_tgt_rate = false;
		break;
	}
}

void
lsw_dcqcn_scale(struct lsw_dcqcn_conf *c, double scale)
{
	if (scale <= 0 || scale == 1.0)
		return;
	c->alpha_timer_ns = (uint64_t)(c->alpha_timer_ns * scale);
	c->rate_timer_ns = (uint64_t)(c->rate_timer_ns * scale);
	c->cnp_interval_ns = (uint64_t)(c->cnp_interval_ns * scale);
	c->rate_reduce_ns = (uint64_t)(c->rate_reduce_ns * scale);
	/* A byte counter is a time at the line rate: the same bytes take @scale times as long
	 * at the slower link, so it stays. Rates shrink with the link. */
	c->rai_bps = (uint64_t)(c->rai_bps / scale);
	c->rhai_bps = (uint64_t)(c->rhai_bps / scale);
	c->min_rate_bps = (uint64_t)(c->min_rate_bps / scale);
	c->rate_on_first_cnp_bps = (uint64_t)(c->rate_on_first_cnp_bps / scale);
}

void
lsw_dcqcn_rp_init(struct lsw_dcqcn_rp *rp, const struct lsw_dcqcn_conf *c, uint64_t line_bps,
		  uint64_t now)
{
	(void)now;
	memset(rp, 0, sizeof(*rp));
	rp->rc = rp->rt = (double)line_bps;
	rp->alpha = c->initial_alpha;
}

static double
clamp_rate(double r, const struct lsw_dcqcn_conf *c, uint64_t line_bps)
{
	if (r > (double)line_bps)
		return (double)line_bps;
	if (r < (double)c->min_rate_bps)
		return (double)c->min_rate_bps;
	return r;
}

static void
decrease(struct lsw_dcqcn_rp *rp, const struct lsw_dcqcn_conf *c, uint64_t line_bps,
	 uint64_t now)
{
	/* Without clamping, a decrease right after another keeps the target: RT stays at the
	 * rate before the first cut, so that recovery aims there (HPCC simulator, NVIDIA). */
	if (c->clamp_tgt_rate || rp->t_stage > 0 || rp->b_stage > 0 || rp->decreases == 0)
		rp->rt = rp->rc;
	double cut = rp->rc * rp->alpha / 2;
	double most = rp->rc * (100 - c->min_dec_fac) / 100;
	if (!rp->seen_cnp && c->rate_on_first_cnp_bps)
		rp->rc = (double)c->rate_on_first_cnp_bps;
	else
		rp->rc -= cut < most ? cut : most;
	rp->rc = clamp_rate(rp->rc, c, line_bps);
	rp->seen_cnp = true;
	rp->t_stage = rp->b_stage = 0;
	rp->bytes = 0;
	rp->rate_next = now + c->rate_timer_ns;
	rp->last_decrease = now;
	rp->cnp_pending = false;
	rp->decreases++;
}

enum lsw_dcqcn_cnp
lsw_dcqcn_rp_cnp(struct lsw_dcqcn_rp *rp, const struct lsw_dcqcn_conf *c, uint64_t line_bps,
		 uint64_t now)
{
	enum lsw_dcqcn_cnp what = LSW_DCQCN_CNP_CUT;

	if (!rp->seen_cnp) {
		/* The first CNP creates the rate limiter: alpha and the timers start now. */
		rp->alpha = c->initial_alpha;
		rp->alpha_next = now + c->alpha_timer_ns;
		rp->rate_next = now + c->rate_timer_ns;
	} else {
		lsw_dcqcn_rp_advance(rp, c, line_bps, now);
	}
	/* The rate at most once per rate-reduce period, with the alpha it had (the paper's
	 * order: RC <- RC (1 - alpha/2), then alpha <- (1 - g) alpha + g); alpha follows
	 * every CNP. */
	if (rp->decreases > 0 && now - rp->last_decrease < c->rate_reduce_ns)
		what = rp->cnp_pending ? LSW_DCQCN_CNP_MERGED : LSW_DCQCN_CNP_DEFERRED;
	if (what == LSW_DCQCN_CNP_CUT)
		decrease(rp, c, line_bps, now);
	else
		rp->cnp_pending = true;
	rp->alpha = (1 - c->g) * rp->alpha + c->g;
	rp->alpha_next = now + c->alpha_timer_ns;
	return what;
}

/* One rate-increase event. The first F events after a cut are fast recovery; then
 * additive; hyper once both the timer and the byte counter are past F (the paper). With no
 * byte counter the timer alone decides: additive at F + 1, hyper after (the HPCC
 * simulator's stage < F, == F, > F with its stage counted first, for F one higher). */
static void
increase(struct lsw_dcqcn_rp *rp, const struct lsw_dcqcn_conf *c, uint64_t line_bps)
{
	uint32_t f = c->fast_recovery;
	int kind;

	if (c->byte_counter == 0) {
		kind = rp->t_stage <= f ? 0 : rp->t_stage == f + 1 ? 1 : 2;
	} else {
		uint32_t hi = RTE_MAX(rp->t_stage, rp->b_stage);
		uint32_t lo = RTE_MIN(rp->t_stage, rp->b_stage);
		kind = hi <= f ? 0 : lo > f ? 2 : 1;
	}
	if (kind == 1)
		rp->rt += (double)c->rai_bps;
	else if (kind == 2)
		rp->rt += (double)c->rhai_bps;
	if (rp->rt > (double)line_bps)
		rp->rt = (double)line_bps;
	rp->rc = clamp_rate((rp->rt + rp->rc) / 2, c, line_bps);
	rp->increases[kind]++;
}

/* Timers that have fallen far behind (an idle QP) catch up in one step: past this many
 * periods nothing more changes than the limit already gives. */
#define CATCH_UP_MAX 4096

void
lsw_dcqcn_rp_advance(struct lsw_dcqcn_rp *rp, const struct lsw_dcqcn_conf *c,
		     uint64_t line_bps, uint64_t now)
{
	if (!rp->seen_cnp)
		return; /* no rate limiter yet: the line rate, no timers */
	if (rp->cnp_pending && now - rp->last_decrease >= c->rate_reduce_ns)
		decrease(rp, c, line_bps, rp->last_decrease + c->rate_reduce_ns);
	for (int n = 0; (int64_t)(now - rp->alpha_next) >= 0; n++) {
		if (n == CATCH_UP_MAX) {
			rp->alpha = 0;
			rp->alpha_next = now + c->alpha_timer_ns;
			break;
		}
		rp->alpha *= 1 - c->g;
		rp->alpha_next += c->alpha_timer_ns;
	}
	/* Once at the line rate, further increases change nothing. */
	for (int n = 0; (int64_t)(now - rp->rate_next) >= 0; n++) {
		if (n == CATCH_UP_MAX ||
		    (rp->rc >= (double)line_bps && rp->rt >= (double)line_bps)) {
			rp->rate_next = now + c->rate_timer_ns;
			break;
		}
		rp->t_stage++;
		increase(rp, c, line_bps);
		rp->rate_next += c->rate_timer_ns;
	}
}

void
lsw_dcqcn_rp_sent(struct lsw_dcqcn_rp *rp, const struct lsw_dcqcn_conf *c, uint64_t line_bps,
		  uint32_t bytes)
{
	if (c->byte_counter == 0 || !rp->seen_cnp)
		return;
	rp->bytes += bytes;
	while (rp->bytes >= c->byte_counter) {
		rp->bytes -= c->byte_counter;
		rp->b_stage++;
		increase(rp, c, line_bps);
	}
}

uint64_t
lsw_dcqcn_rp_next(const struct lsw_dcqcn_rp *rp, const struct lsw_dcqcn_conf *c)
{
	if (!rp->seen_cnp)
		return UINT64_MAX;
	uint64_t next = rp->alpha_next;

	if ((int64_t)(rp->rate_next - next) < 0)
		next = rp->rate_next;
	if (rp->cnp_pending) {
		uint64_t d = rp->last_decrease + c->rate_reduce_ns;
		if ((int64_t)(d - next) < 0)
			next = d;
	}
	return next;
}
