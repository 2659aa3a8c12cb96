/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Egress scheduling on a fake clock: DWRR shares within 2% of the weights (equal and mixed
 * frame sizes), strict priority, paused queues, and the port shaper within 1% of its rate
 * from 1 Mb/s to 100 Gb/s when the worker wakes within the bucket's depth of the due time;
 * a queue's entries pushed a run at once; the egress run giving each packet's buffer
 * back to the PG and parts it was charged to, when a run mixes them; an empty DWRR queue
 * keeping no credit; egress runs serving what a pick for each packet would, and spending
 * the shaper's tokens as a frame at a time would; a worker's short wait a yield or a sleep,
 * and which workers share a CPU.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include "harness.h"
#include "lsw/dataplane.h"
#include "lsw/sched.h"

#define HZ UINT64_C(2500000000) /* a 2.5 GHz TSC */

#define E0 0
#define E4 1
#define E8 2
/* Ethernet0 and Ethernet4 send to 10.2.0.0/16 through Ethernet8. DSCP 3 is TC 3: a lossless
 * PG 3 with a 4-KB reserve, on one queue (3) with TC 0's lossy PG 0. */
#define MIX_CONFIG \
	"{\"DEVICE_METADATA\": {\"localhost\": {\"mac\": \"02:00:00:00:00:01\"}}," \
	" \"LSW\": {\"global\": {\"workers\": [1], \"mbufs\": 20000}}," \
	" \"PORT\": {\"Ethernet0\": {}, \"Ethernet4\": {}, \"Ethernet8\": {}}," \
	" \"LSW_PORT\": {\"Ethernet0\": {\"devargs\": \"net_null0\"}," \
	"   \"Ethernet4\": {\"devargs\": \"net_null1\"}," \
	"   \"Ethernet8\": {\"devargs\": \"net_null2\"}}," \
	" \"INTERFACE\": {\"Ethernet0|10.0.0.0/31\": {}, \"Ethernet4|10.0.1.0/31\": {}," \
	"   \"Ethernet8|10.0.2.0/31\": {}}," \
	" \"STATIC_ROUTE\": {\"10.2.0.0/16\": {\"nexthop\": \"10.0.2.1\"}}," \
	" \"NEIGH\": {\"Ethernet8|10.0.2.1\": {\"neigh\": \"02:00:00:00:08:01\"}}," \
	" \"TC_TO_QUEUE_MAP\": {\"MIX\": {\"0\": \"3\", \"3\": \"3\"}}," \
	" \"DSCP_TO_TC_MAP\": {\"MIX\": {\"0\": \"0\", \"3\": \"3\"}}," \
	" \"PORT_QOS_MAP\": {\"Ethernet0,Ethernet4,Ethernet8\": {\"dscp_to_tc_map\": \"MIX\"," \
	"   \"tc_to_queue_map\": \"MIX\", \"pfc_enable\": \"3\"}}," \
	" \"BUFFER_PROFILE\": {\"lossless\": {\"pool\": \"ingress_lossless_pool\"," \
	"   \"size\": \"68KB\", \"xoff\": \"64KB\", \"dynamic_th\": \"0\"}}," \
	" \"BUFFER_PG\": {\"Ethernet0,Ethernet4|3\": {\"profile\": \"lossless\"}}}"

static struct rte_mbuf pkts[LSW_NUM_QUEUES][4];
static const struct lsw_pkt_meta meta0;

/* Keep every queue of @mask full with frames of size @len[q] (the same mbufs recycle). */
static void
refill(struct lsw_sched *s, uint8_t mask, const uint32_t *len)
{
	for (int q = 0; q < LSW_NUM_QUEUES; q++) {
		if (!(mask >> q & 1))
			continue;
		while (lsw_fifo_count(&s->q[q]) < 4) {
			struct rte_mbuf *m = &pkts[q][s->q[q].tail & 3];
			m->pkt_len = len[q];
			lsw_fifo_push(&s->q[q], m, &meta0);
		}
	}
}

static struct rte_mbuf *
serve(struct lsw_sched *s, const struct lsw_sched_dp *c, int q)
{
	struct lsw_qent *e = lsw_fifo_pop_ent(&s->q[q]);

	s->q[q].bytes -= e->m->pkt_len;
	if (!(c->strict_mask >> q & 1))
		s->deficit[q] -= e->m->pkt_len;
	return e->m;
}

