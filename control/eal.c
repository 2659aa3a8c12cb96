/* SPDX-License-Identifier: BSD-3-Clause */
#include <dirent.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <rte_mbuf.h>
#include "lsw/capture.h"
#include "eal.h"

bool
lsw_hugepages_free(void)
{
	const char *dir = "/sys/kernel/mm/hugepages";
	DIR *d = opendir(dir);
	struct dirent *e;
	long total = 0;

	if (d == NULL)
		return false;
	while ((e = readdir(d)) != NULL) {
		char path[512];
		long n = 0;
		if (strncmp(e->d_name, "hugepages-", 10) != 0)
			continue;
		snprintf(path, sizeof(path), "%s/%s/free_hugepages", dir, e->d_name);
		FILE *f = fopen(path, "r");
		if (f == NULL)
			continue;
		if (fscanf(f, "%ld", &n) == 1)
			total += n;
		fclose(f);
	}
	closedir(d);
	return total > 0;
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
	uint32_t mem = c->g.memory_mb;
	if (mem == 0) {
		uint64_t bytes = (uint64_t)c->g.mbufs * (lsw_mbuf_data_room(c) + 256);
		/* and the capture pools, made on the first capture.start (lsw/capture.h) */
		bytes += LSW_CAPTURE_POOL_BYTES + (uint64_t)LSW_CAPTURE_SMALL_N *
			 (LSW_CAPTURE_SMALL + LSW_CAPTURE_OBJ_EXTRA);
		/* and the IPv6 FIB's two tables: 32 MiB of first level and 16 MiB of tbl8s
		 * each (control/fib6ctl.c), their RIBs and next hops */
		mem = (uint32_t)(256 + 112 + bytes / (1 << 20));
	}
	add(a, "-m");
	add(a, "%u", mem);
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
