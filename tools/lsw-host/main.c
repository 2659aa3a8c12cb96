/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lsw-host: emulated RoCEv2 hosts on DPDK ports, for lsw's labs (README, "lsw-host").
 *
 *   lsw-host [--hosts h1,h2] [--results FILE] [--check] [--quiet] CONFIG
 *
 * One lcore runs every host: it receives, lets the engine (host.c) decide, sends, and
 * sleeps when nothing is due, so that the switch and its hosts share a small machine.
 */
#include <getopt.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_ethdev.h>
#include <rte_mbuf.h>
#include <rte_net_crc.h>
#include "lsw/common.h"
#include "jsonv.h"
#include "host_config.h"
#include "results.h"

#define BURST 32
#define TX_HOLD 64

static volatile sig_atomic_t stop_signal;

static void
on_signal(int sig)
{
	stop_signal = sig;
}

/* Frames waiting for the PMD: a host's transmit side. */
struct txq {
	struct rte_mbuf *m[TX_HOLD];
	uint16_t n;
};

struct io_ctx {
	struct rte_mempool *pool;
	struct txq txq[LSW_HOST_MAX];
};

static uint8_t *
tx_frame(void *ctx, struct lsw_host *h, uint16_t len)
{
	struct io_ctx *io = ctx;
	struct txq *q = &io->txq[h->idx];
	struct rte_mbuf *m;

	if (q->n == TX_HOLD || (m = rte_pktmbuf_alloc(io->pool)) == NULL)
		return NULL;
	if (rte_pktmbuf_append(m, len) == NULL) {
		rte_pktmbuf_free(m);
		return NULL;
	}
	q->m[q->n++] = m;
	return rte_pktmbuf_mtod(m, uint8_t *);
}

/* New frames only once the PMD has taken the last ones: what a pause cannot stop any more
 * is the PMD's ring and nothing besides (a NIC has not even that). */
static uint32_t
tx_room(void *ctx, struct lsw_host *h)
{
	struct io_ctx *io = ctx;

	return io->txq[h->idx].n ? 0 : BURST;
}

static void
tx_flush(struct io_ctx *io, struct lsw_host *h)
{
	struct txq *q = &io->txq[h->idx];
	uint16_t sent;

	if (q->n == 0)
		return;
	sent = rte_eth_tx_burst(h->port_id, 0, q->m, q->n);
	if (sent < q->n)
		memmove(q->m, q->m + sent, (q->n - sent) * sizeof(q->m[0]));
	q->n = (uint16_t)(q->n - sent);
}

/* ---- EAL and ports ----------------------------------------------------------------- */

static bool
is_pci(const char *devargs)
{
	return strncmp(devargs, "net_", 4) != 0 && strncmp(devargs, "eth_", 4) != 0;
}

/* A net_memif buffer that holds the largest frame: chained over 2 KB buffers, some frames
 * arrived split (control/config/inflight.c). lsw chooses the same way. */
static unsigned int
memif_bsize(const struct lsw_host_conf *c)
{
	unsigned int frame = lsw_roce_frame_len(true, LSW_OP_WRITE_FIRST, c->mtu), b = 2048;

	while (b < frame)
		b *= 2;
	return b;
}

/* Ring slots (log2): what arrives while the host sleeps (idle_sleep_us and the sleep's
 * lateness, 150 us here) at the link's speed, and no more: what a host has handed its ring
 * still reaches a switch that pauses it, which the switch's headroom must hold. The client's
 * sizes are the ones both ends use: give rsize to both ends to have lsw count the same. */
static unsigned int
memif_rsize(const struct lsw_host_conf *c)
{
	uint64_t frames = c->speed_bps / 8 * 150 / 1000000 /
			  lsw_roce_frame_len(false, 0, c->mtu) + 1;
	unsigned int log2 = 1;

	while (log2 < 10 && (1ull << log2) < frames)
		log2++;
	return log2;
}

