/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lsw-host: emulated RoCEv2 NICs. One engine runs many hosts; each host
 * has a port, RC queue pairs (go-back-N), DCQCN, and PFC at its link. The engine is a pure
 * function of the frames it is given and the time in nanoseconds: main.c feeds it DPDK
 * ports and the TSC, the unit tests feed it each other's frames on a fake clock.
 */
#ifndef LSW_HOST_H
#define LSW_HOST_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <rte_ether.h>
#include "lsw/drop.h"
#include "dcqcn.h"
#include "roce.h"
#include "trim.h"

#define LSW_HOST_NAME_LEN  32
#define LSW_HOST_MAX       64
#define LSW_QPN_BASE       0x100      /* QP n of a run is QPN 0x100 + n on both ends */
#define LSW_HOST_CTL_RING  4096
#define LSW_HOST_MAX_PATH  256

/* Per-host counters, named as mlx5's hw_counters (and ethtool's) where they have one. */
#define LSW_FOREACH_HOST_CTR(X) \
	X(np_ecn_marked_roce_packets, "CE-marked RoCE packets received (NP)") \
	X(np_cnp_sent,                "CNPs sent (NP)") \
	X(rp_cnp_handled,             "CNPs that cut a QP's rate, now or when the rate-reduce " \
				      "period ends (RP)") \
	X(rp_cnp_ignored,             "CNPs that cut nothing: no CC, or merged (RP)") \
	X(rp_cnp_deferred,            "of rp_cnp_handled: cut when the rate-reduce period ends") \
	X(rp_cnp_merged,              "of rp_cnp_ignored: a cut already waited for the period's " \
				      "end; alpha moved") \
	X(out_of_sequence,            "packets received ahead of the expected PSN") \
	X(packet_seq_err,             "NAKs (PSN sequence error) received") \
	X(local_ack_timeout_err,      "retransmission timeouts") \
	X(duplicate_request,          "packets received behind the expected PSN") \
	X(out_of_buffer,              "packets dropped: the receive buffer was full") \
	X(rx_write_requests,          "RDMA WRITE packets accepted") \
	X(rx_send_requests,           "SEND packets accepted") \
	X(req_retransmitted_packets,  "packets sent again (go-back-N or timeout)") \
	X(req_transport_retries_exceeded, "QPs that gave up after retry_cnt timeouts") \
	X(resp_nak_sent,              "NAKs (PSN sequence error) sent") \
	X(resp_ack_sent,              "ACKs sent") \
	X(rx_icrc_errors,             "RoCE packets whose ICRC did not verify") \
	X(rx_unknown_qp,              "RoCE packets for no QP of this host") \
	X(rx_not_for_us,              "frames neither RoCE, ARP nor PFC for this host") \
	X(tx_no_buffer,               "frames not built: no buffer (retried)") \
	X(ctl_ring_full,              "ACK, NAK or CNP not queued: the control ring was full") \
	X(arp_requests_sent,          "ARP requests sent") \
	X(arp_replies_sent,           "ARP replies sent") \
	X(icmp_echo_replies_sent,     "ICMP echo replies sent (ping the host to check wiring)") \
	X(tx_pause_storm_frames,      "PFC frames sent by the storm mode") \
	X(rx_trimmed_packets,         "trims received (UET NACK code TRIMMED: by a DSCP of " \
				      "trim.trimmed_dscp)") \
	X(rx_trimmed_last_hop_packets, "trims received (TRIMMED_LAST_HOP: trim.last_hop_dscp)") \
	X(rx_trimmed_stale,           "trims not NACKed: of packets that had arrived, or too far " \
				      "ahead") \
	X(rx_trim_dscp_whole,         "packets of a trim DSCP that were whole (re-marked, not " \
				      "cut: their ICRC verifies)") \
	X(resp_nack_trimmed_sent,     "NACKs TRIMMED sent, one per trim") \
	X(resp_nack_trimmed_last_hop_sent, "NACKs TRIMMED_LAST_HOP sent, one per trim") \
	X(resp_ooo_kept,              "packets kept past a trimmed hole (selective repeat)") \
	X(req_nack_trimmed,           "NACKs TRIMMED received") \
	X(req_nack_trimmed_last_hop,  "NACKs TRIMMED_LAST_HOP received") \
	X(req_selective_retransmits,  "packets resent alone, for a trim NACK") \
	X(req_unsched_packets,        "data packets of a message's first unsched_bytes, sent " \
				      "with dscp_unsched (ABM's unscheduled)")