static void
dwrr_case(const uint16_t *weight, const uint32_t *len, uint8_t mask)
{
	struct lsw_sched s;
	struct lsw_sched_dp c = {0};
	uint64_t bytes[LSW_NUM_QUEUES] = {0}, total = 0;
	uint32_t wsum = 0;

	assert_int_equal(lsw_sched_init(&s, 8, SOCKET_ID_ANY), 0);
	for (int q = 0; q < LSW_NUM_QUEUES; q++) {
		c.quantum[q] = (uint32_t)weight[q] * LSW_DWRR_QUANTUM;
		wsum += mask >> q & 1 ? weight[q] : 0;
	}
	while (total < 500u * 1000 * 1000) {
		refill(&s, mask, len);
		int q = lsw_sched_pick(&s, &c, 0);
		assert_true(q >= 0 && (mask >> q & 1));
		struct rte_mbuf *m = serve(&s, &c, q);
		bytes[q] += m->pkt_len;
		total += m->pkt_len;
	}
	for (int q = 0; q < LSW_NUM_QUEUES; q++) {
		if (!(mask >> q & 1))
			continue;
		double share = (double)bytes[q] / (double)total, want = (double)weight[q] / wsum;
		if (share < want * 0.98 || share > want * 1.02)
			fail_msg("queue %d: share %.4f, weight share %.4f", q, share, want);
	}
	lsw_sched_free(&s);
}

/* A run pushed at once: every entry its mbuf and its charge, in order across the ring's
 * wrap, or nothing at all when the run does not fit. */
static void
test_fifo_push_run(void **state)
{
	struct lsw_sched s;
	struct rte_mbuf m[12];
	struct lsw_charge c[12];
	uint32_t len[12];
	uint64_t sum = 0;

	(void)state;
	assert_int_equal(lsw_sched_init(&s, 8, SOCKET_ID_ANY), 0);
	struct lsw_fifo *f = &s.q[2];
	for (int i = 0; i < 12; i++) {
		len[i] = 60 + 100 * (uint32_t)i;
		m[i].pkt_len = len[i];
		c[i] = (struct lsw_charge){.bytes = (uint16_t)(64 * ((len[i] + 63) / 64)),
					   .len = (uint16_t)len[i], .in_port = (uint8_t)i,
					   .pg = (uint8_t)(i % 8), .in_part = (uint8_t)(i % 3),
					   .eg_part = (uint8_t)(i % 2)};
	}
	struct rte_mbuf *mb[12];
	for (int i = 0; i < 12; i++)
		mb[i] = &m[i];
	assert_true(lsw_fifo_push_run(f, mb, c, 5));
	assert_int_equal(lsw_fifo_count(f), 5);
	/* 5 + 4 > 8: refused whole, the queue as it was */
	assert_false(lsw_fifo_push_run(f, mb + 5, c + 5, 4));
	assert_int_equal(lsw_fifo_count(f), 5);
	for (int i = 0; i < 5; i++)
		sum += len[i];
	assert_int_equal(f->bytes, sum);
	/* two out, then four in across the wrap (slots 5, 6, 7, 0) */
	assert_ptr_equal(lsw_fifo_pop(f), &m[0]);
	assert_ptr_equal(lsw_fifo_pop(f), &m[1]);
	assert_true(lsw_fifo_push_run(f, mb + 5, c + 5, 4));
	assert_int_equal(lsw_fifo_count(f), 7);
	for (int i = 2; i < 9; i++) {
		assert_int_equal(lsw_fifo_head_len(f), len[i]);
		struct lsw_qent *e = lsw_fifo_pop_ent(f);
		assert_ptr_equal(e->m, &m[i]);
		assert_int_equal(e->len, len[i]);
		assert_int_equal(e->charged, c[i].bytes);
		assert_int_equal(e->in_port, i);
		assert_int_equal(e->pg, i % 8);
		assert_int_equal(e->in_part, i % 3);
		assert_int_equal(e->eg_part, i % 2);
		f->bytes -= e->len;
	}
	assert_int_equal(lsw_fifo_count(f), 0);
	assert_int_equal(f->bytes, 0);
	lsw_sched_free(&s);
}

static void
test_dwrr_shares(void **state)
{
	static const uint16_t w1[8] = {1, 2, 3, 4, 1, 1, 1, 1};
	static const uint16_t w2[8] = {14, 14, 14, 15, 15, 14, 14, 14}; /* SONiC's scheduler.0/1 */
	static const uint16_t w3[8] = {1, 100, 1, 1, 1, 1, 1, 50};
	static const uint32_t same[8] = {1500, 1500, 1500, 1500, 1500, 1500, 1500, 1500};
	static const uint32_t mixed[8] = {64, 4154, 1500, 9000, 300, 64, 4154, 128};

	(void)state;
	dwrr_case(w1, same, 0x0f);
	dwrr_case(w1, mixed, 0x0f); /* shares are of bytes, whatever the frame sizes */
	dwrr_case(w2, mixed, 0xff);
	dwrr_case(w3, mixed, 0x83);
}