static int
eal_init(const struct lsw_hosts *e, const struct lsw_host_run *run, const char *prog)
{
	char *argv[16 + 2 * LSW_HOST_MAX];
	char buf[40 + 2 * LSW_HOST_MAX][LSW_HOST_MAX_PATH + 16];
	int argc = 0, b = 0;
	bool pci = false;

#define ARG(...) (snprintf(buf[b], sizeof(buf[b]), __VA_ARGS__), argv[argc++] = buf[b++])
	ARG("%s", prog);
	ARG("-l");
	ARG("%u", run->cpu);
	ARG("--file-prefix");
	ARG("lsw-host-%d", (int)getpid());
	ARG("--no-huge");
	ARG("--no-shconf");
	ARG("-m");
	ARG("%u", 128 + run->mbufs * 5 / 1024);
	for (uint16_t i = 0; i < e->n_hosts; i++) {
		const struct lsw_host_conf *c = &e->host[i].c;
		if (!e->host[i].local)
			continue;
		if (is_pci(c->port)) {
			ARG("-a");
			ARG("%s", c->port);
			pci = true;
		} else if (strncmp(c->port, "net_memif", 9) == 0) {
			char extra[64] = "";
			if (!strstr(c->port, "rsize="))
				snprintf(extra, sizeof(extra), ",rsize=%u", memif_rsize(c));
			if (!strstr(c->port, "bsize="))
				snprintf(extra + strlen(extra), sizeof(extra) - strlen(extra),
					 ",bsize=%u", memif_bsize(c));
			ARG("--vdev");
			ARG("%s%s", c->port, extra);
		} else {
			ARG("--vdev");
			ARG("%s", c->port);
		}
	}
	if (!pci)
		ARG("--no-pci");
	ARG("--no-telemetry"); /* nothing to serve, and no socket left in the runtime dir */
	ARG("--log-level");
	ARG("notice");
#undef ARG
	argv[argc] = NULL;
	return rte_eal_init(argc, argv);
}

static int
port_start(struct lsw_host *h, struct rte_mempool *pool)
{
	char name[RTE_ETH_NAME_MAX_LEN];
	size_t n = strcspn(h->c.port, ",");
	struct rte_eth_conf conf = {0};
	uint16_t rxd = 512, txd = 512;
	int rc;

	snprintf(name, sizeof(name), "%.*s", (int)n, h->c.port);
	if (rte_eth_dev_get_port_by_name(name, &h->port_id) != 0) {
		fprintf(stderr, "lsw-host: %s: no DPDK port for '%s'\n", h->c.name, h->c.port);
		return -1;
	}
	rc = rte_eth_dev_configure(h->port_id, 1, 1, &conf);
	if (rc == 0)
		rc = rte_eth_dev_adjust_nb_rx_tx_desc(h->port_id, &rxd, &txd);
	if (rc == 0)
		rc = rte_eth_rx_queue_setup(h->port_id, 0, rxd, rte_eth_dev_socket_id(h->port_id),
					    NULL, pool);
	if (rc == 0)
		rc = rte_eth_tx_queue_setup(h->port_id, 0, txd, rte_eth_dev_socket_id(h->port_id),
					    NULL);
	if (rc == 0)
		rc = rte_eth_dev_start(h->port_id);
	if (rc != 0) {
		fprintf(stderr, "lsw-host: %s: port %s: %s\n", h->c.name, h->c.port,
			rte_strerror(-rc));
		return -1;
	}
	/* Frames to the host's own MAC, not the port's: take them all. */
	rte_eth_promiscuous_enable(h->port_id);
	return 0;
}

/* ---- the loop ---------------------------------------------------------------------- */

static uint64_t tsc_hz, tsc0;

static uint64_t
now_ns(void)
{
	return (uint64_t)((double)(rte_rdtsc() - tsc0) * 1e9 / (double)tsc_hz);
}

