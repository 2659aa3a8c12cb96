/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lsw-host's RC transport and PFC (IEEE 802.1Qbb) on a fake wire: go-back-N
 * after a loss, a lost ACK and the retransmission timeout, the QP giving up, PFC obeyed at
 * 10/25/100G, a slow receiver pausing its sender, a storm, ARP, the workloads, and config
 * refusals by JSON path.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "lsw/parse.h"
#include "lsw/pfc.h"
#include "host_wire.h"

#define MS 1000000ull
#define A_MAC "02:00:00:00:00:0a"
#define B_MAC "02:00:00:00:00:0b"

/* Two hosts back to back: each the other's gateway, MACs static unless @arp. */
static void
two_hosts(char *buf, size_t len, const char *a_extra, const char *b_extra, const char *workload,
	  bool arp)
{
	snprintf(buf, len,
		 "{\"hosts\": {"
		 "\"a\": {\"port\": \"net_null0\", \"mac\": \"" A_MAC "\", \"ip\": \"10.0.0.1/31\","
		 " \"gateway\": \"10.0.0.2\"%s%s},"
		 "\"b\": {\"port\": \"net_null1\", \"mac\": \"" B_MAC "\", \"ip\": \"10.0.0.2/31\","
		 " \"gateway\": \"10.0.0.1\"%s%s}},"
		 "\"settle_ms\": 0, \"workload\": %s}",
		 arp ? "" : ", \"gateway_mac\": \"" B_MAC "\"", a_extra,
		 arp ? "" : ", \"gateway_mac\": \"" A_MAC "\"", b_extra, workload);
}

static bool
parse_roce(const struct w_frame *f, struct lsw_roce_rx *r)
{
	struct lsw_pkt_info pi;

	return lsw_parse(f->b, f->len, &pi) == LSW_DROP_NONE && (pi.flags & LSW_PF_ROCE) &&
	       lsw_roce_parse(f->b, f->len, r);
}

/* Drop the data packet with PSN @arg, the first time only. */
static bool
drop_psn_once(struct wire *w, const struct w_frame *f, void *arg)
{
	static bool done;
	struct lsw_roce_rx r;
	uint32_t psn = (uint32_t)(uintptr_t)arg;

	if (w->sent == 1)
		done = false;
	if (!done && parse_roce(f, &r) && r.bth.opcode != LSW_OP_ACK && r.bth.psn == psn) {
		done = true;
		return false;
	}
	return true;
}

/* hosts.md 6.4: one WRITE of 1000 packets with packet 500 lost: exactly one NAK 0x60 naming
 * PSN 500, every packet accepted once and in order, one completion. */
static void
go_back_n(void **state)
{
	struct wire w;
	char cfg[2048];

	(void)state;
	two_hosts(cfg, sizeof(cfg), "", "",
		  "[{\"type\": \"flow\", \"src\": \"a\", \"dst\": \"b\", \"size\": 1024000}]",
		  false);
	w_init(&w, cfg, NULL, 2000);
	w.filter = drop_psn_once;
	w.arg = (void *)(uintptr_t)500;
	w.keep = true;
	w_run(&w, 1000 * MS);

	struct lsw_host *a = &w.e.host[0], *b = &w.e.host[1];
	struct lsw_qp *qp = &w.e.qp[0];
	assert_int_equal(w.dropped, 1);
	assert_int_equal(b->ctr[LSW_HC_resp_nak_sent], 1);
	assert_int_equal(a->ctr[LSW_HC_packet_seq_err], 1);
	assert_true(b->ctr[LSW_HC_out_of_sequence] >= 1);
	assert_int_equal(qp->st.rx_packets, 1000);
	assert_int_equal(qp->epsn, 1000);
	assert_int_equal(b->ctr[LSW_HC_rx_write_requests], 1000);
	assert_int_equal(w.e.msgs_done, 1);
	assert_int_equal(w.e.n_fct, 1);
	assert_int_equal(a->ctr[LSW_HC_local_ack_timeout_err], 0);
	/* The NAK on the wire: syndrome 0x60, PSN 500. */
	int naks = 0;
	for (uint32_t i = 0; i < w.n_log; i++) {
		struct lsw_roce_rx r;
		if (parse_roce(&w.log[i], &r) && r.bth.opcode == LSW_OP_ACK &&
		    LSW_AETH_IS_NAK(r.syndrome)) {
			naks++;
			assert_int_equal(r.syndrome, LSW_AETH_NAK_PSN);
			assert_int_equal(r.bth.psn, 500);
		}
	}
	assert_int_equal(naks, 1);
	/* Go-back-N resent from 500 what was in flight: every resent packet is counted. */
	assert_int_equal(qp->st.packets_sent, 1000 + qp->st.retransmitted);
	assert_true(qp->st.retransmitted >= 1);
	w_free(&w);
}

