/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * State shared between the control plane (main lcore) and the workers, and each worker's
 * private state. Every shared field says who writes it: "cp" is the main lcore, "dp" the
 * workers; both sides access it through include/lsw/shared.h. Nothing here takes a lock.
 */
#ifndef LSW_DATAPLANE_H
#define LSW_DATAPLANE_H

#include <stdint.h>
#include <stdbool.h>
#include <rte_ether.h>
#include <rte_ip.h>
#include <rte_hash_crc.h>
#include <rte_lcore.h>
#include <rte_mbuf.h>
#include <rte_ring.h>
#include <rte_rcu_qsbr.h>
#include "lsw/capture.h"
#include "lsw/common.h"
#include "lsw/counters.h"
#include "lsw/dropsnap.h"
#include "lsw/ecmp.h"
#include "lsw/fib.h"
#include "lsw/fib6.h"
#include "lsw/buffer.h"
#include "lsw/parse.h"
#include "lsw/sched.h"
#include "lsw/timeline.h"
#include "lsw/trim.h"

/* A port as the fast path sees it; part of the immutable snapshot. */
struct lsw_port_dp {
	uint16_t port_id;   /* DPDK ethdev id */
	uint16_t owner;     /* index of the worker that runs this port's rx and tx */
	uint8_t admin_up;
	uint8_t suspended;  /* being reconfigured: no rx or tx burst, queues are kept */
	uint8_t n_addr;
	uint16_t mtu;       /* IP MTU */
	struct rte_ether_addr mac;
	uint32_t addr[LSW_MAX_ADDRS]; /* host order */
	uint8_t plen[LSW_MAX_ADDRS];
	/* PFC */
	uint8_t pfc_enable;           /* priorities paused and honoured */
	uint8_t rx_pause;             /* honour 802.3x PAUSE (whole port) */
	uint16_t pfc_quanta;          /* the time our XOFF frames carry */
	uint8_t pfc_to_q[8];          /* received PFC priority -> queue it pauses */
	uint8_t pg_prios[8];          /* our PG -> pfc_enable priorities it pauses the peer for */
	uint8_t wd_ignore_pause;      /* queues whose received pause is ignored (watchdog) */
	uint8_t wd_drop;              /* queues stormed with action drop (watchdog) */
	/* Routed frames leave priority-tagged (VID 0) with this PCP per TC; 0: untagged. */
	uint8_t prio_tag;
	uint8_t tc_pcp[LSW_NUM_TC];
	/* IPv6: the configured addresses, and the link-local one (from mac, EUI-64). Last:
	 * the fields above, which every routed packet reads, stay on the first lines. */
	uint8_t n_addr6;
	uint8_t plen6[LSW_MAX_ADDRS6];
	uint8_t addr6[LSW_MAX_ADDRS6][16];
	uint8_t ll6[16];
};

/* The configuration the workers run with. Immutable once published: the control plane builds
 * a new one, stores its pointer, waits for a grace period and frees the old one. */
struct lsw_snapshot {
	uint16_t n_ports;
	uint16_t n_workers;
	uint32_t idle_sleep_us;   /* sleep when a loop found nothing to do; 0 = busy poll */
	uint8_t direct;           /* forwarding "direct": no MMU, queues or shaper (baseline) */
	uint32_t ecmp_seed;
	uint8_t cnp_tc;               /* LSW_CNP_TC_DSCP: classify CNPs by their DSCP */
	uint32_t arp_retry_ms;    /* ARP request interval for a held next hop */
	uint32_t arp_tries;       /* requests before held packets are dropped */
	uint32_t icmp_rate;       /* ICMP errors per second, switch-wide */
	uint32_t icmp_burst;
	/* Ports admin or oper down (bit per port): every ECMP mode leaves them out. */
	uint32_t ecmp_down;
	/* Capture sessions running (control/capture.c); their masks share the hot line. */
	struct lsw_capture_dp capture;
	struct lsw_port_dp port[LSW_MAX_PORTS];
	/* Ports each worker owns, derived from port[].owner so the loop need not search. */
	uint8_t n_owned[LSW_MAX_WORKERS];
	uint8_t owned[LSW_MAX_WORKERS][LSW_MAX_PORTS];
	struct lsw_sched_dp sched[LSW_MAX_PORTS];
	struct lsw_buffer_dp buffer;
	/* Read only when a queue is past its lowest threshold: kept out of the hot lines. */
	struct lsw_ecn_dp ecn[LSW_MAX_PORTS][LSW_NUM_QUEUES];
	struct lsw_ecmp_dp ecmp;  /* quality thresholds, group modes (control/ecmp.c) */
	struct lsw_timeline_dp timeline; /* what the recorder records (control/timeline.c) */
	struct lsw_trim_dp trim;  /* packet trimming; read only when a packet is refused */
};
_Static_assert(LSW_MAX_PORTS <= 32, "ecmp_down and the capture masks have a bit per port");

/* Worker to control plane: an ARP (or NDP) packet told us @ip is at @mac on @port. */
enum lsw_neigh_msg_flag {
	LSW_NEIGH_MSG_UPDATE_ONLY = 1, /* gratuitous: refresh an existing entry, create none */
	LSW_NEIGH_MSG_V6 = 2,          /* from NDP: ip6 holds the address, ip is unused */
};