/* Nothing arrived and the next frame is due in @ns. A sleep ends tens of microseconds late
 * on a VM, however small the timer slack: a host with a frame due sooner than that lateness
 * polls on (a yield would hand the CPU to whoever shares it for a time slice, milliseconds),
 * else it sleeps the lateness less, so that it keeps its link's rate. */
static uint64_t sleep_late = 50000; /* ns, an EWMA of what sleeps overshoot */
static uint64_t n_sleeps, n_spins, slept_ns;

static void
idle_wait(const struct lsw_host_run *run, uint64_t ns)
{
	if (run->idle_sleep_ns == 0)
		return;
	ns = RTE_MIN(ns, run->idle_sleep_ns);
	if (ns <= sleep_late) {
		n_spins++;
		return;
	}
	uint64_t t0 = now_ns();
	struct timespec ts = {.tv_sec = 0, .tv_nsec = (long)(ns - sleep_late)};
	nanosleep(&ts, NULL);
	n_sleeps++;
	slept_ns += now_ns() - t0;
	int64_t late = (int64_t)(now_ns() - t0) - (int64_t)(ns - sleep_late);
	/* Bounded, so that one preemption does not stop the host sleeping for good. */
	if (late < 0)
		late = 0;
	if (late > 200000)
		late = 200000;
	sleep_late = sleep_late - sleep_late / 8 + (uint64_t)late / 8;
}

static void
progress(const struct lsw_hosts *e, uint64_t now, bool final)
{
	uint64_t tx = 0, rx = 0, pause = 0, retx = 0, cnp = 0;

	for (uint16_t i = 0; i < e->n_hosts; i++) {
		const struct lsw_host *h = &e->host[i];
		if (!h->local)
			continue;
		tx += h->ps.tx_bytes;
		rx += h->ps.rx_bytes;
		retx += h->ctr[LSW_HC_req_retransmitted_packets];
		cnp += h->ctr[LSW_HC_rp_cnp_handled];
		for (int p = 0; p < 8; p++)
			pause += h->ps.rx_pause[p];
	}
	fprintf(stderr, "\r%8.3f s  messages %llu/%llu  tx %llu MB  rx %llu MB  pauses %llu  "
		"CNPs %llu  retransmits %llu%s", (double)(now - e->start_ns) / 1e9,
		(unsigned long long)e->msgs_done, (unsigned long long)e->msgs_total,
		(unsigned long long)(tx >> 20), (unsigned long long)(rx >> 20),
		(unsigned long long)pause, (unsigned long long)cnp, (unsigned long long)retx,
		final ? "\n" : "   ");
}

/* The options, as lsw-host(8) documents them; --help prints them, a mistake the usage. */
static void
usage(int status)
{
	FILE *f = status ? stderr : stdout;

	fprintf(f, "usage: lsw-host [--hosts h1,h2] [--results FILE] [--check] [--quiet] "
		"CONFIG\n");
	if (status == 0)
		fprintf(f, "\nEmulated RoCEv2 NICs on DPDK ports (lsw-host(8), "
			"tools/lsw-host/README.md).\n\n"
			"  -H, --hosts LIST     run only these hosts of CONFIG (comma-separated)\n"
			"  -r, --results FILE   write the results there (default: the config's "
			"\"results\")\n"
			"  -k, --check          validate CONFIG and exit\n"
			"  -q, --quiet          no live line while running\n"
			"  -h, --help           this text\n");
	exit(status);
}

