/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lsw: start-up, the control-plane loop on the main lcore, and a clean shutdown.
 * Start-up order: config (refused whole on any error), EAL, mempool, RCU, FIB, ports,
 * rings, the first snapshot, the RPC socket, then the workers.
 */
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_ethdev.h>
#include <rte_launch.h>
#include <rte_lcore.h>
#include <rte_malloc.h>
#include <rte_mbuf.h>
#include "lsw/log.h"
#include "capture.h"
#include "eal.h"
#include "fibctl.h"
#include "fib6ctl.h"
#include "rpc.h"
#include "rpc_server.h"
#include "switch.h"

#define NEIGH_RING_SIZE   1024
#define POLL_MS           5 /* how often the control loop looks at the neighbor ring */

static volatile sig_atomic_t stop_requested;

static void
on_signal(int sig)
{
	(void)sig;
	stop_requested = 1;
}

static void
usage(FILE *f)
{
	fprintf(f,
		"usage: lsw -c CONFIG [--rpc-socket PATH] [--log-level LEVEL] [--timeline JSON]\n"
		"           [--check]\n"
		"\n"
		"  -c, --config PATH      configuration file (JSON, SONiC CONFIG_DB shape)\n"
		"  -s, --rpc-socket PATH  JSON-RPC Unix socket (default: LSW.global.rpc_socket,\n"
		"                         /run/lsw.sock)\n"
		"  -l, --log-level LEVEL  emerg|alert|crit|error|warning|notice|info|debug\n"
		"  -t, --timeline JSON    start the timeline recorder before the first packet, "
			"with\n"
		"                         timeline.start's params, e.g. "
			"'{\"file\": \"/tmp/t.tl\"}'\n"
		"      --check            validate the configuration and exit\n"
		"  -h, --help             this text\n"
		"  -V, --version          print the version\n"
		"\n"
		"EAL arguments are built from the configuration; see lsw(8).\n");
}

static void
print_errs(const char *what, const struct lsw_errs *errs)
{
	fprintf(stderr, "lsw: %s refused (%u error%s):\n", what, errs->n, errs->n == 1 ? "" : "s");
	for (unsigned int i = 0; i < errs->n && i < LSW_ERRS_MAX; i++)
		fprintf(stderr, "  %s: %s\n", errs->e[i].path, errs->e[i].msg);
	if (errs->n > LSW_ERRS_MAX)
		fprintf(stderr, "  ... and %u more\n", errs->n - LSW_ERRS_MAX);
}

static int
create_rings(struct lsw_switch *sw)
{
	const struct lsw_config *c = sw->cfg;
	struct lsw_dp *dp = &sw->dp;
	char name[RTE_RING_NAMESIZE];

	dp->neigh_ring = rte_ring_create_elem("lsw_neigh", sizeof(struct lsw_neigh_msg),
					      NEIGH_RING_SIZE, SOCKET_ID_ANY, RING_F_SC_DEQ);
	if (dp->neigh_ring == NULL)
		return -1;
	if (c->g.n_workers < 2)
		return 0;
	dp->ho_bell = rte_zmalloc("lsw_ho_bell", sizeof(*dp->ho_bell) * LSW_MAX_WORKERS,
				  RTE_CACHE_LINE_SIZE);
	if (dp->ho_bell == NULL)
		return -1;
	for (uint16_t w = 0; w < c->g.n_workers; w++)
		for (uint16_t p = 0; p < c->n_ports; p++) {
			if ((unsigned int)c->port[p].lcore == c->g.workers[w])
				continue;
			snprintf(name, sizeof(name), "lsw_ho_%u_%u", w, p);
			/* Small: a full ring stops its sender's rx, so a packet the MMU admitted
			 * waits in the sender's stage rather than being dropped (tx.c). */
			dp->handoff[w][p] = rte_ring_create_elem(name, sizeof(struct lsw_hoent),
								 LSW_HANDOFF_RING, SOCKET_ID_ANY,
								 RING_F_SP_ENQ | RING_F_SC_DEQ |
								 RING_F_EXACT_SZ);
			if (dp->handoff[w][p] == NULL)
				return -1;
		}
	return 0;
}

