/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The reference pages against the code's own tables, both ways, so that a field, counter
 * or drop reason cannot be added without its line, nor documented after it is gone:
 * - configs/README.md: every row of every config object (decode.h's LSW_CONFIG_OBJECT), with
 *   its type, range, choices and default as the row has them;
 * - include/lsw/COUNTERS.md: every drop reason (drop.h) with its direction, every switch
 *   event (counters.h), and the counter names each stats method answers with (asked of a
 *   test switch: the names the workers count and those the RPC adds alike).
 */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "harness.h"
#include "decode.h"
#include "lsw/counters.h"
#include "lsw/drop.h"

#define MAX_NAMES 256
#define NAME_LEN 96

struct names {
	char s[MAX_NAMES][NAME_LEN];
	size_t n;
};

static void
names_add(struct names *ns, const char *s, size_t len)
{
	if (len >= NAME_LEN)
		fail_msg("name too long: %.*s", (int)len, s);
	for (size_t i = 0; i < ns->n; i++)
		if (strlen(ns->s[i]) == len && strncmp(ns->s[i], s, len) == 0)
			return;
	assert_true(ns->n < MAX_NAMES);
	memcpy(ns->s[ns->n], s, len);
	ns->s[ns->n++][len] = '\0';
}

static bool
names_has(const struct names *ns, const char *s)
{
	for (size_t i = 0; i < ns->n; i++)
		if (strcmp(ns->s[i], s) == 0)
			return true;
	return false;
}

/* Every name of @code is in @doc and the other way round; @what names the set. */
static void
names_equal(const struct names *code, const struct names *doc, const char *page,
	    const char *what)
{
	for (size_t i = 0; i < code->n; i++)
		if (!names_has(doc, code->s[i]))
			fail_msg("%s: %s has no line for %s", page, what, code->s[i]);
	for (size_t i = 0; i < doc->n; i++)
		if (!names_has(code, doc->s[i]))
			fail_msg("%s: %s documents %s, which the code does not have", page, what,
				 doc->s[i]);
}

static char *
read_page(const char *rel)
{
	const char *root = getenv("LSW_SOURCE_ROOT");
	char path[512];

	snprintf(path, sizeof(path), "%s/%s", root ? root : ".", rel);
	FILE *f = fopen(path, "r");
	if (f == NULL)
		fail_msg("cannot read %s", path);
	fseek(f, 0, SEEK_END);
	long n = ftell(f);
	rewind(f);
	char *s = malloc((size_t)n + 1);
	assert_non_null(s);
	s[fread(s, 1, (size_t)n, f)] = '\0';
	fclose(f);
	return s;
}

/* The section of @doc under the heading line that starts with @heading, up to the next
 * heading of level 2 or 3; NULL when there is none. *@len gets its length. */
static const char *
section(const char *doc, const char *heading, size_t *len)
{
	size_t hl = strlen(heading);
	const char *p = doc;

	while (p != NULL && strncmp(p, heading, hl) != 0) {
		p = strchr(p, '\n');
		p = p ? p + 1 : NULL;
	}
	if (p == NULL)
		return NULL;
	const char *body = strchr(p, '\n');
	if (body == NULL)
		return NULL;
	const char *end = body + 1;
	while (*end && strncmp(end, "## ", 3) != 0 && strncmp(end, "### ", 4) != 0) {
		const char *nl = strchr(end, '\n');
		end = nl ? nl + 1 : end + strlen(end);
	}
	*len = (size_t)(end - body);
	return body;
}

/* The table in [s, s + len) whose header line starts with @header ("| field |"): its first
 * line and its end in *@b and *@e; false when there is none. */
static bool
table(const char *s, size_t len, const char *header, const char **b, const char **e)
{
	const char *end = s + len;

	for (const char *p = s; p < end;) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		if (strncmp(p, header, strlen(header)) == 0) {
			*b = p;
			for (*e = p; *e < end && **e == '|';) {
				const char *n2 = memchr(*e, '\n', (size_t)(end - *e));
				*e = n2 ? n2 + 1 : end;
			}
			return true;
		}
		p = nl ? nl + 1 : end;
	}
	return false;
}