/* DRR's rule: a queue that empties keeps no credit. Queue 0 sends its one frame with most
 * of its quantum left; once the turn has passed it, empty, that credit is gone. */
static void
test_dwrr_empty_no_credit(void **state)
{
	struct lsw_sched s;
	struct lsw_sched_dp c = {0};
	static const uint32_t len[8] = {100, 100};

	(void)state;
	assert_int_equal(lsw_sched_init(&s, 8, SOCKET_ID_ANY), 0);
	c.quantum[0] = c.quantum[1] = LSW_DWRR_QUANTUM;
	refill(&s, 0x03, len);
	while (lsw_fifo_count(&s.q[0]) != 0) {
		assert_int_equal(lsw_sched_pick(&s, &c, 0), 0);
		serve(&s, &c, 0);
	}
	assert_int_equal(s.deficit[0], LSW_DWRR_QUANTUM - 4 * 100);
	assert_int_equal(lsw_sched_pick(&s, &c, 0), 1);
	assert_int_equal(s.deficit[0], 0);
	lsw_sched_free(&s);
}

static void
test_strict_and_pause(void **state)
{
	struct lsw_sched s;
	struct lsw_sched_dp c = {.strict_mask = 0xc0}; /* queues 6 and 7 strict */
	static const uint32_t len[8] = {100, 100, 100, 100, 100, 100, 100, 100};

	(void)state;
	assert_int_equal(lsw_sched_init(&s, 8, SOCKET_ID_ANY), 0);
	for (int q = 0; q < 6; q++)
		c.quantum[q] = LSW_DWRR_QUANTUM;
	refill(&s, 0xc3, len);
	/* The highest strict queue wins while it has packets, then the next. */
	for (int i = 0; i < 4; i++)
		assert_int_equal(serve(&s, &c, lsw_sched_pick(&s, &c, 0))->pkt_len, 100),
		assert_int_equal(lsw_fifo_count(&s.q[7]), 3 - i);
	assert_int_equal(lsw_sched_pick(&s, &c, 0), 6);
	while (lsw_fifo_count(&s.q[6]))
		serve(&s, &c, 6);
	int q = lsw_sched_pick(&s, &c, 0);
	assert_true(q == 0 || q == 1);
	/* A paused queue is skipped until its timer expires; the others go on. */
	refill(&s, 0x80, len);
	s.pause_until[7] = 1000;
	q = lsw_sched_pick(&s, &c, 999);
	assert_true(q == 0 || q == 1);
	s.pause_until[0] = s.pause_until[1] = 1000;
	assert_int_equal(lsw_sched_pick(&s, &c, 999), -1);
	assert_int_equal(lsw_sched_pick(&s, &c, 1000), 7);
	lsw_sched_free(&s);
}

/* Send frames of @len bytes as the shaper of @s, @c allows until @end (ticks), the worker
 * waking when its next frame is due (lsw_shaper_wait) but up to @late ticks after
 * (jittered by rand() from @seed), as a worker that sleeps its measured lateness less
 * wakes (dataplane/worker.c). @backlogged: the queue never empties, so the port is marked
 * starved after each wake (its head waits), which lets the catch-up work. The bucket
 * starts empty: the steady rate, not the first burst. Returns bits per second; *@now the
 * time it stopped. */
static double
shape(struct lsw_sched *s, const struct lsw_sched_dp *c, uint64_t late, uint64_t end,
      uint32_t len, unsigned int seed, bool backlogged, uint64_t *now)
{
	uint64_t sent_bits = 0;

	*now = 1;
	lsw_shaper_refill(s, c, HZ, *now, 0);
	s->tokens = 0;
	srand(seed);
	int64_t cost = lsw_shaper_cost(c, HZ, len);
	while (*now < end) {
		*now += RTE_MAX(lsw_shaper_wait(s, c, HZ, cost), (uint64_t)1) +
			(uint64_t)rand() % (late + 1);
		lsw_shaper_refill(s, c, HZ, *now, 0);
		while (s->tokens >= cost) {
			s->tokens -= cost;
			sent_bits += (uint64_t)(len + 24) * 8;
		}
		if (backlogged)
			s->starved = true;
	}
	return (double)sent_bits / ((double)*now / HZ);
}