/* --timeline: timeline.start before the workers run, so that it sees the first packet. */
static int
start_timeline(struct lsw_switch *sw)
{
	struct lsw_rpc_error e = {0};
	json_t *r = lsw_rpc_call(sw, lsw_rpc_method_find("timeline.start"), sw->timeline_params,
				 &e);

	json_decref(sw->timeline_params);
	sw->timeline_params = NULL;
	if (r != NULL) {
		json_decref(r);
		return 0;
	}
	if (e.errs.n != 0)
		print_errs("--timeline", &e.errs);
	else
		fprintf(stderr, "lsw: --timeline: %s\n", e.message);
	return -1;
}

static int
setup(struct lsw_switch *sw)
{
	const struct lsw_config *c = sw->cfg;
	struct lsw_dp *dp = &sw->dp;
	char err[256];

	dp->n_workers = c->g.n_workers;
	/* The measured rate, not DPDK's rounded estimate (time.c): shaper rates and pause
	 * times are as configured, not 0.4% off. */
	lsw_clock_calibrate(&sw->clock);
	dp->tsc_hz = sw->clock.hz;
	lsw_clock_anchor(&sw->clock, dp->tsc_hz);
	LSW_LOG(INFO, "TSC at %" PRIu64 " Hz (DPDK's estimate: %" PRIu64 ")", dp->tsc_hz,
		rte_get_tsc_hz());
	if (lsw_meta_register() != 0) {
		LSW_LOG(ERR, "cannot register the mbuf metadata field");
		return -1;
	}
	for (uint16_t w = 0; w < dp->n_workers; w++) {
		dp->buffer[w] = rte_zmalloc("lsw_buffer", sizeof(*dp->buffer[w]),
					    RTE_CACHE_LINE_SIZE);
		if (dp->buffer[w] == NULL)
			return -1;
	}
	sw->buffer_base = rte_zmalloc("lsw_buffer_base", sizeof(*sw->buffer_base), 0);
	sw->view = rte_zmalloc("lsw_stats_view", sizeof(*sw->view), 0);
	dp->ecmp_sig = rte_zmalloc("lsw_ecmp_sig", sizeof(*dp->ecmp_sig) * LSW_MAX_PORTS,
				   RTE_CACHE_LINE_SIZE);
	if (sw->buffer_base == NULL || sw->view == NULL || dp->ecmp_sig == NULL)
		return -1;
	/* A queue can hold every mbuf, so the MMU, not the FIFO, decides what is dropped. */
	for (uint16_t p = 0; p < c->n_ports; p++) {
		dp->sched[p] = rte_zmalloc("lsw_sched", sizeof(*dp->sched[p]), RTE_CACHE_LINE_SIZE);
		if (dp->sched[p] == NULL ||
		    lsw_sched_init(dp->sched[p], c->g.mbufs + 1, (int)rte_socket_id()) != 0) {
			LSW_LOG(ERR, "out of memory for the egress queues");
			return -1;
		}
	}
	dp->pool = rte_pktmbuf_pool_create("lsw_pool", c->g.mbufs, 256, 0, lsw_mbuf_data_room(c),
					   (int)rte_socket_id());
	/* PFC frames have a pool of their own: a pause must go out when data has taken every
	 * mbuf (which is when it matters). A PMD ring holds at most a few of them. */
	dp->pfc_pool = rte_pktmbuf_pool_create("lsw_pfc_pool", RTE_MAX(512u, 64u * c->n_ports),
					       0, 0, RTE_PKTMBUF_HEADROOM + 64,
					       (int)rte_socket_id());
	dp->ctr = rte_zmalloc("lsw_ctr", sizeof(*dp->ctr) * dp->n_workers, RTE_CACHE_LINE_SIZE);
	size_t qsz = rte_rcu_qsbr_get_memsize(dp->n_workers);
	dp->qsv = rte_zmalloc("lsw_qsbr", qsz, RTE_CACHE_LINE_SIZE);
	sw->workers = rte_zmalloc("lsw_workers", sizeof(*sw->workers) * dp->n_workers,
				  RTE_CACHE_LINE_SIZE);
	if (dp->pool == NULL || dp->pfc_pool == NULL || dp->ctr == NULL || dp->qsv == NULL ||
	    sw->workers == NULL ||
	    rte_rcu_qsbr_init(dp->qsv, dp->n_workers) != 0) {
		LSW_LOG(ERR, "out of memory (mempool of %u mbufs, %u B data room): %s",
			c->g.mbufs, lsw_mbuf_data_room(c), rte_strerror(rte_errno));
		return -1;
	}
	sw->fibc = lsw_fibctl_create(dp->qsv, "lsw");
	if (sw->fibc == NULL) {
		LSW_LOG(ERR, "cannot create the FIB");
		return -1;
	}
	dp->fib = sw->fibc->fib;
	sw->fib6c = lsw_fib6ctl_create(dp->qsv, "lsw", 0);
	if (sw->fib6c == NULL)
		return -1;
	dp->fib6 = sw->fib6c->fib;
	if (lsw_ports_init(sw) != 0 || lsw_fibctl_load(sw->fibc, c) != 0 ||
	    lsw_fib6ctl_update(sw->fib6c, c, 0) != 0)
		return -1;
	if (create_rings(sw) != 0 || lsw_dropsnap_init(sw) != 0) {
		LSW_LOG(ERR, "cannot create rings: %s", rte_strerror(rte_errno));
		return -1;
	}
	if (lsw_snapshot_refresh(sw) != 0)
		return -1;
	struct lsw_rpc_limits lim = {
		.max_conns = c->g.rpc_max_conns, .max_request = c->g.rpc_max_request,
		.timeout_ms = c->g.rpc_timeout_ms, .idle_timeout_ms = c->g.rpc_idle_timeout_ms,
		.tcp_port = c->g.rpc_tcp_port, .tcp_addr = c->g.rpc_tcp_addr,
	};
	sw->rpc = lsw_rpc_server_create(sw, sw->rpc_path, &lim, err, sizeof(err));
	if (sw->rpc == NULL) {
		LSW_LOG(ERR, "JSON-RPC socket: %s", err);
		return -1;
	}
	lsw_rpc_server_set_lock(sw->rpc, &sw->ctl_lock);
	lsw_telemetry_init(sw); /* a failure is logged: the switch works without it */
	if (sw->timeline_params != NULL && start_timeline(sw) != 0)
		return -1;
	rte_cpuset_t cpus[LSW_MAX_WORKERS];
	for (uint16_t w = 0; w < dp->n_workers; w++)
		cpus[w] = rte_lcore_cpuset(c->g.workers[w]);
	for (uint16_t w = 0; w < dp->n_workers; w++) {
		lsw_worker_init(&sw->workers[w], dp, w, c->g.workers[w]);
		sw->workers[w].shares_cpu = lsw_cpus_shared(cpus, dp->n_workers, w);
		if (rte_eal_remote_launch(lsw_worker_main, &sw->workers[w], c->g.workers[w]) != 0) {
			LSW_LOG(ERR, "cannot launch worker on lcore %u", c->g.workers[w]);
			return -1;
		}
	}
	sw->workers_running = true;
	return 0;
}

