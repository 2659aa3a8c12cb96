/* SPDX-License-Identifier: BSD-3-Clause */
/* Buffer and QoS configuration: the headroom formula against buffers.md T5, sizes with
 * units, defaults, computed profiles, and every validation rule by JSON path. */
#include <inttypes.h>
#include <math.h>
#include <string.h>
#include "harness.h"
#include "jsonv.h"

static void
test_headroom_t5(void **state)
{
	struct lsw_buffer_conf b = {
		.cell = 96, .mac_phy_delay = 1024, .pipeline_latency = 18 * 1024,
		.lossless_mtu = 1024, .small_packet_percentage = 50,
	};
	struct lsw_headroom h;

	(void)state;
	assert_int_equal(lsw_buffer_headroom(&b, 100000, 5, 9100, 0, 0, false, &h), 0);
	assert_true(h.wcf == 2);
	assert_true(fabs(h.occupancy - 1.1176) < 0.0001);
	assert_true(fabs(h.cable_bytes - 631.3) < 0.05);
	assert_true(h.peer_response == 25216);
	assert_true(fabs(h.propagation - 35971.3) < 0.05);
	assert_int_equal(h.xoff, 44032);   /* 41984 plus the 2 KB compensation */
	assert_int_equal(h.xon, 18432);
	assert_int_equal(h.size, 62464);
	/* A shared headroom pool (BUFFER_POOL.xoff): the xoff comes from the pool, so the
	 * profile reserves xon alone and the 2 KB compensation goes (mellanox.lua). */
	assert_int_equal(lsw_buffer_headroom(&b, 100000, 5, 9100, 0, 0, true, &h), 0);
	assert_int_equal(h.xoff, 41984);
	assert_int_equal(h.size, 18432);
	assert_int_equal(lsw_buffer_headroom(&b, 100000, 300, 9100, 0, 0, false, &h), 0);
	assert_int_equal(h.xoff, 84992);
	assert_int_equal(h.size, 103424);
	/* The generic formula with a 2048-byte cell (a per-mbuf charge): why to charge bytes. */
	b.headroom_model = 1;
	b.cell = 2048;
	assert_int_equal(lsw_buffer_headroom(&b, 100000, 5, 9100, 0, 0, false, &h), 0);
	assert_true(h.wcf == 32);
	assert_int_equal(h.xoff, 594944);
	/* Ring frames are charged whole, outside the cell-waste scaling: 16 frames of 9118
	 * bytes in 2 KB cells are 16 x 10240, where the scaling (x 17.1) would make 2.5 MB. */
	assert_int_equal(lsw_buffer_headroom(&b, 100000, 5, 9100, 0, 16, false, &h), 0);
	assert_true(h.ring == 16 * 10240);
	assert_int_equal(h.xoff, 594944 + 16 * 10240);
	/* The shaper's burst is bytes on the wire: scaled like the cable's. */
	assert_int_equal(lsw_buffer_headroom(&b, 100000, 5, 9100, 1000, 0, false, &h), 0);
	assert_true(h.inflight == 1000 && h.ring == 0);
	assert_true(h.xoff > 594944 + 1000);
}

static void
test_sizes(void **state)
{
	uint64_t b;
	uint32_t m;

	(void)state;
	assert_true(lsw_parse_size("14680064", &b) && b == 14680064);
	assert_true(lsw_parse_size("14MB", &b) && b == 14680064);
	assert_true(lsw_parse_size("512KB", &b) && b == 524288);
	assert_true(lsw_parse_size("1.5MiB", &b) && b == 1572864);
	assert_true(lsw_parse_size("2g", &b) && b == 2147483648ull);
	assert_false(lsw_parse_size("12XB", &b));
	assert_false(lsw_parse_size("1.3B", &b));
	assert_false(lsw_parse_size("-1", &b));
	assert_false(lsw_parse_size("", &b));
	assert_true(lsw_parse_length("5m", &m) && m == 5);
	assert_true(lsw_parse_length("300", &m) && m == 300);
	assert_true(lsw_parse_length("2km", &m) && m == 2000);
	assert_false(lsw_parse_length("5 meters", &m));
}

static const char *base =
	"{\"LSW\": {\"global\": {\"workers\": [1]}, \"buffer\": {\"size\": \"4MB\"}},"
	" \"PORT\": {\"Ethernet0\": {\"speed\": \"100000\"}, \"Ethernet4\": {}},"
	" \"LSW_PORT\": {\"Ethernet0\": {\"devargs\": \"net_null0\"},"
	"              \"Ethernet4\": {\"devargs\": \"net_null1\"}},"
	" \"BUFFER_POOL\": {\"ingress_lossless_pool\": {\"type\": \"ingress\", \"size\": \"4MB\"},"
	"                 \"egress_lossy_pool\": {\"type\": \"egress\", \"size\": \"3MB\"},"
	"                 \"egress_lossless_pool\": {\"type\": \"egress\", \"mode\": \"static\"}},"
	" \"BUFFER_PROFILE\": {"
	"   \"ingress_lossy_profile\": {\"pool\": \"ingress_lossless_pool\","
	" \"dynamic_th\": \"3\"},"
	"   \"egress_lossy_profile\": {\"pool\": \"egress_lossy_pool\", \"size\": \"1518\","
	"                            \"dynamic_th\": \"0\"},"
	"   \"egress_lossless_profile\": {\"pool\": \"[BUFFER_POOL|egress_lossless_pool]\","
	"                               \"static_th\": \"4MB\"}},"
	" \"BUFFER_PG\": {\"Ethernet0|3-4\": {\"profile\": \"NULL\"}},"
	" \"BUFFER_QUEUE\": {\"Ethernet0,Ethernet4|3-4\":"
	" {\"profile\": \"egress_lossless_profile\"}},"
	" \"CABLE_LENGTH\": {\"AZURE\": {\"Ethernet0\": \"5m\"}},"
	" \"SCHEDULER\": {\"scheduler.1\": {\"type\": \"DWRR\", \"weight\": \"15\"}},"
	" \"QUEUE\": {\"Ethernet4|3\": {\"scheduler\": \"scheduler.1\"}},"
	" \"DSCP_TO_TC_MAP\": {\"RDMA\": {\"26\": \"3\", \"48\": \"6\"}},"
	" \"PORT_QOS_MAP\": {\"Ethernet4\": {\"dscp_to_tc_map\": \"RDMA\"}}}";