/* Drop every ACK until @arg of them are gone. */
static bool
drop_acks(struct wire *w, const struct w_frame *f, void *arg)
{
	static uintptr_t n;
	struct lsw_roce_rx r;

	if (w->sent == 1)
		n = 0;
	if (parse_roce(f, &r) && r.bth.opcode == LSW_OP_ACK && n < (uintptr_t)arg) {
		n++;
		return false;
	}
	return true;
}

/* The only ACK lost: the requester times out, sends again from its oldest unacknowledged
 * PSN; the responder sees duplicates and ACKs the last; one completion. */
static void
lost_ack(void **state)
{
	struct wire w;
	char cfg[2048];

	(void)state;
	two_hosts(cfg, sizeof(cfg), ", \"rto_us\": 1000", "",
		  "[{\"type\": \"flow\", \"src\": \"a\", \"dst\": \"b\", \"size\": 4096}]", false);
	w_init(&w, cfg, NULL, 2000);
	w.filter = drop_acks;
	w.arg = (void *)(uintptr_t)1;
	w_run(&w, 100 * MS);
	struct lsw_host *a = &w.e.host[0], *b = &w.e.host[1];
	assert_int_equal(a->ctr[LSW_HC_local_ack_timeout_err], 1);
	assert_int_equal(b->ctr[LSW_HC_duplicate_request], 4); /* the whole message again */
	assert_int_equal(b->ctr[LSW_HC_resp_ack_sent], 2);
	assert_int_equal(w.e.qp[0].st.rx_packets, 4);
	assert_int_equal(w.e.msgs_done, 1);
	/* Completed a timeout after the first try: the FCT says so. */
	assert_true(w.e.fct[0].fct_ns >= 1 * MS);
	w_free(&w);
}

/* Every ACK lost: after retry_cnt timeouts the QP gives up; the run still ends. */
static void
retries_exceeded(void **state)
{
	struct wire w;
	char cfg[2048];

	(void)state;
	two_hosts(cfg, sizeof(cfg), ", \"rto_us\": 100, \"retry_cnt\": 3", "",
		  "[{\"type\": \"flow\", \"src\": \"a\", \"dst\": \"b\", \"size\": 1024, "
		  "\"count\": 3}]", false);
	w_init(&w, cfg, NULL, 2000);
	w.filter = drop_acks;
	w.arg = (void *)(uintptr_t)1000000;
	w_run(&w, 100 * MS);
	assert_int_equal(w.e.host[0].ctr[LSW_HC_local_ack_timeout_err], 4);
	assert_int_equal(w.e.host[0].ctr[LSW_HC_req_transport_retries_exceeded], 1);
	assert_true(w.e.qp[0].error);
	assert_int_equal(w.e.msgs_done, 0);
	assert_int_equal(w.e.msgs_failed, 3);
	assert_true(lsw_hosts_done(&w.e));
	w_free(&w);
}

/* A PFC frame from the test to host a. */
static void
pfc_to(struct wire *w, uint16_t host, uint8_t prio, uint16_t quanta)
{
	uint8_t f[64];
	uint16_t time[8] = {0};
	struct rte_ether_addr src = {{2, 0, 0, 0, 0, 0x0b}};

	time[prio] = quanta;
	lsw_pfc_encode(f, &src, (uint8_t)(1u << prio), time);
	w_inject(w, host, f, 60);
}

