/* SPDX-License-Identifier: BSD-3-Clause */
/* The control plane's view of the running switch. Only the main lcore touches this struct;
 * what workers read is in sw->dp (see include/lsw/dataplane.h). */
#ifndef LSW_SWITCH_H
#define LSW_SWITCH_H

#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <rte_ethdev.h>
#include "config.h"
#include "lsw/dataplane.h"
#include "pfcwd.h"

struct lsw_capture_ctl;
struct lsw_fibctl;
struct lsw_fib6ctl;
struct lsw_rpc_error;
struct lsw_rpc_server;

struct lsw_port_rt {
	uint16_t port_id;
	bool started;
	char driver[32];
	uint32_t speed;                 /* Mb/s in effect: PORT.speed, else the device's */
	bool link_down;                 /* oper down at the last link poll (ports.c) */
	struct rte_ether_addr mac;      /* in effect: configured, else the device's */
};

/* The last drops and marks the workers snapshotted (dropsnap.c). */
struct lsw_dropsnap_store {
	struct lsw_dropsnap *e;             /* [cap] */
	uint32_t cap, head, n;          /* head: the next slot written */
	uint64_t seq;                   /* snapshots ever stored */
};

/* Wall-clock time of a TSC value (time.c): a TSC reading and the CLOCK_REALTIME ns it was
 * taken at. Re-anchored every second by the main loop, so that the TSC's rate error and
 * the wall clock's adjustments (NTP) never add up over a long run. */
struct lsw_clock {
	uint64_t tsc0, wall0, hz;
	uint64_t base_tsc, base_raw;    /* lsw_clock_calibrate's start; 0: @hz as anchored */
};

/* The timeline recorder's control side (timeline.c): the run in progress or the last one. */
struct lsw_timeline_ctl {
	bool running;
	uint8_t what;                   /* LSW_TL_W bits */
	uint32_t ports;                 /* sampled ports, bit per port */
	uint32_t gen;                   /* runs started: the snapshot's timeline.gen */
	uint32_t interval_us;
	char file[1024];                /* "": the memory window */
	FILE *fp;                       /* the file while running */
	struct lsw_tl_rec *mem;         /* the memory window: [mem_cap], oldest overwritten */
	size_t mem_cap, mem_head, mem_n;
	char *header;                   /* the file's first two lines */
	uint64_t max_bytes, duration_ns;
	uint64_t start_ns, stop_ns;     /* lsw_now_ns() */
	uint64_t start_wall_ns;
	uint64_t records, bytes;        /* written (file) or recorded (memory) */
	uint64_t lost;                  /* records the workers could not record */
	uint64_t lost_seen[LSW_MAX_WORKERS]; /* each worker's TIMELINE_LOST last drained */
	uint64_t skipped_base, skipped; /* TIMELINE_SKIPPED at the start; over the run */
	bool full;                      /* the file reached max_bytes */
	int write_errno;
	const char *stop_reason;
};

/* timeline.start's params (rpc_timeline.c). */
struct lsw_timeline_req {
	uint32_t ports;
	uint8_t what;
	uint32_t interval_us;
	char file[1024];
	uint64_t max_bytes;
	uint64_t duration_ms;
};

struct lsw_dropsnap_bth {
	uint8_t opcode;
	uint32_t dqpn, psn;
};

/* A next-hop group's ECMP state kept across snapshots (ecmp.c). */
struct lsw_ecmp_gctl {
	struct lsw_ecmp_ws *ws;         /* [n_workers]: counters the workers write */
	struct lsw_ecmp_ctr base;       /* counters at the last stats.clear */
};

