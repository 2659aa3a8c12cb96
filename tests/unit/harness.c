/* SPDX-License-Identifier: BSD-3-Clause */
#include <arpa/inet.h>
#include <stdalign.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <rte_dev.h>
#include <rte_eal.h>
#include <rte_arp.h>
#include <rte_ip.h>
#include <rte_udp.h>
#include <rte_malloc.h>
#include "capture.h"
#include "jsonv.h"
#include "harness.h"
#include "rpc.h"

static struct rte_mempool *pool;

void
t_eal_init(void)
{
	static bool done;
	char *argv[] = {"test", "--no-huge", "--no-shconf", "-m", "1024", "--no-pci", "-l", "0",
			"--log-level", "error", "--file-prefix", "lswtest", NULL};

	if (done)
		return;
	if (rte_eal_init((int)(sizeof(argv) / sizeof(argv[0])) - 1, argv) < 0) {
		fprintf(stderr, "EAL init failed\n");
		exit(1);
	}
	pool = rte_pktmbuf_pool_create("t_pool", 4096, 0, 0, 10240, SOCKET_ID_ANY);
	if (pool == NULL || lsw_meta_register() != 0)
		exit(1);
	done = true;
}

struct rte_mempool *
t_pool(void)
{
	return pool;
}

struct t_switch *
t_switch_new(const char *json)
{
	/* Workers' state is cache-line aligned: calloc's 16 bytes are not enough (UBSan). */
	struct t_switch *t = aligned_alloc(alignof(struct t_switch),
		RTE_ALIGN_CEIL(sizeof(struct t_switch), alignof(struct t_switch)));
	struct lsw_switch *sw = &t->sw;
	struct lsw_errs errs;
	json_error_t je;
	json_t *doc = json_loads(json, 0, &je);

	if (t == NULL)
		abort();
	memset(t, 0, sizeof(*t));
	t_eal_init();
	if (doc == NULL) {
		fprintf(stderr, "bad test JSON: %s line %d\n", je.text, je.line);
		abort();
	}
	sw->cfg = lsw_config_from_json(doc, &errs);
	json_decref(doc);
	if (sw->cfg == NULL) {
		for (unsigned int i = 0; i < errs.n; i++)
			fprintf(stderr, "%s: %s\n", errs.e[i].path, errs.e[i].msg);
		abort();
	}
	static unsigned int seq; /* a failed test leaves its tables behind: fresh names */
	char name[32];
	snprintf(name, sizeof(name), "t%u", seq++);
	sw->fibc = lsw_fibctl_create(NULL, name);
	assert_non_null(sw->fibc);
	assert_int_equal(lsw_fibctl_load(sw->fibc, sw->cfg), 0);
	sw->fib6c = lsw_fib6ctl_create(NULL, name, 0);
	assert_non_null(sw->fib6c);
	assert_int_equal(lsw_fib6ctl_update(sw->fib6c, sw->cfg, 0), 0);
	sw->dp.fib6 = sw->fib6c->fib;
	for (uint16_t p = 0; p < sw->cfg->n_ports; p++) {
		sw->port[p].port_id = p;
		sw->port[p].mac = sw->cfg->port[p].mac;
		sw->port[p].speed = sw->cfg->port[p].speed ? sw->cfg->port[p].speed : 10000;
		sw->dp.sched[p] = rte_zmalloc("t_sched", sizeof(struct lsw_sched), 64);
		assert_int_equal(lsw_sched_init(sw->dp.sched[p], 4096, SOCKET_ID_ANY), 0);
	}
	for (uint16_t w = 0; w < LSW_MAX_WORKERS; w++)
		sw->dp.buffer[w] = rte_zmalloc("t_mmu", sizeof(struct lsw_buffer_lcore), 64);
	sw->dp.fib = sw->fibc->fib;
	sw->dp.pool = pool;
	sw->dp.tsc_hz = T_HZ;
	lsw_clock_anchor(&sw->clock, T_HZ);
	sw->dp.n_workers = 1;
	/* No worker thread is ever online here, so a publish frees the old snapshot at once. */
	sw->dp.qsv = rte_zmalloc("t_qsv", rte_rcu_qsbr_get_memsize(1), RTE_CACHE_LINE_SIZE);
	assert_int_equal(rte_rcu_qsbr_init(sw->dp.qsv, 1), 0);
	sw->dp.ctr = rte_zmalloc("t_ctr", sizeof(*sw->dp.ctr) * LSW_MAX_WORKERS,
				 RTE_CACHE_LINE_SIZE);
	sw->dp.ecmp_sig = rte_zmalloc("t_sig", sizeof(*sw->dp.ecmp_sig) * LSW_MAX_PORTS,
				      RTE_CACHE_LINE_SIZE);
	strcat(name, "_neigh");
	sw->dp.neigh_ring = rte_ring_create_elem(name, sizeof(struct lsw_neigh_msg), 64,
						 SOCKET_ID_ANY, RING_F_SC_DEQ);
	t->conf = lsw_snapshot_build(sw);
	sw->dp.conf = t->conf;
	lsw_worker_init(&t->w, &sw->dp, 0, 1);
	return t;
}

