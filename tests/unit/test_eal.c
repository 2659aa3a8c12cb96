/* SPDX-License-Identifier: BSD-3-Clause */
/* The EAL command line lsw builds from its config. */
#include <string.h>
#include "harness.h"
#include "eal.h"

static const char *cfg_json =
	"{\"LSW\": {\"global\": {\"workers\": [1], \"log_level\": \"debug\"}},"
	" \"PORT\": {\"Ethernet0\": {}, \"Ethernet4\": {\"mtu\": 1500}},"
	" \"LSW_PORT\": {\"Ethernet0\": {\"devargs\": \"net_tap0,iface=sw0\"},"
	"              \"Ethernet4\": {\"devargs\": \"%s\"}}}";

static struct lsw_config *
cfg(const char *second)
{
	char buf[1024];
	struct lsw_errs errs;

	snprintf(buf, sizeof(buf), cfg_json, second);
	json_t *doc = json_loads(buf, 0, NULL);
	struct lsw_config *c = lsw_config_from_json(doc, &errs);
	json_decref(doc);
	assert_non_null(c);
	return c;
}

static int
find(const struct lsw_eal_args *a, const char *opt, const char *val)
{
	for (int i = 0; i + 1 < a->argc; i++)
		if (strcmp(a->argv[i], opt) == 0 &&
		    (val == NULL || strcmp(a->argv[i + 1], val) == 0))
			return i;
	return -1;
}

static void
test_vdevs_nohuge(void **state)
{
	struct lsw_config *c = cfg("net_pcap0,rx_pcap=a.pcap,tx_pcap=b.pcap");
	struct lsw_eal_args a;

	(void)state;
	lsw_eal_args_build(c, false, 1234, &a);
	assert_true(find(&a, "-l", "0,1") > 0);
	assert_true(find(&a, "--main-lcore", "0") > 0);
	assert_true(find(&a, "--file-prefix", "lsw-1234") > 0);
	assert_true(find(&a, "--vdev", "net_tap0,iface=sw0") > 0);
	assert_true(find(&a, "--vdev", "net_pcap0,rx_pcap=a.pcap,tx_pcap=b.pcap") > 0);
	assert_true(find(&a, "--log-level", "debug") > 0);
	assert_true(find(&a, "-m", NULL) > 0);
	bool nohuge = false, noshconf = false, nopci = false;
	for (int i = 0; i < a.argc; i++) {
		nohuge |= strcmp(a.argv[i], "--no-huge") == 0;
		noshconf |= strcmp(a.argv[i], "--no-shconf") == 0;
		nopci |= strcmp(a.argv[i], "--no-pci") == 0;
		/* not with --no-huge on 22.11 */
		assert_true(strcmp(a.argv[i], "--in-memory") != 0);
	}
	assert_true(nohuge && noshconf && nopci);
	assert_null(a.argv[a.argc]);
	lsw_eal_args_free(&a);
	lsw_config_free(c);
}

static void
test_pci_hugepages(void **state)
{
	struct lsw_config *c = cfg("0000:03:00.1");
	struct lsw_eal_args a;

	(void)state;
	assert_true(c->port[1].is_pci);
	lsw_eal_args_build(c, true, 99, &a);
	assert_true(find(&a, "-a", "0000:03:00.1") > 0);
	for (int i = 0; i < a.argc; i++) {
		assert_true(strcmp(a.argv[i], "--no-pci") != 0);
		assert_true(strcmp(a.argv[i], "--no-huge") != 0);
	}
	lsw_eal_args_free(&a);
	lsw_config_free(c);
	c = cfg("03:00.1");
	assert_true(c->port[1].is_pci);
	lsw_config_free(c);
}

/* More workers than CPUs: lcores placed with --lcores, the plain ones as they are; the
 * ports go to them round-robin, and a port may name a placed lcore. */
static void
test_lcore_map(void **state)
{
	const char *json =
		"{\"LSW\": {\"global\": {\"workers\": [1, \"2@1\", \"3@0\"]}},"
		" \"PORT\": {\"Ethernet0\": {}, \"Ethernet4\": {}},"
		" \"LSW_PORT\": {\"Ethernet0\": {\"devargs\": \"net_null0\"},"
		"              \"Ethernet4\": {\"devargs\": \"net_null1\", \"lcore\": 3}}}";
	json_t *doc = json_loads(json, 0, NULL);
	struct lsw_errs errs;
	struct lsw_config *c = lsw_config_from_json(doc, &errs);
	struct lsw_eal_args a;

	(void)state;
	json_decref(doc);
	assert_non_null(c);
	assert_int_equal(c->g.n_workers, 3);
	assert_int_equal(c->g.workers[1], 2);
	assert_int_equal(c->g.worker_cpu[1], 1);
	assert_int_equal(c->g.worker_cpu[2], 0);
	assert_int_equal(c->port[1].lcore, 3);
	lsw_eal_args_build(c, false, 1, &a);
	assert_true(find(&a, "--lcores", "0,1,2@1,3@0") > 0);
	assert_true(find(&a, "-l", NULL) < 0);
	lsw_eal_args_free(&a);
	lsw_config_free(c);
}

