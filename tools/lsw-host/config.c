/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lsw-host's configuration: one JSON file (README, "lsw-host"). Every field of a host is a
 * row below: its name, its type and where it goes; "defaults" and each host apply the same
 * rows in turn, so a host's value wins over the defaults and both over the built-in ones.
 * Errors carry the JSON path of the offending value, as lsw's do.
 */
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "jsonv.h"
#include "host_config.h"

#define GBPS 1000000000ull

bool
lsw_host_jv_speed(json_t *v, const char *path, uint64_t *bps, struct lsw_errs *errs)
{
	double x;

	if (json_is_integer(v)) {
		x = (double)json_integer_value(v) * 1e6;
	} else if (json_is_string(v)) {
		const char *s = json_string_value(v);
		char *end;
		errno = 0;
		x = strtod(s, &end);
		if (end == s || errno != 0)
			goto bad;
		if (strcmp(end, "G") == 0 || strcmp(end, "g") == 0)
			x *= 1e9;
		else if (strcmp(end, "M") == 0 || strcmp(end, "m") == 0 || *end == '\0')
			x *= 1e6;
		else if (strcmp(end, "K") == 0 || strcmp(end, "k") == 0)
			x *= 1e3;
		else
			goto bad;
	} else {
		goto bad;
	}
	if (x < 1e6 || x > 800e9) {
		lsw_errs_add(errs, path, "a speed between 1M and 800G");
		return false;
	}
	*bps = (uint64_t)x;
	return true;
bad:
	lsw_errs_add(errs, path, "expected a speed: 10000 (Mb/s), \"25G\", \"100M\"");
	return false;
}

enum ftype { F_U8, F_U16, F_U32, F_U64, F_BOOL, F_SPEED, F_SIZE, F_US, F_MS, F_MAC, F_STR };

struct field {
	const char *name;
	enum ftype type;
	size_t off;
	uint64_t min, max;
};

#define HC(f) offsetof(struct lsw_host_conf, f)
/* The fields of a host (and of "defaults"), but ip, gateway, storm and cc, read apart. */
static const struct field host_fields[] = {
	{"port", F_STR, HC(port), 1, LSW_HOST_MAX_PATH - 1},
	{"mac", F_MAC, HC(mac), 0, 0},
	{"gateway_mac", F_MAC, HC(gw_mac), 0, 0},
	{"speed", F_SPEED, HC(speed_bps), 0, 0},
	{"mtu", F_U32, HC(mtu), 256, 4096},
	{"dscp_data", F_U8, HC(dscp_data), 0, 63},
	{"dscp_ack", F_U8, HC(dscp_ack), 0, 63},
	{"dscp_cnp", F_U8, HC(dscp_cnp), 0, 63},
	{"dscp_unsched", F_U8, HC(dscp_unsched), 0, 63},
	{"unsched_bytes", F_SIZE, HC(unsched_bytes), 0, 1ull << 30},
	{"prio_data", F_U8, HC(prio_data), 0, 7},
	{"prio_ack", F_U8, HC(prio_ack), 0, 7},
	{"prio_cnp", F_U8, HC(prio_cnp), 0, 7},
	{"priority_tagging", F_BOOL, HC(priority_tagging), 0, 0},
	{"verify_icrc", F_BOOL, HC(verify_icrc), 0, 0},
	{"tx_burst_us", F_US, HC(tx_burst_ns), 0, 1000000},
	{"rx_buffer", F_SIZE, HC(rx_buffer), 0, 1ull << 30},
	{"rx_drain", F_SPEED, HC(rx_drain_bps), 0, 0},
	{"rx_xoff", F_SIZE, HC(rx_xoff), 0, 1ull << 30},
	{"rx_xon", F_SIZE, HC(rx_xon), 0, 1ull << 30},
	{"pause_quanta", F_U16, HC(pause_quanta), 1, 65535},
	{"ack_every", F_U32, HC(ack_every), 1, 1u << 20},
	{"rto_us", F_US, HC(rto_ns), 1, 60000000},
	{"retry_cnt", F_U32, HC(retry_cnt), 0, 7},
	{"ttl_one_psn", F_U64, HC(ttl_one_psn), 0, 0xffffff},
};
#define N_HOST_FIELDS (sizeof(host_fields) / sizeof(host_fields[0]))

