/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Config loading and validation. Every check names the offending value by JSON path; all
 * errors are gathered (not just the first) and a config with any error is refused whole.
 */
#include <sys/sysinfo.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <rte_lcore.h>
#include "config.h"
#include "jsonv.h"

static const char *const tables[] = {
	"DEVICE_METADATA", "LSW", "LSW_PORT", "PORT", "INTERFACE", "STATIC_ROUTE", "NEIGH",
	"ECMP", /* config_ecmp.c */
	/* config_qos.c */
	"BUFFER_POOL", "BUFFER_PROFILE", "BUFFER_PG", "BUFFER_QUEUE", "CABLE_LENGTH",
	"LOSSLESS_TRAFFIC_PATTERN", "DEFAULT_LOSSLESS_BUFFER_PARAMETER", "DSCP_TO_TC_MAP",
	"DOT1P_TO_TC_MAP", "TC_TO_PRIORITY_GROUP_MAP", "TC_TO_QUEUE_MAP", "PORT_QOS_MAP",
	"SCHEDULER", "QUEUE", "PFC_PRIORITY_TO_PRIORITY_GROUP_MAP", "MAP_PFC_PRIORITY_TO_QUEUE",
	"TC_TO_DOT1P_MAP", "PFC_WD", "WRED_PROFILE", NULL,
};

static void
global_defaults(struct lsw_global_conf *g)
{
	*g = (struct lsw_global_conf){
		.main_lcore = 0,
		.n_workers = 1,
		.workers = {1},
		.worker_cpu = {1},
		.idle_sleep_us = 100,
		.mbufs = 16384,
		.rx_desc = 1024,
		.tx_desc = 1024,
		.rpc_socket = "/run/lsw.sock",
		.log_level = "info",
		.ecmp_seed = 0x5eed,
		.cnp_tc = 6,
		.drop_snapshots = 256,
		.arp_retry_ms = 1000,
		.arp_tries = 3,
		.icmp_rate = 1000,
		.icmp_burst = 100,
		.rpc_timeout_ms = 5000,
		.rpc_max_request = 1 << 20,
		.rpc_max_conns = 64,
		.rpc_idle_timeout_ms = 600000,
		.rpc_tcp_addr = 0x7f000001,
	};
}

static void
get_str(json_t *obj, const char *path, const char *key, char *out, size_t size,
	struct lsw_errs *errs)
{
	json_t *v = json_object_get(obj, key);
	char p[LSW_PATH_LEN];
	const char *s;

	if (v == NULL)
		return;
	lsw_path_key(p, path, key);
	if (lsw_jv_str(v, p, size - 1, &s, errs))
		snprintf(out, size, "%s", s);
}

/* A CPU of the machine (not this thread's affinity, which EAL narrows once it has
 * started). */
static bool
cpu_exists(unsigned int cpu)
{
	return (int)cpu < get_nprocs_conf();
}

/* An lcore given as a CPU id: the lcore runs on that CPU. */
static void
parse_lcore(json_t *v, const char *path, unsigned int *out, struct lsw_errs *errs)
{
	uint64_t x;

	if (!lsw_jv_uint(v, path, 0, RTE_MAX_LCORE - 1, &x, errs))
		return;
	if (!cpu_exists((unsigned int)x)) {
		lsw_errs_add(errs, path, "lcore %u does not exist: this machine has CPUs 0-%d",
			     (unsigned int)x, get_nprocs_conf() - 1);
		return;
	}
	*out = (unsigned int)x;
}

/* A worker: a CPU id (the lcore of that id on that CPU), or "LCORE@CPU" as EAL's --lcores
 * writes it, so that more workers than CPUs can run (several lcores share a CPU: for
 * functional tests of several workers on a small machine, never for speed). */
static void
parse_worker(json_t *v, const char *path, unsigned int *lcore, unsigned int *cpu,
	     struct lsw_errs *errs)
{
	unsigned int l, c;
	int end = 0;

	if (!json_is_string(v) || strchr(json_string_value(v), '@') == NULL) {
		parse_lcore(v, path, lcore, errs);
		*cpu = *lcore;
		return;
	}
	if (sscanf(json_string_value(v), "%u@%u%n", &l, &c, &end) != 2 ||
	    json_string_value(v)[end] != '\0') {
		lsw_errs_add(errs, path, "'%s' is not LCORE@CPU (e.g. \"3@1\")",
			     json_string_value(v));
		return;
	}
	if (l >= RTE_MAX_LCORE)
		lsw_errs_add(errs, path, "lcore %u is out of range [0, %d]", l, RTE_MAX_LCORE - 1);
	else if (!cpu_exists(c))
		lsw_errs_add(errs, path, "CPU %u does not exist: this machine has CPUs 0-%d", c,
			     get_nprocs_conf() - 1);
	else
		*lcore = l, *cpu = c;
}

