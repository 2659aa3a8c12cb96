/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The memory manager: shared-buffer accounting in cells, modeled on a switch ASIC's MMU
 * (Choudhury and Hahne's dynamic thresholds; SAI's buffer model). A packet is charged at
 * admission to its ingress (port, PG) and egress (port, queue), each part to one bucket
 * (reserved, shared or headroom), and released exactly as charged when it leaves.
 *
 * Concurrency: each worker owns a struct lsw_buffer_lcore and is its only writer; occupancy
 * is the sum of the workers' signed deltas (a packet admitted by one worker and released
 * by another leaves +c in one and -c in the other). No atomics, no locks. Readers (other
 * workers, the control plane) sum with lsw_counter_read (include/lsw/shared.h). Workers
 * admitting to one queue at
 * the same moment each see the others' occupancy as of their last write (once per burst),
 * so with W workers a queue or PG may pass its threshold by up to W - 1 bursts. The
 * pool-wide sums (shared, headroom and used bytes of a pool, packets held) are taken once a
 * loop (struct lsw_buffer_seen): a pool or the packet limit may be passed by what the other
 * workers admit during one loop of this one.
 */
#ifndef LSW_BUFFER_H
#define LSW_BUFFER_H

#include <stdint.h>
#include <stdbool.h>
#include <rte_common.h>
#include <rte_mbuf.h>
#include <rte_mbuf_dyn.h>
#include "lsw/common.h"
#include "lsw/drop.h"
#include "lsw/meta.h"

enum lsw_buffer_part { LSW_PART_RESERVED, LSW_PART_SHARED, LSW_PART_HEADROOM, LSW_PARTS };

/*
 * How a pool shares its buffer among its PGs (queues): BUFFER_POOL.policy (README, "Buffer
 * sharing policies"). Every policy only decides the threshold T a PG's
 * (queue's) shared bytes are held under: charging, release, headroom and PFC are the same
 * code for all of them, so that what was charged is released exactly whatever the policy
 * was when a packet came in, and a lossless PG pauses at T before it can drop.
 */
enum lsw_pool_policy {
	LSW_POLICY_DT,               /* T = alpha * (B - Q): Choudhury & Hahne */
	LSW_POLICY_STATIC,           /* T = the profile's static_th */
	LSW_POLICY_COMPLETE_SHARING, /* no per-queue limit: T = own + (B - Q) */
	LSW_POLICY_PARTITIONED,      /* T = B / N, N the PGs (queues) charged to the pool */
	LSW_POLICY_ABM,              /* T = alpha * (B - Q) / n_p * mu / b: Addanki et al. */
	LSW_POLICY_HPCC_SIM,         /* the HPCC simulator's switch-mmu.cc (buffers.md 1.2) */
	LSW_POLICIES
};

/* HPCC's resume_offset: a paused PG resumes once it is this far below T. */
#define LSW_HPCC_RESUME_OFFSET 3072
/* ABM's fractions (saturation, drain rate) in fixed point: 1.0 = 1 << 16. */
#define LSW_ABM_ONE (1u << 16)

/* What admission needs of a profile, per (port, PG) or (port, queue); in the snapshot. */
struct lsw_prof_dp {
	uint64_t reserved;   /* guaranteed bytes */
	uint64_t xoff;       /* headroom (PG only); > 0 = lossless */
	uint64_t xon;        /* PG only: XON when usage falls to max(xon, T - xon_offset) */
	uint64_t xon_offset;
	uint64_t static_th;  /* static mode: shared bytes allowed */
	uint8_t pool;
	uint8_t dynamic;     /* 1: threshold = 2^shift * free shared buffer of the pool */
	int8_t shift;        /* dynamic_th; <= -8: no shared buffer */
	uint8_t lossless;
};

struct lsw_pool_dp {
	uint64_t size;
	/* size minus reserves and headroom: what thresholds divide. hpcc_sim counts one
	 * reserve and one headroom per port, as the simulator's total_rsrv and total_hdrm. */
	uint64_t shared;
	uint64_t hdrm_shared; /* BUFFER_POOL.xoff: headroom shared by the pool's PGs */
	uint64_t part_share;  /* partitioned: shared / the PGs (queues) charged to the pool */
	uint8_t type;         /* enum lsw_pool_type */
	uint8_t policy;       /* enum lsw_pool_policy */
};

