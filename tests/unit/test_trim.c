/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Packet trimming (dataplane/TRIMMING.md) through lsw_process_burst, as sonic-mgmt's packet
 * trimming test plan has its cases: a trim to 256 bytes; a 5000-byte packet to the
 * configured size; DSCP 48; asymmetric DSCP 10 towards hosts and 20 towards the fabric; a
 * 100-byte packet re-marked, not cut; the exemption (DISABLE_TRIM); a blocked trim queue
 * giving DROPPED_TRIM_PACKETS; drop and trim toggled ten times under traffic with every
 * mbuf back. Also IPv6, the dynamic queue, what is never trimmed (CNPs), trims never
 * CE-marked, the trim queue's scheduling (strict, and DWRR shares on a fake clock), the
 * counters' invariant TRIM = TX_TRIM + DROPPED_TRIM in every view, and refusals by path.
 */
#include <string.h>
#include <rte_ip.h>
#include "harness.h"

static uint8_t buf[10000];

/* Ethernet4 and Ethernet8 refuse everything on queue 3 (no reserve, no shared buffer) and
 * trim it; 10.5.0.0/16 goes out of Ethernet8 (MTU 9100). DSCP 3 is TC 3, queue 3. */
#define TRIM_PATCH \
	"\"BUFFER_PROFILE\": {\"q_trim\": {\"pool\": \"egress_lossy_pool\", \"size\": \"0\"," \
	"   \"dynamic_th\": \"-8\", \"packet_discard_action\": \"trim\"}}," \
	" \"BUFFER_QUEUE\": {\"Ethernet4,Ethernet8|3\": {\"profile\": \"q_trim\"}}," \
	" \"STATIC_ROUTE\": {\"10.5.0.0/16\": {\"nexthop\": \"10.0.1.3\"}}"

/* T_CONFIG with the RFC 7386 merge patch {@patch} (its members, without braces). */
static struct t_switch *
new_switch(const char *patch)
{
	char text[4096];
	json_t *base = json_loads(T_CONFIG, 0, NULL), *p, *m;

	snprintf(text, sizeof(text), "{%s}", patch);
	p = json_loads(text, 0, NULL);
	assert_non_null(base);
	if (p == NULL)
		fail_msg("bad patch: %s", text);
	m = lsw_config_merge(base, p);
	char *s = json_dumps(m, 0);
	struct t_switch *t = t_switch_new(s);
	free(s);
	json_decref(base);
	json_decref(p);
	json_decref(m);
	return t;
}

static struct rte_ipv4_hdr *
ip_of(struct rte_mbuf *m)
{
	return rte_pktmbuf_mtod_offset(m, struct rte_ipv4_hdr *, RTE_ETHER_HDR_LEN);
}

/* A RoCEv2 WRITE of @payload bytes of UDP payload (BTH included) from @src, DSCP @dscp and
 * ECT(0), to @dst. */
static uint16_t
roce(const char *src, const char *dst, uint8_t dscp, uint16_t payload)
{
	struct t_flow f = {.src = src, .dst = dst, .sport = 49152, .dport = 4791,
			   .payload = payload, .vlan = -1, .tos = (uint8_t)(dscp << 2 | 2)};
	uint16_t len = t_build_ipv4(buf, &f);

	buf[RTE_ETHER_HDR_LEN + 20 + 8] = 0x0a; /* BTH opcode: RDMA WRITE ONLY */
	return len;
}

static uint64_t
qctr_trim(struct t_switch *t, uint16_t port, uint8_t q, int which)
{
	const struct lsw_buffer_ctr *c = &t->w.buffer->ctr;

	return which == 0 ? c->q_trim_pkts[port][q] : which == 1 ? c->q_tx_trim_pkts[port][q] :
	       c->q_dropped_trim_pkts[port][q];
}

static uint64_t
pctr(struct t_switch *t, uint16_t port, enum lsw_port_ctr c)
{
	return t->sw.dp.ctr[0].port[port].ctr[c];
}

/* The one frame a port holds, from queue @q (asserted). */
static struct rte_mbuf *
take_from(struct t_switch *t, uint16_t port, uint8_t q)
{
	assert_int_equal(lsw_fifo_count(&t->sw.dp.sched[port]->q[q]), 1);
	assert_int_equal(t_tx_count(t, port), 1);
	struct rte_mbuf *m = t_tx_take(t, port);
	assert_non_null(m);
	return m;
}

/* What every trim of an original @orig_len bytes long (its copy in @orig) must be: @len
 * bytes, DSCP @dscp with the original's ECN bits, the IPv4 length and checksum right, the
 * UDP length the original's, the rest of the headers as routed. */
