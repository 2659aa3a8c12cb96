/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Buffer and QoS configuration as parsed (control/config_*.c): pools, profiles, what each
 * (port, PG) and (port, queue) uses, classification maps, schedulers, ECN profiles, the PFC
 * watchdog. Control plane only: the workers see the snapshot built from it. Sizes are bytes.
 */
#ifndef LSW_QOS_H
#define LSW_QOS_H

#include <stddef.h>
#include <stdint.h>
#include <stdbool.h>
#include <jansson.h>
#include "lsw/common.h"
#include "lsw/trim.h"

struct lsw_config;
struct lsw_errs;

#define LSW_MAX_PROFILES 64
#define LSW_MAX_MAPS    16
#define LSW_MAX_SCHEDULERS 16
#define LSW_MAX_ECN    16
#define LSW_MAX_AI_SIZES 8
#define LSW_QOS_NAME_LEN 64
#define LSW_NONE        0xffff

enum lsw_pool_type { LSW_POOL_INGRESS, LSW_POOL_EGRESS };
extern const char *const lsw_pool_type_names[];   /* "ingress", "egress" */
enum lsw_th_mode { LSW_TH_DYNAMIC, LSW_TH_STATIC };
extern const char *const lsw_th_mode_names[];     /* "dynamic", "static" */

/* BUFFER_POOL.policy: "dt", "static", "complete_sharing", "partitioned", "abm", "hpcc_sim"
 * (enum lsw_pool_policy, include/lsw/buffer.h). */
extern const char *const lsw_pool_policy_names[];

struct lsw_pool_conf {
	char name[LSW_QOS_NAME_LEN];
	uint8_t type;          /* enum lsw_pool_type */
	uint8_t mode;          /* enum lsw_th_mode: which threshold its profiles carry */
	uint8_t policy;        /* enum lsw_pool_policy */
	uint64_t size;         /* bytes */
	uint64_t xoff;         /* shared headroom pool size; 0 = private headroom per PG */
};

struct lsw_profile_conf {
	char name[LSW_QOS_NAME_LEN];
	uint16_t pool;         /* index into pools */
	uint8_t mode;          /* enum lsw_th_mode */
	int8_t dynamic_th;     /* alpha = 2^dynamic_th; <= -8: no shared buffer */
	uint64_t static_th;    /* bytes of shared buffer (static mode) */
	uint64_t size;         /* SONiC's size: reserved bytes, headroom (xoff) included */
	uint64_t xoff;         /* headroom; > 0 makes the PG lossless */
	uint64_t xon;
	uint64_t xon_offset;
	bool computed;         /* made by lsw for a BUFFER_PG "NULL" (headroom formula) */
	uint8_t discard;       /* packet_discard_action: enum lsw_discard_action */
};

/* BUFFER_PROFILE.packet_discard_action (SONiC's packet trimming HLD): what becomes of a
 * packet a queue of the profile refuses. */
enum lsw_discard_action { LSW_DISCARD_DROP, LSW_DISCARD_TRIM };
extern const char *const lsw_discard_action_names[]; /* "drop", "trim" */

/* SWITCH_TRIMMING|GLOBAL, and the ACL tables and rules that exempt traffic from trimming
 * (control/config/config_trim.c; include/lsw/trim.h has what the workers get). */
#define LSW_TRIM_MAX_TABLES 8
struct lsw_trim_conf {
	bool set;              /* SWITCH_TRIMMING.GLOBAL given */
	uint32_t size;         /* frame bytes a trim keeps */
	bool from_tc;          /* dscp_value "from-tc" */
	uint8_t dscp;          /* dscp_value */
	uint8_t tc;            /* tc_value */
	uint8_t queue;         /* queue_index; LSW_TRIM_QUEUE_DYNAMIC: "dynamic" */
	uint16_t n_tables;
	struct {
		char name[LSW_QOS_NAME_LEN];
		uint32_t ports;   /* bit per port */
	} table[LSW_TRIM_MAX_TABLES];
	uint16_t n_rules;
	struct lsw_trim_rule rule[LSW_TRIM_MAX_RULES];
	char rule_name[LSW_TRIM_MAX_RULES][2 * LSW_QOS_NAME_LEN]; /* "TABLE|RULE" */
	uint16_t rule_table[LSW_TRIM_MAX_RULES];
};

enum lsw_sched_type { LSW_SCHED_DWRR, LSW_SCHED_STRICT };
/* "DWRR", "STRICT", and the SCHEDULER.type it also takes: "WRR", taken as DWRR. */
extern const char *const lsw_sched_type_names[];

