/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Config loading and validation: the tables in order (config.h lists which file reads
 * which), LSW.global and DEVICE_METADATA here. Every check names the offending value by
 * JSON path; all errors are gathered (not just the first) and a config with any error is
 * refused whole.
 */
#include <sys/sysinfo.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <rte_lcore.h>
#include "config.h"
#include "decode.h"
#include "eal.h"
#include "jsonv.h"

const char *const lsw_log_level_names[] = {
	"emerg", "alert", "crit", "error", "warning", "notice", "info", "debug", NULL,
};

/* Every table a config may hold; each is read by its file (config.h). */
#define TABLE(t) {.name = t, .type = LSW_F_ANY}
#define MAP_TABLE(kind, table, field) TABLE(table),
static const struct lsw_field table_rows[] = {
	TABLE("DEVICE_METADATA"), TABLE("LSW"), TABLE("LSW_PORT"), TABLE("PORT"),
	TABLE("INTERFACE"), TABLE("STATIC_ROUTE"), TABLE("NEIGH"), TABLE("ECMP"),
	TABLE("BUFFER_POOL"), TABLE("BUFFER_PROFILE"), TABLE("BUFFER_PG"), TABLE("BUFFER_QUEUE"),
	TABLE("CABLE_LENGTH"), TABLE("LOSSLESS_TRAFFIC_PATTERN"),
	TABLE("DEFAULT_LOSSLESS_BUFFER_PARAMETER"), TABLE("PORT_QOS_MAP"), TABLE("SCHEDULER"),
	TABLE("QUEUE"), TABLE("PFC_WD"), TABLE("WRED_PROFILE"), TABLE("SWITCH_TRIMMING"),
	TABLE("ACL_TABLE"), TABLE("ACL_RULE"),
	LSW_FOREACH_MAP(MAP_TABLE)
};
#undef MAP_TABLE
#undef TABLE
static const struct lsw_fields tables = LSW_FIELDS(table_rows);
LSW_CONFIG_OBJECT(tables, "", &tables)

/* A CPU of the machine (not this thread's affinity, which EAL narrows once it has
 * started). */
static bool
cpu_exists(unsigned int cpu)
{
	return (int)cpu < get_nprocs_conf();
}

/* An lcore given as a CPU id: the lcore runs on that CPU. */
static bool
parse_lcore(json_t *v, const char *path, unsigned int *out, struct lsw_errs *errs)
{
	uint64_t x;

	if (!lsw_jv_uint(v, path, 0, RTE_MAX_LCORE - 1, &x, errs))
		return false;
	if (!cpu_exists((unsigned int)x)) {
		lsw_errs_add(errs, path, "lcore %u does not exist: this machine has CPUs 0-%d",
			     (unsigned int)x, get_nprocs_conf() - 1);
		return false;
	}
	*out = (unsigned int)x;
	return true;
}

static bool
main_lcore(const struct lsw_field *f, json_t *v, const char *path, void *out, void *ctx,
	   struct lsw_errs *errs)
{
	RTE_SET_USED(ctx);
	return parse_lcore(v, path, (unsigned int *)((char *)out + f->off), errs);
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

/* "workers": [1, "2@1", ...]; by default one worker, lcore 1 on CPU 1. */
static bool
workers(const struct lsw_field *f, json_t *v, const char *path, void *out, void *ctx,
	struct lsw_errs *errs)
{
	struct lsw_global_conf *g = out;
	unsigned int before = errs->n;
	size_t i;
	json_t *e;