static void
check_trim(struct rte_mbuf *m, const uint8_t *orig, uint16_t orig_len, uint16_t len,
	   uint8_t dscp)
{
	const struct rte_ipv4_hdr *ip = ip_of(m), *oip = (const void *)(orig + 14);

	assert_int_equal(m->pkt_len, len);
	assert_int_equal(ip->type_of_service >> 2, dscp);
	assert_int_equal(ip->type_of_service & 3, oip->type_of_service & 3);
	assert_int_equal(rte_be_to_cpu_16(ip->total_length), len - 14);
	assert_true(t_ipv4_csum_ok(ip));
	assert_int_equal(ip->time_to_live, oip->time_to_live - 1);
	assert_int_equal(ip->src_addr, oip->src_addr);
	assert_int_equal(ip->dst_addr, oip->dst_addr);
	assert_true(lsw_meta(m)->flags & LSW_META_TRIMMED);
	/* From the UDP header on, what is left is the original's: its length field too. */
	assert_memory_equal(rte_pktmbuf_mtod_offset(m, uint8_t *, 34), orig + 34, len - 34);
	assert_int_equal(orig[38] << 8 | orig[39], orig_len - 34);
}

/* sonic-mgmt: trim to 256 bytes, DSCP 48, queue 6; the original's drop counted by reason. */
static void
test_trim_256(void **state)
{
	struct t_switch *t = new_switch(TRIM_PATCH ", \"SWITCH_TRIMMING\": {\"GLOBAL\": "
					"{\"size\": \"256\", \"dscp_value\": \"48\", "
					"\"queue_index\": \"6\"}}");
	uint16_t len = roce("10.0.0.1", "10.2.3.4", 3, 1000);
	uint8_t orig[2048];

	(void)state;
	memcpy(orig, buf, len);
	t_rx(t, T_PORT0, buf, len, 0);
	struct rte_mbuf *m = take_from(t, T_PORT4, 6);
	check_trim(m, orig, len, 256, 48);
	rte_pktmbuf_free(m);
	assert_int_equal(t_drops(t, T_PORT4, LSW_DROP_EGRESS_QUEUE_THRESHOLD), 1);
	assert_int_equal(t->w.buffer->ctr.q_drop_reason[T_PORT4][3]
			 [LSW_QDROP_EGRESS_QUEUE_THRESHOLD], 1);
	assert_int_equal(qctr_trim(t, T_PORT4, 3, 0), 1);
	assert_int_equal(qctr_trim(t, T_PORT4, 6, 1), 1);
	assert_int_equal(pctr(t, T_PORT4, LSW_PC_TRIM_PACKETS), 1);
	assert_int_equal(pctr(t, T_PORT4, LSW_PC_TX_TRIM_PACKETS), 1);
	assert_int_equal(pctr(t, T_PORT4, LSW_PC_DROPPED_TRIM_PACKETS), 0);
	t_switch_free(t);
}

/* sonic-mgmt: a 5000-byte packet to the configured size (4084 there), through Ethernet8. */
static void
test_trim_5000(void **state)
{
	struct t_switch *t = new_switch(TRIM_PATCH ", \"SWITCH_TRIMMING\": {\"GLOBAL\": "
					"{\"size\": \"4084\", \"dscp_value\": \"48\", "
					"\"queue_index\": \"6\"}}");
	uint16_t len = roce("10.0.0.1", "10.5.0.9", 3, 5000 - 42);
	static uint8_t orig[6000];

	(void)state;
	assert_int_equal(len, 5000);
	memcpy(orig, buf, len);
	t_rx(t, T_PORT0, buf, len, 0);
	struct rte_mbuf *m = take_from(t, T_PORT8, 6);
	check_trim(m, orig, len, 4084, 48);
	rte_pktmbuf_free(m);
	t_switch_free(t);
}

/* sonic-mgmt: a packet already no longer than the size is re-marked and sent whole; the
 * dynamic queue is the trim DSCP's (48: TC 6, queue 6, SONiC's AZURE maps). */
static void
test_short_remarked(void **state)
{
	struct t_switch *t = new_switch(TRIM_PATCH ", \"SWITCH_TRIMMING\": {\"GLOBAL\": "
					"{\"dscp_value\": \"48\", \"queue_index\": \"dynamic\"}}");
	uint16_t len = roce("10.0.0.1", "10.2.3.4", 3, 100 - 42);
	uint8_t orig[256];

	(void)state;
	assert_int_equal(len, 100);
	memcpy(orig, buf, len);
	t_rx(t, T_PORT0, buf, len, 0);
	struct rte_mbuf *m = take_from(t, T_PORT4, 6);
	check_trim(m, orig, len, 100, 48);
	rte_pktmbuf_free(m);
	/* 128 bytes by default (SAI's): a longer one is cut to that. */
	len = roce("10.0.0.1", "10.2.3.4", 3, 1000);
	memcpy(orig, buf, 256);
	t_rx(t, T_PORT0, buf, len, 0);
	m = take_from(t, T_PORT4, 6);
	check_trim(m, orig, len, 128, 48);
	rte_pktmbuf_free(m);
	t_switch_free(t);
}

