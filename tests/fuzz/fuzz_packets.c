/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * libFuzzer target: the packet path. An input is a little program of frames, bursts, clock
 * steps and worker loops, run through the real worker code (lsw_process_burst, then
 * lsw_worker_egress: ARP holds, PFC, ECMP quality, scheduler, shaper, ECN, tx) on a fake
 * clock, against a switch built by the unit-test harness from tests/fuzz/packets.json: four
 * net_ring ports, lossless PGs 3-4 with PFC and the watchdog, ECN/WRED profiles, a route per
 * ECMP mode, a blackhole, unresolved next hops, 802.3x on one port, drop and mark
 * snapshots; IPv6 addresses, routes (ECMP, blackhole, unresolved, a link-local default)
 * and neighbor discovery. The watchdog polls on the same clock.
 *
 * Ops (the low 3 bits of an op byte; the high 5 bits are its argument a):
 *   0 RAW      port, len (2 bytes LE), then len bytes: one frame as received
 *   1 FRAME    12 bytes: a frame of a kind the parser knows, built from the bytes (below)
 *   2 BURST    hand each port's pending frames to lsw_process_burst (also at 32 frames)
 *   3 CLOCK    2 bytes v: now += v << min(a, 20) ns
 *   4 LOOP     run the worker's egress half a + 1 times at now
 *   5 ADMIN    port a % 4 goes down (a & 4) or up, through port.set
 *   6 LINK     port a % 4's link goes down (a & 4) or up, as the link poll publishes it
 *              (ADMIN and LINK: the first MAX_CHANGES of an input; they rebuild the config)
 *   others     the same as LOOP once
 * After the input, the pending bursts go in, and the clock runs on (1 ms steps) until every
 * queue, ARP hold, pause and PFC frame has drained. Then, for this input:
 *   - every frame fed is counted in (IF_IN_*);
 *   - ledger: frames fed + frames the switch made (ARP_REQUEST_TX, ICMP_ERROR_TX, PFC_TX,
 *     ICMP6_ERROR_TX, NDP_NS_TX, NDP_NA_TX, NDP_NA_UNSOLICITED_TX) = frames sent + drops
 *     (all reasons, all ports) + frames consumed (ARP_REPLY_RX, PFC_RX, PAUSE_RX,
 *     NDP_NS_RX, NDP_NA_RX): each mbuf was sent, consumed or dropped under exactly one
 *     reason;
 *   - frames sent = IF_OUT_*, and every queue's sent packets are among them;
 *   - the queue and pool drop counters agree with the ports' MMU drop reasons;
 *   - every IPv4 header sent carries a correct checksum, and every ICMPv6 message the
 *     switch built (NS, NA, errors) a correct checksum and length;
 *   - the buffer is empty (every PG, queue and pool back to zero), both mempools are full.
 * ASan and UBSan (the fuzz build) report the rest. A failed check aborts with a message.
 *
 * Run: tools/fuzz-packets [SECONDS] (README.md, Tests).
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <rte_ethdev.h>
#include <rte_ip.h>
#include <rte_malloc.h>
#include <rte_ring.h>
#include "harness.h"
#include "lsw/pfc.h"

#ifndef LSW_FUZZ_CONFIG
#define LSW_FUZZ_CONFIG "tests/fuzz/packets.json"
#endif

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

enum { OP_RAW, OP_FRAME, OP_BURST, OP_CLOCK, OP_LOOP, OP_ADMIN, OP_LINK };
#define MAX_CHANGES 16 /* ADMIN and LINK operations per input; more are ignored */

static struct t_switch *ts;
static struct lsw_switch *sw;
static struct rte_mempool *rx_pool;     /* frames as received: the switch never allocates here */
static struct rte_ring *txr[LSW_MAX_PORTS]; /* what each net_ring port sent */
static uint16_t n_ports;
static uint64_t now = T_HZ;             /* the fake clock, across inputs */
static struct rte_mbuf *pend[LSW_MAX_PORTS][LSW_BURST];
static uint16_t n_pend[LSW_MAX_PORTS];
static uint64_t fed, sent;              /* this input's */

