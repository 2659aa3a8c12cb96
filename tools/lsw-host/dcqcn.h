/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * DCQCN (Zhu et al., SIGCOMM 2015): the reaction point (RP) of a
 * sending QP and the notification point (NP) of a receiving one. Pure functions of their
 * state and the time in nanoseconds, so that tests drive them on a fake clock.
 */
#ifndef LSW_HOST_DCQCN_H
#define LSW_HOST_DCQCN_H

#include <stdbool.h>
#include <stdint.h>

enum lsw_cc_algo {
	LSW_CC_NONE,   /* line rate, CNPs ignored */
	LSW_CC_DCQCN,
	LSW_CC_ALGO_MAX,
};
extern const char *const lsw_cc_algo_names[LSW_CC_ALGO_MAX + 1];

/* The named parameter sets: the paper's, NVIDIA's firmware's, the HPCC simulator's. */
enum lsw_dcqcn_profile {
	LSW_DCQCN_PAPER,     /* the paper, as the papers citing it give it */
	LSW_DCQCN_MLX,       /* NVIDIA firmware defaults (mlxconfig, mlx5 cong.c) */
	LSW_DCQCN_HPCC_SIM,  /* the HPCC simulator's run.py "dcqcn" runs */
	LSW_DCQCN_PROFILE_MAX,
};
extern const char *const lsw_dcqcn_profile_names[LSW_DCQCN_PROFILE_MAX + 1];

struct lsw_dcqcn_conf {
	double g;                   /* alpha's gain */
	double initial_alpha;
	uint64_t alpha_timer_ns;    /* K: alpha decays once per K without a CNP */
	uint64_t rate_timer_ns;     /* T: a rate-increase event per T */
	uint64_t byte_counter;      /* B: a rate-increase event per B bytes sent; 0 = none */
	uint32_t fast_recovery;     /* F: stages of fast recovery */
	uint64_t rai_bps;           /* additive increase */
	uint64_t rhai_bps;          /* hyper increase */
	uint64_t min_rate_bps;
	uint64_t cnp_interval_ns;   /* NP: at most one CNP per QP per interval */
	uint64_t rate_reduce_ns;    /* RP: at most one decrease per period (later CNPs wait) */
	uint32_t min_dec_fac;       /* a decrease leaves at least this % of the rate */
	bool clamp_tgt_rate;        /* every decrease sets RT = RC; else only after an increase */
	uint64_t rate_on_first_cnp_bps; /* 0 = keep the current rate */
};

/* @p's parameters for a link of @line_bps. @scale stretches time (and shrinks rates) by
 * model speed / link speed, so that a 1 Gb/s lab behaves like a 100 Gb/s fabric slowed. */
void lsw_dcqcn_profile(enum lsw_dcqcn_profile p, uint64_t line_bps, struct lsw_dcqcn_conf *c);
void lsw_dcqcn_scale(struct lsw_dcqcn_conf *c, double scale);

/* The RP of one QP. Until its first CNP a QP sends at the line rate with no rate limiter:
 * alpha and the timers start there (mlx5 sets INITIAL_ALPHA_VALUE when a CNP creates the
 * flow's rate limiter), so that a QP created long before its traffic starts is cut at its
 * first CNP as a fresh one is. */
struct lsw_dcqcn_rp {
	double rc, rt;              /* current and target rate, bits/s */
	double alpha;
	uint64_t alpha_next;        /* when alpha next decays (after the first CNP) */
	uint64_t rate_next;         /* when the rate timer next fires (after the first CNP) */
	uint64_t bytes;             /* bytes sent since the last byte-counter event */
	uint32_t t_stage, b_stage;  /* increase events since the last decrease */
	uint64_t last_decrease;
	bool cnp_pending;           /* a CNP waits for the rate-reduce period to end */
	bool seen_cnp;
	uint64_t decreases, increases[3]; /* fast recovery, additive, hyper */
};

/* What a CNP did: every CNP the RP receives is one of these. */
enum lsw_dcqcn_cnp {
	LSW_DCQCN_CNP_CUT,      /* the rate was cut now */
	LSW_DCQCN_CNP_DEFERRED, /* inside the rate-reduce period: the cut comes at its end */
	LSW_DCQCN_CNP_MERGED,   /* a cut already waits for that end: this CNP moved only alpha */
};

void lsw_dcqcn_rp_init(struct lsw_dcqcn_rp *rp, const struct lsw_dcqcn_conf *c,
		       uint64_t line_bps, uint64_t now);
/* A CNP arrived. */
enum lsw_dcqcn_cnp lsw_dcqcn_rp_cnp(struct lsw_dcqcn_rp *rp, const struct lsw_dcqcn_conf *c,
				    uint64_t line_bps, uint64_t now);
/* Timers up to @now: alpha decay, rate increases, a decrease that waited. */
void lsw_dcqcn_rp_advance(struct lsw_dcqcn_rp *rp, const struct lsw_dcqcn_conf *c,
			  uint64_t line_bps, uint64_t now);
/* @bytes were sent (the byte counter). */
void lsw_dcqcn_rp_sent(struct lsw_dcqcn_rp *rp, const struct lsw_dcqcn_conf *c,
		       uint64_t line_bps, uint32_t bytes);
/* The next time lsw_dcqcn_rp_advance has something to do. */
uint64_t lsw_dcqcn_rp_next(const struct lsw_dcqcn_rp *rp, const struct lsw_dcqcn_conf *c);

/* NP: a CE-marked packet of a QP whose last CNP went out at *@last (0: never). True when
 * a CNP is to be sent now, and *@last is then @now. */
static inline bool
lsw_dcqcn_np_ce(uint64_t *last, const struct lsw_dcqcn_conf *c, uint64_t now)
{
	if (*last != 0 && now - *last < c->cnp_interval_ns)
		return false;
	*last = now ? now : 1;
	return true;
}

#endif
