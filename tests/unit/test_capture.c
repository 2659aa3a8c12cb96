/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Live capture: the pcapng writer read back by a parser of our own and by libpcap; frames
 * copied as received (before the worker rewrites them) and as sent (after the rewrite and
 * ECN marking, switch-originated ARP and ICMP included), only those the PMD took; filters
 * giving libpcap's own verdicts, JIT and interpreter alike; snap length and jumbo frames,
 * small copies and whole frames each one segment; empty pools counted as missed; count and
 * time limits; params refused with their paths and nothing changed.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <pcap/pcap.h>
#include <rte_bpf.h>
#include <rte_ethdev.h>
#include <rte_ip.h>
#include <rte_ring_elem.h>
#include "capture.h"
#include "harness.h"
#include "pcapng.h"

static uint8_t buf[10000];
static char dir[64];

/* A pcapng file as read back. */
struct t_pkt {
	uint32_t ifid, flags, caplen, len;
	uint64_t ts;
	uint8_t *data;
};

struct t_file {
	uint32_t n_if;
	char name[8][64];
	uint32_t snaplen[8];
	uint8_t tsresol[8];
	uint32_t n;
	struct t_pkt pkt[2048];
};

static uint32_t
rd32(const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, 4);
	return v;
}

static uint16_t
rd16(const uint8_t *p)
{
	uint16_t v;

	memcpy(&v, p, 2);
	return v;
}

/* The options from @o to @end: if_name and if_tsresol of an IDB, epb_flags of an EPB. */
static void
options(const uint8_t *o, const uint8_t *end, struct t_file *tf, struct t_pkt *pkt)
{
	if (o == end)
		return; /* none */
	while (o + 4 <= end) {
		uint16_t code = rd16(o), len = rd16(o + 2);
		assert_true(o + 4 + len <= end);
		if (code == 0)
			return;
		if (pkt != NULL && code == 2) {
			assert_int_equal(len, 4);
			pkt->flags = rd32(o + 4);
		} else if (pkt == NULL && code == 2) {
			assert_true(len < 64);
			memcpy(tf->name[tf->n_if], o + 4, len);
		} else if (pkt == NULL && code == 9) {
			tf->tsresol[tf->n_if] = o[4];
		}
		o += 4 + len + ((4 - (len & 3)) & 3);
	}
	fail_msg("options without opt_endofopt");
}

static struct t_file *
read_file(const char *path)
{
	FILE *f = fopen(path, "rb");
	struct t_file *tf = calloc(1, sizeof(*tf));
	static uint8_t b[4 << 20];
	size_t size, off = 0;

	assert_non_null(f);
	size = fread(b, 1, sizeof(b), f);
	fclose(f);
	assert_true(size >= 28);
	assert_int_equal(rd32(b), 0x0A0D0D0A);
	while (off < size) {
		assert_true(off + 12 <= size);
		uint32_t type = rd32(b + off), len = rd32(b + off + 4);
		assert_true(len >= 12 && len % 4 == 0 && off + len <= size);
		assert_int_equal(rd32(b + off + len - 4), len);
		const uint8_t *body = b + off + 8, *end = b + off + len - 4;
		if (type == 0x0A0D0D0A) {
			assert_int_equal(rd32(body), 0x1A2B3C4D);
			assert_int_equal(rd16(body + 4), 1);
			assert_int_equal(rd16(body + 6), 0);
		} else if (type == 1) {
			assert_int_equal(rd16(body), 1); /* LINKTYPE_ETHERNET */
			tf->snaplen[tf->n_if] = rd32(body + 4);
			options(body + 8, end, tf, NULL);
			tf->n_if++;
		} else {
			assert_int_equal(type, 6);
			struct t_pkt *p = &tf->pkt[tf->n++];
			p->ifid = rd32(body);
			assert_true(p->ifid < tf->n_if);
			p->ts = (uint64_t)rd32(body + 4) << 32 | rd32(body + 8);
			p->caplen = rd32(body + 12);
			p->len = rd32(body + 16);
			p->data = malloc(p->caplen + 1);
			memcpy(p->data, body + 20, p->caplen);
			options(body + 20 + p->caplen + ((4 - (p->caplen & 3)) & 3), end, tf, p);
		}
		off += len;
	}
	return tf;
}

static void
free_file(struct t_file *tf)
{
	for (uint32_t i = 0; i < tf->n; i++)
		free(tf->pkt[i].data);
	free(tf);
}

/* libpcap reads the same frames, timestamps to the nanosecond. */
static void
check_libpcap(const char *path, const struct t_file *tf)
{
	char err[PCAP_ERRBUF_SIZE];
	pcap_t *p = pcap_open_offline_with_tstamp_precision(path, PCAP_TSTAMP_PRECISION_NANO, err);
	struct pcap_pkthdr *h;
	const u_char *d;
	uint32_t i = 0;

	if (p == NULL)
		fail_msg("libpcap: %s", err);
	assert_int_equal(pcap_datalink(p), DLT_EN10MB);
	while (pcap_next_ex(p, &h, &d) == 1) {
		const struct t_pkt *k = &tf->pkt[i++];
		assert_true(i <= tf->n);
		assert_int_equal(h->caplen, k->caplen);
		assert_int_equal(h->len, k->len);
		assert_int_equal((uint64_t)h->ts.tv_sec * 1000000000 + (uint64_t)h->ts.tv_usec,
				 k->ts);
		assert_memory_equal(d, k->data, k->caplen);
	}
	assert_int_equal(i, tf->n);
	pcap_close(p);
}

static const char *
path(const char *name)
{
	static char p[8][128];
	static int n;

	n = (n + 1) % 8;
	snprintf(p[n], sizeof(p[n]), "%s/%s", dir, name);
	return p[n];
}

/* Drain the rings and end sessions at their limits, as the main loop does. */
static void
poll_at(struct t_switch *t, uint64_t now_ns)
{
	lsw_capture_poll(&t->sw, now_ns);
	t->conf = t->sw.dp.conf; /* a session that ended published a new snapshot */
}

static void
poll(struct t_switch *t)
{
	poll_at(t, lsw_now_ns());
}