static struct lsw_config *
load(const char *patch, struct lsw_errs *errs)
{
	return t_config_patch(base, patch, errs);
}

static int
profile(const struct lsw_config *c, const char *name)
{
	for (uint16_t i = 0; i < c->qos.n_profiles; i++)
		if (strcmp(c->qos.profile[i].name, name) == 0)
			return i;
	return -1;
}

/* A PORT_QOS_MAP key that lists 24 ports (SONiC writes such keys) is read whole: a fixed
 * 256-byte copy once cut it and refused "no port named 'Ether'". */
static void
test_long_port_list_key(void **state)
{
	char lsw_port[2048], port[1024], key[512], patch[4096];
	size_t n = 0, m = 0, k = 0;
	struct lsw_errs errs;
	struct lsw_config *c;

	(void)state;
	for (int i = 0; i < 24; i++) {
		n += snprintf(lsw_port + n, sizeof(lsw_port) - n,
			      "%s\"Ethernet%d\": {\"devargs\": \"net_null%d\"}",
			      i ? ", " : "", 4 * i, i);
		m += snprintf(port + m, sizeof(port) - m, "%s\"Ethernet%d\": {}",
			      i ? ", " : "", 4 * i);
		k += snprintf(key + k, sizeof(key) - k, "%sEthernet%d", i ? "," : "", 4 * i);
	}
	snprintf(patch, sizeof(patch), "{\"LSW\": {\"global\": {\"mbufs\": 65536}},"
		 " \"LSW_PORT\": {%s}, \"PORT\": {%s},"
		 " \"PORT_QOS_MAP\": {\"%s\": {\"pfc_enable\": \"3\"}}}", lsw_port, port, key);
	assert_true(strlen(key) > 256);
	c = load(patch, &errs);
	if (c == NULL)
		fail_msg("%s: %s", errs.e[0].path, errs.e[0].msg);
	assert_int_equal(c->n_ports, 24);
	lsw_config_free(c);
}

static void
test_good(void **state)
{
	struct lsw_errs errs;
	struct lsw_config *c = load("{}", &errs);

	(void)state;
	if (c == NULL)
		fail_msg("%s: %s", errs.e[0].path, errs.e[0].msg);
	const struct lsw_qos_conf *q = &c->qos;
	assert_int_equal(q->buf.total, 4 << 20);
	assert_int_equal(q->buf.cell, 64);
	/* BUFFER_PG "NULL": T5's profile for 100G and 5m, with our 64-byte cell. */
	int p = profile(c, "pg_lossless_100000_5m_profile");
	assert_true(p >= 0);
	assert_true(q->profile[p].computed && q->profile[p].xoff > 0);
	assert_int_equal(q->profile[p].xon_offset, q->profile[p].xon); /* hysteresis */
	/* A port other than net_memif counts the rx burst that crossed XOFF, not a ring. */
	assert_int_equal(lsw_port_ring_frames(c, 0, 100000), LSW_BURST);
	assert_int_equal(q->port[0].pg_profile[3], p);
	assert_int_equal(q->port[0].pg_profile[4], p);
	assert_int_equal(q->port[0].pg_profile[0], profile(c, "ingress_lossy_profile"));
	assert_int_equal(q->port[1].q_profile[3], profile(c, "egress_lossless_profile"));
	assert_int_equal(q->port[1].q_profile[0], profile(c, "egress_lossy_profile"));
	assert_int_equal(q->profile[profile(c, "egress_lossless_profile")].mode, LSW_TH_STATIC);
	assert_string_equal(q->sched[q->port[1].q_sched[3]].name, "scheduler.1");
	assert_int_equal(q->sched[q->port[1].q_sched[2]].weight, 1);
	/* Maps: AZURE by default, the user's where bound; unmapped DSCPs go to TC 0. */
	assert_int_equal(q->map[LSW_MAP_DSCP_TO_TC][q->port[0].map[LSW_MAP_DSCP_TO_TC]].v[3], 3);
	assert_int_equal(q->map[LSW_MAP_DSCP_TO_TC][q->port[0].map[LSW_MAP_DSCP_TO_TC]].v[0], 1);
	const struct lsw_map_conf *rdma = &q->map[LSW_MAP_DSCP_TO_TC][q->port[1].map[0]];
	assert_string_equal(rdma->name, "RDMA");
	assert_int_equal(rdma->v[26], 3);
	assert_int_equal(rdma->v[3], 0);
	assert_int_equal(q->map[LSW_MAP_TC_TO_PG][0].v[3], 3);
	assert_int_equal(q->map[LSW_MAP_TC_TO_PG][0].v[5], 0);
	lsw_config_free(c);
}

