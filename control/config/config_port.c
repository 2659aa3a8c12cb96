/* SPDX-License-Identifier: BSD-3-Clause */
/* PORT and LSW_PORT (each port needs both), and INTERFACE: the ports and their addresses. */
#include <stdio.h>
#include <string.h>
#include <rte_lcore.h>
#include "config.h"
#include "decode.h"
#include "jsonv.h"

#define AT(m) LSW_AT(struct lsw_port_conf, m)
static const struct lsw_field port_rows[] = {
	{.name = "admin_status", .type = LSW_F_ENUM, AT(admin_up),
	 .choices = lsw_admin_status_names, .dflt = true},
	{.name = "mtu", .type = LSW_F_UINT, AT(mtu), .min = LSW_MIN_MTU, .max = LSW_MAX_MTU,
	 .dflt = 9100},
	{.name = "speed", .type = LSW_F_UINT, AT(speed), .min = 1, .max = 800000},
	{.name = "alias", .type = LSW_F_STR, AT(alias)},
	{.name = "description", .type = LSW_F_STR, AT(description)},
};
static const struct lsw_fields port_table = LSW_FIELDS(port_rows);
LSW_CONFIG_OBJECT(port, "PORT", &port_table)

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

static bool
devargs(const struct lsw_field *f, json_t *v, const char *path, void *out, void *ctx,
	struct lsw_errs *errs)
{
	struct lsw_port_conf *pc = out;
	const char *s;

	RTE_SET_USED(f);
	RTE_SET_USED(ctx);
	if (!lsw_jv_str(v, path, LSW_DEVARGS_LEN - 1, &s, errs))
		return false;
	size_t n = strcspn(s, ",");
	pc->is_pci = is_pci_addr(s, n);
	if (!pc->is_pci && (strncmp(s, "net_", 4) != 0 || n <= 4)) {
		lsw_errs_add(errs, path, "'%s' is neither a vdev (net_<driver><n>,...) nor a "
			     "PCI address", s);
		return false;
	}
	snprintf(pc->devargs, sizeof(pc->devargs), "%s", s);
	return true;
}

static bool
port_mac(const struct lsw_field *f, json_t *v, const char *path, void *out, void *ctx,
	 struct lsw_errs *errs)
{
	struct lsw_port_conf *pc = out;

	RTE_SET_USED(f);
	RTE_SET_USED(ctx);
	pc->mac_set = lsw_jv_mac(v, path, &pc->mac, errs);
	return pc->mac_set;
}

/* The owner lcore: one of LSW.global.workers. */
static bool
port_lcore(const struct lsw_field *f, json_t *v, const char *path, void *out, void *ctx,
	   struct lsw_errs *errs)
{
	const struct lsw_config *c = ctx;
	struct lsw_port_conf *pc = out;
	bool found = false;
	uint64_t l = 0;

	RTE_SET_USED(f);
	if (lsw_jv_uint(v, path, 0, RTE_MAX_LCORE - 1, &l, errs)) {
		for (unsigned int i = 0; i < c->g.n_workers; i++)
			found |= c->g.workers[i] == l;
		if (!found)
			lsw_errs_add(errs, path, "lcore %u is not in LSW.global.workers",
				     (unsigned int)l);
	}
	pc->lcore = (int)l;
	return found;
}

static const struct lsw_field lsw_port_rows[] = {
	{.name = "devargs", .type = LSW_F_CUSTOM, .fn = devargs,
	 .required = "the DPDK device, e.g. net_tap0,iface=sw0"},
	{.name = "mac", .type = LSW_F_CUSTOM, .fn = port_mac},
	{.name = "lcore", .type = LSW_F_CUSTOM, AT(lcore), .dflt = -1, .fn = port_lcore},
	{.name = "pfc_quanta", .type = LSW_F_UINT, AT(pfc_quanta), .min = 1, .max = UINT16_MAX,
	 .dflt = UINT16_MAX},
	{.name = "rx_pause", .type = LSW_F_BOOL, AT(rx_pause)},
	{.name = "priority_tagging", .type = LSW_F_BOOL, AT(prio_tag)},
	/* A worker wakes late now and then (a sleep's tail, a preemption): while a queue
	 * waits for tokens the port makes up that much line time at once, so that a flow at
	 * the line rate leaves no standing queue (which ECN would mark). Only towards end
	 * hosts: a switch peer's headroom does not count a burst above the line rate. */
	{.name = "shaper_catchup_us", .type = LSW_F_UINT, AT(catchup_us), .max = 100000},
};
#undef AT
static const struct lsw_fields lsw_port_table = LSW_FIELDS(lsw_port_rows);
LSW_CONFIG_OBJECT(lsw_port, "LSW_PORT", &lsw_port_table)

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