/* Stop workers, return every mbuf to the pool, close ports, remove the socket. */
static char runtime_dir[PATH_MAX]; /* /var/run/dpdk/PREFIX, set once the EAL is up */

/* DPDK leaves one directory per file prefix behind; a switch per test run adds up. */
static void
remove_runtime_dir(void)
{
	if (runtime_dir[0] != '\0')
		rmdir(runtime_dir); /* only if empty: a second process may share it */
}

static int
teardown(struct lsw_switch *sw)
{
	struct lsw_dp *dp = &sw->dp;
	unsigned int leftover = 0;
	struct lsw_hoent e;
	int rc = 0;

	lsw_publish(&dp->quit, 1);
	if (sw->workers_running)
		rte_eal_mp_wait_lcore();
	lsw_timeline_free(sw); /* its last records written, its file closed */
	for (uint16_t w = 0; w < LSW_MAX_WORKERS; w++)
		for (uint16_t p = 0; p < LSW_MAX_PORTS; p++) {
			struct rte_ring *r = dp->handoff[w][p];
			while (r != NULL && rte_ring_dequeue_elem(r, &e, sizeof(e)) == 0) {
				rte_pktmbuf_free(lsw_hoent_mbuf(e.mq));
				leftover++;
			}
			rte_ring_free(r);
		}
	if (leftover)
		LSW_LOG(INFO, "dropped %u packets still in handoff rings", leftover);
	rte_free(dp->ho_bell);
	lsw_capture_free(sw); /* the workers' last copies written, every file closed */
	lsw_ports_close(sw);
	if (dp->pool != NULL) {
		unsigned int avail = rte_mempool_avail_count(dp->pool), size = dp->pool->size;
		if (dp->pfc_pool != NULL) { /* the PFC frames' too */
			avail += rte_mempool_avail_count(dp->pfc_pool);
			size += dp->pfc_pool->size;
		}
		if (avail == size) {
			LSW_LOG(INFO, "all %u mbufs are back in the pool", size);
		} else {
			LSW_LOG(ERR, "%u of %u mbufs did not come back to the pool", size - avail,
				size);
			rc = 1;
		}
	}
	lsw_rpc_server_destroy(sw->rpc);
	lsw_dropsnap_free(sw);
	rte_ring_free(dp->neigh_ring);
	lsw_ecmp_free(sw);
	lsw_fibctl_destroy(sw->fibc);
	lsw_fib6ctl_destroy(sw->fib6c);
	rte_free(dp->conf);
	rte_free(dp->ecmp_sig);
	for (uint16_t w = 0; w < LSW_MAX_WORKERS; w++)
		rte_free(dp->buffer[w]);
	for (uint16_t p = 0; p < LSW_MAX_PORTS; p++) {
		if (dp->sched[p] != NULL)
			lsw_sched_free(dp->sched[p]);
		rte_free(dp->sched[p]);
	}
	rte_free(dp->qsv);
	rte_free(sw->buffer_base);
	rte_free(sw->view);
	rte_free(dp->ctr);
	rte_free(sw->workers);
	rte_mempool_free(dp->pool);
	rte_mempool_free(dp->pfc_pool);
	return rc;
}

