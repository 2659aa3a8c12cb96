/* SPDX-License-Identifier: BSD-3-Clause */
/* Config validation: the shipped configs pass; every rule refuses its bad input by path. */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "harness.h"
#include "jsonv.h"

static const char *base =
	"{\"LSW\": {\"global\": {\"workers\": [1]}},"
	" \"PORT\": {\"Ethernet0\": {\"mtu\": \"9100\"}, \"Ethernet4\": {}},"
	" \"LSW_PORT\": {\"Ethernet0\": {\"devargs\": \"net_null0\"},"
	"              \"Ethernet4\": {\"devargs\": \"net_null1\"}},"
	" \"INTERFACE\": {\"Ethernet0|10.0.0.0/31\": {}, \"Ethernet4|10.0.1.254/24\": {}},"
	" \"STATIC_ROUTE\": {\"10.1.0.0/16\": {\"nexthop\": \"10.0.0.1\"}},"
	" \"NEIGH\": {\"Ethernet4|10.0.1.7\": {\"neigh\": \"02:00:00:00:00:07\"}}}";

static struct lsw_config *
load(const char *patch, struct lsw_errs *errs)
{
	return t_config_patch(base, patch, errs);
}

static void
test_base_and_defaults(void **state)
{
	struct lsw_errs errs;
	struct lsw_config *c = load("{}", &errs);

	(void)state;
	if (c == NULL)
		fail_msg("%s: %s", errs.e[0].path, errs.e[0].msg);
	assert_int_equal(c->n_ports, 2);
	assert_string_equal(c->port[1].name, "Ethernet4");
	assert_int_equal(c->port[0].mtu, 9100);
	assert_int_equal(c->port[1].mtu, 9100);          /* SONiC's default */
	assert_true(c->port[1].admin_up);
	assert_int_equal(c->port[0].lcore, 1);
	assert_int_equal(c->n_routes, 1);
	assert_int_equal(c->routes[0].nh_port[0], 0);
	assert_int_equal(c->n_neighs, 1);
	assert_int_equal(c->g.idle_sleep_us, 100);
	assert_string_equal(c->g.rpc_socket, "/run/lsw.sock");
	lsw_config_free(c);
	/* Numbers as strings or integers, booleans as strings, ECMP and blackhole routes. */
	c = load("{\"PORT\": {\"Ethernet4\": {\"mtu\": 1500, \"admin_status\": \"down\","
		 " \"speed\": 25000}}, \"STATIC_ROUTE\": {\"default|10.2.0.0/16\":"
		 " {\"nexthop\": \"10.0.1.1, 10.0.1.2\", \"ifname\": \"Ethernet4,Ethernet4\"},"
		 " \"0.0.0.0/0\": {\"blackhole\": \"true\"}}}", &errs);
	assert_non_null(c);
	assert_int_equal(c->port[1].mtu, 1500);
	assert_false(c->port[1].admin_up);
	assert_int_equal(c->port[1].speed, 25000);
	assert_int_equal(c->n_routes, 3);
	assert_int_equal(c->routes[1].n_nh, 2);
	assert_true(c->routes[2].blackhole);
	assert_int_equal(c->routes[2].plen, 0);
	lsw_config_free(c);
}