struct ports_ctx {
	struct lsw_config *c;
	json_t *lports;       /* LSW_PORT */
	bool full;            /* LSW_MAX_PORTS reached: the rest is not read */
};

/* PORT.<name>, and its LSW_PORT entry. */
static void
parse_port(const char *name, json_t *o, const char *path, void *ctx, struct lsw_errs *errs)
{
	struct ports_ctx *pctx = ctx;
	struct lsw_config *c = pctx->c;
	char p[LSW_PATH_LEN];

	if (pctx->full)
		return;
	if (!valid_port_name(name)) {
		lsw_errs_add(errs, path, "port names are 1-%d characters of [A-Za-z0-9_.-]",
			     LSW_NAME_LEN - 1);
		return;
	}
	if (c->n_ports == LSW_MAX_PORTS) {
		lsw_errs_add(errs, path, "more than %d ports", LSW_MAX_PORTS);
		pctx->full = true;
		return;
	}
	struct lsw_port_conf *pc = &c->port[c->n_ports++];
	memset(pc, 0, sizeof(*pc));
	lsw_decode_defaults(&port_table, pc);
	lsw_decode_defaults(&lsw_port_table, pc);
	snprintf(pc->name, sizeof(pc->name), "%s", name);
	lsw_decode(o, path, &port_table, pc, c, NULL, errs);
	json_t *lo = pctx->lports ? json_object_get(pctx->lports, name) : NULL;
	if (lo == NULL) {
		lsw_errs_add(errs, path, "no LSW_PORT entry gives this port its devargs");
		return;
	}
	lsw_path_key(p, "$.LSW_PORT", name);
	lsw_decode(lo, p, &lsw_port_table, pc, c, NULL, errs);
}

void
lsw_config_ports(json_t *doc, struct lsw_config *c, struct lsw_errs *errs)
{
	json_t *ports = json_object_get(doc, "PORT"), *lports = json_object_get(doc, "LSW_PORT");
	struct ports_ctx pctx = {.c = c, .lports = lports};
	char p[LSW_PATH_LEN];
	const char *name;
	json_t *o;

	if (ports == NULL) {
		lsw_errs_add(errs, "$.PORT", "required: at least one port");
		return;
	}
	if (lports != NULL && !json_is_object(lports)) {
		lsw_jv_object(lports, "$.LSW_PORT", NULL, errs);
		return;
	}
	lsw_decode_entries(ports, "$.PORT", parse_port, &pctx, errs);
	if (c->n_ports == 0 && errs->n == 0)
		lsw_errs_add(errs, "$.PORT", "required: at least one port");
	if (lports != NULL && json_is_object(ports)) {
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
				lsw_errs_add(errs, p, "devargs already used by %s",
					     c->port[j].name);
			}
}

static bool
prefixes_overlap(uint32_t a, uint8_t alen, uint32_t b, uint8_t blen)
{
	uint32_t m = lsw_prefix_mask(alen < blen ? alen : blen);

	return ((a ^ b) & m) == 0;
}

/* SONiC's scope and family are accepted; the key says it all. */
static const struct lsw_field interface_rows[] = {
	{.name = "scope", .type = LSW_F_ANY},
	{.name = "family", .type = LSW_F_ANY},
};
static const struct lsw_fields interface_table = LSW_FIELDS(interface_rows);
LSW_CONFIG_OBJECT(interface, "INTERFACE", &interface_table)

/* INTERFACE."PORT|IPV6/LEN": a global (or unique local) address; /127 for point-to-point
 * links (RFC 6164). The link-local address comes from the port's MAC, never from here. */
static void
parse_interface6(struct lsw_config *c, int pi, const char *rest, const char *p,
		 struct lsw_errs *errs)
{
	uint8_t ip[16], net[16];
	uint8_t plen;