/* Start a session, params as printf of @fmt (JSON members without the braces); its id. */
static uint32_t __attribute__((format(printf, 2, 3)))
start(struct t_switch *t, const char *fmt, ...)
{
	char p[2048] = "{";
	json_t *resp;
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(p + 1, sizeof(p) - 2, fmt, ap);
	va_end(ap);
	strcat(p, "}");
	json_t *r = t_rpc_ok(t, "capture.start", p, &resp);
	assert_string_equal(json_string_value(json_object_get(r, "state")), "running");
	uint32_t id = (uint32_t)json_integer_value(json_object_get(r, "id"));
	json_decref(resp);
	return id;
}

/* Does the answer @resp (freed here) hold @text? */
static bool
says(json_t *resp, const char *text)
{
	char *txt = json_dumps(resp, 0);
	bool found = strstr(txt, text) != NULL;

	if (!found)
		print_error("no '%s' in %s\n", text, txt);
	free(txt);
	json_decref(resp);
	return found;
}

/* Stop session @id; its figures (frames, missed) into @frames and @missed. */
static void
stop(struct t_switch *t, uint32_t id, uint64_t *frames, uint64_t *missed, const char *by)
{
	char p[64];
	json_t *resp;

	snprintf(p, sizeof(p), "{\"id\": %u}", id);
	json_t *r = t_rpc_ok(t, "capture.stop", p, &resp);
	assert_string_equal(json_string_value(json_object_get(r, "state")), "done");
	assert_string_equal(json_string_value(json_object_get(r, "stopped_by")), by);
	*frames = (uint64_t)json_integer_value(json_object_get(r, "frames"));
	*missed = (uint64_t)json_integer_value(json_object_get(r, "missed"));
	json_decref(resp);
}

static void
test_pcapng_writer(void **state)
{
	const char *f = path("w.pcapng");
	char err[256];
	uint8_t a[60], b[7] = {1, 2, 3, 4, 5, 6, 7};
	const uint64_t ts = UINT64_C(1763712000123456789);

	(void)state;
	for (unsigned int i = 0; i < sizeof(a); i++)
		a[i] = (uint8_t)(i * 7);
	struct lsw_pcapng *p = lsw_pcapng_open(f, "lsw test", err, sizeof(err));
	assert_non_null(p);
	/* libpcap wants one snap length for every interface of a file (as lsw writes them). */
	assert_int_equal(lsw_pcapng_interface(p, "p1 rx", 9000), 0);
	assert_int_equal(lsw_pcapng_interface(p, "p1 tx", 9000), 1);
	struct iovec one = {a, sizeof(a)};
	struct iovec three[3] = {{b, 1}, {b + 1, 2}, {b + 3, 4}}; /* 7 bytes: 1 of padding */
	assert_int_equal(lsw_pcapng_packet(p, 0, ts, LSW_PCAPNG_INBOUND, &one, 1, 60), 0);
	assert_int_equal(lsw_pcapng_packet(p, 1, ts + 1, LSW_PCAPNG_OUTBOUND, three, 3, 1500), 0);
	assert_int_equal(lsw_pcapng_packet(p, 0, ts + 1000000000, 0, &one, 1, 60), 0);
	uint64_t size = lsw_pcapng_size(p);
	assert_null(lsw_pcapng_error(p));
	assert_int_equal(lsw_pcapng_close(p, err, sizeof(err)), 0);

	struct t_file *tf = read_file(f);
	assert_int_equal(tf->n_if, 2);
	assert_string_equal(tf->name[0], "p1 rx");
	assert_string_equal(tf->name[1], "p1 tx");
	assert_int_equal(tf->tsresol[0], 9);
	assert_int_equal(tf->tsresol[1], 9);
	assert_int_equal(tf->snaplen[1], 9000);
	assert_int_equal(tf->n, 3);
	assert_int_equal(tf->pkt[0].ifid, 0);
	assert_int_equal(tf->pkt[0].flags, LSW_PCAPNG_INBOUND);
	assert_int_equal(tf->pkt[0].ts, ts);
	assert_memory_equal(tf->pkt[0].data, a, 60);
	assert_int_equal(tf->pkt[1].ifid, 1);
	assert_int_equal(tf->pkt[1].flags, LSW_PCAPNG_OUTBOUND);
	assert_int_equal(tf->pkt[1].caplen, 7);
	assert_int_equal(tf->pkt[1].len, 1500);
	assert_memory_equal(tf->pkt[1].data, b, 7);
	assert_int_equal(tf->pkt[2].flags, 0); /* no options at all */
	assert_int_equal(tf->pkt[2].ts, ts + 1000000000);
	check_libpcap(f, tf);
	free_file(tf);
	FILE *fp = fopen(f, "rb");
	fseek(fp, 0, SEEK_END);
	assert_int_equal((uint64_t)ftell(fp), size);
	fclose(fp);
	unlink(f);

	/* Errors: a file that cannot be created; a full disk, said at the flush and close. */
	assert_null(lsw_pcapng_open("/nonexistent-lsw/x.pcapng", "lsw", err, sizeof(err)));
	assert_non_null(strstr(err, "No such file or directory"));
	p = lsw_pcapng_open("/dev/full", "lsw", err, sizeof(err));
	assert_non_null(p);
	assert_int_equal(lsw_pcapng_flush(p), -1);
	assert_non_null(strstr(lsw_pcapng_error(p), "No space left"));
	assert_int_equal(lsw_pcapng_packet(p, 0, ts, 0, &one, 1, 60), -1);
	assert_int_equal(lsw_pcapng_close(p, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "No space left"));
}

/* Received frames as they came, before the worker rewrote them (a routed one) or dropped
 * them, at the wall-clock time of their burst; one interface, "Ethernet0 rx", inbound. */
