/* SPDX-License-Identifier: BSD-3-Clause */
/* Objects decoded by tables of fields (decode.h), on the typed readers of jsonv.c. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "decode.h"
#include "jsonv.h"

static void
store_u(void *p, uint16_t size, uint64_t x)
{
	switch (size) {
	case 1: *(uint8_t *)p = (uint8_t)x; break;
	case 2: *(uint16_t *)p = (uint16_t)x; break;
	case 4: *(uint32_t *)p = (uint32_t)x; break;
	default: *(uint64_t *)p = x; break;
	}
}

/* Two's complement: the same bytes as store_u of the value cast. */
static void
store_i(void *p, uint16_t size, int64_t x)
{
	store_u(p, size, (uint64_t)x);
}

void
lsw_decode_defaults(const struct lsw_fields *t, void *out)
{
	for (size_t i = 0; i < t->n; i++) {
		const struct lsw_field *f = &t->row[i];
		char *p = (char *)out + f->off;
		switch (f->type) {
		case LSW_F_UINT:
		case LSW_F_INT:
		case LSW_F_BOOL:
		case LSW_F_SIZE:
		case LSW_F_ENUM:
			store_i(p, f->size, f->dflt);
			break;
		case LSW_F_STR:
		case LSW_F_KEYWORD:
			snprintf(p, f->size, "%s", f->dflt_str ? f->dflt_str : "");
			break;
		case LSW_F_INCLUDE:
			lsw_decode_defaults(f->sub, p);
			break;
		case LSW_F_CUSTOM:
			if (f->size >= 1 && f->size <= 8)
				store_i(p, f->size, f->dflt);
			break;
		default:
			break;
		}
	}
}

/* The row named @name, among @t's and those of its includes; *@base gets the offset of the
 * object it decodes into. */
static const struct lsw_field *
find_row(const struct lsw_fields *t, const char *name, size_t *base)
{
	for (size_t i = 0; i < t->n; i++) {
		const struct lsw_field *f = &t->row[i], *s;
		if (f->type != LSW_F_INCLUDE) {
			if (strcmp(f->name, name) == 0)
				return f;
			continue;
		}
		size_t sub = 0;
		if ((s = find_row(f->sub, name, &sub)) != NULL) {
			*base += f->off + sub;
			return s;
		}
	}
	return NULL;
}

static void
list_names(const struct lsw_fields *t, char *buf, size_t len)
{
	for (size_t i = 0; i < t->n; i++) {
		const struct lsw_field *f = &t->row[i];
		size_t used = strlen(buf);
		if (f->type == LSW_F_INCLUDE)
			list_names(f->sub, buf, len);
		else
			snprintf(buf + used, len - used, "%s%s", used ? ", " : "", f->name);
	}
}

/* Refuse a non-object and every member no row names (all of them, each by its path). */
static bool
check_members(json_t *v, const char *path, const struct lsw_fields *t, struct lsw_errs *errs)
{
	const char *k;
	json_t *x;
	bool ok = true;

	if (!json_is_object(v)) {
		lsw_jv_object(v, path, NULL, errs); /* says what it got instead */
		return false;
	}
	json_object_foreach(v, k, x) {
		size_t base = 0;
		if (find_row(t, k, &base) != NULL)
			continue;
		char p[LSW_PATH_LEN], known[160] = "";
		list_names(t, known, sizeof(known));
		lsw_path_key(p, path, k);
		lsw_errs_add(errs, p, "unknown %s (known: %s)",
			     strcmp(path, "$") == 0 ? "table" : "field", known);
		ok = false;
	}
	return ok;
}

/* Read @v, present at @path, by row @f into the object at @out. */
static bool
read_one(const struct lsw_field *f, json_t *v, const char *path, void *out, void *ctx,
	 struct lsw_errs *errs)
{
	/* Rows that only allow a member (ANY, an OBJECT without a member) may decode into
	 * nothing (@out NULL). */
	char *p = out != NULL ? (char *)out + f->off : NULL;
	const char *s;
	uint64_t u;
	int64_t i;
	unsigned int e;
	bool b;

