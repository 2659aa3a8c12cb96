/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Packet trimming (dataplane/TRIMMING.md): a packet refused by the buffer on an egress queue
 * whose profile says "trim" (BUFFER_PROFILE.packet_discard_action) is cut to a few bytes,
 * re-marked with the trim DSCP and offered to the trim queue, so that its receiver learns
 * of the loss at once (SONiC's packet trimming HLD, SAI's packet admission fail action,
 * Ultra Ethernet 1.0). SWITCH_TRIMMING|GLOBAL says how; ACL rules with PACKET_ACTION
 * DISABLE_TRIM exempt chosen traffic. Part of the workers' snapshot, read only when a
 * packet is refused: nothing here is on the path of an admitted packet.
 */
#ifndef LSW_TRIM_H
#define LSW_TRIM_H

#include <stdint.h>
#include "lsw/common.h"

#define LSW_TRIM_DEFAULT_SIZE 128    /* SAI_SWITCH_ATTR_PACKET_TRIM_SIZE's default */
#define LSW_TRIM_MIN_SIZE     64     /* the Ethernet minimum frame without its FCS */
#define LSW_TRIM_QUEUE_DYNAMIC 0xff  /* queue_index "dynamic": the trim DSCP's TC's queue */
#define LSW_TRIM_MAX_RULES    32     /* ACL_RULE entries with PACKET_ACTION DISABLE_TRIM */

/* An exemption (ACL_RULE with PACKET_ACTION DISABLE_TRIM in an ACL_TABLE of type
 * TRIMMING_L3): a packet that came in on one of @in_ports and matches every field given is
 * dropped, not trimmed. */
struct lsw_trim_rule {
	uint32_t in_ports;    /* the table's ports, bit per lsw port */
	uint8_t v6;           /* the rule's addresses are IPv6: it matches IPv6 only */
	uint8_t src_plen, dst_plen; /* 0: any; SRC_IP/DST_IP (SRC_IPV6/DST_IPV6) prefixes */
	uint8_t src[16], dst[16];   /* network order (an IPv4 address in the first 4 bytes) */
	uint64_t dscp;        /* DSCP values matched (bit each); 0: any */
};

/* The trimming part of the snapshot. */
struct lsw_trim_dp {
	/* Queues of each egress port whose profile says trim (bit per queue); all zero:
	 * trimming is off and a refused packet is dropped as before. */
	uint8_t q_trim[LSW_MAX_PORTS];
	uint16_t size;        /* frame bytes a trim keeps, the Ethernet header included */
	uint8_t from_tc;      /* dscp_value "from-tc": each port's TC_TO_DSCP_MAP of tc */
	uint8_t tc;           /* tc_value: the trims' TC with "from-tc" (else their DSCP's, by
			       * the ingress port's DSCP_TO_TC_MAP) */
	uint8_t queue;        /* queue_index, or LSW_TRIM_QUEUE_DYNAMIC */
	uint8_t dscp[LSW_MAX_PORTS]; /* the trim DSCP each egress port writes */
	uint8_t n_rules;
	struct lsw_trim_rule rule[LSW_TRIM_MAX_RULES];
};

#endif
