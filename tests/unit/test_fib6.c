/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The IPv6 FIB against a reference: routes of every length (::/0 to /128) agree with a
 * bit-by-bit binary trie on a million addresses; changes under a concurrent reader (a
 * thread reporting to the QSBR variable, as workers do) never show it a missing or wrong
 * route; refusals change nothing.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <string.h>
#include <rte_malloc.h>
#include "harness.h"
#include "jsonv.h"

#define N_ROUTES   10000
#define N_LOOKUPS  1000000
#define N_NH       4000

/* Reference longest-prefix match: a binary trie, one node per bit. */
struct ref_node {
	int32_t child[2];
	int64_t value;   /* -1: no route ends here */
};
static struct ref_node *ref;
static uint32_t ref_n, ref_cap;

static void
ref_reset(void)
{
	ref_cap = 1 << 20;
	ref = realloc(ref, sizeof(*ref) * ref_cap);
	ref_n = 1;
	ref[0] = (struct ref_node){{-1, -1}, -1};
}

static int
bit(const uint8_t *a, unsigned int i)
{
	return a[i / 8] >> (7 - i % 8) & 1;
}

static void
ref_set(const uint8_t *p, uint8_t plen, int64_t value)
{
	uint32_t n = 0;

	for (unsigned int i = 0; i < plen; i++) {
		int b = bit(p, i);
		if (ref[n].child[b] < 0) {
			if (ref_n == ref_cap) {
				ref_cap *= 2;
				ref = realloc(ref, sizeof(*ref) * ref_cap);
			}
			ref[ref_n] = (struct ref_node){{-1, -1}, -1};
			ref[n].child[b] = (int32_t)ref_n++;
		}
		n = (uint32_t)ref[n].child[b];
	}
	ref[n].value = value;
}

static uint32_t
ref_lookup(const uint8_t *a)
{
	int64_t best = LSW_FIB6_MISS;
	int32_t n = 0;

	for (unsigned int i = 0; n >= 0; i++) {
		if (ref[n].value >= 0)
			best = ref[n].value;
		if (i == 128)
			break;
		n = ref[n].child[bit(a, i)];
	}
	return (uint32_t)best;
}

static uint64_t rng = 88172645463325252ull;