static void
test_rx(void **state)
{
	struct t_switch *t = t_switch_new(T_CONFIG);
	struct t_flow routed = {.dst = "10.2.0.1", .payload = 100, .vlan = -1};
	struct t_flow miss = {.dst = "192.0.2.1", .payload = 30, .vlan = -1};
	const char *f = path("rx.pcapng");
	uint8_t fr[3][256];
	uint16_t len[3];
	uint64_t frames, missed;

	(void)state;
	len[0] = t_build_ipv4(fr[0], &routed);
	len[1] = t_build_ipv4(fr[1], &miss);
	len[2] = t_build_arp(fr[2], 1, "02:00:00:00:01:01", "10.0.0.1", "00:00:00:00:00:00",
			     "10.0.0.0", "ff:ff:ff:ff:ff:ff");
	assert_int_equal(t->conf->capture.rx_ports, 0);
	uint32_t id = start(t, "\"port\": \"Ethernet0\", \"direction\": \"rx\", \"file\": \"%s\"",
			    f);
	assert_int_equal(t->conf->capture.n, 1);
	assert_int_equal(t->conf->capture.rx_ports, 1u << T_PORT0);
	assert_int_equal(t->conf->capture.tx_ports, 0);
	for (int i = 0; i < 3; i++)
		t_rx(t, T_PORT0, fr[i], len[i], 1000000 * (i + 1));
	t_rx(t, T_PORT4, fr[0], len[0], 5000000); /* another port: not captured */
	assert_int_equal(t_drops(t, T_PORT0, LSW_DROP_LPM4_MISS), 1);
	poll(t);
	stop(t, id, &frames, &missed, "capture.stop");
	assert_int_equal(frames, 3);
	assert_int_equal(missed, 0);
	assert_int_equal(t->conf->capture.n, 0);
	assert_int_equal(t->conf->capture.rx_ports, 0);

	struct t_file *tf = read_file(f);
	assert_int_equal(tf->n_if, 1);
	assert_string_equal(tf->name[0], "Ethernet0 rx");
	assert_int_equal(tf->tsresol[0], 9);
	assert_int_equal(tf->snaplen[0], LSW_CAPTURE_SNAPLEN_MAX);
	assert_int_equal(tf->n, 3);
	for (int i = 0; i < 3; i++) {
		const struct t_pkt *k = &tf->pkt[i];
		assert_int_equal(k->flags, LSW_PCAPNG_INBOUND);
		assert_int_equal(k->caplen, len[i]);
		assert_int_equal(k->len, len[i]);
		assert_memory_equal(k->data, fr[i], len[i]);
		assert_int_equal(k->ts, lsw_clock_wall_ns(&t->sw.clock, 1000000 * (i + 1)));
	}
	/* The routed frame left rewritten: the capture kept it as it came. */
	struct rte_mbuf *m = t_tx_take(t, T_PORT4);
	assert_non_null(m);
	assert_memory_not_equal(rte_pktmbuf_mtod(m, void *), fr[0], 14);
	rte_pktmbuf_free(m);
	check_libpcap(f, tf);
	free_file(tf);
	unlink(f);
	t_switch_free(t);
}

/* Two sessions on one port, each its own copy: one cut to 100 bytes, one whole. The cut one
 * is a small copy; the whole 9000-byte frame is one segment of the big pool, whose segments
 * hold the switch's largest frame. */
static void
test_snaplen_jumbo(void **state)
{
	struct t_switch *t = t_switch_new(T_CONFIG);
	struct t_flow big = {.dst = "10.1.0.1", .payload = 9000 - 42, .vlan = -1};
	const char *f1 = path("cut.pcapng"), *f2 = path("whole.pcapng");
	uint64_t frames, missed;

	(void)state;
	uint16_t len = t_build_ipv4(buf, &big);
	assert_int_equal(len, 9000);
	uint32_t a = start(t, "\"port\": \"Ethernet0\", \"snaplen\": 100, \"file\": \"%s\"", f1);
	uint32_t b = start(t, "\"port\": \"Ethernet0\", \"direction\": \"both\", \"file\": \"%s\"",
			   f2);
	assert_int_equal(t->conf->capture.n, 2);
	uint8_t orig[9000];
	memcpy(orig, buf, len);
	t_rx(t, T_PORT0, buf, len, 1000);
	struct lsw_capture_rec rec[2];
	assert_int_equal(rte_ring_sc_dequeue_bulk_elem(t->sw.dp.capture[0], rec, sizeof(rec[0]),
						       2, NULL), 2);
	assert_ptr_equal(rec[0].m->pool, t->sw.dp.capture_small);
	assert_ptr_equal(rec[1].m->pool, t->sw.dp.capture_pool);
	assert_int_equal(rec[1].m->nb_segs, 1);
	assert_int_equal(rte_ring_enqueue_bulk_elem(t->sw.dp.capture[0], rec, sizeof(rec[0]), 2,
						    NULL), 2);
	poll(t);
	stop(t, a, &frames, &missed, "capture.stop");
	assert_int_equal(frames, 1);
	stop(t, b, &frames, &missed, "capture.stop");
	assert_int_equal(frames, 1);
	struct t_file *tf = read_file(f1);
	assert_int_equal(tf->n_if, 2); /* both directions by default */
	assert_string_equal(tf->name[1], "Ethernet0 tx");
	assert_int_equal(tf->snaplen[0], 100);
	assert_int_equal(tf->n, 1);
	assert_int_equal(tf->pkt[0].caplen, 100);
	assert_int_equal(tf->pkt[0].len, 9000);
	assert_memory_equal(tf->pkt[0].data, orig, 100);
	check_libpcap(f1, tf);
	free_file(tf);
	tf = read_file(f2);
	assert_int_equal(tf->n, 1);
	assert_int_equal(tf->pkt[0].caplen, 9000);
	assert_memory_equal(tf->pkt[0].data, orig, 9000);
	free_file(tf);
	unlink(f1);
	unlink(f2);
	t_switch_free(t);
}

/* ECN step at 4500 B on queue 1 of Ethernet4 (tests/unit/test_ecn.c's setup). */
#define ECN_CONFIG \
	"{\"DEVICE_METADATA\": {\"localhost\": {\"mac\": \"02:00:00:00:00:01\"}}," \
	" \"LSW\": {\"global\": {\"workers\": [1], \"mbufs\": 200000}}," \
	" \"PORT\": {\"Ethernet0\": {\"speed\": \"100000\"}," \
	" \"Ethernet4\": {\"speed\": \"10000\"}}," \
	" \"LSW_PORT\": {\"Ethernet0\": {\"devargs\": \"net_null0\"}," \
	"   \"Ethernet4\": {\"devargs\": \"net_null1\"}}," \
	" \"INTERFACE\": {\"Ethernet0|10.0.0.0/31\": {}, \"Ethernet4|10.0.1.0/31\": {}}," \
	" \"STATIC_ROUTE\": {\"10.2.0.0/16\": {\"nexthop\": \"10.0.1.1\"}}," \
	" \"NEIGH\": {\"Ethernet4|10.0.1.1\": {\"neigh\": \"02:00:00:00:04:01\"}}," \
	" \"WRED_PROFILE\": {\"STEP\": {\"ecn\": \"ecn_green\", \"wred_green_enable\": \"true\"," \
	"   \"green_min_threshold\": \"4500\", \"green_max_threshold\": \"4500\"}}," \
	" \"QUEUE\": {\"Ethernet4|1\": {\"wred_profile\": \"STEP\"}}}"

