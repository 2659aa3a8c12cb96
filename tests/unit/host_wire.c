/* SPDX-License-Identifier: BSD-3-Clause */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>
#include "host_wire.h"

static char *
tmp_config(const char *json)
{
	char *path = strdup("/tmp/lsw-host-test.XXXXXX");
	int fd = mkstemp(path);

	assert_true(fd >= 0);
	assert_int_equal(write(fd, json, strlen(json)), (ssize_t)strlen(json));
	close(fd);
	return path;
}

unsigned int
w_config_errors(const char *json, const char *only, char *path, size_t plen, char *msg,
		size_t mlen)
{
	static struct lsw_hosts e;
	struct lsw_host_run run;
	struct lsw_errs errs = {0};
	char *file = tmp_config(json);

	memset(&e, 0, sizeof(e));
	lsw_host_config_load(file, only, &e, &run, &errs);
	unlink(file);
	free(file);
	lsw_hosts_free(&e);
	if (errs.n > 0) {
		snprintf(path, plen, "%s", errs.e[0].path);
		snprintf(msg, mlen, "%s", errs.e[0].msg);
	}
	return errs.n;
}

static int16_t
host_by_mac(struct wire *w, const uint8_t *dmac, int16_t from)
{
	for (uint16_t i = 0; i < w->e.n_hosts; i++)
		if (i != from && memcmp(&w->e.host[i].c.mac, dmac, 6) == 0)
			return (int16_t)i;
	/* Broadcast (ARP) and PFC's multicast go to the other end of a two-host wire. */
	if ((dmac[0] & 1) && w->e.n_hosts == 2)
		return (int16_t)(1 - from);
	return -1;
}

static uint8_t *
w_tx_frame(void *ctx, struct lsw_host *h, uint16_t len)
{
	struct wire *w = ctx;

	assert_true(len <= W_FRAME_MAX);
	if (w->n == w->cap) {
		w->cap = w->cap ? 2 * w->cap : 256;
		w->q = realloc(w->q, w->cap * sizeof(*w->q));
		assert_non_null(w->q);
	}
	struct w_frame *f = &w->q[w->n++];
	f->at = w->now + w->delay_ns;
	f->from = (int16_t)h->idx;
	f->to = -2; /* filled when the frame is complete: see w_settle */
	f->len = len;
	return f->b;
}

static uint32_t
w_tx_room(void *ctx, struct lsw_host *h)
{
	(void)ctx;
	(void)h;
	return 32;
}

void
w_init(struct wire *w, const char *json, const char *only, uint64_t delay_ns)
{
	struct lsw_errs errs = {0};
	char *file = tmp_config(json);

	memset(w, 0, sizeof(*w));
	if (lsw_host_config_load(file, only, &w->e, &w->run, &errs) != 0) {
		for (unsigned int i = 0; i < errs.n && i < LSW_ERRS_MAX; i++)
			print_error("config: %s: %s\n", errs.e[i].path, errs.e[i].msg);
		fail();
	}
	unlink(file);
	free(file);
	w->delay_ns = delay_ns;
	w->e.io = (struct lsw_host_io){.ctx = w, .tx_frame = w_tx_frame, .tx_room = w_tx_room};
	lsw_hosts_start(&w->e, 0);
}

/* Frames just written get their destination and pass the filter. */
static void
w_settle(struct wire *w)
{
	for (uint32_t i = 0; i < w->n; i++) {
		struct w_frame *f = &w->q[i];
		if (f->to != -2)
			continue;
		f->to = host_by_mac(w, f->b, f->from);
		w->sent++;
		if (w->mutate != NULL)
			w->mutate(w, f, w->mutate_arg);
		if (w->keep) {
			if (w->n_log == w->log_cap) {
				w->log_cap = w->log_cap ? 2 * w->log_cap : 256;
				w->log = realloc(w->log, w->log_cap * sizeof(*w->log));
				assert_non_null(w->log);
			}
			w->log[w->n_log++] = *f;
		}
		if (w->filter != NULL && !w->filter(w, f, w->arg)) {
			f->to = -1;
			w->dropped++;
		}
	}
}

void
w_inject(struct wire *w, uint16_t to, const uint8_t *f, uint16_t len)
{
	uint8_t b[W_FRAME_MAX];

	memcpy(b, f, len);
	w->e.now = w->now;
	lsw_host_rx(&w->e, &w->e.host[to], b, len);
}

void
w_run(struct wire *w, uint64_t until_ns)
{
	for (uint64_t loops = 0; w->now <= until_ns; loops++) {
		assert_true(loops < 100000000); /* a stuck engine fails, not hangs */
		/* What has arrived by now, then what is due now: the order of main.c's loop. */
		uint32_t k = 0;
		for (uint32_t i = 0; i < w->n; i++) {
			struct w_frame *f = &w->q[i];
			if (f->at <= w->now) {
				if (f->to >= 0) {
					w->e.now = w->now;
					lsw_host_rx(&w->e, &w->e.host[f->to], f->b, f->len);
				} else if (f->to == -1 && w->filter == NULL) {
					w->lost++;
				}
			} else {
				w->q[k++] = *f;
			}
		}
		w->n = k;
		uint64_t next = lsw_hosts_poll(&w->e, w->now);
		w_settle(w);
		for (uint32_t i = 0; i < w->n; i++)
			if (w->q[i].at < next)
				next = w->q[i].at;
		if (lsw_hosts_done(&w->e) && w->n == 0 && next == UINT64_MAX)
			return;
		if (lsw_hosts_done(&w->e) && w->n == 0 && w->e.sample_ns == 0) {
			/* Done: let pending pauses and timers run out, then stop. */
			bool busy = false;
			for (uint16_t i = 0; i < w->e.n_hosts; i++)
				busy |= w->e.host[i].n_active > 0;
			if (!busy)
				return;
		}
		w->now = next > w->now ? next : w->now + 1;
	}
}

void
w_free(struct wire *w)
{
	lsw_hosts_free(&w->e);
	free(w->q);
	free(w->log);
}