/* A computed profile is shared by the ports it fits, and a port whose MTU or ring gives
 * other figures gets its own: with the first port's, a larger MTU or ring went short. */
static void
test_computed_per_port(void **state)
{
	struct lsw_errs errs;
	struct lsw_config *c = load(
		"{\"PORT\": {\"Ethernet4\": {\"speed\": \"100000\", \"mtu\": \"1500\"}},"
		" \"BUFFER_PG\": {\"Ethernet4|3\": {\"profile\": \"NULL\"}},"
		" \"CABLE_LENGTH\": {\"AZURE\": {\"Ethernet4\": \"5m\"}}}", &errs);

	(void)state;
	if (c == NULL)
		fail_msg("%s: %s", errs.e[0].path, errs.e[0].msg);
	const struct lsw_qos_conf *q = &c->qos;
	int p0 = profile(c, "pg_lossless_100000_5m_profile");
	int p4 = profile(c, "pg_lossless_100000_5m_mtu1500_profile");
	assert_true(p0 >= 0 && p4 >= 0);
	assert_int_equal(q->port[0].pg_profile[3], p0);
	assert_int_equal(q->port[1].pg_profile[3], p4);
	assert_true(q->profile[p4].computed);
	assert_true(q->profile[p4].xoff < q->profile[p0].xoff); /* 1500 against 9100 */
	lsw_config_free(c);
	/* The same speed, cable and MTU: one profile. */
	c = load("{\"PORT\": {\"Ethernet4\": {\"speed\": \"100000\"}},"
		 " \"BUFFER_PG\": {\"Ethernet4|3\": {\"profile\": \"NULL\"}},"
		 " \"CABLE_LENGTH\": {\"AZURE\": {\"Ethernet4\": \"5m\"}}}", &errs);
	if (c == NULL)
		fail_msg("%s: %s", errs.e[0].path, errs.e[0].msg);
	p0 = profile(c, "pg_lossless_100000_5m_profile");
	assert_int_equal(c->qos.port[1].pg_profile[3], p0);
	assert_int_equal(profile(c, "pg_lossless_100000_5m_mtu9100_profile"), -1);
	const uint64_t xoff = c->qos.profile[p0].xoff;
	lsw_config_free(c);
	/* Every name it could take is a profile of the user's: refused, by path. */
	char patch[1024];
	const char *user = "{\"pool\": \"ingress_lossless_pool\", \"dynamic_th\": \"0\"}";
	snprintf(patch, sizeof(patch),
		 "{\"BUFFER_PROFILE\": {\"pg_lossless_100000_5m_profile\": %s,"
		 " \"pg_lossless_100000_5m_mtu9100_profile\": %s,"
		 " \"pg_lossless_100000_5m_mtu9100_xoff%" PRIu64 "_profile\": %s}}",
		 user, user, xoff, user);
	assert_null(load(patch, &errs));
	bool found = false;
	for (unsigned int i = 0; i < errs.n; i++)
		found |= strcmp(errs.e[i].path, "$.BUFFER_PG['Ethernet0|3-4'].profile") == 0 &&
			 strstr(errs.e[i].msg, "exists with other figures") != NULL;
	assert_true(found);
}

/* pfc_watchdog_status follows the port's pfc_enable wherever the config sets it, in any
 * entry order; pfcwd_sw_enable names priorities; "disable" turns the watchdog off. */
static void
test_pfcwd_entries(void **state)
{
	struct lsw_errs errs;
	struct lsw_config *c = load(
		"{\"PORT_QOS_MAP\": {\"Ethernet0\": {\"pfc_watchdog_status\": \"enable\"},"
		"  \"Ethernet0,Ethernet4\": {\"pfc_enable\": \"3,4\"},"
		"  \"Ethernet4\": {\"pfcwd_sw_enable\": \"4\"}},"
		" \"PFC_WD\": {\"Ethernet0\": {\"detection_time\": \"200\"},"
		"  \"Ethernet4\": {\"detection_time\": \"400\", \"action\": \"forward\"}}}", &errs);

	(void)state;
	if (c == NULL)
		fail_msg("%s: %s", errs.e[0].path, errs.e[0].msg);
	assert_int_equal(c->qos.port[0].pfc_enable, 0x18);
	assert_int_equal(c->qos.port[0].pfcwd_enable, 0x18);
	assert_int_equal(c->qos.port[1].pfcwd_enable, 0x10);
	assert_int_equal(c->qos.wd.port[1].action, LSW_WD_FORWARD);
	assert_int_equal(c->qos.wd.poll_ms, 200);
	lsw_config_free(c);
	c = load("{\"PORT_QOS_MAP\": {\"Ethernet0\": {\"pfc_enable\": \"3\","
		 " \"pfcwd_sw_enable\": \"3\", \"pfc_watchdog_status\": \"disable\"}}}", &errs);
	assert_non_null(c);
	assert_int_equal(c->qos.port[0].pfcwd_enable, 0);
	lsw_config_free(c);
	/* A PFC_WD entry alone watches the port's lossless priorities; "disable" wins. */
	c = load("{\"PORT_QOS_MAP\": {\"Ethernet0,Ethernet4\": {\"pfc_enable\": \"3\"},"
		 " \"Ethernet4\": {\"pfc_watchdog_status\": \"disable\"}},"
		 " \"PFC_WD\": {\"Ethernet0\": {\"detection_time\": \"200\"},"
		 " \"Ethernet4\": {\"detection_time\": \"200\"}}}", &errs);
	assert_non_null(c);
	assert_int_equal(c->qos.port[0].pfcwd_enable, 0x08);
	assert_int_equal(c->qos.port[1].pfcwd_enable, 0);
	lsw_config_free(c);
	/* The deployment guide's snippet, as written: the watchdog on and no PFC_WD table.
	 * SONiC's start_default: drop, 200 ms to detect and to restore, polled every 200 ms;
	 * and the running config shows it. */
	c = load("{\"PORT_QOS_MAP\": {\"Ethernet0\": {\"pfc_enable\": \"3,4\","
		 " \"pfc_watchdog_status\": \"enable\"}}}", &errs);
	if (c == NULL)
		fail_msg("%s: %s", errs.e[0].path, errs.e[0].msg);
	const struct lsw_pfcwd_port_conf *wp = &c->qos.wd.port[0];
	assert_int_equal(c->qos.port[0].pfcwd_enable, 0x18);
	assert_true(wp->configured && wp->defaulted);
	assert_int_equal(wp->action, LSW_WD_DROP);
	assert_int_equal(wp->detection_ms, 200);
	assert_int_equal(wp->restoration_ms, 200);
	assert_int_equal(c->qos.wd.poll_ms, 200);
	assert_false(c->qos.wd.port[1].configured);
	json_t *e = json_object_get(json_object_get(c->doc, "PFC_WD"), "Ethernet0");
	assert_string_equal(json_string_value(json_object_get(e, "detection_time")), "200");
	assert_string_equal(json_string_value(json_object_get(e, "action")), "drop");
	lsw_config_free(c);
}