/* {patch, the path one error must name exactly, words its message must hold} */
static const char *const bads[][3] = {
	{"{\"FOO\": {}}", "$.FOO", "unknown table"},
	{"{\"BUFFER_POOLS\": {}}", "$.BUFFER_POOLS", "unknown table"},
	{"{\"PORT\": {\"Ethernet0\": {\"lanes\": \"0,1\"}}}", "$.PORT.Ethernet0.lanes", "unknown"},
	{"{\"PORT\": {\"Ethernet0\": {\"mtu\": \"9217\"}}}", "$.PORT.Ethernet0.mtu", "range"},
	{"{\"PORT\": {\"Ethernet0\": {\"mtu\": \"67\"}}}", "$.PORT.Ethernet0.mtu", "range"},
	{"{\"PORT\": {\"Ethernet0\": {\"mtu\": \"9k\"}}}", "$.PORT.Ethernet0.mtu", "integer"},
	{"{\"PORT\": {\"Ethernet0\": {\"mtu\": 1.5}}}", "$.PORT.Ethernet0.mtu", "integer"},
	{"{\"PORT\": {\"Ethernet0\": {\"mtu\": \"-1\"}}}", "$.PORT.Ethernet0.mtu", "range"},
	{"{\"PORT\": {\"Ethernet0\": {\"speed\": \"0\"}}}", "$.PORT.Ethernet0.speed", "range"},
	{"{\"PORT\": {\"Ethernet0\": {\"admin_status\": \"on\"}}}",
	 "$.PORT.Ethernet0.admin_status", "up"},
	{"{\"PORT\": {\"Ether|net\": {}}}", "$.PORT['Ether|net']", "port names"},
	{"{\"PORT\": {\"Ethernet8\": {}}}", "$.PORT.Ethernet8", "LSW_PORT"},
	{"{\"PORT\": null, \"LSW_PORT\": null, \"INTERFACE\": null, \"STATIC_ROUTE\": null,"
	 " \"NEIGH\": null}", "$.PORT", "required"},
	{"{\"PORT\": [], \"INTERFACE\": null, \"STATIC_ROUTE\": null, \"NEIGH\": null,"
	 " \"LSW_PORT\": null}", "$.PORT", "object"},
	{"{\"LSW_PORT\": {\"Ethernet9\": {\"devargs\": \"net_null9\"}}}", "$.LSW_PORT.Ethernet9",
	 "no PORT"},
	{"{\"LSW_PORT\": {\"Ethernet0\": {\"devargs\": null}}}", "$.LSW_PORT.Ethernet0.devargs",
	 "required"},
	{"{\"LSW_PORT\": {\"Ethernet0\": {\"devargs\": \"tap0\"}}}",
	 "$.LSW_PORT.Ethernet0.devargs", "vdev"},
	{"{\"LSW_PORT\": {\"Ethernet4\": {\"devargs\": \"net_null0\"}}}", "$.LSW_PORT.Ethernet4",
	 "already used"},
	{"{\"LSW_PORT\": {\"Ethernet0\": {\"mac\": \"01:00:00:00:00:01\"}}}",
	 "$.LSW_PORT.Ethernet0.mac", "unicast"},
	{"{\"LSW_PORT\": {\"Ethernet0\": {\"mac\": \"02:00:00:00:00\"}}}",
	 "$.LSW_PORT.Ethernet0.mac", "MAC"},
	{"{\"LSW_PORT\": {\"Ethernet0\": {\"lcore\": 0}}}", "$.LSW_PORT.Ethernet0.lcore",
	 "not in LSW.global.workers"},
	{"{\"LSW_PORT\": {\"Ethernet0\": {\"pci\": \"x\"}}}", "$.LSW_PORT.Ethernet0.pci",
	 "unknown"},
	{"{\"LSW_PORT\": {\"Ethernet0\": {\"shaper_catchup_us\": 100001}}}",
	 "$.LSW_PORT.Ethernet0.shaper_catchup_us", "range"},
	{"{\"LSW\": {\"global\": {\"workers\": [0]}}}", "$.LSW.global.workers", "main lcore"},
	{"{\"LSW\": {\"global\": {\"workers\": []}}}", "$.LSW.global.workers", "array"},
	{"{\"LSW\": {\"global\": {\"workers\": [1, 1]}}}", "$.LSW.global.workers[1]", "twice"},
	{"{\"LSW\": {\"global\": {\"workers\": [64]}}}", "$.LSW.global.workers[0]",
	 "does not exist"},
	{"{\"LSW\": {\"global\": {\"workers\": [\"3@64\"]}}}", "$.LSW.global.workers[0]",
	 "CPU 64 does not exist"},
	{"{\"LSW\": {\"global\": {\"workers\": [\"3@\"]}}}", "$.LSW.global.workers[0]",
	 "LCORE@CPU"},
	{"{\"LSW\": {\"global\": {\"workers\": [\"3@1x\"]}}}", "$.LSW.global.workers[0]",
	 "LCORE@CPU"},
	{"{\"LSW\": {\"global\": {\"workers\": [\"5000@1\"]}}}", "$.LSW.global.workers[0]",
	 "range"},
	{"{\"LSW\": {\"global\": {\"workers\": [1, \"1@1\"]}}}", "$.LSW.global.workers[1]",
	 "twice"},
	{"{\"LSW\": {\"global\": {\"workers\": [\"0@1\"]}}}", "$.LSW.global.workers",
	 "main lcore"},
	{"{\"LSW_PORT\": {\"Ethernet0\": {\"lcore\": 7}}}", "$.LSW_PORT.Ethernet0.lcore",
	 "not in LSW.global.workers"},
	{"{\"LSW\": {\"global\": {\"main_lcore\": 5000}}}", "$.LSW.global.main_lcore", "range"},
	{"{\"LSW\": {\"global\": {\"mbufs\": 2000}}}", "$.LSW.global.mbufs", "too few"},
	{"{\"LSW\": {\"global\": {\"log_level\": \"loud\"}}}", "$.LSW.global.log_level",
	 "one of"},
	{"{\"LSW\": {\"global\": {\"idle_sleep_us\": \"x\"}}}", "$.LSW.global.idle_sleep_us",
	 "integer"},
	{"{\"LSW\": {\"global\": {\"rpc_socket\": 5}}}", "$.LSW.global.rpc_socket", "string"},
	{"{\"LSW\": {\"global\": {\"turbo\": true}}}", "$.LSW.global.turbo", "unknown"},
	{"{\"LSW\": {\"buffers\": {}}}", "$.LSW.buffers", "unknown"},
	{"{\"DEVICE_METADATA\": {\"localhost\": {\"bgp_asn\": \"65000\"}}}",
	 "$.DEVICE_METADATA.localhost.bgp_asn", "unknown"},
	{"{\"INTERFACE\": {\"Ethernet9|10.9.0.1/24\": {}}}", "$.INTERFACE['Ethernet9|10.9.0.1/24']",
	 "no port"},
	{"{\"INTERFACE\": {\"Ethernet0|10.9.0.1/33\": {}}}", "$.INTERFACE['Ethernet0|10.9.0.1/33']",
	 "prefix"},
	{"{\"INTERFACE\": {\"Ethernet0|2001:db8::/64\": {}}}",
	 "$.INTERFACE['Ethernet0|2001:db8::/64']", "subnet-router anycast"},
	{"{\"INTERFACE\": {\"Ethernet0|10.9.0.0/24\": {}}}", "$.INTERFACE['Ethernet0|10.9.0.0/24']",
	 "network or broadcast"},
	{"{\"INTERFACE\": {\"Ethernet0|10.9.0.255/24\": {}}}",
	 "$.INTERFACE['Ethernet0|10.9.0.255/24']", "network or broadcast"},
	{"{\"INTERFACE\": {\"Ethernet0|10.0.1.9/16\": {}}}", "$.INTERFACE['Ethernet0|10.0.1.9/16']",
	 "overlaps"},
	{"{\"INTERFACE\": {\"Ethernet0|224.0.0.1/24\": {}}}",
	 "$.INTERFACE['Ethernet0|224.0.0.1/24']", "unicast"},
	{"{\"INTERFACE\": {\"Ethernet0|10.9.0.1/24\": {\"vrf_name\": \"red\"}}}",
	 "$.INTERFACE['Ethernet0|10.9.0.1/24'].vrf_name", "unknown"},
	{"{\"INTERFACE\": {\"Ethernet0|10.9.1.1/24\": {}, \"Ethernet0|10.9.2.1/24\": {},"
	 " \"Ethernet0|10.9.3.1/24\": {}, \"Ethernet0|10.9.4.1/24\": {}}}",
	 "$.INTERFACE['Ethernet0|10.9.4.1/24']", "more than"},
	{"{\"STATIC_ROUTE\": {\"10.1.0.1/16\": {\"nexthop\": \"10.0.0.1\"}}}",
	 "$.STATIC_ROUTE['10.1.0.1/16']", "host bits"},
	{"{\"STATIC_ROUTE\": {\"red|10.5.0.0/16\": {\"nexthop\": \"10.0.0.1\"}}}",
	 "$.STATIC_ROUTE['red|10.5.0.0/16']", "VRF"},
	{"{\"STATIC_ROUTE\": {\"10.5.0.0/16\": {\"nexthop\": \"10.7.0.1\"}}}",
	 "$.STATIC_ROUTE['10.5.0.0/16'].nexthop", "not on any connected subnet"},
	{"{\"STATIC_ROUTE\": {\"10.5.0.0/16\": {\"nexthop\": \"10.0.0.0\"}}}",
	 "$.STATIC_ROUTE['10.5.0.0/16'].nexthop", "own address"},
	{"{\"STATIC_ROUTE\": {\"10.5.0.0/16\": {\"nexthop\": \"10.0.0.1\", \"ifname\":"
	 " \"Ethernet4\"}}}", "$.STATIC_ROUTE['10.5.0.0/16'].nexthop", "not on a subnet of"},
	{"{\"STATIC_ROUTE\": {\"10.5.0.0/16\": {\"nexthop\": \"10.0.0.1,10.0.1.1\", \"ifname\":"
	 " \"Ethernet0\"}}}", "$.STATIC_ROUTE['10.5.0.0/16'].ifname", "2 next hops"},
	{"{\"STATIC_ROUTE\": {\"10.5.0.0/16\": {\"nexthop\": \"10.0.0.1\", \"ifname\":"
	 " \"Ethernet7\"}}}", "$.STATIC_ROUTE['10.5.0.0/16'].ifname", "no port"},
	{"{\"STATIC_ROUTE\": {\"10.5.0.0/16\": {\"nexthop\": \"10.0.1.1,10.0.1.1\"}}}",
	 "$.STATIC_ROUTE['10.5.0.0/16'].nexthop", "twice"},
	{"{\"STATIC_ROUTE\": {\"10.5.0.0/16\": {\"nexthop\": \"10.0.1.x\"}}}",
	 "$.STATIC_ROUTE['10.5.0.0/16'].nexthop", "not an IPv4"},
	{"{\"STATIC_ROUTE\": {\"10.5.0.0/16\": {}}}", "$.STATIC_ROUTE['10.5.0.0/16'].nexthop",
	 "required"},
	{"{\"STATIC_ROUTE\": {\"10.5.0.0/16\": {\"blackhole\": \"true\", \"nexthop\":"
	 " \"10.0.0.1\"}}}", "$.STATIC_ROUTE['10.5.0.0/16'].nexthop", "blackhole"},
	{"{\"STATIC_ROUTE\": {\"10.5.0.0/16\": {\"blackhole\": \"yes\"}}}",
	 "$.STATIC_ROUTE['10.5.0.0/16'].blackhole", "true or false"},
	{"{\"STATIC_ROUTE\": {\"10.5.0.0/16\": {\"nexthop\": \"10.0.0.1\", \"distance\": \"1\"}}}",
	 "$.STATIC_ROUTE['10.5.0.0/16'].distance", "unknown"},
	{"{\"STATIC_ROUTE\": {\"default|10.1.0.0/16\": {\"nexthop\": \"10.0.0.1\"}}}",
	 "$.STATIC_ROUTE['default|10.1.0.0/16']", "twice"},
	{"{\"STATIC_ROUTE\": {\"10.0.1.0/24\": {\"nexthop\": \"10.0.0.1\"}}}",
	 "$.STATIC_ROUTE['10.0.1.0/24']", "connected"},
	{"{\"STATIC_ROUTE\": {\"10.5.0.0/16\": {\"nexthop\": \"10.0.1.1,10.0.1.2,10.0.1.3,"
	 "10.0.1.4,10.0.1.5,10.0.1.6,10.0.1.7,10.0.1.8,10.0.1.9,10.0.1.10,10.0.1.11,10.0.1.12,"
	 "10.0.1.13,10.0.1.14,10.0.1.15,10.0.1.16,10.0.1.17\"}}}",
	 "$.STATIC_ROUTE['10.5.0.0/16'].nexthop", "more than 16"},
	{"{\"NEIGH\": {\"Ethernet4|10.0.1.8\": {\"neigh\": \"ff:ff:ff:ff:ff:ff\"}}}",
	 "$.NEIGH['Ethernet4|10.0.1.8'].neigh", "unicast"},
	{"{\"NEIGH\": {\"Ethernet4|10.0.1.8\": {}}}", "$.NEIGH['Ethernet4|10.0.1.8'].neigh",
	 "required"},
	{"{\"NEIGH\": {\"Ethernet4|10.0.0.1\": {\"neigh\": \"02:00:00:00:00:07\"}}}",
	 "$.NEIGH['Ethernet4|10.0.0.1']", "not on a subnet"},
	{"{\"NEIGH\": {\"Ethernet4|10.0.1.254\": {\"neigh\": \"02:00:00:00:00:07\"}}}",
	 "$.NEIGH['Ethernet4|10.0.1.254']", "own address"},
	{"{\"NEIGH\": {\"10.0.1.9\": {\"neigh\": \"02:00:00:00:00:07\"}}}",
	 "$.NEIGH['10.0.1.9']", "PORT|"},
	{"{\"NEIGH\": {\"Ethernet4|10.0.1.9\": {\"neigh\": \"02:00:00:00:00:07\","
	 " \"family\": \"IPv6\"}}}", "$.NEIGH['Ethernet4|10.0.1.9'].family", "does not match"},
	{"{\"NEIGH\": [1]}", "$.NEIGH", "object"},
};