int
t_start_ports(struct t_switch *t)
{
	struct lsw_switch *sw = &t->sw;

	for (uint16_t p = 0; p < sw->cfg->n_ports; p++) {
		char name[64];
		const char *devargs = sw->cfg->port[p].devargs, *comma = strchr(devargs, ',');
		snprintf(name, sizeof(name), "%.*s",
			 (int)(comma ? comma - devargs : (int)strlen(devargs)), devargs);
		if (rte_eal_hotplug_add("vdev", name, comma ? comma + 1 : "") != 0)
			return -1;
	}
	if (lsw_ports_init(sw) != 0)
		return -1;
	t->ports_started = true;
	t_rebuild(t);
	return 0;
}

void
t_rebuild(struct t_switch *t)
{
	struct lsw_snapshot *n = lsw_snapshot_build(&t->sw);

	assert_non_null(n);
	lsw_ecmp_retire(t->conf, n);
	rte_free(t->conf);
	t->conf = n;
	t->sw.dp.conf = n;
}

void
t_switch_free(struct t_switch *t)
{
	struct lsw_switch *sw = &t->sw;

	if (t->ports_started) {
		lsw_ports_close(sw);
		for (uint16_t p = 0; p < sw->cfg->n_ports; p++) {
			char name[64];
			snprintf(name, sizeof(name), "%.*s",
				 (int)strcspn(sw->cfg->port[p].devargs, ","),
				 sw->cfg->port[p].devargs);
			rte_eal_hotplug_remove("vdev", name);
		}
	}
	for (uint16_t p = 0; p < LSW_MAX_PORTS; p++) {
		struct rte_mbuf *m;
		while ((m = t_tx_take(t, p)) != NULL)
			rte_pktmbuf_free(m);
	}
	lsw_nexthop_drop_held(&t->w);
	lsw_capture_free(sw);
	for (uint16_t p = 0; p < LSW_MAX_PORTS; p++) {
		if (sw->dp.sched[p] != NULL)
			lsw_sched_free(sw->dp.sched[p]);
		rte_free(sw->dp.sched[p]);
	}
	for (uint16_t w = 0; w < LSW_MAX_WORKERS; w++)
		rte_free(sw->dp.buffer[w]);
	sw->dp.conf = t->conf;
	lsw_ecmp_free(sw);
	lsw_fibctl_destroy(sw->fibc);
	lsw_fib6ctl_destroy(sw->fib6c);
	rte_free(sw->dp.ecmp_sig);
	rte_ring_free(sw->dp.neigh_ring);
	lsw_timeline_free(sw);
	rte_free(sw->dp.ctr);
	rte_free(sw->dp.qsv);
	rte_free(t->conf);
	lsw_config_free(sw->cfg);
	free(t);
	/* Every test must give every mbuf back. */
	assert_int_equal(rte_mempool_avail_count(pool), pool->size);
}

struct rte_mbuf *
t_mbuf(const void *frame, uint16_t len)
{
	struct rte_mbuf *m = rte_pktmbuf_alloc(pool);

	assert_non_null(m);
	memcpy(rte_pktmbuf_append(m, len), frame, len);
	return m;
}

void
t_rx(struct t_switch *t, uint16_t port, const void *frame, uint16_t len, uint64_t now)
{
	struct rte_mbuf *m = t_mbuf(frame, len);

	m->port = t->sw.port[port].port_id; /* as the PMD sets it */
	lsw_process_burst(&t->w, t->conf, port, &m, 1, now);
}

uint16_t
t_tx_count(struct t_switch *t, uint16_t port)
{
	struct lsw_sched *s = t->sw.dp.sched[port];
	uint32_t n = t->w.txb[port].n + t->w.hob[port].n;

	if (s == NULL)
		return (uint16_t)n;
	n += lsw_fifo_count(&s->ctl);
	for (int q = 0; q < LSW_NUM_QUEUES; q++)
		n += lsw_fifo_count(&s->q[q]);
	return (uint16_t)n;
}

