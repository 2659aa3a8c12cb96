/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Egress of one port: 8 FIFO queues and a control queue, strict priority and DWRR, and a
 * token bucket at the port speed. Owned by the port's worker; pure functions of the state
 * and `now` (TSC ticks), so tests drive them with a fake clock.
 */
#ifndef LSW_SCHED_H
#define LSW_SCHED_H

#include <stdint.h>
#include <stdbool.h>
#include <rte_mbuf.h>
#include "lsw/ecn.h"
#include "lsw/buffer.h"
#include "lsw/pfc.h"

/* A queued packet with what dequeue needs: its length, and what releasing its buffer
 * needs. Dequeue reads the mbuf only to mark it, so the shaper's and DWRR's sums do not
 * wait on a load through e->m. 16 bytes: four to a cache line. */
struct lsw_qent {
	struct rte_mbuf *m;
	uint16_t charged;     /* <= 2 * LSW_MAX_FRAME: a frame rounded up to a cell */
	uint16_t len;         /* pkt_len: one segment (< 64 KiB), unchanged once queued */
	uint8_t in_port;
	uint8_t pg;
	uint8_t in_part;
	uint8_t eg_part;
};
_Static_assert(2 * LSW_MAX_FRAME <= UINT16_MAX, "a charge must fit lsw_qent.charged");
_Static_assert(sizeof(struct lsw_qent) == 16, "four queue entries to a cache line");
_Static_assert(offsetof(struct lsw_qent, charged) == 8 &&
	       offsetof(struct lsw_qent, len) == 8 + offsetof(struct lsw_charge, len) &&
	       offsetof(struct lsw_qent, in_port) == 8 + offsetof(struct lsw_charge, in_port) &&
	       offsetof(struct lsw_qent, pg) == 8 + offsetof(struct lsw_charge, pg) &&
	       offsetof(struct lsw_qent, in_part) == 8 + offsetof(struct lsw_charge, in_part) &&
	       offsetof(struct lsw_qent, eg_part) == 8 + offsetof(struct lsw_charge, eg_part) &&
	       sizeof(struct lsw_charge) == 8, "an entry is its mbuf and its charge");

struct lsw_fifo {
	struct lsw_qent *slot;
	uint32_t mask;        /* capacity - 1 (a power of two) */
	/* Free-running. The owner moves the tail with relaxed stores and publishes the
	 * head: queue.stats acquires the head, then reads the tail, which is never behind. */
	uint32_t head, tail;
	uint64_t bytes;
};

static inline uint32_t
lsw_fifo_count(const struct lsw_fifo *f)
{
	return f->tail - f->head;
}

/* The entry of a packet of @len bytes charged as @meta records. */
static inline struct lsw_qent
lsw_qent_of(struct rte_mbuf *m, const struct lsw_pkt_meta *meta, uint32_t len)
{
	return (struct lsw_qent){
		.m = m, .charged = (uint16_t)meta->charged, .len = (uint16_t)len,
		.in_port = meta->in_port, .pg = meta->pg,
		.in_part = meta->in_part, .eg_part = meta->eg_part,
	};
}

static inline bool
lsw_fifo_push(struct lsw_fifo *f, struct rte_mbuf *m, const struct lsw_pkt_meta *meta)
{
	if (f->tail - f->head > f->mask)
		return false;
	f->slot[f->tail & f->mask] = lsw_qent_of(m, meta, m->pkt_len);
	lsw_store_relaxed(&f->tail, f->tail + 1);
	f->bytes += m->pkt_len;
	return true;
}

/* Push @m charged as @c says (a handoff entry's charge, include/lsw/dataplane.h): the mbuf is
 * not read. */
static inline bool
lsw_fifo_push_ent(struct lsw_fifo *f, struct rte_mbuf *m, const struct lsw_charge *c)
{
	const uint32_t t = f->tail;
	struct lsw_qent *e;

	if (t - f->head > f->mask)
		return false;
	e = &f->slot[t & f->mask];
	e->m = m;
	memcpy(&e->charged, c, sizeof(*c));
	lsw_store_relaxed(&f->tail, t + 1);
	f->bytes += c->len;
	return true;
}

/* Push @k admitted packets, charged as @c says: false, and nothing pushed, when they do
 * not all fit. Each entry is its mbuf and its charge, copied whole; one tail store and one
 * byte count for the run. */
static inline bool
lsw_fifo_push_run(struct lsw_fifo *f, struct rte_mbuf *const *m, const struct lsw_charge *c,
		  uint16_t k)
{
	const uint32_t t = f->tail;
	uint64_t bytes = 0;

	if (t - f->head + k > f->mask + 1)
		return false;
	for (uint16_t i = 0; i < k; i++) {
		struct lsw_qent *e = &f->slot[(t + i) & f->mask];
		e->m = m[i];
		memcpy(&e->charged, &c[i], sizeof(c[i]));
		bytes += c[i].len;
	}
	lsw_store_relaxed(&f->tail, t + k);
	f->bytes += bytes;
	return true;
}

