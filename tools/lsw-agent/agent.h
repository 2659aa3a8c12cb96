/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What lsw-agent's BPF program (agent.bpf.c) and its loader (main.c) share: the keys and
 * values of its maps. Counts are per CPU (the agent sums them), so that the program never
 * takes a lock or an atomic on the packet path.
 */
#ifndef LSW_AGENT_H
#define LSW_AGENT_H

#ifndef __u32
#include <linux/types.h>
#endif

#define AGENT_RX 0 /* arriving at the host (XDP) */
#define AGENT_TX 1 /* leaving the host (tc egress) */
#define AGENT_MAX_FLOWS 65536

/* A RoCEv2 flow as seen on the wire: both addresses (network order) and the BTH's
 * destination QP, and which way it went. */
struct agent_flow_key {
	__u32 sip, dip;
	__u32 dqpn;
	__u32 dir;
};

struct agent_flow_ctr {
	__u64 packets, bytes;
	__u64 data;           /* SEND and RDMA WRITE packets */
	__u64 ce;             /* IP ECN = CE */
	__u64 cnp;            /* BTH opcode 0x81 */
	__u64 ack;            /* opcode 0x11 with an ACK syndrome */
	__u64 nak_seq;        /* NAK 0x60: PSN sequence error */
	__u64 nak_other;      /* any other NAK or RNR NAK */
	__u64 out_of_sequence; /* data ahead of the expected PSN */
	__u64 duplicate;      /* data behind it */
	__u64 dscp_seen;      /* bit d: a packet with DSCP d */
	__u64 pcp_seen;       /* bit p: a packet tagged with priority p (bit 8: untagged) */
};

/* The expected PSN of a data flow, kept in a shared (not per-CPU) map: a flow's packets
 * come in order from one queue, so the CPU that handles one handles the next. */
struct agent_psn {
	__u32 epsn;
	__u32 valid;
};

/* MAC control frames per direction and priority (index dir * 9 + prio; 8 is 802.3x PAUSE):
 * frames with the priority enabled, and the quanta they carried. */
struct agent_pfc_ctr {
	__u64 frames, quanta, xon;
};

#endif
