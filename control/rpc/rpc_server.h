/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef LSW_RPC_SERVER_H
#define LSW_RPC_SERVER_H

#include <stdint.h>
#include <stdbool.h>
#include <stddef.h>
#include <pthread.h>

struct lsw_switch;
struct lsw_rpc_server;

/* Transport counters, exported by switch.info. */
struct lsw_rpc_stats {
	uint64_t connections;      /* accepted */
	uint64_t refused;          /* closed at once: too many connections */
	uint64_t requests;         /* JSON values received */
	uint64_t parse_errors;     /* answered -32700 */
	uint64_t too_large;        /* request over the size limit: answered, connection closed */
	uint64_t timeouts;         /* half-sent request stalled: answered, connection closed */
	uint64_t output_overflow;  /* client not reading its answers: connection closed */
	uint64_t idle_closed;      /* no request for idle_timeout_ms: connection closed */
	uint64_t tcp_connections;  /* of the accepted, how many came over TCP */
};

struct lsw_rpc_limits {
	uint32_t max_conns;
	uint32_t max_request;      /* bytes of one pending request */
	uint32_t timeout_ms;       /* a partial request older than this is dropped */
	uint32_t idle_timeout_ms;  /* a connection with no request this long is closed; 0 never */
	uint16_t tcp_port;         /* also listen on TCP tcp_addr:tcp_port; 0 = no */
	uint32_t tcp_addr;         /* host order */
};

/* Listen on the Unix socket @path (mode 0660), guarded by the lock file @path.lock, and on
 * TCP if @lim says so. */
struct lsw_rpc_server *lsw_rpc_server_create(struct lsw_switch *sw, const char *path,
					     const struct lsw_rpc_limits *lim, char *err,
					     size_t errlen);
/* Serve for up to @timeout_ms; returns at once when something was handled. */
void lsw_rpc_server_poll(struct lsw_rpc_server *s, int timeout_ms, uint64_t now_ns);
void lsw_rpc_server_destroy(struct lsw_rpc_server *s);
/* Hold @lock while handling (not while waiting), for other threads reading the switch. */
void lsw_rpc_server_set_lock(struct lsw_rpc_server *s, pthread_mutex_t *lock);
const struct lsw_rpc_stats *lsw_rpc_server_stats(const struct lsw_rpc_server *s);
unsigned int lsw_rpc_server_conns(const struct lsw_rpc_server *s);

/* Framing: length of the complete JSON object/array at @buf, 0 if more bytes are needed,
 * or the offset just past the first bracket mismatch (the caller parses and fails). */
size_t lsw_rpc_frame(const char *buf, size_t len);
/* The next request in @buf: after @skip blank bytes (always set), @end bytes of it; @framed:
 * an object or batch (else a line of something else, answered as not a request). False
 * when it is not complete yet. */
bool lsw_rpc_next(const char *buf, size_t len, size_t *skip, size_t *end, bool *framed);
#define LSW_RPC_MSG_NOT_A_REQUEST "a request is a JSON object or a batch array"

#endif