/* sonic-mgmt: asymmetric DSCP. dscp_value from-tc with TC 5: each egress port's
 * TC_TO_DSCP_MAP gives 10 towards a host (Ethernet4) and 20 towards the fabric
 * (Ethernet8). The trims' queue is TC 5's (dynamic). */
static void
test_asymmetric_dscp(void **state)
{
	struct t_switch *t = new_switch(TRIM_PATCH ", \"SWITCH_TRIMMING\": {\"GLOBAL\": "
		"{\"dscp_value\": \"from-tc\", \"tc_value\": \"5\", \"queue_index\": \"dynamic\","
		" \"size\": \"256\"}}, \"TC_TO_DSCP_MAP\": {\"HOST\": {\"5\": \"10\"},"
		" \"FABRIC\": {\"5\": \"20\"}}, \"PORT_QOS_MAP\": {\"Ethernet4\": "
		"{\"tc_to_dscp_map\": \"HOST\"}, \"Ethernet8\": {\"tc_to_dscp_map\": \"FABRIC\"}}");
	uint8_t orig[2048];

	(void)state;
	static const struct {
		const char *dst;
		uint16_t port;
		uint8_t dscp;
	} cases[] = {{"10.2.3.4", T_PORT4, 10}, {"10.5.0.9", T_PORT8, 20}};
	for (size_t i = 0; i < RTE_DIM(cases); i++) {
		uint16_t len = roce("10.0.0.1", cases[i].dst, 3, 1000);
		memcpy(orig, buf, len);
		t_rx(t, T_PORT0, buf, len, 0);
		struct rte_mbuf *m = take_from(t, cases[i].port, 5);
		check_trim(m, orig, len, 256, cases[i].dscp);
		assert_int_equal(lsw_meta(m)->tc, 5);
		rte_pktmbuf_free(m);
	}
	t_switch_free(t);
}

/* sonic-mgmt: the ACL action DISABLE_TRIM. A rule of a TRIMMING_L3 table bound to Ethernet0
 * exempts 10.0.0.1; another exempts DSCP 4 from any source; the rest is trimmed. */
static void
test_exemption(void **state)
{
	struct t_switch *t = new_switch(TRIM_PATCH ", \"SWITCH_TRIMMING\": {\"GLOBAL\": "
		"{\"dscp_value\": \"48\", \"queue_index\": \"6\"}},"
		" \"ACL_TABLE\": {\"TRIM_TABLE\": {\"type\": \"TRIMMING_L3\","
		"  \"stage\": \"INGRESS\", \"ports\": [\"Ethernet0\"], \"policy_desc\": \"x\"}},"
		" \"ACL_RULE\": {\"TRIM_TABLE|HOST\": {\"PRIORITY\": \"999\","
		"  \"SRC_IP\": \"10.0.0.1/32\", \"PACKET_ACTION\": \"DISABLE_TRIM\"},"
		"  \"TRIM_TABLE|DSCP4\": {\"DSCP\": \"4\", \"PACKET_ACTION\": \"DISABLE_TRIM\"},"
		"  \"TRIM_TABLE|V6\": {\"SRC_IPV6\": \"2001:db8::/32\","
		"   \"PACKET_ACTION\": \"DISABLE_TRIM\"}}");

	(void)state;
	static const struct {
		const char *src;
		uint8_t dscp;
		uint16_t in;
		bool trimmed;
	} cases[] = {
		{"10.0.0.1", 3, T_PORT0, false}, /* the rule's source */
		{"10.0.0.3", 3, T_PORT0, true},  /* another source */
		{"10.0.0.3", 4, T_PORT0, false}, /* DSCP 4 (TC 4, queue 4: made a trim queue) */
		{"10.0.0.1", 3, T_PORT12, true}, /* not a port of the table */
	};
	/* Queue 4 trims too, for the DSCP rule. */
	t->conf->trim.q_trim[T_PORT4] |= 1u << 4;
	t->conf->buffer.q[T_PORT4][4] = t->conf->buffer.q[T_PORT4][3];
	for (size_t i = 0; i < RTE_DIM(cases); i++) {
		uint64_t trims = pctr(t, T_PORT4, LSW_PC_TRIM_PACKETS);
		uint64_t drops = t_drops(t, T_PORT4, LSW_DROP_EGRESS_QUEUE_THRESHOLD);
		uint16_t len = roce(cases[i].src, "10.2.3.4", cases[i].dscp, 1000);
		t_rx(t, cases[i].in, buf, len, 0); /* every port has the switch's MAC */
		assert_int_equal(t_drops(t, T_PORT4, LSW_DROP_EGRESS_QUEUE_THRESHOLD), drops + 1);
		assert_int_equal(pctr(t, T_PORT4, LSW_PC_TRIM_PACKETS), trims + cases[i].trimmed);
		assert_int_equal(t_tx_count(t, T_PORT4), cases[i].trimmed);
		struct rte_mbuf *m = t_tx_take(t, T_PORT4);
		if (m != NULL)
			rte_pktmbuf_free(m);
	}
	json_t *resp, *r = t_rpc_ok(t, "trim.stats", NULL, &resp);
	json_t *ex = json_object_get(r, "exemptions");
	assert_int_equal(json_array_size(ex), 3);
	assert_string_equal(json_string_value(json_object_get(json_array_get(ex, 0), "SRC_IP")),
			    "10.0.0.1/32");
	json_decref(resp);
	t_switch_free(t);
}

