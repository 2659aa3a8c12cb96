/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Live capture, the control plane's side (capture.c): sessions started and stopped by
 * capture.start and capture.stop (rpc_capture.c), their filters compiled with libpcap and
 * loaded into DPDK's BPF library, the workers' rings drained into each session's pcapng
 * file from the main loop. Only the main lcore touches these structures.
 */
#ifndef LSW_CONTROL_CAPTURE_H
#define LSW_CONTROL_CAPTURE_H

#include <stdbool.h>
#include <stdint.h>
#include "lsw/capture.h"

struct lsw_switch;
struct lsw_snapshot;
struct lsw_pcapng;
struct lsw_rpc_error;

#define LSW_CAPTURE_KEEP 16   /* sessions capture.list shows, running and done */
#define LSW_CAPTURE_FILTER_MAX 1024

enum lsw_capture_state { LSW_CAPTURE_FREE, LSW_CAPTURE_RUNNING, LSW_CAPTURE_DONE };

/* Why a session ended. */
enum lsw_capture_end {
	LSW_CAPTURE_END_NONE, LSW_CAPTURE_END_STOP, LSW_CAPTURE_END_COUNT,
	LSW_CAPTURE_END_DURATION, LSW_CAPTURE_END_ERROR, LSW_CAPTURE_END_SHUTDOWN,
};
extern const char *const lsw_capture_end_names[]; /* "capture.stop", "count", ... */
extern const char *const lsw_capture_dir_names[]; /* "rx", "tx", "both" */

/* What capture.start asks for. */
struct lsw_capture_req {
	int port;
	uint8_t dir;             /* 0 rx, 1 tx, 2 both (lsw_capture_dir_names) */
	const char *filter;      /* tcpdump syntax; NULL or "": every frame */
	uint32_t snaplen;
	uint64_t count;          /* frames; 0: no limit */
	uint64_t duration_ms;    /* 0: no limit */
	const char *file;        /* absolute path */
};

struct lsw_capture_sess {
	uint32_t id;
	uint8_t state;           /* enum lsw_capture_state */
	uint8_t end;             /* enum lsw_capture_end, once done */
	uint8_t slot;            /* while running: its counters (lsw_lcore_counters) */
	uint8_t dirs;            /* LSW_CAPTURE_DIR_* */
	bool stopping;           /* left out of the next snapshot, not yet finished */
	uint16_t port;
	uint32_t snaplen;
	uint64_t count, duration_ms;
	char *filter;            /* NULL: none */
	char *file;
	uint64_t start_wall_ns;  /* CLOCK_REALTIME at the start */
	uint64_t start_ns, end_ns; /* lsw_now_ns() */
	uint64_t frames, bytes;  /* written to the file: frames and their length on the wire */
	uint64_t missed;         /* once done: what the workers missed; running: see base */
	uint64_t missed_base;    /* the slot's counters when the session started */
	uint64_t file_bytes;     /* once done: the file's size */
	uint64_t flushed_ns;     /* the last flush of the file */
	struct rte_bpf *bpf;     /* the filter, loaded; NULL: none */
	bool jit_ok;             /* its JIT code may run (capture.c, jit_safe) */
	struct lsw_pcapng *out;  /* while running */
	uint32_t ifid[2];        /* the file's interface of each direction */
	char error[160];         /* a write error, if any */
};

struct lsw_capture_ctl {
	struct lsw_capture_sess s[LSW_CAPTURE_KEEP];
	struct lsw_capture_sess *slot[LSW_CAPTURE_MAX]; /* the running session of each slot */
	uint32_t next_id;
};

/* Start a session; its id, or 0 with @e set (nothing changed, no file left behind). */
uint32_t lsw_capture_start(struct lsw_switch *sw, const struct lsw_capture_req *r,
			   struct lsw_rpc_error *e);
/* Stop session @s (a no-op when it is done already): the workers stop copying, what they
 * copied is written, the file is closed. 0, or -1 when no new snapshot could be built (it
 * keeps running). */
int lsw_capture_stop(struct lsw_switch *sw, struct lsw_capture_sess *s, uint8_t end);
/* The session with id @id, or NULL. */
struct lsw_capture_sess *lsw_capture_find(struct lsw_switch *sw, uint32_t id);
/* Whole frames the big capture pool holds (made, or to be made from the config). */
unsigned int lsw_capture_big_n(const struct lsw_switch *sw);
/* Frames the workers missed for @s so far. */
uint64_t lsw_capture_missed(const struct lsw_switch *sw, const struct lsw_capture_sess *s);
/* Main loop, every few milliseconds: drain the rings into the files; end sessions at their
 * count or time limit, or after a write error. */
void lsw_capture_poll(struct lsw_switch *sw, uint64_t now_ns);
/* Shutdown, once the workers have stopped: every file written and closed, rings and pool
 * freed. */
void lsw_capture_free(struct lsw_switch *sw);

#endif