static void __attribute__((noreturn))
bug(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fprintf(stderr, "fuzz_packets: ");
	vfprintf(stderr, fmt, ap);
	fprintf(stderr, "\n");
	va_end(ap);
	abort();
}

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	const char *path = getenv("LSW_FUZZ_CONFIG") ? getenv("LSW_FUZZ_CONFIG") : LSW_FUZZ_CONFIG;
	static char text[1 << 16];
	char name[RTE_RING_NAMESIZE];
	FILE *f = fopen(path, "r");
	size_t n;

	RTE_SET_USED(argc);
	RTE_SET_USED(argv);
	if (f == NULL || (n = fread(text, 1, sizeof(text) - 1, f)) == 0)
		bug("cannot read %s (set LSW_FUZZ_CONFIG)", path);
	fclose(f);
	text[n] = '\0';
	ts = t_switch_new(text);
	sw = &ts->sw;
	if (t_start_ports(ts) != 0)
		bug("cannot start the net_ring ports");
	sw->buffer_base = rte_zmalloc("fuzz_mmu_base", sizeof(*sw->buffer_base), 0);
	if (sw->buffer_base == NULL || lsw_dropsnap_init(sw) != 0)
		bug("out of memory");
	n_ports = sw->cfg->n_ports;
	for (uint16_t p = 0; p < n_ports; p++) {
		/* net_ring without arguments sends into, and receives from, this ring. */
		snprintf(name, sizeof(name), "ETH_RXTX0_net_ring%u", p);
		txr[p] = rte_ring_lookup(name);
		if (txr[p] == NULL)
			bug("no ring %s: the config's ports must be net_ring0..%u", name,
			    n_ports - 1);
	}
	rx_pool = rte_pktmbuf_pool_create("fuzz_rx", 2048, 0, 0, 10240, SOCKET_ID_ANY);
	if (rx_pool == NULL)
		bug("cannot create the rx pool");
	return 0;
}

/* The sum of a per-port counter over the ports. */
static uint64_t
port_sum(enum lsw_port_ctr c)
{
	uint64_t s = 0;

	for (uint16_t p = 0; p < n_ports; p++)
		s += sw->dp.ctr[0].port[p].ctr[c];
	return s;
}

static uint64_t
drop_sum(int reason)
{
	uint64_t s = 0;

	for (uint16_t p = 0; p < n_ports; p++)
		for (int d = 0; d < LSW_DROP_MAX; d++)
			if (reason < 0 ? d != LSW_DROP_NONE : d == reason)
				s += sw->dp.ctr[0].port[p].drop[d];
	return s;
}

static uint64_t
event(enum lsw_event e)
{
	return sw->dp.ctr[0].event[e];
}

/* Everything the checks compare, taken before and after an input. */
struct tally {
	uint64_t in, out, drops, made, consumed, q_tx;
	uint64_t qdrop[LSW_QDROP_MAX], pg_drops, pool_drops;
	uint64_t mmu_drop[LSW_QDROP_MAX];
};