static bool
read_field(const struct field *f, json_t *v, const char *path, void *base, struct lsw_errs *errs)
{
	uint8_t *p = (uint8_t *)base + f->off;
	uint64_t x;
	const char *s;

	switch (f->type) {
	case F_U8:
	case F_U16:
	case F_U32:
	case F_U64:
		if (!lsw_jv_uint(v, path, f->min, f->max, &x, errs))
			return false;
		if (f->type == F_U8)
			*p = (uint8_t)x;
		else if (f->type == F_U16)
			*(uint16_t *)p = (uint16_t)x;
		else if (f->type == F_U32)
			*(uint32_t *)p = (uint32_t)x;
		else
			*(uint64_t *)p = x;
		return true;
	case F_BOOL:
		return lsw_jv_bool(v, path, (bool *)p, errs);
	case F_SPEED:
		return lsw_host_jv_speed(v, path, (uint64_t *)p, errs);
	case F_SIZE:
		return lsw_jv_size(v, path, f->max, (uint64_t *)p, errs);
	case F_US:
	case F_MS:
		if (!lsw_jv_uint(v, path, f->min, f->max, &x, errs))
			return false;
		*(uint64_t *)p = x * (f->type == F_US ? 1000 : 1000000);
		return true;
	case F_MAC:
		return lsw_jv_mac(v, path, (struct rte_ether_addr *)p, errs);
	case F_STR:
		if (!lsw_jv_str(v, path, f->max, &s, errs))
			return false;
		if (strlen(s) < f->min) {
			lsw_errs_add(errs, path, "must not be empty");
			return false;
		}
		snprintf((char *)p, f->max + 1, "%s", s);
		return true;
	}
	return false;
}

/* The members of @obj that one of @fields names, into @base; true if @name was among them. */
static void
read_fields(json_t *obj, const char *path, const struct field *fields, size_t n, void *base,
	    struct lsw_errs *errs)
{
	for (size_t i = 0; i < n; i++) {
		json_t *v = json_object_get(obj, fields[i].name);
		char p[LSW_PATH_LEN];
		if (v == NULL)
			continue;
		lsw_path_key(p, path, fields[i].name);
		read_field(&fields[i], v, p, base, errs);
	}
}

/* The names a host object may have: its rows and those read apart. */
static const char **
host_names(bool with_identity)
{
	static const char *names[N_HOST_FIELDS + 8];
	size_t n = 0;

	for (size_t i = 0; i < N_HOST_FIELDS; i++)
		if (with_identity || strcmp(host_fields[i].name, "mac") != 0)
			names[n++] = host_fields[i].name;
	if (with_identity) {
		names[n++] = "ip";
		names[n++] = "gateway";
	}
	names[n++] = "storm";
	names[n++] = "trim";
	names[n++] = "cc";
	names[n++] = "timeout";
	names[n] = NULL;
	return names;
}

/* ---- congestion control ------------------------------------------------------------ */

#define DC(f) offsetof(struct lsw_dcqcn_conf, f)
static const struct field cc_fields[] = {
	{"alpha_timer_us", F_US, DC(alpha_timer_ns), 0, 10000000},
	{"rate_timer_us", F_US, DC(rate_timer_ns), 1, 10000000},
	{"byte_counter", F_SIZE, DC(byte_counter), 0, 1ull << 40},
	{"fast_recovery", F_U32, DC(fast_recovery), 0, 1000},
	{"rai", F_SPEED, DC(rai_bps), 0, 0},
	{"rhai", F_SPEED, DC(rhai_bps), 0, 0},
	{"min_rate", F_SPEED, DC(min_rate_bps), 0, 0},
	{"cnp_interval_us", F_US, DC(cnp_interval_ns), 0, 10000000},
	{"rate_reduce_us", F_US, DC(rate_reduce_ns), 0, 10000000},
	{"min_dec_fac", F_U32, DC(min_dec_fac), 0, 100},
	{"clamp_tgt_rate", F_BOOL, DC(clamp_tgt_rate), 0, 0},
	{"rate_on_first_cnp", F_SPEED, DC(rate_on_first_cnp_bps), 0, 0},
};
#define N_CC_FIELDS (sizeof(cc_fields) / sizeof(cc_fields[0]))

