/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Lookups the table decoders share (config.h): a port by name, a key's port and index
 * range, an entry of a named table, a reference's target, the port a subnet is on, the
 * mbufs the PMDs keep. They call no decoder, so that config.c and the config_*.c decoders
 * use them without using each other back (tests/layering.py).
 */
#include <string.h>
#include "config.h"
#include "decode.h"
#include "jsonv.h"
#include "qos.h"

const char *const lsw_admin_status_names[] = {"down", "up", NULL};

int
lsw_config_port_index(const struct lsw_config *c, const char *name)
{
	for (unsigned int i = 0; i < c->n_ports; i++)
		if (strcmp(c->port[i].name, name) == 0)
			return (int)i;
	return -1;
}

bool
lsw_config_split_key(const char *key, char *port, size_t plen, const char **rest)
{
	const char *bar = strchr(key, '|');

	if (bar == NULL || (size_t)(bar - key) >= plen)
		return false;
	memcpy(port, key, (size_t)(bar - key));
	port[bar - key] = '\0';
	*rest = bar + 1;
	return true;
}

bool
lsw_config_port_range(const struct lsw_config *c, const char *key, const char *path,
		      bool ports[], int *lo, int *hi, int max, struct lsw_errs *errs)
{
	char buf[512];
	const char *bar = strrchr(key, '|');

	if (bar == NULL || strlen(key) >= sizeof(buf)) {
		lsw_errs_add(errs, path, "keys are PORT|INDEX or PORT|FIRST-LAST");
		return false;
	}
	snprintf(buf, sizeof(buf), "%.*s", (int)(bar - key), key);
	memset(ports, 0, sizeof(bool) * LSW_MAX_PORTS);
	for (char *tok = strtok(buf, ","); tok != NULL; tok = strtok(NULL, ",")) {
		int pi = lsw_config_port_index(c, tok);
		if (pi < 0) {
			lsw_errs_add(errs, path, "no port named '%s'", tok);
			return false;
		}
		ports[pi] = true;
	}
	char tail;
	int n = sscanf(bar + 1, "%d-%d%c", lo, hi, &tail);
	if (n == 1)
		*hi = *lo;
	if ((n != 1 && n != 2) || *lo < 0 || *hi > max || *lo > *hi ||
	    strspn(bar + 1, "0123456789-") != strlen(bar + 1)) {
		lsw_errs_add(errs, path, "'%s' is not an index or range within 0-%d", bar + 1, max);
		return false;
	}
	return true;
}

int
lsw_config_find(const char *name, const void *arr, size_t n, size_t stride)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp((const char *)arr + i * stride, name) == 0)
			return (int)i;
	return -1;
}

const char *
lsw_config_ref_name(const char *s, const char *table, char *buf, size_t len)
{
	size_t tl = strlen(table);

	if (s[0] == '[' && strncmp(s + 1, table, tl) == 0 && s[1 + tl] == '|' &&
	    s[strlen(s) - 1] == ']') {
		snprintf(buf, len, "%.*s", (int)(strlen(s) - tl - 3), s + 2 + tl);
		return buf;
	}
	return s;
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

int
lsw_config_on_link_port6(const struct lsw_config *c, const uint8_t *ip, bool *own)
{
	*own = false;
	for (unsigned int i = 0; i < c->n_ports; i++)
		for (unsigned int j = 0; j < c->port[i].n_addr6; j++) {
			const struct lsw_addr6 *a = &c->port[i].addr6[j];
			if (lsw_ip6_eq(a->ip, ip))
				*own = true;
			if (lsw_ip6_match(a->ip, ip, a->plen))
				return (int)i;
		}
	return -1;
}

uint32_t
lsw_config_mbuf_reserve(const struct lsw_config *c)
{
	/* Every PMD ring can hold a full set of descriptors, plus bursts in flight. */
	uint64_t r = (uint64_t)c->n_ports * (c->g.rx_desc + c->g.tx_desc) +
		     (uint64_t)c->g.n_workers * LSW_MAX_PORTS * LSW_BURST * 2 + 512;

	return r > UINT32_MAX ? UINT32_MAX : (uint32_t)r;
}

bool
lsw_config_ref(const struct lsw_field *f, json_t *v, const char *path, void *out, void *ctx,
	       struct lsw_errs *errs)
{
	const struct lsw_qos_ref *r = f->arg;
	const char *q = ctx;
	char buf[LSW_QOS_NAME_LEN];
	const char *s;

	if (!lsw_jv_str(v, path, 128, &s, errs))
		return false;
	s = lsw_config_ref_name(s, r->table, buf, sizeof(buf));
	int i = lsw_config_find(s, q + r->entries, *(const uint16_t *)(q + r->count), r->stride);
	if (i < 0) {
		lsw_errs_add(errs, path, "no %s named '%s'", r->table, s);
		return false;
	}
	if (f->size == sizeof(uint16_t))
		*(uint16_t *)((char *)out + f->off) = (uint16_t)i;
	else
		*(int *)((char *)out + f->off) = i;
	return true;
}