/* The control queue first, then queues 0..7: what the port would send, in a fixed order,
 * with the MMU released as a real dequeue does. */
struct rte_mbuf *
t_tx_take(struct t_switch *t, uint16_t port)
{
	struct lsw_sched *s = t->sw.dp.sched[port];
	struct lsw_txbuf *b = &t->w.txb[port];
	struct rte_mbuf *m;

	if (s != NULL && (m = lsw_fifo_pop(&s->ctl)) != NULL)
		return m;
	for (int q = 0; s != NULL && q < LSW_NUM_QUEUES; q++) {
		struct lsw_qent *e = lsw_fifo_pop_ent(&s->q[q]);
		if (e == NULL)
			continue;
		struct lsw_pkt_meta meta = {
			.charged = e->charged, .in_port = e->in_port, .pg = e->pg,
			.out_port = (uint8_t)port, .queue = (uint8_t)q, .in_part = e->in_part,
			.eg_part = e->eg_part,
		};
		s->q[q].bytes -= e->m->pkt_len;
		lsw_buffer_release(t->w.buffer, &t->conf->buffer, &meta);
		return e->m;
	}
	struct lsw_hostage *h = &t->w.hob[port];
	if (h->n != 0) { /* staged for another worker: released as its owner would */
		struct lsw_hoent e = h->e[0];
		memmove(h->e, h->e + 1, (size_t)(h->n - 1) * sizeof(h->e[0]));
		h->n--;
		m = lsw_hoent_mbuf(e.mq);
		if (!(e.mq & (LSW_HO_CTL | LSW_HO_DIRECT))) {
			struct lsw_pkt_meta meta = {
				.charged = e.c.bytes, .in_port = e.c.in_port, .pg = e.c.pg,
				.out_port = (uint8_t)port, .queue = (uint8_t)(e.mq & LSW_HO_QUEUE),
				.in_part = e.c.in_part, .eg_part = e.c.eg_part,
			};
			lsw_buffer_release(t->w.buffer, &t->conf->buffer, &meta);
		}
		return m;
	}
	if (b->n == 0)
		return NULL;
	m = b->pkt[0];
	memmove(b->pkt, b->pkt + 1, (size_t)(b->n - 1) * sizeof(b->pkt[0]));
	b->n--;
	return m;
}

uint64_t
t_drops(struct t_switch *t, uint16_t port, enum lsw_drop d)
{
	return t->sw.dp.ctr[0].port[port].drop[d];
}

uint64_t
t_event(struct t_switch *t, enum lsw_event e)
{
	return t->sw.dp.ctr[0].event[e];
}

uint32_t
t_ip(const char *s)
{
	uint32_t ip = 0;

	assert_true(lsw_parse_ipv4(s, &ip));
	return ip;
}

void
t_mac(const char *s, struct rte_ether_addr *m)
{
	assert_true(lsw_parse_mac(s, m));
}

bool
t_ipv4_csum_ok(const struct rte_ipv4_hdr *ip)
{
	return rte_raw_cksum(ip, rte_ipv4_hdr_len(ip)) == 0xffff;
}

static uint8_t *
eth(uint8_t *buf, const char *dmac, const char *smac, int vlan, uint16_t type)
{
	struct rte_ether_hdr *e = (struct rte_ether_hdr *)buf;

	t_mac(dmac, &e->dst_addr);
	t_mac(smac, &e->src_addr);
	if (vlan < 0) {
		e->ether_type = rte_cpu_to_be_16(type);
		return buf + 14;
	}
	e->ether_type = rte_cpu_to_be_16(RTE_ETHER_TYPE_VLAN);
	buf[14] = (uint8_t)(vlan >> 8);
	buf[15] = (uint8_t)vlan;
	buf[16] = (uint8_t)(type >> 8);
	buf[17] = (uint8_t)type;
	return buf + 18;
}

void
t_mangle_ipv4(uint8_t *buf, uint16_t *len, int kind)
{
	struct rte_ipv4_hdr *ip = (struct rte_ipv4_hdr *)(buf + 14);

	switch (kind) {
	case 1:
		buf[12 + rand() % 22] ^= (uint8_t)(1 << rand() % 8);
		break;
	case 2:
		buf[14 + rand() % 20] ^= (uint8_t)(1 << rand() % 8);
		ip->hdr_checksum = 0;
		ip->hdr_checksum = rte_ipv4_cksum(ip);
		break;
	case 3:
		*len = (uint16_t)(rand() % (*len + 16));
		break;
	}
}