struct lsw_sched_conf {
	char name[LSW_QOS_NAME_LEN];
	uint8_t type;          /* enum lsw_sched_type (WRR is taken as DWRR) */
	uint16_t weight;       /* 1..100 */
};

/* WRED_PROFILE (SONiC's, and SAI's saiwred.h). lsw has no policer, so every packet is green;
 * yellow and red are validated and shown, and unused. */
enum lsw_color { LSW_GREEN, LSW_YELLOW, LSW_RED, LSW_COLORS };

struct lsw_ecn_curve_conf {
	uint64_t min, max;     /* bytes of queue: nothing at or below min, always above max */
	uint8_t prob;          /* percent at max */
	bool set;              /* thresholds given */
};

struct lsw_ecn_conf {
	char name[LSW_QOS_NAME_LEN];
	bool drop[LSW_COLORS];                  /* wred_<color>_enable: WRED drop */
	bool ecn[LSW_COLORS];                   /* ecn: mark ECT packets of that colour */
	/* <color>_{min,max}_threshold, <color>_drop_probability */
	struct lsw_ecn_curve_conf wred[LSW_COLORS];
	/* ecn_<color>_*: the wred curve when not given */
	struct lsw_ecn_curve_conf mark[LSW_COLORS];
};

/* The classification maps: kind, their table, the PORT_QOS_MAP field that binds one.
 * PFC_TO_PG: whose PG pauses a priority; PFC_TO_QUEUE: which queue a received PFC pauses;
 * TC_TO_DOT1P: the PCP of priority-tagged frames we send; TC_TO_DSCP: a port's DSCP for
 * trims (SWITCH_TRIMMING dscp_value "from-tc"), unbound unless PORT_QOS_MAP binds one. */
#define LSW_FOREACH_MAP(X) \
	X(DSCP_TO_TC,   "DSCP_TO_TC_MAP",                     "dscp_to_tc_map") \
	X(DOT1P_TO_TC,  "DOT1P_TO_TC_MAP",                    "dot1p_to_tc_map") \
	X(TC_TO_PG,     "TC_TO_PRIORITY_GROUP_MAP",           "tc_to_pg_map") \
	X(TC_TO_QUEUE,  "TC_TO_QUEUE_MAP",                    "tc_to_queue_map") \
	X(PFC_TO_PG,    "PFC_PRIORITY_TO_PRIORITY_GROUP_MAP", "pfc_to_pg_map") \
	X(PFC_TO_QUEUE, "MAP_PFC_PRIORITY_TO_QUEUE",          "pfc_to_queue_map") \
	X(TC_TO_DOT1P,  "TC_TO_DOT1P_MAP",                    "tc_to_dot1p_map") \
	X(TC_TO_DSCP,   "TC_TO_DSCP_MAP",                     "tc_to_dscp_map")

enum lsw_map_kind {
#define LSW_MAP_ENUM(kind, table, field) LSW_MAP_##kind,
	LSW_FOREACH_MAP(LSW_MAP_ENUM)
#undef LSW_MAP_ENUM
	LSW_MAP_KINDS
};

struct lsw_map_conf {
	char name[LSW_QOS_NAME_LEN];
	uint8_t v[64];         /* DSCP maps use 64 entries, the others 8 */
};

struct lsw_port_qos_conf {
	uint16_t map[LSW_MAP_KINDS];         /* map index per kind; LSW_NONE = not bound */
	uint16_t pg_profile[LSW_NUM_PG];     /* profile index */
	uint16_t q_profile[LSW_NUM_QUEUES];
	uint16_t q_sched[LSW_NUM_QUEUES];    /* scheduler index */
	uint16_t q_ecn[LSW_NUM_QUEUES];     /* WRED_PROFILE index; LSW_NONE = none */
	uint32_t cable_m;                    /* CABLE_LENGTH, metres */
	uint8_t pfc_enable;                  /* priorities PFC pauses and honours (bit each) */
	uint8_t pfcwd_enable;                /* priorities whose queues the watchdog watches */
	bool pfcwd_set;                      /* PORT_QOS_MAP said which (or disable) */
};

enum lsw_pfcwd_action { LSW_WD_DROP, LSW_WD_FORWARD, LSW_WD_ALERT };
extern const char *const lsw_pfcwd_action_names[]; /* "drop", "forward", "alert" */
/* SONiC's switches ("disable", "enable"): by value of a bool. */
extern const char *const lsw_enable_names[];

