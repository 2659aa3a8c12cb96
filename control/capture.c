/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Live capture, the control plane's side (capture.h). A session's life: capture.start
 * compiles its filter (libpcap, then rte_bpf_convert and rte_bpf_load, as dpdk-dumpcap
 * does), creates its file, takes a slot and publishes a snapshot that names it; from then on
 * the worker that owns its port copies what the filter keeps into its ring, and the main
 * loop writes the copies to the file. Stopping publishes a snapshot without the session,
 * which returns once no worker can copy for it any more; what they copied until then is
 * written, and the file closed.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <pcap/pcap.h>
#include <rte_bpf.h>
#include <rte_errno.h>
#include <rte_malloc.h>
#include <rte_mbuf.h>
#include <rte_ring_elem.h>
#include "lsw/log.h"
#include "capture.h"
#include "eal.h"
#include "pcapng.h"
#include "rpc.h"
#include "switch.h"

#define FLUSH_NS    1000000000u /* a running file is flushed every second, for its readers */
#define DRAIN_BURST 64
/* A copy is one segment, unless a port's MTU grew after the pools were made: at most
 * LSW_MAX_FRAME in segments of the smallest big one (a 1500-byte MTU's). */
#define MAX_SEGS    8

const char *const lsw_capture_end_names[] = {
	[LSW_CAPTURE_END_NONE] = "", [LSW_CAPTURE_END_STOP] = "capture.stop",
	[LSW_CAPTURE_END_COUNT] = "count", [LSW_CAPTURE_END_DURATION] = "duration",
	[LSW_CAPTURE_END_ERROR] = "error", [LSW_CAPTURE_END_SHUTDOWN] = "shutdown",
};
const char *const lsw_capture_dir_names[] = {"rx", "tx", "both", NULL};

/*
 * rte_bpf_convert (DPDK 22.11's lib/bpf/bpf_convert.c, and later ones as of this writing)
 * gives the eBPF translation of cBPF's indirect loads, ld [x + k], the accumulator as their
 * base register instead of X: every filter that looks past a variable-length header
 * ("udp[8] == 10", "tcp port 80" after IP options...) would read the wrong bytes. The
 * converter's second instruction clears X (xor X, X): that names X's register; put it
 * back as the base. Checked against libpcap's own interpreter by tests/unit/test_capture.c.
 */
static void
fix_indirect_loads(struct rte_bpf_prm *prm)
{
	struct ebpf_insn *ins = (struct ebpf_insn *)(uintptr_t)prm->ins; /* ours: rte_malloc'd */

	if (prm->nb_ins < 2 || ins[1].code != (EBPF_ALU64 | BPF_XOR | BPF_X))
		return;
	for (uint32_t i = 0; i < prm->nb_ins; i++)
		if (BPF_CLASS(ins[i].code) == BPF_LD && BPF_MODE(ins[i].code) == BPF_IND)
			ins[i].src_reg = ins[1].dst_reg;
}

/*
 * DPDK's x86 JIT (22.11's lib/bpf/bpf_jit_x86.c, emit_tst_imm; later ones too as of this
 * writing) encodes "test $k, reg" with a one-byte immediate when k fits one, but TEST has
 * no such form: the next instructions are taken for the rest of the immediate and the
 * code runs off the rails (tcpdump's "tcp[13] & 2 != 0" crashes it). A filter with such a
 * test runs in DPDK's interpreter instead; tests/unit/test_capture.c holds both to
 * libpcap's verdicts.
 */
static bool
jit_safe(const struct rte_bpf_prm *prm)
{
	for (uint32_t i = 0; i < prm->nb_ins; i++) {
		const struct ebpf_insn *in = &prm->ins[i];
		if (in->code == (BPF_JMP | BPF_JSET | BPF_K) && in->imm == (int8_t)in->imm)
			return false;
	}
	return true;
}

/* @filter compiled for Ethernet frames and loaded into DPDK's BPF, or NULL with @err
 * (libpcap's message for a filter that does not compile); *@jit_ok: its JIT code may run. */