	if (!lsw_parse_prefix6(rest, ip, &plen) || plen == 0) {
		lsw_errs_add(errs, p, "'%s' is not an IPv6 address/prefix-length (1 to 128)",
			     rest);
		return;
	}
	if (lsw_ip6_is_mc(ip) || lsw_ip6_is_zero(ip) || lsw_ip6_is_loopback(ip)) {
		lsw_errs_add(errs, p, "%s is not a unicast address", rest);
		return;
	}
	if (lsw_ip6_is_ll(ip)) {
		lsw_errs_add(errs, p, "%s is link-local: each port's link-local address comes "
			     "from its MAC (EUI-64)", rest);
		return;
	}
	memcpy(net, ip, sizeof(net));
	lsw_ip6_mask(net, plen);
	/* RFC 4291 2.6.1: the subnet-router anycast address, except on /127 and /128. */
	if (plen < 127 && lsw_ip6_eq(net, ip)) {
		lsw_errs_add(errs, p, "%s is the subnet-router anycast address of its subnet",
			     rest);
		return;
	}
	struct lsw_port_conf *pc = &c->port[pi];
	if (pc->n_addr6 == LSW_MAX_ADDRS6) {
		lsw_errs_add(errs, p, "more than %d IPv6 addresses on %s", LSW_MAX_ADDRS6,
			     pc->name);
		return;
	}
	for (unsigned int i = 0; i < c->n_ports; i++)
		for (unsigned int j = 0; j < c->port[i].n_addr6; j++) {
			const struct lsw_addr6 *a = &c->port[i].addr6[j];
			if (lsw_ip6_match(a->ip, ip, a->plen < plen ? a->plen : plen))
				lsw_errs_add(errs, p, "overlaps %s's subnet", c->port[i].name);
		}
	pc->addr6[pc->n_addr6].plen = plen;
	memcpy(pc->addr6[pc->n_addr6++].ip, ip, sizeof(ip));
}

/* INTERFACE."PORT|ADDRESS/LEN", or a bare "PORT". */
static void
parse_interface(const char *key, json_t *o, const char *p, void *ctx, struct lsw_errs *errs)
{
	struct lsw_config *c = ctx;
	char port[LSW_NAME_LEN];
	const char *rest;

	if (!lsw_decode(o, p, &interface_table, NULL, c, NULL, errs))
		return;
	bool has_addr = lsw_config_split_key(key, port, sizeof(port), &rest);
	int pi = lsw_config_port_index(c, has_addr ? port : key);
	if (pi < 0) {
		lsw_errs_add(errs, p, "no port named '%s'", has_addr ? port : key);
		return;
	}
	if (!has_addr)
		return; /* the bare "Ethernet0" key binds the port as a router interface */
	if (strchr(rest, ':') != NULL) {
		parse_interface6(c, pi, rest, p, errs);
		return;
	}
	uint32_t ip;
	uint8_t plen;
	if (!lsw_parse_prefix(rest, &ip, &plen) || plen == 0) {
		lsw_errs_add(errs, p, "'%s' is not an IPv4 or IPv6 address/prefix-length", rest);
		return;
	}
	uint32_t host = ip & ~lsw_prefix_mask(plen);
	if (plen <= 30 && (host == 0 || host == ~lsw_prefix_mask(plen))) {
		lsw_errs_add(errs, p, "%s is the network or broadcast address of its subnet", rest);
		return;
	}
	uint8_t first = (uint8_t)(ip >> 24);
	if (first == 0 || first == 127 || first >= 224) {
		lsw_errs_add(errs, p, "%s is not a unicast address", rest);
		return;
	}
	struct lsw_port_conf *pc = &c->port[pi];
	if (pc->n_addr == LSW_MAX_ADDRS) {
		lsw_errs_add(errs, p, "more than %d addresses on %s", LSW_MAX_ADDRS, port);
		return;
	}
	for (unsigned int i = 0; i < c->n_ports; i++)
		for (unsigned int j = 0; j < c->port[i].n_addr; j++) {
			const struct lsw_addr *a = &c->port[i].addr[j];
			if (prefixes_overlap(a->ip, a->plen, ip, plen))
				lsw_errs_add(errs, p, "overlaps %s's subnet", c->port[i].name);
		}
	pc->addr[pc->n_addr++] = (struct lsw_addr){.ip = ip, .plen = plen};
}

void
lsw_config_interfaces(json_t *t, struct lsw_config *c, struct lsw_errs *errs)
{
	lsw_decode_entries(t, "$.INTERFACE", parse_interface, c, errs);
}
