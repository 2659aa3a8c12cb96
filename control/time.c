/* SPDX-License-Identifier: BSD-3-Clause */
#include <time.h>
#include <rte_cycles.h>
#include "switch.h"

/* The control plane's clock: monotonic nanoseconds, for RPC timestamps, ages and timeouts.
 * The workers use the TSC they read once per loop instead. */
uint64_t
lsw_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

void
lsw_clock_anchor(struct lsw_clock *c, uint64_t hz)
{
	struct timespec ts;

	/* The TSC read between two reads of the wall clock: the pair is as close as the
	 * machine allows, whatever preempts us between the calls. */
	clock_gettime(CLOCK_REALTIME, &ts);
	uint64_t a = (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
	c->tsc0 = rte_rdtsc();
	clock_gettime(CLOCK_REALTIME, &ts);
	uint64_t b = (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
	c->wall0 = a + (b - a) / 2;
	c->hz = hz;
}

uint64_t
lsw_clock_wall_ns(const struct lsw_clock *c, uint64_t tsc)
{
	int64_t d = (int64_t)(tsc - c->tsc0); /* events may precede the anchor */
	__int128 ns = (__int128)d * 1000000000 / (__int128)c->hz;

	return (uint64_t)((__int128)c->wall0 + ns);
}
