/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The validated configuration. The file is JSON in the shape of SONiC's CONFIG_DB (PORT,
 * INTERFACE, STATIC_ROUTE, NEIGH, DEVICE_METADATA) plus lsw's own tables (LSW, LSW_PORT).
 * See README.md "Configuration" for every table and field. Control plane only: the workers
 * see the snapshot built from it (control/snapshot.c).
 */
#ifndef LSW_CONFIG_H
#define LSW_CONFIG_H

#include <stdint.h>
#include <stdbool.h>
#include <jansson.h>
#include <rte_ether.h>
#include "lsw/common.h"
#include "lsw/ecmp.h"
#include "lsw/ip6.h"
#include "jsonv.h" /* control/json: struct lsw_errs */
#include "qos.h"

/* ECMP settings of one next-hop group (ECMP.GLOBAL, overridden by ECMP|<prefix>). */
struct lsw_ecmp_grp_conf {
	uint32_t prefix;              /* ECMP|<prefix> entries only: an IPv4 prefix, */
	uint8_t prefix6[16];          /* or an IPv6 one (@v6) */
	bool v6;
	uint8_t plen;
	uint8_t mode;                 /* enum lsw_ecmp_mode */
	uint8_t fields;               /* enum lsw_hash_field bits */
	bool rebalance;               /* reactive moves of flows that never pause */
	uint8_t margin;               /* quality levels the best must be better by */
	uint32_t seed;
	uint32_t inactivity_us;       /* flowlet gap */
	uint32_t rebalance_us;        /* at most one move per group per interval */
	uint32_t table_size;          /* flowlet entries per worker, a power of two */
};

/* The ECMP table as configured (control/config/config_ecmp.c). */
struct lsw_ecmp_conf {
	uint32_t sample_us;           /* quality sampling interval */
	uint8_t ewma_exp;
	uint8_t load_min, load_max;   /* percent of the port speed */
	uint64_t queue_min, queue_max; /* bytes for a 10 Gb/s port, scaled with the speed */
	uint8_t w_load, w_queue;      /* percent; they add up to 100 */
	struct lsw_ecmp_grp_conf dflt; /* ECMP.GLOBAL */
	uint32_t n_grp;
	struct lsw_ecmp_grp_conf *grp; /* ECMP|<prefix> */
};

struct lsw_addr {
	uint32_t ip;      /* host order */
	uint8_t plen;
};

struct lsw_addr6 {
	uint8_t ip[16];   /* network order */
	uint8_t plen;
};

struct lsw_port_conf {
	char name[LSW_NAME_LEN];           /* PORT key, e.g. Ethernet0 */
	char devargs[LSW_DEVARGS_LEN];     /* LSW_PORT.devargs */
	char alias[LSW_NAME_LEN];
	char description[128];
	struct rte_ether_addr mac;         /* LSW_PORT.mac, else DEVICE_METADATA mac */
	bool mac_set;                      /* else the device's own MAC */
	bool is_pci;                       /* devargs names a PCI address */
	bool admin_up;                     /* PORT.admin_status: lsw_admin_status_names */
	uint16_t mtu;
	uint32_t speed;                    /* Mb/s; 0 = as the device reports */
	int lcore;                         /* owner worker lcore; -1 = round-robin */
	uint16_t pfc_quanta;               /* LSW_PORT.pfc_quanta: time of our XOFF frames */
	bool rx_pause;                     /* LSW_PORT.rx_pause: honour 802.3x PAUSE */
	bool prio_tag;                     /* LSW_PORT.priority_tagging: VID 0, PCP from TC */
	uint32_t catchup_us;               /* LSW_PORT.shaper_catchup_us */
	uint8_t n_addr;
	struct lsw_addr addr[LSW_MAX_ADDRS];
	uint8_t n_addr6;                   /* INTERFACE IPv6 (the link-local one is implied) */
	struct lsw_addr6 addr6[LSW_MAX_ADDRS6];
};

struct lsw_route_conf {
	uint32_t prefix;
	uint8_t plen;
	bool blackhole;
	uint8_t n_nh;
	uint32_t nh_ip[LSW_MAX_ECMP];
	uint16_t nh_port[LSW_MAX_ECMP];    /* port index, from ifname or the connected subnet */
};