struct lsw_neigh_msg {
	uint32_t ip;
	uint16_t port;
	uint16_t flags;
	uint64_t mac;
	uint8_t ip6[16];
};

/* What a worker has handed to each other worker (entries, wrapping), on a line of its own:
 * an owner looks at one word per sender each loop and polls that sender's rings only when
 * it has not taken all of it, not every (sender, port) ring of every worker (tx.c). */
struct lsw_ho_bell {
	uint32_t sent[LSW_MAX_WORKERS]; /* dp: the sender writes (relaxed); its owners read */
} __rte_cache_aligned;

struct lsw_dp {
	struct lsw_snapshot *conf;   /* cp: lsw_publish; dp: lsw_acquire once per loop */
	struct lsw_fib *fib;        /* cp: set before workers start */
	struct lsw_fib6 *fib6;      /* cp: set before workers start */
	struct rte_rcu_qsbr *qsv;   /* cp: set before workers start; thread id = worker index */
	/* handoff[w][p]: packets from worker w for port p, when w does not own p (SP/SC,
	 * elements struct lsw_hoent). */
	struct rte_ring *handoff[LSW_MAX_WORKERS][LSW_MAX_PORTS]; /* cp: set at start-up */
	struct lsw_ho_bell *ho_bell; /* cp: [LSW_MAX_WORKERS] at start-up; NULL: poll every ring */
	struct rte_ring *neigh_ring; /* dp: enqueue (MP); cp: dequeue (SC) */
	struct rte_mempool *pool;   /* cp: set at start-up */
	struct rte_mempool *pfc_pool; /* cp: set at start-up; PFC frames only (NULL: pool) */
	struct lsw_lcore_counters *ctr; /* [n_workers]; each written only by its worker */
	uint64_t tsc_hz;            /* cp: set at start-up */
	uint16_t n_workers;         /* cp: set at start-up */
	int quit;                   /* cp: lsw_publish 1 to stop; dp: lsw_acquire */
	/* The buffer accounting of each worker, each written by its worker only
	 * (include/lsw/buffer.h). */
	struct lsw_buffer_lcore *buffer[LSW_MAX_WORKERS]; /* cp: set at start-up */
	/* Egress queues of each port; used only by the port's owner worker. */
	struct lsw_sched *sched[LSW_MAX_PORTS];        /* cp: set at start-up */
	uint64_t wm_clear_gen;      /* cp: lsw_publish +1 to clear watermarks; dp: lsw_acquire */
	/* Drop/mark snapshots: ring of each worker (SP: the worker, SC: the main lcore). */
	struct rte_ring *dropsnap[LSW_MAX_WORKERS];    /* cp: set at start-up; NULL = none */
	/* LSW_DROPSNAP_* bits; cp: lsw_store_relaxed; dp: lsw_load_relaxed. */
	uint8_t dropsnap_mode;
	/* Live capture: ring of each worker (SP: the worker, SC: the main lcore) and the pools
	 * of the copies (lsw/capture.h). cp: created on the first capture.start, before the
	 * snapshot that names a session (which publishes them to the workers), freed at
	 * teardown. */
	struct rte_ring *capture[LSW_MAX_WORKERS];
	struct rte_mempool *capture_pool;              /* whole frames */
	struct rte_mempool *capture_small;             /* copies of LSW_CAPTURE_SMALL bytes */
	/* Uplink quality of each port: its owner worker writes, every worker reads. */
	struct lsw_ecmp_sig *ecmp_sig;                 /* cp: [LSW_MAX_PORTS] at start-up */
	/* ICMP error limit, switch-wide: tsc when the bucket is full again (icmp.c). */
	uint64_t icmp_tat;                             /* dp: every worker, lsw_cas_relaxed */
	/* Timeline records of each worker (SP: the worker, SC: the main lcore); created by
	 * the control plane before the first snapshot that turns the recorder on. */
	struct rte_ring *timeline[LSW_MAX_WORKERS];    /* cp: set once, NULL until then */
};

struct lsw_txbuf {
	uint16_t n;
	struct rte_mbuf *pkt[LSW_BURST];
};

/*
 * A packet handed to the owner of its egress port (tx.c): the mbuf, with its egress queue
 * and kind in the pointer's low bits (an mbuf is cache-line aligned), and what admission
 * charged it, laid out as a queue entry's tail (struct lsw_qent). The owner queues it from
 * the entry alone: the mbuf's lines stay where they are until the frame is sent.
 */
struct lsw_hoent {
	uintptr_t mq;
	struct lsw_charge c;
};
_Static_assert(sizeof(struct lsw_hoent) == 16, "a handoff entry is four ring words");
enum {
	LSW_HO_QUEUE = 7,   /* the egress queue of a data packet */
	LSW_HO_CTL = 8,     /* switch-originated (ARP, ICMP): the control queue, uncharged */
	LSW_HO_DIRECT = 16, /* forwarding direct: sent as it comes, no queue, uncharged */
};
_Static_assert(LSW_NUM_QUEUES - 1 <= LSW_HO_QUEUE && RTE_CACHE_LINE_SIZE > LSW_HO_DIRECT,
	       "the queue and kind fit below an mbuf's alignment");