	switch (f->type) {
	case LSW_F_UINT:
		if (!lsw_jv_uint(v, path, (uint64_t)f->min, f->max, &u, errs))
			return false;
		store_u(p, f->size, u);
		return true;
	case LSW_F_INT:
		if (!lsw_jv_int(v, path, f->min, (int64_t)f->max, &i, errs))
			return false;
		store_i(p, f->size, i);
		return true;
	case LSW_F_BOOL:
		if (!lsw_jv_bool(v, path, &b, errs))
			return false;
		*(bool *)p = b;
		return true;
	case LSW_F_SIZE:
		if (!lsw_jv_size(v, path, f->max ? f->max : UINT64_MAX, &u, errs))
			return false;
		store_u(p, f->size, u);
		return true;
	case LSW_F_STR:
		if (!lsw_jv_str(v, path, f->size - 1u, &s, errs))
			return false;
		snprintf(p, f->size, "%s", s);
		return true;
	case LSW_F_ENUM:
	case LSW_F_KEYWORD:
		if (!lsw_jv_enum(v, path, f->choices, &e, errs))
			return false;
		if (f->type == LSW_F_ENUM)
			store_u(p, f->size, e);
		else
			snprintf(p, f->size, "%s", f->choices[e]);
		return true;
	case LSW_F_MAC:
		return lsw_jv_mac(v, path, (struct rte_ether_addr *)p, errs);
	case LSW_F_OBJECT:
		if (!json_is_object(v)) {
			lsw_jv_object(v, path, NULL, errs);
			return false;
		}
		if (f->size != 0) /* else only allowed, and read by the caller */
			*(json_t **)p = v;
		return true;
	case LSW_F_CUSTOM:
		return f->fn(f, v, path, out, ctx, errs);
	default: /* LSW_F_ANY */
		return true;
	}
}

static void
read_rows(json_t *v, const char *path, const struct lsw_fields *t, void *out, void *ctx,
	  uint64_t *seen, const char *refuse, struct lsw_errs *errs)
{
	char p[LSW_PATH_LEN];

	for (size_t i = 0; i < t->n; i++) {
		const struct lsw_field *f = &t->row[i];
		if (f->type == LSW_F_INCLUDE) {
			read_rows(v, path, f->sub, (char *)out + f->off, ctx, NULL,
				  f->refuse ? f->refuse : refuse, errs);
			continue;
		}
		json_t *x = json_object_get(v, f->name);
		lsw_path_key(p, path, f->name);
		if (x == NULL) {
			if (f->required != NULL)
				lsw_errs_add(errs, p, "required: %s", f->required);
			continue;
		}
		if (seen != NULL && i < 64)
			*seen |= UINT64_C(1) << i;
		if (refuse != NULL)
			lsw_errs_add(errs, p, "%s", refuse);
		else
			read_one(f, x, p, out, ctx, errs);
	}
}

bool
lsw_decode(json_t *v, const char *path, const struct lsw_fields *t, void *out, void *ctx,
	   uint64_t *seen, struct lsw_errs *errs)
{
	if (seen != NULL)
		*seen = 0;
	if (!check_members(v, path, t, errs))
		return false;
	read_rows(v, path, t, out, ctx, seen, NULL, errs);
	return true;
}

void
lsw_decode_doc(const struct lsw_fields *t, char *buf, size_t len)
{
	buf[0] = '\0';
	for (size_t i = 0; i < t->n; i++) {
		const struct lsw_field *f = &t->row[i];
		size_t used = strlen(buf);
		snprintf(buf + used, len - used, "%s%s%s: %s", used ? ", " : "", f->name,
			 f->required ? "" : "?", f->doc ? f->doc : "");
	}
}

void
lsw_decode_entries(json_t *t, const char *path, lsw_entry_fn fn, void *ctx,
		   struct lsw_errs *errs)
{
	char p[LSW_PATH_LEN];
	const char *key;
	json_t *v;

	if (!json_is_object(t)) {
		lsw_jv_object(t, path, NULL, errs);
		return;
	}
	json_object_foreach(t, key, v) {
		lsw_path_key(p, path, key);
		fn(key, v, p, ctx, errs);
	}
}

#define MAX_CONFIG_OBJECTS 64
static struct lsw_config_object objects[MAX_CONFIG_OBJECTS];
static size_t n_objects;

void
lsw_config_object_register(const char *where, const struct lsw_fields *t)
{
	if (n_objects == MAX_CONFIG_OBJECTS) {
		fprintf(stderr, "lsw: more than %d config objects\n", MAX_CONFIG_OBJECTS);
		abort();
	}
	objects[n_objects++] = (struct lsw_config_object){.where = where, .fields = t};
}

size_t
lsw_config_object_count(void)
{
	return n_objects;
}

const struct lsw_config_object *
lsw_config_object_at(size_t i)
{
	return i < n_objects ? &objects[i] : NULL;
}