/* The rate the shaper gives at @rate_bps over @seconds with wakes up to @late ticks late. */
static double
shaped_rate(uint64_t rate_bps, uint64_t late, double seconds, uint32_t len)
{
	struct lsw_sched s;
	struct lsw_sched_dp c = {.rate_bps = rate_bps, .overhead = 24};
	uint64_t now;

	assert_int_equal(lsw_sched_init(&s, 8, SOCKET_ID_ANY), 0);
	c.quantum[0] = LSW_DWRR_QUANTUM;
	/* The depth lsw gives (control/config/inflight.c): two frames and 10 us at the rate. */
	c.burst_bytes = (uint64_t)2 * (len + 24) + rate_bps / 8 * 10 / 1000000;
	double got = shape(&s, &c, late, (uint64_t)(seconds * HZ), len, 3, false, &now);
	lsw_sched_free(&s);
	return got;
}

/* The shaper keeps the rate within 1% from 1 Mb/s to 100 Gb/s, for frames of 60 to 9000
 * bytes, when the worker wakes up to 9 us late: less than the bucket's 10 us beyond two frames. */
static void
test_shaper_accuracy(void **state)
{
	static const uint64_t rates[] = {1000000ull, 10000000ull, 1000000000ull, 10000000000ull,
					 100000000000ull};
	static const uint64_t late_us[] = {0, 1, 5, 9};
	static const uint32_t lens[] = {60, 1500, 4154, 9000};

	(void)state;
	for (size_t r = 0; r < RTE_DIM(rates); r++)
		for (size_t st = 0; st < RTE_DIM(late_us); st++)
			for (size_t l = 0; l < RTE_DIM(lens); l++) {
				/* Long enough for thousands of frames at every rate. */
				double secs = rates[r] < 100000000 ? 40.0 : 0.02;
				double got = shaped_rate(rates[r], late_us[st] * HZ / 1000000, secs,
							 lens[l]);
				double err = got / (double)rates[r] - 1;
				if (err > 0.01 || err < -0.01)
					fail_msg("rate %llu b/s, late %llu us, %u B frames: "
						 "got %.0f", (unsigned long long)rates[r],
						 (unsigned long long)late_us[st], lens[l], got);
			}
}

/* A backlogged port whose worker wakes up to 2 ms late (a preemption on a shared CPU)
 * keeps its rate within 1% with the catch-up, and loses a third of it without; an idle
 * port's bucket stays small however long it idles. */
static void
test_shaper_catchup(void **state)
{
	const uint64_t rate = 1000000000ull, late = 2 * HZ / 1000;
	const uint32_t len = 4154;

	(void)state;
	for (int on = 0; on < 2; on++) {
		struct lsw_sched s;
		struct lsw_sched_dp c = {.rate_bps = rate, .overhead = 24};
		uint64_t now;

		assert_int_equal(lsw_sched_init(&s, 8, SOCKET_ID_ANY), 0);
		c.burst_bytes = (uint64_t)2 * (len + 24) + rate / 8 * 10 / 1000000;
		c.catchup_bytes = on ? rate / 8 * 2500 / 1000000 : 0;
		double got = shape(&s, &c, late, 4 * HZ, len, 5, true, &now) / (double)rate;
		if (on)
			assert_true(got > 0.99 && got < 1.01);
		else
			assert_true(got < 0.7);
		/* Idle for a second: the small bucket, whatever the catch-up. */
		s.starved = false;
		lsw_shaper_refill(&s, &c, HZ, now + HZ, 0);
		assert_true(s.tokens <= (int64_t)(c.burst_bytes * 8 * HZ));
		lsw_sched_free(&s);
	}
}

/* An idle port whose worker was away from its rx rings (asleep, preempted) may send what
 * came meanwhile at once, as a hardware port would have sent it since it came: its bucket
 * holds the line time away, within the catch-up; not a port that held frames (after a
 * pause the line resumes at its rate), not a worker that only polled (its small bucket),
 * not a port without catch-up. */