/* SONiC's `pfcwd start_default`: detection, restoration and poll interval, ms. */
#define LSW_PFCWD_DEFAULT_MS 200

struct lsw_pfcwd_port_conf {
	bool configured;                     /* PFC_WD has an entry for the port */
	bool defaulted;                      /* ... made by lsw: SONiC's start_default */
	uint8_t action;                      /* enum lsw_pfcwd_action */
	uint32_t detection_ms;
	uint32_t restoration_ms;             /* 0: no automatic restoration */
	bool stat_history;                   /* pfc_stat_history: lsw always keeps it */
};

struct lsw_pfcwd_conf {
	uint32_t poll_ms;                    /* PFC_WD.GLOBAL.POLL_INTERVAL */
	bool big_red_switch;                 /* every watched queue stormed, action drop */
	struct lsw_pfcwd_port_conf port[LSW_MAX_PORTS];
};

enum lsw_headroom_model { LSW_HEADROOM_MELLANOX, LSW_HEADROOM_GENERIC /* barefoot */ };

struct lsw_buffer_conf {
	uint64_t total;                      /* the shared buffer B */
	uint32_t ai_sizes[LSW_MAX_AI_SIZES]; /* frame sizes the buffer is tuned to */
	uint8_t n_ai_sizes;
	uint32_t cell;                       /* accounting unit, bytes */
	/* Headroom formula inputs (SONiC's ASIC_TABLE and LOSSLESS_TRAFFIC_PATTERN). */
	uint8_t headroom_model;              /* enum lsw_headroom_model */
	uint32_t mac_phy_delay;
	uint32_t pipeline_latency;
	uint32_t peer_response_time;         /* for speeds outside the 802.3 table */
	uint32_t lossless_mtu;
	uint32_t small_packet_percentage;
	int8_t default_dynamic_th;
	uint32_t shaper_overhead;            /* bytes per frame on the wire besides pkt_len */
	uint32_t shaper_burst_us;
	uint32_t abm_update_us;              /* ABM: how often n_p and drain rates are taken */
	uint64_t abm_saturation;             /* ABM: bytes of a queue counted fully congested */
	uint64_t abm_unsched_dscp;           /* ABM: bit d, DSCP d marks unscheduled packets */
	int8_t abm_unsched_dynamic_th;       /* ABM: their alpha's log2 (alphaUnsched) */
};

struct lsw_qos_conf {
	struct lsw_buffer_conf buf;
	uint16_t n_pools, n_profiles, n_scheds, n_ecn;
	struct lsw_pool_conf pool[LSW_MAX_POOLS];
	struct lsw_profile_conf profile[LSW_MAX_PROFILES];
	struct lsw_sched_conf sched[LSW_MAX_SCHEDULERS];
	struct lsw_ecn_conf ecn[LSW_MAX_ECN];   /* WRED_PROFILE */
	uint16_t n_maps[LSW_MAP_KINDS];
	struct lsw_map_conf map[LSW_MAP_KINDS][LSW_MAX_MAPS];
	struct lsw_port_qos_conf port[LSW_MAX_PORTS];
	struct lsw_pfcwd_conf wd;
	struct lsw_trim_conf trim;
};

/* inflight.c: what @port may have handed its PMD that the wire has not carried yet: the
 * shaper's burst and the PMD's rings, both part of a lossless PG's headroom. */
bool lsw_port_is_memif(const struct lsw_config *c, uint16_t port);
/* Bytes of a net_memif port's packet buffer: bsize from the devargs, else lsw's choice (a
 * power of two that holds the largest frame), which lsw passes as bsize; 0 for other ports. */
uint32_t lsw_port_memif_bsize(const struct lsw_config *c, uint16_t port);
/* The shaper's depth: what lsw may send ahead of the line rate (two frames, and
 * LSW.buffer.shaper_burst_us at the port speed). */
uint64_t lsw_port_tx_burst_bytes(const struct lsw_config *c, uint16_t port, uint32_t speed_mbps);
/* Slots of a net_memif port's ring: rsize from the devargs, else lsw's choice (a burst's
 * worth, 16 to 1024), which lsw passes as rsize; 0 for other ports. */
uint32_t lsw_port_ring_slots(const struct lsw_config *c, uint16_t port, uint32_t speed_mbps);
/* Frames a port may deliver after lsw decides to pause: the rx burst that crossed XOFF, and
 * on net_memif the ring behind it (other ports' queues before the PMD are not counted). */
