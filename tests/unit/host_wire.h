/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A fake wire for lsw-host's engine: hosts of one config run on a fake clock, and what one
 * sends arrives at the host its frame is addressed to (by MAC) after a fixed delay, unless
 * the test's filter drops it. No EAL, no ports, no sleeping.
 */
#ifndef LSW_TEST_HOST_WIRE_H
#define LSW_TEST_HOST_WIRE_H

#include <stdbool.h>
#include <stdint.h>
#include "host.h"
#include "host_config.h"

#define W_FRAME_MAX 4400

struct w_frame {
	uint64_t at;          /* when it arrives */
	int16_t from, to;     /* host indices; to -1: nobody (counted in lost) */
	uint16_t len;
	uint8_t b[W_FRAME_MAX];
};

struct wire;
/* Return false to drop the frame (called once per frame, when it is sent). */
typedef bool (*w_filter)(struct wire *w, const struct w_frame *f, void *arg);
/* Change the frame on its way, as a switch would (called before the filter). */
typedef void (*w_mutate)(struct wire *w, struct w_frame *f, void *arg);

struct wire {
	struct lsw_hosts e;
	struct lsw_host_run run;
	struct w_frame *q;     /* in flight, in order of arrival */
	uint32_t n, cap;
	uint64_t delay_ns, now, sent, dropped, lost;
	w_filter filter;
	void *arg;
	w_mutate mutate;
	void *mutate_arg;
	/* Every frame sent, when @keep: the test reads them afterwards. */
	bool keep;
	struct w_frame *log;
	uint32_t n_log, log_cap;
};

/* Load @json (text) as lsw-host's config, running only @only (NULL: every host). Fails the
 * test on a config error. */
void w_init(struct wire *w, const char *json, const char *only, uint64_t delay_ns);
/* Run until the work is done and nothing is in flight, or until @until_ns of fake time. */
void w_run(struct wire *w, uint64_t until_ns);
/* Deliver @f (@len bytes) to host @to at the current time. */
void w_inject(struct wire *w, uint16_t to, const uint8_t *f, uint16_t len);
void w_free(struct wire *w);
/* Errors of loading @json, for tests of refusals: returns the number, first path/message. */
unsigned int w_config_errors(const char *json, const char *only, char *path, size_t plen,
			     char *msg, size_t mlen);

#endif