static void
parse_lsw(json_t *t, struct lsw_config *c, struct lsw_errs *errs)
{
	static const char *const keys[] = {"global", "buffer", NULL}; /* buffer: config_qos.c */
	static const char *const fields[] = {
		"main_lcore", "workers", "idle_sleep_us", "mbufs", "memory_mb", "rx_descriptors",
		"tx_descriptors", "file_prefix", "rpc_socket", "log_level", "ecmp_seed",
		"arp_retry_ms", "arp_tries", "icmp_rate_limit", "icmp_burst", "rpc_timeout_ms",
		"rpc_max_request_bytes", "rpc_max_connections", "forwarding", "cnp_tc",
		"rpc_idle_timeout_ms", "rpc_tcp_port", "rpc_tcp_address",
		"drop_snapshots", "mark_snapshots", NULL,
	};
	static const char *const modes[] = {"queued", "direct", NULL};
	static const char *const levels[] = {
		"emerg", "alert", "crit", "error", "warning", "notice", "info", "debug", NULL,
	};
	struct lsw_global_conf *g = &c->g;
	const char *path = "$.LSW.global";
	char p[LSW_PATH_LEN];
	uint32_t x;
	json_t *o, *v;

	if (!lsw_jv_object(t, "$.LSW", keys, errs))
		return;
	o = json_object_get(t, "global");
	if (o == NULL || !lsw_jv_object(o, path, fields, errs))
		return;
	if ((v = json_object_get(o, "main_lcore")) != NULL) {
		lsw_path_key(p, path, "main_lcore");
		parse_lcore(v, p, &g->main_lcore, errs);
	}
	if ((v = json_object_get(o, "workers")) != NULL) {
		lsw_path_key(p, path, "workers");
		if (!json_is_array(v) || json_array_size(v) == 0 ||
		    json_array_size(v) > LSW_MAX_WORKERS) {
			lsw_errs_add(errs, p, "expected an array of 1 to %d CPU ids or \"LCORE@CPU\"",
				     LSW_MAX_WORKERS);
		} else {
			size_t i;
			json_t *e;
			g->n_workers = (uint16_t)json_array_size(v);
			json_array_foreach(v, i, e) {
				char pi[LSW_PATH_LEN];
				lsw_path_index(pi, p, i);
				parse_worker(e, pi, &g->workers[i], &g->worker_cpu[i], errs);
				for (size_t j = 0; j < i; j++)
					if (g->workers[j] == g->workers[i])
						lsw_errs_add(errs, pi, "lcore %u listed twice",
							     g->workers[i]);
			}
		}
	}
	for (unsigned int i = 0; i < g->n_workers; i++)
		if (g->workers[i] == g->main_lcore)
			lsw_errs_add(errs, "$.LSW.global.workers",
				     "lcore %u is the main lcore; workers need their own",
				     g->main_lcore);
	lsw_jv_get_u32(o, path, "idle_sleep_us", 0, 100000, &g->idle_sleep_us, errs);
	if ((v = json_object_get(o, "forwarding")) != NULL) {
		unsigned int m;
		lsw_path_key(p, path, "forwarding");
		if (lsw_jv_enum(v, p, modes, &m, errs))
			g->direct = m == 1;
	}
	lsw_jv_get_u32(o, path, "mbufs", 1024, 1 << 22, &g->mbufs, errs);
	lsw_jv_get_u32(o, path, "memory_mb", 64, 1 << 20, &g->memory_mb, errs);
	x = g->rx_desc;
	lsw_jv_get_u32(o, path, "rx_descriptors", 64, 16384, &x, errs);
	g->rx_desc = (uint16_t)x;
	x = g->tx_desc;
	lsw_jv_get_u32(o, path, "tx_descriptors", 64, 16384, &x, errs);
	g->tx_desc = (uint16_t)x;
	get_str(o, path, "file_prefix", g->file_prefix, sizeof(g->file_prefix), errs);
	get_str(o, path, "rpc_socket", g->rpc_socket, sizeof(g->rpc_socket), errs);
	if ((v = json_object_get(o, "log_level")) != NULL) {
		unsigned int l;
		lsw_path_key(p, path, "log_level");
		if (lsw_jv_enum(v, p, levels, &l, errs))
			snprintf(g->log_level, sizeof(g->log_level), "%s", levels[l]);
	}
	lsw_jv_get_u32(o, path, "ecmp_seed", 0, UINT32_MAX, &g->ecmp_seed, errs);
	lsw_jv_get_u32(o, path, "drop_snapshots", 0, 65536, &g->drop_snapshots, errs);
	if ((v = json_object_get(o, "mark_snapshots")) != NULL) {
		lsw_path_key(p, path, "mark_snapshots");
		lsw_jv_bool(v, p, &g->mark_snapshots, errs);
	}
	/* RoCEv2 CNPs ride this TC whatever their DSCP ("dscp": classify them like the rest). */
	if ((v = json_object_get(o, "cnp_tc")) != NULL) {
		uint64_t tc;
		lsw_path_key(p, path, "cnp_tc");
		if (json_is_string(v) && strcmp(json_string_value(v), "dscp") == 0)
			g->cnp_tc = LSW_CNP_TC_DSCP;
		else if (lsw_jv_uint(v, p, 0, 7, &tc, errs))
			g->cnp_tc = (uint8_t)tc;
	}
	lsw_jv_get_u32(o, path, "arp_retry_ms", 10, 60000, &g->arp_retry_ms, errs);
	lsw_jv_get_u32(o, path, "arp_tries", 1, 100, &g->arp_tries, errs);
	lsw_jv_get_u32(o, path, "icmp_rate_limit", 0, 1000000, &g->icmp_rate, errs);
	lsw_jv_get_u32(o, path, "icmp_burst", 1, 100000, &g->icmp_burst, errs);
	lsw_jv_get_u32(o, path, "rpc_timeout_ms", 100, 3600000, &g->rpc_timeout_ms, errs);
	lsw_jv_get_u32(o, path, "rpc_max_request_bytes", 4096, 64 << 20, &g->rpc_max_request, errs);
	lsw_jv_get_u32(o, path, "rpc_max_connections", 1, 1024, &g->rpc_max_conns, errs);
	lsw_jv_get_u32(o, path, "rpc_idle_timeout_ms", 0, 86400000, &g->rpc_idle_timeout_ms,
		       errs);
	uint32_t port = 0;
	lsw_jv_get_u32(o, path, "rpc_tcp_port", 0, 65535, &port, errs);
	g->rpc_tcp_port = (uint16_t)port;
	char addr[32] = "";
	get_str(o, path, "rpc_tcp_address", addr, sizeof(addr), errs);
	if (addr[0] != '\0' && !lsw_parse_ipv4(addr, &g->rpc_tcp_addr)) {
		char pa[LSW_PATH_LEN];
		lsw_path_key(pa, path, "rpc_tcp_address");
		lsw_errs_add(errs, pa, "'%s' is not an IPv4 address (127.0.0.1 keeps the RPC on "
			     "this machine; 0.0.0.0 opens it to every network)", addr);
	}
}