static inline struct rte_mbuf *
lsw_hoent_mbuf(uintptr_t mq)
{
	return (struct rte_mbuf *)(mq & ~(uintptr_t)(RTE_CACHE_LINE_SIZE - 1));
}

/* Bursts a port may send per loop: enough for 4 ingress ports. */
#define LSW_TX_ROUNDS 4
/* Entries of each (worker, port) handoff ring: room for the owner to fall a few loops
 * behind without the sender stopping; a full ring stops the sender's rx (tx.c). */
#define LSW_HANDOFF_RING  256
/* A sender's stage per port holds two bursts: the one the ring refused and the next. */
#define LSW_HANDOFF_STAGE (2 * LSW_BURST)

struct lsw_hostage {
	uint16_t n;
	struct lsw_hoent e[LSW_HANDOFF_STAGE];
};

#define LSW_HOLD_SLOTS 32 /* next hops, both families together */
#define LSW_HOLD_PKTS  4

/* A next hop's address, either family: what the hold queue (nexthop.c) waits on. */
struct lsw_nh_addr {
	uint8_t v6;         /* 0: IPv4 (ip), 1: IPv6 (ip6 and nh) */
	uint16_t nh;        /* IPv6: the route's next-hop id, LSW_MAX_NH6 when none (glean) */
	uint32_t ip;
	uint8_t ip6[16];
};

/* Packets waiting for one next hop to be resolved by ARP or NDP (the worker's own). */
struct lsw_hold_slot {
	struct lsw_nh_addr a;
	uint16_t port;
	uint8_t used;     /* 0: a free slot */
	uint8_t n;
	uint8_t tries;    /* requests or solicitations sent */
	uint8_t in_port[LSW_HOLD_PKTS]; /* where each packet came in, to charge a drop */
	uint64_t next_try; /* tsc of the next request or of the give-up */
	struct rte_mbuf *pkt[LSW_HOLD_PKTS];
};

struct lsw_worker {
	struct lsw_dp *dp;
	/* dp->fib and its LPM, which never change once the worker exists: read from here,
	 * the route lookup's chain of dependent loads is two shorter than through dp. */
	const struct lsw_fib *fib;
	const struct rte_lpm *lpm;
	uint16_t idx;
	unsigned int lcore;
	struct lsw_lcore_counters *ctr;
	uint16_t n_held;                 /* busy hold slots (hold[], below) */
	struct lsw_buffer_lcore *buffer;    /* this worker's share of the buffer */
	uint16_t n_adm;                  /* routed packets waiting for admission */
	struct rte_mbuf *adm[LSW_BURST];
	struct lsw_txbuf txb[LSW_MAX_PORTS]; /* direct forwarding: staging per port */
	uint64_t rng;                    /* ECN/WRED draws (lsw_rand48) */
	uint64_t sleep_late;             /* ticks usleep() wakes late, on average */
	uint64_t rx_read;                /* TSC of this loop's rx read (rx_ports) */
	uint64_t rx_read_prev;           /* the one before: its frames came since (tx.c) */
	uint64_t dear_at;                /* when the last dear sched_yield() came back (TSC) */
	uint64_t sleep_until;            /* short waits sleep, not yield, until then (TSC) */
	bool shares_cpu;                 /* another worker runs on this CPU (set at launch) */
	struct lsw_timeline_worker tl;   /* the recorder's interval and baselines */
	/* What is rare, last: the hot fields above stay in few lines. */
	struct lsw_hold_slot hold[LSW_HOLD_SLOTS]; /* next hops being resolved (nexthop.c) */
	/* The addresses each port last announced (unsolicited NA): link-local, then global */
	uint8_t na_sent[LSW_MAX_PORTS][LSW_MAX_ADDRS6 + 1][16];
	/* Handing over to other workers' ports (tx.c): ports whose stage the ring left
	 * packets in (the worker takes no rx burst until they are handed over), whether the
	 * last burst's admission ran out of packets (MBUF_LIMIT: the next loop takes none
	 * either), the ring the owner drains first, and the stages. */
	uint32_t ho_full;
	uint32_t ho_staged;              /* ports whose stage holds packets */
	uint32_t tx_staged;              /* ports whose txb holds packets (direct) */
	uint8_t rx_hold;
	uint16_t rx_first;               /* the owned port (index) the next loop reads first */
	uint16_t ho_first;
	uint32_t ho_got[LSW_MAX_WORKERS]; /* entries taken from each sender (its ho_bell) */
	/* Drop snapshots (dropsnap.c): room left in the ring as last seen, and the loop + 1
	 * in which it was found full. */
	uint32_t snap_room;
	uint64_t snap_full_at;
	struct lsw_hostage hob[LSW_MAX_PORTS];
} __rte_cache_aligned; /* workers sit side by side in an array: no line is shared */