/* sonic-mgmt: a blocked trim queue. Its profile has no shared buffer: 100 more trims, none
 * sent, DROPPED_TRIM_PACKETS +100. With a reserve of 2 KB it takes 8 trims of 256 bytes and
 * refuses the rest; TRIM = TX_TRIM + DROPPED_TRIM on the port, the queues and the switch. */
static void
test_blocked_trim_queue(void **state)
{
	static const struct {
		const char *reserve;
		uint64_t taken;
	} cases[] = {{"0", 0}, {"2KB", 8}};

	(void)state;
	for (size_t i = 0; i < RTE_DIM(cases); i++) {
		char patch[1024];
		snprintf(patch, sizeof(patch), "\"BUFFER_PROFILE\": {\"q_trim\": {\"pool\": "
			 "\"egress_lossy_pool\", \"size\": \"0\", \"dynamic_th\": \"-8\", "
			 "\"packet_discard_action\": \"trim\"}, \"q_block\": {\"pool\": "
			 "\"egress_lossy_pool\", \"size\": \"%s\", \"dynamic_th\": \"-8\"}},"
			 " \"BUFFER_QUEUE\": {\"Ethernet4|3\": {\"profile\": \"q_trim\"},"
			 "  \"Ethernet4|6\": {\"profile\": \"q_block\"}},"
			 " \"SWITCH_TRIMMING\": {\"GLOBAL\": {\"size\": \"256\", "
			 "\"dscp_value\": \"48\", \"queue_index\": \"6\"}}", cases[i].reserve);
		struct t_switch *t = new_switch(patch);
		for (int k = 0; k < 100; k++)
			t_rx(t, T_PORT0, buf, roce("10.0.0.1", "10.2.3.4", 3, 1000), 0);
		assert_int_equal(t_tx_count(t, T_PORT4), cases[i].taken);
		assert_int_equal(pctr(t, T_PORT4, LSW_PC_TRIM_PACKETS), 100);
		assert_int_equal(pctr(t, T_PORT4, LSW_PC_TX_TRIM_PACKETS), cases[i].taken);
		assert_int_equal(pctr(t, T_PORT4, LSW_PC_DROPPED_TRIM_PACKETS),
				 100 - cases[i].taken);
		assert_int_equal(qctr_trim(t, T_PORT4, 3, 0), 100);
		assert_int_equal(qctr_trim(t, T_PORT4, 6, 1), cases[i].taken);
		assert_int_equal(qctr_trim(t, T_PORT4, 6, 2), 100 - cases[i].taken);
		/* Every original is one drop, counted once by its reason. */
		assert_int_equal(t_drops(t, T_PORT4, LSW_DROP_EGRESS_QUEUE_THRESHOLD), 100);
		/* The views: port.stats, queue.stats and trim.stats say the same. */
		json_t *resp, *r = t_rpc_ok(t, "port.stats", "{\"port\": \"Ethernet4\"}", &resp);
		json_t *p = json_object_get(json_object_get(r, "ports"), "Ethernet4");
		assert_int_equal(json_integer_value(json_object_get(p, "TRIM_PACKETS")), 100);
		json_int_t sent = json_integer_value(json_object_get(p, "TX_TRIM_PACKETS"));
		assert_int_equal(sent + json_integer_value(json_object_get(p,
							   "DROPPED_TRIM_PACKETS")), 100);
		json_decref(resp);
		r = t_rpc_ok(t, "queue.stats", "{\"port\": \"Ethernet4\"}", &resp);
		p = json_object_get(json_object_get(r, "ports"), "Ethernet4");
		uint64_t trim = 0, tx = 0, dr = 0;
		for (int q = 0; q < LSW_NUM_QUEUES; q++) {
			char k[4];
			snprintf(k, sizeof(k), "%d", q);
			json_t *qs = json_object_get(p, k);
			trim += (uint64_t)json_integer_value(json_object_get(qs, "TRIM_PACKETS"));
			tx += (uint64_t)json_integer_value(json_object_get(qs, "TX_TRIM_PACKETS"));
			dr += (uint64_t)json_integer_value(json_object_get(qs,
									   "DROPPED_TRIM_PACKETS"));
		}
		assert_int_equal(trim, 100);
		assert_int_equal(tx + dr, trim);
		assert_int_equal(tx, cases[i].taken);
		json_decref(resp);
		r = t_rpc_ok(t, "trim.stats", NULL, &resp);
		json_t *sw = json_object_get(r, "switch");
		assert_int_equal(json_integer_value(json_object_get(sw, "TX_TRIM_PACKETS")),
				 cases[i].taken);
		assert_int_equal(json_integer_value(json_object_get(sw, "DROPPED_TRIM_PACKETS")),
				 100 - cases[i].taken);
		json_decref(resp);
		t_switch_free(t);
	}
}