struct lsw_switch {
	struct lsw_config *cfg;         /* the running config */
	char config_path[PATH_MAX];
	char rpc_path[108];
	struct lsw_dp dp;
	struct lsw_worker *workers;     /* [dp.n_workers], each owned by its lcore once started */
	bool workers_running;
	struct lsw_port_rt port[LSW_MAX_PORTS];
	struct lsw_fibctl *fibc;
	struct lsw_fib6ctl *fib6c;
	struct lsw_rpc_server *rpc;
	struct lsw_lcore_counters base; /* counters at the last stats.clear */
	struct rte_eth_stats pmd_base[LSW_MAX_PORTS];
	struct lsw_buffer_lcore *buffer_base; /* MMU counters at the last stats.clear */
	struct lsw_stats_view *view;    /* one reading per RPC request (stats.c); NULL: none */
	bool suspended[LSW_MAX_PORTS];  /* port being reconfigured (see ports.c) */
	uint8_t wd_ignore_pause[LSW_MAX_PORTS]; /* PFC watchdog actions in force, per queue */
	uint8_t wd_drop[LSW_MAX_PORTS];
	struct lsw_wd_queue wdq[LSW_MAX_PORTS][LSW_NUM_QUEUES]; /* watchdog state (pfcwd.c) */
	struct lsw_wd_stats {
		uint8_t action;           /* in force for the current storm */
		uint8_t prio;             /* the priority it was detected on */
		uint64_t base[LSW_WD_CTR_MAX];  /* the counters when the storm began */
		uint64_t last[LSW_WD_CTR_MAX];  /* over the last storm */
		uint64_t total[LSW_WD_CTR_MAX]; /* over all finished storms */
	} wds[LSW_MAX_PORTS][LSW_NUM_QUEUES];
	uint64_t wd_last_poll_ns;
	uint64_t link_poll_ns;          /* the last lsw_ports_poll_link */
	bool wd_brs_active;
	uint64_t start_ns;
	struct lsw_clock clock;         /* TSC to wall clock, for snapshots and timelines */
	struct lsw_timeline_ctl tl;
	json_t *timeline_params;        /* lsw --timeline, until the recorder starts */
	uint64_t snapshot_gen;          /* snapshots published (timeline CONFIG events) */
	bool hugepages;
	struct lsw_dropsnap_store dropsnaps;
	struct lsw_capture_ctl *capture; /* capture sessions (capture.c); NULL until the first */
	struct lsw_ecmp_gctl *ecmp[LSW_MAX_NHG]; /* by group id; FORWARD groups only */
	struct lsw_ecmp_gctl *ecmp6[LSW_MAX_NHG6]; /* the same for the IPv6 FIB's groups */
	/* Held by the main loop while it handles anything, by telemetry callbacks (another
	 * thread) while they read; never by a worker. */
	pthread_mutex_t ctl_lock;
	bool tel_stopped;               /* under ctl_lock: teardown began */
};

/* time.c */
uint64_t lsw_now_ns(void);
/* Take a (TSC, wall clock) pair now; @hz is the TSC's rate, unless the clock measures it
 * (lsw_clock_calibrate). */
void lsw_clock_anchor(struct lsw_clock *c, uint64_t hz);
/* Measure the TSC's rate (20 ms), and refine it at each anchor from then on. */
void lsw_clock_calibrate(struct lsw_clock *c);
/* CLOCK_REALTIME nanoseconds at TSC value @tsc. */
uint64_t lsw_clock_wall_ns(const struct lsw_clock *c, uint64_t tsc);

/* ports.c */
int lsw_ports_init(struct lsw_switch *sw);
void lsw_ports_close(struct lsw_switch *sw);
int lsw_port_set_admin(struct lsw_switch *sw, uint16_t port, bool up);
/* Restart @port with @mtu while the others forward; 0, or -1 (the port keeps its MTU). */
int lsw_port_set_mtu(struct lsw_switch *sw, uint16_t port, uint16_t mtu);
const char *lsw_port_oper_status(const struct lsw_switch *sw, uint16_t port);
/* Every 100 ms: read each port's link; a change of oper status (or, for a port without a
 * configured speed, of the speed the link came up at) is logged and published. */
void lsw_ports_poll_link(struct lsw_switch *sw, uint64_t now_ns);