uint32_t lsw_port_ring_frames(const struct lsw_config *c, uint16_t port, uint32_t speed_mbps);

/* The buffer and QoS tables, by file (config.h says in which order they run). */
void lsw_config_buffer_defaults(struct lsw_buffer_conf *b);
/* config_buffer.c: LSW.buffer (@o), read with LSW.global. */
void lsw_config_buffer_lsw(json_t *o, struct lsw_buffer_conf *b, struct lsw_errs *errs);
/* LOSSLESS_TRAFFIC_PATTERN, DEFAULT_LOSSLESS_BUFFER_PARAMETER, BUFFER_POOL, BUFFER_PROFILE:
 * the pools and profiles, with the defaults a config without them gets. */
void lsw_config_buffer_profiles(json_t *doc, struct lsw_qos_conf *q, struct lsw_errs *errs);
/* CABLE_LENGTH, BUFFER_PG and BUFFER_QUEUE, once every port has its maps (computed
 * profiles need the cable), then the budget of every pool. */
void lsw_config_buffer_bindings(json_t *doc, struct lsw_config *c, struct lsw_errs *errs);
/* config_sched.c: SCHEDULER, and QUEUE (after WRED_PROFILE). */
void lsw_config_schedulers(json_t *t, struct lsw_qos_conf *q, struct lsw_errs *errs);
void lsw_config_queues(json_t *t, struct lsw_config *c, struct lsw_errs *errs);
/* config_ecn.c: WRED_PROFILE. */
void lsw_config_ecn(json_t *t, struct lsw_qos_conf *q, struct lsw_errs *errs);
/* config_pfcwd.c: PFC_WD, after PORT_QOS_MAP (which ports watch which priorities). */
void lsw_config_pfcwd(json_t *t, struct lsw_config *c, struct lsw_errs *errs);
/* config_trim.c: SWITCH_TRIMMING, ACL_TABLE and ACL_RULE, once the profiles are bound. */
void lsw_config_trim(json_t *doc, struct lsw_config *c, struct lsw_errs *errs);
/* The workers' part (include/lsw/trim.h) of the config @c. */
void lsw_trim_build(const struct lsw_config *c, struct lsw_trim_dp *t);
/* config_qos.c: a field naming an entry of another table, "name" or "[TABLE|name]" (a
 * decode.h custom row: .fn = lsw_config_ref, .arg = a struct lsw_qos_ref, ctx = the
 * struct lsw_qos_conf). Its member gets the entry's index. */
struct lsw_qos_ref {
	const char *table;
	size_t entries;        /* offset in struct lsw_qos_conf of the entries (names first) */
	size_t count;          /* ... of their count, a uint16_t */
	size_t stride;         /* bytes of an entry */
};
#define LSW_QOS_REF(tbl, arr, n) \
	{.table = tbl, .entries = offsetof(struct lsw_qos_conf, arr), \
	 .count = offsetof(struct lsw_qos_conf, n), \
	 .stride = sizeof(((struct lsw_qos_conf *)0)->arr[0])}
struct lsw_field;
bool lsw_config_ref(const struct lsw_field *f, json_t *v, const char *path, void *out,
		    void *ctx, struct lsw_errs *errs);

/* Headroom of a lossless PG (SONiC's dynamic buffer model). */
struct lsw_headroom {
	double wcf, occupancy, cable_bytes, peer_response, inflight, propagation, ring;
	uint64_t xoff, xon, size;
};

/* SONiC's formula (SONiC's dynamic headroom model), plus what a software link holds beyond a
 * cable: @inflight bytes sent ahead of the line rate (lsw_port_tx_burst_bytes), scaled by
 * cell waste like the wire's bytes, and @ring_frames frames in PMD rings
 * (lsw_port_ring_frames), each charged whole as a frame of @port_mtu: a slot holds one
 * frame, however small. 0 and 0 give SONiC's figures. @shp: the pool has a shared headroom
 * pool (BUFFER_POOL.xoff), so the profile reserves only xon and gets no compensation
 * (buffer_headroom_mellanox.lua). */
int lsw_buffer_headroom(const struct lsw_buffer_conf *b, uint32_t speed_mbps, uint32_t cable_m,
			uint32_t port_mtu, uint64_t inflight, uint32_t ring_frames, bool shp,
			struct lsw_headroom *h);
/* lsw_parse_size and lsw_parse_length: control/json/jsonv.h. */

#endif