static uint64_t
data_frames(struct wire *w, uint64_t from, uint64_t to)
{
	uint64_t n = 0;

	for (uint32_t i = 0; i < w->n_log; i++) {
		struct lsw_roce_rx r;
		uint64_t sent = w->log[i].at - w->delay_ns;
		if (w->log[i].from == 0 && sent >= from && sent < to &&
		    parse_roce(&w->log[i], &r) &&
		    r.bth.opcode != LSW_OP_ACK && r.bth.opcode != LSW_OP_CNP)
			n++;
	}
	return n;
}

/* PFC obeyed (IEEE 802.1Qbb at the host): 0xffff quanta hold the priority for
 * 65535 x 512 bit times at the host's speed; nothing of it leaves meanwhile; it resumes at
 * once after; an XON ends a pause early; another priority is not held. */
static void
pfc_obeyed(void **state)
{
	static const struct {
		const char *speed;
		uint64_t ns;
	} speeds[] = {{"10G", 3355392}, {"25G", 1342156}, {"100G", 335539}};

	(void)state;
	for (size_t s = 0; s < 3; s++) {
		struct wire w;
		char cfg[2048], extra[64];
		snprintf(extra, sizeof(extra), ", \"speed\": \"%s\"", speeds[s].speed);
		two_hosts(cfg, sizeof(cfg), extra, extra,
			  "[{\"type\": \"flow\", \"src\": \"a\", \"dst\": \"b\", \"size\": "
			  "\"64MB\"}]", false);
		w_init(&w, cfg, NULL, 1000);
		w.keep = true;
		w_run(&w, 100000); /* 100 us of sending */
		uint64_t t0 = w.now;
		pfc_to(&w, 0, 3, 0xffff);
		w_run(&w, t0 + speeds[s].ns + 20000);
		/* A frame already on the wire when the pause came may finish: at most one. */
		assert_true(data_frames(&w, t0 + 1, t0 + speeds[s].ns - 1) == 0);
		assert_true(data_frames(&w, t0 + speeds[s].ns, t0 + speeds[s].ns + 20000) > 0);
		assert_int_equal(w.e.host[0].ps.rx_pause[3], 1);
		assert_true(w.e.host[0].ps.rx_pause_ns[3] >= speeds[s].ns - 1 &&
			    w.e.host[0].ps.rx_pause_ns[3] <= speeds[s].ns + 1);
		/* An XON ends the next pause at once; a pause of priority 5 holds nothing. */
		uint64_t t1 = w.now;
		pfc_to(&w, 0, 3, 0xffff);
		w_run(&w, t1 + 50000);
		assert_int_equal(data_frames(&w, t1 + 1, t1 + 50000), 0);
		pfc_to(&w, 0, 3, 0);
		uint64_t t2 = w.now;
		pfc_to(&w, 0, 5, 0xffff);
		w_run(&w, t2 + 50000);
		assert_true(data_frames(&w, t2, t2 + 50000) > 0);
		w_free(&w);
	}
}

/* A slow receiver (1 Gb/s drain) pauses a 10 Gb/s sender before its buffer overflows:
 * XOFF and XON go out on priority 3, the sender obeys, nothing is lost, all completes. */
static void
slow_receiver(void **state)
{
	struct wire w;
	char cfg[2048];

	(void)state;
	two_hosts(cfg, sizeof(cfg), "",
		  ", \"rx_buffer\": \"256KB\", \"rx_drain\": \"1G\", \"rx_xoff\": \"128KB\","
		  " \"rx_xon\": \"64KB\"",
		  "[{\"type\": \"flow\", \"src\": \"a\", \"dst\": \"b\", \"size\": \"4MB\"}]",
		  false);
	w_init(&w, cfg, NULL, 1000);
	w_run(&w, 1000 * MS);
	struct lsw_host *a = &w.e.host[0], *b = &w.e.host[1];
	assert_int_equal(b->ctr[LSW_HC_out_of_buffer], 0);
	assert_true(b->ps.tx_pause[3] >= 2);
	assert_int_equal(a->ps.rx_pause[3], b->ps.tx_pause[3]);
	assert_true(b->ps.tx_pause_ns[3] > 0);
	assert_int_equal(w.e.msgs_done, 1);
	/* At 1 Gb/s, 4 MB take about 34 ms: the sender was held to the drain rate. */
	assert_true(w.e.fct[0].fct_ns > 30 * MS);
	w_free(&w);
}

