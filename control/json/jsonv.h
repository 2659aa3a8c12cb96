/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Typed readers for JSON values that name the offending value by its JSON path. Used by the
 * config loader and by every RPC method's params, and by lsw-host's config: a library both
 * link (control/json/meson.build), which needs jansson and DPDK's headers, nothing of lsw's.
 * Numbers may be given as JSON integers or as decimal strings, as SONiC's CONFIG_DB writes
 * them ("9100").
 */
#ifndef LSW_JSONV_H
#define LSW_JSONV_H

#include <stdint.h>
#include <stdbool.h>
#include <jansson.h>
#include <rte_ether.h>

#define LSW_PATH_LEN 192
#define LSW_ERRS_MAX 32

struct lsw_err {
	char path[LSW_PATH_LEN]; /* JSON path of the offending value, e.g. $.PORT.Ethernet0.mtu */
	char msg[192];
};

/* Errors gathered while validating; the first LSW_ERRS_MAX are kept, all are counted. */
struct lsw_errs {
	unsigned int n;
	struct lsw_err e[LSW_ERRS_MAX];
};

void lsw_errs_add(struct lsw_errs *errs, const char *path, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* Errors as [{"path":..., "message":...}, ...]. */
json_t *lsw_errs_to_json(const struct lsw_errs *errs);

/* @out = @parent + ".key" (or "['key']" when the key is not a plain identifier). */
void lsw_path_key(char *out, const char *parent, const char *key);
void lsw_path_index(char *out, const char *parent, size_t idx);

/* Refuse a non-object, and every member whose name is not in @allowed (NULL-terminated;
 * NULL: any name). */
bool lsw_jv_object(json_t *v, const char *path, const char *const *allowed,
		   struct lsw_errs *errs);
bool lsw_jv_uint(json_t *v, const char *path, uint64_t min, uint64_t max, uint64_t *out,
		 struct lsw_errs *errs);
/* Member @key of @obj, if present, into *@out within [min, max]; absent leaves *@out. */
void lsw_jv_get_u32(json_t *obj, const char *path, const char *key, uint64_t min,
		    uint64_t max, uint32_t *out, struct lsw_errs *errs);
bool lsw_jv_int(json_t *v, const char *path, int64_t min, int64_t max, int64_t *out,
		struct lsw_errs *errs);
bool lsw_jv_str(json_t *v, const char *path, size_t maxlen, const char **out,
		struct lsw_errs *errs);
bool lsw_jv_bool(json_t *v, const char *path, bool *out, struct lsw_errs *errs);
/* One of @choices (NULL-terminated); *out = its index. */
bool lsw_jv_enum(json_t *v, const char *path, const char *const *choices, unsigned int *out,
		 struct lsw_errs *errs);
/* The same among the first @n of @choices only. */
bool lsw_jv_enum_n(json_t *v, const char *path, const char *const *choices, size_t n,
		   unsigned int *out, struct lsw_errs *errs);
bool lsw_jv_mac(json_t *v, const char *path, struct rte_ether_addr *out,
		struct lsw_errs *errs);
/* A size: integer bytes or a string with binary units (lsw_parse_size), at most @max. */
bool lsw_jv_size(json_t *v, const char *path, uint64_t max, uint64_t *out,
		 struct lsw_errs *errs);

/* A JSON string of @s, which may quote a client's text cut anywhere by a bounded snprintf
 * (an error message or path): an incomplete UTF-8 sequence at the end is dropped, any other
 * byte that is not UTF-8 becomes '?', so that the error still gets its answer. */
json_t *lsw_jv_text(const char *s);

/* Text parsers, usable on keys too. */
/* Parse "14680064", "14MB", "512KB", "1.5MB" (binary units: K = 1024, M = 2^20, G = 2^30). */
bool lsw_parse_size(const char *s, uint64_t *bytes);
/* Parse "5m", "300m", "2km" or a plain number of metres. */
bool lsw_parse_length(const char *s, uint32_t *metres);
bool lsw_parse_ipv4(const char *s, uint32_t *ip);
bool lsw_parse_prefix(const char *s, uint32_t *ip, uint8_t *plen);
/* IPv6: 16 bytes, network order (inet_pton's forms); a prefix is ADDR/0..128. */
bool lsw_parse_ipv6(const char *s, uint8_t *ip);
bool lsw_parse_prefix6(const char *s, uint8_t *ip, uint8_t *plen);
bool lsw_parse_mac(const char *s, struct rte_ether_addr *mac);
void lsw_fmt_ipv4(char *buf, size_t len, uint32_t ip);
void lsw_fmt_prefix(char *buf, size_t len, uint32_t ip, uint8_t plen);
/* RFC 5952 text (inet_ntop); @len at least 44 for a prefix. */
void lsw_fmt_ipv6(char *buf, size_t len, const uint8_t *ip);
void lsw_fmt_prefix6(char *buf, size_t len, const uint8_t *ip, uint8_t plen);
void lsw_fmt_mac(char *buf, size_t len, const struct rte_ether_addr *mac);

#endif
