/* SPDX-License-Identifier: BSD-3-Clause */
#include <dirent.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <rte_mbuf.h>
#include <rte_mempool.h>
#include "lsw/capture.h"
#include "lsw/dataplane.h"
#include "eal.h"
#include "switch.h"

uint64_t
lsw_hugepages_free(void)
{
	const char *dir = "/sys/kernel/mm/hugepages";
	DIR *d = opendir(dir);
	struct dirent *e;
	uint64_t total = 0;

	if (d == NULL)
		return 0;
	while ((e = readdir(d)) != NULL) {
		char path[512];
		long n = 0, kb = 0;
		if (sscanf(e->d_name, "hugepages-%ldkB", &kb) != 1)
			continue;
		snprintf(path, sizeof(path), "%s/%s/free_hugepages", dir, e->d_name);
		FILE *f = fopen(path, "r");
		if (f == NULL)
			continue;
		if (fscanf(f, "%ld", &n) == 1 && n > 0 && kb > 0)
			total += (uint64_t)n * (uint64_t)kb * 1024;
		fclose(f);
	}
	closedir(d);
	return total;
}

/* One mbuf holds the largest frame: of the port MTUs (plus Ethernet header, one VLAN tag
 * and the FCS some PMDs hand up) and of the AI packet sizes the buffer is tuned to. */
uint16_t
lsw_mbuf_data_room(const struct lsw_config *c)
{
	uint32_t frame = 0;

	for (unsigned int i = 0; i < c->n_ports; i++)
		frame = RTE_MAX(frame, (uint32_t)c->port[i].mtu + RTE_ETHER_HDR_LEN + 4 +
				RTE_ETHER_CRC_LEN);
	for (unsigned int i = 0; i < c->qos.buf.n_ai_sizes; i++)
		frame = RTE_MAX(frame, c->qos.buf.ai_sizes[i]);
	return (uint16_t)(RTE_PKTMBUF_HEADROOM + RTE_MAX(frame, 1518u));
}

/*
 * Bytes a mempool of @n objects of @elt bytes takes, as rte_mempool_create lays it out in
 * DPDK 22.11: a header with a cache for every lcore, a ring of the next power of two, and
 * the objects, each with a header line and padded by up to a line to spread them over the
 * memory channels. Objects do not cross a page: with 4 KiB pages (no hugepages) one larger
 * than a page takes whole pages (a 2176-B data room is 4 KiB an mbuf, a 9 KiB one 12 KiB).
 */
static uint64_t
mempool_bytes(uint64_t n, uint64_t elt, bool hugepages)
{
	const uint64_t pg = hugepages ? RTE_PGSIZE_2M : RTE_PGSIZE_4K;
	const uint64_t obj = RTE_ALIGN_CEIL(elt, RTE_CACHE_LINE_SIZE) + 2 * RTE_CACHE_LINE_SIZE;
	uint64_t objs;

	if (obj > pg)
		objs = RTE_ALIGN_CEIL(obj, pg) * n;
	else
		objs = (n / (pg / obj) + 1) * pg;
	return objs + rte_align64pow2(n + 1) * sizeof(void *) + sizeof(struct rte_mempool) +
	       (uint64_t)RTE_MAX_LCORE * sizeof(struct rte_mempool_cache) + 2 * pg;
}

static uint64_t
mbuf_pool_bytes(uint64_t n, uint64_t data_room, bool hugepages)
{
	return mempool_bytes(n, sizeof(struct rte_mbuf) + data_room, hugepages);
}

/* Bytes of an rte_ring of @count elements of @esize bytes (one more, to a power of two). */
static uint64_t
ring_bytes(uint64_t count, uint64_t esize)
{
	return rte_align64pow2(count + 1) * esize + 2 * RTE_CACHE_LINE_SIZE + 256;
}

