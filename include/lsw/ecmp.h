/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Utilization-based ECMP (Broadcom DLB, SAI's adaptive routing, LetFlow): the modes of a next-hop
 * group, the quality of each uplink, and the flowlet table.
 *
 * Quality: the owner worker of every port samples, every sample interval, the bytes the port
 * sent and the bytes waiting in its queues, keeps an EWMA of each (weight 2^-ewma_exponent on
 * the new sample), places each in one of 8 levels (0 = below min, 7 = at or above max, six
 * even steps between) and combines the two qualities (7 - level) with the configured
 * weights, rounded down (Broadcom DLB, Juniper): 7 is best, as Juniper and SAI count. Load
 * thresholds are a share of the port's own speed and queue thresholds scale with it, so
 * ports of different speeds compare (SAI's scaling factor). The owner publishes quality and
 * the queues PFC pauses now; other workers read them without locks.
 *
 * Selection is a pure function of the group, the member qualities, the flowlet table, the
 * hash and `now` (TSC ticks), so unit tests drive it with a fake clock.
 */
#ifndef LSW_ECMP_H
#define LSW_ECMP_H

#include <stdint.h>
#include <stdbool.h>
#include <rte_common.h>
#include "lsw/common.h"
#include "lsw/parse.h"

enum lsw_ecmp_mode {
	LSW_ECMP_HASH,             /* 5-tuple (the hash fields), seeded */
	LSW_ECMP_HASH_QP,          /* ... and the BTH destination QP (Meta's E-ECMP) */
	LSW_ECMP_FLOWLET_RANDOM,   /* LetFlow: a new flowlet takes a random member */
	LSW_ECMP_FLOWLET_QUALITY,  /* Broadcom DLB "normal": a new flowlet takes the best */
	LSW_ECMP_PACKET_QUALITY,   /* Broadcom "optimal": every packet takes the best */
	LSW_ECMP_PACKET_RANDOM,    /* spray */
	LSW_ECMP_FIXED,            /* a flow keeps the member it first got (the best then) */
	LSW_ECMP_N_MODES,
};

/* Hash fields, SAI's names (SAI_NATIVE_HASH_FIELD_*). */
enum lsw_hash_field {
	LSW_HF_SRC_IP      = 1 << 0,
	LSW_HF_DST_IP      = 1 << 1,
	LSW_HF_L4_SRC_PORT = 1 << 2,
	LSW_HF_L4_DST_PORT = 1 << 3,
	LSW_HF_IP_PROTOCOL = 1 << 4,
	LSW_HF_IPV6_FLOW_LABEL = 1 << 5, /* IPv6 packets only: an IPv4 one has none */
	LSW_HF_ROCE_DQP    = 1 << 6, /* hash_qp adds it */
};
/* The 5-tuple and, for IPv6, the flow label (RFC 6438: the label alone would do for
 * senders that set it; with the ports it also spreads those that do not). */
#define LSW_HF_DEFAULT (LSW_HF_SRC_IP | LSW_HF_DST_IP | LSW_HF_L4_SRC_PORT | \
			LSW_HF_L4_DST_PORT | LSW_HF_IP_PROTOCOL | LSW_HF_IPV6_FLOW_LABEL)
/* By bit: SAI's names ("SRC_IP", ..., "ROCE_DEST_QP"); ECMP.hash_fields takes the first
 * LSW_HF_CONFIGURABLE (the QP comes with mode hash_qp). */
extern const char *const lsw_hash_field_names[];
#define LSW_HF_CONFIGURABLE 6

#define LSW_ECMP_LEVELS   8  /* quality 0..7 */
#define LSW_ECMP_FIX      16 /* EWMAs are kept in bytes << LSW_ECMP_FIX */

/* A flowlet (or flowset) entry: which member a hash bucket uses and when it was last seen. */
struct lsw_flowlet {
	uint64_t last;                /* tsc; 0 = never used */
	uint8_t member;
	uint8_t pad[7];
};
_Static_assert(sizeof(struct lsw_flowlet) == 16, "a flowlet entry is two words");

/* A group member's counters, SAI's and lsw's names (ecmp.stats) and their fields: packets
 * and bytes at the ECMP choice, new flowlets (flows, for fixed) given the member, those of
 * them that left another member for it, and reactive moves to it. */
#define LSW_FOREACH_ECMP_MEMBER_CTR(X) \
	X(PACKETS,            pkts) \
	X(BYTES,              bytes) \
	X(FLOWLETS,           flowlets) \
	X(PATH_REASSIGNMENTS, reassign) \
	X(REBALANCES,         rebalance)

/* Side by side, so that a packet touches one cache line of its member's. */
struct lsw_ecmp_member_ctr {
#define LSW_ECMP_CTR_FIELD(name, f) uint64_t f;
	LSW_FOREACH_ECMP_MEMBER_CTR(LSW_ECMP_CTR_FIELD)
#undef LSW_ECMP_CTR_FIELD
};

/* A group's counters on one worker (the worker writes; readers sum). */
struct lsw_ecmp_ctr {
	struct lsw_ecmp_member_ctr member[LSW_MAX_ECMP];
};

/* A group's state on one worker; allocated by the control plane for the group's lifetime. */
struct lsw_ecmp_ws {
	struct lsw_ecmp_ctr ctr;      /* dp: the worker writes; cp: reads, sums */
	uint64_t last_move;           /* dp: tsc of the last reactive rebalance move */
	uint64_t pad[7];
};
/* Kept in an array, one per worker: no two workers write the same cache line. */
_Static_assert(sizeof(struct lsw_ecmp_ws) % RTE_CACHE_LINE_SIZE == 0,
	       "a worker's ECMP state fills whole cache lines");

/* A group's ECMP settings as the workers use them; part of the snapshot. */
struct lsw_ecmp_grp_dp {
	uint8_t mode;
	uint8_t fields;
	uint8_t rebalance;
	uint8_t margin;
	uint32_t seed;
	uint32_t mask;                /* flowlet table entries - 1 */
	uint64_t inactivity;          /* ticks */
	uint64_t rebalance_iv;        /* ticks */
	struct lsw_ecmp_ws *ws;       /* [n_workers]; cp: allocates, kept across snapshots */
	struct lsw_flowlet *tbl[LSW_MAX_WORKERS]; /* table modes; cp: allocates, dp: worker rw */
};

/* Quality thresholds and sampling, in the snapshot. */
struct lsw_ecmp_dp {
	uint64_t sample;              /* ticks between samples */
	uint8_t shift;                /* EWMA exponent */
	uint8_t w_load, w_queue;
	uint64_t load_thr[LSW_MAX_PORTS][LSW_ECMP_LEVELS - 1];  /* bytes/sample << FIX */
	uint64_t queue_thr[LSW_MAX_PORTS][LSW_ECMP_LEVELS - 1]; /* bytes << FIX */
	uint32_t n_grp;
	struct lsw_ecmp_grp_dp *grp;     /* [n_grp] by next-hop group id (FORWARD groups) */
	uint32_t n_grp6;
	struct lsw_ecmp_grp_dp *grp6;    /* [n_grp6] by IPv6 next-hop group id, the same */
};

/* The ECMP settings of group @gid of a family (@v6: the IPv6 FIB's), or NULL when the
 * snapshot has none for it: a group newer than the snapshot (the FIB changes first). */
static inline const struct lsw_ecmp_grp_dp *
lsw_ecmp_grp(const struct lsw_ecmp_dp *e, bool v6, uint32_t gid)
{
	uint32_t n = v6 ? e->n_grp6 : e->n_grp;
	const struct lsw_ecmp_grp_dp *g = v6 ? e->grp6 : e->grp;

	return likely(gid < n && g[gid].ws != NULL) ? &g[gid] : NULL;
}

/* What the owner of a port publishes: written by the owner worker only (lsw_store_relaxed),
 * read by all (lsw_load_relaxed). */
struct lsw_ecmp_sig {
	uint8_t quality;              /* 0 worst .. 7 best */
	uint8_t paused;               /* queues PFC holds now (bit per queue) */
	uint8_t load_level, queue_level; /* 0 idle .. 7 congested */
	uint64_t load;                /* EWMA of bytes sent per sample, << FIX */
	uint64_t queue;               /* EWMA of bytes queued, << FIX */
	uint64_t last;                /* owner only: tsc of the last sample */
	uint64_t last_tx;             /* owner only: bytes sent up to then */
	uint64_t pad[3];
};
/* Kept in an array, one per port: each owner writes a cache line of its own. */
_Static_assert(sizeof(struct lsw_ecmp_sig) == RTE_CACHE_LINE_SIZE,
	       "a port's quality fills one cache line");

/* Update @s for @tx_bytes sent in total and @queued bytes waiting at @now (owner only). */
void lsw_ecmp_sample(struct lsw_ecmp_sig *s, const struct lsw_ecmp_dp *e, uint16_t port,
		     uint64_t tx_bytes, uint64_t queued, uint64_t now);
/* The level (0..7) of @v against 7 rising thresholds. */
static inline uint8_t
lsw_ecmp_level(uint64_t v, const uint64_t *thr)
{
	uint8_t l = 0;

	while (l < LSW_ECMP_LEVELS - 1 && v >= thr[l])
		l++;
	return l;
}

/* A CRC is linear: a seed fed into it only XORs a constant into the hash, which permutes
 * the members but keeps every collision. A multiplication by an odd constant (Knuth's
 * multiplicative hashing) after the seed is not linear in XOR (carries), so each seed is
 * a different partition of the flows; members come from the top bits (hash * n >> 32),
 * the best mixed ones. One multiply per packet: murmur3's fmix32 here cost 4% of the
 * 64 B rate. The seed itself goes through fmix32 once, in the control plane
 * (lsw_seed_mix): configured seeds that differ in a bit or two (tiers of one fabric)
 * would otherwise only rotate the hash circle and split flows alike. */
static inline uint32_t
lsw_hash_mix(uint32_t h, uint32_t mixed_seed)
{
	return (h ^ mixed_seed) * 0x9e3779b1u;
}

/* A configured seed as the data path uses it (murmur3's fmix32). */
static inline uint32_t
lsw_seed_mix(uint32_t seed)
{
	seed ^= seed >> 16;
	seed *= 0x85ebca6bu;
	seed ^= seed >> 13;
	seed *= 0xc2b2ae35u;
	seed ^= seed >> 16;
	return seed;
}

/* The flow hash over @fields of the group: IPv4 addresses @src and @dst. */
uint32_t lsw_ecmp_hash_fields(uint32_t src, uint32_t dst, const struct lsw_pkt_info *pi,
			      uint8_t fields, uint32_t seed);
/* The same for IPv6: @addrs the source then the destination address (32 bytes, as in the
 * header), @vtc_flow the header's first word (network order: the flow label's). */
uint32_t lsw_ecmp_hash_fields6(const uint8_t *addrs, uint32_t vtc_flow,
			       const struct lsw_pkt_info *pi, uint8_t fields, uint32_t seed);

/* The @r-th (from 0) member set in @set. */
static inline uint8_t
lsw_ecmp_nth(uint32_t set, unsigned int r)
{
	for (; r > 0; r--)
		set &= set - 1;
	return (uint8_t)__builtin_ctz(set);
}

/* The member of @n that flow @hash (mixed) hashes to, among the @live ones (bit per
 * member). A flow whose member is live keeps it; a dead member's flows spread over the
 * live ones by the hash's fraction within its bucket (uniform, and the same for the same
 * flow), so that a failure moves only the flows of the member that failed (P3). With no
 * member live, the hash's own (the packet then drops as its port's). */
static inline uint8_t
lsw_ecmp_hash_live(uint32_t hash, uint8_t n, uint32_t live)
{
	uint64_t x = (uint64_t)hash * n;
	uint8_t i = (uint8_t)(x >> 32);

	if (likely(live >> i & 1) || live == 0)
		return i;
	return lsw_ecmp_nth(live, (unsigned int)(((x & UINT32_MAX) *
			    (uint64_t)__builtin_popcount(live)) >> 32));
}

/* Member among the @live ones of @n (bit per member; none: all) with the best @q
 * (q: 0 = PFC-paused, 1..8 = quality + 1), keeping @cur (-1: none) when it is among the
 * best, else a random one of them. */
uint8_t lsw_ecmp_best(const uint8_t *q, uint8_t n, uint32_t live, int cur, uint64_t *rng);

/* The member for a packet of flow @hash at @now; @q holds the members' qualities as for
 * lsw_ecmp_best (read only by the modes that need them), @busy the members congested (a
 * queue building, or paused), @live those whose port is up: no mode picks a dead member
 * while a live one is left. Counts into @ws. */
uint8_t lsw_ecmp_choose(const struct lsw_ecmp_grp_dp *g, struct lsw_ecmp_ws *ws,
			struct lsw_flowlet *tbl, uint8_t n, const uint8_t *q, uint32_t busy,
			uint32_t live, uint32_t hash, uint64_t now, uint64_t *rng);

/* Does @mode use a flowlet table? */
static inline bool
lsw_ecmp_has_table(uint8_t mode)
{
	return mode >= LSW_ECMP_FLOWLET_RANDOM && mode != LSW_ECMP_PACKET_RANDOM;
}

/* Does @mode read the members' qualities? */
static inline bool
lsw_ecmp_uses_quality(uint8_t mode)
{
	return mode == LSW_ECMP_FLOWLET_QUALITY || mode == LSW_ECMP_PACKET_QUALITY ||
	       mode == LSW_ECMP_FIXED;
}

extern const char *const lsw_ecmp_mode_names[LSW_ECMP_N_MODES + 1];

#endif