	RTE_SET_USED(f);
	RTE_SET_USED(ctx);
	if (!json_is_array(v) || json_array_size(v) == 0 || json_array_size(v) > LSW_MAX_WORKERS) {
		lsw_errs_add(errs, path, "expected an array of 1 to %d CPU ids or \"LCORE@CPU\"",
			     LSW_MAX_WORKERS);
		return false;
	}
	g->n_workers = (uint16_t)json_array_size(v);
	json_array_foreach(v, i, e) {
		char pi[LSW_PATH_LEN];
		lsw_path_index(pi, path, i);
		parse_worker(e, pi, &g->workers[i], &g->worker_cpu[i], errs);
		for (size_t j = 0; j < i; j++)
			if (g->workers[j] == g->workers[i])
				lsw_errs_add(errs, pi, "lcore %u listed twice", g->workers[i]);
	}
	return errs->n == before;
}

/* RoCEv2 CNPs ride this TC whatever their DSCP ("dscp": classify them like the rest). */
static bool
cnp_tc(const struct lsw_field *f, json_t *v, const char *path, void *out, void *ctx,
       struct lsw_errs *errs)
{
	uint8_t *tc = (uint8_t *)out + f->off;
	uint64_t x;

	RTE_SET_USED(ctx);
	if (json_is_string(v) && strcmp(json_string_value(v), "dscp") == 0) {
		*tc = LSW_CNP_TC_DSCP;
		return true;
	}
	if (!lsw_jv_uint(v, path, 0, 7, &x, errs))
		return false;
	*tc = (uint8_t)x;
	return true;
}

static bool
tcp_address(const struct lsw_field *f, json_t *v, const char *path, void *out, void *ctx,
	    struct lsw_errs *errs)
{
	const char *s;