/* A table row of a section: its cells, split on the pipes that are not escaped (\|). */
#define MAX_CELLS 6
struct row {
	char cell[MAX_CELLS][1024];
	int n;
};

/* The next row of a Markdown table in [*p, end) whose first cell starts with a backtick;
 * false when there is none. */
static bool
next_row(const char **p, const char *end, struct row *r)
{
	while (*p < end) {
		const char *line = *p, *nl = memchr(line, '\n', (size_t)(end - line));
		const char *eol = nl ? nl : end;
		*p = nl ? nl + 1 : end;
		if (strncmp(line, "| `", 3) != 0)
			continue;
		memset(r, 0, sizeof(*r));
		size_t k = 0;
		for (const char *c = line + 1; c < eol; c++) {
			if (*c == '|' && c[-1] != '\\') {
				if (++r->n == MAX_CELLS)
					break;
				k = 0;
				continue;
			}
			if (*c == '\\' && c + 1 < eol && c[1] == '|')
				continue;
			if (k + 1 < sizeof(r->cell[0]))
				r->cell[r->n][k++] = *c;
		}
		for (int i = 0; i < r->n; i++) { /* trim */
			char *s = r->cell[i];
			size_t l = strlen(s);
			while (l && s[l - 1] == ' ')
				s[--l] = '\0';
			memmove(s, s + strspn(s, " "), strlen(s + strspn(s, " ")) + 1);
		}
		return true;
	}
	return false;
}

/* The `quoted` words of @s. */
static void
quoted(const char *s, struct names *out)
{
	out->n = 0;
	for (const char *a = strchr(s, '`'); a != NULL; a = strchr(a + 1, '`')) {
		const char *b = strchr(a + 1, '`');
		if (b == NULL)
			break;
		names_add(out, a + 1, (size_t)(b - a - 1));
		a = b;
	}
}

/* ------------------------------------------------------------ configs/README.md */

static const char *const type_names[] = {
	[LSW_F_UINT] = "integer", [LSW_F_INT] = "integer", [LSW_F_BOOL] = "bool",
	[LSW_F_SIZE] = "size", [LSW_F_STR] = "string", [LSW_F_ENUM] = "one of",
	[LSW_F_KEYWORD] = "one of", [LSW_F_MAC] = "MAC",
};

/* Does @cell hold exactly the integer @v (decimal or 0x hex), or, for sizes, a size of @v
 * bytes? Returns 1 if it holds that value, 0 if it holds another, -1 if it is no number. */
static int
holds_number(const char *cell, int64_t v, bool size)
{
	char *end;
	uint64_t b;

	if (size && lsw_parse_size(cell, &b))
		return b == (uint64_t)v;
	errno = 0;
	long long x = strtoll(cell, &end, 0);
	if (end == cell || *end != '\0' || errno)
		return -1;
	return x == v;
}

/* One row of a config object against its documentation line: | field | type | default |
 * meaning |. */