int
main(int argc, char **argv)
{
	static const struct option opts[] = {
		{"hosts", required_argument, NULL, 'H'}, {"results", required_argument, NULL, 'r'},
		{"check", no_argument, NULL, 'k'}, {"quiet", no_argument, NULL, 'q'},
		{"help", no_argument, NULL, 'h'}, {NULL, 0, NULL, 0}};
	static struct lsw_hosts e;
	static struct io_ctx io;
	struct lsw_host_run run;
	struct lsw_errs errs = {0};
	const char *only = NULL, *results = NULL;
	bool check = false, quiet = false;
	int c;

	while ((c = getopt_long(argc, argv, "H:r:kqh", opts, NULL)) != -1) {
		switch (c) {
		case 'H': only = optarg; break;
		case 'r': results = optarg; break;
		case 'k': check = true; break;
		case 'q': quiet = true; break;
		case 'h': usage(0); break;
		default: usage(2);
		}
	}
	if (optind != argc - 1)
		usage(2);

	/* The flow-size CDFs ship beside the configs; a config may name its own directory. */
	if (lsw_host_config_load(argv[optind], only, &e, &run, &errs) != 0) {
		for (unsigned int i = 0; i < errs.n && i < LSW_ERRS_MAX; i++)
			fprintf(stderr, "lsw-host: %s: %s\n", errs.e[i].path, errs.e[i].msg);
		if (errs.n > LSW_ERRS_MAX)
			fprintf(stderr, "lsw-host: and %u more errors\n", errs.n - LSW_ERRS_MAX);
		return 2;
	}
	if (results != NULL)
		snprintf(run.results, sizeof(run.results), "%s", results);
	if (check) {
		printf("lsw-host: %s: %u hosts, %u QPs, %llu messages\n", argv[optind],
		       e.n_hosts, e.n_qps, (unsigned long long)e.msgs_total);
		return 0;
	}

	if (eal_init(&e, &run, argv[0]) < 0) {
		fprintf(stderr, "lsw-host: EAL: %s\n", rte_strerror(rte_errno));
		return 1;
	}
	char runtime_dir[PATH_MAX];
	snprintf(runtime_dir, sizeof(runtime_dir), "%s", rte_eal_get_runtime_dir());
	rte_net_crc_set_alg(RTE_NET_CRC_SSE42);
	uint32_t room = 0;
	for (uint16_t i = 0; i < e.n_hosts; i++)
		room = RTE_MAX(room, lsw_roce_frame_len(true, LSW_OP_WRITE_FIRST, e.host[i].c.mtu));
	io.pool = rte_pktmbuf_pool_create("lsw_host", run.mbufs, 256, 0,
					  (uint16_t)(RTE_PKTMBUF_HEADROOM + RTE_MAX(room, 2048u)),
					  (int)rte_socket_id());
	int rc = io.pool ? 0 : 1;
	if (io.pool == NULL)
		fprintf(stderr, "lsw-host: mempool: %s\n", rte_strerror(rte_errno));
	for (uint16_t i = 0; rc == 0 && i < e.n_hosts; i++)
		if (e.host[i].local && port_start(&e.host[i], io.pool) != 0)
			rc = 1;
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	prctl(PR_SET_TIMERSLACK, 1000UL, 0, 0, 0);
	/* A host that waits behind other processes for its CPU answers pauses and sends ACKs
	 * late, as lsw's worker would (dataplane/worker.c): ten times their share. */
	lsw_raise_priority(0);
	tsc_hz = rte_get_tsc_hz();
	tsc0 = rte_rdtsc();

	/* Wait for every link (a memif peer to connect), then start the clock of the run. */
	for (bool up = false; rc == 0 && !up && !stop_signal;) {
		up = true;
		for (uint16_t i = 0; i < e.n_hosts; i++) {
			struct rte_eth_link link;
			if (e.host[i].local &&
			    (rte_eth_link_get_nowait(e.host[i].port_id, &link) != 0 ||
			     link.link_status != RTE_ETH_LINK_UP))
				up = false;
		}
		if (!up)
			usleep(10000);
	}

	struct lsw_host_run_state st = {0};
	bool show = !quiet && isatty(STDERR_FILENO);
	uint64_t now = now_ns(), done_at = 0, shown = 0, full_since = 0;
	e.io = (struct lsw_host_io){.ctx = &io, .tx_frame = tx_frame, .tx_room = tx_room};
	if (rc == 0)
		lsw_hosts_start(&e, now);
	while (rc == 0 && !stop_signal) {
		struct rte_mbuf *pkts[BURST];
		uint32_t got = 0;

		now = now_ns();
		e.now = now;
		for (uint16_t i = 0; i < e.n_hosts; i++) {
			struct lsw_host *h = &e.host[i];
			if (!h->local)
				continue;
			uint16_t n = rte_eth_rx_burst(h->port_id, 0, pkts, BURST);
			for (uint16_t k = 0; k < n; k++) {
				struct rte_mbuf *m = pkts[k];
				if (m->nb_segs > 1 && rte_pktmbuf_linearize(m) != 0)
					h->ps.rx_drop[LSW_DROP_MULTI_SEGMENT]++;
				else
					lsw_host_rx(&e, h, rte_pktmbuf_mtod(m, uint8_t *),
						    rte_pktmbuf_data_len(m));
				rte_pktmbuf_free(m);
			}
			got += n;
		}
		uint64_t next = lsw_hosts_poll(&e, now);
		uint32_t waiting = 0;
		for (uint16_t i = 0; i < e.n_hosts; i++)
			if (e.host[i].local) {
				tx_flush(&io, &e.host[i]);
				waiting += io.txq[i].n;
			}
		/* A ring that stays full: the switch takes no frames (lsw_hosts' stall). */
		if (waiting != 0 && full_since == 0)
			full_since = now;
		else if (waiting == 0 && full_since != 0) {
			if (now - full_since > LSW_HOST_STALL_NS)
				e.ring_full_ns += now - full_since;
			full_since = 0;
		}
		if (show && now - shown > 500000000ull) {
			progress(&e, now, false);
			shown = now;
		}
		if (done_at == 0 && lsw_hosts_done(&e))
			done_at = now;
		/* After the work, linger: the last ACKs, and pauses still owed, go out. */
		if (done_at && now - done_at >= run.linger_ns)
			break;
		if (run.duration_ns && e.ready &&
		    (int64_t)(now - e.start_ns) >= (int64_t)run.duration_ns)
			break;
		if (got == 0 && waiting == 0 && (int64_t)(next - now) > 0)
			idle_wait(&run, next - now);
	}
	st.end_ns = now_ns();
	/* The workload's time 0 on the wall clock, for tools that line the run up with the
	 * switch's own records. */
	struct timespec rt;
	clock_gettime(CLOCK_REALTIME, &rt);
	st.start_unix_ns = (uint64_t)rt.tv_sec * 1000000000ull + (uint64_t)rt.tv_nsec -
			   (st.end_ns - e.start_ns);
	if (getenv("LSW_HOST_DEBUG"))
		fprintf(stderr, "lsw-host: %llu sleeps (%.1f ms), %llu polls on, late %llu ns\n",
			(unsigned long long)n_sleeps, slept_ns / 1e6, (unsigned long long)n_spins,
			(unsigned long long)sleep_late);
	st.done = done_at != 0;
	st.interrupted = stop_signal != 0;
	struct rusage ru;
	if (getrusage(RUSAGE_SELF, &ru) == 0)
		st.peak_rss = (uint64_t)ru.ru_maxrss * 1024;
	if (show || (!quiet && rc == 0))
		progress(&e, st.end_ns, true);

	if (rc == 0 && run.results[0] != '\0') {
		json_t *doc = lsw_host_results(&e, &st);
		if (json_dump_file(doc, run.results, JSON_COMPACT) != 0) {
			fprintf(stderr, "lsw-host: cannot write %s\n", run.results);
			rc = 1;
		}
		json_decref(doc);
	}
	for (uint16_t i = 0; i < e.n_hosts; i++) {
		if (!e.host[i].local || !io.pool)
			continue;
		rte_pktmbuf_free_bulk(io.txq[i].m, io.txq[i].n);
		rte_eth_dev_stop(e.host[i].port_id);
		rte_eth_dev_close(e.host[i].port_id);
	}
	rte_mempool_free(io.pool);
	lsw_hosts_free(&e);
	rte_eal_cleanup();
	rmdir(runtime_dir); /* only if empty, as lsw does */
	return rc;
}
