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

static uint64_t
ns_of(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* A TSC reading and CLOCK_MONOTONIC_RAW at the same moment: taken between two reads of the
 * clock, again if something came between them. */
static void
raw_pair(uint64_t *tsc, uint64_t *raw)
{
	for (int i = 0; i < 8; i++) {
		uint64_t a = ns_of(CLOCK_MONOTONIC_RAW);
		*tsc = rte_rdtsc();
		uint64_t b = ns_of(CLOCK_MONOTONIC_RAW);
		*raw = a + (b - a) / 2;
		if (b - a < 2000)
			return;
	}
}

/*
 * DPDK's TSC rate is rounded to 10 MHz when the CPU does not tell it (VMs): up to 0.4%
 * wrong, 4 ms a second, enough to put a pause's reception before its sending when two
 * switches' timelines are compared. The clock measures the rate instead: over 20 ms now
 * (a few ppm), then over the whole run at each anchor.
 */
void
lsw_clock_calibrate(struct lsw_clock *c)
{
	uint64_t t1, r1;
	struct timespec d = {0, 20 * 1000000};

	raw_pair(&c->base_tsc, &c->base_raw);
	nanosleep(&d, NULL);
	raw_pair(&t1, &r1);
	c->hz = (uint64_t)((__int128)(t1 - c->base_tsc) * 1000000000 / (r1 - c->base_raw));
}

void
lsw_clock_anchor(struct lsw_clock *c, uint64_t hz)
{
	struct timespec ts;

	if (c->base_tsc != 0) {
		uint64_t t, r;
		raw_pair(&t, &r);
		hz = c->hz;
		if (r - c->base_raw >= 1000000000u)
			hz = (uint64_t)((__int128)(t - c->base_tsc) * 1000000000 /
					(r - c->base_raw));
	}

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