static void
test_shaper_away(void **state)
{
	const uint64_t rate = 1000000000ull, us = HZ / 1000000;
	const uint32_t len = 4154;
	struct lsw_sched_dp c = {.rate_bps = rate, .overhead = 24};
	struct lsw_sched s;

	(void)state;
	c.burst_bytes = (uint64_t)2 * (len + 24) + rate / 8 * 10 / 1000000;
	c.catchup_bytes = rate / 8 * 2000 / 1000000;
	const int64_t burst = (int64_t)(c.burst_bytes * 8 * HZ);
	const int64_t away300 = (int64_t)(rate / 8 * 300 / 1000000 * 8 * HZ);
	assert_int_equal(lsw_sched_init(&s, 8, SOCKET_ID_ANY), 0);
	/* Away 300 us, the port empty before: 300 us of the line, owed. */
	assert_true(lsw_shaper_refill(&s, &c, HZ, HZ, 300 * us));
	assert_true(s.tokens == away300);
	/* Only polling (5 us between reads): the small bucket. */
	s.tokens = 0;
	assert_false(lsw_shaper_refill(&s, &c, HZ, 2 * HZ, 5 * us));
	assert_true(s.tokens == burst);
	/* Away a second: the catch-up's depth at most. */
	s.tokens = 0;
	assert_true(lsw_shaper_refill(&s, &c, HZ, 3 * HZ, HZ));
	assert_true(s.tokens == (int64_t)(c.catchup_bytes * 8 * HZ));
	/* A port that held frames (paused): the small bucket. */
	s.tokens = 0;
	s.held = true;
	assert_false(lsw_shaper_refill(&s, &c, HZ, 4 * HZ, 300 * us));
	assert_true(s.tokens == burst);
	/* No catch-up configured (between switches): the small bucket. */
	s.held = false;
	s.tokens = 0;
	c.catchup_bytes = 0;
	assert_false(lsw_shaper_refill(&s, &c, HZ, 5 * HZ, 300 * us));
	assert_true(s.tokens == burst);
	lsw_sched_free(&s);
}

/* Speed times bucket beyond what an int64 of tokens holds (400G with a 10 ms bucket, or
 * 800G with 100 ms): the bucket saturates, and the port still sends at its rate. */
static void
test_shaper_saturates(void **state)
{
	static const struct {
		uint64_t rate, burst;
	} cases[] = {
		{400000000000ull, 400000000000ull / 8 / 100},
		{800000000000ull, 800000000000ull / 8 / 10},
	};

	(void)state;
	for (size_t i = 0; i < RTE_DIM(cases); i++) {
		struct lsw_sched s;
		struct lsw_sched_dp c = {.rate_bps = cases[i].rate, .overhead = 24,
					  .burst_bytes = cases[i].burst};
		assert_int_equal(lsw_sched_init(&s, 8, SOCKET_ID_ANY), 0);
		lsw_shaper_refill(&s, &c, HZ, 1, 0);
		lsw_shaper_refill(&s, &c, HZ, HZ, 0); /* a second later: a full bucket */
		int64_t cost = lsw_shaper_cost(&c, HZ, 9000);
		assert_true(s.tokens > cost);
		assert_int_equal(lsw_shaper_wait(&s, &c, HZ, cost), 0);
		/* Emptied, it refills at the rate: one 9000-byte frame in its wire time. */
		s.tokens = 0;
		uint64_t t = HZ + (uint64_t)cost / cases[i].rate + 1;
		lsw_shaper_refill(&s, &c, HZ, t, 0);
		assert_true(s.tokens >= cost);
		lsw_sched_free(&s);
	}
}

/* A frame of @len bytes to 10.2.0.9 with DSCP @dscp. */
static uint16_t
mix_frame(uint8_t *buf, uint8_t dscp, uint16_t len)
{
	struct t_flow f = {.src = "10.0.0.1", .dst = "10.2.0.9", .vlan = -1,
			   .tos = (uint8_t)(dscp << 2), .payload = (uint16_t)(len - 14 - 28)};

	return t_build_ipv4(buf, &f);
}

/* One egress queue holds packets from two ports and two PGs, each admitted to its PG's
 * reserve or shared part, in an order that changes the (port, PG, parts) from one entry to
 * the next and runs of the same. Egress runs give every byte back where it was charged:
 * each PG's occupancy falls by exactly what its own packets were charged, and the buffer
 * ends empty. */