static void
test_bad_configs(void **state)
{
	(void)state;
	t_config_refused(base, bads, RTE_DIM(bads));
}

/* All errors are reported, not only the first. */
static void
test_many_errors(void **state)
{
	struct lsw_errs errs;

	(void)state;
	assert_null(load("{\"PORT\": {\"Ethernet0\": {\"mtu\": \"1\", \"speed\": \"0\","
			 " \"admin_status\": \"x\"}}, \"FOO\": 1}", &errs));
	assert_int_equal(errs.n, 4);
}

static void
test_file_errors(void **state)
{
	char path[] = "/tmp/lsw-test-config-XXXXXX";
	struct lsw_errs errs;
	int fd = mkstemp(path);

	(void)state;
	assert_true(fd >= 0);
	FILE *f = fdopen(fd, "w");
	fputs("{\n  \"PORT\": {\n    \"Ethernet0\": {},\n    \"Ethernet0\": {}\n  }\n}\n", f);
	fclose(f);
	assert_null(lsw_config_load(path, &errs));
	assert_string_equal(errs.e[0].path, "$");
	assert_non_null(strstr(errs.e[0].msg, "duplicate"));
	assert_non_null(strstr(errs.e[0].msg, ":4:"));
	f = fopen(path, "w");
	fputs("{\"PORT\": {\n", f);
	fclose(f);
	assert_null(lsw_config_load(path, &errs));
	assert_string_equal(errs.e[0].path, "$");
	unlink(path);
	assert_null(lsw_config_load("/nonexistent/lsw.json", &errs));
	assert_non_null(strstr(errs.e[0].msg, "/nonexistent/lsw.json"));
}

/* Every lsw config in configs/ is valid (hosts-*.json are lsw-host's: its tests load them). */
static void
test_shipped_configs(void **state)
{
	const char *root = getenv("LSW_SOURCE_ROOT");
	char dir[512], path[1024];
	struct dirent *e;
	int n = 0;

	(void)state;
	snprintf(dir, sizeof(dir), "%s/configs", root ? root : ".");
	DIR *d = opendir(dir);
	assert_non_null(d);
	while ((e = readdir(d)) != NULL) {
		size_t l = strlen(e->d_name);
		if (l < 5 || strcmp(e->d_name + l - 5, ".json") != 0 ||
		    strncmp(e->d_name, "hosts-", 6) == 0)
			continue;
		struct lsw_errs errs;
		snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
		struct lsw_config *c = lsw_config_load(path, &errs);
		if (c == NULL)
			fail_msg("%s: %s: %s", path, errs.e[0].path, errs.e[0].msg);
		lsw_config_free(c);
		n++;
	}
	closedir(d);
	assert_true(n >= 2);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_base_and_defaults),
		cmocka_unit_test(test_bad_configs),
		cmocka_unit_test(test_many_errors),
		cmocka_unit_test(test_file_errors),
		cmocka_unit_test(test_shipped_configs),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