enum lsw_host_ctr {
#define X(n, d) LSW_HC_##n,
	LSW_FOREACH_HOST_CTR(X)
#undef X
	LSW_HC_MAX
};
extern const char *const lsw_host_ctr_names[LSW_HC_MAX];

/* Port counters as ethtool gives them for mlx5 (per priority) and the link's totals. */
struct lsw_host_port_stats {
	uint64_t tx_packets, tx_bytes, rx_packets, rx_bytes;
	uint64_t rx_pause[8], tx_pause[8];         /* rx_prioN_pause, tx_prioN_pause */
	uint64_t rx_pause_ns[8], tx_pause_ns[8];   /* ..._pause_duration (here in ns) */
	uint64_t rx_drop[LSW_DROP_MAX];            /* malformed frames, by lsw's reasons */
};

enum lsw_op_kind { LSW_OPK_WRITE, LSW_OPK_SEND };

/* A host's settings (config.c fills them, with defaults). */
struct lsw_host_conf {
	char name[LSW_HOST_NAME_LEN];
	char port[LSW_HOST_MAX_PATH];   /* DPDK devargs (vdev or PCI address) */
	struct rte_ether_addr mac;
	uint32_t ip, gw;                /* host order; gw 0: every destination on-link */
	uint8_t plen;
	bool gw_mac_static;
	struct rte_ether_addr gw_mac;
	uint64_t speed_bps;
	uint32_t mtu;                   /* path MTU: RoCE payload per packet, 256..4096 */
	uint8_t dscp_data, dscp_ack, dscp_cnp;
	uint8_t prio_data, prio_ack, prio_cnp;  /* 802.1p: what PFC pauses and tags carry */
	bool priority_tagging;
	bool verify_icrc;
	uint64_t tx_burst_ns;           /* how far the link may catch up after a late wake-up */
	/* A slow receiver: a buffer that drains at @rx_drain_bps and pauses its peer. */
	uint64_t rx_buffer, rx_drain_bps, rx_xoff, rx_xon;
	uint16_t pause_quanta;
	/* Storm: keep @storm_prio paused from @storm_start_ns for @storm_ns (0: for ever). */
	int storm_prio;                 /* -1: no storm */
	uint64_t storm_start_ns, storm_ns;
	uint16_t storm_quanta;
	/* RC transport */
	uint32_t ack_every;             /* AckReq on every n-th packet (and at message ends) */
	uint64_t rto_ns;                /* 4.096 us x 2^timeout */
	uint32_t retry_cnt;
	/* A fault to see end to end: the first sending of the data packet with this PSN, on
	 * every QP of the host, goes out with TTL 1, which a router must drop (-1: none). */
	int64_t ttl_one_psn;
	/* Packet trimming (trim.h): data marked trimmable with this DSCP (0xff: not); a
	 * trim-aware host knows trims by the DSCPs of @dscp_trimmed (TRIMMED) and
	 * @dscp_trimmed_last_hop (TRIMMED_LAST_HOP), a bit each; a packet resent alone for a
	 * trim carries @dscp_rtx (UET's DSCP_RTX; 0xff: the data's). */
	uint8_t dscp_trimmable, dscp_rtx;
	/* ABM (Addanki et al., SIGCOMM 2022): a message's first @unsched_bytes, what it sends
	 * before any feedback (a BDP), carry @dscp_unsched (0xff: not tagged), which an ABM
	 * switch admits with a larger alpha. */
	uint8_t dscp_unsched;
	uint64_t unsched_bytes;
	bool trim_aware;
	uint64_t dscp_trimmed, dscp_trimmed_last_hop;
	/* Congestion control */
	enum lsw_cc_algo cc;
	struct lsw_dcqcn_conf dcqcn;
};