static struct rte_bpf *
compile(const char *filter, bool *jit_ok, char *err, size_t errlen)
{
	pcap_t *pc = pcap_open_dead(DLT_EN10MB, LSW_CAPTURE_SNAPLEN_MAX);
	struct bpf_program bf;
	struct rte_bpf_prm *prm;
	struct rte_bpf *bpf;

	if (pc == NULL) {
		snprintf(err, errlen, "libpcap: out of memory");
		return NULL;
	}
	if (pcap_compile(pc, &bf, filter, 1, PCAP_NETMASK_UNKNOWN) != 0) {
		snprintf(err, errlen, "%s", pcap_geterr(pc));
		pcap_close(pc);
		return NULL;
	}
	prm = rte_bpf_convert(&bf);
	pcap_freecode(&bf);
	pcap_close(pc);
	if (prm == NULL) {
		snprintf(err, errlen, "DPDK's BPF cannot run this filter (rte_bpf_convert: %s)",
			 rte_strerror(rte_errno));
		return NULL;
	}
	fix_indirect_loads(prm);
	*jit_ok = jit_safe(prm);
	bpf = rte_bpf_load(prm);
	rte_free(prm);
	if (bpf == NULL)
		snprintf(err, errlen, "DPDK's BPF refused this filter (rte_bpf_load: %s)",
			 rte_strerror(rte_errno));
	return bpf;
}

unsigned int
lsw_capture_big_n(const struct lsw_switch *sw)
{
	if (sw->dp.capture_pool != NULL)
		return sw->dp.capture_pool->size;
	return LSW_CAPTURE_POOL_BYTES / (lsw_mbuf_data_room(sw->cfg) + LSW_CAPTURE_OBJ_EXTRA);
}

/* The rings and the pools, on the first capture.start: a switch that never captures does
 * without them. */
static int
init(struct lsw_switch *sw)
{
	static unsigned int seq; /* unique names: the unit tests build many switches */
	const unsigned int big = lsw_capture_big_n(sw);
	char name[RTE_RING_NAMESIZE];

	/* What a failed try made stays, for the next try or the teardown. */
	if (sw->dp.capture_pool == NULL) {
		snprintf(name, sizeof(name), "lsw_cap%u", ++seq);
		sw->dp.capture_pool = rte_pktmbuf_pool_create(name, big, 256, 0,
							      lsw_mbuf_data_room(sw->cfg),
							      SOCKET_ID_ANY);
		if (sw->dp.capture_pool == NULL)
			return -1;
	}
	if (sw->dp.capture_small == NULL) {
		snprintf(name, sizeof(name), "lsw_caps%u", ++seq);
		sw->dp.capture_small = rte_pktmbuf_pool_create(name, LSW_CAPTURE_SMALL_N, 256, 0,
							       RTE_PKTMBUF_HEADROOM +
							       LSW_CAPTURE_SMALL, SOCKET_ID_ANY);
		if (sw->dp.capture_small == NULL)
			return -1;
	}
	for (uint16_t w = 0; w < sw->dp.n_workers; w++) {
		if (sw->dp.capture[w] != NULL)
			continue;
		snprintf(name, sizeof(name), "lsw_cap%u_%u", ++seq, w);
		sw->dp.capture[w] = rte_ring_create_elem(name, sizeof(struct lsw_capture_rec),
							 big + LSW_CAPTURE_SMALL_N, SOCKET_ID_ANY,
							 RING_F_SP_ENQ | RING_F_SC_DEQ |
							 RING_F_EXACT_SZ);
		if (sw->dp.capture[w] == NULL)
			return -1;
	}
	if (sw->capture == NULL)
		sw->capture = calloc(1, sizeof(*sw->capture));
	return sw->capture ? 0 : -1;
}

uint64_t
lsw_capture_missed(const struct lsw_switch *sw, const struct lsw_capture_sess *s)
{
	uint64_t n = 0;

	if (s->state != LSW_CAPTURE_RUNNING)
		return s->missed;
	for (uint16_t w = 0; w < sw->dp.n_workers; w++)
		n += __atomic_load_n(&sw->dp.ctr[w].capture_missed[s->slot], __ATOMIC_RELAXED);
	return n - s->missed_base;
}

