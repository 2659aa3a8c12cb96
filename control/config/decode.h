/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * JSON objects decoded from tables of fields, as SPDK's spdk_json_object_decoder: a row gives
 * a member's name, where it goes (offset and size in the struct decoded into), its type, its
 * range, its default, or a parser of its own. One row serves the defaults, the list of
 * allowed names and the read, so that they cannot drift; every error keeps its JSON path.
 * Config tables (control/config*.c) and RPC params (control/rpc*.c) are decoded this way.
 */
#ifndef LSW_DECODE_H
#define LSW_DECODE_H

#include <stddef.h>
#include <stdint.h>
#include <stdbool.h>
#include <jansson.h>
#include <rte_common.h>
#include "config.h"

enum lsw_field_type {
	LSW_F_UINT,     /* integer or decimal string within [min, max] */
	LSW_F_INT,      /* the same, signed */
	LSW_F_BOOL,     /* true/false or "true"/"false" */
	LSW_F_SIZE,     /* bytes: an integer or a string with binary units, at most max */
	LSW_F_STR,      /* a string that fits the member (a char array) */
	LSW_F_ENUM,     /* one of choices: its index */
	LSW_F_KEYWORD,  /* one of choices: its text, into the member (a char array) */
	LSW_F_MAC,      /* a unicast MAC address, into a struct rte_ether_addr */
	LSW_F_OBJECT,   /* an object: the member is a json_t * (borrowed from the document) */
	LSW_F_ANY,      /* accepted and ignored (SONiC fields lsw does not use) */
	LSW_F_CUSTOM,   /* read by fn (its default, if it has a member of 1 to 8 bytes: dflt) */
	LSW_F_INCLUDE,  /* the rows of sub, members of this same object, at off */
};

struct lsw_field;
struct lsw_fields;

/* A member with a parser of its own: @v at @path, by row @f, into the object being decoded
 * (@out, the whole of it: its member is at @f->off, and a parser may set others too). @ctx
 * is the caller's (the config for config tables, the switch for RPC params). False when
 * refused. */
typedef bool (*lsw_field_fn)(const struct lsw_field *f, json_t *v, const char *path,
			     void *out, void *ctx, struct lsw_errs *errs);

struct lsw_field {
	const char *name;
	uint8_t type;                /* enum lsw_field_type */
	uint16_t size;               /* bytes of the member: 1, 2, 4, 8, or a char array's */
	size_t off;                  /* offset of the member in the object decoded into */
	int64_t min;
	uint64_t max;                /* UINT, INT, SIZE: the range; 0 for SIZE: no limit */
	int64_t dflt;                /* written by lsw_decode_defaults (scalars) */
	const char *dflt_str;        /* the same for STR and KEYWORD (NULL: "") */
	const char *const *choices;  /* ENUM, KEYWORD: NULL-terminated */
	lsw_field_fn fn;             /* CUSTOM */
	const void *arg;             /* CUSTOM: what fn needs besides the row */
	const struct lsw_fields *sub; /* INCLUDE */
	const char *required;        /* set: required, and what to say when it is missing */
	const char *refuse;          /* INCLUDE: its members are refused here, with this */
	const char *doc;             /* RPC params: the value's type, for rpc.methods */
};

struct lsw_fields {
	const struct lsw_field *row;
	size_t n;
};

#define LSW_FIELDS(rows) {(rows), sizeof(rows) / sizeof((rows)[0])}
/* Where member @m of struct type @T goes: .off and .size of a row. */
#define LSW_AT(T, m) .off = offsetof(T, m), .size = sizeof(((T *)0)->m)

/* Write the rows' defaults into @out (custom rows are the caller's). */
void lsw_decode_defaults(const struct lsw_fields *t, void *out);
/* Decode object @v at @path into @out. A non-object, or a member no row names, refuses @v
 * whole: nothing is read (a misspelt field says so without the errors it would cause
 * downstream). Otherwise each member present is read in row order, and each required one
 * absent is reported. @seen (may be NULL) gets bit i for row i present. False when @v was
 * refused whole. */
bool lsw_decode(json_t *v, const char *path, const struct lsw_fields *t, void *out, void *ctx,
		uint64_t *seen, struct lsw_errs *errs);
/* The rows as rpc.methods shows params: "port?: string, limit?: integer" ("" for none). */
void lsw_decode_doc(const struct lsw_fields *t, char *buf, size_t len);

/* Where in a config each object decoded from rows is: "PORT" (an entry of the table),
 * "LSW.global" (a fixed key), "" (the tables themselves). configs/README.md documents every
 * row of each under a heading "### `WHERE`", and tests/unit/test_docs.c checks that it
 * does, both ways. Config files register theirs with LSW_CONFIG_OBJECT, as RPC methods. */
struct lsw_config_object {
	const char *where;
	const struct lsw_fields *fields;
};
void lsw_config_object_register(const char *where, const struct lsw_fields *t);
size_t lsw_config_object_count(void);
const struct lsw_config_object *lsw_config_object_at(size_t i);
#define LSW_CONFIG_OBJECT(name, where, t) \
	RTE_INIT(lsw_config_object_##name) { lsw_config_object_register(where, t); }

/* Each entry of a table (an object of KEY: value) at @path: @fn(key, value, its path). A
 * table that is not an object is refused, with its path. */
typedef void (*lsw_entry_fn)(const char *key, json_t *v, const char *path, void *ctx,
			     struct lsw_errs *errs);
void lsw_decode_entries(json_t *t, const char *path, lsw_entry_fn fn, void *ctx,
			struct lsw_errs *errs);

#endif