/* A message posted on a QP. */
struct lsw_msg {
	uint64_t post_ns;
	uint64_t first_psn;       /* in the QP's 64-bit PSN space */
	uint32_t size, npkts;
	int32_t coll_step;        /* the collective step it belongs to, -1: none */
	uint32_t seq;             /* its number on the QP */
};

struct lsw_qp_stats {
	uint64_t bytes_sent, packets_sent, retransmitted, naks, timeouts;
	uint64_t cnp_handled, cnp_ignored, msgs_posted, msgs_done, bytes_done;
	uint64_t rx_packets, rx_bytes, out_of_sequence, duplicates, naks_sent, acks_sent;
	uint64_t ce_marked, cnps_sent;
	uint64_t bytes_sample;    /* bytes sent at the last rate sample */
};

/*
 * The engine's shared state: the rooms (engine.h) read each other's fields, and each field
 * says which room writes it (host.c: start, poll, building a run; config.c and workload.c:
 * before the run starts; main.c: the DPDK side). A field written by several rooms names
 * them all.
 */

/* One RC connection: the requester state lives on @src, the responder state on @dst. */
struct lsw_qp {
	uint32_t qpn, idx;        /* host.c (lsw_hosts_add_qp), as are src, dst, sport, op, mtu */
	uint16_t src, dst;        /* host indices */
	uint16_t sport;
	enum lsw_op_kind op;
	uint32_t mtu;
	/* requester (@src) */
	struct lsw_msg *msg;      /* req.c: messages from @msg_base on; [msg_head, msg_tail) */
	uint32_t msg_cap, msg_base, msg_head, msg_cur, msg_tail; /* absolute numbers: req.c */
				  /* posts (msg_tail) and builds (msg_cur), comp.c completes */
				  /* (msg_head, msg_cur on a rewind) */
	uint64_t snd_una, snd_nxt, snd_max, psn_end; /* comp.c: snd_una, snd_nxt on a rewind; */
				  /* req.c: snd_nxt and snd_max as it sends, psn_end as it posts */
	uint64_t next_tx;         /* req.c: pacing at the QP's rate (host.c: start) */
	uint64_t rto_at;          /* 0: no timer. req.c arms it, comp.c moves and fires it */
	uint32_t retries;         /* comp.c */
	bool error, active, ctl_ack, ctl_cnp; /* error: comp.c; active: req.c; ctl_ack and */
				  /* ctl_cnp: resp.c queues, xmit.c clears once sent */
	struct lsw_dcqcn_rp rp;   /* dcqcn.c, called by req.c (host.c: start) */
	/* responder (@dst) */
	uint64_t epsn;            /* resp.c, and trim.c as held packets fill a hole */
	uint32_t msn;             /* resp.c */
	bool nak_sent;            /* resp.c: a NAK went out for the current ePSN */
	uint8_t ack_syndrome;     /* resp.c: the ACK or NAK queued, */
	uint64_t ack_psn;         /* and the PSN it names */
	uint64_t last_cnp;        /* resp.c (dcqcn.c's NP) */
	/* Trims (trim.c): made on the QP's first trim, NULL until then. */
	struct lsw_trim_qp *trim;
	struct lsw_qp_stats st;   /* counted by the room that sees the event */
};