static void
parse_device_metadata(json_t *t, struct lsw_config *c, struct rte_ether_addr *mac, bool *mac_set,
		      struct lsw_errs *errs)
{
	static const char *const keys[] = {"localhost", NULL};
	/* hwsku, platform and type are accepted for SONiC files and only informational. */
	static const char *const fields[] = {"hostname", "mac", "hwsku", "platform", "type", NULL};
	const char *path = "$.DEVICE_METADATA.localhost";
	json_t *o, *v;

	if (!lsw_jv_object(t, "$.DEVICE_METADATA", keys, errs))
		return;
	o = json_object_get(t, "localhost");
	if (o == NULL || !lsw_jv_object(o, path, fields, errs))
		return;
	get_str(o, path, "hostname", c->hostname, sizeof(c->hostname), errs);
	if ((v = json_object_get(o, "mac")) != NULL)
		*mac_set = lsw_jv_mac(v, "$.DEVICE_METADATA.localhost.mac", mac, errs);
}

static bool
valid_port_name(const char *s)
{
	size_t n = strlen(s);

	if (n == 0 || n >= LSW_NAME_LEN)
		return false;
	for (; *s; s++)
		if (!(*s >= 'a' && *s <= 'z') && !(*s >= 'A' && *s <= 'Z') &&
		    !(*s >= '0' && *s <= '9') && *s != '_' && *s != '-' && *s != '.')
			return false;
	return true;
}

/* A PCI address as DPDK's -a takes it: [DDDD:]BB:DD.F */
static bool
is_pci_addr(const char *s, size_t n)
{
	unsigned int d, b, dv, f;
	char buf[32], tail;

	if (n >= sizeof(buf))
		return false;
	memcpy(buf, s, n);
	buf[n] = '\0';
	return sscanf(buf, "%x:%x:%x.%x%c", &d, &b, &dv, &f, &tail) == 4 ||
	       sscanf(buf, "%x:%x.%x%c", &b, &dv, &f, &tail) == 3;
}