	RTE_SET_USED(ctx);
	if (!lsw_jv_str(v, path, 31, &s, errs))
		return false;
	if (lsw_parse_ipv4(s, (uint32_t *)((char *)out + f->off)))
		return true;
	lsw_errs_add(errs, path, "'%s' is not an IPv4 address (127.0.0.1 keeps the RPC on "
		     "this machine; 0.0.0.0 opens it to every network)", s);
	return false;
}

#define AT(m) LSW_AT(struct lsw_global_conf, m)
static const char *const forwarding_names[] = {"queued", "direct", NULL};
/* LSW.global, in the README's order. */
static const struct lsw_field global_rows[] = {
	{.name = "main_lcore", .type = LSW_F_CUSTOM, AT(main_lcore), .fn = main_lcore},
	{.name = "workers", .type = LSW_F_CUSTOM, .fn = workers},
	{.name = "idle_sleep_us", .type = LSW_F_UINT, AT(idle_sleep_us), .max = 100000,
	 .dflt = 100},
	{.name = "mbufs", .type = LSW_F_UINT, AT(mbufs), .min = 1024, .max = 1 << 22,
	 .dflt = 16384},
	{.name = "memory_mb", .type = LSW_F_UINT, AT(memory_mb), .min = 64, .max = 1 << 20},
	{.name = "rx_descriptors", .type = LSW_F_UINT, AT(rx_desc), .min = 64, .max = 16384,
	 .dflt = 1024},
	{.name = "tx_descriptors", .type = LSW_F_UINT, AT(tx_desc), .min = 64, .max = 16384,
	 .dflt = 1024},
	{.name = "file_prefix", .type = LSW_F_STR, AT(file_prefix)},
	{.name = "rpc_socket", .type = LSW_F_STR, AT(rpc_socket), .dflt_str = "/run/lsw.sock"},
	{.name = "rpc_timeout_ms", .type = LSW_F_UINT, AT(rpc_timeout_ms), .min = 100,
	 .max = 3600000, .dflt = 5000},
	{.name = "rpc_max_request_bytes", .type = LSW_F_UINT, AT(rpc_max_request), .min = 4096,
	 .max = 64 << 20, .dflt = 1 << 20},
	{.name = "rpc_max_connections", .type = LSW_F_UINT, AT(rpc_max_conns), .min = 1,
	 .max = 1024, .dflt = 64},
	{.name = "rpc_idle_timeout_ms", .type = LSW_F_UINT, AT(rpc_idle_timeout_ms),
	 .max = 86400000, .dflt = 600000},
	{.name = "rpc_tcp_port", .type = LSW_F_UINT, AT(rpc_tcp_port), .max = 65535},
	{.name = "rpc_tcp_address", .type = LSW_F_CUSTOM, AT(rpc_tcp_addr), .dflt = 0x7f000001,
	 .fn = tcp_address},
	{.name = "log_level", .type = LSW_F_KEYWORD, AT(log_level), .choices = lsw_log_level_names,
	 .dflt_str = "info"},
	{.name = "forwarding", .type = LSW_F_ENUM, AT(direct), .choices = forwarding_names},
	{.name = "ecmp_seed", .type = LSW_F_UINT, AT(ecmp_seed), .max = UINT32_MAX,
	 .dflt = 0x5eed},
	{.name = "arp_retry_ms", .type = LSW_F_UINT, AT(arp_retry_ms), .min = 10, .max = 60000,
	 .dflt = 1000},
	{.name = "arp_tries", .type = LSW_F_UINT, AT(arp_tries), .min = 1, .max = 100, .dflt = 3},
	{.name = "icmp_rate_limit", .type = LSW_F_UINT, AT(icmp_rate), .max = 1000000,
	 .dflt = 1000},
	{.name = "icmp_burst", .type = LSW_F_UINT, AT(icmp_burst), .min = 1, .max = 100000,
	 .dflt = 100},
	{.name = "cnp_tc", .type = LSW_F_CUSTOM, AT(cnp_tc), .dflt = 6, .fn = cnp_tc},
	{.name = "drop_snapshots", .type = LSW_F_UINT, AT(drop_snapshots), .max = 65536,
	 .dflt = 256},
	{.name = "mark_snapshots", .type = LSW_F_BOOL, AT(mark_snapshots)},
};
#undef AT
static const struct lsw_fields global = LSW_FIELDS(global_rows);
LSW_CONFIG_OBJECT(global, "LSW.global", &global)

void
lsw_config_global_defaults(struct lsw_global_conf *g)
{
	memset(g, 0, sizeof(*g));
	lsw_decode_defaults(&global, g);
	g->n_workers = 1;
	g->workers[0] = g->worker_cpu[0] = 1;
}

/* LSW: "global" here, "buffer" in config_buffer.c. */
struct lsw_table {
	json_t *global, *buffer;
};

static const struct lsw_field lsw_rows[] = {
	{.name = "global", .type = LSW_F_OBJECT, LSW_AT(struct lsw_table, global)},
	{.name = "buffer", .type = LSW_F_OBJECT, LSW_AT(struct lsw_table, buffer)},
};
static const struct lsw_fields lsw_table = LSW_FIELDS(lsw_rows);

static void
parse_lsw(json_t *t, struct lsw_config *c, struct lsw_errs *errs)
{
	struct lsw_global_conf *g = &c->g;
	struct lsw_table lt = {NULL};

	if (!lsw_decode(t, "$.LSW", &lsw_table, &lt, c, NULL, errs))
		return;
	if (lt.buffer != NULL)
		lsw_config_buffer_lsw(lt.buffer, &c->qos.buf, errs);
	if (lt.global == NULL || !lsw_decode(lt.global, "$.LSW.global", &global, g, c, NULL, errs))
		return;
	for (unsigned int i = 0; i < g->n_workers; i++)
		if (g->workers[i] == g->main_lcore)
			lsw_errs_add(errs, "$.LSW.global.workers",
				     "lcore %u is the main lcore; workers need their own",
				     g->main_lcore);
}

/* DEVICE_METADATA: "localhost" only. */
static const struct lsw_field device_rows[] = {
	{.name = "localhost", .type = LSW_F_OBJECT},
};
static const struct lsw_fields device_table = LSW_FIELDS(device_rows);

static bool
system_mac(const struct lsw_field *f, json_t *v, const char *path, void *out, void *ctx,
	   struct lsw_errs *errs)
{
	struct lsw_config *c = out;