struct lsw_buffer_dp {
	/* Every queued packet also holds an mbuf, so packets are a second resource, as an
	 * ASIC's packet descriptors are: the buffer holds at most pkt_limit packets (the pool
	 * less what the PMD rings and bursts need). Lossy ones stop at pkt_xoff, a PG at a
	 * dynamic threshold of the packets left (alpha 1: one PG takes half at most); a
	 * lossless PG pauses its peer there, or when pkt_xoff is passed, until pkt_xon. */
	uint32_t pkt_limit, pkt_xoff, pkt_xon;
	uint32_t cell;
	uint64_t cell_inv;    /* ceil(2^32 / cell): cells = len * cell_inv >> 32, no division */
	uint16_t n_pools;
	uint8_t abm_pools;    /* bit i: pool i runs ABM (its owners keep n_p and mu) */
	uint32_t abm_sat;     /* ABM: a queue of this many bytes counts as one congested */
	/* ABM: DSCPs (bit d) of unscheduled packets, a message's first BDP, and the log2 of
	 * their alpha (ABM's alphaUnsched), in place of the profile's. */
	uint64_t abm_unsched_dscp;
	int8_t abm_unsched_shift;
	uint64_t abm_update_ns; /* ABM: n_p and drain rates are taken this often */
	uint8_t owner[LSW_MAX_PORTS]; /* the worker that owns each port (its drain rates) */
	struct lsw_pool_dp pool[LSW_MAX_POOLS];
	struct lsw_prof_dp pg[LSW_MAX_PORTS][LSW_NUM_PG];
	struct lsw_prof_dp q[LSW_MAX_PORTS][LSW_NUM_QUEUES];
	/* Classification, per port: DSCP or 802.1p to TC; TC to PG (ingress port's map) and
	 * to queue (egress port's map). */
	uint8_t dscp_tc[LSW_MAX_PORTS][64];
	uint8_t dot1p_tc[LSW_MAX_PORTS][8];
	uint8_t use_dot1p[LSW_MAX_PORTS];
	uint8_t tc_pg[LSW_MAX_PORTS][LSW_NUM_TC];
	uint8_t tc_q[LSW_MAX_PORTS][LSW_NUM_TC];
};

/* What admission charged one packet: its bytes, rounded up to cells, and the parts of its
 * ingress PG and egress queue they went to, with what else its queue entry holds (the
 * layout of lsw_qent after the mbuf, include/lsw/sched.h). Admission writes these to an
 * array: a packet bound for its worker's own queue goes into its entry with one copy, and
 * only one handed elsewhere gets them in its meta (lsw_meta_charge). */
struct lsw_charge {
	uint16_t bytes;       /* <= 2 * LSW_MAX_FRAME (lsw_qent.charged) */
	uint16_t len;         /* pkt_len */
	uint8_t in_port;
	uint8_t pg;
	uint8_t in_part;      /* enum lsw_buffer_part */
	uint8_t eg_part;
};

/* The first pass of a run's admission writes a part as the bit "over the reserve". */
_Static_assert(LSW_PART_RESERVED == 0 && LSW_PART_SHARED == 1, "a part from one bit");

/* Histogram bins of frame sizes, per TC (upper bounds, RMON style). */
#define LSW_HIST_BINS 10
extern const uint32_t lsw_hist_bound[LSW_HIST_BINS];
extern uint8_t lsw_hist_bin[LSW_MAX_FRAME + 1]; /* frame length -> bin */

/*
 * The counter families of the buffer, each a table of SAI's name (SAI_INGRESS_PRIORITY_GROUP_
 * STAT_*, SAI_QUEUE_STAT_*, SAI_BUFFER_POOL_STAT_*) and its field in struct lsw_buffer_ctr
 * (pg_<field>, q_<field>, pool_<field>): the workers count into the fields, pg.stats,
 * queue.stats and buffer.pools answer the names (and so telemetry and Prometheus).
 */
#define LSW_FOREACH_PG_CTR(X) \
	X(PACKETS,                 pkts) \
	X(BYTES,                   bytes) \
	X(DROPPED_PACKETS,         drops)
