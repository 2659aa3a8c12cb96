/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The timeline recorder: samples of queues, PGs, ports, pools and ECMP qualities at a fixed
 * interval, and events (PFC frames sent and received, watchdog actions, ECMP moves, config
 * changes) with their exact time. Each worker writes fixed-size records into a ring of its
 * own (single producer, single consumer: rte_ring's SP enqueue is a plain store on x86);
 * the main lcore drains the rings into a file or a memory window (control/timeline.c).
 * What the workers record is part of the immutable snapshot, so with the recorder off a
 * worker pays one predictable branch per loop and per event site.
 *
 * The file format (documented in control/rpc/RPC.md, read by tools/lswtimeline.py): a text
 * line "LSWTIMELINE 1", one line of JSON (ports, interval, what was recorded), then
 * records of struct lsw_tl_rec, little-endian, their time in Unix nanoseconds.
 */
#ifndef LSW_TIMELINE_H
#define LSW_TIMELINE_H

#include <stdint.h>
#include "lsw/common.h"

/*
 * Record kinds: name, then what v0 and v[0..5] hold ("-": nothing). Samples give the state
 * at their time and what happened since the previous sample of the same thing; events
 * happen at their time. tools/lswtimeline.py has the same table (a test compares them).
 */
#define LSW_FOREACH_TL_KIND(X) \
	/* samples */ \
	X(QUEUE,   "queue",   "pkts", "bytes", "tx_pkts", "tx_bytes", "ecn_marked", \
	  "dropped", "dropped_bytes") \
	X(PG,      "pg",      "pkts", "reserved", "shared", "headroom", "-", "-", "-") \
	X(PORT,    "port",    "-", "rx_bytes", "rx_pkts", "tx_bytes", "tx_pkts", \
	  "paused_by_peer", "pausing_peer") \
	X(POOL,    "pool",    "-", "used", "shared", "headroom", "-", "-", "-") \
	X(ECMP,    "ecmp",    "quality", "load_level", "queue_level", "paused_queues", "-", \
	  "-", "-") \
	/* events */ \
	X(PFC_TX,  "pfc_tx",  "quanta", "-", "-", "-", "-", "-", "-") \
	X(PFC_RX,  "pfc_rx",  "quanta", "-", "-", "-", "-", "-", "-") \
	X(PAUSE_RX, "pause_rx", "quanta", "-", "-", "-", "-", "-", "-") \
	X(WD_STORM, "wd_storm", "action", "priority", "-", "-", "-", "-", "-") \
	X(WD_RESTORE, "wd_restore", "-", "priority", "-", "-", "-", "-", "-") \
	X(ECMP_REASSIGN, "ecmp_reassign", "group", "-", "-", "-", "-", "-", "-") \
	X(ECMP_REBALANCE, "ecmp_rebalance", "group", "-", "-", "-", "-", "-", "-") \
	X(CONFIG,  "config",  "generation", "-", "-", "-", "-", "-", "-") \
	X(TRIM,    "trim",    "orig_len", "len", "from_queue", "dropped", "-", "-", \
	  "-") \
	X(LOST,    "lost",    "-", "records", "-", "-", "-", "-", "-")

enum lsw_tl_kind {
#define LSW_TL_KIND_ENUM(k, name, f0, f1, f2, f3, f4, f5, f6) LSW_TL_##k,
	LSW_FOREACH_TL_KIND(LSW_TL_KIND_ENUM)
#undef LSW_TL_KIND_ENUM
	LSW_TL_KIND_MAX
};

/*
 * One record. @idx is the queue (QUEUE, WD_*; TRIM: the trim queue), PG (PG), pool (POOL),
 * priority (PFC_TX, PFC_RX), member (ECMP_*) or worker (LOST); LSW_TL_NONE where none
 * applies, as is @port for POOL, CONFIG and LOST. 64 bytes: one cache line, one store burst
 * per record.
 */
struct lsw_tl_rec {
	uint64_t t;           /* worker: TSC; in files: Unix ns */
	uint8_t kind;         /* enum lsw_tl_kind */
	uint8_t port;         /* lsw port index */
	uint8_t idx;
	uint8_t flags;        /* reserved, 0 */
	uint32_t v0;
	uint64_t v[6];
};
_Static_assert(sizeof(struct lsw_tl_rec) == 64, "a timeline record is one cache line");

#define LSW_TL_NONE 0xff

/* What a timeline records (timeline.start's "record"), one bit each. */
#define LSW_FOREACH_TL_WHAT(X) \
	X(QUEUES, "queues") \
	X(PGS,    "pgs") \
	X(PORTS,  "ports") \
	X(POOLS,  "pools") \
	X(ECMP,   "ecmp") \
	X(EVENTS, "events")

enum lsw_tl_what_bit {
#define LSW_TL_WHAT_ENUM(k, name) LSW_TL_BIT_##k,
	LSW_FOREACH_TL_WHAT(LSW_TL_WHAT_ENUM)
#undef LSW_TL_WHAT_ENUM
	LSW_TL_WHAT_MAX
};
#define LSW_TL_W(k) (1u << LSW_TL_BIT_##k)

/* A worker's ring: records for 5 ms of 8 ports at 100 us with everything on (about 20
 * records per port and sample) fit eight times over. */
#define LSW_TL_RING 65536

/* The recorder as the workers see it; part of the snapshot (all zero: off). */
struct lsw_timeline_dp {
	uint8_t what;         /* LSW_TL_W bits; 0 = off */
	uint32_t ports;       /* ports sampled (bit per port) */
	uint32_t gen;         /* a new run: workers restart their interval and baselines */
	uint64_t interval;    /* TSC ticks between samples */
};

/* A worker's own recorder state (struct lsw_worker). */
struct lsw_timeline_worker {
	uint32_t gen;         /* the run the fields below belong to */
	uint64_t next;        /* TSC of the next sample */
	/* Counters at the previous sample, for what happened in the interval. */
	uint64_t q_last[LSW_MAX_PORTS][LSW_NUM_QUEUES][5];
	uint64_t port_last[LSW_MAX_PORTS][4];
	/* Queues and PGs whose last record was all zeros (a bit each): an idle one is
	 * written once, then left out until it is not, which the file format says. */
	uint8_t q_idle[LSW_MAX_PORTS];
	uint8_t pg_idle[LSW_MAX_PORTS];
};
_Static_assert(LSW_NUM_QUEUES <= 8 && LSW_NUM_PG <= 8, "q_idle, pg_idle: a bit each");

#endif
