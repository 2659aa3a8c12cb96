/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lsw-agent's packet counter (XDP and tc BPF programs): an XDP program on the host interface's
 * ingress and a tc program on its egress read each frame's Ethernet, optional VLAN tag,
 * IPv4, UDP 4791 and BTH (and AETH for ACKs), or its MAC control header, count into per-CPU
 * maps and let the frame go on. Nothing is changed or dropped.
 */
#include <linux/bpf.h>
#include <linux/if_ether.h>
#include <linux/in.h>
#include <linux/ip.h>
#include <linux/pkt_cls.h>
#include <linux/udp.h>
#include <bpf/bpf_endian.h>
#include <bpf/bpf_helpers.h>
#include "agent.h"

char LICENSE[] SEC("license") = "Dual BSD/GPL";

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_HASH);
	__uint(max_entries, AGENT_MAX_FLOWS);
	__type(key, struct agent_flow_key);
	__type(value, struct agent_flow_ctr);
} flows SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, AGENT_MAX_FLOWS);
	__type(key, struct agent_flow_key);
	__type(value, struct agent_psn);
} psns SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 18);
	__type(key, __u32);
	__type(value, struct agent_pfc_ctr);
} pfc SEC(".maps");

#define ROCE_PORT 4791
#define OP_ACK 0x11
#define OP_CNP 0x81

static __always_inline int
is_data(__u8 op)
{
	return op <= 0x04 || (op >= 0x06 && op <= 0x0a);
}

static __always_inline void
count_pfc(void *p, void *end, __u32 dir)
{
	__u8 *b = p;
	struct agent_pfc_ctr *c;
	__u32 i;

	if ((void *)(b + 20) > end)
		return;
	if (b[0] == 0x01 && b[1] == 0x01) { /* PFC: class-enable vector, 8 timers */
#pragma unroll
		for (int n = 0; n < 8; n++) {
			if (!(b[3] >> n & 1))
				continue;
			i = dir * 9 + n;
			c = bpf_map_lookup_elem(&pfc, &i);
			if (c == NULL)
				continue;
			__u16 q = (__u16)(b[4 + 2 * n] << 8 | b[5 + 2 * n]);
			c->frames++;
			c->quanta += q;
			if (q == 0)
				c->xon++;
		}
	} else if (b[0] == 0x00 && b[1] == 0x01) { /* 802.3x PAUSE */
		i = dir * 9 + 8;
		c = bpf_map_lookup_elem(&pfc, &i);
		if (c == NULL)
			return;
		__u16 q = (__u16)(b[2] << 8 | b[3]);
		c->frames++;
		c->quanta += q;
		if (q == 0)
			c->xon++;
	}
}

static __always_inline void
count(void *data, void *end, __u32 dir)
{
	struct ethhdr *eth = data;
	__u16 proto;
	__u32 pcp = 8;
	void *l3;

	if ((void *)(eth + 1) > end)
		return;
	proto = bpf_ntohs(eth->h_proto);
	l3 = eth + 1;
	if (proto == ETH_P_8021Q) {
		__u8 *tag = l3;
		if ((void *)(tag + 4) > end)
			return;
		pcp = tag[0] >> 5;
		proto = (__u16)(tag[2] << 8 | tag[3]);
		l3 = tag + 4;
	}
	if (proto == 0x8808) {
		count_pfc(l3, end, dir);
		return;
	}
	if (proto != ETH_P_IP)
		return;
	struct iphdr *ip = l3;
	if ((void *)(ip + 1) > end || ip->ihl != 5 || ip->protocol != IPPROTO_UDP)
		return;
	struct udphdr *udp = (void *)(ip + 1);
	if ((void *)(udp + 1) > end || udp->dest != bpf_htons(ROCE_PORT))
		return;
	__u8 *bth = (void *)(udp + 1);
	if ((void *)(bth + 16) > end) /* the BTH, and an AETH's syndrome if there is one */
		return;

	struct agent_flow_key k = {.sip = ip->saddr, .dip = ip->daddr,
				   .dqpn = (__u32)bth[5] << 16 | (__u32)bth[6] << 8 | bth[7],
				   .dir = dir};
	__u8 op = bth[0];
	__u32 psn = (__u32)bth[9] << 16 | (__u32)bth[10] << 8 | bth[11];
	struct agent_flow_ctr *c = bpf_map_lookup_elem(&flows, &k);
	if (c == NULL) {
		struct agent_flow_ctr zero = {};
		bpf_map_update_elem(&flows, &k, &zero, BPF_NOEXIST);
		c = bpf_map_lookup_elem(&flows, &k);
		if (c == NULL)
			return;
	}
	c->packets++;
	c->bytes += (__u64)((long)end - (long)data);
	c->dscp_seen |= 1ull << (ip->tos >> 2);
	c->pcp_seen |= 1ull << pcp;
	if ((ip->tos & 3) == 3)
		c->ce++;
	if (op == OP_CNP) {
		c->cnp++;
	} else if (op == OP_ACK) {
		__u8 syn = bth[12];
		if (syn < 0x20)
			c->ack++;
		else if (syn == 0x60)
			c->nak_seq++;
		else
			c->nak_other++;
	} else if (is_data(op)) {
		c->data++;
		/* The responder's view: in order, ahead (a loss before it), or behind. */
		struct agent_psn *e = bpf_map_lookup_elem(&psns, &k);
		if (e == NULL) {
			struct agent_psn first = {.epsn = (psn + 1) & 0xffffff, .valid = 1};
			bpf_map_update_elem(&psns, &k, &first, BPF_ANY);
			return;
		}
		__s32 d = (__s32)((psn - e->epsn) << 8) >> 8;
		if (d == 0)
			e->epsn = (psn + 1) & 0xffffff;
		else if (d > 0)
			c->out_of_sequence++;
		else
			c->duplicate++;
	}
}

SEC("xdp")
int
agent_xdp(struct xdp_md *ctx)
{
	count((void *)(long)ctx->data, (void *)(long)ctx->data_end, AGENT_RX);
	return XDP_PASS;
}

SEC("tc")
int
agent_tc(struct __sk_buff *skb)
{
	/* A frame sent from a packet socket's ring may have its payload in page fragments:
	 * the headers this program reads are made linear first. */
	if (skb->data_end - skb->data < 80)
		bpf_skb_pull_data(skb, skb->len < 80 ? skb->len : 80);
	count((void *)(long)skb->data, (void *)(long)skb->data_end, AGENT_TX);
	return TC_ACT_OK;
}