static void
tally(struct tally *t)
{
	const struct lsw_buffer_lcore *m = sw->dp.buffer[0];
	static const int qdrop_reason[LSW_QDROP_MAX] = {
		[LSW_QDROP_INGRESS_PG_THRESHOLD] = LSW_DROP_INGRESS_PG_THRESHOLD,
		[LSW_QDROP_HEADROOM_OVERFLOW] = LSW_DROP_HEADROOM_OVERFLOW,
		[LSW_QDROP_EGRESS_QUEUE_THRESHOLD] = LSW_DROP_EGRESS_QUEUE_THRESHOLD,
		[LSW_QDROP_WRED_DROP] = LSW_DROP_WRED_DROP,
	};

	memset(t, 0, sizeof(*t));
	t->in = port_sum(LSW_PC_IF_IN_UCAST_PKTS) + port_sum(LSW_PC_IF_IN_NON_UCAST_PKTS);
	t->out = port_sum(LSW_PC_IF_OUT_UCAST_PKTS) + port_sum(LSW_PC_IF_OUT_NON_UCAST_PKTS);
	t->drops = drop_sum(-1);
	t->made = event(LSW_EV_ARP_REQUEST_TX) + event(LSW_EV_ICMP_ERROR_TX) +
		  event(LSW_EV_PFC_TX) + event(LSW_EV_ICMP6_ERROR_TX) + event(LSW_EV_NDP_NS_TX) +
		  event(LSW_EV_NDP_NA_TX) + event(LSW_EV_NDP_NA_UNSOLICITED_TX);
	/* A solicitation is answered with a new frame: the NS itself is consumed. */
	t->consumed = event(LSW_EV_ARP_REPLY_RX) + event(LSW_EV_PFC_RX) + event(LSW_EV_PAUSE_RX) +
		      event(LSW_EV_NDP_NS_RX) + event(LSW_EV_NDP_NA_RX);
	for (uint16_t p = 0; p < n_ports; p++)
		for (int q = 0; q < LSW_NUM_QUEUES; q++) {
			t->q_tx += m->ctr.q_tx_pkts[p][q];
			for (int r = 0; r < LSW_QDROP_MAX; r++)
				t->qdrop[r] += m->ctr.q_drop_reason[p][q][r];
		}
	for (uint16_t p = 0; p < n_ports; p++)
		for (int pg = 0; pg < LSW_NUM_PG; pg++)
			t->pg_drops += m->ctr.pg_drops[p][pg];
	for (int i = 0; i < LSW_MAX_POOLS; i++)
		t->pool_drops += m->ctr.pool_drops[i];
	for (int r = 0; r < LSW_QDROP_MAX; r++)
		t->mmu_drop[r] = drop_sum(qdrop_reason[r]);
}

static bool
ipv4_ok(struct rte_mbuf *m)
{
	const uint8_t *d = rte_pktmbuf_mtod(m, const uint8_t *);

	if (m->data_len < 34 || d[12] != 0x08 || d[13] != 0x00)
		return true; /* not IPv4 */
	const struct rte_ipv4_hdr *ip = (const struct rte_ipv4_hdr *)(d + 14);
	uint32_t hl = rte_ipv4_hdr_len(ip);
	return hl < 20 || m->data_len < 14 + hl || rte_raw_cksum(ip, hl) == 0xffff;
}

/* A frame the switch built (from its own pool: NS, NA, ICMPv6 errors) carries a correct
 * ICMPv6 checksum. Forwarded frames are not checked: the switch does not verify theirs. */
static bool
icmp6_ok(struct rte_mbuf *m)
{
	const uint8_t *d = rte_pktmbuf_mtod(m, const uint8_t *);
	uint32_t off = 14;

	if (m->pool == rx_pool || m->data_len < 18)
		return true;
	if (d[12] == 0x81 && d[13] == 0x00)
		off = 18;
	if (d[off - 2] != 0x86 || d[off - 1] != 0xdd || m->data_len < off + 40)
		return true;
	const struct rte_ipv6_hdr *ip = (const struct rte_ipv6_hdr *)(d + off);
	uint32_t plen = rte_be_to_cpu_16(ip->payload_len);
	if (ip->proto != IPPROTO_ICMPV6)
		return true;
	return m->data_len >= off + 40 + plen && lsw_icmp6_sum(ip, ip + 1, plen) == 0xffff;
}

/* Take what the ports sent. */
static void
collect(void)
{
	struct rte_mbuf *m;

	for (uint16_t p = 0; p < n_ports; p++)
		while (rte_ring_dequeue(txr[p], (void **)&m) == 0) {
			if (!ipv4_ok(m))
				bug("port %u sent an IPv4 header with a wrong checksum", p);
			if (!icmp6_ok(m))
				bug("port %u sent an ICMPv6 message with a wrong checksum "
				    "or length", p);
			rte_pktmbuf_free(m);
			sent++;
		}
}

static const struct lsw_snapshot *
conf(void)
{
	return sw->dp.conf; /* the watchdog may have published a new one */
}

static void
flush(uint16_t p)
{
	if (n_pend[p] == 0)
		return;
	lsw_process_burst(&ts->w, conf(), p, pend[p], n_pend[p], now);
	n_pend[p] = 0;
}

