/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef LSW_HOST_RESULTS_H
#define LSW_HOST_RESULTS_H

#include <stdbool.h>
#include <jansson.h>
#include "host.h"

struct lsw_host_run_state {
	uint64_t end_ns;
	bool done;          /* every message completed or failed */
	bool interrupted;   /* stopped by a signal */
	uint64_t peak_rss;  /* bytes: the process's most resident memory */
	uint64_t start_unix_ns; /* the workload's time 0 on the wall clock (CLOCK_REALTIME) */
};

/* The run as one JSON document: hosts with their counters, QPs, messages with their FCT,
 * collectives, rate samples. */
json_t *lsw_host_results(const struct lsw_hosts *e, const struct lsw_host_run_state *st);

#endif