#define LSW_FOREACH_QUEUE_CTR(X) \
	X(PACKETS,                 tx_pkts) \
	X(BYTES,                   tx_bytes) \
	X(DROPPED_BYTES,           drop_bytes) \
	X(WRED_ECN_MARKED_PACKETS, ecn_marked_pkts) \
	X(WRED_ECN_MARKED_BYTES,   ecn_marked_bytes) \
	X(WRED_DROPPED_BYTES,      wred_drop_bytes) \
	X(TRIM_PACKETS,            trim_pkts) \
	X(TX_TRIM_PACKETS,         tx_trim_pkts) \
	X(DROPPED_TRIM_PACKETS,    dropped_trim_pkts) \
	X(ABM_UNSCHED_PACKETS,     abm_unsched_pkts)
#define LSW_FOREACH_POOL_CTR(X) \
	X(DROPPED_PACKETS,         drops)
/* A queue's drops by reason, the reasons of enum lsw_drop the buffer decides (admission,
 * and WRED at dequeue); their sum is the queue's DROPPED_PACKETS. */
#define LSW_FOREACH_QUEUE_DROP(X) \
	X(INGRESS_PG_THRESHOLD) \
	X(HEADROOM_OVERFLOW) \
	X(EGRESS_QUEUE_THRESHOLD) \
	X(MBUF_LIMIT) \
	X(WRED_DROP)

enum lsw_qdrop {
#define LSW_QDROP_ENUM(reason) LSW_QDROP_##reason,
	LSW_FOREACH_QUEUE_DROP(LSW_QDROP_ENUM)
#undef LSW_QDROP_ENUM
	LSW_QDROP_MAX
};
/* Admission counts the reasons before WRED_DROP (buffer.c), the dequeue WRED_DROP. */
_Static_assert(LSW_QDROP_WRED_DROP == LSW_QDROP_MAX - 1, "WRED_DROP is the last queue drop");

/* The queue-drop index of an admission drop @d (INGRESS_PG_THRESHOLD, HEADROOM_OVERFLOW,
 * EGRESS_QUEUE_THRESHOLD or MBUF_LIMIT). */
static inline enum lsw_qdrop
lsw_qdrop_of(enum lsw_drop d)
{
	return d == LSW_DROP_INGRESS_PG_THRESHOLD ? LSW_QDROP_INGRESS_PG_THRESHOLD :
	       d == LSW_DROP_HEADROOM_OVERFLOW ? LSW_QDROP_HEADROOM_OVERFLOW :
	       d == LSW_DROP_MBUF_LIMIT ? LSW_QDROP_MBUF_LIMIT : LSW_QDROP_EGRESS_QUEUE_THRESHOLD;
}

/* The drop reason of queue-drop index @q. */
static inline enum lsw_drop
lsw_qdrop_reason(enum lsw_qdrop q)
{
	static const enum lsw_drop reason[LSW_QDROP_MAX] = {
#define LSW_QDROP_REASON(r) [LSW_QDROP_##r] = LSW_DROP_##r,
		LSW_FOREACH_QUEUE_DROP(LSW_QDROP_REASON)
#undef LSW_QDROP_REASON
	};

	return reason[q];
}

/* Watermarks kept per PG (a queue keeps the first two). */
enum lsw_wm { LSW_WM_TOTAL, LSW_WM_SHARED, LSW_WM_HEADROOM, LSW_WM_KINDS };

/*
 * One worker's share of the buffer, in three parts that add up differently across the
 * workers (control/stats.c): each part holds nothing but 64-bit words.
 */
/* Occupancy: signed deltas, summed. */
struct lsw_buffer_use {
	int64_t pg_occ[LSW_MAX_PORTS][LSW_NUM_PG][LSW_PARTS];
	int64_t q_occ[LSW_MAX_PORTS][LSW_NUM_QUEUES][2];   /* reserved, shared */
	int64_t pool_shared[LSW_MAX_POOLS];
	int64_t pool_hdrm[LSW_MAX_POOLS];                  /* headroom in use, pool-wide */
	int64_t pool_used[LSW_MAX_POOLS];
	int64_t pkts_held;                                 /* packets (mbufs) admitted */
	int64_t pg_held[LSW_MAX_PORTS][LSW_NUM_PG];        /* the same per (port, PG) */
	/* ABM's n_p, per pool and priority (PG or queue index), LSW_ABM_ONE per congested
	 * PG (queue): the sum of each one's saturation min(1, bytes / abm_sat), which the
	 * owner of its port adds as deltas (lsw_buffer_abm_update), as ABM's simulator does
	 * (shared-memory.cc setSaturated). */
	int64_t abm_sat[LSW_MAX_POOLS][LSW_NUM_QUEUES];
};