/* A gain (g, initial_alpha): a number in [0, 1], or a fraction "1/256". */
static bool
read_fraction(json_t *v, const char *path, double *out, struct lsw_errs *errs)
{
	double x = -1;

	if (json_is_number(v)) {
		x = json_number_value(v);
	} else if (json_is_string(v)) {
		double a, b;
		char c;
		if (sscanf(json_string_value(v), "%lf/%lf%c", &a, &b, &c) == 2 && b > 0)
			x = a / b;
	}
	if (!(x >= 0 && x <= 1)) {
		lsw_errs_add(errs, path, "expected a number between 0 and 1, or \"1/256\"");
		return false;
	}
	*out = x;
	return true;
}

static void
read_cc(json_t *defaults, json_t *mine, const char *dpath, const char *mpath,
	struct lsw_host_conf *c, struct lsw_errs *errs)
{
	json_t *objs[2] = {defaults, mine};
	const char *paths[2] = {dpath, mpath};
	unsigned int algo = LSW_CC_DCQCN, profile = LSW_DCQCN_MLX;
	uint64_t model = 0;
	static const char *names[N_CC_FIELDS + 6];

	if (names[0] == NULL) {
		size_t n = 0;
		for (size_t i = 0; i < N_CC_FIELDS; i++)
			names[n++] = cc_fields[i].name;
		names[n++] = "algorithm";
		names[n++] = "profile";
		names[n++] = "model_speed";
		names[n++] = "g";
		names[n++] = "initial_alpha";
		names[n] = NULL;
	}
	/* First what decides the base (the host's choice wins), then the overrides. */
	for (int k = 0; k < 2; k++) {
		char p[LSW_PATH_LEN];
		json_t *v;
		if (objs[k] == NULL || !lsw_jv_object(objs[k], paths[k], names, errs))
			continue;
		if ((v = json_object_get(objs[k], "algorithm")) != NULL) {
			lsw_path_key(p, paths[k], "algorithm");
			lsw_jv_enum(v, p, lsw_cc_algo_names, &algo, errs);
		}
		if ((v = json_object_get(objs[k], "profile")) != NULL) {
			lsw_path_key(p, paths[k], "profile");
			lsw_jv_enum(v, p, lsw_dcqcn_profile_names, &profile, errs);
		}
		if ((v = json_object_get(objs[k], "model_speed")) != NULL) {
			lsw_path_key(p, paths[k], "model_speed");
			lsw_host_jv_speed(v, p, &model, errs);
		}
	}
	c->cc = algo;
	lsw_dcqcn_profile(profile, model ? model : c->speed_bps, &c->dcqcn);
	if (model)
		lsw_dcqcn_scale(&c->dcqcn, (double)model / (double)c->speed_bps);
	for (int k = 0; k < 2; k++) {
		char p[LSW_PATH_LEN];
		json_t *v;
		if (objs[k] == NULL || !json_is_object(objs[k]))
			continue;
		read_fields(objs[k], paths[k], cc_fields, N_CC_FIELDS, &c->dcqcn, errs);
		if ((v = json_object_get(objs[k], "g")) != NULL) {
			lsw_path_key(p, paths[k], "g");
			read_fraction(v, p, &c->dcqcn.g, errs);
		}
		if ((v = json_object_get(objs[k], "initial_alpha")) != NULL) {
			lsw_path_key(p, paths[k], "initial_alpha");
			read_fraction(v, p, &c->dcqcn.initial_alpha, errs);
		}
	}
}

/* ---- hosts ------------------------------------------------------------------------- */