/* sonic-mgmt: drop and trim toggled ten times (config.set) while frames arrive: in each trim
 * phase every refused frame is trimmed, in each drop phase none is, the originals are all
 * counted dropped, no pool holds a byte once the port has sent all, and every mbuf comes
 * back (t_switch_free checks). */
static void
test_toggle(void **state)
{
	struct t_switch *t = new_switch(TRIM_PATCH ", \"SWITCH_TRIMMING\": {\"GLOBAL\": "
					"{\"dscp_value\": \"48\", \"queue_index\": \"6\"}}");
	uint64_t sent = 0;

	(void)state;
	for (int round = 0; round < 20; round++) {
		bool trim = round % 2 == 0;
		char params[256];
		snprintf(params, sizeof(params), "{\"config\": {\"BUFFER_PROFILE\": {\"q_trim\": "
			 "{\"packet_discard_action\": \"%s\"}}}}", trim ? "trim" : "drop");
		json_t *resp;
		t_rpc_ok(t, "config.set", params, &resp);
		json_decref(resp);
		uint64_t trims = pctr(t, T_PORT4, LSW_PC_TRIM_PACKETS);
		for (int k = 0; k < 50; k++) {
			t_rx(t, T_PORT0, buf, roce("10.0.0.1", "10.2.3.4", 3, 1000), 0);
			sent++;
			/* The port drains now and then, as its egress would. */
			if (k % 7 == 0) {
				struct rte_mbuf *m;
				while ((m = t_tx_take(t, T_PORT4)) != NULL)
					rte_pktmbuf_free(m);
			}
		}
		assert_int_equal(pctr(t, T_PORT4, LSW_PC_TRIM_PACKETS), trims + (trim ? 50 : 0));
		assert_int_equal(t_drops(t, T_PORT4, LSW_DROP_EGRESS_QUEUE_THRESHOLD), sent);
	}
	assert_int_equal(pctr(t, T_PORT4, LSW_PC_TRIM_PACKETS), 500);
	assert_int_equal(pctr(t, T_PORT4, LSW_PC_TX_TRIM_PACKETS), 500);
	/* Nothing leaked: once the port has sent what it holds, no pool holds a byte (a trim
	 * charged and never released, or released twice, would show here). */
	struct rte_mbuf *m;
	while ((m = t_tx_take(t, T_PORT4)) != NULL)
		rte_pktmbuf_free(m);
	json_t *resp, *pools = json_object_get(t_rpc_ok(t, "buffer.stats", NULL, &resp),
					      "pools"), *pool;
	size_t i;
	assert_true(json_array_size(pools) > 0);
	json_array_foreach(pools, i, pool)
		assert_int_equal(json_integer_value(json_object_get(pool,
					"CURR_OCCUPANCY_BYTES")), 0);
	json_decref(resp);
	t_switch_free(t); /* fails the test unless every mbuf is back */
}

