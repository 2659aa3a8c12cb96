/* SPDX-License-Identifier: BSD-3-Clause */
/* The worker loop, l3fwd style: rx burst, per-packet dispatch, tx buffers with a drain timer. */
#include <sched.h>
#include <time.h>
#include <unistd.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <rte_ethdev.h>
#include <rte_prefetch.h>
#include <rte_cycles.h>
#include "lsw/dataplane.h"

#define PREFETCH_OFFSET 3
/* A yield that kept the CPU away 1 ms or more went to a CPU-bound process, which the
 * kernel preempts only at a scheduler tick (1-4 ms); other workers and lsw-host hand it
 * back within their loop. Two within 20 ms, and short waits sleep for 100 ms. */
#define YIELD_DEAR_US      1000
#define YIELD_WINDOW_MS    20
#define YIELD_HOLD_MS      100

void
lsw_worker_init(struct lsw_worker *w, struct lsw_dp *dp, uint16_t idx, unsigned int lcore)
{
	memset(w, 0, sizeof(*w));
	w->dp = dp;
	w->fib = dp->fib;
	w->lpm = dp->fib->lpm;
	w->idx = idx;
	w->lcore = lcore;
	w->ctr = &dp->ctr[idx];
	w->buffer = dp->buffer[idx];
	w->rng = 0x9e3779b97f4a7c15ull * (idx + 1u); /* any non-zero seed */
}

static inline void
handle_one(struct lsw_worker *w, const struct lsw_snapshot *conf, uint16_t port,
	   const struct lsw_port_dp *p, struct rte_mbuf *m, uint64_t now)
{
	const struct rte_ether_hdr *eth = rte_pktmbuf_mtod(m, const struct rte_ether_hdr *);
	struct lsw_pkt_info pi;
	enum lsw_drop d;

	/* A recycled mbuf may carry a switch-originated frame's flags: a drop snapshot must
	 * not take a received packet for one. */
	lsw_meta(m)->flags = 0;
	if (unlikely(m->nb_segs != 1)) {
		d = LSW_DROP_MULTI_SEGMENT;
		goto drop;
	}
	d = lsw_parse_rx((const uint8_t *)eth, m->data_len, m->ol_flags, &pi);
	if (unlikely(d != LSW_DROP_NONE))
		goto drop;
	if (unlikely(eth->src_addr.addr_bytes[0] & 1)) {
		d = LSW_DROP_SMAC_MULTICAST;
		goto drop;
	}
	if (unlikely(!(pi.flags & LSW_PF_DMAC_MC) && !rte_is_same_ether_addr(&eth->dst_addr,
									     &p->mac))) {
		d = LSW_DROP_DMAC_MISMATCH;
		goto drop;
	}
	if (unlikely((pi.flags & LSW_PF_VLAN) && (pi.vlan_tci & RTE_VLAN_ID_MASK))) {
		d = LSW_DROP_VLAN_TAG_NOT_ALLOWED;
		goto drop;
	}
	switch (pi.ethertype) {
	case LSW_ETHERTYPE_IPV4:
		lsw_ipv4_input(w, conf, port, m, &pi, now);
		return;
	case LSW_ETHERTYPE_ARP:
		lsw_arp_input(w, conf, port, m, &pi);
		return;
	case LSW_ETHERTYPE_IPV6:
		lsw_ipv6_input(w, conf, port, m, &pi, now);
		return;
	case LSW_ETHERTYPE_MACCTL: /* PFC and PAUSE, consumed */
		lsw_pfc_input(w, conf, port, m, &pi, now);
		return;
	default: /* lsw_parse lets no other EtherType through */
		d = LSW_DROP_UNKNOWN_ETHERTYPE;
		break;
	}
drop:
	lsw_count_drop(w, port, d, m);
}

/* Not inlined into the worker loop (LTO did): the per-packet loop then allocates its
 * registers without the loop's state, and spills less. A/B, medians of 7 and 9, 64 B:
 * direct +3.3% and +2.4%, full +0.4% and -0.5%. One call per burst. */
__rte_noinline void
lsw_process_burst(struct lsw_worker *w, const struct lsw_snapshot *conf, uint16_t port,
		  struct rte_mbuf **pkts, uint16_t n, uint64_t now)
{
	const struct lsw_port_dp *p = &conf->port[port];
	struct lsw_port_counters *pc = &w->ctr->port[port];
	uint64_t bytes = 0, mc = 0;
	uint16_t i;