/* Sent frames as the PMD got them: rewritten (MACs, TTL, checksum) and ECN-marked (the
 * first five of ten leave 4500 bytes or more behind them), outbound, on "Ethernet4 tx". */
static void
test_tx_rewritten_marked(void **state)
{
	struct t_switch *t = t_switch_new(ECN_CONFIG);
	struct t_flow fl = {.dst = "10.2.0.9", .payload = 1000 - 42, .vlan = -1, .tos = 1};
	const char *f = path("tx.pcapng");
	uint64_t frames, missed;

	(void)state;
	assert_int_equal(t_start_ports(t), 0);
	uint16_t len = t_build_ipv4(buf, &fl); /* DSCP 0 (queue 1), ECT(1) */
	uint32_t id = start(t, "\"port\": \"Ethernet4\", \"direction\": \"tx\", \"file\": \"%s\"",
			    f);
	assert_int_equal(t->conf->capture.tx_ports, 1u << 1);
	for (int i = 0; i < 10; i++)
		t_rx(t, 0, buf, len, 1000);
	while (lsw_egress_run(&t->w, t->conf, 1, 1000000000))
		;
	assert_int_equal(t->sw.dp.ctr[0].port[1].ctr[LSW_PC_ECN_MARKED_PACKETS], 5);
	poll(t);
	stop(t, id, &frames, &missed, "capture.stop");
	assert_int_equal(frames, 10);
	struct t_file *tf = read_file(f);
	assert_int_equal(tf->n_if, 1);
	assert_string_equal(tf->name[0], "Ethernet4 tx");
	assert_int_equal(tf->n, 10);
	for (int i = 0; i < 10; i++) {
		const struct t_pkt *k = &tf->pkt[i];
		const struct rte_ipv4_hdr *ip = (const struct rte_ipv4_hdr *)(k->data + 14);
		struct rte_ether_addr nh;
		t_mac("02:00:00:00:04:01", &nh);
		assert_int_equal(k->flags, LSW_PCAPNG_OUTBOUND);
		assert_int_equal(k->caplen, len);
		assert_memory_equal(k->data, &nh, 6);
		assert_int_equal(ip->time_to_live, 63);
		assert_int_equal(ip->type_of_service & 3, i < 5 ? 3 : 1);
		assert_true(t_ipv4_csum_ok(ip));
		assert_memory_equal(k->data + 34, buf + 34, len - 34); /* payload untouched */
		if (i > 0)
			assert_true(k->ts >= tf->pkt[i - 1].ts);
	}
	free_file(tf);
	unlink(f);
	t_switch_free(t);
}

/* What the switch sends of its own goes through the same place: an ARP request for an
 * unresolved next hop, an ICMP echo reply; the filter "icmp" on both directions keeps the
 * request coming in and the reply going out. */
static void
test_tx_switch_frames(void **state)
{
	struct t_switch *t = t_switch_new(T_CONFIG);
	struct t_flow echo = {.dst = "10.0.0.0", .proto = IPPROTO_ICMP, .payload = 8,
			      .vlan = -1};
	struct t_flow held = {.dst = "10.4.0.1", .payload = 20, .vlan = -1};
	const char *fa = path("arp.pcapng"), *fi = path("icmp.pcapng");
	uint64_t frames, missed;

	(void)state;
	assert_int_equal(t_start_ports(t), 0);
	uint32_t a = start(t, "\"port\": \"Ethernet12\", \"direction\": \"tx\", \"file\": \"%s\"",
			   fa);
	uint32_t b = start(t, "\"port\": \"Ethernet0\", \"filter\": \"icmp\", \"file\": \"%s\"",
			   fi);
	uint16_t len = t_build_ipv4(buf, &echo);
	buf[34] = 8; /* echo request */
	struct rte_ipv4_hdr *ip = (struct rte_ipv4_hdr *)(buf + 14);
	uint16_t *icsum = (uint16_t *)(buf + 36);
	*icsum = 0;
	*icsum = (uint16_t)~rte_raw_cksum(buf + 34, len - 34);
	(void)ip;
	t_rx(t, T_PORT0, buf, len, 1000);
	t_rx(t, T_PORT0, buf, t_build_ipv4(buf, &held), 2000); /* ARP for 192.168.5.77 */
	lsw_worker_egress(&t->w, t->conf, 3000);
	assert_int_equal(t_event(t, LSW_EV_ICMP_ECHO_REPLY_TX), 1);
	assert_int_equal(t_event(t, LSW_EV_ARP_REQUEST_TX), 1);
	poll(t);
	stop(t, a, &frames, &missed, "capture.stop");
	assert_int_equal(frames, 1);
	stop(t, b, &frames, &missed, "capture.stop");
	assert_int_equal(frames, 2);
	struct t_file *tf = read_file(fa);
	assert_int_equal(tf->n, 1);
	const uint8_t *arp = tf->pkt[0].data;
	assert_int_equal(arp[12] << 8 | arp[13], 0x0806);
	assert_int_equal(arp[20] << 8 | arp[21], 1); /* request */
	assert_int_equal(rd32(arp + 38), rte_cpu_to_be_32(t_ip("192.168.5.77")));
	assert_int_equal(tf->pkt[0].flags, LSW_PCAPNG_OUTBOUND);
	free_file(tf);
	tf = read_file(fi);
	assert_int_equal(tf->n_if, 2);
	assert_int_equal(tf->n, 2);
	assert_int_equal(tf->pkt[0].ifid, 0);
	assert_int_equal(tf->pkt[0].flags, LSW_PCAPNG_INBOUND);
	assert_int_equal(tf->pkt[0].data[34], 8);
	assert_int_equal(tf->pkt[1].ifid, 1);
	assert_int_equal(tf->pkt[1].flags, LSW_PCAPNG_OUTBOUND);
	assert_int_equal(tf->pkt[1].data[34], 0); /* echo reply */
	check_libpcap(fi, tf);
	free_file(tf);
	unlink(fa);
	unlink(fi);
	lsw_nexthop_drop_held(&t->w);
	t_switch_free(t);
}