static void
loop_once(void)
{
	static const struct lsw_snapshot *seen;

	for (uint16_t p = 0; p < n_ports; p++)
		flush(p);
	/* As the worker does on a new snapshot: announce its IPv6 addresses. */
	if (conf() != seen) {
		seen = conf();
		lsw_ndp_announce(&ts->w, seen);
	}
	lsw_worker_egress(&ts->w, conf(), now);
	collect();
	lsw_pfcwd_poll(sw, now);
	lsw_dropsnap_poll(sw);
	/* ARP learning is the control plane's: what it was told is dropped, so that every
	 * input starts from the same FIB. */
	struct lsw_neigh_msg msg;
	while (rte_ring_dequeue_elem(sw->dp.neigh_ring, &msg, sizeof(msg)) == 0)
		;
}

static void
feed(uint16_t port, const uint8_t *frame, uint16_t len)
{
	struct rte_mbuf *m = rte_pktmbuf_alloc(rx_pool);

	if (m == NULL)
		return; /* a NIC out of mbufs drops it before anyone counts it in */
	port %= n_ports;
	memcpy(rte_pktmbuf_append(m, len), frame, len);
	m->port = sw->port[port].port_id; /* as the PMD sets it */
	pend[port][n_pend[port]++] = m;
	fed++;
	if (n_pend[port] == LSW_BURST)
		flush(port);
}

static const char *const dsts[] = {
	"10.1.0.9", "10.2.0.9", "10.3.0.9", "10.4.0.9", "10.5.0.9", "10.6.0.9", "10.7.0.9",
	"10.8.0.9", "10.9.0.9", "10.10.0.9", "10.0.0.1", "10.0.0.0", "10.0.1.1", "192.0.2.1",
	"127.0.0.1", "224.0.0.5",
};
static const char *const srcs[] = {"10.0.0.1", "10.0.1.1", "0.0.0.0", "240.0.0.1"};
/* IPv6 (packets.json): an ECMP route, a route and its next hop, a blackhole, an unresolved
 * next hop, the default route (a link-local next hop), the switch's global and link-local
 * addresses, on-link hosts resolved or not, multicast, loopback, a miss-free table (::/0).
 * Also the targets of neighbor solicitations and advertisements. */
static const char *const dsts6[] = {
	"2001:db8:100::9", "2001:db8:200::9", "2001:db8:300::1", "2001:db8:400::9", "3fff::9",
	"2001:db8::1", "fe80::ff:fe00:1", "2001:db8:12::1", "2001:db8::99", "2001:db8:12::77",
	"2001:db8:4::1", "2001:db8:4::", "ff02::1", "ff02::1:ff00:1", "::1", "::",
};
static const char *const srcs6[] = {"2001:db8::2", "2001:db8:12::77", "::", "fe80::2"};
static const uint8_t icmp6_types[8] = {128, 129, 1, 2, 3, 4, 133, 137};

/* Rewrite the ICMPv6 checksum of an IPv6 frame whose header starts at @l3. */
static void
icmp6_fix(uint8_t *l3)
{
	struct rte_ipv6_hdr *ip = (struct rte_ipv6_hdr *)l3;
	uint8_t *icmp = l3 + sizeof(*ip);
	uint16_t s;

	icmp[2] = icmp[3] = 0;
	s = (uint16_t)~lsw_icmp6_sum(ip, icmp, rte_be_to_cpu_16(ip->payload_len));
	memcpy(icmp + 2, &s, 2);
}

/*
 * A neighbor solicitation (@na false) or advertisement for dsts6[b7 & 15]. NS: from
 * srcs6[b2 >> 4 & 3], to the target's solicited-node group, or (b3 & 2) to the target
 * itself. NA: from the target, to the switch's address, with b8 its flags. b3 & 1: a
 * link-layer address option (source for NS, target for NA); b3 & 4: a hop limit of b4
 * rather than 255. An option's length byte is b9 % 3 (0 is malformed) when b3 & 8.
 */
