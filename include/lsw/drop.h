/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Every reason the switch drops a packet. Names follow SAI's sai_in_drop_reason_t /
 * sai_out_drop_reason_t where one exists (TTL, LPM4_MISS, LPM6_MISS, BLACKHOLE_ROUTE,
 * UNRESOLVED_NEXT_HOP, EXCEEDS_L3_MTU, SMAC_MULTICAST, SIP_*, DIP_LINK_LOCAL,
 * IPV6_MC_SCOPE0/1, L3_EGRESS_LINK_DOWN, VLAN_TAG_NOT_ALLOWED, IRIF_DISABLED); the
 * address checks serve both families, as SAI's do; the others are lsw's own and say exactly which
 * check failed. IN reasons are charged to the ingress port, OUT reasons to the egress port.
 */
#ifndef LSW_DROP_H
#define LSW_DROP_H

#define LSW_FOREACH_DROP(X) \
	X(L2_TRUNCATED,            IN,  "frame shorter than an Ethernet header") \
	X(VLAN_TRUNCATED,          IN,  "802.1Q tag cut short") \
	X(VLAN_TAG_NOT_ALLOWED,    IN,  "802.1Q tag with a VLAN id other than 0 on a routed port") \
	X(UNKNOWN_ETHERTYPE,       IN,  "EtherType the switch does not handle") \
	X(MULTI_SEGMENT,           IN,  "frame spread over several mbufs") \
	X(SMAC_MULTICAST,          IN,  "multicast source MAC") \
	X(DMAC_MISMATCH,           IN,  "unicast destination MAC that is not the port's") \
	X(IRIF_DISABLED,           IN,  "received on an admin-down port") \
	X(PFC_MALFORMED,           IN,  "PFC or PAUSE frame too short") \
	X(MAC_CONTROL_UNKNOWN,     IN,  "MAC control frame with an opcode other than PFC or " \
					"PAUSE") \
	X(PAUSE_NOT_ENABLED,       IN,  "802.3x PAUSE on a port not configured to honour it") \
	X(ARP_MALFORMED,           IN,  "ARP packet too short or not Ethernet/IPv4") \
	X(ARP_OTHER_TARGET,        IN,  "ARP for an address that is not the port's") \
	X(IPV4_TRUNCATED,          IN,  "IPv4 header or payload cut short") \
	X(IPV4_BAD_VERSION,        IN,  "IPv4 EtherType but version is not 4") \
	X(IPV4_BAD_IHL,            IN,  "IPv4 header length below 20 bytes") \
	X(IPV4_BAD_LENGTH,         IN,  "IPv4 total length smaller than its header") \
	X(IPV4_BAD_CHECKSUM,       IN,  "IPv4 header checksum does not verify") \
	X(IPV6_TRUNCATED,          IN,  "IPv6 header or payload cut short") \
	X(IPV6_BAD_VERSION,        IN,  "IPv6 EtherType but version is not 6") \
	X(NDP_MALFORMED,           IN,  "NS or NA too short, routed, or with a bad option") \
	X(NDP_OTHER_TARGET,        IN,  "NS for an address that is not the port's") \
	X(L4_TRUNCATED,            IN,  "UDP or TCP header cut short") \
	X(BTH_TRUNCATED,           IN,  "UDP port 4791 without a complete InfiniBand BTH") \
	X(SIP_MC,                  IN,  "multicast source IP (IPv4 or IPv6)") \
	X(SIP_CLASS_E,             IN,  "class E source IP") \
	X(SIP_BC,                  IN,  "broadcast source IP") \
	X(SIP_UNSPECIFIED,         IN,  "source IP 0.0.0.0 or ::") \
	X(SIP_LOOPBACK,            IN,  "source IP in 127/8 or ::1") \
	X(SIP_LINK_LOCAL,          IN,  "IPv6 link-local source (fe80::/10) on a routed packet") \
	X(DIP_LOOPBACK,            IN,  "destination IP in 127/8 or ::1") \
	X(DIP_UNSPECIFIED,         IN,  "destination IPv6 ::") \
	X(DIP_LINK_LOCAL,          IN,  "IPv6 link-local destination that is not the port's") \
	X(DIP_MULTICAST,           IN,  "multicast or broadcast destination IP (not routed)") \
	X(IPV6_MC_SCOPE0,          IN,  "IPv6 multicast destination of reserved scope 0") \
	X(IPV6_MC_SCOPE1,          IN,  "IPv6 multicast destination of interface-local scope") \
	X(UC_DIP_MC_DMAC,          IN,  "unicast destination IP in a multicast or broadcast " \
					"frame") \
	X(TTL,                     IN,  "TTL or IPv6 hop limit 0 or 1 on a routed packet") \
	X(LPM4_MISS,               IN,  "no IPv4 route") \
	X(LPM6_MISS,               IN,  "no IPv6 route") \
	X(BLACKHOLE_ROUTE,         IN,  "route is a blackhole") \
	X(LOCAL_UNSUPPORTED,       IN,  "addressed to the switch, but not ICMP(v6) echo or NDP") \
	X(ICMP_MALFORMED,          IN,  "ICMP or ICMPv6 to the switch too short or bad checksum") \
	X(UNRESOLVED_NEXT_HOP,     IN,  "next hop did not answer ARP or NDP in time") \
	X(PFC_WD_RX_DROP,          IN,  "on a priority whose queue the PFC watchdog stormed " \
					"(drop)") \
	X(NEIGH_HOLD_OVERFLOW,     IN,  "too many packets waiting for ARP or NDP") \
	X(INGRESS_PG_THRESHOLD,    IN,  "lossy PG over its shared-buffer threshold") \
	X(HEADROOM_OVERFLOW,       IN,  "lossless PG out of headroom (PFC came too late)") \
	X(MBUF_LIMIT,              IN,  "the buffer holds as many packets as lsw has mbufs for") \
	X(EXCEEDS_L3_MTU,          OUT, "IPv4 or IPv6 packet larger than the egress MTU") \
	X(EGRESS_QUEUE_THRESHOLD,  OUT, "egress queue over its shared-buffer threshold") \
	X(WRED_DROP,               OUT, "not-ECT packet dropped by its queue's WRED profile") \
	X(PFC_WD_TX_DROP,          OUT, "for a queue the PFC watchdog stormed (drop)") \
	X(L3_EGRESS_LINK_DOWN,     OUT, "egress port is admin down") \
	X(TX_RING_FULL,            OUT, "handoff ring to the egress port's lcore full") \
	X(TX_QUEUE_FULL,           OUT, "PMD did not accept the packet") \
	X(SHUTDOWN,                OUT, "held or queued when the switch stopped")

enum lsw_drop {
	LSW_DROP_NONE = 0,
#define LSW_DROP_ENUM(name, dir, desc) LSW_DROP_##name,
	LSW_FOREACH_DROP(LSW_DROP_ENUM)
#undef LSW_DROP_ENUM
	LSW_DROP_MAX
};

/* Name ("TTL"), description, and whether the reason counts against the egress port. */
const char *lsw_drop_name(enum lsw_drop d);
const char *lsw_drop_desc(enum lsw_drop d);
int lsw_drop_is_egress(enum lsw_drop d);

#endif