static inline struct rte_mbuf *
lsw_fifo_peek(const struct lsw_fifo *f)
{
	return f->head == f->tail ? NULL : f->slot[f->head & f->mask].m;
}

/* The head packet's length; the queue must not be empty. */
static inline uint32_t
lsw_fifo_head_len(const struct lsw_fifo *f)
{
	return f->slot[f->head & f->mask].len;
}

/* The head entry, or NULL; the caller counts f->bytes down. */
static inline struct lsw_qent *
lsw_fifo_pop_ent(struct lsw_fifo *f)
{
	if (f->head == f->tail)
		return NULL;
	struct lsw_qent *e = &f->slot[f->head & f->mask];
	lsw_publish(&f->head, f->head + 1);
	return e;
}

static inline struct rte_mbuf *
lsw_fifo_pop(struct lsw_fifo *f)
{
	struct lsw_qent *e = lsw_fifo_pop_ent(f);

	if (e == NULL)
		return NULL;
	f->bytes -= e->len;
	return e->m;
}

/* Scheduling parameters of a port, in the snapshot. */
struct lsw_sched_dp {
	uint64_t rate_bps;            /* the port speed */
	uint64_t burst_bytes;         /* token bucket depth */
	uint64_t catchup_bytes;       /* its depth while a queue waits for tokens; 0: burst */
	uint32_t overhead;            /* wire bytes per frame beyond pkt_len */
	uint8_t strict_mask;          /* queue bit set: strict priority (higher queue first) */
	uint32_t quantum[LSW_NUM_QUEUES]; /* DWRR: weight * LSW_DWRR_QUANTUM bytes */
	uint64_t ecn_min[LSW_NUM_QUEUES]; /* ECN/WRED act above this depth (UINT64_MAX: never) */
};

#define LSW_DWRR_QUANTUM LSW_MAX_FRAME /* a quantum of weight 1 sends any frame */

/* Scheduler state of a port (its owner worker's). */
struct lsw_sched {
	struct lsw_fifo q[LSW_NUM_QUEUES];
	struct lsw_fifo ctl;          /* switch-originated frames: ahead of every queue */
	int64_t deficit[LSW_NUM_QUEUES];
	uint8_t rr;                   /* DWRR: the queue being served */
	bool rr_fresh;                /* its quantum was added for this visit */
	int64_t tokens;               /* bits * tsc_hz; negative after control frames */
	uint64_t last;                /* tsc of the last refill */
	bool starved;                 /* the last run left a servable queue short of tokens */
	bool held;                    /* the last run left frames queued (tx.c) */
	uint64_t pause_until[LSW_NUM_QUEUES]; /* tsc; a queue is not served before (PFC) */
	struct lsw_pfc_port pfc;      /* the port's PFC state, same owner */
	/* The last loop's egress sent full bursts to its limit (LSW_TX_ROUNDS): the owner
	 * drains its handoff rings no faster than it sends (tx.c). */
	bool behind;
	uint16_t n_pend;              /* frames the PMD refused, sent first next time */
	uint32_t pend_bytes;          /* their bytes: queued ahead of every queue (ECN, ECMP) */
	struct rte_mbuf *pend[32];
};

int lsw_sched_init(struct lsw_sched *s, uint32_t capacity, int socket);
void lsw_sched_free(struct lsw_sched *s);
/* Add tokens for the time since the last call: up to burst_bytes, or catchup_bytes while
 * the port is starved (a worker that woke late owes the line what it would have sent), or
 * up to what the line sends in @away ticks (the worker's time away from its rx rings,
 * within catchup_bytes). Returns whether the bucket may hold that owed line time. */
bool lsw_shaper_refill(struct lsw_sched *s, const struct lsw_sched_dp *c, uint64_t hz,
		       uint64_t now, uint64_t away);
/* Tokens a frame of @len bytes costs. */
static inline int64_t
lsw_shaper_cost(const struct lsw_sched_dp *c, uint64_t hz, uint32_t len)
{
	return (int64_t)((uint64_t)(len + c->overhead) * 8 * hz);
}
/* The queue to serve next (its head fits the DWRR deficit), or -1. Strict queues first,
 * highest index first; paused queues are skipped. Tokens are the caller's business. */
int lsw_sched_pick(struct lsw_sched *s, const struct lsw_sched_dp *c, uint64_t now);
/* Ticks until the bucket holds @cost tokens (0 if it does). */
uint64_t lsw_shaper_wait(const struct lsw_sched *s, const struct lsw_sched_dp *c, uint64_t hz,
			 int64_t cost);

#endif