/* One copy into its session's file, unless the session has all the frames it wants. */
static void
write_rec(struct lsw_switch *sw, const struct lsw_capture_rec *r)
{
	struct lsw_capture_sess *s = r->slot < LSW_CAPTURE_MAX ? sw->capture->slot[r->slot] :
				     NULL;
	struct iovec iov[MAX_SEGS];
	int n = 0;

	if (s == NULL || s->out == NULL || (s->count && s->frames >= s->count))
		return;
	for (const struct rte_mbuf *m = r->m; m != NULL && n < MAX_SEGS; m = m->next)
		iov[n++] = (struct iovec){rte_pktmbuf_mtod(m, void *), m->data_len};
	if (lsw_pcapng_packet(s->out, s->ifid[r->dir], lsw_clock_wall_ns(&sw->clock, r->tsc),
			      r->dir == LSW_CAPTURE_RX ? LSW_PCAPNG_INBOUND : LSW_PCAPNG_OUTBOUND,
			      iov, n, r->len) == 0) {
		s->frames++;
		s->bytes += r->len;
	}
}

/* What the workers copied so far, into the files; at most a ring's worth per worker, so that
 * a flood cannot keep the main loop from its other work. */
static void
drain(struct lsw_switch *sw)
{
	struct lsw_capture_rec r[DRAIN_BURST];

	for (uint16_t w = 0; w < sw->dp.n_workers; w++) {
		struct rte_ring *ring = sw->dp.capture[w];
		unsigned int n, done = 0;
		while (ring != NULL && done < rte_ring_get_capacity(ring) &&
		       (n = rte_ring_sc_dequeue_burst_elem(ring, r, sizeof(r[0]), DRAIN_BURST,
							   NULL)) > 0) {
			for (unsigned int i = 0; i < n; i++) {
				write_rec(sw, &r[i]);
				rte_pktmbuf_free(r[i].m);
			}
			done += n;
		}
	}
}

/* The last of @s, once no worker copies for it: its figures, its file closed. */
static void
finish(struct lsw_switch *sw, struct lsw_capture_sess *s, uint8_t end)
{
	char err[128];
	const char *werr = lsw_pcapng_error(s->out);

	s->missed = lsw_capture_missed(sw, s);
	s->file_bytes = lsw_pcapng_size(s->out);
	if (werr != NULL)
		snprintf(s->error, sizeof(s->error), "%s: %s", s->file, werr);
	if (lsw_pcapng_close(s->out, err, sizeof(err)) != 0 && s->error[0] == '\0')
		snprintf(s->error, sizeof(s->error), "%s: %s", s->file, err);
	s->out = NULL;
	rte_bpf_destroy(s->bpf);
	s->bpf = NULL;
	sw->capture->slot[s->slot] = NULL;
	s->state = LSW_CAPTURE_DONE;
	s->stopping = false;
	s->end = s->error[0] ? LSW_CAPTURE_END_ERROR : end;
	s->end_ns = lsw_now_ns();
	LSW_LOG(INFO, "capture %u on %s ended (%s): %" PRIu64 " frames, %" PRIu64 " missed, %s%s%s",
		s->id, sw->cfg->port[s->port].name, lsw_capture_end_names[s->end], s->frames,
		s->missed, s->file, s->error[0] ? ": " : "", s->error);
}

int
lsw_capture_stop(struct lsw_switch *sw, struct lsw_capture_sess *s, uint8_t end)
{
	if (s->state != LSW_CAPTURE_RUNNING)
		return 0;
	/* Out of the next snapshot; its slot and file stay until it is finished. */
	s->stopping = true;
	if (lsw_snapshot_refresh(sw) != 0) { /* returns once no worker can copy for it */
		s->stopping = false;
		return -1;
	}
	drain(sw);
	finish(sw, s, end);
	return 0;
}

struct lsw_capture_sess *
lsw_capture_find(struct lsw_switch *sw, uint32_t id)
{
	for (int i = 0; sw->capture != NULL && i < LSW_CAPTURE_KEEP; i++)
		if (sw->capture->s[i].state != LSW_CAPTURE_FREE && sw->capture->s[i].id == id)
			return &sw->capture->s[i];
	return NULL;
}