uint64_t
lsw_eal_memory_bytes(const struct lsw_config *c, bool hugepages, bool later)
{
	const uint64_t w = c->g.n_workers, p = c->n_ports, mbufs = c->g.mbufs;
	uint64_t b = 0;

	/* The packet pool, and the PFC frames' (main.c). */
	b += mbuf_pool_bytes(mbufs, lsw_mbuf_data_room(c), hugepages);
	b += mbuf_pool_bytes(RTE_MAX(512u, 64u * p), RTE_PKTMBUF_HEADROOM + 64, hugepages);
	/* Each port's egress queues hold every mbuf (sched.c), and its PMD's rings. */
	b += p * (LSW_NUM_QUEUES * rte_align64pow2(mbufs + 1) + 256) * sizeof(struct lsw_qent);
	b += p * ((uint64_t)(c->g.rx_desc + c->g.tx_desc) * 64 + (1u << 20));
	/* Handoff rings, a (worker, port) each (main.c), and the workers' rings of drop
	 * snapshots. */
	if (w > 1)
		b += w * p * ring_bytes(LSW_HANDOFF_RING, sizeof(struct lsw_hoent));
	b += w * ring_bytes(LSW_DROPSNAP_RING, sizeof(struct lsw_dropsnap));
	/* The workers' state, counters and buffer shares; the stats views (two more buffer
	 * shares) and the switch snapshot; the drop-snapshot store (dropsnap.c). */
	b += w * (sizeof(struct lsw_worker) + sizeof(struct lsw_lcore_counters)) +
	     (w + 2) * sizeof(struct lsw_buffer_lcore) + sizeof(struct lsw_snapshot) +
	     (uint64_t)c->g.drop_snapshots * sizeof(struct lsw_dropsnap);
	/* The IPv4 FIB (fibctl.c): the LPM's 2^24 first-level entries, its tbl8 groups and
	 * rules; the IPv6 FIB's two tables (fib6ctl.c): 2^24 2-byte entries, 32767 tbl8 groups
	 * and a RIB of LSW_MAX_ROUTES6 nodes each (14 MiB, measured); the next-hop tables, the
	 * groups (one each for every next-hop group id) and their hashes. */
	b += (1u << 24) * 4 + 4096 * 256 * 4 + LSW_MAX_ROUTES * 8;
	b += 2 * ((1u << 24) * 2 + 32767 * 256 * 2 + (14u << 20));
	b += sizeof(struct lsw_fib) + sizeof(struct lsw_fib6) + (2u << 20) +
	     (LSW_MAX_NHG + LSW_MAX_NHG6) * (sizeof(struct lsw_nhg) + 64);
	/* ECMP flowlet tables: a worker's for every group of the config (its routes bound
	 * them). */
	uint64_t tbl = c->ecmp.dflt.table_size;
	for (uint32_t i = 0; i < c->ecmp.n_grp; i++)
		tbl = RTE_MAX(tbl, (uint64_t)c->ecmp.grp[i].table_size);
	const uint64_t grp = w * tbl * sizeof(struct lsw_flowlet) +
			     LSW_MAX_WORKERS * sizeof(struct lsw_ecmp_ws);
	b += (uint64_t)(c->n_routes + c->n_routes6) * grp;
	if (!later)
		return b;
	/* Later: the capture pool and rings (the first capture.start, capture.c), the timeline
	 * rings (the first timeline.start), a second snapshot, drop-snapshot store and set of
	 * flowlet tables while config.set replaces them, and 64 groups' tables for routes that
	 * route.add brings. */
	const uint64_t cap_big = LSW_CAPTURE_POOL_BYTES /
				 (lsw_mbuf_data_room(c) + LSW_CAPTURE_OBJ_EXTRA);
	b += mbuf_pool_bytes(cap_big, lsw_mbuf_data_room(c), hugepages);
	b += mbuf_pool_bytes(LSW_CAPTURE_SMALL_N, RTE_PKTMBUF_HEADROOM + LSW_CAPTURE_SMALL,
			     hugepages);
	b += w * (ring_bytes(LSW_TL_RING, sizeof(struct lsw_tl_rec)) +
		  ring_bytes(cap_big + LSW_CAPTURE_SMALL_N, sizeof(struct lsw_capture_rec)));
	b += sizeof(struct lsw_snapshot) +
	     (uint64_t)c->g.drop_snapshots * sizeof(struct lsw_dropsnap);
	b += (uint64_t)(c->n_routes + c->n_routes6) * grp +
	     64 * (w * c->ecmp.dflt.table_size * sizeof(struct lsw_flowlet) +
		   LSW_MAX_WORKERS * sizeof(struct lsw_ecmp_ws));
	return b;
}