static uint16_t
nd_frame(uint8_t *buf, const uint8_t *b, struct t_flow *f, bool na)
{
	const char *target = dsts6[b[7] & 0xf];
	bool opt = b[3] & 1;
	uint8_t tgt[16];

	t_ip6(target, tgt);
	f->src = na ? target : srcs6[(b[2] >> 4) & 3];
	f->dst = na ? "2001:db8::1" : target;
	f->proto = IPPROTO_ICMPV6;
	f->icmp_type = na ? 136 : 135;
	f->ttl = b[3] & 4 ? b[4] : 255;
	f->payload = (uint16_t)(16 + (opt ? 8 : 0));
	uint16_t len = t_build_ipv6(buf, f);
	uint8_t *l3 = buf + (len - 40 - 8 - f->payload), *icmp = l3 + 40;
	if (!na && !(b[3] & 2)) { /* to the solicited-node group, as a resolver sends it */
		struct rte_ipv6_hdr *ip = (struct rte_ipv6_hdr *)l3;
		lsw_ip6_solicited(ip->dst_addr, tgt);
		if (f->dmac == NULL) {
			static const uint8_t mc[6] = {0x33, 0x33, 0xff};
			memcpy(buf, mc, 3);
			memcpy(buf + 3, tgt + 13, 3);
		}
	}
	memset(icmp + 4, 0, 4 + 16 + (opt ? 8 : 0));
	if (na)
		icmp[4] = b[8];
	memcpy(icmp + 8, tgt, 16);
	if (opt) {
		icmp[24] = na ? 2 : 1;
		icmp[25] = b[3] & 8 ? b[9] % 3 : 1;
		t_mac("02:00:00:00:01:01", (struct rte_ether_addr *)(icmp + 26));
	}
	icmp6_fix(l3);
	return len;
}

/* An IPv6 packet to dsts6[b2 & 15] from srcs6[b2 >> 4 & 3]: b7 & 3 picks UDP, TCP, RoCEv2
 * or a CNP; b3 the traffic class, b4 the hop limit, b9-b11 the flow label. */
static uint16_t
ipv6_frame(uint8_t *buf, const uint8_t *b, struct t_flow *f)
{
	uint8_t l4 = b[7] & 3;

	f->dst = dsts6[b[2] & 0xf];
	f->src = srcs6[(b[2] >> 4) & 3];
	f->proto = l4 == 1 ? IPPROTO_TCP : IPPROTO_UDP;
	f->flow_label = (uint32_t)(b[9] | b[10] << 8 | (b[11] & 0xf) << 16);
	if (l4 >= 2) {
		f->dport = 4791;
		f->payload = RTE_MAX(f->payload, (uint16_t)16);
	}
	uint16_t len = t_build_ipv6(buf, f);
	if (l4 >= 2) { /* the BTH: an RDMA write, or a CNP; the QP from b8 */
		uint8_t *bth = buf + (len - f->payload);
		bth[0] = l4 == 3 ? 0x81 : 0x0a;
		bth[5] = 0, bth[6] = 0, bth[7] = b[8];
	}
	return len;
}

/*
 * A frame from 12 bytes b[0..11]: b0 kind (low 4 bits) and flags (high: VLAN tag, a tag
 * with a VID, multicast source MAC, a foreign destination MAC); b1 the port; b2 the
 * destination (low 4 bits) and source (high); b3 DSCP and ECN; b4 TTL; b5-b6 the length;
 * b7 a BTH opcode or the PFC class-enable vector; b8-b11 ports, QP or pause times.
 * Kinds 8-11 are IPv6 (ipv6_frame, nd_frame); 12 an IPv6 frame cut short; 13-15 an IPv4
 * one cut short.
 */