static void
host_defaults(struct lsw_host_conf *c, uint16_t idx)
{
	memset(c, 0, sizeof(*c));
	/* A locally administered MAC from the host's place in the file. */
	c->mac = (struct rte_ether_addr){{0x02, 0x00, 0x00, 0x00, (uint8_t)(idx + 1), 0x01}};
	c->speed_bps = 10 * GBPS;
	c->mtu = 1024;
	/* Data and ACKs in SONiC's AZURE lossless class 3; CNPs as NVIDIA marks them. */
	c->dscp_data = c->dscp_ack = 3;
	c->prio_data = c->prio_ack = 3;
	c->dscp_cnp = 48;
	c->prio_cnp = 6;
	c->verify_icrc = true;
	c->tx_burst_ns = 50000;
	c->pause_quanta = 0xffff;
	c->storm_prio = -1;
	c->storm_quanta = 0xffff;
	c->ack_every = 16;
	c->rto_ns = 4096ull << 14; /* timeout 14: 67 ms, a common setting */
	c->retry_cnt = 7;
	c->ttl_one_psn = -1;
	c->dscp_trimmable = 0xff; /* data not marked trimmable */
	c->dscp_rtx = 0xff;       /* resent packets as the data */
	c->dscp_unsched = 0xff;   /* no packet tagged unscheduled */
}

static void
read_storm(json_t *v, const char *path, struct lsw_host_conf *c, struct lsw_errs *errs)
{
	static const char *const names[] = {"priority", "start_ms", "duration_ms", "quanta", NULL};
	static const struct field f[] = {
		{"start_ms", F_MS, HC(storm_start_ns), 0, 3600000},
		{"duration_ms", F_MS, HC(storm_ns), 0, 3600000},
		{"quanta", F_U16, HC(storm_quanta), 1, 65535},
	};
	json_t *p = json_object_get(v, "priority");
	char pp[LSW_PATH_LEN];
	uint64_t prio;

	if (!lsw_jv_object(v, path, names, errs))
		return;
	lsw_path_key(pp, path, "priority");
	if (p == NULL)
		lsw_errs_add(errs, pp, "a storm needs the priority it keeps paused");
	else if (lsw_jv_uint(p, pp, 0, 7, &prio, errs))
		c->storm_prio = (int)prio;
	read_fields(v, path, f, sizeof(f) / sizeof(f[0]), c, errs);
}

/* A DSCP or a list of them, as a bit mask. */
static bool
read_dscps(json_t *v, const char *path, uint64_t *mask, struct lsw_errs *errs)
{
	char p[LSW_PATH_LEN];
	uint64_t x;
	json_t *e;
	size_t i;

	*mask = 0;
	if (!json_is_array(v)) {
		if (!lsw_jv_uint(v, path, 0, 63, &x, errs))
			return false;
		*mask = 1ull << x;
		return true;
	}
	json_array_foreach(v, i, e) {
		lsw_path_index(p, path, i);
		if (!lsw_jv_uint(e, p, 0, 63, &x, errs))
			return false;
		*mask |= 1ull << x;
	}
	return true;
}

/* "trim": data marked trimmable (trimmable_dscp), and a trim-aware receiver and sender
 * (aware; trimmed_dscp, last_hop_dscp: the DSCPs the switch gives trims). trim.h. */