static uint64_t
xr(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

static void
rand_addr(uint8_t *a)
{
	uint64_t x = xr(), y = xr();

	memcpy(a, &x, 8);
	memcpy(a + 8, &y, 8);
}

/* Two ports: Ethernet0 2001:db8:ffff::1/64 (the next hops), Ethernet4 fd00::1/127. */
static struct lsw_config *
base_config(uint32_t n_routes)
{
	struct lsw_config *c = calloc(1, sizeof(*c));

	c->n_ports = 2;
	snprintf(c->port[0].name, LSW_NAME_LEN, "Ethernet0");
	snprintf(c->port[1].name, LSW_NAME_LEN, "Ethernet4");
	c->port[0].n_addr6 = 1;
	t_ip6("2001:db8:ffff::1", c->port[0].addr6[0].ip);
	c->port[0].addr6[0].plen = 64;
	c->port[1].n_addr6 = 1;
	t_ip6("fd00::1", c->port[1].addr6[0].ip);
	c->port[1].addr6[0].plen = 127;
	c->routes6 = calloc(n_routes + 1, sizeof(*c->routes6));
	return c;
}

static void
nh_addr(uint8_t *a, uint32_t i)
{
	t_ip6("2001:db8:ffff::", a);
	a[12] = 0x10;
	a[14] = (uint8_t)(i >> 8);
	a[15] = (uint8_t)i;
}

/* A random route of length @plen with next hop @nh into @r (host bits cleared). */
static void
rand_route(struct lsw_route6_conf *r, uint8_t plen, uint32_t nh)
{
	*r = (struct lsw_route6_conf){.plen = plen, .n_nh = 1};
	rand_addr(r->prefix);
	lsw_ip6_mask(r->prefix, plen);
	/* Not on the switch's own subnets (the config refuses those). */
	if (r->prefix[0] == 0x20 || r->prefix[0] == 0xfd)
		r->prefix[0] = 0x30;
	nh_addr(r->nh_ip[0], nh);
	r->nh_port[0] = 0;
}

/* The reference holds the connected and local routes, then @c's static ones. */
static void
ref_load(struct lsw_fib6ctl *fc, const struct lsw_config *c)
{
	ref_reset();
	for (uint16_t p = 0; p < c->n_ports; p++) {
		const struct lsw_addr6 *a = &c->port[p].addr6[0];
		uint8_t net[16];
		memcpy(net, a->ip, 16);
		lsw_ip6_mask(net, a->plen);
		ref_set(net, a->plen, LSW_NHG6_ID_GLEAN0 + p);
		ref_set(a->ip, 128, LSW_NHG6_ID_LOCAL);
	}
	for (uint32_t i = 0; i < c->n_routes6; i++) {
		const struct lsw_route6_conf *r = &c->routes6[i];
		int id = lsw_fib6ctl_nh_find(fc, r->nh_ip[0], r->nh_port[0]);
		assert_true(id >= 0);
		ref_set(r->prefix, r->plen, LSW_FIB6_NH_BIT | (uint32_t)id);
	}
}

/* 10 000 routes of every length, ::/0 among them, then a million lookups: half at random,
 * half inside a route (random host bits), each in both tables. */
static void
test_reference_lpm(void **state)
{
	struct lsw_fib6ctl *fc = lsw_fib6ctl_create(NULL, "tref", 0);
	struct lsw_config *c = base_config(N_ROUTES);
	uint64_t agree = 0;

	(void)state;
	assert_non_null(fc);
	/* Every length once (::/0 and /128 among them), the rest of random lengths, one in
	 * ten longer than /64 as in real tables (each random prefix past /24 takes a chain
	 * of tbl8 groups of its own: 32767 at most); a prefix drawn twice is kept once. */
	for (uint32_t i = 0; c->n_routes6 < N_ROUTES; i++) {
		uint8_t plen = (uint8_t)(i < 129 ? i : xr() % 10 == 0 ? 65 + xr() % 64 :
					 xr() % 65);
		struct lsw_route6_conf *r = &c->routes6[c->n_routes6];
		bool dup = false;
		rand_route(r, plen, (uint32_t)(xr() % N_NH));
		for (uint32_t j = 0; j < c->n_routes6 && !dup; j++)
			dup = c->routes6[j].plen == plen &&
			      lsw_ip6_eq(c->routes6[j].prefix, r->prefix);
		c->n_routes6 += !dup;
	}
	assert_int_equal(lsw_fib6ctl_update(fc, c, 0), 0);
	ref_load(fc, c);
	for (uint32_t i = 0; i < N_LOOKUPS; i++) {
		uint8_t a[16];
		rand_addr(a);
		if (i & 1) {
			const struct lsw_route6_conf *r = &c->routes6[xr() % c->n_routes6];
			for (unsigned int b = 0; b < 16; b++) {
				unsigned int keep = r->plen > b * 8 ? r->plen - b * 8 : 0;
				uint8_t m = keep >= 8 ? 0xff : (uint8_t)(0xff00 >> keep);
				a[b] = (uint8_t)((r->prefix[b] & m) | (a[b] & ~m));
			}
		}
		uint32_t want = ref_lookup(a);
		uint8_t q[1][16];
		uint64_t v[2];
		memcpy(q[0], a, 16);
		rte_fib6_lookup_bulk(fc->fib->tbl[0], q, &v[0], 1);
		rte_fib6_lookup_bulk(fc->fib->tbl[1], q, &v[1], 1);
		if (v[0] != want || v[1] != want) {
			char s[64];
			lsw_fmt_ipv6(s, sizeof(s), a);
			fail_msg("%s: fib6 %lu/%lu, reference %u", s, (unsigned long)v[0],
				 (unsigned long)v[1], want);
		}
		agree++;
	}
	printf("fib6: %u routes (::/0 to /128), %lu of %u lookups agree with the reference\n",
	       c->n_routes6, (unsigned long)agree, N_LOOKUPS);
	/* ::/0 covers what nothing else does; without it, a miss. */
	uint8_t z[16];
	t_ip6("3fff:ffff::1", z);
	assert_int_not_equal(lsw_fib6_lookup(fc->fib, z), LSW_FIB6_MISS);
	free(c->routes6);
	free(c);
	lsw_fib6ctl_destroy(fc);
}

/* A reader thread as a worker: it looks up and reports quiescent states, checking that a
 * stable address always finds its route and a churned one one of its two next hops. */
struct reader {
	struct lsw_fib6 *fib;
	struct rte_rcu_qsbr *qsv;
	uint8_t stable[64][16];
	uint32_t stable_v[64];
	uint8_t churn[64][16];
	uint32_t churn_a[64], churn_b[64];
	atomic_int stop;
	uint64_t lookups, wrong;
};

static void *
reader_main(void *arg)
{
	struct reader *r = arg;

	rte_rcu_qsbr_thread_register(r->qsv, 0);
	rte_rcu_qsbr_thread_online(r->qsv, 0);
	while (!atomic_load(&r->stop)) {
		for (int i = 0; i < 64; i++) {
			uint32_t v = lsw_fib6_lookup(r->fib, r->stable[i]);
			uint32_t c = lsw_fib6_lookup(r->fib, r->churn[i]);
			r->wrong += v != r->stable_v[i];
			r->wrong += c != r->churn_a[i] && c != r->churn_b[i];
			r->lookups += 2;
		}
		rte_rcu_qsbr_quiescent(r->qsv, 0);
	}
	rte_rcu_qsbr_thread_offline(r->qsv, 0);
	rte_rcu_qsbr_thread_unregister(r->qsv, 0);
	return NULL;
}

/* 2000 route changes (a churned /64's next hop flipped between two, or a /80 under it
 * added or deleted) while a thread reads: no lookup ever misses or finds a next hop the
 * route never had. Anchor routes keep both next hops of each churned route alive, so that
 * their ids do not change. The changes take every path: lsw_fib6ctl_update; begin, a
 * grace period of the caller's (a snapshot's publish) and end; a begin left without its
 * end, which the next change ends. Then both tables agree. */
static void
test_churn_concurrent(void **state)
{
	struct rte_rcu_qsbr *qsv = rte_zmalloc("t_qsv6", rte_rcu_qsbr_get_memsize(1), 64);
	struct lsw_config *c = base_config(256);
	struct lsw_route6_conf sub[64];
	bool present[64];
	static struct reader r;
	struct lsw_fib6ctl *fc;
	pthread_t th;

	(void)state;
	assert_int_equal(rte_rcu_qsbr_init(qsv, 1), 0);
	fc = lsw_fib6ctl_create(qsv, "tchurn", 0);
	assert_non_null(fc);
	/* [0, 64) stable /48s via i; [64, 128) anchors via 100 + i; [128, 192) churned /64s
	 * via i or 100 + i; then the /80s present, via 100 + i. */
	for (uint32_t i = 0; i < 64; i++)
		rand_route(&c->routes6[i], 48, i);
	for (uint32_t i = 0; i < 64; i++)
		rand_route(&c->routes6[64 + i], 48, 100 + i);
	for (uint32_t i = 0; i < 64; i++) {
		rand_route(&c->routes6[128 + i], 64, i);
		sub[i] = c->routes6[128 + i];
		sub[i].plen = 80;
		nh_addr(sub[i].nh_ip[0], 100 + i);
		present[i] = false;
	}
	c->n_routes6 = 192;
	assert_int_equal(lsw_fib6ctl_update(fc, c, 0), 0);
	for (uint32_t i = 0; i < 64; i++) {
		memcpy(r.stable[i], c->routes6[i].prefix, 16);
		r.stable[i][15] = 1;
		r.churn_a[i] = LSW_FIB6_NH_BIT |
			(uint32_t)lsw_fib6ctl_nh_find(fc, c->routes6[i].nh_ip[0], 0);
		r.stable_v[i] = r.churn_a[i];
		r.churn_b[i] = LSW_FIB6_NH_BIT |
			(uint32_t)lsw_fib6ctl_nh_find(fc, c->routes6[64 + i].nh_ip[0], 0);
		memcpy(r.churn[i], c->routes6[128 + i].prefix, 16);
		r.churn[i][15] = 1;
	}
	r.fib = fc->fib;
	r.qsv = qsv;
	atomic_store(&r.stop, 0);
	assert_int_equal(pthread_create(&th, NULL, reader_main, &r), 0);
	uint64_t swaps = fc->swaps;
	for (int k = 0; k < 2000; k++) {
		uint32_t i = (uint32_t)(xr() % 64);
		if (k & 1) {
			struct lsw_route6_conf *ch = &c->routes6[128 + i];
			nh_addr(ch->nh_ip[0], ch->nh_ip[0][15] == i ? 100 + i : i);
		} else {
			present[i] = !present[i];
		}
		c->n_routes6 = 192;
		for (uint32_t j = 0; j < 64; j++)
			if (present[j])
				c->routes6[c->n_routes6++] = sub[j];
		if (k % 3 == 0) {
			assert_int_equal(lsw_fib6ctl_update(fc, c, 0), 0);
		} else {
			assert_int_equal(lsw_fib6ctl_update_begin(fc, c, 0), 0);
			if (k % 3 == 2)
				continue; /* ended by the next change */
			rte_rcu_qsbr_synchronize(qsv, RTE_QSBR_THRID_INVALID);
			lsw_fib6ctl_update_end(fc, c);
		}
	}
	rte_rcu_qsbr_synchronize(qsv, RTE_QSBR_THRID_INVALID);
	lsw_fib6ctl_update_end(fc, c);
	atomic_store(&r.stop, 1);
	pthread_join(th, NULL);
	/* Both tables hold the same routes: the churned, their /80s, the stable ones. */
	for (uint32_t i = 0; i < 64; i++) {
		uint8_t a[3][16];
		uint64_t v0[3], v1[3];
		memcpy(a[0], r.churn[i], 16);
		memcpy(a[1], sub[i].prefix, 16);
		a[1][15] = 9;
		memcpy(a[2], r.stable[i], 16);
		rte_fib6_lookup_bulk(fc->fib->tbl[0], a, v0, 3);
		rte_fib6_lookup_bulk(fc->fib->tbl[1], a, v1, 3);
		assert_memory_equal(v0, v1, sizeof(v0));
	}
	printf("fib6 churn: %lu changes applied, %lu lookups by the reader, %lu wrong\n",
	       (unsigned long)(fc->swaps - swaps), (unsigned long)r.lookups,
	       (unsigned long)r.wrong);
	assert_int_equal(fc->swaps - swaps, 2000);
	assert_true(r.lookups > 0);
	assert_int_equal(r.wrong, 0);
	lsw_fib6ctl_destroy(fc);
	rte_free(qsv);
	free(c->routes6);
	free(c);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_reference_lpm),
		cmocka_unit_test(test_churn_concurrent),
	};

	t_eal_init();
	return cmocka_run_group_tests(tests, NULL, NULL);
}
