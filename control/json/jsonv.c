/* SPDX-License-Identifier: BSD-3-Clause */
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <strings.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>
#include "jsonv.h"

void
lsw_errs_add(struct lsw_errs *errs, const char *path, const char *fmt, ...)
{
	va_list ap;

	if (errs->n < LSW_ERRS_MAX) {
		struct lsw_err *e = &errs->e[errs->n];
		snprintf(e->path, sizeof(e->path), "%s", path);
		va_start(ap, fmt);
		vsnprintf(e->msg, sizeof(e->msg), fmt, ap);
		va_end(ap);
	}
	errs->n++;
}

json_t *
lsw_jv_text(const char *s)
{
	size_t n = strlen(s);
	json_t *v = json_stringn(s, n);

	/* Cut short by a bounded snprintf: drop the incomplete sequence at the end. */
	for (size_t k = 1; v == NULL && k <= 3 && k <= n; k++)
		v = json_stringn(s, n - k);
	if (v == NULL) {
		char *c = strdup(s);
		for (char *p = c; p != NULL && *p != '\0'; p++)
			if ((unsigned char)*p >= 0x80)
				*p = '?';
		v = c != NULL ? json_string(c) : NULL;
		free(c);
	}
	return v;
}

json_t *
lsw_errs_to_json(const struct lsw_errs *errs)
{
	json_t *a = json_array();

	for (unsigned int i = 0; i < errs->n && i < LSW_ERRS_MAX; i++)
		json_array_append_new(a, json_pack("{s:o, s:o}", "path",
						   lsw_jv_text(errs->e[i].path), "message",
						   lsw_jv_text(errs->e[i].msg)));
	return a;
}

static bool
is_ident(const char *k)
{
	if (*k == '\0' || isdigit((unsigned char)*k))
		return false;
	for (; *k; k++)
		if (!isalnum((unsigned char)*k) && *k != '_')
			return false;
	return true;
}

void
lsw_path_key(char *out, const char *parent, const char *key)
{
	if (is_ident(key))
		snprintf(out, LSW_PATH_LEN, "%s.%s", parent, key);
	else
		snprintf(out, LSW_PATH_LEN, "%s['%s']", parent, key);
}

void
lsw_path_index(char *out, const char *parent, size_t idx)
{
	snprintf(out, LSW_PATH_LEN, "%s[%zu]", parent, idx);
}

static const char *
type_name(const json_t *v)
{
	switch (json_typeof(v)) {
	case JSON_OBJECT: return "an object";
	case JSON_ARRAY: return "an array";
	case JSON_STRING: return "a string";
	case JSON_INTEGER: return "an integer";
	case JSON_REAL: return "a real number";
	case JSON_TRUE: case JSON_FALSE: return "a boolean";
	default: return "null";
	}
}

bool
lsw_jv_object(json_t *v, const char *path, const char *const *allowed, struct lsw_errs *errs)
{
	const char *k;
	json_t *x;
	bool ok = true;

	if (!json_is_object(v)) {
		lsw_errs_add(errs, path, "expected an object, got %s", type_name(v));
		return false;
	}
	if (allowed == NULL) /* any member */
		return true;
	json_object_foreach(v, k, x) {
		const char *const *a;
		for (a = allowed; *a != NULL; a++)
			if (strcmp(*a, k) == 0)
				break;
		if (*a == NULL) {
			char p[LSW_PATH_LEN], known[160] = "";
			for (a = allowed; *a != NULL; a++)
				snprintf(known + strlen(known), sizeof(known) - strlen(known),
					 "%s%s", a == allowed ? "" : ", ", *a);
			lsw_path_key(p, path, k);
			lsw_errs_add(errs, p, "unknown %s (known: %s)",
				     strcmp(path, "$") == 0 ? "table" : "field", known);
			ok = false;
		}
	}
	return ok;
}

bool
lsw_jv_int(json_t *v, const char *path, int64_t min, int64_t max, int64_t *out,
	   struct lsw_errs *errs)
{
	long long x;

	if (json_is_integer(v)) {
		x = json_integer_value(v);
	} else if (json_is_string(v)) {
		const char *s = json_string_value(v);
		char *end;
		errno = 0;
		x = strtoll(s, &end, 10);
		if (*s == '\0' || isspace((unsigned char)*s) || *end != '\0' || errno != 0) {
			lsw_errs_add(errs, path, "'%s' is not an integer", s);
			return false;
		}
	} else {
		lsw_errs_add(errs, path, "expected an integer, got %s", type_name(v));
		return false;
	}
	if (x < min || x > max) {
		lsw_errs_add(errs, path, "%lld is out of range [%lld, %lld]", x, (long long)min,
			     (long long)max);
		return false;
	}
	*out = x;
	return true;
}

bool
lsw_jv_uint(json_t *v, const char *path, uint64_t min, uint64_t max, uint64_t *out,
	    struct lsw_errs *errs)
{
	int64_t x;

