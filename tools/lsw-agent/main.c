/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lsw-agent: the host side of lsw's fabric (README, "lsw-agent"). It attaches a BPF program
 * to a host interface (XDP on ingress, tc on egress) that counts RoCEv2 per flow and PFC per
 * priority, and compares what the host does with the switch it is wired to over lsw's
 * JSON-RPC: the config end to end, and the counters of both sides over the same time.
 *
 *   lsw-agent show  -i IFACE [-s SOCKET] [--seconds N] [--json | --prometheus] [host options]
 *   lsw-agent watch -i IFACE [-s SOCKET] [--interval S] [host options]
 *   lsw-agent check -i IFACE -s SOCKET [--seconds N] [host options]
 *
 * show counts for --seconds (or until SIGINT) and prints once; watch prints every
 * --interval until SIGINT; check looks once (or after --seconds of traffic) and exits 1 on
 * a mismatch between the host and the switch's config.
 * Host options: --host-ip, --host-mac (default: the interface's), --port (the switch port),
 * --dscp and --priority of its data, --cnp-dscp (default: what its traffic carries).
 * The programs are detached on every exit, SIGINT and SIGTERM included.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <getopt.h>
#include <net/if.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <linux/if_link.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "agent_user.h"
#include "agent.skel.h"

static volatile sig_atomic_t stop;

static void
on_signal(int sig)
{
	stop = sig;
}

struct attached {
	struct agent *skel;
	int ifindex;
	bool xdp, tc, hook_created;
	struct bpf_tc_hook hook;
};

static void
detach(struct attached *a)
{
	if (a->xdp)
		bpf_xdp_detach(a->ifindex, XDP_FLAGS_SKB_MODE, NULL);
	if (a->tc) {
		struct bpf_tc_opts o = {.sz = sizeof(o), .handle = 1, .priority = 1};
		bpf_tc_detach(&a->hook, &o);
	}
	if (a->hook_created)
		bpf_tc_hook_destroy(&a->hook);
	agent__destroy(a->skel);
	a->xdp = a->tc = a->hook_created = false;
	a->skel = NULL;
}

static int
attach(struct attached *a, const char *iface)
{
	memset(a, 0, sizeof(*a));
	a->ifindex = (int)if_nametoindex(iface);
	if (a->ifindex == 0) {
		fprintf(stderr, "lsw-agent: %s: no such interface\n", iface);
		return -1;
	}
	libbpf_set_print(NULL); /* errors are ours to explain */
	a->skel = agent__open_and_load();
	if (a->skel == NULL) {
		fprintf(stderr, "lsw-agent: cannot load the BPF program (%s)%s\n", strerror(errno),
			errno == EPERM ? ": run as root (CAP_BPF and CAP_NET_ADMIN)" : "");
		return -1;
	}
	/* Generic XDP: any interface, veth and tap included; another program stays put. */
	int rc = bpf_xdp_attach(a->ifindex, bpf_program__fd(a->skel->progs.agent_xdp),
				XDP_FLAGS_SKB_MODE | XDP_FLAGS_UPDATE_IF_NOEXIST, NULL);
	if (rc != 0) {
		fprintf(stderr, "lsw-agent: %s: cannot attach XDP (%s)%s\n", iface, strerror(-rc),
			rc == -EBUSY || rc == -EEXIST ? ": another XDP program is attached" : "");
		detach(a);
		return -1;
	}
	a->xdp = true;
	a->hook = (struct bpf_tc_hook){.sz = sizeof(a->hook), .ifindex = a->ifindex,
				       .attach_point = BPF_TC_EGRESS};
	rc = bpf_tc_hook_create(&a->hook);
	if (rc == 0)
		a->hook_created = true; /* a clsact that was there before stays */
	else if (rc != -EEXIST) {
		fprintf(stderr, "lsw-agent: %s: cannot add a clsact qdisc (%s)\n", iface,
			strerror(-rc));
		detach(a);
		return -1;
	}
	struct bpf_tc_opts o = {.sz = sizeof(o), .handle = 1, .priority = 1,
				.prog_fd = bpf_program__fd(a->skel->progs.agent_tc)};
	rc = bpf_tc_attach(&a->hook, &o);
	if (rc != 0) {
		fprintf(stderr, "lsw-agent: %s: cannot attach to tc egress (%s)\n", iface,
			strerror(-rc));
		detach(a);
		return -1;
	}
	a->tc = true;
	return 0;
}

/* Every flow and priority, summed over the CPUs. */
static int
read_view(struct attached *a, struct agent_view *v)
{
	int ncpu = libbpf_num_possible_cpus();
	struct agent_flow_ctr *pc = calloc((size_t)ncpu, sizeof(*pc));
	struct agent_pfc_ctr *pp = calloc((size_t)ncpu, sizeof(*pp));
	int fd = bpf_map__fd(a->skel->maps.flows);
	struct agent_flow_key k, next;
	void *prev = NULL;

	if (pc == NULL || pp == NULL) {
		free(pc);
		free(pp);
		return -1;
	}
	v->n_flows = 0;
	while (bpf_map_get_next_key(fd, prev, &next) == 0) {
		k = next;
		prev = &k;
		if (bpf_map_lookup_elem(fd, &k, pc) != 0)
			continue;
		struct agent_flow *f = realloc(v->flows, (v->n_flows + 1) * sizeof(*f));
		if (f == NULL)
			break;
		v->flows = f;
		f = &v->flows[v->n_flows++];
		memset(f, 0, sizeof(*f));
		f->k = k;
		for (int c = 0; c < ncpu; c++) {
			const struct agent_flow_ctr *x = &pc[c];
			f->c.packets += x->packets;
			f->c.bytes += x->bytes;
			f->c.data += x->data;
			f->c.ce += x->ce;
			f->c.cnp += x->cnp;
			f->c.ack += x->ack;
			f->c.nak_seq += x->nak_seq;
			f->c.nak_other += x->nak_other;
			f->c.out_of_sequence += x->out_of_sequence;
			f->c.duplicate += x->duplicate;
			f->c.dscp_seen |= x->dscp_seen;
			f->c.pcp_seen |= x->pcp_seen;
		}
	}
	int pfd = bpf_map__fd(a->skel->maps.pfc);
	for (__u32 i = 0; i < 18; i++) {
		struct agent_pfc_ctr *t = &v->pfc[i / 9][i % 9];
		memset(t, 0, sizeof(*t));
		if (bpf_map_lookup_elem(pfd, &i, pp) != 0)
			continue;
		for (int c = 0; c < ncpu; c++) {
			t->frames += pp[c].frames;
			t->quanta += pp[c].quanta;
			t->xon += pp[c].xon;
		}
	}
	free(pc);
	free(pp);
	return 0;
}

static json_t *
view_json(const struct agent_view *v)
{
	json_t *flows = json_array(), *pfc = json_object();

	for (unsigned int i = 0; i < v->n_flows; i++) {
		const struct agent_flow *f = &v->flows[i];
		char sip[INET_ADDRSTRLEN], dip[INET_ADDRSTRLEN];
		json_t *dscp = json_array(), *pcp = json_array();
		inet_ntop(AF_INET, &f->k.sip, sip, sizeof(sip));
		inet_ntop(AF_INET, &f->k.dip, dip, sizeof(dip));
		for (int d = 0; d < 64; d++)
			if (f->c.dscp_seen >> d & 1)
				json_array_append_new(dscp, json_integer(d));
		for (int p = 0; p < 9; p++)
			if (f->c.pcp_seen >> p & 1)
				json_array_append_new(pcp, p == 8 ? json_string("untagged") :
							   json_integer(p));
		json_array_append_new(flows, json_pack(
			"{s:s, s:s, s:s, s:I, s:s, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, "
			"s:I, s:o, s:o}",
			"dir", f->k.dir == AGENT_RX ? "rx" : "tx", "src", sip, "dst", dip,
			"qpn", (json_int_t)f->k.dqpn, "source", "bpf",
			"packets", (json_int_t)f->c.packets, "bytes", (json_int_t)f->c.bytes,
			"data", (json_int_t)f->c.data, "ce", (json_int_t)f->c.ce,
			"cnp", (json_int_t)f->c.cnp, "ack", (json_int_t)f->c.ack,
			"nak_seq", (json_int_t)f->c.nak_seq,
			"nak_other", (json_int_t)f->c.nak_other,
			"out_of_sequence", (json_int_t)f->c.out_of_sequence,
			"duplicate", (json_int_t)f->c.duplicate, "dscp", dscp, "priority", pcp));
	}
	for (int d = 0; d < 2; d++) {
		json_t *o = json_object();
		for (int p = 0; p < 9; p++) {
			const struct agent_pfc_ctr *c = &v->pfc[d][p];
			if (c->frames == 0)
				continue;
			json_object_set_new(o, p == 8 ? "pause" : (char[2]){(char)('0' + p), 0},
					    json_pack("{s:I, s:I, s:I}",
						      "frames", (json_int_t)c->frames,
						      "quanta", (json_int_t)c->quanta,
						      "xon", (json_int_t)c->xon));
		}
		json_object_set_new(pfc, d == AGENT_RX ? "rx" : "tx", o);
	}
	return json_pack("{s:s, s:f, s:s, s:o, s:o, s:O}", "interface", v->iface, "seconds",
			 v->seconds, "source", "bpf (XDP ingress, tc egress)", "flows", flows,
			 "pfc", pfc, "nic", v->nic);
}

static void
print_table(json_t *doc)
{
	json_t *flows = json_object_get(doc, "flows"), *f;
	size_t i;

	printf("%s: %.1f s counted by BPF on the interface\n",
	       json_string_value(json_object_get(doc, "interface")),
	       json_real_value(json_object_get(doc, "seconds")));
	printf("%-3s %-15s %-15s %8s %10s %8s %6s %6s %6s %6s %6s %6s\n", "DIR", "SRC", "DST",
	       "QPN", "PACKETS", "DATA", "CE", "CNP", "ACK", "NAK", "OOS", "DUP");
	json_array_foreach(flows, i, f)
		printf("%-3s %-15s %-15s %8lld %10lld %8lld %6lld %6lld %6lld %6lld %6lld %6lld\n",
		       json_string_value(json_object_get(f, "dir")),
		       json_string_value(json_object_get(f, "src")),
		       json_string_value(json_object_get(f, "dst")),
		       json_integer_value(json_object_get(f, "qpn")),
		       json_integer_value(json_object_get(f, "packets")),
		       json_integer_value(json_object_get(f, "data")),
		       json_integer_value(json_object_get(f, "ce")),
		       json_integer_value(json_object_get(f, "cnp")),
		       json_integer_value(json_object_get(f, "ack")),
		       json_integer_value(json_object_get(f, "nak_seq")) +
			       json_integer_value(json_object_get(f, "nak_other")),
		       json_integer_value(json_object_get(f, "out_of_sequence")),
		       json_integer_value(json_object_get(f, "duplicate")));
	json_t *pfc = json_object_get(doc, "pfc");
	for (int d = 0; d < 2; d++) {
		const char *k;
		json_t *c;
		json_object_foreach(json_object_get(pfc, d ? "tx" : "rx"), k, c)
			printf("PFC %s priority %s: %lld frames (%lld XON), %lld quanta\n",
			       d ? "sent" : "received", k,
			       json_integer_value(json_object_get(c, "frames")),
			       json_integer_value(json_object_get(c, "xon")),
			       json_integer_value(json_object_get(c, "quanta")));
	}
	json_t *sw = json_object_get(doc, "switch");
	if (sw == NULL)
		return;
	printf("switch port %s\n", json_string_value(json_object_get(sw, "port")));
	json_array_foreach(json_object_get(sw, "checks"), i, f) {
		const char *path = json_string_value(json_object_get(f, "path"));
		printf("  %-4s %-16s %s%s%s%s\n",
		       json_is_true(json_object_get(f, "ok")) ? "ok" : "BAD",
		       json_string_value(json_object_get(f, "name")),
		       json_string_value(json_object_get(f, "message")),
		       *path ? "  [" : "", path, *path ? "]" : "");
	}
	const char *k;
	json_t *q;
	json_object_foreach(json_object_get(sw, "qps"), k, q) {
		printf("  QP %s: host rx CE %lld, CNP rx %lld tx %lld, NAK %lld, out-of-sequence "
		       "%lld; switch drops:", k,
		       json_integer_value(json_object_get(q, "host_rx_ce")),
		       json_integer_value(json_object_get(q, "host_rx_cnp")),
		       json_integer_value(json_object_get(q, "host_tx_cnp")),
		       json_integer_value(json_object_get(q, "host_nak")),
		       json_integer_value(json_object_get(q, "host_out_of_sequence")));
		const char *r;
		json_t *n;
		json_object_foreach(json_object_get(q, "switch_drops"), r, n)
			printf(" %s %lld", r, json_integer_value(n));
		printf("\n");
	}
	json_object_foreach(json_object_get(sw, "pfc"), k, q)
		if (json_integer_value(json_object_get(q, "switch_tx")) ||
		    json_integer_value(json_object_get(q, "host_rx")) ||
		    json_integer_value(json_object_get(q, "switch_rx")) ||
		    json_integer_value(json_object_get(q, "host_tx")))
			printf("  PFC priority %s: switch sent %lld, host saw %lld; "
			       "host sent %lld, switch saw %lld\n", k,
			       json_integer_value(json_object_get(q, "switch_tx")),
			       json_integer_value(json_object_get(q, "host_rx")),
			       json_integer_value(json_object_get(q, "host_tx")),
			       json_integer_value(json_object_get(q, "switch_rx")));
}

/* Prometheus text format 0.0.4. */
static void
print_prometheus(json_t *doc)
{
	static const char *const fields[] = {"packets", "bytes", "data", "ce", "cnp", "ack",
					     "nak_seq", "nak_other", "out_of_sequence",
					     "duplicate", NULL};
	const char *iface = json_string_value(json_object_get(doc, "interface"));
	json_t *f;
	size_t i;

	for (int n = 0; fields[n]; n++) {
		printf("# TYPE lsw_agent_roce_%s_total counter\n", fields[n]);
		json_array_foreach(json_object_get(doc, "flows"), i, f)
			printf("lsw_agent_roce_%s_total{interface=\"%s\",dir=\"%s\",src=\"%s\","
			       "dst=\"%s\",qpn=\"%lld\"} %lld\n", fields[n], iface,
			       json_string_value(json_object_get(f, "dir")),
			       json_string_value(json_object_get(f, "src")),
			       json_string_value(json_object_get(f, "dst")),
			       json_integer_value(json_object_get(f, "qpn")),
			       json_integer_value(json_object_get(f, fields[n])));
	}
	printf("# TYPE lsw_agent_pfc_frames_total counter\n");
	for (int d = 0; d < 2; d++) {
		const char *k;
		json_t *c;
		json_object_foreach(json_object_get(json_object_get(doc, "pfc"), d ? "tx" : "rx"),
				    k, c)
			printf("lsw_agent_pfc_frames_total{interface=\"%s\",dir=\"%s\","
			       "priority=\"%s\"} %lld\n", iface, d ? "tx" : "rx", k,
			       json_integer_value(json_object_get(c, "frames")));
	}
	json_t *sw = json_object_get(doc, "switch");
	if (sw != NULL) {
		printf("# TYPE lsw_agent_check_ok gauge\n");
		json_array_foreach(json_object_get(sw, "checks"), i, f)
			printf("lsw_agent_check_ok{interface=\"%s\",port=\"%s\",check=\"%s\"} %d\n",
			       iface, json_string_value(json_object_get(sw, "port")),
			       json_string_value(json_object_get(f, "name")),
			       json_is_true(json_object_get(f, "ok")));
	}
}

/* The options, as lsw-agent(8) documents them; --help prints them, a mistake the usage. */
static void
usage(int status)
{
	FILE *f = status ? stderr : stdout;

	fprintf(f, "usage: lsw-agent show|watch|check -i IFACE [-s SOCKET|tcp:HOST:PORT] "
		"[--seconds N] [--interval S] [--json|--prometheus] [--host-ip IP] "
		"[--host-mac MAC] [--port PORT] [--dscp D] [--priority P] [--cnp-dscp D]\n");
	if (status == 0)
		fprintf(f, "\nA host's RoCEv2 and PFC counters (BPF) against its lsw switch port "
			"(lsw-agent(8)).\n\n"
			"  show               count until --seconds have passed or Ctrl-C, then "
			"print\n"
			"  watch              print every --interval seconds\n"
			"  check              check the host against its switch port's config; "
			"exit 1 on a mismatch\n"
			"  -i, --interface IFACE   the host's interface\n"
			"  -s, --socket SOCKET     lsw's JSON-RPC socket, or tcp:HOST:PORT\n"
			"  --seconds N             how long show counts\n"
			"  --interval S            watch's refresh, in seconds (default 1)\n"
			"  --json, --prometheus    a JSON document, or Prometheus text, not a "
			"table\n"
			"  --host-ip IP            the host's address (default: the interface's)\n"
			"  --host-mac MAC          the host's MAC (default: the interface's)\n"
			"  --port PORT             the host's switch port, when the switch has not "
			"seen the host yet\n"
			"  --dscp D                the DSCP of the host's RoCE data (default: what "
			"its traffic carries)\n"
			"  --priority P            its PFC priority (default: the same)\n"
			"  --cnp-dscp D            its CNPs' DSCP (default: the same)\n"
			"  -h, --help              this text\n");
	exit(status);
}

static double
now_s(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* The interface's MAC and MTU: the host's, unless told otherwise. */
static void
iface_info(const char *iface, struct agent_host *h)
{
	struct ifreq ifr = {0};
	int fd = socket(AF_INET, SOCK_DGRAM, 0);

	if (fd < 0)
		return;
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", iface);
	if (h->mac[0] == '\0' && ioctl(fd, SIOCGIFHWADDR, &ifr) == 0) {
		const unsigned char *m = (const unsigned char *)ifr.ifr_hwaddr.sa_data;
		snprintf(h->mac, sizeof(h->mac), "%02x:%02x:%02x:%02x:%02x:%02x", m[0], m[1], m[2],
			 m[3], m[4], m[5]);
	}
	if (ioctl(fd, SIOCGIFMTU, &ifr) == 0)
		h->mtu = (unsigned int)ifr.ifr_mtu;
	close(fd);
}

static int
parse_int(const char *opt, const char *s, int max)
{
	char *end;
	long v = strtol(s, &end, 10);

	if (*s == '\0' || *end != '\0' || v < 0 || v > max) {
		fprintf(stderr, "lsw-agent: %s %s: expected 0 to %d\n", opt, s, max);
		exit(2);
	}
	return (int)v;
}

int
main(int argc, char **argv)
{
	static const struct option opts[] = {
		{"interface", required_argument, NULL, 'i'},
		{"socket", required_argument, NULL, 's'},
		{"seconds", required_argument, NULL, 'n'},
		{"interval", required_argument, NULL, 't'},
		{"json", no_argument, NULL, 'j'}, {"prometheus", no_argument, NULL, 'P'},
		{"host-ip", required_argument, NULL, 'a'},
		{"host-mac", required_argument, NULL, 'm'},
		{"port", required_argument, NULL, 'p'}, {"dscp", required_argument, NULL, 'd'},
		{"priority", required_argument, NULL, 'r'},
		{"cnp-dscp", required_argument, NULL, 'c'}, {"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0}};
	struct agent_host host = {.dscp = -1, .prio = -1, .cnp_dscp = -1};
	const char *iface = NULL, *sock = NULL;
	double seconds = 0, interval = 1;
	bool json = false, prom = false;
	int c;

	if (argc < 2)
		usage(2);
	if (strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "--help") == 0)
		usage(0);
	const char *cmd = argv[1];
	if (strcmp(cmd, "show") && strcmp(cmd, "watch") && strcmp(cmd, "check"))
		usage(2);
	optind = 2;
	while ((c = getopt_long(argc, argv, "i:s:h", opts, NULL)) != -1) {
		switch (c) {
		case 'i': iface = optarg; break;
		case 's': sock = optarg; break;
		case 'n': seconds = parse_int("--seconds", optarg, 86400); break;
		case 't': interval = parse_int("--interval", optarg, 3600); break;
		case 'j': json = true; break;
		case 'P': prom = true; break;
		case 'a':
			if (inet_pton(AF_INET, optarg, &host.ip) != 1) {
				fprintf(stderr, "lsw-agent: --host-ip %s: not an IPv4 address\n",
					optarg);
				return 2;
			}
			break;
		case 'm': snprintf(host.mac, sizeof(host.mac), "%s", optarg); break;
		case 'p': snprintf(host.port, sizeof(host.port), "%s", optarg); break;
		case 'd': host.dscp = parse_int("--dscp", optarg, 63); break;
		case 'r': host.prio = parse_int("--priority", optarg, 7); break;
		case 'c': host.cnp_dscp = parse_int("--cnp-dscp", optarg, 63); break;
		case 'h': usage(0); break;
		default: usage(2);
		}
	}
	if (iface == NULL || optind != argc || (json && prom))
		usage(2);
	if (strcmp(cmd, "check") == 0 && sock == NULL) {
		fprintf(stderr, "lsw-agent: check needs the switch: -s SOCKET\n");
		return 2;
	}
	iface_info(iface, &host);

	struct agent_rpc rpc = {.fd = -1};
	char err[512];
	json_t *before = NULL;
	if (sock != NULL) {
		if (agent_rpc_open(&rpc, sock, err, sizeof(err)) != 0 ||
		    (before = agent_switch_before(&rpc, &host, err, sizeof(err))) == NULL) {
			fprintf(stderr, "lsw-agent: %s\n", err);
			agent_rpc_close(&rpc);
			return 1;
		}
	}
	struct attached att;
	if (attach(&att, iface) != 0) {
		json_decref(before);
		agent_rpc_close(&rpc);
		return 1;
	}
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	/* Printed at once, so that a script knows the counting has begun. */
	fprintf(stderr, "lsw-agent: counting on %s%s%s\n", iface, host.port[0] ? ", switch port " :
		"", host.port);
	int rc = 0;
	double t0 = now_s(), next = t0 + interval;
	struct agent_view v = {0};
	snprintf(v.iface, sizeof(v.iface), "%s", iface);
	for (;;) {
		/* check with no --seconds looks once, at what it was told (--dscp ...). */
		bool last = stop || (seconds > 0 && now_s() - t0 >= seconds) ||
			    (strcmp(cmd, "check") == 0 && seconds == 0);
		bool tick = strcmp(cmd, "watch") == 0 && now_s() >= next;
		if (last || tick) {
			read_view(&att, &v);
			v.seconds = now_s() - t0;
			v.nic = agent_nic_counters(iface);
			json_t *doc = view_json(&v);
			if (sock != NULL) {
				json_t *sw = agent_compare(&rpc, &host, &v, before, err,
							   sizeof(err));
				if (sw == NULL) {
					fprintf(stderr, "lsw-agent: %s\n", err);
					rc = 1;
				} else {
					size_t i;
					json_t *ck;
					json_array_foreach(json_object_get(sw, "checks"), i, ck)
						if (!json_is_true(json_object_get(ck, "ok")) &&
						    strcmp(cmd, "check") == 0)
							rc = 1;
					json_object_set_new(doc, "switch", sw);
				}
			}
			if (strcmp(cmd, "watch") == 0 && isatty(STDOUT_FILENO))
				printf("\033[H\033[2J");
			if (json)
				json_dumpf(doc, stdout, JSON_INDENT(1)), printf("\n");
			else if (prom)
				print_prometheus(doc);
			else
				print_table(doc);
			fflush(stdout);
			json_decref(doc);
			json_decref(v.nic);
			next += interval;
		}
		if (last)
			break;
		usleep(50000);
	}
	detach(&att);
	free(v.flows);
	json_decref(before);
	agent_rpc_close(&rpc);
	return rc;
}