/* WRED_PROFILE: SONiC's AZURE_LOSSLESS, and a DCQCN profile with its own ECN curve. */
static void
test_wred(void **state)
{
	struct lsw_errs errs;
	struct lsw_config *c = load(
		"{\"WRED_PROFILE\": {\"AZURE_LOSSLESS\": {\"wred_green_enable\": \"true\","
		"   \"wred_yellow_enable\": \"true\", \"wred_red_enable\": \"true\","
		" \"ecn\": \"ecn_all\","
		"   \"green_min_threshold\": \"1048576\", \"green_max_threshold\": \"2097152\","
		"   \"green_drop_probability\": \"5\", \"yellow_min_threshold\": \"1048576\","
		"   \"yellow_max_threshold\": \"2097152\", \"red_min_threshold\": \"1048576\","
		"   \"red_max_threshold\": \"2097152\"},"
		"  \"DCQCN\": {\"ecn\": \"ecn_green\", \"ecn_green_min_threshold\": \"5KB\","
		"   \"ecn_green_max_threshold\": \"200KB\","
		" \"ecn_green_mark_probability\": \"1\"}},"
		" \"QUEUE\": {\"Ethernet4|3\":"
		" {\"wred_profile\": \"[WRED_PROFILE|AZURE_LOSSLESS]\"},"
		"  \"Ethernet4|4\": {\"wred_profile\": \"DCQCN\"}}}", &errs);

	(void)state;
	if (c == NULL)
		fail_msg("%s: %s", errs.e[0].path, errs.e[0].msg);
	const struct lsw_qos_conf *q = &c->qos;
	assert_int_equal(q->n_ecn, 2);
	const struct lsw_ecn_conf *az = &q->ecn[q->port[1].q_ecn[3]];
	assert_string_equal(az->name, "AZURE_LOSSLESS");
	assert_true(az->drop[LSW_GREEN] && az->ecn[LSW_GREEN] && az->ecn[LSW_RED]);
	assert_int_equal(az->wred[LSW_GREEN].min, 1048576);
	assert_int_equal(az->wred[LSW_GREEN].prob, 5);
	assert_int_equal(az->mark[LSW_GREEN].max, 2097152); /* ECN follows the WRED curve */
	assert_int_equal(az->wred[LSW_RED].prob, 100);       /* SONiC's default */
	const struct lsw_ecn_conf *dc = &q->ecn[q->port[1].q_ecn[4]];
	assert_false(dc->drop[LSW_GREEN]);
	assert_true(dc->ecn[LSW_GREEN] && !dc->ecn[LSW_YELLOW]);
	assert_int_equal(dc->mark[LSW_GREEN].min, 5120);
	assert_int_equal(dc->mark[LSW_GREEN].max, 204800);
	assert_int_equal(dc->mark[LSW_GREEN].prob, 1);
	assert_int_equal(q->port[1].q_ecn[0], LSW_NONE);
	assert_int_equal(q->port[0].q_ecn[3], LSW_NONE);
	assert_int_equal(c->g.cnp_tc, 6);
	lsw_config_free(c);
	c = load("{\"LSW\": {\"global\": {\"cnp_tc\": \"dscp\"}}}", &errs);
	assert_non_null(c);
	assert_int_equal(c->g.cnp_tc, LSW_CNP_TC_DSCP);
	lsw_config_free(c);
}

