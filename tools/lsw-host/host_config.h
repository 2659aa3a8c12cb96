/* SPDX-License-Identifier: BSD-3-Clause */
/* lsw-host's configuration file: hosts, congestion control, workload, run settings. */
#ifndef LSW_HOST_CONFIG_H
#define LSW_HOST_CONFIG_H

#include "jsonv.h" /* control/json: struct lsw_errs and the JSON readers */
#include "host.h"

struct lsw_host_run {
	char results[LSW_HOST_MAX_PATH];  /* where the results go ("" = none) */
	uint64_t duration_ns;             /* a hard stop (0: when the work is done) */
	uint64_t linger_ns;               /* after the work: time for the last ACKs, pauses */
	uint64_t idle_sleep_ns;           /* sleep at most this long when nothing is due */
	unsigned int cpu;                 /* the lcore's CPU */
	uint64_t seed;
	uint32_t mbufs;
};

/* Read @path into @e (hosts, QPs, posts, collectives) and @run. Hosts named in @only (a
 * comma-separated list, NULL for all) are run here; the others are only addressed. Every
 * error is added to @errs with its JSON path; returns 0 when there is none. */
int lsw_host_config_load(const char *path, const char *only, struct lsw_hosts *e,
			 struct lsw_host_run *run, struct lsw_errs *errs);

/* Workloads (workload.c): expand @w (the config's "workload" list) into QPs and posts. */
void lsw_host_workload(json_t *w, const char *path, struct lsw_hosts *e,
		       const struct lsw_host_run *run, const char *cdf_dir, struct lsw_errs *errs);

/* A speed: an integer in Mb/s (as SONiC's PORT.speed) or a string "25G", "100M", "1.5G". */
bool lsw_host_jv_speed(json_t *v, const char *path, uint64_t *bps, struct lsw_errs *errs);

#endif