/* Watermarks of the summed occupancy, as this worker computed it at admission: the
 * largest any worker saw is the watermark. */
struct lsw_buffer_wm {
	uint64_t pg[LSW_MAX_PORTS][LSW_NUM_PG][LSW_WM_KINDS];
	uint64_t q[LSW_MAX_PORTS][LSW_NUM_QUEUES][LSW_WM_HEADROOM]; /* total, shared */
	uint64_t pool[LSW_MAX_POOLS];
};

/* Counters: summed, less the baseline of the last stats.clear. */
struct lsw_buffer_ctr {
#define LSW_PG_CTR_FIELD(name, f) uint64_t pg_##f[LSW_MAX_PORTS][LSW_NUM_PG];
	LSW_FOREACH_PG_CTR(LSW_PG_CTR_FIELD)
#undef LSW_PG_CTR_FIELD
#define LSW_QUEUE_CTR_FIELD(name, f) uint64_t q_##f[LSW_MAX_PORTS][LSW_NUM_QUEUES];
	LSW_FOREACH_QUEUE_CTR(LSW_QUEUE_CTR_FIELD)
#undef LSW_QUEUE_CTR_FIELD
	uint64_t q_drop_reason[LSW_MAX_PORTS][LSW_NUM_QUEUES][LSW_QDROP_MAX];
#define LSW_POOL_CTR_FIELD(name, f) uint64_t pool_##f[LSW_MAX_POOLS];
	LSW_FOREACH_POOL_CTR(LSW_POOL_CTR_FIELD)
#undef LSW_POOL_CTR_FIELD
	/* The PFC watchdog's drops per stormed queue (control/pfcwd.h names them). */
	uint64_t wd_tx_drops[LSW_MAX_PORTS][LSW_NUM_QUEUES];
	uint64_t wd_rx_drops[LSW_MAX_PORTS][LSW_NUM_QUEUES];
	/* Sizes per TC: bins, bytes, bytes charged; and exact lengths for the cell advice. */
	uint64_t tc_hist[LSW_NUM_TC][LSW_HIST_BINS];
	uint64_t tc_bytes[LSW_NUM_TC];
	uint64_t tc_charged[LSW_NUM_TC];
	uint64_t len_hist[LSW_MAX_FRAME + 1];
};

/* ABM's per-port state, kept by the port's owner worker (lsw_buffer_abm_update) in its own
 * struct lsw_buffer_lcore; not summed. */
struct lsw_buffer_abm {
	/* Each queue's drain rate over the last update, normalised to the port's rate, in
	 * LSW_ABM_ONE units. Owner: rw; every admitting worker: ro (relaxed loads). */
	uint32_t drain[LSW_MAX_PORTS][LSW_NUM_QUEUES];
	/* The rest is the owner's alone: what it last added to use.abm_sat for each queue
	 * and PG, the tx bytes and the time of the last update. */
	uint32_t q_sat[LSW_MAX_PORTS][LSW_NUM_QUEUES];
	uint32_t pg_sat[LSW_MAX_PORTS][LSW_NUM_PG];
	uint64_t tx[LSW_MAX_PORTS][LSW_NUM_QUEUES];
	uint64_t at[LSW_MAX_PORTS];
};

/*
 * The pool-wide sums of the other workers' shares as this worker last took them, once a loop
 * (lsw_buffer_seen_take). Every worker writes its pool-wide words at each admission and
 * release: summed live, each run admitted cost a line from every other worker, which grows
 * with the workers; once a loop, W - 1 lines a loop. Admission adds its own share, current.
 * Only its worker reads or writes it.
 */