/* The storm: a host keeps priority 3 paused from 1 ms for 10 ms, an XOFF every half pause
 * (1.68 ms at 10G): 6 or 7 frames, none before or after. */
static void
storm(void **state)
{
	struct wire w;
	char cfg[2048];

	(void)state;
	two_hosts(cfg, sizeof(cfg), "",
		  ", \"storm\": {\"priority\": 3, \"start_ms\": 1, \"duration_ms\": 10}",
		  "[{\"type\": \"flow\", \"src\": \"a\", \"dst\": \"b\", \"size\": 1024, "
		  "\"start_us\": 20000}]", false);
	w_init(&w, cfg, NULL, 1000);
	w.keep = true;
	w_run(&w, 40 * MS);
	struct lsw_host *b = &w.e.host[1];
	assert_true(b->ctr[LSW_HC_tx_pause_storm_frames] >= 6 &&
		    b->ctr[LSW_HC_tx_pause_storm_frames] <= 7);
	for (uint32_t i = 0; i < w.n_log; i++)
		if (w.log[i].from == 1 && w.log[i].len == 60 && w.log[i].b[12] == 0x88) {
			uint64_t sent = w.log[i].at - w.delay_ns;
			assert_true(sent >= 1 * MS && sent < 11 * MS);
		}
	assert_int_equal(w.e.msgs_done, 1);
	w_free(&w);
}

/* Without a static MAC, hosts resolve their gateway with ARP and answer ARP for themselves. */
static void
arp(void **state)
{
	struct wire w;
	char cfg[2048];

	(void)state;
	two_hosts(cfg, sizeof(cfg), "", "",
		  "[{\"type\": \"flow\", \"src\": \"a\", \"dst\": \"b\", \"size\": 8192}, "
		  "{\"type\": \"flow\", \"src\": \"b\", \"dst\": \"a\", \"size\": 8192}]", true);
	w_init(&w, cfg, NULL, 1000);
	w_run(&w, 1000 * MS);
	assert_true(w.e.host[0].gw_resolved && w.e.host[1].gw_resolved);
	assert_true(w.e.host[0].ctr[LSW_HC_arp_requests_sent] >= 1);
	assert_true(w.e.host[1].ctr[LSW_HC_arp_replies_sent] >= 1);
	assert_int_equal(w.e.msgs_done, 2);
	w_free(&w);
}

/* A CE-marked packet makes the responder send a CNP (DSCP 48, priority 6 by default); the
 * requester with DCQCN cuts its rate; without CC it ignores it. */
static bool
mark_ce(struct wire *w, const struct w_frame *f, void *arg)
{
	struct w_frame *m = (struct w_frame *)f;
	struct lsw_roce_rx r;

	(void)w;
	(void)arg;
	if (parse_roce(f, &r) && r.bth.opcode != LSW_OP_ACK && r.bth.opcode != LSW_OP_CNP) {
		/* As a switch marks: TOS ECN bits to CE, checksum updated, ICRC untouched. */
		uint8_t *ip = m->b + r.l3_off;
		ip[1] |= LSW_ECN_CE;
		ip[10] = ip[11] = 0;
		uint32_t sum = 0;
		for (int i = 0; i < 20; i += 2)
			sum += (uint32_t)(ip[i] << 8 | ip[i + 1]);
		while (sum >> 16)
			sum = (sum & 0xffff) + (sum >> 16);
		ip[10] = (uint8_t)(~sum >> 8);
		ip[11] = (uint8_t)~sum;
	}
	return true;
}