static void
check_field(const char *where, const struct lsw_field *f, const struct row *r)
{
	const char *type = r->cell[1], *dflt = r->cell[2];
	char want[128];
	struct names q;

	if (r->n != 4 || !r->cell[3][0])
		fail_msg("%s.%s: its line needs 4 cells (field, type, default, meaning), the "
			 "meaning not empty", where, f->name);
	if (f->type < RTE_DIM(type_names) && type_names[f->type] != NULL &&
	    strstr(type, type_names[f->type]) == NULL)
		fail_msg("%s.%s: its type says '%s', not %s", where, f->name, type,
			 type_names[f->type]);
	switch (f->type) {
	case LSW_F_UINT:
	case LSW_F_INT:
		snprintf(want, sizeof(want), "%" PRId64 "..%" PRIu64, f->min,
			 f->type == LSW_F_INT ? (uint64_t)(int64_t)f->max : f->max);
		if (strstr(type, want) == NULL)
			fail_msg("%s.%s: its type says '%s', without its range %s", where,
				 f->name, type, want);
		/* fallthrough */
	case LSW_F_SIZE:
		if (f->required != NULL)
			break;
		int h = holds_number(dflt, f->dflt, f->type == LSW_F_SIZE);
		if (h == 0 || (h < 0 && f->dflt != 0))
			fail_msg("%s.%s: its default says '%s', the code %" PRId64, where, f->name,
				 dflt, f->dflt);
		break;
	case LSW_F_BOOL:
		if (strcmp(dflt, f->dflt ? "`true`" : "`false`") != 0)
			fail_msg("%s.%s: its default says '%s', the code %s", where, f->name, dflt,
				 f->dflt ? "true" : "false");
		break;
	case LSW_F_ENUM:
	case LSW_F_KEYWORD:
		quoted(type, &q);
		for (size_t i = 0; f->choices[i] != NULL; i++)
			if (!names_has(&q, f->choices[i]))
				fail_msg("%s.%s: its type does not name the choice %s", where,
					 f->name, f->choices[i]);
		size_t n = 0;
		while (f->choices[n] != NULL)
			n++;
		if (q.n != n)
			fail_msg("%s.%s: its type names %zu choices, the code has %zu", where,
				 f->name, q.n, n);
		/* A default written as a choice is the row's. */
		const char *d = f->type == LSW_F_ENUM ? f->choices[f->dflt] :
			(f->dflt_str ? f->dflt_str : "");
		quoted(dflt, &q);
		if (f->required == NULL && q.n > 0 && strcmp(q.s[0], d) != 0)
			fail_msg("%s.%s: its default says %s, the code %s", where, f->name, q.s[0],
				 d);
		break;
	case LSW_F_STR:
		if (f->dflt_str != NULL) {
			snprintf(want, sizeof(want), "`%s`", f->dflt_str);
			if (strstr(dflt, want) == NULL)
				fail_msg("%s.%s: its default says '%s', the code %s", where,
					 f->name, dflt, want);
		}
		break;
	default:
		break;
	}
	if ((f->required != NULL) != (strstr(dflt, "required") != NULL))
		fail_msg("%s.%s: the code %s it, its default says '%s'", where, f->name,
			 f->required ? "requires" : "does not require", dflt);
}

static void
check_object(const char *doc, const struct lsw_config_object *o)
{
	const struct lsw_fields *t = o->fields;
	char heading[128];
	size_t len;

	if (o->where[0] == '\0') { /* the tables: each has a heading of its own */
		for (size_t i = 0; i < t->n; i++) {
			char a[96], b[96];
			snprintf(a, sizeof(a), "`%s`", t->row[i].name);
			snprintf(b, sizeof(b), "`%s.", t->row[i].name);
			bool found = false;
			for (const char *p = strstr(doc, "\n### "); p && !found;
			     p = strstr(p + 1, "\n### ")) {
				const char *nl = strchr(p + 1, '\n');
				size_t l = nl ? (size_t)(nl - p) : strlen(p);
				char line[512];
				snprintf(line, sizeof(line), "%.*s", (int)l, p);
				found = strstr(line, a) || strstr(line, b);
			}
			if (!found)
				fail_msg("configs/README.md: table %s has no heading of its own",
					 t->row[i].name);
		}
		return;
	}
	snprintf(heading, sizeof(heading), "### `%s`", o->where);
	const char *s = section(doc, heading, &len);
	if (s == NULL)
		fail_msg("configs/README.md: no section %s", heading);
	struct names code = {.n = 0}, documented = {.n = 0}, q;
	for (size_t i = 0; i < t->n; i++)
		if (t->row[i].type != LSW_F_INCLUDE)
			names_add(&code, t->row[i].name, strlen(t->row[i].name));
	const char *p = NULL, *e = NULL;
	struct row r;
	if (!table(s, len, "| field |", &p, &e))
		fail_msg("configs/README.md: %s has no table | field | type | default | meaning |",
			 heading);
	while (next_row(&p, e, &r)) {
		quoted(r.cell[0], &q);
		for (size_t k = 0; k < q.n; k++) {
			const struct lsw_field *f = NULL;
			for (size_t i = 0; i < t->n && f == NULL; i++)
				if (strcmp(t->row[i].name, q.s[k]) == 0)
					f = &t->row[i];
			names_add(&documented, q.s[k], strlen(q.s[k]));
			if (f != NULL)
				check_field(o->where, f, &r);
		}
	}
	names_equal(&code, &documented, "configs/README.md", heading);
}