static void
frame_from(const uint8_t *b)
{
	static uint8_t buf[LSW_MAX_FRAME];
	uint8_t kind = b[0] & 0xf, flags = b[0] >> 4;
	uint16_t size = (uint16_t)(b[5] | b[6] << 8) % 9200;
	struct t_flow f = {
		.dst = dsts[b[2] & 0xf], .src = srcs[(b[2] >> 4) & 3],
		.smac = flags & 4 ? "03:00:00:00:01:01" : NULL,
		.dmac = flags & 8 ? "02:00:00:00:99:99" : NULL,
		.vlan = flags & 1 ? (flags & 2 ? 100 : 0) : -1,
		.tos = b[3], .ttl = b[4], .df = b[3] & 1,
		.sport = (uint16_t)(b[8] | b[9] << 8), .dport = (uint16_t)(b[10] | b[11] << 8),
	};
	uint16_t len, hdr = (uint16_t)(14 + (f.vlan >= 0 ? 4 : 0) + 20 + 8);

	f.payload = size > hdr ? (uint16_t)(size - hdr) : 0;
	switch (kind) {
	case 0: /* UDP */
		len = t_build_ipv4(buf, &f);
		break;
	case 1: /* RoCEv2: a BTH with the opcode, a QP and a PSN */
	case 2: /* a CNP */
		f.dport = 4791;
		f.payload = RTE_MAX(f.payload, (uint16_t)16);
		len = t_build_ipv4(buf, &f);
		buf[hdr] = kind == 2 ? 0x81 : b[7];
		buf[hdr + 5] = b[9], buf[hdr + 6] = b[10], buf[hdr + 7] = b[11];
		break;
	case 3: /* TCP */
		f.proto = IPPROTO_TCP;
		len = t_build_ipv4(buf, &f);
		break;
	case 4: /* ICMP echo */
		f.proto = IPPROTO_ICMP;
		len = t_build_ipv4(buf, &f);
		buf[hdr - 8] = 8;
		break;
	case 5: /* ARP request or reply */
		len = t_build_arp(buf, b[7] & 1 ? 2 : 1, "02:00:00:00:01:01", f.src,
				  "00:00:00:00:00:00", dsts[b[2] & 0xf], "ff:ff:ff:ff:ff:ff");
		break;
	case 6: /* PFC, or 802.3x PAUSE */
	case 7: {
		uint16_t time[8];
		struct rte_ether_addr src;
		t_mac("02:00:00:00:01:01", &src);
		for (int i = 0; i < 8; i++) /* 0xff gives the longest pause */
			time[i] = (uint16_t)(b[8 + (i & 3)] * (i & 4 ? 1 : 257));
		lsw_pfc_encode(buf, &src, b[7], time);
		if (kind == 7) { /* PAUSE: opcode 1, one time */
			buf[14] = 0, buf[15] = 1;
			buf[16] = b[8], buf[17] = b[9];
		}
		len = LSW_PFC_FRAME_LEN;
		break;
	}
	case 8: /* IPv6: UDP, TCP, RoCEv2, CNP */
		f.payload = size > hdr + 20 ? (uint16_t)(size - hdr - 20) : 0;
		len = ipv6_frame(buf, b, &f);
		break;
	case 9: { /* ICMPv6: echo, errors, router solicitation, redirect */
		f.dst = dsts6[b[2] & 0xf];
		f.src = srcs6[(b[2] >> 4) & 3];
		f.proto = IPPROTO_ICMPV6;
		f.icmp_type = icmp6_types[b[7] & 7];
		f.payload = size > hdr + 20 ? (uint16_t)(size - hdr - 20) : 0;
		len = t_build_ipv6(buf, &f);
		if (b[7] & 8) /* a bad checksum */
			buf[len - 1] ^= 0x5a;
		break;
	}
	case 10: /* neighbor solicitation */
	case 11: /* neighbor advertisement */
		len = nd_frame(buf, b, &f, kind == 11);
		break;
	case 12: /* an IPv6 frame cut short anywhere */
		len = ipv6_frame(buf, b, &f);
		len = (uint16_t)(b[8] % (len + 1));
		break;
	default: /* a UDP frame cut short anywhere */
		len = t_build_ipv4(buf, &f);
		len = (uint16_t)(b[7] % (len + 1));
		break;
	}
	feed(b[1], buf, len);
}

static void
set_admin(uint16_t port, bool up)
{
	char params[96];

	for (uint16_t p = 0; p < n_ports; p++)
		flush(p); /* what came in before the change is processed before it */
	snprintf(params, sizeof(params), "{\"port\": \"%s\", \"admin_status\": \"%s\"}",
		 sw->cfg->port[port].name, up ? "up" : "down");
	json_decref(t_rpc(ts, "port.set", params));
}