/* worker.c */
/*
 * A worker with a wait ahead shorter than a sleep's lateness yields the CPU, unless yields
 * have been dear lately; then it sleeps the shortest sleep. On a quiet CPU, or one shared
 * with other workers and lsw-host, a yield comes back within their loop. A CPU-bound
 * process that the kernel moves onto the worker's CPU keeps it a scheduler tick (4 ms) at
 * each yield, while a sleep's wake-up preempts it (the worker runs niced -10). One dear
 * yield now and then is another process's turn; two within @window ticks make the worker
 * sleep for @hold ticks, after which it tries yields again.
 */
static inline bool
lsw_wait_yields(uint64_t sleep_until, uint64_t now)
{
	return (int64_t)(now - sleep_until) >= 0;
}

/* Whether worker @w's CPUs (@cpus[w], of @n workers) are another worker's too (`"LCORE@CPU"`
 * in LSW.global.workers): such workers take turns by yielding, whatever a yield costs. */
static inline bool
lsw_cpus_shared(const rte_cpuset_t *cpus, uint16_t n, uint16_t w)
{
	for (uint16_t i = 0; i < n; i++) {
		rte_cpuset_t both;
		CPU_AND(&both, &cpus[w], &cpus[i]);
		if (i != w && CPU_COUNT(&both) != 0)
			return true;
	}
	return false;
}

/* Note a yield that kept the CPU away @cost ticks and came back at @t. */
static inline void
lsw_yield_note(uint64_t *dear_at, uint64_t *sleep_until, uint64_t cost, uint64_t t,
	       uint64_t dear, uint64_t window, uint64_t hold)
{
	if (cost < dear)
		return;
	if (t - *dear_at < window)
		*sleep_until = t + hold;
	*dear_at = t;
}
void lsw_worker_init(struct lsw_worker *w, struct lsw_dp *dp, uint16_t idx, unsigned int lcore);
int lsw_worker_main(void *arg);
void lsw_process_burst(struct lsw_worker *w, const struct lsw_snapshot *conf, uint16_t port,
		       struct rte_mbuf **pkts, uint16_t n, uint64_t now);
void lsw_worker_drop_all(struct lsw_worker *w, const struct lsw_snapshot *conf);
/* Whether the loop takes rx bursts: not while a handoff ring is full (its owner is behind:
 * the stages are handed over first), nor for a loop after the buffer ran out of packets.
 * The excess then waits, and is dropped, in the rx queues, at no cost to the workers; the
 * egress runs either way, at its full rate. Counts RX_HELD when not. */
bool lsw_worker_rx_gate(struct lsw_worker *w, const struct lsw_snapshot *conf);
/* The loop's second half, after the rx bursts: handoff rings, ARP holds, then per owned
 * port PFC, ECMP quality and the egress; staged packets flushed. Returns packets moved. */
uint32_t lsw_worker_egress(struct lsw_worker *w, const struct lsw_snapshot *conf, uint64_t now);
/* admit.c: admit what lsw_admit_enqueue collected, in runs, and queue it. */
void lsw_admit_flush(struct lsw_worker *w, const struct lsw_snapshot *conf);
/* Would the PFC watchdog drop @m (its queue or its priority stormed)? Counted when so. */
bool lsw_wd_dropped(struct lsw_worker *w, const struct lsw_snapshot *conf, struct rte_mbuf *m);
/* Queue a routed packet whose meta has in_port, tc and pg (one the hold queue released)
 * for admission to @out, either family. */
void lsw_l3_output(struct lsw_worker *w, const struct lsw_snapshot *conf, uint16_t out,
		   struct rte_mbuf *m);

/* nexthop.c: packets wait for their next hop's MAC, both families. */
void lsw_nexthop_hold(struct lsw_worker *w, const struct lsw_snapshot *conf, uint16_t in_port,
		      uint16_t port, const struct lsw_nh_addr *a, struct rte_mbuf *m,
		      uint64_t now);
void lsw_nexthop_poll(struct lsw_worker *w, const struct lsw_snapshot *conf, uint64_t now);
void lsw_nexthop_drop_held(struct lsw_worker *w);

/* addr.c: the port's own addresses. */
bool lsw_port_has_addr(const struct lsw_port_dp *p, uint32_t ip);
bool lsw_port_on_link(const struct lsw_port_dp *p, uint32_t ip);
uint32_t lsw_port_src_addr(const struct lsw_port_dp *p, uint32_t dst);
bool lsw_port_has_addr6(const struct lsw_port_dp *p, const uint8_t *ip);
bool lsw_port_on_link6(const struct lsw_port_dp *p, const uint8_t *ip);
/* The port address to speak from towards @dst: global on its subnet, else the first
 * global, else the link-local one (always: a link-local @dst gets the link-local one). */
const uint8_t *lsw_port_src_addr6(const struct lsw_port_dp *p, const uint8_t *dst);

/* RFC 1624 incremental update of a header checksum @csum (network order) for one 16-bit
 * word changed from @old to @new (host order): HC' = ~(~HC + ~m + m'). */