/* A net_ring port whose ring fills: the copies of the frames its PMD refused are not kept;
 * those frames are copied when they do leave. The file holds each frame once, in order. */
static void
test_tx_refused(void **state)
{
	struct t_switch *t = t_switch_new(
		"{\"DEVICE_METADATA\": {\"localhost\": {\"mac\": \"02:00:00:00:00:01\"}},"
		" \"LSW\": {\"global\": {\"workers\": [1], \"mbufs\": 4096,"
		"   \"rx_descriptors\": 64, \"tx_descriptors\": 64}},"
		" \"PORT\": {\"Ethernet0\": {}, \"Ethernet4\": {}},"
		" \"LSW_PORT\": {\"Ethernet0\": {\"devargs\": \"net_null20\"},"
		"   \"Ethernet4\": {\"devargs\": \"net_ring20\"}},"
		" \"INTERFACE\": {\"Ethernet0|10.0.0.0/31\": {}, \"Ethernet4|10.0.1.0/31\": {}}}");
	struct rte_mbuf *pkts[LSW_BURST], *back[LSW_BURST];
	const char *f = path("ring.pcapng");
	uint16_t sent = LSW_BURST, total = 0, seq = 0;
	uint64_t frames, missed;

	(void)state;
	assert_int_equal(t_start_ports(t), 0);
	uint32_t id = start(t, "\"port\": \"Ethernet4\", \"direction\": \"tx\", \"file\": \"%s\"",
			    f);
	/* Bursts of 32 until the PMD takes only part of one. */
	while (sent == LSW_BURST) {
		for (int i = 0; i < LSW_BURST; i++) {
			struct t_flow fl = {.sport = (uint16_t)(seq + i), .vlan = -1};
			pkts[i] = t_mbuf(buf, t_build_ipv4(buf, &fl));
		}
		sent = lsw_capture_tx_burst(&t->w, t->conf, 1, pkts, LSW_BURST);
		for (uint16_t i = sent; i < LSW_BURST; i++)
			rte_pktmbuf_free(pkts[i]); /* refused: they never left */
		seq += LSW_BURST;
		total += sent;
		poll(t);
	}
	assert_true(total > 0);
	/* The peer takes what the ring holds; one more frame leaves. */
	uint16_t n;
	while ((n = rte_eth_rx_burst(t->conf->port[1].port_id, 0, back, LSW_BURST)) > 0)
		rte_pktmbuf_free_bulk(back, n);
	struct t_flow last = {.sport = 60000, .vlan = -1};
	pkts[0] = t_mbuf(buf, t_build_ipv4(buf, &last));
	assert_int_equal(lsw_capture_tx_burst(&t->w, t->conf, 1, pkts, 1), 1);
	total++;
	poll(t);
	stop(t, id, &frames, &missed, "capture.stop");
	assert_int_equal(frames, total);
	assert_int_equal(missed, 0);
	while ((n = rte_eth_rx_burst(t->conf->port[1].port_id, 0, back, LSW_BURST)) > 0)
		rte_pktmbuf_free_bulk(back, n);
	struct t_file *tf = read_file(f);
	assert_int_equal(tf->n, total);
	for (uint32_t i = 0; i < tf->n; i++) {
		uint16_t sport = (uint16_t)(tf->pkt[i].data[34] << 8 | tf->pkt[i].data[35]);
		assert_int_equal(sport, i + 1 < tf->n ? i : 60000);
	}
	free_file(tf);
	unlink(f);
	t_switch_free(t);
}

/* Frames that exercise filters: plain, tagged, with IP options, fragments, ARP, PFC, IPv6. */
static uint16_t
filter_frame(int i, uint8_t *b)
{
	struct t_flow fl = {.vlan = -1, .sport = 1234, .dport = 4791, .payload = 20};
	uint16_t len;

	switch (i) {
	case 0: /* RoCEv2, BTH opcode 0x0a */
		len = t_build_ipv4(b, &fl);
		b[42] = 0x0a;
		return len;
	case 1: /* UDP 5000, 1000 bytes */
		fl.dport = 5000;
		fl.payload = 1000 - 42;
		return t_build_ipv4(b, &fl);
	case 2: /* VLAN 5 PCP 3, UDP 4791 */
		fl.vlan = 0x6005;
		return t_build_ipv4(b, &fl);
	case 3: /* TCP to port 80 with SYN, behind 4 bytes of IP options */
		fl.proto = IPPROTO_TCP;
		fl.dport = 80;
		len = t_build_ipv4(b, &fl);
		memmove(b + 38, b + 34, len - 34);
		memset(b + 34, 1, 4); /* NOP options */
		b[14] = 0x46;
		b[17] = (uint8_t)(b[17] + 4);
		b[38 + 13] = 0x02;
		return (uint16_t)(len + 4);
	case 4: /* ICMP echo request from 10.0.0.1 */
		fl.proto = IPPROTO_ICMP;
		len = t_build_ipv4(b, &fl);
		b[34] = 8;
		return len;
	case 5: /* a non-first fragment of UDP: no ports */
		len = t_build_ipv4(b, &fl);
		b[20] = 0x00;
		b[21] = 0x10;
		return len;
	case 6:
		return t_build_arp(b, 1, "02:00:00:00:01:01", "10.0.0.1", "00:00:00:00:00:00",
				   "10.0.0.0", "ff:ff:ff:ff:ff:ff");
	case 7: { /* PFC XOFF on priority 3 */
		static const uint8_t pfc[] = {0x01, 0x80, 0xc2, 0, 0, 1, 2, 0, 0, 0, 1, 1, 0x88,
					      0x08, 0x01, 0x01, 0, 8, 0, 0, 0, 0, 0, 0, 0xff, 0xff};
		memset(b, 0, 60);
		memcpy(b, pfc, sizeof(pfc));
		return 60;
	}
	case 8: { /* IPv6 UDP to 4791 */
		static const uint8_t v6[] = {2, 0, 0, 0, 0, 1, 2, 0, 0, 0, 1, 1, 0x86, 0xdd, 0x60,
					     0, 0, 0, 0, 8, 17, 64};
		memset(b, 0, 62);
		memcpy(b, v6, sizeof(v6));
		b[22 + 15] = 1;
		b[38 + 15] = 2;
		b[54] = 0x04, b[55] = 0xd2, b[56] = 0x12, b[57] = 0xb7;
		return 62;
	}
	default: /* a truncated IPv4 header */
		t_build_ipv4(b, &fl);
		return 24;
	}
}