static void
ecn_cnp(void **state)
{
	for (int cc = 0; cc < 2; cc++) {
		struct wire w;
		char cfg[2048];
		(void)state;
		two_hosts(cfg, sizeof(cfg),
			  cc ? ", \"cc\": {\"profile\": \"paper\"}" :
			       ", \"cc\": {\"algorithm\": \"none\"}", "",
			  "[{\"type\": \"flow\", \"src\": \"a\", \"dst\": \"b\", "
			  "\"size\": \"1MB\"}]",
			  false);
		w_init(&w, cfg, NULL, 1000);
		w.filter = mark_ce;
		w.keep = true;
		w_run(&w, 1000 * MS);
		struct lsw_host *a = &w.e.host[0], *b = &w.e.host[1];
		assert_int_equal(b->ctr[LSW_HC_np_ecn_marked_roce_packets], 1024);
		assert_true(b->ctr[LSW_HC_np_cnp_sent] >= 1);
		assert_int_equal(b->ctr[LSW_HC_rx_icrc_errors], 0);
		assert_int_equal(a->ctr[LSW_HC_rp_cnp_handled] + a->ctr[LSW_HC_rp_cnp_ignored],
				 b->ctr[LSW_HC_np_cnp_sent]);
		if (cc) {
			assert_true(a->ctr[LSW_HC_rp_cnp_handled] >= 1);
			assert_true(w.e.qp[0].rp.rc < 10e9);
		} else {
			assert_int_equal(a->ctr[LSW_HC_rp_cnp_handled], 0);
		}
		int cnps = 0;
		for (uint32_t i = 0; i < w.n_log; i++) {
			struct lsw_roce_rx r;
			if (parse_roce(&w.log[i], &r) && r.bth.opcode == LSW_OP_CNP) {
				assert_int_equal(r.tos >> 2, 48);
				assert_true(r.bth.becn);
				assert_int_equal(r.bth.dqpn, w.e.qp[0].qpn);
				cnps++;
			}
		}
		assert_int_equal(cnps, b->ctr[LSW_HC_np_cnp_sent]);
		assert_int_equal(w.e.msgs_done, 1);
		w_free(&w);
	}
}

/* The emulator's own stalls are counted, not taken for the network's: on the fake wire,
 * which polls when asked, none; a poll 3 ms later than asked is one stall of 3 ms, and the
 * next rate samples carry it. */
static void
emulator_stalls(void **state)
{
	struct wire w;
	char cfg[2048];

	(void)state;
	two_hosts(cfg, sizeof(cfg), ", \"speed\": \"1G\"", ", \"speed\": \"1G\"",
		  "[{\"type\": \"flow\", \"src\": \"a\", \"dst\": \"b\", \"size\": \"4MB\"}]",
		  false);
	w_init(&w, cfg, NULL, 1000);
	w.e.sample_ns = 1 * MS;
	w_run(&w, 10 * MS);
	assert_int_equal(w.e.stalls, 0);
	assert_int_equal(w.e.stall_ns, 0);
	uint64_t want = w.e.want_ns;
	assert_true(want >= w.now && want < w.now + MS);
	w.now = want + 3 * MS;
	lsw_hosts_poll(&w.e, w.now);
	assert_int_equal(w.e.stalls, 1);
	assert_int_equal(w.e.stall_ns, 3 * MS);
	assert_int_equal(w.e.stall_max_ns, 3 * MS);
	w_run(&w, 20 * MS);
	float seen = 0;
	for (uint32_t i = 0; i < w.e.n_samples; i++)
		seen += w.e.sample[i].stall_us;
	assert_true(seen >= 3000 && seen < 3001);
	w_free(&w);
}

