/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ECN marking for DCQCN and WRED drop, at dequeue (as the HPCC and DCQCN simulators mark): on the
 * instantaneous bytes of the queue left behind the departing packet, nothing at or below
 * min, probability rising linearly to pmax at max, always above max; each packet drawn
 * independently (no RED count, no average). ECT(0)/ECT(1) packets are marked CE; others
 * are dropped instead only where the profile enables WRED drop. CNPs are never touched.
 */
#ifndef LSW_ECN_H
#define LSW_ECN_H

#include <stdbool.h>
#include <stdint.h>

/* Probabilities are fixed point: 2^48 is certainty, so that the slope over a curve of up
 * to 2^40 bytes keeps its precision and a draw is a compare. */
#define LSW_ECN_ONE (1ull << 48)

struct lsw_ecn_curve {
	uint64_t min, max;     /* bytes */
	uint64_t slope;        /* probability per byte above min */
};

/* One queue's profile, green (lsw has no policer). */
struct lsw_ecn_dp {
	struct lsw_ecn_curve mark; /* ECT packets */
	struct lsw_ecn_curve drop; /* the others (and ECT ones where marking is off) */
	bool marks, drops;
};

static inline void
lsw_ecn_curve_set(struct lsw_ecn_curve *c, uint64_t min, uint64_t max, unsigned int percent)
{
	c->min = min;
	c->max = max;
	c->slope = max > min ? LSW_ECN_ONE / 100 * percent / (max - min) : 0;
}

/* xorshift64*: a few cycles, one word of state per worker; the top 48 bits are used. */
static inline uint64_t
lsw_rand48(uint64_t *s)
{
	uint64_t x = *s;

	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	*s = x;
	return (x * 0x2545f4914f6cdd1dull) >> 16;
}

/* Does the curve fire for a queue of @q bytes? */
static inline bool
lsw_ecn_hit(const struct lsw_ecn_curve *c, uint64_t q, uint64_t *rng)
{
	if (q <= c->min)
		return false;
	if (q > c->max)
		return true;
	return lsw_rand48(rng) < c->slope * (q - c->min);
}

enum lsw_ecn_result { LSW_ECN_NOT_ECT, LSW_ECN_MARKED, LSW_ECN_WAS_CE };

/* Set CE on an ECT packet: IPv4 (@l3 at the header) with an RFC 1624 checksum update. */
enum lsw_ecn_result lsw_ecn_mark_ipv4(uint8_t *l3);
/* Set CE in an IPv6 traffic class (no header checksum). */
enum lsw_ecn_result lsw_ecn_mark_ipv6(uint8_t *l3);

#endif