struct lsw_buffer_seen {
	uint16_t n;           /* workers summed; 0: never taken (admission sums live) */
	int64_t pkts_held;
	int64_t pool_shared[LSW_MAX_POOLS];
	int64_t pool_hdrm[LSW_MAX_POOLS];
	int64_t pool_used[LSW_MAX_POOLS];
	/* What the last run admitted left its PG (by part) and queue (reserved, shared)
	 * holding: their watermarks (lsw_buffer_watermarks). */
	int64_t run_pg[LSW_PARTS];
	int64_t run_q[2];
};

struct lsw_buffer_lcore {
	struct lsw_buffer_use use;
	struct lsw_buffer_wm wm;
	uint64_t wm_gen;                                   /* last clear request honoured */
	struct lsw_buffer_ctr ctr;
	struct lsw_buffer_abm abm;
	struct lsw_buffer_seen seen __rte_cache_aligned;
} __rte_cache_aligned;


/* LSW_META_UNSCHED for a packet of @dscp when ABM counts it unscheduled, else 0. */
static inline uint8_t
lsw_buffer_unsched(const struct lsw_buffer_dp *mc, uint8_t dscp)
{
	return (mc->abm_unsched_dscp >> dscp & 1) ? LSW_META_UNSCHED : 0;
}

/* Dynamic threshold: 2^@shift * (the free shared buffer of @pool, which holds @shared_used). */
static inline uint64_t
lsw_buffer_dt(const struct lsw_pool_dp *pool, int64_t shared_used, int shift)
{
	if (shift <= -8)
		return 0;
	uint64_t free_b = shared_used >= (int64_t)pool->shared ? 0 :
			  pool->shared - (uint64_t)shared_used;
	if (shift < 0)
		return free_b >> -shift;
	/* dynamic_th is an int8: alpha up to 2^127 saturates, never wraps (callers compare
	 * as int64). */
	if (shift >= 62 || free_b > ((uint64_t)INT64_MAX >> shift))
		return (uint64_t)INT64_MAX;
	return free_b << shift;
}

/* Shared bytes a PG or queue may hold now: static_th, or 2^shift * (free shared buffer). */
static inline uint64_t
lsw_buffer_threshold(const struct lsw_prof_dp *p, const struct lsw_pool_dp *pool,
		     int64_t shared_used)
{
	if (!p->dynamic) /* SAI: a static threshold of 0 is no limit (the pool's) */
		return p->static_th ? p->static_th : pool->shared;
	return lsw_buffer_dt(pool, shared_used, p->shift);
}

/* ABM's inputs for one PG or queue, in LSW_ABM_ONE units: n_p (congested PGs or queues of
 * its priority in its pool) and mu / b (its drain rate over its port's; 1 for a PG). */
struct lsw_abm_in {
	uint32_t np;
	uint32_t drain;
	/* An unscheduled packet's run (LSW_META_UNSCHED): alpha is 2^@shift, not the
	 * profile's. */
	bool unsched;
	int8_t shift;
};

/*
 * The threshold of the pool's policy for a PG (queue) of profile @p holding @own shared
 * bytes while the pool's hold @shared_used: admission keeps it under this, and a lossless
 * PG pauses there. @abm: ABM's inputs (read for ABM pools only).
 */
static inline uint64_t
lsw_buffer_limit(const struct lsw_prof_dp *p, const struct lsw_pool_dp *pool,
		 int64_t shared_used, int64_t own, const struct lsw_abm_in *abm)
{
	uint64_t free_b = shared_used >= (int64_t)pool->shared ? 0 :
			  pool->shared - (uint64_t)shared_used;

	switch (pool->policy) {
	case LSW_POLICY_COMPLETE_SHARING:
		/* What it holds and all that is free: only the pool's size binds. */
		return (own > 0 ? (uint64_t)own : 0) + free_b;
	case LSW_POLICY_PARTITIONED:
		return pool->part_share;
	case LSW_POLICY_ABM: {
		/* alpha * (B - Q), saturated as DT's, then / n_p * mu / b; n_p is at least 1
		 * (ABM's GetNofP), so T never exceeds DT's, but for an unscheduled packet, whose
		 * alpha is ABM's alphaUnsched (gen-queue-disc.cc's ActiveBufferManagement). */
		uint64_t t = abm->unsched ? lsw_buffer_dt(pool, shared_used, abm->shift) :
			     lsw_buffer_threshold(p, pool, shared_used);
		uint32_t np = abm->np > LSW_ABM_ONE ? abm->np : LSW_ABM_ONE;
		return (uint64_t)((unsigned __int128)t * abm->drain / np);
	}
	default: /* dt, static, hpcc_sim: the profile's own threshold */
		return lsw_buffer_threshold(p, pool, shared_used);
	}
}