/* Workloads expand to the QPs and messages they say, the same for a seed. */
static void
workloads(void **state)
{
	static const char cfg[] =
		"{\"hosts\": {\"h1\": {\"port\": \"p1\", \"ip\": \"10.0.0.1/24\", \"gateway\": "
		"\"10.0.0.254\"}, \"h2\": {\"port\": \"p2\", \"ip\": \"10.0.0.2/24\", \"gateway\": "
		"\"10.0.0.254\"}, \"h3\": {\"port\": \"p3\", \"ip\": \"10.0.0.3/24\", \"gateway\": "
		"\"10.0.0.254\"}, \"h4\": {\"port\": \"p4\", \"ip\": \"10.0.0.4/24\", \"gateway\": "
		"\"10.0.0.254\"}}, \"seed\": 7, \"workload\": ["
		"{\"type\": \"incast\", \"senders\": [\"h1\", \"h2\", \"h3\"], "
		"\"receiver\": \"h4\", \"size\": \"64KB\", \"count\": 2, \"gap_us\": 100},"
		"{\"type\": \"all_to_all\", \"hosts\": [\"h1\", \"h2\", \"h3\"], \"size\": 1000},"
		"{\"type\": \"permutation\", \"hosts\": [\"h1\", \"h2\", \"h3\", \"h4\"], "
		"\"size\": 10},"
		"{\"type\": \"ring_allreduce\", \"hosts\": [\"h1\", \"h2\", \"h3\", \"h4\"], "
		"\"size\": \"4MB\", \"iterations\": 2},"
		"{\"type\": \"poisson\", \"hosts\": [\"h1\", \"h2\", \"h3\", \"h4\"], \"cdf\": "
		"\"websearch\", \"load\": 0.5, \"duration_ms\": 10}]}";
	struct wire w, w2;

	(void)state;
	w_init(&w, cfg, NULL, 1000);
	/* incast 3 + all-to-all 6 + permutation 4 + ring 4 = 17 QPs before the Poisson flows. */
	assert_true(w.e.n_qps > 17);
	assert_int_equal(w.e.qp[0].dst, 3);
	assert_int_equal(w.e.n_coll, 1);
	assert_int_equal(w.e.coll[0].steps, 6);
	assert_int_equal(w.e.coll[0].chunk, 1 << 20);
	for (uint32_t i = 9; i < 13; i++)
		assert_int_not_equal(w.e.qp[i].src, w.e.qp[i].dst);
	/* Poisson: 4 senders at 10G, load 0.5, 10 ms, mean websearch size about 1.6 MB: a few
	 * flows each; every one between two different hosts; posts in time order. */
	for (uint32_t i = 17; i < w.e.n_qps; i++)
		assert_int_not_equal(w.e.qp[i].src, w.e.qp[i].dst);
	for (uint32_t i = 1; i < w.e.n_posts; i++)
		assert_true(w.e.post[i].at >= w.e.post[i - 1].at);
	w_init(&w2, cfg, NULL, 1000);
	assert_int_equal(w.e.n_qps, w2.e.n_qps);
	assert_int_equal(w.e.n_posts, w2.e.n_posts);
	for (uint32_t i = 0; i < w.e.n_posts; i++) {
		assert_int_equal(w.e.post[i].at, w2.e.post[i].at);
		assert_int_equal(w.e.post[i].qp, w2.e.post[i].qp);
		assert_int_equal(w.e.post[i].size, w2.e.post[i].size);
	}
	w_free(&w);
	w_free(&w2);
}

/* A ring all-reduce on four hosts of one 25G switch-less mesh is not possible on a wire of
 * two; on two hosts it runs 2 steps per iteration, barrier between, and reports its JCT. */
static void
ring_two(void **state)
{
	struct wire w;
	char cfg[2048];

	(void)state;
	two_hosts(cfg, sizeof(cfg), "", "",
		  "[{\"type\": \"ring_allreduce\", \"hosts\": [\"a\", \"b\"], \"size\": \"1MB\","
		  " \"iterations\": 3}]", false);
	w_init(&w, cfg, NULL, 1000);
	w_run(&w, 1000 * MS);
	assert_int_equal(w.e.coll[0].iter, 3);
	assert_int_equal(w.e.msgs_done, 2 * 2 * 3);
	/* Each step moves 512 KB each way at 10G: about 0.43 ms; a JCT of two steps. */
	for (int i = 0; i < 3; i++)
		assert_true(w.e.coll[0].jct_ns[i] > 800000 && w.e.coll[0].jct_ns[i] < 1200000);
	w_free(&w);
}

/* With a compute phase (bench §10.1) each iteration first sends nothing for compute_us,
 * then runs its steps: the JCT counts both, and the hosts are idle meanwhile. */
static void
ring_compute(void **state)
{
	struct wire w;
	char cfg[2048];

	(void)state;
	two_hosts(cfg, sizeof(cfg), "", "",
		  "[{\"type\": \"ring_allreduce\", \"hosts\": [\"a\", \"b\"], \"size\": \"1MB\","
		  " \"iterations\": 3, \"compute_us\": 2000}]", false);
	w_init(&w, cfg, NULL, 1000);
	w_run(&w, 1900000ull);
	assert_int_equal(w.e.msgs_posted, 0);
	w_run(&w, 1000 * MS);
	assert_int_equal(w.e.coll[0].iter, 3);
	assert_int_equal(w.e.msgs_done, 2 * 2 * 3);
	for (int i = 0; i < 3; i++)
		assert_true(w.e.coll[0].jct_ns[i] > 2800000 && w.e.coll[0].jct_ns[i] < 3200000);
	w_free(&w);
}