	/* Live capture sees the frames as they came from rx_burst, before anything here
	 * looks at them or rewrites them. */
	if (unlikely(conf->capture.rx_ports >> port & 1))
		lsw_capture_rx(w, conf, port, pkts, n, now);
	/* The headers, and the mbuf's second cache line where the metadata field lives. */
	for (i = 0; i < PREFETCH_OFFSET && i < n; i++) {
		rte_prefetch0(rte_pktmbuf_mtod(pkts[i], void *));
		rte_prefetch0(&pkts[i]->cacheline1);
	}
	for (i = 0; i < n; i++) {
		struct rte_mbuf *m = pkts[i];
		if (i + PREFETCH_OFFSET < n) {
			rte_prefetch0(rte_pktmbuf_mtod(pkts[i + PREFETCH_OFFSET], void *));
			rte_prefetch0(&pkts[i + PREFETCH_OFFSET]->cacheline1);
		}
		bytes += m->pkt_len;
		mc += *rte_pktmbuf_mtod(m, uint8_t *) & 1;
		if (unlikely(!p->admin_up)) {
			lsw_count_drop(w, port, LSW_DROP_IRIF_DISABLED, m);
			continue;
		}
		if (likely(lsw_ipv4_fast(w, conf, port, p, m, now)))
			continue;
		handle_one(w, conf, port, p, m, now);
	}
	pc->ctr[LSW_PC_IF_IN_OCTETS] += bytes;
	pc->ctr[LSW_PC_IF_IN_NON_UCAST_PKTS] += mc;
	pc->ctr[LSW_PC_IF_IN_UCAST_PKTS] += n - mc;
	lsw_admit_flush(w, conf);
}

/* Shutdown: hand over what is staged, drop what is queued or waits for ARP. */
void
lsw_worker_drop_all(struct lsw_worker *w, const struct lsw_snapshot *conf)
{
	lsw_admit_flush(w, conf);
	lsw_tx_flush_all(w, conf);
	lsw_handoff_flush_all(w, conf);
	for (uint16_t p = 0; p < LSW_MAX_PORTS; p++) { /* what the rings had no room for */
		for (uint16_t i = 0; i < w->hob[p].n; i++)
			lsw_handoff_drop(w, conf, p, &w->hob[p].e[i], LSW_DROP_SHUTDOWN);
		w->hob[p].n = 0;
	}
	w->ho_full = w->ho_staged = 0;
	for (unsigned int i = 0; i < conf->n_owned[w->idx]; i++)
		lsw_egress_drop_all(w, conf, conf->owned[w->idx][i], LSW_DROP_SHUTDOWN);
	lsw_nexthop_drop_held(w);
}

bool
lsw_worker_rx_gate(struct lsw_worker *w, const struct lsw_snapshot *conf)
{
	bool rx;

	if (likely((w->ho_full | w->rx_hold) == 0))
		return true;
	rx = lsw_handoff_flush_all(w, conf) == 0 && !w->rx_hold;
	w->rx_hold = 0;
	w->ctr->event[LSW_EV_RX_HELD] += !rx;
	return rx;
}

/* The control plane asks for watermarks to be cleared by bumping a generation. */
static inline void
check_wm_clear(struct lsw_worker *w)
{
	uint64_t gen = lsw_acquire(&w->dp->wm_clear_gen);

	if (unlikely(gen != w->buffer->wm_gen)) {
		memset(w->buffer->wm.pg, 0, sizeof(w->buffer->wm.pg));
		memset(w->buffer->wm.q, 0, sizeof(w->buffer->wm.q));
		memset(w->buffer->wm.pool, 0, sizeof(w->buffer->wm.pool));
		w->buffer->wm_gen = gen;
	}
}

uint32_t
lsw_worker_egress(struct lsw_worker *w, const struct lsw_snapshot *conf, uint64_t now)
{
	uint32_t work = lsw_tx_drain_handoff(w, conf);

	if (unlikely(w->n_held))
		lsw_nexthop_poll(w, conf, now);
	for (unsigned int i = 0; i < conf->n_owned[w->idx]; i++) {
		uint16_t port = conf->owned[w->idx][i];
		/* ABM's n_p and drain rates come from each port's owner, before its PGs'
		 * pause decisions use them. */
		if (unlikely(conf->buffer.abm_pools))
			lsw_buffer_abm_update(w->dp->buffer, conf->n_workers, w->buffer,
					      &conf->buffer, port, conf->sched[port].rate_bps, now,
					      w->dp->tsc_hz);
		lsw_pfc_poll(w, conf, port, now);
		lsw_ecmp_poll(w, conf, port, now);
		int r;
		for (r = 0; r < LSW_TX_ROUNDS; r++) {
			uint32_t n = lsw_egress_run(w, conf, port, now);
			work += n;
			if (n < LSW_BURST)
				break;
		}
		/* Every round a full burst: the port had more to send than a loop sends. */
		w->dp->sched[port]->behind = r == LSW_TX_ROUNDS;
	}
	lsw_tx_flush_all(w, conf);
	lsw_handoff_flush_all(w, conf); /* switch-originated frames, released ones */
	return work;
}