	/* Every limit the config uses fits in int64. */
	if (!lsw_jv_int(v, path, (int64_t)min, max > INT64_MAX ? INT64_MAX : (int64_t)max, &x,
			errs))
		return false;
	*out = (uint64_t)x;
	return true;
}

bool
lsw_jv_str(json_t *v, const char *path, size_t maxlen, const char **out, struct lsw_errs *errs)
{
	if (!json_is_string(v)) {
		lsw_errs_add(errs, path, "expected a string, got %s", type_name(v));
		return false;
	}
	if (json_string_length(v) > maxlen ||
	    strlen(json_string_value(v)) != json_string_length(v)) {
		lsw_errs_add(errs, path, "string longer than %zu bytes or with NUL", maxlen);
		return false;
	}
	*out = json_string_value(v);
	return true;
}

bool
lsw_jv_bool(json_t *v, const char *path, bool *out, struct lsw_errs *errs)
{
	if (json_is_boolean(v)) {
		*out = json_is_true(v);
		return true;
	}
	if (json_is_string(v) && strcmp(json_string_value(v), "true") == 0) {
		*out = true;
		return true;
	}
	if (json_is_string(v) && strcmp(json_string_value(v), "false") == 0) {
		*out = false;
		return true;
	}
	lsw_errs_add(errs, path, "expected true or false");
	return false;
}

bool
lsw_jv_enum(json_t *v, const char *path, const char *const *choices, unsigned int *out,
	    struct lsw_errs *errs)
{
	return lsw_jv_enum_n(v, path, choices, SIZE_MAX, out, errs);
}

bool
lsw_jv_enum_n(json_t *v, const char *path, const char *const *choices, size_t n,
	      unsigned int *out, struct lsw_errs *errs)
{
	char list[160] = "";
	const char *s;

	if (!lsw_jv_str(v, path, 64, &s, errs))
		return false;
	for (unsigned int i = 0; i < n && choices[i] != NULL; i++) {
		if (strcmp(choices[i], s) == 0) {
			*out = i;
			return true;
		}
		snprintf(list + strlen(list), sizeof(list) - strlen(list), "%s%s", i ? ", " : "",
			 choices[i]);
	}
	lsw_errs_add(errs, path, "'%s' is not one of: %s", s, list);
	return false;
}

bool
lsw_parse_mac(const char *s, struct rte_ether_addr *mac)
{
	unsigned int b[6];
	char tail;

	if (strlen(s) != 17 || sscanf(s, "%2x:%2x:%2x:%2x:%2x:%2x%c", &b[0], &b[1], &b[2], &b[3],
				      &b[4], &b[5], &tail) != 6)
		return false;
	for (int i = 0; i < 6; i++) {
		if (!isxdigit((unsigned char)s[i * 3]) || !isxdigit((unsigned char)s[i * 3 + 1]))
			return false;
		mac->addr_bytes[i] = (uint8_t)b[i];
	}
	return true;
}

bool
lsw_jv_mac(json_t *v, const char *path, struct rte_ether_addr *out, struct lsw_errs *errs)
{
	const char *s;

	if (!lsw_jv_str(v, path, 32, &s, errs))
		return false;
	if (!lsw_parse_mac(s, out)) {
		lsw_errs_add(errs, path, "'%s' is not a MAC address (xx:xx:xx:xx:xx:xx)", s);
		return false;
	}
	if (!rte_is_valid_assigned_ether_addr(out)) {
		lsw_errs_add(errs, path, "'%s' is not a unicast, non-zero MAC address", s);
		return false;
	}
	return true;
}

bool
lsw_parse_ipv4(const char *s, uint32_t *ip)
{
	struct in_addr a;

	/* inet_pton takes only the dotted-quad form, without leading zeros or shorthand. */
	if (inet_pton(AF_INET, s, &a) != 1)
		return false;
	*ip = ntohl(a.s_addr);
	return true;
}

bool
lsw_parse_prefix(const char *s, uint32_t *ip, uint8_t *plen)
{
	char buf[32];
	const char *slash = strchr(s, '/');
	char *end;

	if (slash == NULL || (size_t)(slash - s) >= sizeof(buf))
		return false;
	memcpy(buf, s, (size_t)(slash - s));
	buf[slash - s] = '\0';
	if (!lsw_parse_ipv4(buf, ip) || !isdigit((unsigned char)slash[1]))
		return false;
	long l = strtol(slash + 1, &end, 10);
	if (*end != '\0' || l < 0 || l > 32 || (slash[1] == '0' && slash[2] != '\0'))
		return false;
	*plen = (uint8_t)l;
	return true;
}

bool
lsw_parse_ipv6(const char *s, uint8_t *ip)
{
	/* inet_pton refuses zone ids ("%eth0") and prefixes: what a config must not hold. */
	return inet_pton(AF_INET6, s, ip) == 1;
}