static void
test_egress_release(void **state)
{
	static const struct {
		uint16_t port;
		uint8_t dscp;
	} order[] = {
		{E0, 3}, {E4, 3}, {E0, 0}, {E0, 0}, {E4, 0}, {E0, 3}, {E0, 3}, {E0, 3}, {E4, 3},
		{E4, 0}, {E4, 3}, {E0, 0}, {E4, 3}, {E4, 3}, {E0, 3}, {E4, 0}, {E0, 0}, {E4, 3},
	};
	struct t_switch *t = t_switch_new(MIX_CONFIG);
	struct lsw_buffer_use *use = &t->w.buffer->use;
	static uint8_t buf[4096]; /* frames up to 1000 + 64 * 17 bytes */
	int64_t charged[2][LSW_NUM_PG] = {{0}};
	uint64_t now = 1;

	(void)state;
	assert_int_equal(t_start_ports(t), 0);
	for (unsigned int i = 0; i < RTE_DIM(order); i++) {
		uint16_t p = order[i].port;
		uint8_t pg = order[i].dscp == 3 ? 3 : 0;
		int64_t before = 0, after = 0;
		for (int part = 0; part < LSW_PARTS; part++)
			before += use->pg_occ[p][pg][part];
		t_rx(t, p, buf, mix_frame(buf, order[i].dscp, (uint16_t)(1000 + 64 * i)), now);
		for (int part = 0; part < LSW_PARTS; part++)
			after += use->pg_occ[p][pg][part];
		assert_true(after > before); /* admitted, to the PG the test expects */
		charged[p][pg] += after - before;
	}
	/* Both parts of the lossless PGs are in use: runs straddle the reserve. */
	assert_true(use->pg_occ[E0][3][LSW_PART_RESERVED] > 0);
	assert_true(use->pg_occ[E0][3][LSW_PART_SHARED] > 0);
	assert_int_equal(lsw_fifo_count(&t->sw.dp.sched[E8]->q[3]), RTE_DIM(order));
	/* Egress runs, on a clock that moves 1 ms between them, until the queue is empty. */
	uint64_t sent = 0;
	while (lsw_fifo_count(&t->sw.dp.sched[E8]->q[3]) != 0) {
		sent += lsw_egress_run(&t->w, t->conf, E8, now);
		now += 1000000;
	}
	assert_int_equal(sent, RTE_DIM(order));
	for (uint16_t p = E0; p <= E4; p++) {
		for (int pg = 0; pg < LSW_NUM_PG; pg++) {
			const int64_t *occ = use->pg_occ[p][pg];
			for (int part = 0; part < LSW_PARTS; part++)
				if (occ[part] != 0)
					fail_msg("port %u PG %d part %d holds %" PRId64 " of %"
						 PRId64, p, pg, part, occ[part], charged[p][pg]);
		}
	}
	static const struct lsw_buffer_use zero;
	assert_memory_equal(use, &zero, sizeof(zero));
	t_switch_free(t);
}

/* Ethernet0 sends to 10.2.0.0/16 through Ethernet8, an 800G port: DSCP 0 and 1 on DWRR
 * queues 0 and 1, both of weight 1 (a quantum of one 9238-byte frame). */
#define DWRR_CONFIG \
	"{\"DEVICE_METADATA\": {\"localhost\": {\"mac\": \"02:00:00:00:00:01\"}}," \
	" \"LSW\": {\"global\": {\"workers\": [1], \"mbufs\": 20000}}," \
	" \"PORT\": {\"Ethernet0\": {\"speed\": \"800000\"}," \
	"   \"Ethernet8\": {\"speed\": \"800000\"}}," \
	" \"LSW_PORT\": {\"Ethernet0\": {\"devargs\": \"net_null0\"}," \
	"   \"Ethernet8\": {\"devargs\": \"net_null2\"}}," \
	" \"INTERFACE\": {\"Ethernet0|10.0.0.0/31\": {}, \"Ethernet8|10.0.2.0/31\": {}}," \
	" \"STATIC_ROUTE\": {\"10.2.0.0/16\": {\"nexthop\": \"10.0.2.1\"}}," \
	" \"NEIGH\": {\"Ethernet8|10.0.2.1\": {\"neigh\": \"02:00:00:00:08:01\"}}," \
	" \"TC_TO_QUEUE_MAP\": {\"Q\": {\"0\": \"0\", \"1\": \"1\"}}," \
	" \"DSCP_TO_TC_MAP\": {\"Q\": {\"0\": \"0\", \"1\": \"1\"}}," \
	" \"PORT_QOS_MAP\": {\"Ethernet0,Ethernet8\": {\"dscp_to_tc_map\": \"Q\"," \
	"   \"tc_to_queue_map\": \"Q\"}}}"