/* A free entry, else the oldest session done (there is one: at most LSW_CAPTURE_MAX run). */
static struct lsw_capture_sess *
entry(struct lsw_capture_ctl *ctl)
{
	struct lsw_capture_sess *old = NULL;

	for (int i = 0; i < LSW_CAPTURE_KEEP; i++) {
		struct lsw_capture_sess *s = &ctl->s[i];
		if (s->state == LSW_CAPTURE_FREE)
			return s;
		if (s->state == LSW_CAPTURE_DONE && (old == NULL || s->id < old->id))
			old = s;
	}
	return old;
}

/* Why @r cannot start, into @e (params) ; true when it can. */
static bool
check(struct lsw_switch *sw, const struct lsw_capture_req *r, int *slot,
      struct lsw_rpc_error *e)
{
	const struct lsw_capture_ctl *ctl = sw->capture;

	*slot = -1;
	for (int i = LSW_CAPTURE_MAX - 1; i >= 0; i--) {
		if (ctl->slot[i] == NULL)
			*slot = i;
		else if (strcmp(ctl->slot[i]->file, r->file) == 0)
			lsw_errs_add(&e->errs, "$.params.file", "capture %u writes to this file",
				     ctl->slot[i]->id);
	}
	if (*slot < 0)
		lsw_errs_add(&e->errs, "$.params", "%d capture sessions run already: "
			     "capture.stop one first", LSW_CAPTURE_MAX);
	return e->errs.n == 0;
}

/* The file of a new session: its header and an interface per direction ("PORT rx"). */
static struct lsw_pcapng *
create_file(struct lsw_switch *sw, const struct lsw_capture_req *r, uint8_t dirs,
	    uint32_t ifid[2], char *err, size_t errlen)
{
	struct lsw_pcapng *out = lsw_pcapng_open(r->file, "lsw " LSW_VERSION, err, errlen);
	char name[LSW_NAME_LEN + 8];

	if (out == NULL)
		return NULL;
	for (uint8_t d = LSW_CAPTURE_RX; d <= LSW_CAPTURE_TX; d++) {
		if (!(dirs >> d & 1))
			continue;
		snprintf(name, sizeof(name), "%s %s", sw->cfg->port[r->port].name,
			 lsw_capture_dir_names[d]);
		ifid[d] = (uint32_t)lsw_pcapng_interface(out, name, r->snaplen);
	}
	if (lsw_pcapng_flush(out) == 0)
		return out;
	snprintf(err, errlen, "%s: %s", r->file, lsw_pcapng_error(out));
	lsw_pcapng_close(out, name, sizeof(name)); /* the error is in @err already */
	unlink(r->file);
	return NULL;
}

uint32_t
lsw_capture_start(struct lsw_switch *sw, const struct lsw_capture_req *r,
		  struct lsw_rpc_error *e)
{
	const uint8_t dirs = r->dir == 0 ? LSW_CAPTURE_DIR_RX : r->dir == 1 ? LSW_CAPTURE_DIR_TX :
			     LSW_CAPTURE_DIR_BOTH;
	struct lsw_capture_sess n = {.state = LSW_CAPTURE_RUNNING, .dirs = dirs,
				     .port = (uint16_t)r->port, .snaplen = r->snaplen,
				     .count = r->count, .duration_ms = r->duration_ms};
	char err[PCAP_ERRBUF_SIZE + 128];
	int slot;