static inline rte_be16_t
lsw_csum_update16(rte_be16_t csum, uint16_t old, uint16_t new)
{
	uint32_t sum = (uint16_t)~rte_be_to_cpu_16(csum);

	sum += (uint16_t)~old;
	sum += new;
	sum = (sum & 0xffff) + (sum >> 16);
	sum = (sum & 0xffff) + (sum >> 16);
	return rte_cpu_to_be_16((uint16_t)~sum);
}

/* ipv4.c */
void lsw_ipv4_input(struct lsw_worker *w, const struct lsw_snapshot *conf, uint16_t in_port,
		    struct rte_mbuf *m, const struct lsw_pkt_info *pi, uint64_t now);
/* Forward @m, received on @in_port (@p), by the fast path when it is a frame for it (see
 * ipv4.c): true when it took @m, false when @m is left as it was, for lsw_parse and
 * the careful way. */
bool lsw_ipv4_fast(struct lsw_worker *w, const struct lsw_snapshot *conf, uint16_t in_port,
		   const struct lsw_port_dp *p, struct rte_mbuf *m, uint64_t now);
void lsw_ipv4_ttl_dec(struct rte_ipv4_hdr *ip);
/* The CRC of the 5-tuple, before any seed; non-first fragments and other protocols hash
 * on addresses and protocol. Inline: it runs for every packet to a group. */
static inline uint32_t
lsw_flow_crc(const struct rte_ipv4_hdr *ip, const struct lsw_pkt_info *pi)
{
	uint32_t h = rte_hash_crc_4byte(ip->src_addr, 0);

	h = rte_hash_crc_4byte(ip->dst_addr, h);
	h = rte_hash_crc_4byte((uint32_t)pi->sport << 16 | pi->dport, h);
	return rte_hash_crc_4byte(pi->l4_proto, h);
}

/* The default ECMP hash: the 5-tuple CRC mixed with the group's seed. */
static inline uint32_t
lsw_ecmp_hash(const struct rte_ipv4_hdr *ip, const struct lsw_pkt_info *pi, uint32_t seed)
{
	return lsw_hash_mix(lsw_flow_crc(ip, pi), seed);
}

/* ipv6.c */
void lsw_ipv6_input(struct lsw_worker *w, const struct lsw_snapshot *conf, uint16_t in_port,
		    struct rte_mbuf *m, const struct lsw_pkt_info *pi, uint64_t now);

/* ndp.c */
/* An ICMPv6 message for the switch (to one of its addresses or a link-scope group):
 * NS, NA, echo; the rest is dropped and counted. */
void lsw_ndp_local(struct lsw_worker *w, const struct lsw_snapshot *conf, uint16_t in_port,
		   struct rte_mbuf *m, const struct lsw_pkt_info *pi, uint64_t now);
void lsw_ndp_solicit(struct lsw_worker *w, const struct lsw_snapshot *conf, uint16_t port,
		     const uint8_t *target);
/* Unsolicited NAs for the addresses of the owned ports that @conf has and the last
 * announcement had not (all of them at start); ports without an IPv6 address: none. */
void lsw_ndp_announce(struct lsw_worker *w, const struct lsw_snapshot *conf);

/* icmp6.c */
/* The ICMPv6 checksum of @len bytes at @l4 (its checksum field included) with the pseudo
 * header of @ip: 0xffff when it verifies. */
uint16_t lsw_icmp6_sum(const struct rte_ipv6_hdr *ip, const void *l4, uint32_t len);
enum lsw_drop lsw_icmp6_echo_reply(struct rte_mbuf *m, const struct lsw_pkt_info *pi,
				   const struct lsw_port_dp *port);
void lsw_icmp6_error(struct lsw_worker *w, const struct lsw_snapshot *conf, uint16_t in_port,
		     struct rte_mbuf *orig, const struct lsw_pkt_info *pi, uint8_t type,
		     uint8_t code, uint32_t mtu, uint64_t now);

/* icmp.c */
/* A reply's Ethernet header, at the data's start: a VLAN tag is dropped. */
struct rte_ether_hdr *lsw_icmp_untag(struct rte_mbuf *m, const struct lsw_pkt_info *pi);
/* May a worker send an ICMP error at @now? Takes a token of the switch-wide bucket. */
bool lsw_icmp_allow(struct lsw_dp *dp, const struct lsw_snapshot *conf, uint64_t now);
enum lsw_drop lsw_icmp_echo_reply(struct rte_mbuf *m, const struct lsw_pkt_info *pi,
				  const struct lsw_port_dp *port);
void lsw_icmp_error(struct lsw_worker *w, const struct lsw_snapshot *conf, uint16_t in_port,
		    struct rte_mbuf *orig, const struct lsw_pkt_info *pi, uint8_t type,
		    uint8_t code, uint16_t mtu, uint64_t now);

/* arp.c */
void lsw_arp_input(struct lsw_worker *w, const struct lsw_snapshot *conf, uint16_t in_port,
		   struct rte_mbuf *m, const struct lsw_pkt_info *pi);
void lsw_arp_request(struct lsw_worker *w, const struct lsw_snapshot *conf, uint16_t port,
		     uint32_t ip);