static void
read_trim(json_t *v, const char *path, struct lsw_host_conf *c, struct lsw_errs *errs)
{
	static const char *const names[] = {"trimmable_dscp", "aware", "trimmed_dscp",
					    "last_hop_dscp", "rtx_dscp", NULL};
	char p[LSW_PATH_LEN];
	unsigned int before = errs->n;
	uint64_t x;
	json_t *f;

	if (!lsw_jv_object(v, path, names, errs))
		return;
	lsw_path_key(p, path, "trimmable_dscp");
	if ((f = json_object_get(v, "trimmable_dscp")) != NULL && lsw_jv_uint(f, p, 0, 63, &x,
									     errs))
		c->dscp_trimmable = (uint8_t)x;
	lsw_path_key(p, path, "rtx_dscp");
	if ((f = json_object_get(v, "rtx_dscp")) != NULL && lsw_jv_uint(f, p, 0, 63, &x, errs))
		c->dscp_rtx = (uint8_t)x;
	lsw_path_key(p, path, "trimmed_dscp");
	if ((f = json_object_get(v, "trimmed_dscp")) != NULL)
		read_dscps(f, p, &c->dscp_trimmed, errs);
	lsw_path_key(p, path, "last_hop_dscp");
	if ((f = json_object_get(v, "last_hop_dscp")) != NULL)
		read_dscps(f, p, &c->dscp_trimmed_last_hop, errs);
	/* Aware as soon as it knows a trim DSCP, unless told it is a stock receiver. */
	c->trim_aware = (c->dscp_trimmed | c->dscp_trimmed_last_hop) != 0;
	lsw_path_key(p, path, "aware");
	if ((f = json_object_get(v, "aware")) != NULL)
		lsw_jv_bool(f, p, &c->trim_aware, errs);
	if (errs->n != before)
		return;
	if (c->trim_aware && (c->dscp_trimmed | c->dscp_trimmed_last_hop) == 0)
		lsw_errs_add(errs, path, "a trim-aware host knows trims by their DSCP: give "
			     "trimmed_dscp or last_hop_dscp");
	else if (c->dscp_trimmable < 64 &&
		 ((c->dscp_trimmed | c->dscp_trimmed_last_hop) >> c->dscp_trimmable & 1)) {
		lsw_path_key(p, path, "trimmable_dscp");
		lsw_errs_add(errs, p, "DSCP %u marks data trimmable: it cannot also mark trims",
			     c->dscp_trimmable);
	} else if (c->dscp_rtx < 64 &&
		   ((c->dscp_trimmed | c->dscp_trimmed_last_hop) >> c->dscp_rtx & 1)) {
		lsw_path_key(p, path, "rtx_dscp");
		lsw_errs_add(errs, p, "DSCP %u marks resent packets: it cannot also mark trims",
			     c->dscp_rtx);
	}
}

static void
read_host(json_t *v, const char *path, struct lsw_host_conf *c, struct lsw_errs *errs)
{
	json_t *x;
	char p[LSW_PATH_LEN];
	uint64_t t;

	read_fields(v, path, host_fields, N_HOST_FIELDS, c, errs);
	if ((x = json_object_get(v, "timeout")) != NULL) {
		lsw_path_key(p, path, "timeout");
		if (lsw_jv_uint(x, p, 1, 31, &t, errs))
			c->rto_ns = 4096ull << t; /* 4.096 us x 2^timeout, as ibv_modify_qp */
	}
	if ((x = json_object_get(v, "storm")) != NULL) {
		lsw_path_key(p, path, "storm");
		read_storm(x, p, c, errs);
	}
	if ((x = json_object_get(v, "trim")) != NULL) {
		lsw_path_key(p, path, "trim");
		read_trim(x, p, c, errs);
	}
}

static bool
mtu_ok(uint32_t mtu)
{
	return mtu == 256 || mtu == 512 || mtu == 1024 || mtu == 2048 || mtu == 4096;
}

/* Whether @name is in the comma-separated @list. */
static bool
listed(const char *list, const char *name)
{
	size_t n = strlen(name);

	for (const char *p = list; p != NULL && *p; p = strchr(p, ',') ? strchr(p, ',') + 1 : NULL)
		if (strncmp(p, name, n) == 0 && (p[n] == ',' || p[n] == '\0'))
			return true;
	return false;
}