static inline uint64_t
lsw_buffer_cell_inv(uint32_t cell)
{
	return ((1ull << 32) + cell - 1) / cell;
}

/* Bytes charged for a frame: @len rounded up to whole cells. The reciprocal is exact for
 * every frame length lsw handles (tests/unit/test_mmu.c checks them all). */
static inline uint32_t
lsw_buffer_charge(const struct lsw_buffer_dp *mc, uint32_t len)
{
	return (uint32_t)((len + mc->cell - 1) * mc->cell_inv >> 32) * mc->cell;
}

/* Summed occupancy (@field of struct lsw_buffer_use) over the workers' shares (one worker:
 * its own, no loop). */
#define LSW_BUFFER_SUM(all, n, field) __extension__ ({ \
	int64_t _s = (all)[0]->use.field; \
	for (uint16_t _w = 1; _w < (n); _w++) \
		_s += lsw_counter_read(&(all)[_w]->use.field); \
	_s; })

/* A pool-wide @field of struct lsw_buffer_use summed over the workers, for admission by
 * @mine: the others' shares as taken at its loop's start, when they were (lsw_buffer_seen). */
#define LSW_BUFFER_POOLWIDE(all, nw, mine, field) \
	((mine)->seen.n == (nw) ? (mine)->seen.field + (mine)->use.field : \
				  LSW_BUFFER_SUM(all, nw, field))

/* Take the others' pool-wide sums for @mine (once a loop; @n_pools of them). */
void lsw_buffer_seen_take(struct lsw_buffer_lcore *const *all, uint16_t n,
			  struct lsw_buffer_lcore *mine, uint16_t n_pools);

static inline int64_t
lsw_buffer_pg_occ(struct lsw_buffer_lcore *const *all, uint16_t n, uint16_t port, uint8_t pg,
		  int part)
{
	return LSW_BUFFER_SUM(all, n, pg_occ[port][pg][part]);
}

static inline int64_t
lsw_buffer_q_occ(struct lsw_buffer_lcore *const *all, uint16_t n, uint16_t port, uint8_t q,
		 int part)
{
	return LSW_BUFFER_SUM(all, n, q_occ[port][q][part]);
}

static inline int64_t
lsw_buffer_pkts_held(struct lsw_buffer_lcore *const *all, uint16_t n)
{
	return LSW_BUFFER_SUM(all, n, pkts_held);
}

static inline int64_t
lsw_buffer_pool_shared(struct lsw_buffer_lcore *const *all, uint16_t n, uint8_t pool)
{
	return LSW_BUFFER_SUM(all, n, pool_shared[pool]);
}


uint16_t lsw_buffer_admit_run(struct lsw_buffer_lcore *const *all, uint16_t n,
			      struct lsw_buffer_lcore *mine, const struct lsw_buffer_dp *mc,
			      const struct lsw_pkt_meta *cls, const uint32_t *len, uint16_t k,
			      uint8_t *drop, struct lsw_charge *res);

/* Record in @meta what admission charged its packet (@c): it is released on the way out. */
static inline void
lsw_meta_charge(struct lsw_pkt_meta *meta, const struct lsw_charge *c)
{
	meta->charged = c->bytes;
	meta->in_part = c->in_part;
	meta->eg_part = c->eg_part;
	meta->flags |= LSW_META_CHARGED;
}

/* Admission of a frame of @len bytes whose meta holds in_port, pg, out_port, queue, tc.
 * On success the meta records the buckets charged; otherwise the reason to drop. */
enum lsw_drop lsw_buffer_admit(struct lsw_buffer_lcore *const *all, uint16_t n_workers,
			       struct lsw_buffer_lcore *mine, const struct lsw_buffer_dp *mc,
			       struct lsw_pkt_meta *meta, uint32_t len);