/* The link of @port goes down or comes back, published as lsw_ports_poll_link does. */
static void
set_link(uint16_t port, bool down)
{
	for (uint16_t p = 0; p < n_ports; p++)
		flush(p);
	sw->port[port].link_down = down;
	struct lsw_snapshot *c = lsw_snapshot_build(sw);
	if (c == NULL)
		bug("snapshot: out of memory");
	lsw_snapshot_publish(sw, c);
	ts->conf = c;
}

/* Why the switch is not drained yet ("" when it is), for the report of an input that
 * never drains. */
static const char *
not_drained(void)
{
	static char why[128];
	const struct lsw_snapshot *c = conf();

	if (ts->w.n_held)
		return "packets held for ARP or NDP";
	for (uint16_t p = 0; p < n_ports; p++) {
		const struct lsw_sched *s = sw->dp.sched[p];
		const char *w = t_tx_count(ts, p) ? "frames to send" :
				s->n_pend ? "frames refused" :
				s->pfc.tx_xoff_pg ? "pausing the peer" :
				s->pfc.tx_xoff ? "XOFF to send" :
				s->pfc.tx_xon ? "XON to send" :
				s->pfc.rx_paused ? "paused by the peer" :
				s->pfc.rx_port_paused ? "paused (802.3x)" :
				c->port[p].wd_drop || c->port[p].wd_ignore_pause ?
				"a storm in force" : NULL;
		if (w != NULL) {
			snprintf(why, sizeof(why), "port %u: %s", p, w);
			return why;
		}
	}
	return "";
}

static bool
drained(void)
{
	return *not_drained() == '\0';
}