/* {patch, the path one error must name exactly, words its message must hold} */
static const char *const bads[][3] = {
	{"{\"LSW\": {\"buffer\": {\"size\": \"12XB\"}}}", "$.LSW.buffer.size", "size in bytes"},
	{"{\"LSW\": {\"buffer\": {\"size\": \"1KB\"}}}", "$.LSW.buffer.size", "64KB"},
	{"{\"LSW\": {\"buffer\": {\"ai_packet_sizes\": [10]}}}", "$.LSW.buffer.ai_packet_sizes[0]",
	 "range"},
	{"{\"LSW\": {\"buffer\": {\"ai_packet_sizes\": []}}}", "$.LSW.buffer.ai_packet_sizes",
	 "array"},
	{"{\"LSW\": {\"buffer\": {\"headroom_model\": \"x\"}}}", "$.LSW.buffer.headroom_model",
	 "one of"},
	{"{\"LSW\": {\"buffer\": {\"cells\": 64}}}", "$.LSW.buffer.cells", "unknown"},
	{"{\"BUFFER_POOL\": {\"p\": {\"size\": \"1MB\"}}}", "$.BUFFER_POOL.p.type", "required"},
	{"{\"BUFFER_POOL\": {\"p\": {\"type\": \"both\"}}}", "$.BUFFER_POOL.p.type", "one of"},
	{"{\"BUFFER_POOL\": {\"p\": {\"type\": \"egress\", \"size\": \"5MB\"}}}",
	 "$.BUFFER_POOL.p.size", "more than the buffer"},
	{"{\"BUFFER_POOL\": {\"p\": {\"type\": \"egress\", \"xoff\": \"1KB\"}}}",
	 "$.BUFFER_POOL.p.xoff", "ingress"},
	{"{\"BUFFER_POOL\": {\"ingress_lossless_pool\": {\"xoff\": \"4MB\"}}}",
	 "$.BUFFER_POOL.ingress_lossless_pool.xoff", "smaller"},
	{"{\"BUFFER_PROFILE\": {\"x\": {\"pool\": \"nope\", \"dynamic_th\": \"0\"}}}",
	 "$.BUFFER_PROFILE.x.pool", "no BUFFER_POOL"},
	{"{\"BUFFER_PROFILE\": {\"x\": {\"pool\": \"egress_lossy_pool\","
	 " \"dynamic_th\": \"128\"}}}", "$.BUFFER_PROFILE.x.dynamic_th", "range"},
	{"{\"BUFFER_PROFILE\": {\"x\": {\"pool\": \"egress_lossy_pool\","
	 " \"dynamic_th\": \"-129\"}}}", "$.BUFFER_PROFILE.x.dynamic_th", "range"},
	{"{\"BUFFER_PROFILE\": {\"x\": {\"pool\": \"egress_lossy_pool\"}}}", "$.BUFFER_PROFILE.x",
	 "exactly one"},
	{"{\"BUFFER_PROFILE\": {\"x\": {\"pool\": \"egress_lossy_pool\", \"static_th\": \"1KB\"}}}",
	 "$.BUFFER_PROFILE.x.static_th", "dynamic"},
	{"{\"BUFFER_PROFILE\": {\"x\": {\"pool\": \"egress_lossless_pool\","
	 " \"dynamic_th\": \"0\"}}}", "$.BUFFER_PROFILE.x.dynamic_th", "static"},
	{"{\"BUFFER_PROFILE\": {\"x\": {\"pool\": \"egress_lossy_pool\", \"dynamic_th\": \"0\","
	 " \"xoff\": \"1KB\"}}}", "$.BUFFER_PROFILE.x", "egress pool"},
	{"{\"BUFFER_PROFILE\": {\"x\": {\"pool\": \"ingress_lossless_pool\", \"dynamic_th\": \"0\","
	 " \"xoff\": \"40KB\", \"size\": \"20KB\"}}}", "$.BUFFER_PROFILE.x.size", "headroom"},
	{"{\"BUFFER_PROFILE\": {\"NULL\": {\"pool\": \"egress_lossy_pool\","
	 " \"dynamic_th\": \"0\"}}}", "$.BUFFER_PROFILE.NULL", "NULL"},
	{"{\"BUFFER_PG\": {\"Ethernet0|3\": {\"profile\": \"nope\"}}}",
	 "$.BUFFER_PG['Ethernet0|3'].profile", "no BUFFER_PROFILE"},
	{"{\"BUFFER_PG\": {\"Ethernet0|0\": {\"profile\": \"egress_lossy_profile\"}}}",
	 "$.BUFFER_PG['Ethernet0|0'].profile", "egress pool"},
	{"{\"BUFFER_QUEUE\": {\"Ethernet0|0\": {\"profile\": \"ingress_lossy_profile\"}}}",
	 "$.BUFFER_QUEUE['Ethernet0|0'].profile", "ingress pool"},
	{"{\"BUFFER_PG\": {\"Ethernet0|0-3\": {\"profile\": \"ingress_lossy_profile\"}}}",
	 "$.BUFFER_PG['Ethernet0|0-3']", "already bound"},
	{"{\"BUFFER_PG\": {\"Ethernet0|6-8\": {\"profile\": \"ingress_lossy_profile\"}}}",
	 "$.BUFFER_PG['Ethernet0|6-8']", "range"},
	{"{\"BUFFER_PG\": {\"Ethernet0|5-4\": {\"profile\": \"ingress_lossy_profile\"}}}",
	 "$.BUFFER_PG['Ethernet0|5-4']", "range"},
	{"{\"BUFFER_PG\": {\"Ethernet9|5\": {\"profile\": \"ingress_lossy_profile\"}}}",
	 "$.BUFFER_PG['Ethernet9|5']", "no port"},
	{"{\"BUFFER_PG\": {\"Ethernet0\": {\"profile\": \"ingress_lossy_profile\"}}}",
	 "$.BUFFER_PG.Ethernet0", "keys are"},
	{"{\"BUFFER_PG\": {\"Ethernet4|3\": {\"profile\": \"NULL\"}}}",
	 "$.BUFFER_PG['Ethernet4|3'].profile", "speed"},
	{"{\"BUFFER_PG\": {\"Ethernet0|3-4\": null, \"Ethernet0|3\": {\"profile\": \"NULL\"}},"
	 " \"CABLE_LENGTH\": null}", "$.BUFFER_PG['Ethernet0|3'].profile", "CABLE_LENGTH"},
	{"{\"BUFFER_PROFILE\": {\"ingress_lossy_profile\": {\"size\": \"4MB\"}}}",
	 "$.BUFFER_POOL.ingress_lossless_pool", "no shared buffer"},
	{"{\"CABLE_LENGTH\": {\"AZURE\": {\"Ethernet0\": \"5 meters\"}}}",
	 "$.CABLE_LENGTH.AZURE.Ethernet0", "length"},
	{"{\"CABLE_LENGTH\": {\"AZURE\": {\"Ethernet7\": \"5m\"}}}",
	 "$.CABLE_LENGTH.AZURE.Ethernet7", "no port"},
	{"{\"LOSSLESS_TRAFFIC_PATTERN\": {\"AZURE\": {\"small_packet_percentage\": \"101\"}}}",
	 "$.LOSSLESS_TRAFFIC_PATTERN.AZURE.small_packet_percentage", "range"},
	{"{\"DEFAULT_LOSSLESS_BUFFER_PARAMETER\": {\"AZURE\": {\"over_subscribe_ratio\": \"2\"}}}",
	 "$.DEFAULT_LOSSLESS_BUFFER_PARAMETER.AZURE.over_subscribe_ratio", "unknown"},
	{"{\"DSCP_TO_TC_MAP\": {\"M\": {\"64\": \"1\"}}}", "$.DSCP_TO_TC_MAP.M['64']", "DSCP"},
	{"{\"DSCP_TO_TC_MAP\": {\"M\": {\"1\": \"8\"}}}", "$.DSCP_TO_TC_MAP.M['1']", "range"},
	{"{\"TC_TO_QUEUE_MAP\": {\"M\": {\"8\": \"1\"}}}", "$.TC_TO_QUEUE_MAP.M['8']",
	 "traffic classes"},
	{"{\"PORT_QOS_MAP\": {\"Ethernet0\": {\"tc_to_pg_map\": \"nope\"}}}",
	 "$.PORT_QOS_MAP.Ethernet0.tc_to_pg_map", "no TC_TO_PRIORITY_GROUP_MAP"},
	{"{\"PORT_QOS_MAP\": {\"Ethernet0\": {\"pfc_enable\": \"3,8\"}}}",
	 "$.PORT_QOS_MAP.Ethernet0.pfc_enable", "priorities 0-7"},
	{"{\"PORT_QOS_MAP\": {\"Ethernet0\": {\"pfc_enable\": \"3,,4\"}}}",
	 "$.PORT_QOS_MAP.Ethernet0.pfc_enable", "priorities 0-7"},
	{"{\"PORT_QOS_MAP\": {\"Ethernet0\": {\"pfc_enable\": \"3\", \"pfcwd_sw_enable\": \"4\"}},"
	 " \"PFC_WD\": {\"Ethernet0\": {\"detection_time\": \"200\"}}}",
	 "$.PORT_QOS_MAP.Ethernet0.pfcwd_sw_enable", "pfc_enable"},
	{"{\"LSW_PORT\": {\"Ethernet0\": {\"rx_pause\": true}},"
	 " \"PORT_QOS_MAP\": {\"Ethernet0\": {\"pfc_enable\": \"3\"}}}",
	 "$.LSW_PORT.Ethernet0.rx_pause", "exclude"},
	{"{\"PFC_WD\": {\"Ethernet0\": {\"action\": \"drop\"}}}",
	 "$.PFC_WD.Ethernet0.detection_time", "required"},
	{"{\"PFC_WD\": {\"Ethernet0\": {\"detection_time\": \"50\"}}}",
	 "$.PFC_WD.Ethernet0.detection_time", "range"},
	{"{\"PFC_WD\": {\"GLOBAL\": {\"POLL_INTERVAL\": \"500\"}, \"Ethernet0\": "
	 "{\"detection_time\": \"200\", \"restoration_time\": \"300\"}}}",
	 "$.PFC_WD.Ethernet0.detection_time", "POLL_INTERVAL"},
	{"{\"PFC_WD\": {\"GLOBAL\": {\"POLL_INTERVAL\": \"200\"}, \"Ethernet0\": "
	 "{\"detection_time\": \"400\", \"restoration_time\": \"100\"}}}",
	 "$.PFC_WD.Ethernet0.restoration_time", "POLL_INTERVAL"},
	{"{\"PFC_WD\": {\"GLOBAL\": {\"POLL_INTERVAL\": \"2000\"}}}",
	 "$.PFC_WD.GLOBAL.POLL_INTERVAL", "range"},
	{"{\"PFC_WD\": {\"GLOBAL\": {\"BIG_RED_SWITCH\": \"on\"}}}",
	 "$.PFC_WD.GLOBAL.BIG_RED_SWITCH", "one of"},
	{"{\"PFC_WD\": {\"Ethernet0\": {\"detection_time\": \"200\", \"action\": \"log\"}}}",
	 "$.PFC_WD.Ethernet0.action", "one of"},
	{"{\"PFC_WD\": {\"Ethernet9\": {\"detection_time\": \"200\"}}}", "$.PFC_WD.Ethernet9",
	 "no port"},
	{"{\"MAP_PFC_PRIORITY_TO_QUEUE\": {\"M\": {\"3\": \"9\"}}}",
	 "$.MAP_PFC_PRIORITY_TO_QUEUE.M['3']", "range"},
	{"{\"PORT_QOS_MAP\": {\"Ethernet5\": {}}}", "$.PORT_QOS_MAP.Ethernet5", "no port"},
	{"{\"SCHEDULER\": {\"s\": {\"type\": \"STRICT\", \"weight\": \"3\"}}}",
	 "$.SCHEDULER.s.weight", "no weight"},
	{"{\"SCHEDULER\": {\"s\": {\"type\": \"DWRR\"}}}", "$.SCHEDULER.s.weight", "required"},
	{"{\"SCHEDULER\": {\"s\": {\"type\": \"DWRR\", \"weight\": \"101\"}}}",
	 "$.SCHEDULER.s.weight", "range"},
	{"{\"SCHEDULER\": {\"s\": {\"type\": \"FAIR\"}}}", "$.SCHEDULER.s.type", "one of"},
	{"{\"QUEUE\": {\"Ethernet4|3\": {\"scheduler\": \"nope\"}}}",
	 "$.QUEUE['Ethernet4|3'].scheduler", "no SCHEDULER"},
	{"{\"QUEUE\": {\"Ethernet4|3\": {\"wred_profile\": \"AZURE_LOSSLESS\"}}}",
	 "$.QUEUE['Ethernet4|3'].wred_profile", "no WRED_PROFILE"},
	{"{\"WRED_PROFILE\": {\"W\": {\"green_min_threshold\": \"2MB\","
	 " \"green_max_threshold\": \"1MB\"}}}", "$.WRED_PROFILE.W.green_max_threshold", "below"},
	{"{\"WRED_PROFILE\": {\"W\": {\"green_min_threshold\": \"1MB\"}}}",
	 "$.WRED_PROFILE.W.green_max_threshold", "required"},
	{"{\"WRED_PROFILE\": {\"W\": {\"green_min_threshold\": \"1MB\","
	 " \"green_max_threshold\": \"2MB\", \"green_drop_probability\": \"101\"}}}",
	 "$.WRED_PROFILE.W.green_drop_probability", "range"},
	{"{\"WRED_PROFILE\": {\"W\": {\"wred_green_enable\": \"true\"}}}",
	 "$.WRED_PROFILE.W.green_min_threshold", "required"},
	{"{\"WRED_PROFILE\": {\"W\": {\"ecn\": \"ecn_green\"}}}",
	 "$.WRED_PROFILE.W.green_min_threshold", "required"},
	{"{\"WRED_PROFILE\": {\"W\": {\"ecn\": \"ecn_blue\"}}}", "$.WRED_PROFILE.W.ecn",
	 "one of"},
	{"{\"WRED_PROFILE\": {\"W\": {\"weight\": \"4\"}}}", "$.WRED_PROFILE.W.weight",
	 "instantaneous"},
	{"{\"WRED_PROFILE\": {\"W\": {\"ecn_green_min_threshold\": \"9KB\","
	 " \"ecn_green_max_threshold\": \"8KB\"}}}", "$.WRED_PROFILE.W.ecn_green_max_threshold",
	 "below"},
	{"{\"WRED_PROFILE\": {\"W\": {\"green_minimum\": \"1\"}}}",
	 "$.WRED_PROFILE.W.green_minimum", "unknown"},
	{"{\"LSW\": {\"global\": {\"cnp_tc\": \"8\"}}}", "$.LSW.global.cnp_tc", "range"},
};