/*
 * The egress run serves whole runs, and a DWRR queue alone with packets takes its next
 * quantum within the run (tx.c). The packets each queue sends, and every queue's credit,
 * must be what picking a queue for each packet gives (lsw_sched_pick, then one packet
 * served), after every egress run: with one busy queue, with two (whose frames of 4 KB
 * take turns two at a time), and with one of the two emptied midway.
 */
static void
test_egress_runs_as_picks(void **state)
{
	static const struct {
		uint8_t n[2]; /* frames of DSCP (and queue) 0 and 1, sent alternately */
	} cases[] = {{{40, 0}}, {{0, 70}}, {{20, 20}}, {{6, 50}}};
	static uint8_t buf[4096];
	static struct rte_mbuf ref_m[2];

	(void)state;
	for (size_t i = 0; i < RTE_DIM(cases); i++) {
		struct t_switch *t = t_switch_new(DWRR_CONFIG);
		const uint16_t E8_ = 1; /* Ethernet8 is the second port here */
		struct lsw_sched *s = t->sw.dp.sched[E8_], ref;
		const uint64_t *sent = t->w.buffer->ctr.q_tx_pkts[E8_];
		uint64_t ref_sent[2] = {0}, now = 1;

		assert_int_equal(t_start_ports(t), 0);
		const struct lsw_sched_dp *c = &t->conf->sched[E8_]; /* the ports' snapshot */
		assert_int_equal(c->quantum[0], LSW_DWRR_QUANTUM);
		assert_int_equal(lsw_sched_init(&ref, 256, SOCKET_ID_ANY), 0);
		for (int q = 0; q < 2; q++)
			ref_m[q].pkt_len = 4000;
		for (int k = 0; k < cases[i].n[0] || k < cases[i].n[1]; k++) {
			for (uint8_t q = 0; q < 2; q++) {
				if (k >= cases[i].n[q])
					continue;
				t_rx(t, E0, buf, mix_frame(buf, q, 4000), now);
				lsw_fifo_push(&ref.q[q], &ref_m[q], &meta0);
			}
		}
		for (int q = 0; q < 2; q++)
			assert_int_equal(lsw_fifo_count(&s->q[q]), cases[i].n[q]);
		now += 1000000; /* the shaper's bucket full */
		while (lsw_fifo_count(&s->q[0]) + lsw_fifo_count(&s->q[1]) != 0) {
			uint32_t n = lsw_egress_run(&t->w, t->conf, E8_, now);
			assert_true(n > 0);
			for (uint32_t k = 0; k < n; k++) {
				int q = lsw_sched_pick(&ref, c, now);
				assert_true(q == 0 || q == 1);
				serve(&ref, c, q);
				ref_sent[q]++;
			}
			/* A run short of a burst ended for want of packets: the model's too. */
			if (n < LSW_BURST)
				assert_int_equal(lsw_sched_pick(&ref, c, now), -1);
			for (int q = 0; q < 2; q++) {
				assert_int_equal(sent[q], ref_sent[q]);
				assert_int_equal(s->deficit[q], ref.deficit[q]);
			}
			assert_int_equal(s->rr, ref.rr);
			now += 1000000;
		}
		lsw_sched_free(&ref);
		t_switch_free(t);
	}
}

/* The egress run spends the shaper's tokens as a frame at a time would: with the bucket at
 * the cost of its first k frames (of several sizes), one token short of it, or one over,
 * it sends exactly the frames whose costs fit, and the bucket loses exactly their cost. A
 * bucket of -1 (control frames overdrew it) sends nothing. */
static void
test_egress_run_shaper(void **state)
{
	static const uint16_t lens[] = {64, 1500, 4000, 128, 3000, 700, 64, 2048};
	static uint8_t buf[4096];
	const int nf = (int)RTE_DIM(lens);

	(void)state;
	for (int k = 0; k <= nf; k++) {
		for (int delta = -1; delta <= 1; delta++) {
			struct t_switch *t = t_switch_new(DWRR_CONFIG);
			const uint16_t E8_ = 1; /* Ethernet8 is the second port here */
			struct lsw_sched *s = t->sw.dp.sched[E8_];
			const int64_t bt = 8 * (int64_t)t->sw.dp.tsc_hz;

			assert_int_equal(t_start_ports(t), 0);
			const struct lsw_sched_dp *c = &t->conf->sched[E8_];
			for (int i = 0; i < nf; i++)
				t_rx(t, E0, buf, mix_frame(buf, 0, lens[i]), 1);
			struct lsw_fifo *f = &s->q[0];
			assert_int_equal(lsw_fifo_count(f), nf);
			/* Each frame's cost, from the length its entry holds. */
			int64_t cost[RTE_DIM(lens)], tokens = delta;
			for (int i = 0; i < nf; i++) {
				const struct lsw_qent *e = &f->slot[(f->head + i) & f->mask];
				assert_int_equal(e->len, lens[i]);
				cost[i] = ((int64_t)e->len + (int64_t)c->overhead) * bt;
				if (i < k)
					tokens += cost[i];
			}
			int expect = delta < 0 ? RTE_MAX(k - 1, 0) : k;
			int64_t spent = 0;
			for (int i = 0; i < expect; i++)
				spent += cost[i];
			s->tokens = tokens;
			/* At the shaper's last refill: no tokens are added. */
			uint32_t n = lsw_egress_run(&t->w, t->conf, E8_, s->last);
			assert_int_equal(n, expect);
			assert_int_equal(s->tokens, tokens - spent);
			assert_int_equal(lsw_fifo_count(f), nf - expect);
			t_switch_free(t);
		}
	}
}