/* pfc.c */
void lsw_pfc_input(struct lsw_worker *w, const struct lsw_snapshot *conf, uint16_t port,
		   struct rte_mbuf *m, const struct lsw_pkt_info *pi, uint64_t now);
void lsw_pfc_update(struct lsw_worker *w, const struct lsw_snapshot *conf, uint16_t port,
		    uint64_t now);
/* Per loop, per owned port: expire pauses, decide XOFF/XON/refresh from the PGs. Inline
 * for its exit on ports without PFC or pauses (most of them, every loop). */
static inline void
lsw_pfc_poll(struct lsw_worker *w, const struct lsw_snapshot *conf, uint16_t port, uint64_t now)
{
	const struct lsw_port_dp *p = &conf->port[port];
	const struct lsw_pfc_port *pf = &w->dp->sched[port]->pfc;

	if (p->pfc_enable | pf->rx_paused | pf->rx_port_paused | pf->tx_xoff_pg | pf->tx_paused |
	    (pf->ignore_applied ^ p->wd_ignore_pause))
		lsw_pfc_update(w, conf, port, now);
}
/* The pending PFC frame of @port, built now (NULL: none pending, or no mbuf). */
struct rte_mbuf *lsw_pfc_take_frame(struct lsw_worker *w, const struct lsw_snapshot *conf,
				    uint16_t port, uint64_t now);

/* ecn.c: ECN mark (counted) or WRED drop verdict (true: the caller drops) for @m leaving
 * queue @q of @port with @qlen bytes behind it. */
bool lsw_ecn_dequeue(struct lsw_worker *w, const struct lsw_ecn_dp *a, uint16_t port, uint8_t q,
		     struct rte_mbuf *m, uint64_t qlen);

/* ecmp.c */
/* Publish which queues of @port PFC pauses at @now (owner; after every pause change). */
void lsw_ecmp_publish_paused(struct lsw_worker *w, uint16_t port, uint64_t now);
void lsw_ecmp_port_sample(struct lsw_worker *w, const struct lsw_snapshot *conf, uint16_t port,
			  uint64_t now);
/* Per loop, per owned port: a quality sample when the interval has passed. */
static inline void
lsw_ecmp_poll(struct lsw_worker *w, const struct lsw_snapshot *conf, uint16_t port, uint64_t now)
{
	if (unlikely(now - w->dp->ecmp_sig[port].last >= conf->ecmp.sample))
		lsw_ecmp_port_sample(w, conf, port, now);
}
/* A packet of @len bytes to member @i of group @eg, counted on this worker. */
static inline void
lsw_ecmp_count(const struct lsw_worker *w, const struct lsw_ecmp_grp_dp *eg, uint8_t i,
	       uint32_t len)
{
	struct lsw_ecmp_member_ctr *c = &eg->ws[w->idx].ctr.member[i];

	c->pkts++;
	c->bytes += len;
}
/* @ip: the IPv4 header, or the IPv6 one when @v6 (@g is then a group of the IPv6 FIB). */
uint8_t lsw_ecmp_select(struct lsw_worker *w, const struct lsw_snapshot *conf,
			const struct lsw_ecmp_grp_dp *eg, const struct lsw_nhg *g, bool v6,
			const void *ip, const struct lsw_pkt_info *pi, uint8_t tc, uint64_t now);
/* The egress port of next hop @id of the IPv6 FIB (@v6) or the IPv4 one. */
static inline uint16_t
lsw_nh_port(const struct lsw_dp *dp, bool v6, uint32_t id)
{
	return v6 ? dp->fib6->nh[id].port : dp->fib->nh[id].port;
}

/* The members of @g (a group of the IPv6 FIB when @v6) whose port is up (bit per member). */
static inline uint32_t
lsw_ecmp_live(const struct lsw_dp *dp, bool v6, const struct lsw_snapshot *conf,
	      const struct lsw_nhg *g)
{
	uint32_t live = 0;

	for (uint8_t i = 0; i < g->n; i++)
		if (!(conf->ecmp_down >> lsw_nh_port(dp, v6, g->member[i]) & 1))
			live |= 1u << i;
	return live;
}

/* tx.c */
void lsw_tx_enqueue(struct lsw_worker *w, const struct lsw_snapshot *conf, uint16_t port,
		    struct rte_mbuf *m);
void lsw_tx_ctl(struct lsw_worker *w, const struct lsw_snapshot *conf, uint16_t port,
		struct rte_mbuf *m);
void lsw_tx_flush(struct lsw_worker *w, const struct lsw_snapshot *conf, uint16_t port);
void lsw_tx_flush_all(struct lsw_worker *w, const struct lsw_snapshot *conf);

uint32_t lsw_tx_drain_handoff(struct lsw_worker *w, const struct lsw_snapshot *conf);
/* Give @port's stage to its ring; what the ring cannot take stays, and marks ho_full. */
void lsw_handoff_flush(struct lsw_worker *w, const struct lsw_snapshot *conf, uint16_t port);
/* Every stage that holds packets; returns ho_full after it. */
uint32_t lsw_handoff_flush_all(struct lsw_worker *w, const struct lsw_snapshot *conf);
void lsw_handoff_drop(struct lsw_worker *w, const struct lsw_snapshot *conf, uint16_t port,
		      const struct lsw_hoent *e, enum lsw_drop why);