static void
test_bad(void **state)
{
	(void)state;
	t_config_refused(base, bads, RTE_DIM(bads));
}

/* configs/default.json, the text of it (lsw's default configuration: no buffer tables). */
static char *
default_config(void)
{
	const char *root = getenv("LSW_SOURCE_ROOT");
	char path[512];
	static char text[1 << 16];

	snprintf(path, sizeof(path), "%s/configs/default.json", root ? root : ".");
	FILE *f = fopen(path, "r");
	assert_non_null(f);
	text[fread(text, 1, sizeof(text) - 1, f)] = '\0';
	fclose(f);
	return text;
}

/* The buffer and PFC snippet of NVIDIA's "Networking for AI" SONiC deployment guide: one
 * ingress pool, PFC on priorities 3 and 4 of a port and its watchdog. SONiC takes it onto a
 * switch whose buffer template already holds the other pools, the lossy profiles and the
 * bindings of the PGs and queues it leaves out. */
#define AI_SNIPPET \
	"{\"BUFFER_POOL\": {\"ingress_lossless_pool\": {\"mode\": \"dynamic\"," \
	"   \"size\": \"12MB\", \"type\": \"ingress\", \"xoff\": \"2MB\"}}," \
	" \"PORT_QOS_MAP\": {\"Ethernet0\": {\"pfc_enable\": \"3,4\"," \
	"   \"pfc_watchdog_status\": \"enable\"}}}"