/* A worker's short wait: yields, until two dear ones come within the window; then the
 * shortest sleep for the hold time, and yields again. A cheap yield changes nothing. */
static void
test_wait_yields(void **state)
{
	const uint64_t ms = HZ / 1000, dear = ms, window = 20 * ms, hold = 100 * ms;
	uint64_t dear_at = 0, until = 0, t = 1000 * ms;

	(void)state;
	assert_true(lsw_wait_yields(until, t));
	/* One dear yield: still yields; a cheap one after it. */
	lsw_yield_note(&dear_at, &until, 4 * ms, t, dear, window, hold);
	assert_true(lsw_wait_yields(until, t + 1));
	lsw_yield_note(&dear_at, &until, dear - 1, t + window - 2, dear, window, hold);
	assert_true(lsw_wait_yields(until, t + window - 1));
	/* A second one within the window: sleep for the hold time, then yield again. */
	lsw_yield_note(&dear_at, &until, dear, t + window - 1, dear, window, hold);
	assert_false(lsw_wait_yields(until, t + window));
	assert_false(lsw_wait_yields(until, t + window - 1 + hold - 1));
	assert_true(lsw_wait_yields(until, t + window - 1 + hold));
	/* Dear yields a window or more apart: yields go on. */
	t += 1000 * ms;
	lsw_yield_note(&dear_at, &until, 4 * ms, t, dear, window, hold);
	lsw_yield_note(&dear_at, &until, 4 * ms, t + window, dear, window, hold);
	assert_true(lsw_wait_yields(until, t + window + 1));
}

/* Workers on a CPU of their own, and workers placed on one CPU ("2@1", "3@1"). */
static void
test_cpus_shared(void **state)
{
	rte_cpuset_t cpus[4];

	(void)state;
	for (int i = 0; i < 4; i++)
		CPU_ZERO(&cpus[i]);
	CPU_SET(1, &cpus[0]);
	CPU_SET(2, &cpus[1]);
	CPU_SET(3, &cpus[2]);
	CPU_SET(0, &cpus[3]);
	CPU_SET(4, &cpus[3]);
	for (uint16_t w = 0; w < 4; w++)
		assert_false(lsw_cpus_shared(cpus, 4, w));
	CPU_SET(1, &cpus[2]); /* worker 2 on CPUs 1 and 3: it and worker 0 share CPU 1 */
	assert_true(lsw_cpus_shared(cpus, 4, 0));
	assert_false(lsw_cpus_shared(cpus, 4, 1));
	assert_true(lsw_cpus_shared(cpus, 4, 2));
	assert_false(lsw_cpus_shared(cpus, 4, 3));
	assert_false(lsw_cpus_shared(cpus, 1, 0)); /* one worker alone */
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fifo_push_run),
		cmocka_unit_test(test_dwrr_shares),
		cmocka_unit_test(test_dwrr_empty_no_credit),
		cmocka_unit_test(test_strict_and_pause),
		cmocka_unit_test(test_shaper_accuracy),
		cmocka_unit_test(test_shaper_saturates),
		cmocka_unit_test(test_shaper_catchup),
		cmocka_unit_test(test_shaper_away),
		cmocka_unit_test(test_egress_release),
		cmocka_unit_test(test_egress_runs_as_picks),
		cmocka_unit_test(test_egress_run_shaper),
		cmocka_unit_test(test_wait_yields),
		cmocka_unit_test(test_cpus_shared),
	};
	t_eal_init();
	return cmocka_run_group_tests(tests, NULL, NULL);
}