static void
parse_port(json_t *o, const char *path, struct lsw_port_conf *pc, struct lsw_errs *errs)
{
	static const char *const fields[] = {
		"admin_status", "mtu", "speed", "alias", "description", NULL,
	};
	static const char *const states[] = {"down", "up", NULL};
	char p[LSW_PATH_LEN];
	uint32_t x;
	json_t *v;

	if (!lsw_jv_object(o, path, fields, errs))
		return;
	if ((v = json_object_get(o, "admin_status")) != NULL) {
		unsigned int s;
		lsw_path_key(p, path, "admin_status");
		if (lsw_jv_enum(v, p, states, &s, errs))
			pc->admin_up = s == 1;
	}
	x = pc->mtu;
	lsw_jv_get_u32(o, path, "mtu", LSW_MIN_MTU, LSW_MAX_MTU, &x, errs);
	pc->mtu = (uint16_t)x;
	lsw_jv_get_u32(o, path, "speed", 1, 800000, &pc->speed, errs);
	get_str(o, path, "alias", pc->alias, sizeof(pc->alias), errs);
	get_str(o, path, "description", pc->description, sizeof(pc->description), errs);
}

static void
parse_lsw_port(json_t *o, const char *path, struct lsw_config *c, struct lsw_port_conf *pc,
	       struct lsw_errs *errs)
{
	static const char *const fields[] = {
		"devargs", "mac", "lcore", "pfc_quanta", "rx_pause", "priority_tagging", NULL,
	};
	char p[LSW_PATH_LEN];
	const char *s;
	json_t *v;

	if (!lsw_jv_object(o, path, fields, errs))
		return;
	lsw_path_key(p, path, "devargs");
	v = json_object_get(o, "devargs");
	if (v == NULL) {
		lsw_errs_add(errs, p, "required: the DPDK device, e.g. net_tap0,iface=sw0");
	} else if (lsw_jv_str(v, p, LSW_DEVARGS_LEN - 1, &s, errs)) {
		size_t n = strcspn(s, ",");
		pc->is_pci = is_pci_addr(s, n);
		if (!pc->is_pci && (strncmp(s, "net_", 4) != 0 || n <= 4))
			lsw_errs_add(errs, p, "'%s' is neither a vdev (net_<driver><n>,...) nor a "
				     "PCI address", s);
		else
			snprintf(pc->devargs, sizeof(pc->devargs), "%s", s);
	}
	if ((v = json_object_get(o, "mac")) != NULL) {
		lsw_path_key(p, path, "mac");
		pc->mac_set = lsw_jv_mac(v, p, &pc->mac, errs);
	}
	if ((v = json_object_get(o, "lcore")) != NULL) {
		uint64_t l = 0;
		bool found = false;
		lsw_path_key(p, path, "lcore");
		if (lsw_jv_uint(v, p, 0, RTE_MAX_LCORE - 1, &l, errs)) {
			for (unsigned int i = 0; i < c->g.n_workers; i++)
				found |= c->g.workers[i] == l;
			if (!found)
				lsw_errs_add(errs, p, "lcore %u is not in LSW.global.workers",
					     (unsigned int)l);
		}
		pc->lcore = (int)l;
	}
	uint32_t q = pc->pfc_quanta;
	lsw_jv_get_u32(o, path, "pfc_quanta", 1, UINT16_MAX, &q, errs);
	pc->pfc_quanta = (uint16_t)q;
	if ((v = json_object_get(o, "rx_pause")) != NULL) {
		lsw_path_key(p, path, "rx_pause");
		lsw_jv_bool(v, p, &pc->rx_pause, errs);
	}
	if ((v = json_object_get(o, "priority_tagging")) != NULL) {
		lsw_path_key(p, path, "priority_tagging");
		lsw_jv_bool(v, p, &pc->prio_tag, errs);
	}
}