static void
test_sonic_snippet(void **state)
{
	struct lsw_errs errs;
	struct lsw_config *c = t_config_patch(default_config(), AI_SNIPPET, &errs);

	(void)state;
	if (c == NULL)
		fail_msg("%s: %s", errs.e[0].path, errs.e[0].msg);
	const struct lsw_qos_conf *q = &c->qos;
	/* The snippet's pool, and lsw's default egress pool beside it. */
	assert_int_equal(q->n_pools, 2);
	assert_string_equal(q->pool[0].name, "ingress_lossless_pool");
	assert_int_equal(q->pool[0].size, 12 << 20);
	assert_int_equal(q->pool[0].xoff, 2 << 20);
	assert_string_equal(q->pool[1].name, "egress_lossy_pool");
	assert_int_equal(q->pool[1].type, LSW_POOL_EGRESS);
	assert_int_equal(q->pool[1].size, q->buf.total);
	/* SONiC's default profiles, on those pools. */
	int in = profile(c, "ingress_lossy_profile"), lossy = profile(c, "egress_lossy_profile");
	int lossless = profile(c, "egress_lossless_profile");
	assert_true(in >= 0 && lossy >= 0 && lossless >= 0);
	assert_int_equal(q->profile[in].pool, 0);
	assert_int_equal(q->profile[in].dynamic_th, 3);
	assert_int_equal(q->profile[lossy].pool, 1);
	assert_int_equal(q->profile[lossy].dynamic_th, 3);
	assert_int_equal(q->profile[lossless].pool, 1);
	assert_int_equal(q->profile[lossless].dynamic_th, 7);
	/* Ethernet0's lossless queues 3 and 4 take egress_lossless_profile, the rest and every
	 * other port's queues egress_lossy_profile, every PG ingress_lossy_profile. */
	for (uint16_t port = 0; port < c->n_ports; port++)
		for (int i = 0; i < 8; i++) {
			bool ll = port == 0 && (i == 3 || i == 4);
			assert_int_equal(q->port[port].q_profile[i], ll ? lossless : lossy);
			assert_int_equal(q->port[port].pg_profile[i], in);
		}
	assert_int_equal(q->port[0].pfc_enable, 0x18);
	assert_int_equal(q->port[0].pfcwd_enable, 0x18);
	assert_int_equal(q->port[1].pfc_enable, 0);
	lsw_config_free(c);

	/* The same with the template's bindings written out, naming the default profiles. */
	c = t_config_patch(default_config(),
		"{\"BUFFER_QUEUE\": {\"Ethernet0|3-4\": {\"profile\": \"egress_lossless_profile\"},"
		"  \"Ethernet0|0-2\": {\"profile\": \"egress_lossy_profile\"}},"
		" \"BUFFER_PG\": {\"Ethernet0|0\": {\"profile\": \"ingress_lossy_profile\"}},"
		" \"PORT_QOS_MAP\": {\"Ethernet0\": {\"pfc_enable\": \"3,4\"}}}", &errs);
	if (c == NULL)
		fail_msg("%s: %s", errs.e[0].path, errs.e[0].msg);
	assert_int_equal(c->qos.port[0].q_profile[3], profile(c, "egress_lossless_profile"));
	lsw_config_free(c);
}