#define N_FRAMES 10

static const char *const filters[] = {
	"udp port 4791", "udp[8] == 0x0a", "tcp port 80", "tcp[13] & 2 != 0", "icmp",
	"icmp[icmptype] == icmp-echo", "vlan", "vlan and udp port 4791", "vlan 5", "arp",
	"ether proto 0x8808", "ether[0:4] = 0x0180c200", "ip6", "ip6 and udp port 4791",
	"ip[6:2] & 0x1fff != 0", "len > 100", "less 64", "greater 1000", "host 10.0.0.1",
	"net 10.1.0.0/16", "src port 1234 and dst port 5000", "ip and not udp",
	"udp[0:2] > 1000 and udp[2:2] < 6000", "ether src 02:00:00:00:01:01",
	"portrange 4000-5000", "ip[1] & 3 == 0", "ip proto 17 or ip6 proto 17", "udp port 9",
	"tcp[tcpflags] & tcp-syn != 0", "ether[14] & 0xf == 6",
};

/* Each filter's verdict on each frame is libpcap's own (its cBPF interpreter), with DPDK's
 * JIT and with its interpreter. */
static void
test_filter_verdicts(void **state)
{
	struct t_switch *t = t_switch_new(T_CONFIG);
	const char *f = path("filter.pcapng");
	uint64_t frames, missed;
	unsigned int matched = 0, rejected = 0, jitted = 0;

	(void)state;
	for (size_t i = 0; i < RTE_DIM(filters); i++) {
		pcap_t *pc = pcap_open_dead(DLT_EN10MB, LSW_CAPTURE_SNAPLEN_MAX);
		struct bpf_program bf;
		assert_int_equal(pcap_compile(pc, &bf, filters[i], 1, PCAP_NETMASK_UNKNOWN), 0);
		uint32_t id = start(t, "\"port\": \"Ethernet0\", \"filter\": \"%s\", "
				    "\"file\": \"%s\"", filters[i], f);
		const struct lsw_capture_sess_dp *s = &t->conf->capture.s[0];
		assert_non_null(s->bpf);
		/* The JIT runs what it can run right (x86-64 and arm64 have one). */
		jitted += s->jit != NULL;
		if (strstr(filters[i], "& 2 != 0") != NULL)
			assert_null(s->jit); /* a small "jset": DPDK's x86 JIT gets it wrong */
		for (int k = 0; k < N_FRAMES; k++) {
			uint16_t len = filter_frame(k, buf);
			struct pcap_pkthdr h = {.caplen = len, .len = len};
			bool want = pcap_offline_filter(&bf, &h, buf) != 0;
			struct rte_mbuf *m = t_mbuf(buf, len);
			bool interp = rte_bpf_exec(s->bpf, m) != 0;
			bool jit = s->jit ? s->jit(m) != 0 : interp;
			rte_pktmbuf_free(m);
			if (interp != want || jit != want)
				fail_msg("'%s' on frame %d: libpcap %d, interpreter %d, JIT %d",
					 filters[i], k, want, interp, jit);
			matched += want;
			rejected += !want;
		}
		stop(t, id, &frames, &missed, "capture.stop");
		pcap_freecode(&bf);
		pcap_close(pc);
	}
	assert_true(matched > 40 && rejected > 40); /* both ways, often */
	assert_true(jitted > RTE_DIM(filters) / 2);
	unlink(f);
	t_switch_free(t);
}

/* End to end through the worker: the file holds exactly the frames the filter selects, the
 * JIT's verdicts or the interpreter's; a filter matching nothing gives an empty file. */
static void
test_filter_files(void **state)
{
	static const char *const sel[] = {"udp port 4791", "icmp", "udp port 9"};
	struct t_switch *t = t_switch_new(T_CONFIG);
	uint64_t frames, missed;

	(void)state;
	for (int interp = 0; interp < 2; interp++) {
		uint32_t id[3];
		for (int i = 0; i < 3; i++)
			id[i] = start(t, "\"port\": \"Ethernet0\", \"direction\": \"rx\", "
				      "\"filter\": \"%s\", \"file\": \"%s\"", sel[i],
				      path(i == 0 ? "s0.pcapng" : i == 1 ? "s1.pcapng" :
					   "s2.pcapng"));
		if (interp) /* what the workers run when the machine has no JIT */
			for (int i = 0; i < 3; i++)
				t->conf->capture.s[i].jit = NULL;
		for (int k = 0; k < N_FRAMES; k++) {
			uint16_t len = filter_frame(k, buf);
			t_rx(t, T_PORT0, buf, len, 1000);
		}
		poll(t);
		for (int i = 0; i < 3; i++) {
			char p[64];
			snprintf(p, sizeof(p), "s%d.pcapng", i);
			stop(t, id[i], &frames, &missed, "capture.stop");
			struct t_file *tf = read_file(path(p));
			/* udp port 4791: frames 0 (RoCE) and 8 (IPv6); the tagged one (2) is not
			 * "udp" to libpcap without "vlan and". icmp: frame 4. */
			static const int want[3][3] = {{0, 8, -1}, {4, -1, -1}, {-1, -1, -1}};
			uint32_t n = 0;
			for (int w = 0; w < 3 && want[i][w] >= 0; w++) {
				uint16_t len = filter_frame(want[i][w], buf);
				assert_true(n < tf->n);
				assert_int_equal(tf->pkt[n].caplen, len);
				assert_memory_equal(tf->pkt[n].data, buf, len);
				n++;
			}
			assert_int_equal(tf->n, n);
			assert_int_equal(frames, n);
			free_file(tf);
			unlink(path(p));
		}
	}
	lsw_nexthop_drop_held(&t->w);
	t_switch_free(t);
}

/* Frames in a pcapng file, as libpcap reads it. */
static unsigned int
count_frames(const char *path)
{
	char err[PCAP_ERRBUF_SIZE];
	pcap_t *p = pcap_open_offline(path, err);
	struct pcap_pkthdr *h;
	const u_char *d;
	unsigned int n = 0;

	assert_non_null(p);
	while (pcap_next_ex(p, &h, &d) == 1)
		n++;
	pcap_close(p);
	return n;
}