static void
parse_ports(json_t *doc, struct lsw_config *c, struct lsw_errs *errs)
{
	json_t *ports = json_object_get(doc, "PORT"), *lports = json_object_get(doc, "LSW_PORT");
	char p[LSW_PATH_LEN];
	const char *name;
	json_t *o;

	if (ports == NULL) {
		lsw_errs_add(errs, "$.PORT", "required: at least one port");
		return;
	}
	if (!json_is_object(ports)) {
		lsw_errs_add(errs, "$.PORT", "expected an object of ports");
		return;
	}
	if (lports != NULL && !json_is_object(lports)) {
		lsw_errs_add(errs, "$.LSW_PORT", "expected an object of ports");
		return;
	}
	json_object_foreach(ports, name, o) {
		lsw_path_key(p, "$.PORT", name);
		if (!valid_port_name(name)) {
			lsw_errs_add(errs, p, "port names are 1-%d characters of [A-Za-z0-9_.-]",
				     LSW_NAME_LEN - 1);
			continue;
		}
		if (c->n_ports == LSW_MAX_PORTS) {
			lsw_errs_add(errs, p, "more than %d ports", LSW_MAX_PORTS);
			break;
		}
		struct lsw_port_conf *pc = &c->port[c->n_ports++];
		*pc = (struct lsw_port_conf){.admin_up = true, .mtu = 9100, .lcore = -1,
					     .pfc_quanta = UINT16_MAX};
		snprintf(pc->name, sizeof(pc->name), "%s", name);
		parse_port(o, p, pc, errs);
		json_t *lo = lports ? json_object_get(lports, name) : NULL;
		if (lo == NULL) {
			lsw_errs_add(errs, p, "no LSW_PORT entry gives this port its devargs");
			continue;
		}
		lsw_path_key(p, "$.LSW_PORT", name);
		parse_lsw_port(lo, p, c, pc, errs);
	}
	if (c->n_ports == 0 && errs->n == 0)
		lsw_errs_add(errs, "$.PORT", "required: at least one port");
	if (lports != NULL) {
		json_object_foreach(lports, name, o) {
			if (json_object_get(ports, name) == NULL) {
				lsw_path_key(p, "$.LSW_PORT", name);
				lsw_errs_add(errs, p, "no PORT entry with this name");
			}
		}
	}
	for (unsigned int i = 0; i < c->n_ports; i++)
		for (unsigned int j = 0; j < i; j++)
			if (c->port[i].devargs[0] &&
			    strcmp(c->port[i].devargs, c->port[j].devargs) == 0) {
				lsw_path_key(p, "$.LSW_PORT", c->port[i].name);
				lsw_errs_add(errs, p, "devargs already used by %s", c->port[j].name);
			}
}

int
lsw_config_port_index(const struct lsw_config *c, const char *name)
{
	for (unsigned int i = 0; i < c->n_ports; i++)
		if (strcmp(c->port[i].name, name) == 0)
			return (int)i;
	return -1;
}

/* Split "PORT|rest" keys. */
static bool
split_key(const char *key, char *port, size_t plen, const char **rest)
{
	const char *bar = strchr(key, '|');

	if (bar == NULL || (size_t)(bar - key) >= plen)
		return false;
	memcpy(port, key, (size_t)(bar - key));
	port[bar - key] = '\0';
	*rest = bar + 1;
	return true;
}

static bool
prefixes_overlap(uint32_t a, uint8_t alen, uint32_t b, uint8_t blen)
{
	uint32_t m = lsw_prefix_mask(alen < blen ? alen : blen);

	return ((a ^ b) & m) == 0;
}

static void
parse_interfaces(json_t *t, struct lsw_config *c, struct lsw_errs *errs)
{
	static const char *const fields[] = {"scope", "family", NULL};
	char p[LSW_PATH_LEN], port[LSW_NAME_LEN];
	const char *key, *rest;
	json_t *o;

	if (!json_is_object(t)) {
		lsw_errs_add(errs, "$.INTERFACE", "expected an object");
		return;
	}
	json_object_foreach(t, key, o) {
		lsw_path_key(p, "$.INTERFACE", key);
		if (!lsw_jv_object(o, p, fields, errs))
			continue;
		bool has_addr = split_key(key, port, sizeof(port), &rest);
		int pi = lsw_config_port_index(c, has_addr ? port : key);
		if (pi < 0) {
			lsw_errs_add(errs, p, "no port named '%s'", has_addr ? port : key);
			continue;
		}
		if (!has_addr)
			continue; /* the bare "Ethernet0" key binds the port as a router interface */
		uint32_t ip;
		uint8_t plen;
		if (!lsw_parse_prefix(rest, &ip, &plen) || plen == 0) {
			lsw_errs_add(errs, p, "'%s' is not an IPv4 address/prefix-length (IPv6 "
				     "interfaces are not supported yet)", rest);
			continue;
		}
		uint32_t host = ip & ~lsw_prefix_mask(plen);
		if (plen <= 30 && (host == 0 || host == ~lsw_prefix_mask(plen))) {
			lsw_errs_add(errs, p, "%s is the network or broadcast address of its subnet",
				     rest);
			continue;
		}
		uint8_t first = (uint8_t)(ip >> 24);
		if (first == 0 || first == 127 || first >= 224) {
			lsw_errs_add(errs, p, "%s is not a unicast address", rest);
			continue;
		}
		struct lsw_port_conf *pc = &c->port[pi];
		if (pc->n_addr == LSW_MAX_ADDRS) {
			lsw_errs_add(errs, p, "more than %d addresses on %s", LSW_MAX_ADDRS, port);
			continue;
		}
		for (unsigned int i = 0; i < c->n_ports; i++)
			for (unsigned int j = 0; j < c->port[i].n_addr; j++) {
				const struct lsw_addr *a = &c->port[i].addr[j];
				if (prefixes_overlap(a->ip, a->plen, ip, plen))
					lsw_errs_add(errs, p, "overlaps %s's subnet", c->port[i].name);
			}
		pc->addr[pc->n_addr++] = (struct lsw_addr){.ip = ip, .plen = plen};
	}
}