/* A router drops what has TTL 1: the fault option sends the first transmission of one PSN
 * that way, and go-back-N recovers it. */
static bool
route(struct wire *w, const struct w_frame *f, void *arg)
{
	struct lsw_roce_rx r;

	(void)w;
	(void)arg;
	return !(parse_roce(f, &r) && f->b[r.l3_off + 8] <= 1);
}

static void
ttl_one(void **state)
{
	struct wire w;
	char cfg[2048];

	(void)state;
	two_hosts(cfg, sizeof(cfg), ", \"ttl_one_psn\": 5", "",
		  "[{\"type\": \"flow\", \"src\": \"a\", \"dst\": \"b\", \"size\": 16384}]", false);
	w_init(&w, cfg, NULL, 2000);
	w.filter = route;
	w_run(&w, 1000 * MS);
	assert_int_equal(w.dropped, 1);
	assert_int_equal(w.e.host[1].ctr[LSW_HC_resp_nak_sent], 1);
	assert_int_equal(w.e.qp[0].st.rx_packets, 16);
	assert_int_equal(w.e.msgs_done, 1);
	w_free(&w);
}

/* ABM's unscheduled packets: a message's data packets that start within its first
 * unsched_bytes (6250: PSN 0-6 of 1 KB) carry dscp_unsched, sent first or resent after
 * a loss (PSN 3); the rest and the ACKs the data's class (3). Each one counted. */
static void
unsched_dscp(void **state)
{
	struct wire w;
	char cfg[2048];

	(void)state;
	two_hosts(cfg, sizeof(cfg), ", \"dscp_unsched\": 2, \"unsched_bytes\": 6250", "",
		  "[{\"type\": \"flow\", \"src\": \"a\", \"dst\": \"b\", \"size\": 20480}]", false);
	w_init(&w, cfg, NULL, 2000);
	w.filter = drop_psn_once;
	w.arg = (void *)(uintptr_t)3;
	w.keep = true;
	w_run(&w, 1000 * MS);
	int tagged = 0, psn3 = 0;
	for (uint32_t i = 0; i < w.n_log; i++) {
		struct lsw_roce_rx r;
		if (!parse_roce(&w.log[i], &r))
			continue;
		const bool ack = r.bth.opcode == LSW_OP_ACK;
		assert_int_equal(r.tos >> 2, !ack && r.bth.psn <= 6 ? 2 : 3);
		tagged += !ack && r.bth.psn <= 6;
		psn3 += !ack && r.bth.psn == 3;
	}
	assert_int_equal(psn3, 2); /* lost, then resent: go-back-N from it */
	assert_int_equal(tagged, 7 + 4);
	assert_int_equal(w.e.host[0].ctr[LSW_HC_req_unsched_packets], tagged);
	assert_int_equal(w.e.msgs_done, 1);
	w_free(&w);
}