/* STATIC_ROUTE with an IPv6 prefix. A link-local next hop needs its ifname. */
struct lsw_route6_conf {
	uint8_t prefix[16];
	uint8_t plen;
	bool blackhole;
	uint8_t n_nh;
	uint8_t nh_ip[LSW_MAX_ECMP][16];
	uint16_t nh_port[LSW_MAX_ECMP];
};

struct lsw_neigh6_conf {
	uint16_t port;
	uint8_t ip[16];
	struct rte_ether_addr mac;
};

struct lsw_neigh_conf {
	uint16_t port;
	uint32_t ip;
	struct rte_ether_addr mac;
};

struct lsw_global_conf {
	unsigned int main_lcore;
	uint16_t n_workers;
	unsigned int workers[LSW_MAX_WORKERS];    /* their lcore ids */
	unsigned int worker_cpu[LSW_MAX_WORKERS]; /* the CPU each runs on ("LCORE@CPU") */
	uint32_t idle_sleep_us;
	bool direct;                       /* forwarding: "direct" skips MMU, queues, shaper */
	uint32_t mbufs;
	uint32_t memory_mb;                /* 0 = computed from mbufs and MTUs */
	uint16_t rx_desc, tx_desc;
	char file_prefix[64];              /* empty = lsw-<pid> */
	char rpc_socket[108];
	char log_level[16];                /* one of lsw_log_level_names */
	uint32_t ecmp_seed;
	uint8_t cnp_tc;                 /* TC of RoCEv2 CNPs; LSW_CNP_TC_DSCP: by the maps */
	uint32_t drop_snapshots;        /* drops (and marks) kept for drops.list; 0 = off */
	bool mark_snapshots;            /* ECN marks snapshotted too */
	uint32_t arp_retry_ms;
	uint32_t arp_tries;
	uint32_t icmp_rate;
	uint32_t icmp_burst;
	uint32_t rpc_timeout_ms;           /* a half-sent request is dropped after this */
	uint32_t rpc_max_request;          /* bytes */
	uint32_t rpc_max_conns;
	uint32_t rpc_idle_timeout_ms;      /* a connection silent this long is closed; 0 never */
	uint16_t rpc_tcp_port;             /* 0: no TCP listener */
	uint32_t rpc_tcp_addr;             /* host order; 127.0.0.1 unless configured */
};

struct lsw_config {
	struct lsw_global_conf g;
	char hostname[64];                 /* DEVICE_METADATA.localhost */
	struct rte_ether_addr sys_mac;     /* DEVICE_METADATA.localhost.mac: the ports' default */
	bool sys_mac_set;
	uint16_t n_ports;
	struct lsw_port_conf port[LSW_MAX_PORTS];
	uint32_t n_routes;
	struct lsw_route_conf *routes;
	uint32_t n_neighs;
	struct lsw_neigh_conf *neighs;
	uint32_t n_routes6;                /* STATIC_ROUTE entries with an IPv6 prefix */
	struct lsw_route6_conf *routes6;
	uint32_t n_neighs6;                /* NEIGH entries with an IPv6 address */
	struct lsw_neigh6_conf *neighs6;
	struct lsw_qos_conf qos;           /* buffers, maps, schedulers, ECN, PFC watchdog */
	struct lsw_ecmp_conf ecmp;         /* the ECMP table (config_ecmp.c) */
	json_t *doc;                       /* the document as loaded (a reference is held) */
};

/* PORT.admin_status, by value of lsw_port_conf.admin_up: {"down", "up"}. */
extern const char *const lsw_admin_status_names[];
/* LSW.global.log_level, from RTE_LOG_EMERG on. */
extern const char *const lsw_log_level_names[];

/* Validate @doc into a new config. NULL with @errs filled when it is refused. */
struct lsw_config *lsw_config_from_json(json_t *doc, struct lsw_errs *errs);
/* Load and validate a file; a JSON syntax error is reported as path "$" with line/column. */
struct lsw_config *lsw_config_load(const char *path, struct lsw_errs *errs);
void lsw_config_free(struct lsw_config *c);
/* The port with @ip on one of its subnets, or -1; @own: @ip is one of the switch's own
 * addresses. (Subnets of different ports never overlap.) */