/* What SONiC refuses, lsw still refuses on top of the snippet. */
static const char *const snippet_bads[][3] = {
	/* sonic-pfc-priority's pattern: priorities 0-7. */
	{"{\"PORT_QOS_MAP\": {\"Ethernet0\": {\"pfc_enable\": \"3,8\"}}}",
	 "$.PORT_QOS_MAP.Ethernet0.pfc_enable", "0-7"},
	/* The watchdog watches lossless priorities only. */
	{"{\"PORT_QOS_MAP\": {\"Ethernet0\": {\"pfcwd_sw_enable\": \"3,5\"}}}",
	 "$.PORT_QOS_MAP.Ethernet0.pfcwd_sw_enable", "lossless"},
	/* A profile's pool must exist (sonic-buffer-profile's leafref). */
	{"{\"BUFFER_PROFILE\": {\"p\": {\"pool\": \"no_such_pool\", \"dynamic_th\": \"0\"}}}",
	 "$.BUFFER_PROFILE.p.pool", "no BUFFER_POOL"},
	/* A queue takes an egress pool's profile. */
	{"{\"BUFFER_QUEUE\": {\"Ethernet0|3\": {\"profile\": \"ingress_lossy_profile\"}}}",
	 "$.BUFFER_QUEUE['Ethernet0|3'].profile", "egress"},
	/* A static pool takes static_th profiles (sonic-swss#2438): the template's dynamic
	 * ingress_lossy_profile has none to go on, and PG 0 is left without a profile. */
	{"{\"BUFFER_POOL\": {\"ingress_lossless_pool\": {\"mode\": \"static\"}}}",
	 "$.PORT.Ethernet0", "no buffer profile"},
};

static void
test_sonic_snippet_refused(void **state)
{
	struct lsw_errs errs;
	struct lsw_config *c = t_config_patch(default_config(), AI_SNIPPET, &errs);
	char merged[1 << 16];

	(void)state;
	assert_non_null(c);
	lsw_config_free(c);
	/* The snippet merged into the default config is the base each case patches. */
	json_error_t je;
	json_t *doc = json_loads(default_config(), 0, &je), *snip = json_loads(AI_SNIPPET, 0, &je);
	assert_non_null(doc);
	assert_non_null(snip);
	assert_int_equal(json_object_update(doc, snip), 0);
	char *text = json_dumps(doc, 0);
	snprintf(merged, sizeof(merged), "%s", text);
	free(text);
	json_decref(doc);
	json_decref(snip);
	t_config_refused(merged, snippet_bads, RTE_DIM(snippet_bads));
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_headroom_t5),
		cmocka_unit_test(test_sizes),
		cmocka_unit_test(test_good),
		cmocka_unit_test(test_computed_per_port),
		cmocka_unit_test(test_pfcwd_entries),
		cmocka_unit_test(test_wred),
		cmocka_unit_test(test_bad),
		cmocka_unit_test(test_sonic_snippet),
		cmocka_unit_test(test_sonic_snippet_refused),
		cmocka_unit_test(test_long_port_list_key),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