static void
refusals(void **state)
{
	static const char *const cases[][3] = {
		{"{\"hosts\": {\"a\": {\"port\": \"p\", \"ip\": \"10.0.0.1\", \"gateway\": "
		 "\"10.0.0.2\"}}, \"workload\": []}", "$.hosts.a.ip", "length"},
		{"{\"hosts\": {\"a\": {\"port\": \"p\", \"ip\": \"10.0.0.1/31\", \"gateway\": "
		 "\"10.0.0.2\", \"mtu\": 1500}}, \"workload\": []}", "$.hosts.a.mtu", "4096"},
		{"{\"hosts\": {\"a\": {\"port\": \"p\", \"ip\": \"10.0.0.1/31\", \"gateway\": "
		 "\"10.0.0.2\", \"speed\": \"fast\"}}, \"workload\": []}", "$.hosts.a.speed",
		 "speed"},
		{"{\"hosts\": {\"a\": {\"port\": \"p\", \"ip\": \"10.0.0.1/31\", \"gateway\": "
		 "\"10.0.0.2\", \"cc\": {\"profile\": \"fast\"}}}, \"workload\": []}",
		 "$.hosts.a.cc.profile", "mlx"},
		{"{\"hosts\": {\"a\": {\"port\": \"p\", \"ip\": \"10.0.0.1/31\", \"gateway\": "
		 "\"10.0.0.2\", \"cc\": {\"g\": 2}}}, \"workload\": []}", "$.hosts.a.cc.g",
		 "between"},
		{"{\"hosts\": {\"a\": {\"port\": \"p\", \"ip\": \"10.0.0.1/31\", \"gateway\": "
		 "\"10.0.0.2\", \"color\": 1}}, \"workload\": []}", "$.hosts.a.color", "unknown"},
		{"{\"hosts\": {\"a\": {\"port\": \"p\", \"ip\": \"10.0.0.1/31\", \"gateway\": "
		 "\"10.0.0.2\"}}, \"workload\": [{\"type\": \"flow\", \"src\": \"a\", \"dst\": "
		 "\"z\", \"size\": 1}]}", "$.workload[0].dst", "no host"},
		{"{\"hosts\": {\"a\": {\"port\": \"p\", \"ip\": \"10.0.0.1/31\", \"gateway\": "
		 "\"10.0.0.2\"}}, \"workload\": [{\"type\": \"poisson\", \"hosts\": [\"a\", \"a\"],"
		 " \"cdf\": \"websearch\", \"load\": 0.5}]}", "$.workload[0].hosts[1]", "twice"},
		{"{\"hosts\": {\"a\": {\"port\": \"p\", \"ip\": \"10.0.0.1/31\", \"gateway\": "
		 "\"10.0.0.2\", \"rx_buffer\": \"64KB\"}}, \"workload\": []}", "$.hosts.a.rx_xon",
		 "rx_drain"},
		{"{\"hosts\": {\"a\": {\"port\": \"p\", \"ip\": \"10.0.0.1/31\", \"gateway\": "
		 "\"10.0.0.2\", \"storm\": {\"start_ms\": 1}}}, \"workload\": []}",
		 "$.hosts.a.storm.priority", "priority"},
		{"{\"hosts\": {\"a\": {\"port\": \"p\", \"ip\": \"10.0.0.1/31\", \"gateway\": "
		 "\"10.0.0.2\"}}, \"workload\": [{\"type\": \"wave\"}]}", "$.workload[0].type",
		 "incast"},
		{"{\"hosts\": {\"a\": {\"port\": \"p\", \"ip\": \"10.0.0.1/31\", \"gateway\": "
		 "\"10.0.0.2\", \"dscp_unsched\": 64}}, \"workload\": []}",
		 "$.hosts.a.dscp_unsched", ""},
	};
	char path[256], msg[256];

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		unsigned int n = w_config_errors(cases[i][0], NULL, path, sizeof(path), msg,
						 sizeof(msg));
		if (n == 0 || strcmp(path, cases[i][1]) != 0 || strstr(msg, cases[i][2]) == NULL)
			fail_msg("case %zu: %u errors, first %s: %s", i, n, path, msg);
	}
	/* --hosts naming a host the file does not have. */
	assert_int_equal(w_config_errors("{\"hosts\": {\"a\": {\"port\": \"p\", \"ip\": "
					 "\"10.0.0.1/31\", \"gateway\": \"10.0.0.2\"}}, "
					 "\"workload\": []}", "a,q", path, sizeof(path), msg,
					 sizeof(msg)), 1);
	assert_string_equal(path, "--hosts");
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(go_back_n),
		cmocka_unit_test(lost_ack),
		cmocka_unit_test(retries_exceeded),
		cmocka_unit_test(pfc_obeyed),
		cmocka_unit_test(slow_receiver),
		cmocka_unit_test(storm),
		cmocka_unit_test(arp),
		cmocka_unit_test(ecn_cnp),
		cmocka_unit_test(workloads),
		cmocka_unit_test(ring_two),
		cmocka_unit_test(ring_compute),
		cmocka_unit_test(ttl_one),
		cmocka_unit_test(unsched_dscp),
		cmocka_unit_test(refusals),
		cmocka_unit_test(emulator_stalls),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