int lsw_config_on_link_port(const struct lsw_config *c, uint32_t ip, bool *own);
/* The same for IPv6 (a link-local @ip is on no subnet: -1). */
int lsw_config_on_link_port6(const struct lsw_config *c, const uint8_t *ip, bool *own);
int lsw_config_port_index(const struct lsw_config *c, const char *name);
/* mbufs the PMD rings and the workers' bursts may hold: the rest is what queued packets can
 * hold (the MMU's packet limit), LSW_MIN_BUFFER_MBUFS at least. */
#define LSW_MIN_BUFFER_MBUFS 1024
uint32_t lsw_config_mbuf_reserve(const struct lsw_config *c);

/*
 * The tables, one file per feature, in the order lsw_config_from_json runs them (each may
 * use what the earlier ones settled):
 *   config.c         LSW.global, DEVICE_METADATA, the checks across tables
 *   config_port.c    PORT, LSW_PORT, INTERFACE
 *   config_route.c   STATIC_ROUTE, NEIGH
 *   config_ecmp.c    ECMP
 *   config_qos.c     the maps and PORT_QOS_MAP, and the order of what follows
 *   config_buffer.c  LSW.buffer, BUFFER_POOL, BUFFER_PROFILE, BUFFER_PG, BUFFER_QUEUE,
 *                    CABLE_LENGTH, LOSSLESS_TRAFFIC_PATTERN, DEFAULT_LOSSLESS_BUFFER_PARAMETER
 *   config_sched.c   SCHEDULER, QUEUE
 *   config_ecn.c     WRED_PROFILE
 *   config_pfcwd.c   PFC_WD
 *   config_trim.c    SWITCH_TRIMMING, ACL_TABLE, ACL_RULE (packet trimming)
 */
void lsw_config_global_defaults(struct lsw_global_conf *g);
void lsw_config_ports(json_t *doc, struct lsw_config *c, struct lsw_errs *errs);
void lsw_config_interfaces(json_t *t, struct lsw_config *c, struct lsw_errs *errs);
void lsw_config_routes(json_t *t, struct lsw_config *c, struct lsw_errs *errs);
void lsw_config_neighs(json_t *t, struct lsw_config *c, struct lsw_errs *errs);
void lsw_config_ecmp_defaults(struct lsw_ecmp_conf *e, uint32_t seed);
void lsw_config_ecmp(json_t *t, struct lsw_config *c, struct lsw_errs *errs);
/* The settings of the group for @prefix/@plen (@prefix6/@plen when @v6): its ECMP entry,
 * else ECMP.GLOBAL. */
const struct lsw_ecmp_grp_conf *lsw_ecmp_group_conf(const struct lsw_config *c, bool v6,
						    uint32_t prefix, const uint8_t *prefix6,
						    uint8_t plen);
/* The buffer and QoS tables, once the ports are known. */
void lsw_config_qos(json_t *doc, struct lsw_config *c, struct lsw_errs *errs);

/* Helpers of the config_*.c files. */
/* "PORT|rest": the port part into @port, @rest after the bar; false without a bar. */
bool lsw_config_split_key(const char *key, char *port, size_t plen, const char **rest);
/* "Ethernet0|3-4", "Ethernet0,Ethernet4|0": @ports[] set for the ports, the index range
 * into @lo..@hi (at most @max). False, with an error at @path, when refused. */
bool lsw_config_port_range(const struct lsw_config *c, const char *key, const char *path,
			   bool ports[], int *lo, int *hi, int max, struct lsw_errs *errs);
/* The index of the entry named @name among @n of @stride bytes at @arr (each starting with
 * its name), or -1. */
int lsw_config_find(const char *name, const void *arr, size_t n, size_t stride);
/* A reference to an entry of @table: "name", or "[TABLE|name]" as older SONiC wrote it. */
const char *lsw_config_ref_name(const char *s, const char *table, char *buf, size_t len);

#endif