static void
read_hosts(json_t *doc, const char *only, struct lsw_hosts *e, struct lsw_errs *errs)
{
	json_t *hosts = json_object_get(doc, "hosts"), *defs = json_object_get(doc, "defaults");
	const char *name;
	json_t *v;

	if (defs != NULL)
		lsw_jv_object(defs, "$.defaults", host_names(false), errs);
	if (!json_is_object(hosts) || json_object_size(hosts) == 0) {
		lsw_errs_add(errs, "$.hosts", "expected an object of hosts by name");
		return;
	}
	if (json_object_size(hosts) > LSW_HOST_MAX) {
		lsw_errs_add(errs, "$.hosts", "at most %d hosts", LSW_HOST_MAX);
		return;
	}
	json_object_foreach(hosts, name, v) {
		struct lsw_host *h = &e->host[e->n_hosts];
		struct lsw_host_conf *c = &h->c;
		char path[LSW_PATH_LEN], p[LSW_PATH_LEN], dp[LSW_PATH_LEN];
		json_t *x;

		lsw_path_key(path, "$.hosts", name);
		host_defaults(c, e->n_hosts);
		h->idx = e->n_hosts++;
		snprintf(c->name, sizeof(c->name), "%s", name);
		if (strlen(name) >= sizeof(c->name) || strchr(name, ',') != NULL)
			lsw_errs_add(errs, path,
				     "a host name has at most %zu characters and no comma",
				     sizeof(c->name) - 1);
		if (!lsw_jv_object(v, path, host_names(true), errs))
			continue;
		if (defs != NULL && json_is_object(defs))
			read_host(defs, "$.defaults", c, errs);
		read_host(v, path, c, errs);
		c->gw_mac_static = json_object_get(v, "gateway_mac") != NULL ||
				   (defs && json_object_get(defs, "gateway_mac") != NULL);
		/* The ACK class follows the data class unless it is given. */
		if (!json_object_get(v, "dscp_ack") && !(defs && json_object_get(defs, "dscp_ack")))
			c->dscp_ack = c->dscp_data;
		if (!json_object_get(v, "prio_ack") && !(defs && json_object_get(defs, "prio_ack")))
			c->prio_ack = c->prio_data;
		lsw_path_key(dp, "$.defaults", "cc");
		lsw_path_key(p, path, "cc");
		read_cc(defs ? json_object_get(defs, "cc") : NULL, json_object_get(v, "cc"), dp, p,
			c, errs);

		lsw_path_key(p, path, "ip");
		x = json_object_get(v, "ip");
		if (x == NULL || !json_is_string(x) ||
		    !lsw_parse_prefix(json_string_value(x), &c->ip, &c->plen))
			lsw_errs_add(errs, p, "expected the host's address with its length, "
				     "\"10.0.1.2/24\"");
		lsw_path_key(p, path, "gateway");
		x = json_object_get(v, "gateway");
		if (x == NULL || !json_is_string(x) ||
		    !lsw_parse_ipv4(json_string_value(x), &c->gw))
			lsw_errs_add(errs, p, "expected the next hop's address (the switch port's, "
				     "or the peer's on a direct link), \"10.0.1.1\"");
		lsw_path_key(p, path, "mtu");
		if (!mtu_ok(c->mtu))
			lsw_errs_add(errs, p, "a RoCE path MTU: 256, 512, 1024, 2048 or 4096");
		lsw_path_key(p, path, "rx_xon");
		if (c->rx_buffer && (c->rx_xoff == 0 || c->rx_xoff > c->rx_buffer ||
				     c->rx_xon > c->rx_xoff || c->rx_drain_bps == 0))
			lsw_errs_add(errs, p, "a receive buffer needs rx_drain and "
				     "rx_xon <= rx_xoff <= rx_buffer");
		h->local = only == NULL || listed(only, name);
		if (h->local && c->port[0] == '\0') {
			lsw_path_key(p, path, "port");
			lsw_errs_add(errs, p, "a host run here needs a port (DPDK devargs)");
		}
		for (uint16_t i = 0; i + 1 < e->n_hosts; i++) {
			if (e->host[i].c.ip == c->ip) {
				lsw_path_key(p, path, "ip");
				lsw_errs_add(errs, p, "the same address as host %s",
					     e->host[i].c.name);
			}
			if (h->local && e->host[i].local &&
			    strcmp(e->host[i].c.port, c->port) == 0) {
				lsw_path_key(p, path, "port");
				lsw_errs_add(errs, p, "the same port as host %s",
					     e->host[i].c.name);
			}
		}
	}
	if (only != NULL) {
		for (const char *s = only; s && *s;
		     s = strchr(s, ',') ? strchr(s, ',') + 1 : NULL) {
			size_t n = strcspn(s, ",");
			bool found = false;
			for (uint16_t i = 0; i < e->n_hosts; i++)
				found |= strlen(e->host[i].c.name) == n &&
					 strncmp(e->host[i].c.name, s, n) == 0;
			if (!found)
				lsw_errs_add(errs, "--hosts", "no host named '%.*s'", (int)n, s);
		}
	}
}

static const char *const top_names[] = {
	"hosts", "defaults", "workload", "results", "duration_ms", "linger_ms", "idle_sleep_us",
	"cpu", "seed", "mbufs", "sample_us", "base_rtt_us", "flow_sizes_dir", "settle_ms", NULL};