int
lsw_config_on_link_port(const struct lsw_config *c, uint32_t ip, bool *own)
{
	*own = false;
	for (unsigned int i = 0; i < c->n_ports; i++)
		for (unsigned int j = 0; j < c->port[i].n_addr; j++) {
			const struct lsw_addr *a = &c->port[i].addr[j];
			if (a->ip == ip)
				*own = true;
			if (((a->ip ^ ip) & lsw_prefix_mask(a->plen)) == 0)
				return (int)i;
		}
	return -1;
}

/* Split a comma-separated list in place; returns the count, or -1 if more than @max. */
static int
split_list(char *s, char **items, int max)
{
	int n = 0;

	for (char *tok = strtok(s, ","); tok != NULL; tok = strtok(NULL, ",")) {
		while (*tok == ' ')
			tok++;
		if (n == max)
			return -1;
		items[n++] = tok;
	}
	return n;
}

static void
parse_route(const char *key, json_t *o, const char *path, struct lsw_config *c,
	    struct lsw_route_conf *r, struct lsw_errs *errs)
{
	static const char *const fields[] = {"nexthop", "ifname", "blackhole", NULL};
	char nhbuf[1024] = "", ifbuf[1024] = "", p[LSW_PATH_LEN];
	char *nhs[LSW_MAX_ECMP], *ifs[LSW_MAX_ECMP];
	const char *pfx = key;
	json_t *v;
	bool own;

	if (strncmp(key, "default|", 8) == 0)
		pfx = key + 8;
	if (!lsw_parse_prefix(pfx, &r->prefix, &r->plen)) {
		lsw_errs_add(errs, path, "'%s' is not an IPv4 prefix (optionally 'default|' "
			     "before it; other VRFs are not supported)", key);
		return;
	}
	if (r->prefix & ~lsw_prefix_mask(r->plen)) {
		lsw_errs_add(errs, path, "%s has host bits set", pfx);
		return;
	}
	if (!lsw_jv_object(o, path, fields, errs))
		return;
	if ((v = json_object_get(o, "blackhole")) != NULL) {
		lsw_path_key(p, path, "blackhole");
		lsw_jv_bool(v, p, &r->blackhole, errs);
	}
	get_str(o, path, "nexthop", nhbuf, sizeof(nhbuf), errs);
	get_str(o, path, "ifname", ifbuf, sizeof(ifbuf), errs);
	int nn = split_list(nhbuf, nhs, LSW_MAX_ECMP);
	int ni = split_list(ifbuf, ifs, LSW_MAX_ECMP);
	lsw_path_key(p, path, "nexthop");
	if (r->blackhole) {
		if (nn != 0)
			lsw_errs_add(errs, p, "a blackhole route has no next hop");
		return;
	}
	if (nn <= 0) {
		lsw_errs_add(errs, p, nn < 0 ? "more than %d next hops" :
			     "required: one or more next-hop addresses, comma-separated (or "
			     "blackhole: true)", LSW_MAX_ECMP);
		return;
	}
	if (ni != 0 && ni != nn) {
		lsw_path_key(p, path, "ifname");
		lsw_errs_add(errs, p, "lists %d interfaces for %d next hops", ni, nn);
		return;
	}
	for (int i = 0; i < nn; i++) {
		uint32_t ip;
		if (!lsw_parse_ipv4(nhs[i], &ip)) {
			lsw_errs_add(errs, p, "'%s' is not an IPv4 address", nhs[i]);
			continue;
		}
		int port = lsw_config_on_link_port(c, ip, &own);
		if (ni) {
			int want = lsw_config_port_index(c, ifs[i]);
			if (want < 0) {
				char pi[LSW_PATH_LEN];
				lsw_path_key(pi, path, "ifname");
				lsw_errs_add(errs, pi, "no port named '%s'", ifs[i]);
				continue;
			}
			if (port != want) {
				lsw_errs_add(errs, p, "next hop %s is not on a subnet of %s", nhs[i],
					     ifs[i]);
				continue;
			}
		}
		if (port < 0 || own) {
			lsw_errs_add(errs, p, own ? "next hop %s is the switch's own address" :
				     "next hop %s is not on any connected subnet", nhs[i]);
			continue;
		}
		for (unsigned int j = 0; j < r->n_nh; j++)
			if (r->nh_ip[j] == ip)
				lsw_errs_add(errs, p, "next hop %s listed twice", nhs[i]);
		r->nh_ip[r->n_nh] = ip;
		r->nh_port[r->n_nh++] = (uint16_t)port;
	}
}

