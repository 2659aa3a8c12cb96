/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Per-lcore counters, VPP style: each worker owns one struct lsw_lcore_counters and is its
 * only writer (plain increments, no atomics). Readers on the main lcore sum all workers with
 * lsw_counter_read (include/lsw/shared.h); clearing keeps a baseline on the reader side and
 * never writes here.
 */
#ifndef LSW_COUNTERS_H
#define LSW_COUNTERS_H

#include <stdint.h>
#include <rte_common.h>
#include "lsw/capture.h"
#include "lsw/common.h"
#include "lsw/drop.h"

/* Port counters named as SAI's sai_port_stat_t (SAI_PORT_STAT_IF_IN_OCTETS, ...), then
 * lsw's own for RoCEv2 (UDP 4791 with a BTH): received, CNPs received (BTH opcode 0x81),
 * and RoCE packets this port marked CE on the way out; then SAI's packet trimming counters
 * of the egress port (include/lsw/trim.h): packets refused and trimmed, trims the trim
 * queue took, and trims it refused (TRIM = TX_TRIM + DROPPED_TRIM). */
#define LSW_FOREACH_PORT_CTR(X) \
	X(IF_IN_OCTETS) \
	X(IF_IN_UCAST_PKTS) \
	X(IF_IN_NON_UCAST_PKTS) \
	X(IF_OUT_OCTETS) \
	X(IF_OUT_UCAST_PKTS) \
	X(IF_OUT_NON_UCAST_PKTS) \
	X(ECN_MARKED_PACKETS) \
	X(ROCE_IN_PKTS) \
	X(ROCE_IN_OCTETS) \
	X(ROCE_CNP_IN_PKTS) \
	X(ROCE_ECN_MARKED_PKTS) \
	X(TRIM_PACKETS) \
	X(TX_TRIM_PACKETS) \
	X(DROPPED_TRIM_PACKETS)

enum lsw_port_ctr {
#define LSW_PORT_CTR_ENUM(n) LSW_PC_##n,
	LSW_FOREACH_PORT_CTR(LSW_PORT_CTR_ENUM)
#undef LSW_PORT_CTR_ENUM
	LSW_PC_MAX
};

/* Events of the switch itself that are not packet drops. */
#define LSW_FOREACH_EVENT(X) \
	X(ARP_REQUEST_RX,     "ARP requests received for the switch's addresses") \
	X(ARP_REPLY_RX,       "ARP replies received for the switch's addresses") \
	X(ARP_REQUEST_TX,     "ARP requests sent to resolve a next hop") \
	X(ARP_REPLY_TX,       "ARP replies sent for the switch's addresses") \
	X(ARP_LEARN_MSG,      "neighbor updates handed to the control plane") \
	X(ARP_LEARN_RING_FULL, "neighbor updates lost because the control ring was full") \
	X(ICMP_ECHO_REPLY_TX, "ICMP echo replies sent") \
	X(ICMP_ERROR_TX,      "ICMP time-exceeded and fragmentation-needed sent") \
	X(ICMP_RATE_LIMITED,  "ICMP errors suppressed by the rate limit") \
	X(MBUF_ALLOC_FAILED,  "mbuf allocations that failed (ARP/ICMP not sent)") \
	X(NEIGH_HELD,         "packets held while their next hop was resolved") \
	X(NEIGH_RELEASED,     "held packets sent after resolution") \
	X(PFC_TX_DEFERRED,    "PFC frames put off a loop: no mbuf to build them") \
	X(PFC_RX,             "PFC frames received and consumed (any class-enable vector)") \
	X(PFC_TX,             "PFC frames sent (XOFF, refresh or XON)") \
	X(PAUSE_RX,           "802.3x PAUSE frames honoured") \
	X(SNAPSHOT_MISSED,    "drops or marks not snapshotted: the worker's ring was full") \
	X(RX_HELD,            "loops a worker took no rx burst: a handoff ring to another " \
			      "worker's port was full, or the buffer out of packets") \
	X(TIMELINE_RECORDS,   "timeline samples and events recorded") \
	X(TIMELINE_LOST,      "timeline records lost: the worker's ring was full") \
	X(TIMELINE_SKIPPED,   "timeline sample intervals skipped: the worker came back too late") \
	X(CAPTURE_MISSED,     "frames a capture session lost: its worker's ring was full or " \
			      "the capture pool empty") \
	X(NDP_NS_RX,          "neighbor solicitations received for the switch's addresses") \
	X(NDP_NA_RX,          "neighbor advertisements received") \
	X(NDP_NS_TX,          "neighbor solicitations sent to resolve a next hop") \
	X(NDP_NA_TX,          "neighbor advertisements sent (solicited)") \
	X(NDP_NA_UNSOLICITED_TX, "unsolicited neighbor advertisements sent (start, new address)") \
	X(NDP_LEARN_MSG,      "IPv6 neighbor updates handed to the control plane") \
	X(ICMP6_ECHO_REPLY_TX, "ICMPv6 echo replies sent") \
	X(ICMP6_ERROR_TX,     "ICMPv6 time-exceeded, packet-too-big and unreachable sent")

enum lsw_event {
#define LSW_EVENT_ENUM(n, d) LSW_EV_##n,
	LSW_FOREACH_EVENT(LSW_EVENT_ENUM)
#undef LSW_EVENT_ENUM
	LSW_EV_MAX
};

/* Per port and priority, SAI's SAI_PORT_STAT_PFC_<n>_<name> and its field in struct
 * lsw_pfc_counters. ON2OFF_RX_PKTS: an XOFF for a priority that was not paused. Pause
 * durations are kept in TSC ticks of finished pauses (pfc.stats converts them to
 * microseconds and adds a pause still running). */
#define LSW_FOREACH_PFC_CTR(X) \
	X(RX_PKTS,              rx_pkts) \
	X(TX_PKTS,              tx_pkts) \
	X(ON2OFF_RX_PKTS,       on2off_rx) \
	X(RX_PAUSE_DURATION_US, rx_pause_ticks) \
	X(TX_PAUSE_DURATION_US, tx_pause_ticks)

enum lsw_pfc_ctr {
#define LSW_PFC_CTR_ENUM(name, f) LSW_PFC_##name,
	LSW_FOREACH_PFC_CTR(LSW_PFC_CTR_ENUM)
#undef LSW_PFC_CTR_ENUM
	LSW_PFC_CTR_MAX
};

struct lsw_pfc_counters {
#define LSW_PFC_CTR_FIELD(name, f) uint64_t f[8];
	LSW_FOREACH_PFC_CTR(LSW_PFC_CTR_FIELD)
#undef LSW_PFC_CTR_FIELD
};

struct lsw_port_counters {
	uint64_t ctr[LSW_PC_MAX];
	uint64_t drop[LSW_DROP_MAX];
	struct lsw_pfc_counters pfc;
};

struct lsw_lcore_counters {
	struct lsw_port_counters port[LSW_MAX_PORTS];
	uint64_t event[LSW_EV_MAX];
	uint64_t loops;       /* main loop iterations */
	uint64_t busy_loops;  /* iterations that received or sent something */
	/* What CAPTURE_MISSED counts, per capture session slot: capture.list subtracts what
	 * the slot held when its session started. */
	uint64_t capture_missed[LSW_CAPTURE_MAX];
} __rte_cache_aligned;

const char *lsw_port_ctr_name(enum lsw_port_ctr c);
const char *lsw_event_name(enum lsw_event e);
const char *lsw_event_desc(enum lsw_event e);

#endif