	RTE_SET_USED(f);
	RTE_SET_USED(ctx);
	c->sys_mac_set = lsw_jv_mac(v, path, &c->sys_mac, errs);
	return c->sys_mac_set;
}

static const struct lsw_field localhost_rows[] = {
	{.name = "hostname", .type = LSW_F_STR, LSW_AT(struct lsw_config, hostname)},
	{.name = "mac", .type = LSW_F_CUSTOM, .fn = system_mac},
	/* Accepted for SONiC files, and only informational. */
	{.name = "hwsku", .type = LSW_F_ANY},
	{.name = "platform", .type = LSW_F_ANY},
	{.name = "type", .type = LSW_F_ANY},
};
static const struct lsw_fields localhost = LSW_FIELDS(localhost_rows);
LSW_CONFIG_OBJECT(localhost, "DEVICE_METADATA.localhost", &localhost)

static void
parse_device_metadata(json_t *t, struct lsw_config *c, struct lsw_errs *errs)
{
	json_t *o;

	if (lsw_decode(t, "$.DEVICE_METADATA", &device_table, NULL, c, NULL, errs) &&
	    (o = json_object_get(t, "localhost")) != NULL)
		lsw_decode(o, "$.DEVICE_METADATA.localhost", &localhost, c, c, NULL, errs);
}

static void
check_resources(struct lsw_config *c, struct lsw_errs *errs)
{
	/* The rings' reserve, and packets for the buffer to hold (the MMU's mbuf limit). */
	uint64_t need = (uint64_t)lsw_config_mbuf_reserve(c) + LSW_MIN_BUFFER_MBUFS;

	if (c->g.mbufs < need)
		lsw_errs_add(errs, "$.LSW.global.mbufs", "%u mbufs are too few for %u ports "
			     "with %u rx and %u tx descriptors and a buffer of %u packets: "
			     "at least %llu", c->g.mbufs, c->n_ports, c->g.rx_desc, c->g.tx_desc,
			     LSW_MIN_BUFFER_MBUFS, (unsigned long long)need);
	/* An EAL memory that cannot hold what lsw allocates at start: refused, not failed at
	 * start. What capture and timeline add later makes them fail, not lsw. */
	else if (c->g.memory_mb != 0 && c->g.memory_mb < lsw_eal_memory_min_mb(c))
		lsw_errs_add(errs, "$.LSW.global.memory_mb", "%u MB is too little for %u ports, "
			     "%u workers and %u mbufs of %u B: at least %u (%u with a capture and "
			     "a timeline; lsw takes that without memory_mb)", c->g.memory_mb,
			     c->n_ports, c->g.n_workers, c->g.mbufs, lsw_mbuf_data_room(c),
			     lsw_eal_memory_min_mb(c), lsw_eal_memory_mb(c, false));
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
			"action", lsw_pfcwd_action_names[LSW_WD_DROP], "detection_time", ms,
			"restoration_time", ms));
	}
}

struct lsw_config *
lsw_config_from_json(json_t *doc, struct lsw_errs *errs)
{
	struct lsw_config *c = calloc(1, sizeof(*c));
	json_t *t;

	errs->n = 0;
	lsw_config_global_defaults(&c->g);
	lsw_config_buffer_defaults(&c->qos.buf);
	snprintf(c->hostname, sizeof(c->hostname), "lsw");
	/* Unknown tables are reported, and the known ones still checked. */
	if (!lsw_decode(doc, "$", &tables, NULL, c, NULL, errs) && !json_is_object(doc))
		goto fail;
	if ((t = json_object_get(doc, "LSW")) != NULL)
		parse_lsw(t, c, errs);
	if ((t = json_object_get(doc, "DEVICE_METADATA")) != NULL)
		parse_device_metadata(t, c, errs);
	lsw_config_ports(doc, c, errs);
	if ((t = json_object_get(doc, "INTERFACE")) != NULL)
		lsw_config_interfaces(t, c, errs);
	/* Routes and neighbors are checked against the interfaces, so only once those hold. */
	if (errs->n == 0 && (t = json_object_get(doc, "STATIC_ROUTE")) != NULL)
		lsw_config_routes(t, c, errs);
	if (errs->n == 0 && (t = json_object_get(doc, "NEIGH")) != NULL)
		lsw_config_neighs(t, c, errs);
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
		if (!c->port[i].mac_set && c->sys_mac_set) {
			c->port[i].mac = c->sys_mac;
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
	free(c->routes6);
	free(c->neighs6);
	free(c->ecmp.grp);
	json_decref(c->doc);
	free(c);
}