static void
test_data_room(void **state)
{
	struct lsw_config *c = cfg("net_null0");

	(void)state;
	/* The largest MTU (9100) plus Ethernet, a tag and FCS fits in one mbuf. */
	assert_int_equal(lsw_mbuf_data_room(c), RTE_PKTMBUF_HEADROOM + 9100 + 14 + 4 + 4);
	/* With RoCE-sized MTUs the largest of the frame and the AI packet sizes decides. */
	c->port[0].mtu = c->port[1].mtu = 4096;
	assert_int_equal(lsw_mbuf_data_room(c), RTE_PKTMBUF_HEADROOM + 4160);
	c->port[0].mtu = 4200;
	assert_int_equal(lsw_mbuf_data_room(c), RTE_PKTMBUF_HEADROOM + 4200 + 22);
	c->qos.buf.ai_sizes[0] = 4300;
	assert_int_equal(lsw_mbuf_data_room(c), RTE_PKTMBUF_HEADROOM + 4300);
	lsw_config_free(c);
}

/* The EAL memory follows what lsw allocates: it grows with the workers, ports, mbufs and
 * MTU; -m is it; a memory_mb below what lsw allocates at start is refused, naming the field
 * and the least it takes; that least is accepted. (tests/integration/start_grid.py starts
 * a grid of such configs.) */
static void
test_memory(void **state)
{
	struct lsw_config *c = cfg("net_null0");
	struct lsw_eal_args a;
	char mb[16];

	(void)state;
	c->port[0].mtu = c->port[1].mtu = 1500;
	uint32_t m = lsw_eal_memory_mb(c, false);
	assert_true(m >= lsw_eal_memory_mb(c, true));
	assert_true(m > lsw_eal_memory_min_mb(c));
	lsw_eal_args_build(c, false, 1, &a);
	snprintf(mb, sizeof(mb), "%u", m);
	assert_true(find(&a, "-m", mb) > 0);
	lsw_eal_args_free(&a);
	c->g.n_workers = 8;
	assert_true(lsw_eal_memory_mb(c, false) > m);
	m = lsw_eal_memory_mb(c, false);
	c->n_ports = 16;
	assert_true(lsw_eal_memory_mb(c, false) > m);
	m = lsw_eal_memory_mb(c, false);
	c->g.mbufs *= 2;
	assert_true(lsw_eal_memory_mb(c, false) > m);
	m = lsw_eal_memory_mb(c, false);
	c->port[1].mtu = 9100;
	assert_true(lsw_eal_memory_mb(c, false) > m);
	lsw_config_free(c);

	const char *base = "{\"LSW\": {\"global\": {\"workers\": [1, \"2@1\"], \"mbufs\": 20000}},"
			   " \"PORT\": {\"Ethernet0\": {}, \"Ethernet4\": {}},"
			   " \"LSW_PORT\": {\"Ethernet0\": {\"devargs\": \"net_null0\"},"
			   "              \"Ethernet4\": {\"devargs\": \"net_null1\"}}}";
	struct lsw_errs errs;
	c = t_config_patch(base, "{}", &errs);
	assert_non_null(c);
	uint32_t least = lsw_eal_memory_min_mb(c);
	lsw_config_free(c);
	char patch[128];
	snprintf(patch, sizeof(patch), "{\"LSW\": {\"global\": {\"memory_mb\": %u}}}", least - 1);
	assert_null(t_config_patch(base, patch, &errs));
	assert_int_equal(errs.n, 1);
	assert_string_equal(errs.e[0].path, "$.LSW.global.memory_mb");
	snprintf(mb, sizeof(mb), "at least %u ", least);
	assert_non_null(strstr(errs.e[0].msg, mb));
	snprintf(patch, sizeof(patch), "{\"LSW\": {\"global\": {\"memory_mb\": %u}}}", least);
	c = t_config_patch(base, patch, &errs);
	assert_non_null(c);
	lsw_config_free(c);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_vdevs_nohuge),
		cmocka_unit_test(test_pci_hugepages),
		cmocka_unit_test(test_lcore_map),
		cmocka_unit_test(test_data_room),
		cmocka_unit_test(test_memory),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