/* Copies the main lcore has not written yet wait in the ring, which takes every copy both
 * pools hold: small frames fill the small pool, then the big one; once both are empty a
 * frame costs CAPTURE_MISSED, per session too, never a wait. */
static void
test_missed(void **state)
{
	struct t_switch *t = t_switch_new(T_CONFIG);
	struct t_flow miss = {.dst = "192.0.2.1", .payload = 30, .vlan = -1};
	const char *f = path("full.pcapng");
	uint64_t frames, missed;
	json_t *resp;

	(void)state;
	uint16_t len = t_build_ipv4(buf, &miss);
	uint32_t id = start(t, "\"port\": \"Ethernet0\", \"file\": \"%s\"", f);
	struct rte_mempool *pools[2] = {t->sw.dp.capture_small, t->sw.dp.capture_pool};
	const unsigned int held = pools[0]->size + pools[1]->size;
	assert_int_equal(pools[0]->size, LSW_CAPTURE_SMALL_N);
	assert_int_equal(rte_ring_get_capacity(t->sw.dp.capture[0]), held);
	json_t *r = t_rpc_ok(t, "capture.list", NULL, &resp);
	assert_int_equal(json_integer_value(json_object_get(json_object_get(r, "buffer"),
							    "frames")), pools[1]->size);
	json_decref(resp);
	for (unsigned int i = 0; i < held + 5; i++)
		t_rx(t, T_PORT0, buf, len, 1000);
	assert_int_equal(t_event(t, LSW_EV_CAPTURE_MISSED), 5);
	assert_int_equal(t->sw.dp.ctr[0].capture_missed[t->conf->capture.s[0].slot], 5);
	/* Both pools empty with the ring drained: three more missed. */
	void **objs = calloc(held, sizeof(*objs));
	unsigned int taken[2] = {0, 0};
	poll(t); /* the ring drains: its copies go back to the pools */
	for (int k = 0; k < 2; k++)
		while (rte_mempool_get(pools[k], &objs[taken[0] + taken[k] * k]) == 0)
			taken[k]++;
	for (int i = 0; i < 3; i++)
		t_rx(t, T_PORT0, buf, len, 2000);
	assert_int_equal(t_event(t, LSW_EV_CAPTURE_MISSED), 8);
	rte_mempool_put_bulk(pools[0], objs, taken[0]);
	rte_mempool_put_bulk(pools[1], objs + taken[0], taken[1]);
	free(objs);
	t_rx(t, T_PORT0, buf, len, 3000);
	r = t_rpc_ok(t, "capture.list", "{\"id\": 1}", &resp);
	json_t *s = json_array_get(json_object_get(r, "sessions"), 0);
	assert_int_equal(json_integer_value(json_object_get(s, "frames")), held + 1);
	assert_int_equal(json_integer_value(json_object_get(s, "missed")), 8);
	json_decref(resp);
	stop(t, id, &frames, &missed, "capture.stop");
	assert_int_equal(frames, held + 1);
	assert_int_equal(missed, 8);
	assert_int_equal(count_frames(f), held + 1);
	/* A new session in the same slot starts from zero. */
	id = start(t, "\"port\": \"Ethernet0\", \"file\": \"%s\"", f);
	t_rx(t, T_PORT0, buf, len, 4000);
	poll(t);
	stop(t, id, &frames, &missed, "capture.stop");
	assert_int_equal(frames, 1);
	assert_int_equal(missed, 0);
	assert_int_equal(t_drops(t, T_PORT0, LSW_DROP_LPM4_MISS), held + 5 + 5);
	unlink(f);
	t_switch_free(t);
}

/* A count ends the session by itself with exactly that many frames; so does a time limit. */
static void
test_limits(void **state)
{
	struct t_switch *t = t_switch_new(T_CONFIG);
	struct t_flow miss = {.dst = "192.0.2.1", .payload = 30, .vlan = -1};
	const char *f = path("count.pcapng"), *g = path("time.pcapng");
	uint64_t frames, missed;

	(void)state;
	uint16_t len = t_build_ipv4(buf, &miss);
	uint32_t a = start(t, "\"port\": \"Ethernet0\", \"count\": 3, \"file\": \"%s\"", f);
	uint32_t b = start(t, "\"port\": \"Ethernet4\", \"duration_ms\": 50, \"file\": \"%s\"", g);
	for (int i = 0; i < 10; i++)
		t_rx(t, T_PORT0, buf, len, 1000);
	poll(t);
	assert_int_equal(t->conf->capture.n, 1); /* a ended, b runs */
	assert_int_equal(t->conf->capture.s[0].port, T_PORT4);
	stop(t, a, &frames, &missed, "count"); /* already done: its figures */
	assert_int_equal(frames, 3);
	struct t_file *tf = read_file(f);
	assert_int_equal(tf->n, 3);
	free_file(tf);
	poll_at(t, lsw_now_ns() + 60000000);
	assert_int_equal(t->conf->capture.n, 0);
	stop(t, b, &frames, &missed, "duration");
	assert_int_equal(frames, 0);
	unlink(f);
	unlink(g);
	t_switch_free(t);
}