/* A host's run-time state. */
struct lsw_host {
	struct lsw_host_conf c;   /* config.c, before the run */
	uint16_t idx, port_id;    /* config.c and host.c; port_id: main.c */
	bool local;               /* config.c: run by this process */
	struct rte_ether_addr gw_mac; /* recv.c (ARP), host.c (static) */
	bool gw_resolved;         /* recv.c, host.c */
	bool arp_announced;       /* xmit.c: the first ARP request went out */
	uint64_t arp_next;        /* xmit.c: next ARP request (host.c: start) */
	bool arp_reply_due;       /* recv.c sets, xmit.c clears */
	uint32_t arp_reply_ip;    /* recv.c */
	struct rte_ether_addr arp_reply_mac; /* recv.c */
	/* An ICMP echo reply waiting (one at a time: ping sends one a second): recv.c makes
	 * it, xmit.c sends it and clears echo_len. */
	uint16_t echo_len;        /* 0: none */
	uint8_t echo[1514];       /* the request as received, turned into the reply */
	uint64_t link_next;       /* frame.c: the link is free from this time on */
	/* PFC received (pause.c): priority paused until; 802.3x pauses everything. */
	uint64_t rx_until[8], rx_since[8];
	uint64_t rx_port_until;
	/* PFC sent: the slow receiver (pause.c; recv.c fills rxbuf, xmit.c sends the frames
	 * and clears the _due flags, sets tx_refresh), and the storm (host.c arms it,
	 * xmit.c moves storm_next). */
	uint64_t rxbuf, rxbuf_at;
	bool tx_paused;           /* we pause the peer now (tx_*: we pause; rx_*: we are paused) */
	uint64_t tx_refresh, tx_since;
	bool pfc_xoff_due, pfc_xon_due;
	uint64_t storm_from, storm_until, storm_next; /* absolute; until 0: for ever */
	/* ACK/NAK and CNP frames waiting: QP indices, each at most once per kind. host.c makes
	 * the rings, resp.c pushes (tails), xmit.c pops (heads). */
	uint32_t *ctl_ack, *ctl_cnp;
	uint32_t ack_head, ack_tail, cnp_head, cnp_tail, ctl_cap;
	/* Requester QPs with something to send or to hear back: round robin. req.c adds and
	 * removes them, xmit.c moves rr. */
	uint32_t *active;
	uint32_t n_active, active_cap, rr;
	uint64_t rx_first, rx_last;  /* resp.c (and trim.c): first and last in-order data */
				     /* packet received */
	/* Trim NACKs waiting (trim.c; host.c makes the ring), and when the first NAK of any
	 * kind went out (frame.c) and the first timeout came (comp.c) (0: none): how soon a
	 * loss was asked for again. */
	struct lsw_trim_nak *trim_nak;
	uint32_t tnak_head, tnak_tail;
	uint64_t first_nak_ns, first_timeout_ns;
	uint64_t ctr[LSW_HC_MAX];    /* counted by the room that sees the event */
	struct lsw_host_port_stats ps; /* frame.c (tx), recv.c (rx), pause.c (pauses) */
};

/* The frame source and sink: DPDK ports in main.c, a fake wire in the tests. */
struct lsw_host_io {
	void *ctx;
	/* Room for @len bytes of a frame to send on @h's port, or NULL when none is free now. */
	uint8_t *(*tx_frame)(void *ctx, struct lsw_host *h, uint16_t len);
	/* Frames @h's port can take now. */
	uint32_t (*tx_room)(void *ctx, struct lsw_host *h);
};

/* Posted messages waiting for their time, in time order. */
struct lsw_post {
	uint64_t at;
	uint32_t qp, size;
	int32_t coll_step;
};

/* A ring all-reduce (as NCCL's ring): 2(n-1) steps, a barrier between them. */
struct lsw_coll {
	uint32_t *qps;            /* host i's QP to host i+1 */
	uint32_t n, steps, step, done_in_step, iterations, iter;
	uint32_t chunk;
	uint64_t start_at, start_ns, *jct_ns;
	uint64_t compute_ns;      /* each iteration's compute phase before its steps (10.1) */
	bool running;
};

/* A completed message. */
struct lsw_fct {
	uint32_t qp, seq, size;
	uint64_t post_ns, fct_ns, ideal_ns;
};

/* A rate sample of one QP. */
struct lsw_sample {
	uint64_t t_ns;
	uint32_t qp;
	float rate_bps, tx_bps, alpha;
	float stall_us;                    /* the emulator's stalls in the interval (below) */
};