int
main(int argc, char **argv)
{
	static const struct option opts[] = {
		{"config", required_argument, NULL, 'c'},
		{"rpc-socket", required_argument, NULL, 's'},
		{"log-level", required_argument, NULL, 'l'},
		{"timeline", required_argument, NULL, 't'},
		{"check", no_argument, NULL, 'k'},
		{"help", no_argument, NULL, 'h'},
		{"version", no_argument, NULL, 'V'},
		{NULL, 0, NULL, 0},
	};
	static struct lsw_switch sw;
	const char *config = NULL, *sock = NULL, *level = NULL;
	bool check = false;
	struct lsw_errs errs;
	struct lsw_eal_args eal;
	int opt, rc;

	while ((opt = getopt_long(argc, argv, "c:s:l:t:hV", opts, NULL)) != -1) {
		switch (opt) {
		case 'c': config = optarg; break;
		case 's': sock = optarg; break;
		case 'l': level = optarg; break;
		case 't':
			sw.timeline_params = json_loads(optarg, 0, NULL);
			if (!json_is_object(sw.timeline_params)) {
				fprintf(stderr, "lsw: --timeline: not a JSON object: %s\n", optarg);
				return 2;
			}
			break;
		case 'k': check = true; break;
		case 'h': usage(stdout); return 0;
		case 'V': printf("lsw %s\n", LSW_VERSION); return 0;
		default: usage(stderr); return 2;
		}
	}
	if (config == NULL || optind != argc) {
		usage(stderr);
		return 2;
	}
	if (level != NULL) {
		json_t *patch = json_pack("{s:{s:{s:s}}}", "LSW", "global", "log_level", level);
		struct lsw_config *probe;
		/* Validate the level with the same rules as the config file's field. */
		probe = lsw_config_from_json(patch, &errs);
		json_decref(patch);
		if (probe == NULL && errs.n > 0 &&
		    strstr(errs.e[0].path, "log_level") != NULL) {
			print_errs("--log-level", &errs);
			return 2;
		}
		lsw_config_free(probe);
	}
	sw.cfg = lsw_config_load(config, &errs);
	if (sw.cfg == NULL) {
		print_errs(config, &errs);
		return 2;
	}
	if (check) {
		printf("%s: valid (%u ports, %u static routes, %u static neighbors; %u MB of EAL "
		       "memory)\n", config, sw.cfg->n_ports, sw.cfg->n_routes + sw.cfg->n_routes6,
		       sw.cfg->n_neighs + sw.cfg->n_neighs6,
		       sw.cfg->g.memory_mb ? sw.cfg->g.memory_mb :
		       lsw_eal_memory_mb(sw.cfg, false));
		lsw_config_free(sw.cfg);
		return 0;
	}
	if (level != NULL) {
		/* The running config says what is in force: config.get shows the command
		 * line's level, and config.set does not see it as a change. */
		json_t *patch = json_pack("{s:{s:{s:s}}}", "LSW", "global", "log_level", level);
		json_t *doc = lsw_config_merge(sw.cfg->doc, patch);
		json_decref(patch);
		json_decref(sw.cfg->doc);
		sw.cfg->doc = doc;
		snprintf(sw.cfg->g.log_level, sizeof(sw.cfg->g.log_level), "%s", level);
	}
	snprintf(sw.rpc_path, sizeof(sw.rpc_path), "%s", sock ? sock : sw.cfg->g.rpc_socket);
	if (realpath(config, sw.config_path) == NULL)
		snprintf(sw.config_path, sizeof(sw.config_path), "%s", config);
	/* Hugepages when there are enough of them free for what lsw asks; else none, rather
	 * than an EAL that cannot start. */
	uint64_t huge = lsw_hugepages_free();
	uint64_t need = (uint64_t)(sw.cfg->g.memory_mb ? sw.cfg->g.memory_mb :
				   lsw_eal_memory_mb(sw.cfg, true)) << 20;
	sw.hugepages = huge >= need;
	if (huge != 0 && !sw.hugepages)
		fprintf(stderr, "lsw: %" PRIu64 " MB of hugepages free, %" PRIu64 " MB needed: "
			"running without hugepages\n", huge >> 20, need >> 20);
	sw.start_ns = lsw_now_ns();
	pthread_mutex_init(&sw.ctl_lock, NULL);

	lsw_eal_args_build(sw.cfg, sw.hugepages, getpid(), &eal);
	char **eal_argv = calloc((size_t)eal.argc + 1, sizeof(char *));
	memcpy(eal_argv, eal.argv, (size_t)eal.argc * sizeof(char *));
	/* Registered before the EAL's own exit handler (telemetry unlinks its socket there),
	 * so it runs after it, when the runtime directory is empty. */
	atexit(remove_runtime_dir);
	if (rte_eal_init(eal.argc, eal_argv) < 0) {
		fprintf(stderr, "lsw: EAL initialisation failed: %s\n", rte_strerror(rte_errno));
		return 1;
	}
	free(eal_argv);
	lsw_eal_args_free(&eal);
	snprintf(runtime_dir, sizeof(runtime_dir), "%s", rte_eal_get_runtime_dir());
	lsw_log_set_level(sw.cfg->g.log_level); /* lsw's own log type too, not just EAL's */
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	signal(SIGPIPE, SIG_IGN);

	rc = setup(&sw);
	if (rc == 0) {
		LSW_LOG(INFO, "running: %u ports, %u workers, JSON-RPC on %s", sw.cfg->n_ports,
			sw.dp.n_workers, sw.rpc_path);
		uint64_t anchored = lsw_now_ns();
		while (!stop_requested) {
			uint64_t now_ns = lsw_now_ns();
			/* A running timeline is drained every millisecond: its rings then need
			 * to hold a millisecond of records, not POLL_MS. */
			lsw_rpc_server_poll(sw.rpc, sw.tl.running ? 1 : POLL_MS, now_ns);
			pthread_mutex_lock(&sw.ctl_lock);
			if (now_ns - anchored >= 1000000000u) {
				lsw_clock_anchor(&sw.clock, sw.dp.tsc_hz);
				anchored = now_ns;
			}
			lsw_neigh_process(&sw);
			lsw_ports_poll_link(&sw, now_ns);
			lsw_pfcwd_poll(&sw, rte_rdtsc());
			lsw_dropsnap_poll(&sw);
			lsw_timeline_drain(&sw);
			lsw_capture_poll(&sw, now_ns);
			pthread_mutex_unlock(&sw.ctl_lock);
		}
		LSW_LOG(INFO, "stopping");
	}
	lsw_telemetry_stop(&sw); /* before anything it reads goes, even after a failed setup */
	if (teardown(&sw) != 0 && rc == 0)
		rc = 1;
	lsw_config_free(sw.cfg);
	rte_eal_cleanup();
	return rc == 0 ? 0 : 1;
}