/* snapshot.c */
struct lsw_snapshot *lsw_snapshot_build(struct lsw_switch *sw);
void lsw_snapshot_publish(struct lsw_switch *sw, struct lsw_snapshot *conf);
/* The one call for a part of the switch that changed (a port, the watchdog, a capture, the
 * timeline): the snapshot built again from everything's state, and published; returns after
 * a grace period, 0, or -1 out of memory (the workers keep the one they have). */
int lsw_snapshot_refresh(struct lsw_switch *sw);

/* stats.c: the one way the control plane reads the workers' counters. */
/* The counters as the workers' shares add up, in a view of its own (free() it; NULL when
 * out of memory): summed, less the baseline of the last stats.clear unless @raw (for
 * whoever measures differences in time across a clear: the PFC watchdog). */
struct lsw_lcore_counters *lsw_stats_counters(const struct lsw_switch *sw, bool raw);
/* The buffer the same way: occupancy and counters summed, watermarks the largest any
 * worker saw. */
struct lsw_buffer_lcore *lsw_stats_buffer(const struct lsw_switch *sw, bool raw);
/* One reading of the workers' counters for everything one RPC request asks: stats.get's
 * eight parts answer from it, so the document holds one reading, and a worker pays the
 * cache misses of being read (each line it writes that the main lcore has just read) once
 * per request, not once per part. Main lcore only, under ctl_lock. */
struct lsw_stats_view {
	bool open;                     /* a request is being answered */
	bool have_ctr, have_buf;       /* read already during this request */
	struct lsw_lcore_counters ctr; /* raw sums, as read */
	struct lsw_buffer_lcore buf;
};
/* Around each request (rpc.c): readings in between come from the view. Elsewhere (the
 * watchdog, telemetry, stats.clear) every reading is fresh. */
void lsw_stats_view_begin(struct lsw_switch *sw);
void lsw_stats_view_end(struct lsw_switch *sw);
/* lsw_stats_counters(sw, false) into @out, a view the caller has. */
void lsw_stats_sum(const struct lsw_switch *sw, struct lsw_lcore_counters *out);
void lsw_stats_pmd(const struct lsw_switch *sw, uint16_t port, struct rte_eth_stats *st);
void lsw_stats_clear(struct lsw_switch *sw, int port);
/* Event @e as worker @w counted it, raw: for those who watch one counter often. */
uint64_t lsw_stats_event(const struct lsw_switch *sw, uint16_t w, enum lsw_event e);

/* ecmp.c */
/* The ECMP part of snapshot @d: thresholds per port, settings and tables per group (tables
 * carried over from the running snapshot while the group's settings keep them valid). */
int lsw_ecmp_build(struct lsw_switch *sw, struct lsw_snapshot *d);
/* After a grace period: free what @old has that @cur (NULL: nothing) no longer uses. */
void lsw_ecmp_retire(struct lsw_snapshot *old, const struct lsw_snapshot *cur);
void lsw_ecmp_free(struct lsw_switch *sw);
/* Group @gid's counters (of the IPv6 FIB when @v6) summed over the workers, minus the last
 * clear. */
void lsw_ecmp_counters(const struct lsw_switch *sw, bool v6, uint32_t gid,
		       struct lsw_ecmp_ctr *out);
void lsw_ecmp_clear(struct lsw_switch *sw);
/* Group @gid (of the IPv6 FIB when @v6) is gone and no worker holds it: its id starts again
 * from zero counters. */
void lsw_ecmp_forget(struct lsw_switch *sw, bool v6, uint32_t gid);

/* telemetry.c */
/* Register the /lsw/... telemetry commands. */
int lsw_telemetry_init(struct lsw_switch *sw);
/* From now on the commands answer nothing (the switch is going away). */
void lsw_telemetry_stop(struct lsw_switch *sw);

/* timeline.c */
extern const char *const lsw_tl_what_names[];
json_t *lsw_timeline_start(struct lsw_switch *sw, const struct lsw_timeline_req *q,
			   struct lsw_rpc_error *e);