/* After lsw_buffer_admit_run for those (port, PG) and (port, queue): their watermarks. */
void lsw_buffer_watermarks(struct lsw_buffer_lcore *const *all, uint16_t n,
			   struct lsw_buffer_lcore *mine, const struct lsw_buffer_dp *mc,
			   uint16_t ip, uint8_t pg, uint16_t op, uint8_t q);
/* Give back @c bytes charged as @meta records (by any worker): one packet's, or the sum
 * over consecutive packets charged alike (the egress run's release_run, tx.c). */
static inline void
lsw_buffer_release_bytes(struct lsw_buffer_lcore *mine, const struct lsw_buffer_dp *mc,
			 const struct lsw_pkt_meta *meta, int64_t c, int64_t pkts)
{
	const uint8_t ipool = mc->pg[meta->in_port][meta->pg].pool;
	const uint8_t epool = mc->q[meta->out_port][meta->queue].pool;

	mine->use.pg_occ[meta->in_port][meta->pg][meta->in_part] -= c;
	/* Headroom in use is counted per pool whether or not the pool shares it now: a
	 * change of BUFFER_POOL.xoff between admission and release must not leak it. */
	if (meta->in_part == LSW_PART_SHARED)
		mine->use.pool_shared[ipool] -= c;
	else if (meta->in_part == LSW_PART_HEADROOM)
		mine->use.pool_hdrm[ipool] -= c;
	mine->use.pool_used[ipool] -= c;
	mine->use.q_occ[meta->out_port][meta->queue][meta->eg_part == LSW_PART_SHARED] -= c;
	if (meta->eg_part == LSW_PART_SHARED)
		mine->use.pool_shared[epool] -= c;
	mine->use.pool_used[epool] -= c;
	mine->use.pkts_held -= pkts;
	mine->use.pg_held[meta->in_port][meta->pg] -= pkts;
}

static inline void
lsw_buffer_release(struct lsw_buffer_lcore *mine, const struct lsw_buffer_dp *mc,
		   const struct lsw_pkt_meta *meta)
{
	lsw_buffer_release_bytes(mine, mc, meta, meta->charged, 1);
}

/* ABM's inputs for PG (@queue false) or queue @idx of @port (lsw_buffer_limit). */
void lsw_buffer_abm_in(struct lsw_buffer_lcore *const *all, uint16_t n,
		       const struct lsw_buffer_dp *mc, bool queue, uint16_t port, uint8_t idx,
		       struct lsw_abm_in *a);
/* The threshold of PG @pg (queue @q) of @port now, under its pool's policy. */
uint64_t lsw_buffer_pg_limit(struct lsw_buffer_lcore *const *all, uint16_t n,
			     const struct lsw_buffer_dp *mc, uint16_t port, uint8_t pg);
uint64_t lsw_buffer_q_limit(struct lsw_buffer_lcore *const *all, uint16_t n,
			    const struct lsw_buffer_dp *mc, uint16_t port, uint8_t q);
/*
 * ABM's measurements for @port, by its owner worker (@mine) once per loop: every
 * mc->abm_update_ns (at @now, in ticks of @hz), each queue's drain rate over the interval
 * (its tx bytes over what @rate_bps carries), and the saturation of each of its queues and
 * PGs of an ABM pool, added to n_p as a delta. Returns at once when no pool runs ABM.
 */
void lsw_buffer_abm_update(struct lsw_buffer_lcore *const *all, uint16_t n,
			   struct lsw_buffer_lcore *mine, const struct lsw_buffer_dp *mc,
			   uint16_t port, uint64_t rate_bps, uint64_t now, uint64_t hz);

/* For PFC: should (port, PG) be paused (it holds headroom or reached its threshold), and
 * may a paused one resume (no headroom, usage at or below max(xon, T - xon_offset))? */
bool lsw_buffer_pg_xoff(struct lsw_buffer_lcore *const *all, uint16_t n,
			const struct lsw_buffer_dp *mc, uint16_t port, uint8_t pg);
bool lsw_buffer_pg_xon(struct lsw_buffer_lcore *const *all, uint16_t n,
		       const struct lsw_buffer_dp *mc, uint16_t port, uint8_t pg);
#endif