/* IPv6: the traffic class's DSCP rewritten with its ECN bits, the payload length cut. */
static void
test_ipv6(void **state)
{
	struct t_switch *t = new_switch(TRIM_PATCH ", \"SWITCH_TRIMMING\": {\"GLOBAL\": "
		"{\"size\": \"200\", \"dscp_value\": \"46\", \"queue_index\": \"6\"}},"
		" \"INTERFACE\": {\"Ethernet0|2001:db8::1/64\": {},"
		"  \"Ethernet4|2001:db8:4::/127\": {}},"
		" \"STATIC_ROUTE\": {\"2001:db8:200::/48\": {\"nexthop\": \"2001:db8:4::1\","
		"  \"ifname\": \"Ethernet4\"}},"
		" \"NEIGH\": {\"Ethernet4|2001:db8:4::1\": {\"neigh\": \"02:00:00:00:04:01\"}}");
	struct t_flow f = {.src = "2001:db8::2", .dst = "2001:db8:200::9", .sport = 5,
			   .dport = 4791, .payload = 1000, .vlan = -1, .tos = 3 << 2 | 1,
			   .flow_label = 0xabcde};
	uint16_t len = t_build_ipv6(buf, &f);
	uint8_t orig[2048];

	(void)state;
	memcpy(orig, buf, len);
	t_rx(t, T_PORT0, buf, len, 0);
	struct rte_mbuf *m = take_from(t, T_PORT4, 6);
	const struct rte_ipv6_hdr *ip = rte_pktmbuf_mtod_offset(m, struct rte_ipv6_hdr *, 14);
	uint32_t vtc = rte_be_to_cpu_32(ip->vtc_flow);
	assert_int_equal(m->pkt_len, 200);
	assert_int_equal(vtc >> 28, 6);
	assert_int_equal(vtc >> 20 & 0xff, 46 << 2 | 1);
	assert_int_equal(vtc & 0xfffff, 0xabcde);
	assert_int_equal(rte_be_to_cpu_16(ip->payload_len), 200 - 54);
	assert_int_equal(ip->hop_limits, 63);
	/* The UDP header, length included, as it came. */
	assert_memory_equal((const uint8_t *)(ip + 1), orig + 54, 200 - 54);
	rte_pktmbuf_free(m);
	t_switch_free(t);
}

/* Never trimmed: a CNP (classified by its DSCP here, so that it meets the trimming queue),
 * which is dropped whole. */
static void
test_cnp_not_trimmed(void **state)
{
	struct t_switch *t = new_switch(TRIM_PATCH ", \"SWITCH_TRIMMING\": {\"GLOBAL\": "
		"{\"dscp_value\": \"48\", \"queue_index\": \"6\"}}, \"LSW\": {\"global\": "
		"{\"cnp_tc\": \"dscp\"}}");
	uint16_t len = roce("10.0.0.1", "10.2.3.4", 3, 100);

	(void)state;
	buf[RTE_ETHER_HDR_LEN + 20 + 8] = 0x81; /* a CNP */
	t_rx(t, T_PORT0, buf, len, 0);
	assert_int_equal(t_drops(t, T_PORT4, LSW_DROP_EGRESS_QUEUE_THRESHOLD), 1);
	assert_int_equal(pctr(t, T_PORT4, LSW_PC_TRIM_PACKETS), 0);
	assert_int_equal(t_tx_count(t, T_PORT4), 0);
	t_switch_free(t);
}

/* A trim is never CE-marked nor WRED-dropped at dequeue, however deep its queue: the
 * same profile marks an ordinary packet. */
static void
test_never_marked(void **state)
{
	struct t_switch *t = new_switch(TRIM_PATCH ", \"SWITCH_TRIMMING\": {\"GLOBAL\": "
					"{\"dscp_value\": \"48\", \"queue_index\": \"6\"}}");
	struct lsw_ecn_dp a = {.marks = true, .drops = true};

	(void)state;
	lsw_ecn_curve_set(&a.mark, 0, 1, 100);
	lsw_ecn_curve_set(&a.drop, 0, 1, 100);
	t_rx(t, T_PORT0, buf, roce("10.0.0.1", "10.2.3.4", 3, 1000), 0);
	struct rte_mbuf *m = take_from(t, T_PORT4, 6);
	assert_false(lsw_ecn_dequeue(&t->w, &a, T_PORT4, 6, m, 1 << 20));
	assert_int_equal(ip_of(m)->type_of_service & 3, 2); /* still ECT(0) */
	lsw_meta(m)->flags &= (uint8_t)~LSW_META_TRIMMED;   /* the same, not a trim */
	assert_false(lsw_ecn_dequeue(&t->w, &a, T_PORT4, 6, m, 1 << 20));
	assert_int_equal(ip_of(m)->type_of_service & 3, 3); /* CE */
	rte_pktmbuf_free(m);
	t_switch_free(t);
}

/* The trim queue's scheduling on a fake clock, Ethernet8 at 1 Gb/s: data (queue 3, of a
 * profile that holds 100 frames of 4142 bytes and trims the rest) and 1000 trims of 128
 * bytes (queue 6) both backlogged. Strict priority for the trims sends no data while a
 * trim waits. DWRR weights 1 (trims) to 3 (data) give the trims a quarter of the bytes
 * while both have packets, UEC's 25%; with these sizes that is also NDP's 10 headers per
 * data packet (72 trims to 6.7 frames a round). */