uint16_t
t_build_ipv4(uint8_t *buf, const struct t_flow *f)
{
	uint8_t proto = f->proto ? f->proto : IPPROTO_UDP;
	uint8_t *l3 = eth(buf, f->dmac ? f->dmac : "02:00:00:00:00:01",
			  f->smac ? f->smac : "02:00:00:00:01:01", f->vlan, RTE_ETHER_TYPE_IPV4);
	struct rte_ipv4_hdr *ip = (struct rte_ipv4_hdr *)l3;
	uint16_t l4 = proto == IPPROTO_UDP ? 8 : proto == IPPROTO_ICMP ? 8 : 20;
	uint16_t tlen = (uint16_t)(20 + l4 + f->payload);

	memset(ip, 0, tlen);
	ip->version_ihl = RTE_IPV4_VHL_DEF;
	ip->type_of_service = f->tos;
	ip->total_length = rte_cpu_to_be_16(tlen);
	ip->time_to_live = f->ttl ? f->ttl : 64;
	ip->next_proto_id = proto;
	ip->fragment_offset = f->df ? rte_cpu_to_be_16(RTE_IPV4_HDR_DF_FLAG) : 0;
	ip->src_addr = rte_cpu_to_be_32(t_ip(f->src ? f->src : "10.0.0.1"));
	ip->dst_addr = rte_cpu_to_be_32(t_ip(f->dst ? f->dst : "10.1.0.1"));
	uint8_t *p = l3 + 20;
	if (proto == IPPROTO_UDP || proto == IPPROTO_TCP) {
		p[0] = (uint8_t)(f->sport >> 8);
		p[1] = (uint8_t)f->sport;
		p[2] = (uint8_t)(f->dport >> 8);
		p[3] = (uint8_t)f->dport;
		if (proto == IPPROTO_UDP) {
			p[4] = (uint8_t)((l4 + f->payload) >> 8);
			p[5] = (uint8_t)(l4 + f->payload);
		}
	}
	for (uint16_t i = 0; i < f->payload; i++)
		p[l4 + i] = (uint8_t)i;
	ip->hdr_checksum = rte_ipv4_cksum(ip);
	return (uint16_t)(l3 - buf + tlen);
}

void
t_ip6(const char *s, uint8_t *ip)
{
	if (inet_pton(AF_INET6, s, ip) != 1)
		fail_msg("bad IPv6 address %s", s);
}

uint16_t
t_build_ipv6(uint8_t *buf, const struct t_flow *f)
{
	uint8_t proto = f->proto ? f->proto : IPPROTO_UDP;
	uint8_t *l3 = eth(buf, f->dmac ? f->dmac : "02:00:00:00:00:01",
			  f->smac ? f->smac : "02:00:00:00:01:01", f->vlan, RTE_ETHER_TYPE_IPV6);
	struct rte_ipv6_hdr *ip = (struct rte_ipv6_hdr *)l3;
	uint16_t l4 = proto == IPPROTO_UDP || proto == IPPROTO_ICMPV6 ? 8 :
		      proto == IPPROTO_TCP ? 20 : 0;
	uint16_t plen = (uint16_t)(l4 + f->payload);

	memset(ip, 0, 40u + plen);
	ip->vtc_flow = rte_cpu_to_be_32(6u << 28 | (uint32_t)f->tos << 20 | f->flow_label);
	ip->payload_len = rte_cpu_to_be_16(plen);
	ip->proto = proto;
	ip->hop_limits = f->ttl ? f->ttl : 64;
	t_ip6(f->src ? f->src : "2001:db8::2", ip->src_addr);
	t_ip6(f->dst ? f->dst : "2001:db8:1::1", ip->dst_addr);
	uint8_t *p = l3 + 40;
	if (proto == IPPROTO_UDP || proto == IPPROTO_TCP) {
		p[0] = (uint8_t)(f->sport >> 8);
		p[1] = (uint8_t)f->sport;
		p[2] = (uint8_t)(f->dport >> 8);
		p[3] = (uint8_t)f->dport;
		if (proto == IPPROTO_UDP) {
			p[4] = (uint8_t)(plen >> 8);
			p[5] = (uint8_t)plen;
		}
	}
	for (uint16_t i = 0; i < f->payload; i++)
		p[l4 + i] = (uint8_t)i;
	if (proto == IPPROTO_ICMPV6) {
		p[0] = f->icmp_type;
		p[4] = 0x12;
		p[5] = 0x34;
		uint16_t s = (uint16_t)~lsw_icmp6_sum(ip, p, plen);
		memcpy(p + 2, &s, 2);
	}
	return (uint16_t)(l3 - buf + 40 + plen);
}