/* Stop the run (nothing when none runs), for @reason (timeline.status says it). */
void lsw_timeline_stop(struct lsw_switch *sw, const char *reason);
/* The main loop's part: drain the workers' rings, stop at the run's limits. */
void lsw_timeline_drain(struct lsw_switch *sw);
/* timeline_out.c: @n records to the run's file or memory window. */
void lsw_timeline_out(struct lsw_switch *sw, const struct lsw_tl_rec *r, size_t n);
/* Record an event of the control plane's (watchdog, config) now. */
void lsw_timeline_event_cp(struct lsw_switch *sw, uint8_t kind, uint16_t port, uint8_t idx,
			   uint32_t v0, uint64_t v1);
/* The memory window to @path in the timeline format; 0, or -1 with @err. */
int lsw_timeline_save(struct lsw_switch *sw, const char *path, char *err, size_t errlen);
json_t *lsw_timeline_status(const struct lsw_switch *sw);
void lsw_timeline_free(struct lsw_switch *sw);

/* dropsnap.c */
int lsw_dropsnap_init(struct lsw_switch *sw);
void lsw_dropsnap_free(struct lsw_switch *sw);
/* After a config change: resize the store, turn drop/mark snapshots on or off. */
int lsw_dropsnap_config(struct lsw_switch *sw, const struct lsw_config *old);
void lsw_dropsnap_poll(struct lsw_switch *sw);
void lsw_dropsnap_clear(struct lsw_switch *sw);
/* The @i-th stored snapshot, oldest first, and its sequence number; NULL past the end. */
const struct lsw_dropsnap *lsw_dropsnap_get(const struct lsw_switch *sw, uint32_t i, uint64_t *seq);
/* The BTH of a RoCEv2 packet in the snapshot's bytes (IPv4, UDP 4791); false otherwise. */
bool lsw_dropsnap_roce(const struct lsw_dropsnap *s, struct lsw_dropsnap_bth *r);

/* pfcwd.c */
/* The PFC watchdog at @now_tsc (the TSC, or a test's fake clock at dp.tsc_hz). */
void lsw_pfcwd_poll(struct lsw_switch *sw, uint64_t now_tsc);
/* The LSW_FOREACH_WD_CTR counters of queue @q of @port, watched for @prio, in the buffer
 * view @v (lsw_stats_buffer(sw, true)). */
void lsw_pfcwd_counters(const struct lsw_switch *sw, const struct lsw_buffer_lcore *v,
			uint16_t port, uint8_t prio, uint8_t q, uint64_t out[LSW_WD_CTR_MAX]);

/* config_apply.c */
json_t *lsw_config_merge(const json_t *target, const json_t *patch);
/* Set lsw's and DPDK's log level by name (LSW.global.log_level), at run time. */
void lsw_log_set_level(const char *name);
/* What @n changes from @o that cannot change while forwarding goes to @errs. @frame_room:
 * the largest frame the switch's mbufs hold (data room less headroom), for a new MTU. */
void lsw_config_hot_check(const struct lsw_config *o, const struct lsw_config *n,
			  uint32_t frame_room, struct lsw_errs *errs);
int lsw_config_apply(struct lsw_switch *sw, struct lsw_config *n);

/* config_file.c */
/* Write @doc to @path atomically (temp file, fsync, rename, fsync of the directory). 0, or
 * -1 with @err set; the previous file is then unchanged. */
int lsw_config_save(const json_t *doc, const char *path, char *err, size_t errlen);
/* A config file's JSON (not validated), or NULL with @err set. */
json_t *lsw_config_read(const char *path, char *err, size_t errlen);
/* What differs from @file to @running: [{"path", "change": added|removed|changed, "file",
 * "running"}], objects compared key by key, anything else whole. */
json_t *lsw_config_diff(json_t *file, json_t *running);

/* neigh.c */
void lsw_neigh_process(struct lsw_switch *sw);

#endif