int
lsw_host_config_load(const char *path, const char *only, struct lsw_hosts *e,
		     struct lsw_host_run *run, struct lsw_errs *errs)
{
	json_error_t jerr;
	json_t *doc = json_load_file(path, JSON_REJECT_DUPLICATES, &jerr);
	const char *s;
	json_t *v;
	uint64_t x;
	char cdf_dir[LSW_HOST_MAX_PATH] = "";

	memset(run, 0, sizeof(*run));
	run->idle_sleep_ns = 100000;
	run->linger_ns = 100000000;
	run->seed = 1;
	run->mbufs = 8192;
	run->cpu = 0;
	if (doc == NULL) {
		lsw_errs_add(errs, "$", "%s: %s (line %d)", path, jerr.text, jerr.line);
		return -1;
	}
	if (!lsw_jv_object(doc, "$", top_names, errs)) {
		json_decref(doc);
		return -1;
	}
	read_hosts(doc, only, e, errs);
	if ((v = json_object_get(doc, "results")) != NULL &&
	    lsw_jv_str(v, "$.results", LSW_HOST_MAX_PATH - 1, &s, errs))
		snprintf(run->results, sizeof(run->results), "%s", s);
	if ((v = json_object_get(doc, "flow_sizes_dir")) != NULL &&
	    lsw_jv_str(v, "$.flow_sizes_dir", LSW_HOST_MAX_PATH - 1, &s, errs))
		snprintf(cdf_dir, sizeof(cdf_dir), "%s", s);
	if ((v = json_object_get(doc, "duration_ms")) != NULL &&
	    lsw_jv_uint(v, "$.duration_ms", 0, 86400000, &x, errs))
		run->duration_ns = x * 1000000;
	if ((v = json_object_get(doc, "linger_ms")) != NULL &&
	    lsw_jv_uint(v, "$.linger_ms", 0, 60000, &x, errs))
		run->linger_ns = x * 1000000;
	if ((v = json_object_get(doc, "idle_sleep_us")) != NULL &&
	    lsw_jv_uint(v, "$.idle_sleep_us", 0, 100000, &x, errs))
		run->idle_sleep_ns = x * 1000;
	if ((v = json_object_get(doc, "cpu")) != NULL &&
	    lsw_jv_uint(v, "$.cpu", 0, 1023, &x, errs))
		run->cpu = (unsigned int)x;
	if ((v = json_object_get(doc, "seed")) != NULL)
		lsw_jv_uint(v, "$.seed", 0, UINT32_MAX, &run->seed, errs);
	if ((v = json_object_get(doc, "mbufs")) != NULL &&
	    lsw_jv_uint(v, "$.mbufs", 1024, 1u << 20, &x, errs))
		run->mbufs = (uint32_t)x;
	if ((v = json_object_get(doc, "sample_us")) != NULL &&
	    lsw_jv_uint(v, "$.sample_us", 0, 10000000, &x, errs))
		e->sample_ns = x * 1000;
	e->settle_ns = 10 * 1000000ull;
	if ((v = json_object_get(doc, "settle_ms")) != NULL &&
	    lsw_jv_uint(v, "$.settle_ms", 0, 60000, &x, errs))
		e->settle_ns = x * 1000000;
	if ((v = json_object_get(doc, "base_rtt_us")) != NULL &&
	    lsw_jv_uint(v, "$.base_rtt_us", 0, 10000000, &x, errs))
		e->base_rtt_ns = x * 1000;
	/* The flow-size CDFs ship with lsw: in the source tree, or where meson installs them. */
	if (cdf_dir[0] == '\0')
		snprintf(cdf_dir, sizeof(cdf_dir), "%s",
			 access(LSW_FLOW_SIZES_SRC, R_OK) == 0 ? LSW_FLOW_SIZES_SRC :
								 LSW_FLOW_SIZES_DATA);
	if (errs->n == 0) {
		v = json_object_get(doc, "workload");
		if (v == NULL)
			lsw_errs_add(errs, "$.workload", "expected a list of flows and patterns");
		else
			lsw_host_workload(v, "$.workload", e, run, cdf_dir, errs);
	}
	json_decref(doc);
	return errs->n == 0 ? 0 : -1;
}