/* The heap's own headers and alignment: a tenth more, and 64 MiB for the EAL's own
 * allocations (ethdev data, telemetry, the PMDs' queue structures). */
static uint32_t
with_overhead(uint64_t b)
{
	return (uint32_t)((b + b / 10) / (1 << 20) + 64);
}

uint32_t
lsw_eal_memory_mb(const struct lsw_config *c, bool hugepages)
{
	return with_overhead(lsw_eal_memory_bytes(c, hugepages, true));
}

uint32_t
lsw_eal_memory_min_mb(const struct lsw_config *c)
{
	return with_overhead(lsw_eal_memory_bytes(c, false, false));
}

static void
add(struct lsw_eal_args *a, const char *fmt, ...)
{
	va_list ap;

	if (a->argc >= LSW_EAL_MAX_ARGS - 1)
		return;
	va_start(ap, fmt);
	if (vasprintf(&a->argv[a->argc], fmt, ap) >= 0)
		a->argc++;
	va_end(ap);
}

void
lsw_eal_args_build(const struct lsw_config *c, bool hugepages, int pid, struct lsw_eal_args *a)
{
	char lcores[24 * (LSW_MAX_WORKERS + 1)];
	int n;
	bool any_pci = false, mapped = false;

	memset(a, 0, sizeof(*a));
	add(a, "lsw");
	n = snprintf(lcores, sizeof(lcores), "%u", c->g.main_lcore);
	for (unsigned int i = 0; i < c->g.n_workers; i++) {
		n += snprintf(lcores + n, sizeof(lcores) - (size_t)n, ",%u", c->g.workers[i]);
		if (c->g.worker_cpu[i] != c->g.workers[i])
			n += snprintf(lcores + n, sizeof(lcores) - (size_t)n, "@%u",
				      c->g.worker_cpu[i]);
		mapped |= c->g.worker_cpu[i] != c->g.workers[i];
	}
	/* -l when every lcore is its CPU; --lcores places the others (lcore@cpu). */
	add(a, mapped ? "--lcores" : "-l");
	add(a, "%s", lcores);
	add(a, "--main-lcore");
	add(a, "%u", c->g.main_lcore);
	/* A unique prefix keeps several switches (and telemetry sockets) apart. */
	add(a, "--file-prefix");
	if (c->g.file_prefix[0])
		add(a, "%s", c->g.file_prefix);
	else
		add(a, "lsw-%d", pid);
	if (!hugepages) {
		/* --in-memory does not combine with --no-huge on DPDK 22.11; --no-shconf does. */
		add(a, "--no-huge");
		add(a, "--no-shconf");
	}
	add(a, "-m");
	add(a, "%u", c->g.memory_mb ? c->g.memory_mb : lsw_eal_memory_mb(c, hugepages));
	for (unsigned int i = 0; i < c->n_ports; i++) {
		const struct lsw_port_conf *p = &c->port[i];
		if (p->is_pci) {
			add(a, "-a");
			any_pci = true;
			add(a, "%s", p->devargs);
		} else if (lsw_port_is_memif(c, (uint16_t)i)) {
			/* A small ring bounds what is in flight, a buffer holds a frame
			 * (inflight.c); the memif client's sizes are the ones both ends use. */
			uint32_t slots = lsw_port_ring_slots(c, (uint16_t)i,
							     p->speed ? p->speed : 10000);
			char extra[64] = "";
			if (strstr(p->devargs, "rsize=") == NULL)
				snprintf(extra, sizeof(extra), ",rsize=%u",
					 (unsigned int)__builtin_ctz(slots));
			if (strstr(p->devargs, "bsize=") == NULL)
				snprintf(extra + strlen(extra), sizeof(extra) - strlen(extra),
					 ",bsize=%u", lsw_port_memif_bsize(c, (uint16_t)i));
			add(a, "--vdev");
			add(a, "%s%s", p->devargs, extra);
		} else {
			add(a, "--vdev");
			add(a, "%s", p->devargs);
		}
	}
	if (!any_pci)
		add(a, "--no-pci");
	add(a, "--log-level");
	add(a, "%s", c->g.log_level);
	a->argv[a->argc] = NULL;
}

void
lsw_eal_args_free(struct lsw_eal_args *a)
{
	for (int i = 0; i < a->argc; i++)
		free(a->argv[i]);
	a->argc = 0;
}