bool
lsw_parse_prefix6(const char *s, uint8_t *ip, uint8_t *plen)
{
	char buf[INET6_ADDRSTRLEN];
	const char *slash = strchr(s, '/');
	char *end;

	if (slash == NULL || (size_t)(slash - s) >= sizeof(buf))
		return false;
	memcpy(buf, s, (size_t)(slash - s));
	buf[slash - s] = '\0';
	if (!lsw_parse_ipv6(buf, ip) || !isdigit((unsigned char)slash[1]))
		return false;
	long l = strtol(slash + 1, &end, 10);
	if (*end != '\0' || l < 0 || l > 128 || (slash[1] == '0' && slash[2] != '\0'))
		return false;
	*plen = (uint8_t)l;
	return true;
}

void
lsw_fmt_ipv6(char *buf, size_t len, const uint8_t *ip)
{
	if (inet_ntop(AF_INET6, ip, buf, (socklen_t)len) == NULL && len > 0)
		buf[0] = '\0';
}

void
lsw_fmt_prefix6(char *buf, size_t len, const uint8_t *ip, uint8_t plen)
{
	char a[INET6_ADDRSTRLEN];

	lsw_fmt_ipv6(a, sizeof(a), ip);
	snprintf(buf, len, "%s/%u", a, plen);
}

void
lsw_fmt_ipv4(char *buf, size_t len, uint32_t ip)
{
	snprintf(buf, len, "%u.%u.%u.%u", ip >> 24, (ip >> 16) & 0xff, (ip >> 8) & 0xff, ip & 0xff);
}

void
lsw_fmt_prefix(char *buf, size_t len, uint32_t ip, uint8_t plen)
{
	snprintf(buf, len, "%u.%u.%u.%u/%u", ip >> 24, (ip >> 16) & 0xff, (ip >> 8) & 0xff,
		 ip & 0xff, plen);
}

void
lsw_fmt_mac(char *buf, size_t len, const struct rte_ether_addr *m)
{
	const uint8_t *b = m->addr_bytes;

	snprintf(buf, len, "%02x:%02x:%02x:%02x:%02x:%02x", b[0], b[1], b[2], b[3], b[4], b[5]);
}

static uint64_t
unit_of(const char *u)
{
	static const struct {
		const char *name;
		uint64_t mult;
	} units[] = {
		{"", 1}, {"b", 1}, {"k", 1ull << 10}, {"kb", 1ull << 10}, {"kib", 1ull << 10},
		{"m", 1ull << 20}, {"mb", 1ull << 20}, {"mib", 1ull << 20},
		{"g", 1ull << 30}, {"gb", 1ull << 30}, {"gib", 1ull << 30},
	};

	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++)
		if (strcasecmp(u, units[i].name) == 0)
			return units[i].mult;
	return 0;
}

bool
lsw_parse_size(const char *s, uint64_t *bytes)
{
	char *end;

	if (!isdigit((unsigned char)*s))
		return false;
	errno = 0;
	double v = strtod(s, &end);
	uint64_t mult = unit_of(end);
	if (errno != 0 || mult == 0 || v < 0 || v * (double)mult > (double)(1ull << 50))
		return false;
	double b = v * (double)mult;
	if (b != (double)(uint64_t)b) /* "1.3B" is not a whole number of bytes */
		return false;
	*bytes = (uint64_t)b;
	return true;
}

bool
lsw_parse_length(const char *s, uint32_t *metres)
{
	char *end;

	if (!isdigit((unsigned char)*s))
		return false;
	errno = 0;
	double v = strtod(s, &end);
	if (strcmp(end, "km") == 0)
		v *= 1000;
	else if (*end != '\0' && strcmp(end, "m") != 0)
		return false;
	if (errno != 0 || v > 1e6 || v != (double)(uint32_t)v)
		return false;
	*metres = (uint32_t)v;
	return true;
}

bool
lsw_jv_size(json_t *v, const char *path, uint64_t max, uint64_t *out, struct lsw_errs *errs)
{
	uint64_t b;

	if (json_is_integer(v) && json_integer_value(v) >= 0) {
		b = (uint64_t)json_integer_value(v);
	} else if (json_is_string(v) && lsw_parse_size(json_string_value(v), &b)) {
		;
	} else {
		lsw_errs_add(errs, path, "expected a size in bytes: 14680064, \"14680064\", "
			     "\"512KB\" or \"14MB\" (K = 1024, M = 2^20)");
		return false;
	}
	if (b > max) {
		lsw_errs_add(errs, path, "%llu bytes is more than %llu", (unsigned long long)b,
			     (unsigned long long)max);
		return false;
	}
	*out = b;
	return true;
}

void
lsw_jv_get_u32(json_t *obj, const char *path, const char *key, uint64_t min, uint64_t max,
	       uint32_t *out, struct lsw_errs *errs)
{
	json_t *v = json_object_get(obj, key);
	char p[LSW_PATH_LEN];
	uint64_t x;

	if (v == NULL)
		return;
	lsw_path_key(p, path, key);
	if (lsw_jv_uint(v, p, min, max, &x, errs))
		*out = (uint32_t)x;
}