static void
parse_routes(json_t *t, struct lsw_config *c, struct lsw_errs *errs)
{
	char p[LSW_PATH_LEN];
	const char *key;
	json_t *o;

	if (!json_is_object(t)) {
		lsw_errs_add(errs, "$.STATIC_ROUTE", "expected an object");
		return;
	}
	c->routes = calloc(json_object_size(t) + 1, sizeof(*c->routes));
	json_object_foreach(t, key, o) {
		struct lsw_route_conf *r = &c->routes[c->n_routes];
		unsigned int before = errs->n;
		lsw_path_key(p, "$.STATIC_ROUTE", key);
		*r = (struct lsw_route_conf){0};
		parse_route(key, o, p, c, r, errs);
		if (errs->n != before)
			continue;
		for (unsigned int i = 0; i < c->n_routes; i++)
			if (c->routes[i].prefix == r->prefix && c->routes[i].plen == r->plen)
				lsw_errs_add(errs, p, "the same prefix is given twice");
		for (unsigned int i = 0; i < c->n_ports; i++)
			for (unsigned int j = 0; j < c->port[i].n_addr; j++) {
				const struct lsw_addr *a = &c->port[i].addr[j];
				if ((r->plen == a->plen &&
				     r->prefix == (a->ip & lsw_prefix_mask(a->plen))) ||
				    (r->plen == 32 && r->prefix == a->ip))
					lsw_errs_add(errs, p, "is %s's connected subnet or address",
						     c->port[i].name);
			}
		c->n_routes++;
	}
	if (c->n_routes > LSW_MAX_ROUTES / 2)
		lsw_errs_add(errs, "$.STATIC_ROUTE", "more than %d routes", LSW_MAX_ROUTES / 2);
}

static void
parse_neighs(json_t *t, struct lsw_config *c, struct lsw_errs *errs)
{
	static const char *const fields[] = {"neigh", "family", NULL};
	static const char *const families[] = {"IPv4", NULL};
	char p[LSW_PATH_LEN], port[LSW_NAME_LEN], pf[LSW_PATH_LEN];
	const char *key, *rest;
	json_t *o, *v;

	if (!json_is_object(t)) {
		lsw_errs_add(errs, "$.NEIGH", "expected an object");
		return;
	}
	c->neighs = calloc(json_object_size(t) + 1, sizeof(*c->neighs));
	json_object_foreach(t, key, o) {
		struct lsw_neigh_conf *n = &c->neighs[c->n_neighs];
		unsigned int fam;
		bool own;
		lsw_path_key(p, "$.NEIGH", key);
		if (!lsw_jv_object(o, p, fields, errs))
			continue;
		if (!split_key(key, port, sizeof(port), &rest) || !lsw_parse_ipv4(rest, &n->ip)) {
			lsw_errs_add(errs, p, "keys are PORT|IPv4-address");
			continue;
		}
		int pi = lsw_config_port_index(c, port);
		if (pi < 0) {
			lsw_errs_add(errs, p, "no port named '%s'", port);
			continue;
		}
		if (lsw_config_on_link_port(c, n->ip, &own) != pi || own) {
			lsw_errs_add(errs, p, own ? "%s is the switch's own address" :
				     "%s is not on a subnet of %s", rest, port);
			continue;
		}
		n->port = (uint16_t)pi;
		if ((v = json_object_get(o, "family")) != NULL) {
			lsw_path_key(pf, p, "family");
			lsw_jv_enum(v, pf, families, &fam, errs);
		}
		lsw_path_key(pf, p, "neigh");
		if ((v = json_object_get(o, "neigh")) == NULL) {
			lsw_errs_add(errs, pf, "required: the neighbor's MAC address");
			continue;
		}
		if (lsw_jv_mac(v, pf, &n->mac, errs))
			c->n_neighs++;
	}
}

uint32_t
lsw_config_mbuf_reserve(const struct lsw_config *c)
{
	/* Every PMD ring can hold a full set of descriptors, plus bursts in flight. */
	uint64_t r = (uint64_t)c->n_ports * (c->g.rx_desc + c->g.tx_desc) +
		     (uint64_t)c->g.n_workers * LSW_MAX_PORTS * LSW_BURST * 2 + 512;

	return r > UINT32_MAX ? UINT32_MAX : (uint32_t)r;
}

static void
check_resources(struct lsw_config *c, struct lsw_errs *errs)
{
	/* The rings' reserve, and packets for the buffer to hold (the MMU's mbuf limit). */
	uint64_t need = (uint64_t)lsw_config_mbuf_reserve(c) + LSW_MIN_BUFFER_MBUFS;

	if (c->g.mbufs < need)
		lsw_errs_add(errs, "$.LSW.global.mbufs", "%u mbufs are too few for %u ports with "
			     "%u rx and %u tx descriptors and a buffer of %u packets: at least %llu",
			     c->g.mbufs, c->n_ports, c->g.rx_desc, c->g.tx_desc,
			     LSW_MIN_BUFFER_MBUFS, (unsigned long long)need);
	for (unsigned int i = 0; i < c->n_ports; i++) {
		struct lsw_port_conf *pc = &c->port[i];
		if (pc->lcore >= 0)
			continue;
		pc->lcore = (int)c->g.workers[i % c->g.n_workers];
	}
}