/* Stage @m (@mq: the mbuf with its LSW_HO_* bits) and its charge @c for @port, which
 * another worker owns. The stage goes to the ring at a burst, unless the ring was full: then
 * only when it is full itself (the rx it comes from has stopped by then, so it never is). */
static inline void
lsw_handoff_put(struct lsw_worker *w, const struct lsw_snapshot *conf, uint16_t port,
		uintptr_t mq, const struct lsw_charge *c)
{
	struct lsw_hostage *b = &w->hob[port];

	if (unlikely(b->n == LSW_HANDOFF_STAGE)) {
		lsw_handoff_flush(w, conf, port);
		if (b->n == LSW_HANDOFF_STAGE) {
			const struct lsw_hoent e = {.mq = mq, .c = *c};
			lsw_handoff_drop(w, conf, port, &e, LSW_DROP_TX_RING_FULL);
			return;
		}
	}
	b->e[b->n].mq = mq;
	b->e[b->n].c = *c;
	w->ho_staged |= 1u << port;
	if (++b->n >= LSW_BURST && !(w->ho_full >> port & 1))
		lsw_handoff_flush(w, conf, port);
}

/* Stage @k data packets @m of queue @q of @port, charged as @c says, if the stage has room
 * for them all (false: none staged). */
static inline bool
lsw_handoff_put_run(struct lsw_worker *w, const struct lsw_snapshot *conf, uint16_t port,
		    struct rte_mbuf *const *m, uint8_t q, const struct lsw_charge *c, uint16_t k)
{
	struct lsw_hostage *b = &w->hob[port];
	struct lsw_hoent *e = b->e + b->n;

	if (b->n + k > LSW_HANDOFF_STAGE)
		return false;
	for (uint16_t i = 0; i < k; i++) {
		e[i].mq = (uintptr_t)m[i] | q;
		e[i].c = c[i];
	}
	b->n = (uint16_t)(b->n + k);
	w->ho_staged |= 1u << port;
	if (b->n >= LSW_BURST && !(w->ho_full >> port & 1))
		lsw_handoff_flush(w, conf, port);
	return true;
}

/* Stage @m for @port: sent once LSW_BURST are staged or at the loop's end
 * (lsw_tx_flush_all), or handed to the port's owner. Inline: direct forwarding stages every
 * packet. */
static inline void
lsw_tx_stage(struct lsw_worker *w, const struct lsw_snapshot *conf, uint16_t port,
	     struct rte_mbuf *m)
{
	struct lsw_txbuf *b = &w->txb[port];

	if (unlikely(conf->port[port].owner != w->idx)) {
		const struct lsw_charge c = {.len = (uint16_t)m->pkt_len};
		lsw_handoff_put(w, conf, port, (uintptr_t)m | LSW_HO_DIRECT, &c);
		return;
	}
	b->pkt[b->n++] = m;
	w->tx_staged |= 1u << port;
	if (b->n == LSW_BURST)
		lsw_tx_flush(w, conf, port);
}

/* Queue a routed packet whose meta is complete (out_port and queue too) for admission to
 * @out's queue. Admission runs per burst (lsw_admit_flush), so that packets of one class
 * share the work. Inline: the forwarding path knows the ports' state. */
static __rte_always_inline void
lsw_admit_enqueue(struct lsw_worker *w, const struct lsw_snapshot *conf, uint16_t in,
		  const struct lsw_port_dp *op, uint16_t out, struct rte_mbuf *m)
{
	if (unlikely(op->wd_drop | conf->port[in].wd_drop) && lsw_wd_dropped(w, conf, m))
		return;
	if (unlikely(conf->direct)) { /* lsw_tx_enqueue's choice, without its call */
		lsw_tx_stage(w, conf, out, m);
		return;
	}
	w->adm[w->n_adm++] = m;
	if (w->n_adm == LSW_BURST)
		lsw_admit_flush(w, conf);
}

/* Send what the scheduler and shaper allow on @port now (owner only). */
uint32_t lsw_egress_run(struct lsw_worker *w, const struct lsw_snapshot *conf, uint16_t port,
			uint64_t now);
/* Ticks until @port has something to do: its next frame under the shaper, or a PFC frame
 * (due, or an XOFF refresh); 0 = now, UINT64_MAX = nothing queued. */
uint64_t lsw_egress_wait(struct lsw_worker *w, const struct lsw_snapshot *conf, uint16_t port,
			 uint64_t now);
void lsw_egress_drop_all(struct lsw_worker *w, const struct lsw_snapshot *conf, uint16_t port,
			 enum lsw_drop why);

/* timeline.c */
void lsw_timeline_sample(struct lsw_worker *w, const struct lsw_snapshot *conf, uint64_t now);
void lsw_timeline_event(struct lsw_worker *w, uint8_t kind, uint16_t port, uint8_t idx,
			uint32_t v0, uint64_t now);