static void
test_config_reference(void **state)
{
	char *doc = read_page("configs/README.md");

	(void)state;
	assert_true(lsw_config_object_count() >= 20);
	for (size_t i = 0; i < lsw_config_object_count(); i++)
		check_object(doc, lsw_config_object_at(i));
	free(doc);
}

/* ------------------------------------------------------- include/lsw/COUNTERS.md */

/* The names in the first cells of the table rows of the section under @heading. */
static void
documented(const char *doc, const char *heading, struct names *out, struct row *rows,
	   size_t *n_rows)
{
	size_t len, n = 0;
	const char *s = section(doc, heading, &len);
	struct names q;
	struct row r;

	const char *b = NULL, *e = NULL;
	if (s == NULL || !table(s, len, "| counter |", &b, &e))
		fail_msg("include/lsw/COUNTERS.md: no section %s with a table | counter |",
			 heading);
	out->n = 0;
	for (const char *p = b; next_row(&p, e, &r);) {
		quoted(r.cell[0], &q);
		for (size_t k = 0; k < q.n; k++)
			names_add(out, q.s[k], strlen(q.s[k]));
		if (rows != NULL && n < *n_rows)
			rows[n++] = r;
	}
	if (n_rows != NULL)
		*n_rows = n;
}

/* The upper-case members of @o (counter names), PFC_<digit>_ written as PFC_n_. */
static void
counter_names(json_t *o, struct names *out)
{
	const char *k;
	json_t *v;

	assert_true(json_is_object(o));
	json_object_foreach(o, k, v) {
		char name[NAME_LEN];
		if (!isupper((unsigned char)k[0]))
			continue;
		snprintf(name, sizeof(name), "%s", k);
		if (strncmp(name, "PFC_", 4) == 0 && isdigit((unsigned char)name[4]))
			name[4] = 'n';
		names_add(out, name, strlen(name));
	}
}

/* A switch with something in every stats part: PFC and its watchdog on Ethernet4, the
 * ECMP group of T_CONFIG. */
#define DOCS_CONFIG \
	"{\"PORT_QOS_MAP\": {\"Ethernet4\": {\"pfc_enable\": \"3\"," \
	"  \"pfc_watchdog_status\": \"enable\"}}}"

