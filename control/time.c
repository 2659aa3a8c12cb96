/* SPDX-License-Identifier: BSD-3-Clause */
#include <time.h>
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