	if (init(sw) != 0) {
		lsw_rpc_fail(e, LSW_RPC_INTERNAL_ERROR, "out of memory for the capture pool "
			     "and rings");
		return 0;
	}
	if (!check(sw, r, &slot, e)) {
		lsw_rpc_invalid(e);
		return 0;
	}
	if (r->filter != NULL && r->filter[0] != '\0' &&
	    (n.bpf = compile(r->filter, &n.jit_ok, err, sizeof(err))) == NULL) {
		lsw_errs_add(&e->errs, "$.params.filter", "%s", err);
		lsw_rpc_invalid(e);
		return 0;
	}
	n.filter = n.bpf ? strdup(r->filter) : NULL;
	n.file = strdup(r->file);
	if ((n.bpf && n.filter == NULL) || n.file == NULL) {
		lsw_rpc_nomem(e);
		goto fail;
	}
	if ((n.out = create_file(sw, r, dirs, n.ifid, err, sizeof(err))) == NULL) {
		lsw_errs_add(&e->errs, "$.params.file", "%s", err);
		lsw_rpc_fail(e, LSW_RPC_ERR_IO, "cannot write the capture file");
		goto fail;
	}
	struct lsw_capture_sess *s = entry(sw->capture);
	free(s->filter);
	free(s->file);
	n.id = ++sw->capture->next_id;
	n.slot = (uint8_t)slot;
	n.start_ns = n.flushed_ns = lsw_now_ns();
	n.start_wall_ns = lsw_clock_wall_ns(&sw->clock, rte_rdtsc());
	n.missed_base = 0;
	*s = n;
	s->missed_base = lsw_capture_missed(sw, s); /* what the slot's counters hold already */
	sw->capture->slot[slot] = s;
	if (lsw_snapshot_refresh(sw) != 0) {
		sw->capture->slot[slot] = NULL;
		*s = (struct lsw_capture_sess){.state = LSW_CAPTURE_FREE};
		lsw_pcapng_close(n.out, err, sizeof(err));
		unlink(r->file);
		lsw_rpc_nomem(e);
		goto fail;
	}
	LSW_LOG(INFO, "capture %u on %s (%s%s%s) to %s", s->id, sw->cfg->port[s->port].name,
		lsw_capture_dir_names[r->dir], s->filter ? ", " : "", s->filter ? s->filter : "",
		s->file);
	return s->id;
fail:
	rte_bpf_destroy(n.bpf);
	free(n.filter);
	free(n.file);
	return 0;
}

void
lsw_capture_poll(struct lsw_switch *sw, uint64_t now_ns)
{
	struct lsw_capture_ctl *ctl = sw->capture;
	bool any = false;

	for (int i = 0; ctl != NULL && i < LSW_CAPTURE_MAX; i++)
		any |= ctl->slot[i] != NULL;
	if (!any)
		return;
	drain(sw);
	for (int i = 0; i < LSW_CAPTURE_MAX; i++) {
		struct lsw_capture_sess *s = ctl->slot[i];
		uint8_t end = LSW_CAPTURE_END_NONE;
		if (s == NULL)
			continue;
		if (s->count && s->frames >= s->count)
			end = LSW_CAPTURE_END_COUNT;
		else if (s->duration_ms && now_ns - s->start_ns >= s->duration_ms * 1000000)
			end = LSW_CAPTURE_END_DURATION;
		else if (lsw_pcapng_error(s->out) != NULL)
			end = LSW_CAPTURE_END_ERROR;
		if (end != LSW_CAPTURE_END_NONE) {
			lsw_capture_stop(sw, s, end); /* out of memory: tried again next time */
		} else if (now_ns - s->flushed_ns >= FLUSH_NS) {
			lsw_pcapng_flush(s->out);
			s->flushed_ns = now_ns;
		}
	}
}

void
lsw_capture_free(struct lsw_switch *sw)
{
	struct lsw_capture_ctl *ctl = sw->capture;
	struct lsw_capture_rec r;

	if (ctl != NULL) {
		drain(sw);
		for (int i = 0; i < LSW_CAPTURE_MAX; i++)
			if (ctl->slot[i] != NULL)
				finish(sw, ctl->slot[i], LSW_CAPTURE_END_SHUTDOWN);
		for (int i = 0; i < LSW_CAPTURE_KEEP; i++) {
			free(ctl->s[i].filter);
			free(ctl->s[i].file);
		}
		free(ctl);
		sw->capture = NULL;
	}
	for (uint16_t w = 0; w < LSW_MAX_WORKERS; w++) {
		while (sw->dp.capture[w] != NULL &&
		       rte_ring_sc_dequeue_elem(sw->dp.capture[w], &r, sizeof(r)) == 0)
			rte_pktmbuf_free(r.m);
		rte_ring_free(sw->dp.capture[w]);
		sw->dp.capture[w] = NULL;
	}
	rte_mempool_free(sw->dp.capture_pool);
	sw->dp.capture_pool = NULL;
	rte_mempool_free(sw->dp.capture_small);
	sw->dp.capture_small = NULL;
}