static void
test_trim_queue_scheduling(void **state)
{
	static const char *const scheds[] = {"STRICT", "DWRR"};

	(void)state;
	for (size_t i = 0; i < RTE_DIM(scheds); i++) {
		char patch[2048];
		const bool strict = i == 0;
		snprintf(patch, sizeof(patch),
			 "\"PORT\": {\"Ethernet8\": {\"speed\": \"1000\"}},"
			 " \"STATIC_ROUTE\": {\"10.5.0.0/16\": {\"nexthop\": \"10.0.1.3\"}},"
			 " \"BUFFER_PROFILE\": {\"q_trim\": {\"pool\": \"egress_lossy_pool\","
			 "  \"size\": \"%u\", \"dynamic_th\": \"-8\","
			 "  \"packet_discard_action\": \"trim\"}},"
			 " \"BUFFER_QUEUE\": {\"Ethernet8|3\": {\"profile\": \"q_trim\"}},"
			 " \"SWITCH_TRIMMING\": {\"GLOBAL\": {\"dscp_value\": \"48\","
			 "  \"queue_index\": \"6\"}},"
			 " \"SCHEDULER\": {\"trims\": {\"type\": \"%s\"%s},"
			 "  \"data\": {\"type\": \"DWRR\", \"weight\": \"3\"}},"
			 " \"QUEUE\": {\"Ethernet8|6\": {\"scheduler\": \"trims\"},"
			 "  \"Ethernet8|3\": {\"scheduler\": \"data\"}}", 100 * 4160, scheds[i],
			 strict ? "" : ", \"weight\": \"1\"");
		struct t_switch *t = new_switch(patch);
		const uint64_t *txb = t->w.buffer->ctr.q_tx_bytes[T_PORT8];
		const uint64_t *txp = t->w.buffer->ctr.q_tx_pkts[T_PORT8];
		struct lsw_sched *s = t->sw.dp.sched[T_PORT8];
		uint64_t now = 1;

		assert_int_equal(t_start_ports(t), 0);
		for (int k = 0; k < 1100; k++)
			t_rx(t, T_PORT0, buf, roce("10.0.0.1", "10.5.3.4", 3, 4100), now);
		assert_int_equal(lsw_fifo_count(&s->q[3]), 100);
		assert_int_equal(lsw_fifo_count(&s->q[6]), 1000);
		/* Egress every 10 us while both queues hold packets. */
		uint64_t b3 = 0, b6 = 0, p3 = 0, p6 = 0;
		while (lsw_fifo_count(&s->q[3]) != 0 && lsw_fifo_count(&s->q[6]) != 0) {
			now += 10000;
			lsw_egress_run(&t->w, t->conf, T_PORT8, now);
			if (strict && lsw_fifo_count(&s->q[6]) != 0)
				assert_int_equal(txp[3], 0);
			b3 = txb[3], b6 = txb[6], p3 = txp[3], p6 = txp[6];
		}
		if (strict) {
			assert_int_equal(p6, 1000);
		} else {
			double share = (double)b6 / (double)(b3 + b6), per = (double)p6 / p3;
			print_message("DWRR 1:3: trims %.3f of the bytes, %.2f per data frame\n",
				      share, per);
			if (share < 0.23 || share > 0.27 || per < 9.5 || per > 12)
				fail_msg("trims had %.3f of the bytes, %.2f per data frame", share,
					 per);
		}
		t_switch_free(t);
	}
}