/* Refused params: each at its path, nothing started, no file made. */
static void
test_refused(void **state)
{
	static const char *const cases[][4] = {
		/* params, path, words, code */
		{"{\"file\": \"/tmp/x\"}", "$.params.port", "required", "-32602"},
		{"{\"port\": \"Ethernet0\"}", "$.params.file", "required", "-32602"},
		{"{\"port\": \"Ethernet99\", \"file\": \"/tmp/x\"}", "$.params.port",
		 "no port named", "-32602"},
		{"{\"port\": \"Ethernet0\", \"direction\": \"in\", \"file\": \"/tmp/x\"}",
		 "$.params.direction", "rx", "-32602"},
		{"{\"port\": \"Ethernet0\", \"filter\": \"udp prot 4791\", \"file\": \"/tmp/x\"}",
		 "$.params.filter", "syntax error", "-32602"},
		{"{\"port\": \"Ethernet0\", \"filter\": \"ether host 1:2\", \"file\": \"/tmp/x\"}",
		 "$.params.filter", "", "-32602"},
		{"{\"port\": \"Ethernet0\", \"filter\": 7, \"file\": \"/tmp/x\"}",
		 "$.params.filter", "string", "-32602"},
		{"{\"port\": \"Ethernet0\", \"file\": \"x.pcapng\"}", "$.params.file", "absolute",
		 "-32602"},
		{"{\"port\": \"Ethernet0\", \"snaplen\": 0, \"file\": \"/tmp/x\"}",
		 "$.params.snaplen", "", "-32602"},
		{"{\"port\": \"Ethernet0\", \"count\": -1, \"file\": \"/tmp/x\"}", "$.params.count",
		 "", "-32602"},
		{"{\"port\": \"Ethernet0\", \"file\": \"/tmp/x\", \"fliter\": \"icmp\"}",
		 "$.params.fliter", "unknown", "-32602"},
		{"{\"port\": \"Ethernet0\", \"file\": \"/nonexistent-lsw/x.pcapng\"}",
		 "$.params.file", "No such file or directory", "-32003"},
	};
	struct t_switch *t = t_switch_new(T_CONFIG);
	json_t *resp;

	(void)state;
	for (size_t i = 0; i < RTE_DIM(cases); i++) {
		resp = t_rpc(t, "capture.start", cases[i][0]);
		json_t *err = json_object_get(resp, "error");
		if (err == NULL)
			fail_msg("accepted: %s", cases[i][0]);
		assert_int_equal(json_integer_value(json_object_get(err, "code")),
				 atoi(cases[i][3]));
		json_t *errs = json_object_get(json_object_get(err, "data"), "errors"), *e;
		size_t k;
		bool found = false;
		json_array_foreach(errs, k, e)
			found |= strcmp(json_string_value(json_object_get(e, "path")),
					cases[i][1]) == 0 &&
				 strstr(json_string_value(json_object_get(e, "message")),
					cases[i][2]) != NULL;
		if (!found) {
			fail_msg("%s: no '%s' at %s", cases[i][0], cases[i][2], cases[i][1]);
		}
		json_decref(resp);
		assert_true(t->sw.dp.conf->capture.n == 0);
		assert_int_equal(access("/tmp/lsw-capture-refused", F_OK), -1); /* none made */
	}
	json_t *r = t_rpc_ok(t, "capture.list", NULL, &resp);
	assert_int_equal(json_array_size(json_object_get(r, "sessions")), 0);
	json_decref(resp);

	/* LSW_CAPTURE_MAX run at once; one more is refused, and so is a file a running session
	 * writes. */
	uint32_t id[LSW_CAPTURE_MAX];
	for (int i = 0; i < LSW_CAPTURE_MAX; i++) {
		char name[32];
		snprintf(name, sizeof(name), "run%d.pcapng", i);
		id[i] = start(t, "\"port\": \"Ethernet%d\", \"file\": \"%s\"", 4 * (i % 4),
			      path(name));
	}
	assert_int_equal(t->conf->capture.n, LSW_CAPTURE_MAX);
	assert_int_equal(t->conf->capture.rx_ports, 0xf);
	char p[256];
	snprintf(p, sizeof(p), "{\"port\": \"Ethernet0\", \"file\": \"%s\"}", path("x.pcapng"));
	assert_true(says(t_rpc(t, "capture.start", p), "capture.stop one first"));
	uint64_t frames, missed;
	stop(t, id[1], &frames, &missed, "capture.stop");
	snprintf(p, sizeof(p), "{\"port\": \"Ethernet0\", \"file\": \"%s\"}", path("run0.pcapng"));
	assert_true(says(t_rpc(t, "capture.start", p),
			 "{\"path\": \"$.params.file\", \"message\": "
			 "\"capture 1 writes to this file"));
	assert_int_equal(t->conf->capture.n, LSW_CAPTURE_MAX - 1);
	assert_true(says(t_rpc(t, "capture.stop", "{\"id\": 99}"), "no capture session 99"));
	assert_true(says(t_rpc(t, "capture.stop", "{}"), "required"));
	r = t_rpc_ok(t, "capture.list", "{\"id\": 2}", &resp);
	assert_int_equal(json_array_size(json_object_get(r, "sessions")), 1);
	json_decref(resp);
	for (int i = 0; i < LSW_CAPTURE_MAX; i++) {
		char name[32];
		snprintf(name, sizeof(name), "run%d.pcapng", i);
		stop(t, id[i], &frames, &missed, "capture.stop");
		unlink(path(name));
	}
	assert_int_equal(t->conf->capture.n, 0);
	assert_int_equal(t->conf->capture.rx_ports | t->conf->capture.tx_ports, 0);
	/* The last 16 are kept, oldest first. */
	for (int i = 0; i < 20; i++) {
		uint32_t n = start(t, "\"port\": \"Ethernet0\", \"file\": \"%s\"",
				   path("h.pcapng"));
		stop(t, n, &frames, &missed, "capture.stop");
	}
	r = t_rpc_ok(t, "capture.list", NULL, &resp);
	json_t *sessions = json_object_get(r, "sessions");
	assert_int_equal(json_array_size(sessions), LSW_CAPTURE_KEEP);
	const int last = LSW_CAPTURE_MAX + 20; /* the ids so far */
	assert_int_equal(json_integer_value(json_object_get(json_array_get(sessions, 0), "id")),
			 last - LSW_CAPTURE_KEEP + 1);
	assert_int_equal(json_integer_value(json_object_get(json_array_get(sessions, 15), "id")),
			 last);
	json_decref(resp);
	unlink(path("h.pcapng"));
	t_switch_free(t);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pcapng_writer),
		cmocka_unit_test(test_rx),
		cmocka_unit_test(test_snaplen_jumbo),
		cmocka_unit_test(test_tx_rewritten_marked),
		cmocka_unit_test(test_tx_switch_frames),
		cmocka_unit_test(test_tx_refused),
		cmocka_unit_test(test_filter_verdicts),
		cmocka_unit_test(test_filter_files),
		cmocka_unit_test(test_missed),
		cmocka_unit_test(test_limits),
		cmocka_unit_test(test_refused),
	};

	snprintf(dir, sizeof(dir), "/tmp/lsw-capture-XXXXXX");
	if (mkdtemp(dir) == NULL)
		return 1;
	int rc = cmocka_run_group_tests(tests, NULL, NULL);
	rmdir(dir);
	return rc;
}