static void
test_counters_reference(void **state)
{
	char *doc = read_page("include/lsw/COUNTERS.md");
	struct names code = {.n = 0}, doc_names;
	static struct row rows[MAX_NAMES];
	size_t n_rows = MAX_NAMES;

	(void)state;
	/* Drop reasons, with their direction. */
#define DROP_NAME(name, dir, desc) names_add(&code, #name, strlen(#name));
	LSW_FOREACH_DROP(DROP_NAME)
#undef DROP_NAME
	documented(doc, "## Drop reasons", &doc_names, rows, &n_rows);
	names_equal(&code, &doc_names, "include/lsw/COUNTERS.md", "Drop reasons");
	for (size_t i = 0; i < n_rows; i++) {
		struct names q;
		quoted(rows[i].cell[0], &q);
		for (size_t k = 0; k < q.n; k++)
			for (int d = 1; d < LSW_DROP_MAX; d++) {
				const char *dir = lsw_drop_is_egress(d) ? "out" : "in";
				if (strcmp(lsw_drop_name(d), q.s[k]) == 0 &&
				    strcmp(rows[i].cell[1], dir) != 0)
					fail_msg("COUNTERS.md: %s is an %s reason, not %s",
						 q.s[k], dir, rows[i].cell[1]);
			}
	}
	/* Switch events. */
	code.n = 0;
	for (int e = 0; e < LSW_EV_MAX; e++)
		names_add(&code, lsw_event_name(e), strlen(lsw_event_name(e)));
	documented(doc, "### Switch events (`switch.info`)", &doc_names, NULL, NULL);
	names_equal(&code, &doc_names, "include/lsw/COUNTERS.md", "Switch events");

	/* What each stats method answers with, on a switch where each part has something. */
	json_error_t je;
	json_t *cfg = json_loads(T_CONFIG, 0, &je), *patch = json_loads(DOCS_CONFIG, 0, &je);
	assert_non_null(cfg);
	assert_non_null(patch);
	json_object_update(cfg, patch);
	char *text = json_dumps(cfg, 0);
	struct t_switch *t = t_switch_new(text);

	assert_int_equal(t_start_ports(t), 0);
	free(text);
	json_decref(cfg);
	json_decref(patch);
	/* The parts of stats.get, each from its method (the test switch has no RPC server,
	 * which switch.info reads; its events are the table above). */
	json_t *r[7], *res[7];
	const char *const methods[7] = {"port.stats", "pg.stats", "queue.stats", "buffer.stats",
					"pfc.stats", "pfcwd.stats", "ecmp.stats"};
	for (int i = 0; i < 7; i++)
		res[i] = t_rpc_ok(t, methods[i], NULL, &r[i]);
	json_t *port = json_object_get(json_object_get(res[0], "ports"), "Ethernet4");
	json_t *pg = json_object_get(json_object_get(json_object_get(res[1], "ports"),
						     "Ethernet4"), "3");
	json_t *queue = json_object_get(json_object_get(json_object_get(res[2], "ports"),
							"Ethernet4"), "3");
	json_t *pool = json_array_get(json_object_get(res[3], "pools"), 0);
	json_t *pfc = json_object_get(json_object_get(json_object_get(json_object_get(res[4],
		"ports"), "Ethernet4"), "priorities"), "3");
	json_t *wd = json_object_get(json_object_get(json_object_get(json_object_get(res[5],
		"ports"), "Ethernet4"), "queues"), "3");
	json_t *member = json_array_get(json_object_get(json_array_get(json_object_get(res[6],
		"groups"), 0), "members"), 0);
	const struct {
		const char *heading;
		json_t *o;
	} parts[] = {
		{"### Per port (`port.stats`)", port},
		{"### Per priority group (`pg.stats`)", pg},
		{"### Per queue (`queue.stats`)", queue},
		{"### Per pool (`buffer.stats`)", pool},
		{"### Per port and priority (`pfc.stats`)", pfc},
		{"### Per watched queue (`pfcwd.stats`)", wd},
		{"### Per ECMP group member (`ecmp.stats`)", member},
	};
	for (size_t i = 0; i < RTE_DIM(parts); i++) {
		if (parts[i].o == NULL)
			fail_msg("stats.get has nothing for %s", parts[i].heading);
		code.n = 0;
		counter_names(parts[i].o, &code);
		documented(doc, parts[i].heading, &doc_names, NULL, NULL);
		names_equal(&code, &doc_names, "include/lsw/COUNTERS.md", parts[i].heading);
	}
	/* A queue's drops by reason: the reasons the buffer decides (buffer.h). */
	code.n = 0;
	counter_names(json_object_get(queue, "drops"), &code);
	documented(doc, "### A queue's drops by reason (`queue.stats`)", &doc_names, NULL, NULL);
	names_equal(&code, &doc_names, "include/lsw/COUNTERS.md", "A queue's drops by reason");
	for (int i = 0; i < 7; i++)
		json_decref(r[i]);
	t_switch_free(t);
	free(doc);
}

int
main(void)
{
	t_eal_init();
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_config_reference),
		cmocka_unit_test(test_counters_reference),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
