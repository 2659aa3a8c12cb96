/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Workloads: each entry of the config's "workload" list becomes QPs
 * and messages posted at given times. Every process that reads the same file builds the
 * same QPs in the same order (QPN 0x100 + n on both ends), so that hosts split across
 * several lsw-host processes still agree; only hosts run here post.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "jsonv.h"
#include "host_config.h"

/* splitmix64: small, good enough, and the same everywhere for a seed. */
static uint64_t
rnd(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

static double
rnd_unit(uint64_t *s)
{
	return (double)(rnd(s) >> 11) / (double)(1ull << 53);
}

struct wl {
	json_t *o;
	const char *path;
	struct lsw_hosts *e;
	const struct lsw_host_run *run;
	struct lsw_errs *errs;
	uint64_t seed;
};

static int
host_by_name(const struct lsw_hosts *e, const char *name)
{
	for (uint16_t i = 0; i < e->n_hosts; i++)
		if (strcmp(e->host[i].c.name, name) == 0)
			return i;
	return -1;
}

static int
get_host(struct wl *w, json_t *v, const char *path)
{
	const char *s;
	int h;

	if (!lsw_jv_str(v, path, 64, &s, w->errs))
		return -1;
	h = host_by_name(w->e, s);
	if (h < 0)
		lsw_errs_add(w->errs, path, "no host named '%s' in $.hosts", s);
	return h;
}

/* A list of host names into @out (at most LSW_HOST_MAX), distinct; returns how many. */
static int
get_hosts(struct wl *w, const char *key, int min, uint16_t *out)
{
	json_t *a = json_object_get(w->o, key), *v;
	char p[LSW_PATH_LEN], q[LSW_PATH_LEN];
	size_t i;
	int n = 0;

	lsw_path_key(p, w->path, key);
	if (!json_is_array(a) || json_array_size(a) < (size_t)min) {
		lsw_errs_add(w->errs, p, "expected a list of at least %d host names", min);
		return -1;
	}
	json_array_foreach(a, i, v) {
		lsw_path_index(q, p, i);
		int h = get_host(w, v, q);
		if (h < 0)
			return -1;
		for (int k = 0; k < n; k++)
			if (out[k] == h) {
				lsw_errs_add(w->errs, q, "host listed twice");
				return -1;
			}
		out[n++] = (uint16_t)h;
	}
	return n;
}

static bool
get_u64(struct wl *w, const char *key, uint64_t min, uint64_t max, uint64_t def, uint64_t *out)
{
	json_t *v = json_object_get(w->o, key);
	char p[LSW_PATH_LEN];

	*out = def;
	if (v == NULL)
		return true;
	lsw_path_key(p, w->path, key);
	return lsw_jv_uint(v, p, min, max, out, w->errs);
}

static bool
get_size(struct wl *w, uint64_t *out)
{
	json_t *v = json_object_get(w->o, "size");
	char p[LSW_PATH_LEN];

	lsw_path_key(p, w->path, "size");
	if (v == NULL) {
		lsw_errs_add(w->errs, p, "the message size is missing: 65536, \"64KB\", \"1MB\"");
		return false;
	}
	return lsw_jv_size(v, p, UINT32_MAX, out, w->errs);
}

static enum lsw_op_kind
get_op(struct wl *w)
{
	static const char *const ops[] = {"write", "send", NULL};
	json_t *v = json_object_get(w->o, "op");
	char p[LSW_PATH_LEN];
	unsigned int op = LSW_OPK_WRITE;

	if (v != NULL) {
		lsw_path_key(p, w->path, "op");
		lsw_jv_enum(v, p, ops, &op, w->errs);
	}
	return (enum lsw_op_kind)op;
}

/* A QP from @src to @dst, and @count messages of @size posted from @start, @gap apart. */
static int
qp_with_posts(struct wl *w, uint16_t src, uint16_t dst, enum lsw_op_kind op, uint64_t size,
	      uint64_t count, uint64_t start_ns, uint64_t gap_ns)
{
	char p[LSW_PATH_LEN];
	int qp;

	if (src == dst) {
		lsw_path_key(p, w->path, "dst");
		lsw_errs_add(w->errs, p, "a QP needs two different hosts");
		return -1;
	}
	qp = lsw_hosts_add_qp(w->e, src, dst, op);
	if (qp < 0) {
		lsw_errs_add(w->errs, w->path, "out of memory");
		return -1;
	}
	if (!w->e->host[src].local)
		return qp;
	for (uint64_t k = 0; k < count; k++)
		if (lsw_hosts_add_post(w->e, start_ns + k * gap_ns, (uint32_t)qp, (uint32_t)size,
				       -1) != 0) {
			lsw_errs_add(w->errs, w->path, "out of memory");
			return -1;
		}
	w->e->msgs_total += count;
	return qp;
}

/* The fields every message pattern has: size, count, start_us, gap_us, op. */
struct pattern {
	uint64_t size, count, start_ns, gap_ns;
	enum lsw_op_kind op;
};

static bool
get_pattern(struct wl *w, struct pattern *p)
{
	uint64_t start, gap;
	bool ok = get_size(w, &p->size);

	ok &= get_u64(w, "count", 1, 1000000, 1, &p->count);
	ok &= get_u64(w, "start_us", 0, 3600000000ull, 0, &start);
	ok &= get_u64(w, "gap_us", 0, 3600000000ull, 0, &gap);
	p->start_ns = start * 1000;
	p->gap_ns = gap * 1000;
	p->op = get_op(w);
	return ok;
}

static const char *const flow_names[] = {"type", "src", "dst", "size", "count", "start_us",
					 "gap_us", "op", NULL};

static void
wl_flow(struct wl *w)
{
	struct pattern p;
	char q[LSW_PATH_LEN];
	int s, d;

	if (!lsw_jv_object(w->o, w->path, flow_names, w->errs))
		return;
	lsw_path_key(q, w->path, "src");
	s = get_host(w, json_object_get(w->o, "src") ?: json_null(), q);
	lsw_path_key(q, w->path, "dst");
	d = get_host(w, json_object_get(w->o, "dst") ?: json_null(), q);
	if (s < 0 || d < 0 || !get_pattern(w, &p))
		return;
	qp_with_posts(w, (uint16_t)s, (uint16_t)d, p.op, p.size, p.count, p.start_ns, p.gap_ns);
}

static const char *const incast_names[] = {"type", "senders", "receiver", "size", "count",
					   "start_us", "gap_us", "op", NULL};

static void
wl_incast(struct wl *w)
{
	uint16_t snd[LSW_HOST_MAX];
	struct pattern p;
	char q[LSW_PATH_LEN];
	int n, r;

	if (!lsw_jv_object(w->o, w->path, incast_names, w->errs))
		return;
	n = get_hosts(w, "senders", 1, snd);
	lsw_path_key(q, w->path, "receiver");
	r = get_host(w, json_object_get(w->o, "receiver") ?: json_null(), q);
	if (n < 0 || r < 0 || !get_pattern(w, &p))
		return;
	for (int i = 0; i < n; i++)
		if (qp_with_posts(w, snd[i], (uint16_t)r, p.op, p.size, p.count, p.start_ns,
				  p.gap_ns) < 0)
			return;
}

static const char *const group_names[] = {"type", "hosts", "size", "count", "start_us",
					  "gap_us", "op", NULL};

static void
wl_all_to_all(struct wl *w)
{
	uint16_t h[LSW_HOST_MAX];
	struct pattern p;
	int n;

	if (!lsw_jv_object(w->o, w->path, group_names, w->errs))
		return;
	n = get_hosts(w, "hosts", 2, h);
	if (n < 0 || !get_pattern(w, &p))
		return;
	for (int i = 0; i < n; i++)
		for (int j = 0; j < n; j++)
			if (i != j && qp_with_posts(w, h[i], h[j], p.op, p.size, p.count,
						    p.start_ns, p.gap_ns) < 0)
				return;
}

static void
wl_permutation(struct wl *w)
{
	uint16_t h[LSW_HOST_MAX], to[LSW_HOST_MAX];
	struct pattern p;
	int n;

	if (!lsw_jv_object(w->o, w->path, group_names, w->errs))
		return;
	n = get_hosts(w, "hosts", 2, h);
	if (n < 0 || !get_pattern(w, &p))
		return;
	/* A random derangement: shuffle until nobody sends to itself (expected e tries). */
	for (int tries = 0;; tries++) {
		bool fixed = false;
		for (int i = 0; i < n; i++)
			to[i] = (uint16_t)i;
		for (int i = n - 1; i > 0; i--) {
			int j = (int)(rnd(&w->seed) % (uint64_t)(i + 1));
			uint16_t t = to[i];
			to[i] = to[j];
			to[j] = t;
		}
		for (int i = 0; i < n; i++)
			fixed |= to[i] == i;
		if (!fixed || tries == 1000)
			break;
	}
	for (int i = 0; i < n; i++)
		if (qp_with_posts(w, h[i], h[to[i]], p.op, p.size, p.count, p.start_ns,
				  p.gap_ns) < 0)
			return;
}

static const char *const ring_names[] = {"type", "hosts", "size", "iterations", "start_us",
					 "compute_us", NULL};

static void
wl_ring(struct wl *w)
{
	uint16_t h[LSW_HOST_MAX];
	uint64_t size, iters, start, compute;
	struct lsw_hosts *e = w->e;
	char p[LSW_PATH_LEN];
	int n;

	if (!lsw_jv_object(w->o, w->path, ring_names, w->errs))
		return;
	n = get_hosts(w, "hosts", 2, h);
	if (n < 0 || !get_size(w, &size) || !get_u64(w, "iterations", 1, 100000, 1, &iters) ||
	    !get_u64(w, "start_us", 0, 3600000000ull, 0, &start) ||
	    !get_u64(w, "compute_us", 0, 3600000000ull, 0, &compute))
		return;
	lsw_path_key(p, w->path, "hosts");
	for (int i = 0; i < n; i++)
		if (!e->host[h[i]].local) {
			lsw_errs_add(w->errs, p, "a collective runs within one lsw-host process: "
				     "host %s is not run here", e->host[h[i]].c.name);
			return;
		}
	struct lsw_coll *c = realloc(e->coll, (e->n_coll + 1) * sizeof(*c));
	if (c == NULL)
		return;
	e->coll = c;
	c = &e->coll[e->n_coll++];
	memset(c, 0, sizeof(*c));
	c->n = (uint32_t)n;
	c->steps = 2 * (c->n - 1);
	c->chunk = (uint32_t)(size / c->n);
	c->iterations = (uint32_t)iters;
	c->compute_ns = compute * 1000;
	c->start_at = start * 1000 + c->compute_ns; /* the first steps after the first compute */
	c->qps = calloc(c->n, sizeof(*c->qps));
	c->jct_ns = calloc(c->iterations, sizeof(*c->jct_ns));
	if (c->qps == NULL || c->jct_ns == NULL)
		return;
	for (uint32_t i = 0; i < c->n; i++) {
		int qp = qp_with_posts(w, h[i], h[(i + 1) % c->n], LSW_OPK_WRITE, c->chunk,
				       0, 0, 0);
		if (qp < 0)
			return;
		c->qps[i] = (uint32_t)qp;
	}
	e->msgs_total += (uint64_t)c->n * c->steps * c->iterations;
}

/* ---- Poisson arrivals from a flow-size CDF (web search and Hadoop) -------------------- */

struct cdf {
	double size[256], pct[256];
	int n;
};

static bool
cdf_load(const char *path, struct cdf *c)
{
	FILE *f = fopen(path, "r");
	char line[256];

	if (f == NULL)
		return false;
	c->n = 0;
	while (fgets(line, sizeof(line), f) != NULL && c->n < 256) {
		double s, p;
		if (line[0] == '#' || sscanf(line, "%lf %lf", &s, &p) != 2)
			continue;
		if (c->n > 0 && (s < c->size[c->n - 1] || p < c->pct[c->n - 1])) {
			fclose(f);
			return false;
		}
		c->size[c->n] = s;
		c->pct[c->n++] = p;
	}
	fclose(f);
	return c->n >= 2 && c->pct[c->n - 1] == 100;
}

/* Invert the CDF with linear interpolation between its points. */
static double
cdf_sample(const struct cdf *c, double u)
{
	double pct = u * 100;

	for (int i = 1; i < c->n; i++)
		if (pct <= c->pct[i]) {
			double span = c->pct[i] - c->pct[i - 1];
			double f = span > 0 ? (pct - c->pct[i - 1]) / span : 1;
			return c->size[i - 1] + f * (c->size[i] - c->size[i - 1]);
		}
	return c->size[c->n - 1];
}

static double
cdf_mean(const struct cdf *c)
{
	double m = 0;

	for (int i = 1; i < c->n; i++)
		m += (c->size[i] + c->size[i - 1]) / 2 * (c->pct[i] - c->pct[i - 1]) / 100;
	return m;
}

static const char *const poisson_names[] = {"type", "hosts", "cdf", "load", "duration_ms",
					    "start_us", "max_flows", "size_scale", "op", NULL};

static void
wl_poisson(struct wl *w, const char *cdf_dir)
{
	uint16_t h[LSW_HOST_MAX];
	struct lsw_hosts *e = w->e;
	char p[LSW_PATH_LEN], file[2 * LSW_HOST_MAX_PATH];
	uint64_t dur, start, maxf;
	double load = 0, scale = 1;
	const char *name;
	struct cdf cdf;
	json_t *v;
	int n;

	if (!lsw_jv_object(w->o, w->path, poisson_names, w->errs))
		return;
	n = get_hosts(w, "hosts", 2, h);
	if (n < 0 || !get_u64(w, "duration_ms", 1, 3600000, 100, &dur) ||
	    !get_u64(w, "start_us", 0, 3600000000ull, 0, &start) ||
	    !get_u64(w, "max_flows", 1, 10000000, 100000, &maxf))
		return;
	lsw_path_key(p, w->path, "load");
	v = json_object_get(w->o, "load");
	if (v == NULL || !json_is_number(v) || (load = json_number_value(v)) <= 0 || load > 1) {
		lsw_errs_add(w->errs, p,
			     "expected the offered load of each sender's link, in (0, 1]");
		return;
	}
	lsw_path_key(p, w->path, "size_scale");
	v = json_object_get(w->o, "size_scale");
	if (v != NULL && (!json_is_number(v) || (scale = json_number_value(v)) <= 0)) {
		lsw_errs_add(w->errs, p, "expected a positive number that multiplies every size");
		return;
	}
	lsw_path_key(p, w->path, "cdf");
	v = json_object_get(w->o, "cdf");
	if (v == NULL || !lsw_jv_str(v, p, 200, &name, w->errs)) {
		if (v == NULL)
			lsw_errs_add(w->errs, p,
				     "expected \"websearch\", \"hadoop\" or a CDF file");
		return;
	}
	/* A bare name is one of the distributions shipped with lsw. */
	if (strchr(name, '/') == NULL)
		snprintf(file, sizeof(file), "%s/%s.txt", cdf_dir, name);
	else
		snprintf(file, sizeof(file), "%s", name);
	if (!cdf_load(file, &cdf)) {
		lsw_errs_add(w->errs, p,
			     "%s: not a CDF file (lines 'SIZE_BYTES CUMULATIVE_PERCENT', "
			     "rising to 100)", file);
		return;
	}
	enum lsw_op_kind op = get_op(w);
	double mean = cdf_mean(&cdf) * scale;
	uint64_t flows = 0;
	/* Per sender, arrivals at rate load x link / mean size: each flow its own QP to a
	 * receiver drawn among the others. Generated sender by sender so that a host's flows
	 * do not depend on how many flows the others drew. */
	for (int i = 0; i < n && flows < maxf; i++) {
		const struct lsw_host *s = &e->host[h[i]];
		double lambda = load * (double)s->c.speed_bps / 8 / mean; /* flows per second */
		uint64_t seed = w->seed ^ (0x51ed27ull * (uint64_t)(i + 1));
		double t = 0;
		for (;;) {
			t += -log(1 - rnd_unit(&seed)) / lambda;
			if (t * 1e9 >= (double)dur * 1e6 || flows >= maxf)
				break;
			int j = (int)(rnd(&seed) % (uint64_t)(n - 1));
			uint16_t dst = h[j >= i ? j + 1 : j];
			double size = cdf_sample(&cdf, rnd_unit(&seed)) * scale;
			if (size < 1)
				size = 1;
			if (size > UINT32_MAX)
				size = UINT32_MAX;
			if (qp_with_posts(w, h[i], dst, op, (uint64_t)size, 1,
					  start * 1000 + (uint64_t)(t * 1e9), 0) < 0)
				return;
			flows++;
		}
	}
}

void
lsw_host_workload(json_t *list, const char *path, struct lsw_hosts *e,
		  const struct lsw_host_run *run, const char *cdf_dir, struct lsw_errs *errs)
{
	static const char *const types[] = {"flow", "incast", "all_to_all", "permutation",
					    "ring_allreduce", "poisson", NULL};
	size_t i;
	json_t *o;

	if (!json_is_array(list)) {
		lsw_errs_add(errs, path, "expected a list of flows and patterns");
		return;
	}
	json_array_foreach(list, i, o) {
		char p[LSW_PATH_LEN], tp[LSW_PATH_LEN];
		unsigned int type;
		struct wl w = {.o = o, .path = p, .e = e, .run = run, .errs = errs,
			       .seed = run->seed * 0x9e3779b97f4a7c15ull + i};
		json_t *t;

		lsw_path_index(p, path, i);
		if (!json_is_object(o)) {
			lsw_errs_add(errs, p, "expected an object with a \"type\"");
			continue;
		}
		lsw_path_key(tp, p, "type");
		t = json_object_get(o, "type");
		if (t == NULL) {
			lsw_errs_add(errs, tp, "missing: one of flow, incast, all_to_all, "
				     "permutation, ring_allreduce, poisson");
			continue;
		}
		if (!lsw_jv_enum(t, tp, types, &type, errs))
			continue;
		switch (type) {
		case 0: wl_flow(&w); break;
		case 1: wl_incast(&w); break;
		case 2: wl_all_to_all(&w); break;
		case 3: wl_permutation(&w); break;
		case 4: wl_ring(&w); break;
		default: wl_poisson(&w, cdf_dir); break;
		}
	}
	lsw_hosts_sort_posts(e);
}