/* A wait shorter than a sleep's lateness: a yield, or the shortest sleep when yields have
 * been dear (lsw_wait_yields). With a CPU-bound process beside a 4:1 PFC incast at 1 Gb/s
 * (host_incast), yields let the receiver's port send 2 to 4 frames in 0.5 ms where its link
 * carries 15: RoCE goodput fell to 0.03-0.90 of the link and the paused senders' ACKs timed
 * out (up to 999 times in a run). Short sleeps kept it at 0.90-0.93, without a timeout.
 * Behind the hog, a worker's dear yields came among a million cheap ones (the kernel moves
 * the hog between CPUs), 25 to 96 in a run; with 4 workers on 2 CPUs, a few single ones a
 * run, and sleeping 100 ms after each of those made ECMP's quality modes uneven. */
static void
short_wait(struct lsw_worker *w, uint64_t now)
{
	static const struct timespec shortest = {.tv_sec = 0, .tv_nsec = 1000};
	const uint64_t ms = w->dp->tsc_hz / 1000;

	/* Workers that share a CPU by configuration take turns by yielding, and a sibling at
	 * work makes a yield dear: sleeping then made the queue's owner refill it later
	 * (buffer_shaping with 4 workers on 2 CPUs failed 2 runs of 15). */
	if (w->shares_cpu || lsw_wait_yields(w->sleep_until, now)) {
		uint64_t t0 = rte_rdtsc();
		sched_yield();
		uint64_t t1 = rte_rdtsc();
		lsw_yield_note(&w->dear_at, &w->sleep_until, t1 - t0, t1,
			       ms * YIELD_DEAR_US / 1000, ms * YIELD_WINDOW_MS, ms * YIELD_HOLD_MS);
		return;
	}
	nanosleep(&shortest, NULL);
}

/*
 * Sleep when idle, but not past the moment a shaped port may send its next frame. The OS
 * wakes a sleeping thread late (tens of microseconds on a VM, however small the timer
 * slack), and the shaper's bucket is kept small (control/config/inflight.c): so a worker with a
 * frame due sleeps its measured lateness less, and when the frame is due sooner than that
 * it only waits shortly (short_wait).
 */
static void
idle_sleep(struct lsw_worker *w, const struct lsw_snapshot *conf, uint64_t now)
{
	const uint64_t hz = w->dp->tsc_hz;
	uint64_t ticks = (uint64_t)conf->idle_sleep_us * hz / 1000000;
	uint8_t tx_xoff = 0;
	bool due = false;

	for (unsigned int i = 0; i < conf->n_owned[w->idx]; i++) {
		uint16_t port = conf->owned[w->idx][i];
		uint64_t t = lsw_egress_wait(w, conf, port, now);
		if (t != UINT64_MAX) {
			due = true;
			ticks = RTE_MIN(ticks, t);
		}
		/* Pausing a peer: the XOFF refresh must not wait for a wake-up that may come
		 * milliseconds late (the tail of usleep on a busy machine), or the peer's timer
		 * runs out and it sends into full headroom. Only a short wait. */
		tx_xoff |= w->dp->sched[port]->pfc.tx_xoff_pg;
	}
	/* A timeline's next sample is due like a frame: the worker wakes for it. */
	if (unlikely(conf->timeline.what != 0)) {
		due = true;
		ticks = RTE_MIN(ticks, (int64_t)(w->tl.next - now) > 0 ? w->tl.next - now : 0);
	}
	if (tx_xoff) {
		short_wait(w, now);
		return;
	}
	if (due) {
		if (ticks <= w->sleep_late) {
			short_wait(w, now);
			return;
		}
		ticks -= w->sleep_late;
	}
	uint64_t us = ticks * 1000000 / hz;
	if (us == 0)
		return;
	/* Offline while asleep so that a writer's grace period does not wait. */
	rte_rcu_qsbr_thread_offline(w->dp->qsv, w->idx);
	uint64_t t0 = rte_rdtsc();
	usleep((useconds_t)us);
	uint64_t slept = rte_rdtsc() - t0;
	rte_rcu_qsbr_thread_online(w->dp->qsv, w->idx);
	/* EWMA (1/8) of the lateness, bounded: one long preemption must not make the
	 * worker spin for good. */
	int64_t late = (int64_t)(slept - ticks);
	late = RTE_MAX(late, (int64_t)0);
	late = RTE_MIN(late, (int64_t)(hz / 1000));
	w->sleep_late = w->sleep_late - w->sleep_late / 8 + (uint64_t)late / 8;
}