/* A poll later than it asked by more than this: the process did not run (preempted). */
#define LSW_HOST_STALL_NS 1000000ull

struct lsw_hosts {
	struct lsw_host host[LSW_HOST_MAX];
	uint16_t n_hosts;                  /* config.c */
	struct lsw_qp *qp;                 /* host.c (lsw_hosts_add_qp, from workload.c) */
	uint32_t n_qps, qp_cap;
	struct lsw_post *post;             /* host.c: added by workload.c, taken by the poll */
	uint32_t n_posts, post_cap, post_next;
	struct lsw_coll *coll;             /* workload.c makes them; comp.c and host.c run */
	uint32_t n_coll;                   /* them (step, iteration, times) */
	struct lsw_fct *fct;               /* comp.c: every completed message */
	uint32_t n_fct, fct_cap;
	struct lsw_sample *sample;         /* host.c */
	uint32_t n_samples, sample_cap;
	uint64_t sample_ns, sample_next;   /* rate sampling interval (0: none): config.c; */
					   /* sample_next: host.c */
	/* The emulator's own hiccups, so that a lab tells them from what it measures: polls
	 * later than they asked (lsw_hosts_poll's last answer) by more than
	 * LSW_HOST_STALL_NS, and time a port's ring stayed full while frames waited (the
	 * switch took none; main.c adds it). Neither happens to a NIC. All host.c's but
	 * ring_full_ns (main.c). */
	uint64_t want_ns;                  /* when the last poll asked to be called again */
	uint64_t poll_ns;                  /* when the last poll ran */
	uint64_t stall_ns, stalls, stall_max_ns, ring_full_ns;
	uint64_t stall_sampled;            /* stall_ns + ring_full_ns at the last samples */
	uint32_t *idle, n_idle, idle_cap;  /* QPs gone idle since the last sample: req.c */
					   /* adds, host.c empties */
	uint64_t base_rtt_ns;              /* config.c: added to the ideal FCT of a message */
	uint64_t msgs_posted, msgs_done, msgs_failed, msgs_total; /* req.c posts, comp.c */
					   /* completes or fails; workload.c: msgs_total */
	uint64_t settle_ns;                /* config.c: from every gateway known to the */
					   /* workload */
	bool ready;                        /* host.c: the workload's clock runs (from start_ns) */
	uint64_t start_ns, now;            /* host.c (now: main.c too, before receiving) */
	struct lsw_host_io io;             /* main.c or the tests' wire */
};

/* Engine (host.c and its rooms, engine.h). */
void lsw_hosts_start(struct lsw_hosts *e, uint64_t now);
/* One received frame of @len bytes on host @h's port (recv.c). */
void lsw_host_rx(struct lsw_hosts *e, struct lsw_host *h, uint8_t *f, uint16_t len);
/* Run timers, posts and transmission up to @now; returns when something is next due
 * (UINT64_MAX: nothing until a frame arrives). */
uint64_t lsw_hosts_poll(struct lsw_hosts *e, uint64_t now);
/* Every message posted, none left to post: the run's work is done. */
bool lsw_hosts_done(const struct lsw_hosts *e);
void lsw_hosts_free(struct lsw_hosts *e);

/* Building a run (host.c, for workload.c): a QP from @src to @dst, a message posted at
 * @at. */
int lsw_hosts_add_qp(struct lsw_hosts *e, uint16_t src, uint16_t dst, enum lsw_op_kind op);
int lsw_hosts_add_post(struct lsw_hosts *e, uint64_t at, uint32_t qp, uint32_t size,
		       int32_t coll_step);
/* Sort the posts by time, once every one is added. */
void lsw_hosts_sort_posts(struct lsw_hosts *e);
/* Wire bytes of a frame of @len bytes: FCS, preamble and inter-frame gap, 64 at least. */
static inline uint32_t
lsw_wire_bytes(uint32_t len)
{
	return (len < 60 ? 60 : len) + 24;
}

#endif