/* Refused configurations, each by the path of its offending value. */
static void
test_refusals(void **state)
{
	static const char *const cases[][3] = {
		{"{\"SWITCH_TRIMMING\": {\"GLOBAL\": {\"size\": \"10\"}}}",
		 "$.SWITCH_TRIMMING.GLOBAL.size", "out of range"},
		{"{\"SWITCH_TRIMMING\": {\"GLOBAL\": {\"dscp_value\": \"64\"}}}",
		 "$.SWITCH_TRIMMING.GLOBAL.dscp_value", "0-63"},
		{"{\"SWITCH_TRIMMING\": {\"GLOBAL\": {\"dscp_value\": \"from-dscp\"}}}",
		 "$.SWITCH_TRIMMING.GLOBAL.dscp_value", "from-tc"},
		{"{\"SWITCH_TRIMMING\": {\"GLOBAL\": {\"queue_index\": 8}}}",
		 "$.SWITCH_TRIMMING.GLOBAL.queue_index", "dynamic"},
		{"{\"SWITCH_TRIMMING\": {\"GLOBAL\": {\"tc_value\": \"8\"}}}",
		 "$.SWITCH_TRIMMING.GLOBAL.tc_value", "out of range"},
		{"{\"SWITCH_TRIMMING\": {\"GLOBAL\": {\"trim\": \"on\"}}}",
		 "$.SWITCH_TRIMMING.GLOBAL.trim", "unknown"},
		{"{\"SWITCH_TRIMMING\": {\"OTHER\": {}}}", "$.SWITCH_TRIMMING.OTHER", "GLOBAL"},
		{"{\"BUFFER_PROFILE\": {\"p\": {\"pool\": \"egress_lossy_pool\", \"dynamic_th\": "
		 "\"0\", \"packet_discard_action\": \"cut\"}}}",
		 "$.BUFFER_PROFILE.p.packet_discard_action", "drop"},
		{"{\"BUFFER_PROFILE\": {\"p\": {\"pool\": \"ingress_lossless_pool\", "
		 "\"dynamic_th\": \"0\", \"packet_discard_action\": \"trim\"}}}",
		 "$.BUFFER_PROFILE.p.packet_discard_action", "egress"},
		{"{\"TC_TO_DSCP_MAP\": {\"M\": {\"5\": \"64\"}}}", "$.TC_TO_DSCP_MAP.M['5']",
		 "out of range"},
		{"{\"BUFFER_PROFILE\": {\"p\": {\"pool\": \"egress_lossy_pool\", \"dynamic_th\": "
		 "\"0\", \"packet_discard_action\": \"trim\"}}, \"BUFFER_QUEUE\": "
		 "{\"Ethernet4|3\": {\"profile\": \"p\"}}, \"SWITCH_TRIMMING\": {\"GLOBAL\": "
		 "{\"dscp_value\": \"from-tc\"}}}",
		 "$.SWITCH_TRIMMING.GLOBAL.dscp_value", "Ethernet4"},
		{"{\"ACL_TABLE\": {\"T\": {\"type\": \"L3\"}}}", "$.ACL_TABLE.T.type",
		 "TRIMMING_L3"},
		{"{\"ACL_TABLE\": {\"T\": {\"type\": \"TRIMMING_L3\", \"stage\": \"egress\"}}}",
		 "$.ACL_TABLE.T.stage", "ingress"},
		{"{\"ACL_TABLE\": {\"T\": {\"type\": \"TRIMMING_L3\", "
		 "\"ports\": [\"Ethernet9\"]}}}", "$.ACL_TABLE.T.ports[0]", "port"},
		{"{\"ACL_RULE\": {\"T|R\": {\"PACKET_ACTION\": \"DISABLE_TRIM\"}}}",
		 "$.ACL_RULE['T|R']", "no ACL_TABLE"},
		{"{\"ACL_TABLE\": {\"T\": {\"type\": \"TRIMMING_L3\"}}, \"ACL_RULE\": {\"T|R\": "
		 "{\"PACKET_ACTION\": \"DROP\"}}}", "$.ACL_RULE['T|R'].PACKET_ACTION",
		 "DISABLE_TRIM"},
		{"{\"ACL_TABLE\": {\"T\": {\"type\": \"TRIMMING_L3\"}}, \"ACL_RULE\": {\"T|R\": "
		 "{\"PACKET_ACTION\": \"DISABLE_TRIM\", \"SRC_IP\": \"10.0.0.300/32\"}}}",
		 "$.ACL_RULE['T|R'].SRC_IP", "IPv4"},
		{"{\"ACL_TABLE\": {\"T\": {\"type\": \"TRIMMING_L3\"}}, \"ACL_RULE\": {\"T|R\": "
		 "{\"PACKET_ACTION\": \"DISABLE_TRIM\", \"SRC_IP\": \"10.0.0.1\", "
		 "\"DST_IPV6\": \"::1\"}}}", "$.ACL_RULE['T|R']", "not both"},
		{"{\"ACL_TABLE\": {\"T\": {\"type\": \"TRIMMING_L3\"}}, \"ACL_RULE\": {\"T|R\": "
		 "{\"PACKET_ACTION\": \"DISABLE_TRIM\", \"DSCP\": \"64\"}}}",
		 "$.ACL_RULE['T|R'].DSCP", "out of range"},
	};

	(void)state;
	t_config_refused(T_CONFIG, cases, RTE_DIM(cases));
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_trim_256),
		cmocka_unit_test(test_trim_5000),
		cmocka_unit_test(test_short_remarked),
		cmocka_unit_test(test_asymmetric_dscp),
		cmocka_unit_test(test_exemption),
		cmocka_unit_test(test_blocked_trim_queue),
		cmocka_unit_test(test_toggle),
		cmocka_unit_test(test_ipv6),
		cmocka_unit_test(test_cnp_not_trimmed),
		cmocka_unit_test(test_never_marked),
		cmocka_unit_test(test_trim_queue_scheduling),
		cmocka_unit_test(test_refusals),
	};
	t_eal_init();
	return cmocka_run_group_tests(tests, NULL, NULL);
}
