/* SPDX-License-Identifier: BSD-3-Clause */
/* Strict priority + DWRR over 8 queues, and the port's token bucket (include/lsw/sched.h). */
#include <rte_malloc.h>
#include "lsw/sched.h"

static int
fifo_init(struct lsw_fifo *f, uint32_t capacity, int socket)
{
	f->slot = rte_zmalloc_socket("lsw_fifo", sizeof(*f->slot) * capacity, RTE_CACHE_LINE_SIZE,
				     socket);
	f->mask = capacity - 1;
	f->head = f->tail = 0;
	f->bytes = 0;
	return f->slot ? 0 : -1;
}

int
lsw_sched_init(struct lsw_sched *s, uint32_t capacity, int socket)
{
	memset(s, 0, sizeof(*s));
	capacity = rte_align32pow2(capacity);
	for (int i = 0; i < LSW_NUM_QUEUES; i++)
		if (fifo_init(&s->q[i], capacity, socket) != 0)
			return -1;
	return fifo_init(&s->ctl, 256, socket);
}

void
lsw_sched_free(struct lsw_sched *s)
{
	for (int i = 0; i < LSW_NUM_QUEUES; i++)
		rte_free(s->q[i].slot);
	rte_free(s->ctl.slot);
	memset(s, 0, sizeof(*s));
}

/* The bucket's depth in tokens (bits * hz), saturated: 400G with a 10 ms bucket is more
 * than an int64 holds. A quarter of the range leaves room for what refills add. */
static int64_t
cap_tokens(uint64_t bytes, uint64_t hz)
{
	unsigned __int128 t = (unsigned __int128)bytes * 8 * hz;

	return t > INT64_MAX / 4 ? INT64_MAX / 4 : (int64_t)t;
}

bool
lsw_shaper_refill(struct lsw_sched *s, const struct lsw_sched_dp *c, uint64_t hz, uint64_t now,
		  uint64_t away)
{
	/* While a queue waited for tokens the line was busy: a hardware port would have sent
	 * all along, so the worker's lateness is caught up rather than lost (lost, it leaves a
	 * standing queue behind a flow at the line rate, which ECN then marks). An idle port
	 * keeps the small bucket: after idleness it may not send ahead of the line, except
	 * for the time the worker was @away from its rx rings (asleep, preempted) when it
	 * left the port empty: what it finds queued came meanwhile, and a hardware port
	 * would have been sending it since it came. (A port that held frames, paused or
	 * short of tokens, gets no such credit: after a pause the line resumes at its rate.) */
	const uint64_t deep = RTE_MAX(c->catchup_bytes, c->burst_bytes);
	uint64_t bytes = c->burst_bytes;
	bool owed = s->starved;

	if (owed) {
		bytes = deep;
	} else if (away != 0 && !s->held && deep > c->burst_bytes) {
		unsigned __int128 b = (unsigned __int128)away * c->rate_bps / 8 / hz;
		if (b > c->burst_bytes) {
			bytes = b < deep ? (uint64_t)b : deep;
			owed = true;
		}
	}
	int64_t cap = cap_tokens(bytes, hz);
	uint64_t elapsed = now - s->last;

	s->last = now;
	if (s->tokens >= cap)
		return owed;
	/* Bound elapsed so that elapsed * rate cannot overflow: a full bucket at most. */
	uint64_t need = (uint64_t)(cap - s->tokens);
	if (elapsed > need / c->rate_bps + 1) {
		s->tokens = cap;
		return owed;
	}
	s->tokens += (int64_t)(elapsed * c->rate_bps);
	if (s->tokens > cap)
		s->tokens = cap;
	return owed;
}

uint64_t
lsw_shaper_wait(const struct lsw_sched *s, const struct lsw_sched_dp *c, uint64_t hz,
		int64_t cost)
{
	(void)hz;
	if (s->tokens >= cost)
		return 0;
	return ((uint64_t)(cost - s->tokens) + c->rate_bps - 1) / c->rate_bps;
}

static inline bool
servable(const struct lsw_sched *s, int q, uint64_t now)
{
	return s->q[q].head != s->q[q].tail && (int64_t)(now - s->pause_until[q]) >= 0;
}

int
lsw_sched_pick(struct lsw_sched *s, const struct lsw_sched_dp *c, uint64_t now)
{
	for (unsigned int m = c->strict_mask; m != 0; m &= ~(1u << (31 - __builtin_clz(m)))) {
		int q = 31 - __builtin_clz(m); /* the highest strict queue first */
		if (servable(s, q, now))
			return q;
	}
	/*
	 * DWRR: the queues holding packets, visited in turn from s->rr; each visit adds a
	 * quantum, serving while the head fits. A quantum of weight 1 fits any frame, so two
	 * passes always find one. An empty queue keeps no credit (DRR's rule), and the turn
	 * goes straight past it: stepping through them one by one, a port with one busy queue
	 * went through seven empty ones every two frames of 4 KB (a quantum of weight 1 is
	 * one 9238-byte frame). With the egress run's own step for such a queue (tx.c), +5.3%
	 * on the full path at 4160 B.
	 */
	uint32_t busy = 0;
	for (int q = 0; q < LSW_NUM_QUEUES; q++) {
		if (s->q[q].head != s->q[q].tail)
			busy |= 1u << q;
		else
			s->deficit[q] = 0;
	}
	busy &= ~(uint32_t)c->strict_mask;
	for (int tries = 0; busy != 0 && tries < 2 * LSW_NUM_QUEUES + 1; tries++) {
		/* The next queue with packets from s->rr on, round the ring. */
		uint32_t ahead = (busy | busy << LSW_NUM_QUEUES) >> s->rr;
		int q = (s->rr + __builtin_ctz(ahead)) % LSW_NUM_QUEUES;
		if (q != s->rr) {
			s->rr = (uint8_t)q;
			s->rr_fresh = false;
		}
		if (servable(s, q, now)) {
			if (!s->rr_fresh) {
				s->deficit[q] += c->quantum[q];
				s->rr_fresh = true;
			}
			if (s->deficit[q] >= (int64_t)lsw_fifo_head_len(&s->q[q]))
				return q;
		}
		s->rr = (uint8_t)((q + 1) % LSW_NUM_QUEUES);
		s->rr_fresh = false;
	}
	return -1;
}
