/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lsw-host's trim-aware transport (tools/lsw-host/trim.h) on a fake wire whose "switch"
 * trims chosen data packets as lsw does (cut, DSCP, IPv4 length and checksum): the receiver
 * knows a trim by its DSCP, NACKs that PSN at once with UET's code, keeps what follows, and
 * the sender resends that PSN alone (with its own DSCP when it has one); the same loss as a
 * drop costs go-back-N's resending
 * (or a timeout at a message's tail); a stock receiver drops a trim as a bad ICRC; a
 * packet of a trim DSCP that was not cut is taken whole; real losses among trims are still
 * repaired; config refusals by path.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include <rte_ip.h>
#include "lsw/parse.h"
#include "host_wire.h"

#define MS 1000000ull
#define A_MAC "02:00:00:00:00:0a"
#define B_MAC "02:00:00:00:00:0b"
/* Data marked trimmable with DSCP 10; trims come back as 46 (fabric) or 47 (last hop). */
#define AWARE ", \"trim\": {\"trimmable_dscp\": 10, \"trimmed_dscp\": 46, \"last_hop_dscp\": [47]}"
#define STOCK ", \"trim\": {\"trimmable_dscp\": 10}"

static void
two_hosts(char *buf, size_t len, const char *extra, const char *workload)
{
	snprintf(buf, len,
		 "{\"hosts\": {"
		 "\"a\": {\"port\": \"net_null0\", \"mac\": \"" A_MAC "\", \"ip\": \"10.0.0.1/31\","
		 " \"gateway\": \"10.0.0.2\", \"gateway_mac\": \"" B_MAC "\"%s},"
		 "\"b\": {\"port\": \"net_null1\", \"mac\": \"" B_MAC "\", \"ip\": \"10.0.0.2/31\","
		 " \"gateway\": \"10.0.0.1\", \"gateway_mac\": \"" A_MAC "\"%s}},"
		 "\"settle_ms\": 0, \"workload\": %s}", extra, extra, workload);
}

static bool
parse_roce(const struct w_frame *f, struct lsw_roce_rx *r)
{
	struct lsw_pkt_info pi;

	return lsw_parse(f->b, f->len, &pi) == LSW_DROP_NONE && (pi.flags & LSW_PF_ROCE) &&
	       lsw_roce_parse(f->b, f->len, r);
}

/* Which data packets the wire trims (or drops), the first time each is sent. */
struct cut {
	uint32_t psn[16];
	int n;
	bool drop[16];        /* drop it instead */
	bool done[16];
	uint16_t size;        /* the trims' frame size */
	uint8_t dscp;         /* their DSCP */
	uint64_t trimmed_at;  /* when the first trim was made */
};

/* What lsw does to a refused IPv4 frame: cut to size, the DSCP set with ECN kept, the
 * total length and checksum made right, the UDP length left. */
static void
trim_frame(struct w_frame *f, uint16_t size, uint8_t dscp)
{
	uint8_t *ip = f->b + 14;

	if (f->len > size)
		f->len = size;
	ip[1] = (uint8_t)(dscp << 2 | (ip[1] & 3));
	ip[2] = (uint8_t)((f->len - 14) >> 8);
	ip[3] = (uint8_t)(f->len - 14);
	ip[10] = ip[11] = 0;
	uint16_t c = rte_ipv4_cksum((const struct rte_ipv4_hdr *)ip);
	memcpy(ip + 10, &c, 2);
}

static void
cutter(struct wire *w, struct w_frame *f, void *arg)
{
	struct cut *c = arg;
	struct lsw_roce_rx r;

	if (!parse_roce(f, &r) || r.bth.opcode == LSW_OP_ACK)
		return;
	for (int i = 0; i < c->n; i++) {
		if (r.bth.psn != c->psn[i] || c->done[i] || c->drop[i])
			continue;
		c->done[i] = true;
		if (c->trimmed_at == 0)
			c->trimmed_at = w->now;
		trim_frame(f, c->size, c->dscp);
	}
}

static bool
dropper(struct wire *w, const struct w_frame *f, void *arg)
{
	struct cut *c = arg;
	struct lsw_roce_rx r;

	(void)w;
	if (!parse_roce(f, &r) || r.bth.opcode == LSW_OP_ACK)
		return true;
	for (int i = 0; i < c->n; i++)
		if (r.bth.psn == c->psn[i] && c->drop[i] && !c->done[i]) {
			c->done[i] = true;
			return false;
		}
	return true;
}

/* Run @workload between two hosts of @extra over a wire of 2 us that trims (or drops) as
 * @c says; @w is left for the test to read. */
static void
run(struct wire *w, const char *extra, const char *workload, struct cut *c)
{
	char cfg[2048];

	two_hosts(cfg, sizeof(cfg), extra, workload);
	w_init(w, cfg, NULL, 2000);
	w->mutate = cutter;
	w->mutate_arg = c;
	w->filter = dropper;
	w->arg = c;
	w->keep = true;
	w_run(w, 2000 * MS);
}

#define ONE_WRITE(bytes) "[{\"type\": \"flow\", \"src\": \"a\", \"dst\": \"b\", \"size\": " \
	#bytes "}]"

/* One WRITE of 100 packets with PSN 40 trimmed: b counts one trim, NACKs PSN 40 once with
 * code TRIMMED (AETH 0x71), keeps what follows until the resend; a resends PSN 40 alone
 * and nothing else; no sequence-error NAK, one completion, every packet in order. */
static void
selective_repeat(void **state)
{
	struct wire w;
	struct cut c = {.psn = {40}, .n = 1, .size = 128, .dscp = 46};

	(void)state;
	run(&w, AWARE, ONE_WRITE(102400), &c);
	struct lsw_host *a = &w.e.host[0], *b = &w.e.host[1];
	struct lsw_qp *qp = &w.e.qp[0];
	assert_int_equal(b->ctr[LSW_HC_rx_trimmed_packets], 1);
	assert_int_equal(b->ctr[LSW_HC_resp_nack_trimmed_sent], 1);
	assert_int_equal(b->ctr[LSW_HC_resp_nak_sent], 0);
	assert_int_equal(b->ctr[LSW_HC_rx_icrc_errors], 0);
	assert_true(b->ctr[LSW_HC_resp_ooo_kept] >= 1); /* what came in a round trip */
	assert_int_equal(a->ctr[LSW_HC_req_nack_trimmed], 1);
	assert_int_equal(a->ctr[LSW_HC_req_selective_retransmits], 1);
	assert_int_equal(a->ctr[LSW_HC_req_retransmitted_packets], 1);
	assert_int_equal(a->ctr[LSW_HC_packet_seq_err], 0);
	assert_int_equal(a->ctr[LSW_HC_local_ack_timeout_err], 0);
	assert_int_equal(qp->st.rx_packets, 100);
	assert_int_equal(qp->epsn, 100);
	assert_int_equal(qp->msn, 1);
	assert_int_equal(w.e.msgs_done, 1);
	/* The NACK on the wire: AETH 0x71 for PSN 40, sent as soon as the trim arrived (the
	 * wire's 2 us later), ahead of anything else b had to send. */
	int nacks = 0;
	for (uint32_t i = 0; i < w.n_log; i++) {
		struct lsw_roce_rx r;
		if (parse_roce(&w.log[i], &r) && r.bth.opcode == LSW_OP_ACK &&
		    LSW_AETH_IS_NAK(r.syndrome)) {
			nacks++;
			assert_int_equal(r.syndrome, LSW_AETH_NAK_TRIM(LSW_UET_NACK_TRIMMED));
			assert_int_equal(r.bth.psn, 40);
		}
	}
	assert_int_equal(nacks, 1);
	assert_true(b->first_nak_ns >= c.trimmed_at + 2000);
	assert_true(b->first_nak_ns <= c.trimmed_at + 2000 + 2000); /* a frame's time at most */
	/* Data carried the trimmable DSCP, ACKs the data class's (3); the wire logs the trim
	 * as it made it. */
	int data = 0, trims = 0;
	for (uint32_t i = 0; i < w.n_log; i++) {
		struct lsw_roce_rx r;
		if (!parse_roce(&w.log[i], &r))
			continue;
		trims += r.tos >> 2 == 46;
		if (r.tos >> 2 != 46)
			assert_int_equal(r.tos >> 2, r.bth.opcode == LSW_OP_ACK ? 3 : 10);
		data += r.bth.opcode != LSW_OP_ACK;
	}
	assert_int_equal(trims, 1);
	assert_int_equal(data, 101);
	w_free(&w);
}

/* With rtx_dscp (UET's DSCP_RTX) the packet resent for a trim carries it, the first
 * sending the trimmable DSCP. */
static void
rtx_dscp(void **state)
{
	struct wire w;
	struct cut c = {.psn = {5}, .n = 1, .size = 128, .dscp = 46};

	(void)state;
	run(&w, ", \"trim\": {\"trimmable_dscp\": 10, \"trimmed_dscp\": 46, \"rtx_dscp\": 12}",
	    ONE_WRITE(10240), &c);
	int sendings = 0;
	for (uint32_t i = 0; i < w.n_log; i++) {
		struct lsw_roce_rx r;
		if (!parse_roce(&w.log[i], &r) || r.bth.opcode == LSW_OP_ACK || r.bth.psn != 5)
			continue;
		/* The first, trimmed on the wire; then the resend, alone. */
		assert_int_equal(r.tos >> 2, sendings++ == 0 ? 46 : 12);
	}
	assert_int_equal(sendings, 2);
	assert_int_equal(w.e.host[0].ctr[LSW_HC_req_selective_retransmits], 1);
	assert_int_equal(w.e.msgs_done, 1);
	w_free(&w);
}

/* A switch's queues: data waits 30 us in a standing queue, while trims (strict trim queue)
 * and packets resent for them (DSCP_RTX, a strict queue) pass it, so that a trim, and the
 * packet resent for it, arrive ahead of the data sent before them. Every fifth data packet
 * trimmed: each resent once, alone, and kept where it goes; no sequence error, no
 * timeout. (A resend ahead of the frontier was once taken for a gap: 32 go-back-Ns.) */
static void
queued(struct wire *w, struct w_frame *f, void *arg)
{
	struct lsw_roce_rx r;

	(void)arg;
	if (!parse_roce(f, &r) || r.bth.opcode == LSW_OP_ACK || r.tos >> 2 == 12)
		return; /* ACKs, resends: straight through */
	if (r.bth.psn % 5 == 2 && r.tos >> 2 == 10) {
		trim_frame(f, 128, 46);
		return;
	}
	f->at = w->now + w->delay_ns + 30000;
}

static void
reordered(void **state)
{
	struct wire w;
	char cfg[2048];

	(void)state;
	two_hosts(cfg, sizeof(cfg), ", \"trim\": {\"trimmable_dscp\": 10, \"trimmed_dscp\": 46,"
		  " \"rtx_dscp\": 12}", ONE_WRITE(409600));
	w_init(&w, cfg, NULL, 2000);
	w.mutate = queued;
	w_run(&w, 2000 * MS);
	struct lsw_host *a = &w.e.host[0], *b = &w.e.host[1];
	assert_int_equal(w.e.msgs_done, 1);
	assert_int_equal(b->ctr[LSW_HC_rx_trimmed_packets], 80);
	assert_int_equal(b->ctr[LSW_HC_resp_nak_sent], 0);
	assert_int_equal(b->ctr[LSW_HC_out_of_sequence], 0);
	assert_int_equal(a->ctr[LSW_HC_req_selective_retransmits], 80);
	assert_int_equal(a->ctr[LSW_HC_local_ack_timeout_err], 0);
	w_free(&w);
}

/* The same loss dropped: go-back-N resends PSN 40 and everything sent after it. */
static void
drop_goes_back(void **state)
{
	struct wire w;
	struct cut c = {.psn = {40}, .n = 1, .drop = {true}};

	(void)state;
	run(&w, AWARE, ONE_WRITE(102400), &c);
	struct lsw_host *a = &w.e.host[0], *b = &w.e.host[1];
	assert_int_equal(b->ctr[LSW_HC_resp_nak_sent], 1);
	assert_int_equal(a->ctr[LSW_HC_packet_seq_err], 1);
	assert_int_equal(a->ctr[LSW_HC_req_selective_retransmits], 0);
	assert_true(a->ctr[LSW_HC_req_retransmitted_packets] > 1);
	assert_int_equal(w.e.msgs_done, 1);
	w_free(&w);
}

/* A message's last packet: dropped, only the timeout finds it (67 ms); trimmed, its NACK
 * comes within a round trip and the message completes in well under a millisecond. */
static void
tail_loss(void **state)
{
	struct wire w;
	(void)state;
	for (int trim = 0; trim < 2; trim++) {
		struct cut c = {.psn = {9}, .n = 1, .drop = {!trim}, .size = 128, .dscp = 47};
		run(&w, AWARE, ONE_WRITE(10240), &c);
		struct lsw_host *a = &w.e.host[0], *b = &w.e.host[1];
		assert_int_equal(w.e.msgs_done, 1);
		assert_int_equal(w.e.n_fct, 1);
		if (trim) {
			assert_true(w.e.fct[0].fct_ns < 1 * MS);
			assert_int_equal(a->ctr[LSW_HC_local_ack_timeout_err], 0);
			/* DSCP 47 is the last hop's: its own UET code and counters. */
			assert_int_equal(b->ctr[LSW_HC_rx_trimmed_last_hop_packets], 1);
			assert_int_equal(b->ctr[LSW_HC_resp_nack_trimmed_last_hop_sent], 1);
			assert_int_equal(a->ctr[LSW_HC_req_nack_trimmed_last_hop], 1);
		} else {
			assert_true(w.e.fct[0].fct_ns > 60 * MS);
			assert_int_equal(a->ctr[LSW_HC_local_ack_timeout_err], 1);
		}
		w_free(&w);
	}
}

/* A stock receiver: the trim fails its ICRC and is dropped (counted); the next packet is
 * out of sequence and go-back-N repairs the loss. */
static void
stock_receiver(void **state)
{
	struct wire w;
	struct cut c = {.psn = {40}, .n = 1, .size = 128, .dscp = 46};

	(void)state;
	run(&w, STOCK, ONE_WRITE(102400), &c);
	struct lsw_host *a = &w.e.host[0], *b = &w.e.host[1];
	assert_int_equal(b->ctr[LSW_HC_rx_icrc_errors], 1);
	assert_int_equal(b->ctr[LSW_HC_rx_trimmed_packets], 0);
	assert_int_equal(b->ctr[LSW_HC_resp_nak_sent], 1);
	assert_int_equal(a->ctr[LSW_HC_packet_seq_err], 1);
	assert_int_equal(w.e.msgs_done, 1);
	w_free(&w);
}

/* A trim DSCP on a packet that was not cut (not longer than the switch's size): its ICRC
 * verifies, it is taken as it is. */
static void
whole_remarked(void **state)
{
	struct wire w;
	struct cut c = {.psn = {3}, .n = 1, .size = 4096, .dscp = 46};

	(void)state;
	run(&w, AWARE, ONE_WRITE(10240), &c);
	struct lsw_host *a = &w.e.host[0], *b = &w.e.host[1];
	assert_int_equal(b->ctr[LSW_HC_rx_trim_dscp_whole], 1);
	assert_int_equal(b->ctr[LSW_HC_rx_trimmed_packets], 0);
	assert_int_equal(a->ctr[LSW_HC_req_retransmitted_packets], 0);
	assert_int_equal(w.e.qp[0].st.rx_packets, 10);
	w_free(&w);
}

/* Trims and a real loss together, over four messages: PSNs 5, 6, 30 and 31 trimmed to the
 * smallest size, PSN 20 dropped. The drop is repaired by go-back-N, the trims before it by
 * resends of their own; every message completes, in order, without a timeout. */
static void
trims_and_loss(void **state)
{
	struct wire w;
	struct cut c = {.psn = {5, 6, 20, 30, 31}, .n = 5, .drop = {false, false, true},
			.size = 64, .dscp = 46};

	(void)state;
	run(&w, AWARE, "[{\"type\": \"flow\", \"src\": \"a\", \"dst\": \"b\", \"size\": 10240,"
	    " \"count\": 4}]", &c);
	struct lsw_host *a = &w.e.host[0], *b = &w.e.host[1];
	struct lsw_qp *qp = &w.e.qp[0];
	assert_int_equal(w.e.msgs_done, 4);
	assert_int_equal(qp->epsn, 40);
	assert_int_equal(qp->msn, 4);
	assert_true(b->ctr[LSW_HC_rx_trimmed_packets] >= 4);
	assert_int_equal(a->ctr[LSW_HC_packet_seq_err], 1);
	assert_true(a->ctr[LSW_HC_req_selective_retransmits] >= 2);
	assert_int_equal(a->ctr[LSW_HC_local_ack_timeout_err], 0);
	w_free(&w);
}

static void
refusals(void **state)
{
	static const char *const cases[][3] = {
		{", \"trim\": {\"aware\": true}", "$.hosts.a.trim", "trimmed_dscp"},
		{", \"trim\": {\"trimmable_dscp\": 10, \"trimmed_dscp\": [46, 10]}",
		 "$.hosts.a.trim.trimmable_dscp", "cannot also mark trims"},
		{", \"trim\": {\"trimmed_dscp\": [46, 64]}", "$.hosts.a.trim.trimmed_dscp[1]",
		 "out of range"},
		{", \"trim\": {\"trimmable_dscp\": \"x\"}", "$.hosts.a.trim.trimmable_dscp", ""},
		{", \"trim\": {\"nack\": 1}", "$.hosts.a.trim.nack", "unknown"},
		{", \"trim\": {\"rtx_dscp\": 46, \"trimmed_dscp\": [46]}",
		 "$.hosts.a.trim.rtx_dscp", "cannot also mark trims"},
	};
	char cfg[2048], path[256], msg[256];

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		two_hosts(cfg, sizeof(cfg), cases[i][0], ONE_WRITE(1024));
		assert_true(w_config_errors(cfg, NULL, path, sizeof(path), msg, sizeof(msg)) > 0);
		if (strcmp(path, cases[i][1]) != 0 || strstr(msg, cases[i][2]) == NULL)
			fail_msg("%s: got %s: %s", cases[i][0], path, msg);
	}
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(selective_repeat),
		cmocka_unit_test(rtx_dscp),
		cmocka_unit_test(reordered),
		cmocka_unit_test(drop_goes_back),
		cmocka_unit_test(tail_loss),
		cmocka_unit_test(stock_receiver),
		cmocka_unit_test(whole_remarked),
		cmocka_unit_test(trims_and_loss),
		cmocka_unit_test(refusals),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