/*
 * Read our ports' rx queues, a burst each. A loop is cut short when the handoff or the buffer
 * is full (the rx gate then skips the next loop's reads): the next reading loop starts at the
 * port after the last one read, so that every port is read in turn however often that
 * happens, and no port's PFC frames (a storm's included) go unread. (Starting each loop one
 * port on was not enough: with every other loop skipped, a loop that always stopped at the
 * same port left the one after it unread for good.) Returns packets read; @now is the
 * time of the last burst.
 */
static uint32_t
rx_ports(struct lsw_worker *w, const struct lsw_snapshot *conf, uint64_t *now)
{
	struct rte_mbuf *pkts[LSW_BURST];
	const unsigned int n_own = conf->n_owned[w->idx];
	unsigned int i = w->rx_first < n_own ? w->rx_first : 0;
	uint32_t work = 0;

	/* Read whole, the next loop starts one port on (who reads first gets the buffer). */
	w->rx_first = i + 1 < n_own ? i + 1 : 0;
	/* What the rings hold arrived since the last read: the egress's catch-up. */
	w->rx_read_prev = w->rx_read;
	w->rx_read = *now;
	for (unsigned int k = 0; k < n_own; k++) {
		uint16_t port = conf->owned[w->idx][i];
		i = i + 1 < n_own ? i + 1 : 0;
		if (unlikely(conf->port[port].suspended))
			continue;
		uint16_t n = rte_eth_rx_burst(conf->port[port].port_id, 0, pkts, LSW_BURST);
		if (n == 0)
			continue;
		work += n;
		/* The clock once per burst: a thread preempted mid-loop would otherwise date a
		 * PFC frame milliseconds early, and end its pause that early. */
		*now = rte_rdtsc();
		lsw_process_burst(w, conf, port, pkts, n, *now);
		/* A stage holds at most the burst before and this one. */
		if (unlikely(w->ho_full | w->rx_hold)) {
			w->rx_first = (uint16_t)i;
			break;
		}
	}
	return work;
}

int
lsw_worker_main(void *arg)
{
	struct lsw_worker *w = arg;
	struct lsw_dp *dp = w->dp;
	const struct lsw_snapshot *conf = NULL;

	/* usleep() wakes up to the timer slack late: 50 us by default, 1 us asked. */
	prctl(PR_SET_TIMERSLACK, 1000UL, 0, 0, 0);
	/* A worker that waits behind other processes for its CPU misses its PFC refreshes:
	 * it gets ten times their share (it sleeps when idle, so it takes only what it uses). */
	lsw_raise_priority((id_t)syscall(SYS_gettid));
	w->sleep_late = dp->tsc_hz / 20000; /* 50 us until measured */
	rte_rcu_qsbr_thread_register(dp->qsv, w->idx);
	rte_rcu_qsbr_thread_online(dp->qsv, w->idx);
	while (!lsw_acquire(&dp->quit)) {
		/* One snapshot per iteration; it stays valid until the quiescent report below. */
		const struct lsw_snapshot *prev = conf;
		conf = lsw_acquire(&dp->conf);
		uint64_t now = rte_rdtsc();
		uint32_t work = 0;

		/* A new snapshot may bring new IPv6 addresses: announce them (unsolicited NA). */
		if (unlikely(conf != prev))
			lsw_ndp_announce(w, conf);

		/* The pool-wide sums admission reads, once a loop (include/lsw/buffer.h). */
		if (conf->n_workers > 1)
			lsw_buffer_seen_take(dp->buffer, conf->n_workers, w->buffer,
					     conf->buffer.n_pools);
		if (lsw_worker_rx_gate(w, conf))
			work += rx_ports(w, conf, &now);
		if (work) {
			lsw_handoff_flush_all(w, conf); /* to the owners before our egress */
			now = rte_rdtsc();
		}
		work += lsw_worker_egress(w, conf, now);
		lsw_timeline_poll(w, conf, now);
		check_wm_clear(w);
		w->ctr->loops++;
		if (work)
			w->ctr->busy_loops++;
		rte_rcu_qsbr_quiescent(dp->qsv, w->idx);
		if (work == 0 && conf->idle_sleep_us)
			idle_sleep(w, conf, now);
	}
	conf = lsw_acquire(&dp->conf);
	lsw_worker_drop_all(w, conf);
	rte_rcu_qsbr_thread_offline(dp->qsv, w->idx);
	rte_rcu_qsbr_thread_unregister(dp->qsv, w->idx);
	return 0;
}