/* An event record made by the caller (one with more than v0 to say). */
void lsw_timeline_put(struct lsw_worker *w, const struct lsw_tl_rec *r);
/* Per loop: the samples, when a timeline runs and the interval has passed (or a new run
 * began). Off, it costs one predictable branch. */
static inline void
lsw_timeline_poll(struct lsw_worker *w, const struct lsw_snapshot *conf, uint64_t now)
{
	if (unlikely(conf->timeline.what != 0) &&
	    (w->tl.gen != conf->timeline.gen || (int64_t)(now - w->tl.next) >= 0))
		lsw_timeline_sample(w, conf, now);
}
/* Whether event sites record: a timeline runs with "events". */
static inline bool
lsw_timeline_events(const struct lsw_snapshot *conf)
{
	return unlikely(conf->timeline.what & LSW_TL_W(EVENTS));
}

/* dropsnap.c: copy what is known of @m into the worker's snapshot ring (or count a miss). */
void lsw_dropsnap_take(struct lsw_worker *w, uint16_t port, uint8_t kind, uint16_t reason,
		       struct rte_mbuf *m);

/* capture.c: copy what the sessions of @port want of @pkts, received at @now, into the
 * worker's capture ring (or count it missed). */
void lsw_capture_rx(struct lsw_worker *w, const struct lsw_snapshot *conf, uint16_t port,
		    struct rte_mbuf **pkts, uint16_t n, uint64_t now);
/* rte_eth_tx_burst of @port with the sessions' copies of what the PMD took (before the
 * burst: the PMD may free a frame as soon as it has it). Returns how many it took. */
uint16_t lsw_capture_tx_burst(struct lsw_worker *w, const struct lsw_snapshot *conf,
			      uint16_t port, struct rte_mbuf **pkts, uint16_t n);

/* counters.c: count @m dropped on @port for @d (and snapshot it), and free it. Out of
 * line: there are many call sites, and none is on the forwarding path. */
void lsw_count_drop(struct lsw_worker *w, uint16_t port, enum lsw_drop d, struct rte_mbuf *m);
/* The same without freeing @m: a trim counts its original's drop, then goes on. */
void lsw_drop_note(struct lsw_worker *w, uint16_t port, enum lsw_drop d, struct rte_mbuf *m);

/* trim.c: @m, refused by the buffer for @d on a queue whose profile says trim, is counted
 * dropped and goes on trimmed to the trim queue, or is freed (include/lsw/trim.h). */
void lsw_trim(struct lsw_worker *w, const struct lsw_snapshot *conf, struct rte_mbuf *m,
	      enum lsw_drop d);

/* Write the Ethernet header of a routed packet whose data starts at the Ethernet header
 * (@dmac as lsw_mac_to_u64 gives it, in its low six bytes). Two 8-byte stores, the second
 * over the first's last two bytes: the destination MAC, then the source MAC and the
 * EtherType. Byte by byte it was a dozen instructions for every forwarded packet. */
static inline void
lsw_l2_write(struct rte_mbuf *m, uint64_t dmac, const struct rte_ether_addr *smac,
	     uint16_t ethertype)
{
	uint8_t *eth = rte_pktmbuf_mtod(m, uint8_t *);
	const uint64_t tail = lsw_mac_to_u64(smac) |
			      (uint64_t)rte_cpu_to_be_16(ethertype) << 48;

	memcpy(eth, &dmac, sizeof(dmac));
	memcpy(eth + RTE_ETHER_ADDR_LEN, &tail, sizeof(tail));
	/* The I/G bit is the first byte's lowest: set or cleared (net_ring hands a sent mbuf
	 * back as it was). */
	m->ol_flags = (m->ol_flags & ~lsw_ucast_flag) | (dmac & 1 ? 0 : lsw_ucast_flag);
}

/* The Ethernet header of a routed frame of traffic class @tc leaving by @op, in place of
 * the one it came with (@tagged: with an 802.1Q tag, whose 4 bytes are reused or dropped).
 * Untagged, or priority-tagged (VID 0, the PCP from the port's TC_TO_DOT1P_MAP) on ports
 * whose peer trusts PCP: without it a NIC that classifies by PCP sees every routed frame
 * as priority 0. A frame with no headroom for the tag leaves untagged. */
static inline void
lsw_l2_routed(struct rte_mbuf *m, uint64_t dmac, const struct lsw_port_dp *op, uint8_t tc,
	      bool tagged, uint16_t ethertype)
{
	if (likely(!op->prio_tag) || (!tagged && rte_pktmbuf_prepend(m, 4) == NULL)) {
		if (tagged)
			rte_pktmbuf_adj(m, 4);
		lsw_l2_write(m, dmac, &op->mac, ethertype);
		return;
	}
	lsw_l2_write(m, dmac, &op->mac, RTE_ETHER_TYPE_VLAN);
	struct rte_vlan_hdr *v = rte_pktmbuf_mtod_offset(m, struct rte_vlan_hdr *,
							 RTE_ETHER_HDR_LEN);
	v->vlan_tci = rte_cpu_to_be_16((uint16_t)(op->tc_pcp[tc] << 13));
	v->eth_proto = rte_cpu_to_be_16(ethertype);
}

#endif