/* Watchdogs lsw started with SONiC's defaults appear in the running config, as
 * `pfcwd start_default` writes them into CONFIG_DB: config.get and config.save show them. */
static void
add_pfcwd_defaults(struct lsw_config *c)
{
	json_t *doc = NULL, *wd;

	for (unsigned int i = 0; i < c->n_ports; i++) {
		const struct lsw_pfcwd_port_conf *wp = &c->qos.wd.port[i];
		if (!wp->defaulted)
			continue;
		if (doc == NULL) { /* the caller's document stays as it was */
			doc = json_deep_copy(c->doc);
			json_decref(c->doc);
			c->doc = doc;
			if (json_object_get(doc, "PFC_WD") == NULL)
				json_object_set_new(doc, "PFC_WD", json_object());
		}
		char ms[16];
		snprintf(ms, sizeof(ms), "%u", LSW_PFCWD_DEFAULT_MS);
		wd = json_object_get(doc, "PFC_WD");
		json_object_set_new(wd, c->port[i].name, json_pack("{s:s, s:s, s:s}",
			"action", "drop", "detection_time", ms, "restoration_time", ms));
	}
}

struct lsw_config *
lsw_config_from_json(json_t *doc, struct lsw_errs *errs)
{
	struct lsw_config *c = calloc(1, sizeof(*c));
	struct rte_ether_addr sys_mac;
	bool sys_mac_set = false;
	json_t *t;

	errs->n = 0;
	global_defaults(&c->g);
	snprintf(c->hostname, sizeof(c->hostname), "lsw");
	/* Unknown tables are reported, and the known ones still checked. */
	if (!json_is_object(doc)) {
		lsw_jv_object(doc, "$", tables, errs);
		goto fail;
	}
	lsw_jv_object(doc, "$", tables, errs);
	if ((t = json_object_get(doc, "LSW")) != NULL)
		parse_lsw(t, c, errs);
	if ((t = json_object_get(doc, "DEVICE_METADATA")) != NULL)
		parse_device_metadata(t, c, &sys_mac, &sys_mac_set, errs);
	parse_ports(doc, c, errs);
	if ((t = json_object_get(doc, "INTERFACE")) != NULL)
		parse_interfaces(t, c, errs);
	/* Routes and neighbors are checked against the interfaces, so only once those hold. */
	if (errs->n == 0 && (t = json_object_get(doc, "STATIC_ROUTE")) != NULL)
		parse_routes(t, c, errs);
	if (errs->n == 0 && (t = json_object_get(doc, "NEIGH")) != NULL)
		parse_neighs(t, c, errs);
	lsw_config_ecmp_defaults(&c->ecmp, c->g.ecmp_seed);
	if (errs->n == 0 && (t = json_object_get(doc, "ECMP")) != NULL)
		lsw_config_ecmp(t, c, errs);
	if (errs->n == 0)
		lsw_config_qos(doc, c, errs);
	if (errs->n == 0)
		check_resources(c, errs);
	if (errs->n != 0)
		goto fail;
	for (unsigned int i = 0; i < c->n_ports; i++)
		if (!c->port[i].mac_set && sys_mac_set) {
			c->port[i].mac = sys_mac;
			c->port[i].mac_set = true;
		}
	c->doc = json_incref(doc);
	add_pfcwd_defaults(c);
	return c;
fail:
	lsw_config_free(c);
	return NULL;
}

struct lsw_config *
lsw_config_load(const char *path, struct lsw_errs *errs)
{
	json_error_t jerr;
	json_t *doc = json_load_file(path, JSON_REJECT_DUPLICATES, &jerr);

	errs->n = 0;
	if (doc == NULL) {
		if (jerr.line < 0)
			lsw_errs_add(errs, "$", "%s: %s", path, jerr.text);
		else
			lsw_errs_add(errs, "$", "%s:%d:%d: %s", path, jerr.line, jerr.column,
				     jerr.text);
		return NULL;
	}
	struct lsw_config *c = lsw_config_from_json(doc, errs);
	json_decref(doc);
	return c;
}

void
lsw_config_free(struct lsw_config *c)
{
	if (c == NULL)
		return;
	free(c->routes);
	free(c->neighs);
	free(c->ecmp.grp);
	json_decref(c->doc);
	free(c);
}