static void
check_empty(void)
{
	const struct lsw_buffer_lcore *m = sw->dp.buffer[0];

	for (uint16_t p = 0; p < n_ports; p++) {
		for (int pg = 0; pg < LSW_NUM_PG; pg++)
			for (int part = 0; part < LSW_PARTS; part++)
				if (m->use.pg_occ[p][pg][part] != 0)
					bug("port %u PG %d part %d holds %" PRId64
					    " bytes after the drain",
					    p, pg, part, m->use.pg_occ[p][pg][part]);
		for (int q = 0; q < LSW_NUM_QUEUES; q++)
			if (m->use.q_occ[p][q][0] || m->use.q_occ[p][q][1] ||
			    sw->dp.sched[p]->q[q].bytes)
				bug("port %u queue %d is not empty after the drain", p, q);
	}
	for (int i = 0; i < LSW_MAX_POOLS; i++)
		if (m->use.pool_used[i] || m->use.pool_shared[i] || m->use.pool_hdrm[i])
			bug("pool %d holds bytes after the drain", i);
	if (rte_mempool_avail_count(rx_pool) != rx_pool->size)
		bug("%u received mbufs are missing",
		    rx_pool->size - rte_mempool_avail_count(rx_pool));
	if (rte_mempool_avail_count(t_pool()) != t_pool()->size)
		bug("%u switch mbufs are missing",
		    t_pool()->size - rte_mempool_avail_count(t_pool()));
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct tally a, b;
	size_t i = 0;
	int changes = 0; /* each rebuilds the snapshot: a few per input, or inputs time out */

	tally(&a);
	fed = sent = 0;
	while (i < size) {
		uint8_t op = data[i] & 7, arg = data[i] >> 3;
		i++;
		switch (op) {
		case OP_RAW: {
			if (size - i < 3)
				goto done;
			uint16_t len = (uint16_t)(data[i + 1] | data[i + 2] << 8);
			uint16_t port = data[i];
			i += 3;
			size_t room = RTE_MIN(size - i, (size_t)LSW_MAX_FRAME);
			len = (uint16_t)RTE_MIN((size_t)len, room);
			feed(port, data + i, len);
			i += len;
			break;
		}
		case OP_FRAME:
			if (size - i < 12)
				goto done;
			frame_from(data + i);
			i += 12;
			break;
		case OP_BURST:
			for (uint16_t p = 0; p < n_ports; p++)
				flush(p);
			break;
		case OP_CLOCK: {
			if (size - i < 2)
				goto done;
			uint64_t v = (uint64_t)(data[i] | data[i + 1] << 8);
			now += v << RTE_MIN(arg, (uint8_t)20);
			i += 2;
			break;
		}
		case OP_ADMIN:
			if (changes++ < MAX_CHANGES)
				set_admin(arg % n_ports, !(arg & 4));
			break;
		case OP_LINK:
			if (changes++ < MAX_CHANGES)
				set_link(arg % n_ports, arg & 4);
			break;
		default:
			for (int k = 0; k <= (op == OP_LOOP ? arg : 0); k++)
				loop_once();
			break;
		}
	}
done:
	/* A link that went down keeps its queues (a peer that comes back late loses nothing):
	 * links come back before the drain, or a queue for a dead link never empties. */
	for (uint16_t p = 0; p < n_ports; p++)
		if (sw->port[p].link_down)
			set_link(p, false);
	/* Run on until everything has left: queues, holds, pauses, storms (a restore takes
	 * the watchdog's restoration time), and the XON that ends our own pauses. */
	loop_once();
	for (int k = 0; !drained(); k++) {
		if (k == 5000)
			bug("not drained after %d ms of fake time: %s", k, not_drained());
		loop_once();
		now += T_HZ / 1000;
	}
	loop_once();
	tally(&b);
	uint64_t in = b.in - a.in, out = b.out - a.out, drops = b.drops - a.drops;
	uint64_t made = b.made - a.made, consumed = b.consumed - a.consumed;
	if (in != fed)
		bug("%" PRIu64 " frames fed, %" PRIu64 " counted in", fed, in);
	if (out != sent)
		bug("%" PRIu64 " frames sent, %" PRIu64 " counted out", sent, out);
	for (uint16_t p = 0; p < n_ports; p++)
		if (!conf()->port[p].admin_up)
			set_admin(p, true); /* every input starts with every port up */
	if (getenv("LSW_FUZZ_PRINT")) {
		for (int e = 0; e < LSW_EV_MAX; e++)
			fprintf(stderr, "event %s %" PRIu64 "\n", lsw_event_name(e), event(e));
		for (int d = 1; d < LSW_DROP_MAX; d++)
			if (drop_sum(d))
				fprintf(stderr, "drop %s %" PRIu64 "\n", lsw_drop_name(d),
					drop_sum(d));
	}
	if (fed + made != sent + drops + consumed)
		bug("ledger: fed %" PRIu64 " + made %" PRIu64 " != sent %" PRIu64 " + dropped %"
		    PRIu64 " + consumed %" PRIu64, fed, made, sent, drops, consumed);
	if (b.q_tx - a.q_tx > sent)
		bug("queues sent %" PRIu64 " packets, the ports %" PRIu64, b.q_tx - a.q_tx, sent);
	for (int r = 0; r < LSW_QDROP_MAX; r++)
		if (b.qdrop[r] - a.qdrop[r] != b.mmu_drop[r] - a.mmu_drop[r])
			bug("queue drops of kind %d: %" PRIu64 " in the queues, %" PRIu64
			    " at the ports",
			    r, b.qdrop[r] - a.qdrop[r], b.mmu_drop[r] - a.mmu_drop[r]);
	if (b.pg_drops - a.pg_drops !=
	    (b.qdrop[LSW_QDROP_INGRESS_PG_THRESHOLD] - a.qdrop[LSW_QDROP_INGRESS_PG_THRESHOLD]) +
	    (b.qdrop[LSW_QDROP_HEADROOM_OVERFLOW] - a.qdrop[LSW_QDROP_HEADROOM_OVERFLOW]))
		bug("PG drops disagree with the queues' PG and headroom drops");
	if (b.pool_drops - a.pool_drops !=
	    (b.qdrop[LSW_QDROP_INGRESS_PG_THRESHOLD] - a.qdrop[LSW_QDROP_INGRESS_PG_THRESHOLD]) +
	    (b.qdrop[LSW_QDROP_HEADROOM_OVERFLOW] - a.qdrop[LSW_QDROP_HEADROOM_OVERFLOW]) +
	    (b.qdrop[LSW_QDROP_EGRESS_QUEUE_THRESHOLD] - a.qdrop[LSW_QDROP_EGRESS_QUEUE_THRESHOLD]))
		bug("pool drops disagree with the admission drops");
	check_empty();
	return 0;
}