uint16_t
t_build_arp(uint8_t *buf, uint16_t op, const char *smac, const char *sip, const char *tmac,
	    const char *tip, const char *eth_dst)
{
	struct rte_arp_hdr *a = (struct rte_arp_hdr *)eth(buf, eth_dst, smac, -1,
							   RTE_ETHER_TYPE_ARP);

	a->arp_hardware = rte_cpu_to_be_16(RTE_ARP_HRD_ETHER);
	a->arp_protocol = rte_cpu_to_be_16(RTE_ETHER_TYPE_IPV4);
	a->arp_hlen = 6;
	a->arp_plen = 4;
	a->arp_opcode = rte_cpu_to_be_16(op);
	t_mac(smac, &a->arp_data.arp_sha);
	t_mac(tmac, &a->arp_data.arp_tha);
	a->arp_data.arp_sip = rte_cpu_to_be_32(t_ip(sip));
	a->arp_data.arp_tip = rte_cpu_to_be_32(t_ip(tip));
	return 14 + sizeof(*a);
}

static void
merge(json_t *target, json_t *patch)
{
	const char *k;
	json_t *v;

	json_object_foreach(patch, k, v) {
		json_t *t = json_object_get(target, k);
		if (json_is_null(v))
			json_object_del(target, k);
		else if (json_is_object(v) && json_is_object(t))
			merge(t, v);
		else
			json_object_set(target, k, v);
	}
}

struct lsw_config *
t_config_patch(const char *base, const char *patch, struct lsw_errs *errs)
{
	json_t *doc = json_loads(base, 0, NULL), *p = json_loads(patch, 0, NULL);

	assert_non_null(doc);
	if (p == NULL)
		fail_msg("bad patch JSON: %s", patch);
	merge(doc, p);
	struct lsw_config *c = lsw_config_from_json(doc, errs);
	json_decref(doc);
	json_decref(p);
	return c;
}

void
t_config_refused(const char *base, const char *const (*cases)[3], size_t n)
{
	for (size_t i = 0; i < n; i++) {
		const char *patch = cases[i][0], *path = cases[i][1], *words = cases[i][2];
		struct lsw_errs errs;
		struct lsw_config *c = t_config_patch(base, patch, &errs);
		bool found = false;
		if (c != NULL)
			fail_msg("accepted: %s", patch);
		for (unsigned int e = 0; e < errs.n && e < LSW_ERRS_MAX; e++)
			if (strcmp(errs.e[e].path, path) == 0 &&
			    strstr(errs.e[e].msg, words) != NULL)
				found = true;
		if (!found) {
			for (unsigned int e = 0; e < errs.n && e < LSW_ERRS_MAX; e++)
				print_error("  got %s: %s\n", errs.e[e].path, errs.e[e].msg);
			fail_msg("%s: no error '%s' at %s", patch, words, path);
		}
	}
}

json_t *
t_rpc(struct t_switch *t, const char *method, const char *params)
{
	json_error_t je;
	json_t *p = params ? json_loads(params, 0, &je) : json_object();
	json_t *req, *resp;

	if (p == NULL) {
		fprintf(stderr, "bad test params: %s\n", je.text);
		abort();
	}
	req = json_pack("{s:s, s:i, s:s, s:o}", "jsonrpc", "2.0", "id", 1, "method", method,
			"params", p);
	resp = lsw_rpc_handle(&t->sw, req);
	json_decref(req);
	t->conf = t->sw.dp.conf; /* a config change published a new snapshot */
	return resp;
}

const char *
t_error_path(json_t *resp)
{
	json_t *errs = json_object_get(json_object_get(json_object_get(resp, "error"), "data"),
				       "errors");
	return json_string_value(json_object_get(json_array_get(errs, 0), "path"));
}

json_t *
t_rpc_ok(struct t_switch *t, const char *method, const char *params, json_t **resp)
{
	*resp = t_rpc(t, method, params);
	json_t *r = json_object_get(*resp, "result");
	if (r == NULL) {
		char *txt = json_dumps(*resp, 0);
		fprintf(stderr, "%s %s: %s\n", method, params ? params : "", txt);
		free(txt);
	}
	assert_non_null(r);
	return r;
}
