/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * JSON-RPC over a Unix stream socket, on the main lcore, with epoll and non-blocking I/O
 * (SPDK's jsonrpc_server shape). Requests may be concatenated or newline-delimited; each
 * answer ends with a newline. Per connection: one input buffer bounded by max_request, an
 * output buffer, and a deadline for a half-sent request, so that a slow or hostile client
 * can neither block the switch nor other clients.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/epoll.h>
#include <sys/file.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <jansson.h>
#include "lsw/log.h"
#include "rpc.h"
#include "rpc_server.h"

#define LISTEN_TAG     UINT32_MAX
#define LISTEN_TCP_TAG (UINT32_MAX - 1)
#define MAX_OUTPUT     (64u << 20) /* answers a client leaves unread */
#define MAX_NESTING    256

struct conn {
	int fd;               /* -1 = free slot */
	char *in;
	size_t in_len, in_cap;
	char *out;
	size_t out_len, out_off, out_cap;
	uint64_t partial_since_ns; /* when the pending partial request started; 0 = none */
	uint64_t active_ns;   /* when it last sent something, read an answer, or connected */
	bool closing;         /* close once the output is flushed */
	bool want_out;        /* EPOLLOUT registered */
};

struct lsw_rpc_server {
	struct lsw_switch *sw;
	int lfd, tfd, epfd, lockfd; /* Unix and TCP listeners */
	char path[108];
	char lockpath[120];
	struct lsw_rpc_limits lim;
	struct conn *conns;
	unsigned int n_conns;
	struct lsw_rpc_stats st;
	pthread_mutex_t *lock;  /* NULL: none */
	uint64_t now_ns;        /* of the current poll */
};

size_t
lsw_rpc_frame(const char *buf, size_t len)
{
	char stack[MAX_NESTING];
	int depth = 0;
	bool in_str = false, esc = false;

	for (size_t i = 0; i < len; i++) {
		char ch = buf[i];
		if (in_str) {
			if (esc)
				esc = false;
			else if (ch == '\\')
				esc = true;
			else if (ch == '"')
				in_str = false;
			continue;
		}
		switch (ch) {
		case '"':
			in_str = true;
			break;
		case '{':
		case '[':
			if (depth == MAX_NESTING)
				return i + 1;
			stack[depth++] = ch == '{' ? '}' : ']';
			break;
		case '}':
		case ']':
			if (depth == 0 || stack[depth - 1] != ch)
				return i + 1;
			if (--depth == 0)
				return i + 1;
			break;
		default:
			break;
		}
	}
	return 0;
}

bool
lsw_rpc_next(const char *buf, size_t len, size_t *skip, size_t *end, bool *framed)
{
	size_t off = 0;

	/* strchr() also finds the terminating NUL: NUL bytes are skipped like blanks. */
	while (off < len && strchr(" \t\r\n", buf[off]) != NULL)
		off++;
	*skip = off;
	if (off == len)
		return false;
	buf += off;
	len -= off;
	*framed = *buf == '{' || *buf == '[';
	if (*framed) {
		*end = lsw_rpc_frame(buf, len);
		return *end != 0;
	}
	/* Not an object or array: take the line, to tell JSON from garbage. */
	const char *nl = memchr(buf, '\n', len);
	if (nl == NULL)
		return false;
	*end = (size_t)(nl - buf) + 1;
	return true;
}

static void
conn_close(struct lsw_rpc_server *s, struct conn *c)
{
	epoll_ctl(s->epfd, EPOLL_CTL_DEL, c->fd, NULL);
	close(c->fd);
	free(c->in);
	free(c->out);
	*c = (struct conn){.fd = -1};
	s->n_conns--;
}

static void
conn_watch(struct lsw_rpc_server *s, struct conn *c, bool want_out)
{
	struct epoll_event ev = {.events = EPOLLIN | (want_out ? EPOLLOUT : 0),
				 .data.u32 = (uint32_t)(c - s->conns)};

	if (c->want_out != want_out && epoll_ctl(s->epfd, EPOLL_CTL_MOD, c->fd, &ev) == 0)
		c->want_out = want_out;
}

/* Write what can be written now; returns false if the connection was closed. */
static bool
conn_flush(struct lsw_rpc_server *s, struct conn *c)
{
	while (c->out_off < c->out_len) {
		ssize_t n = send(c->fd, c->out + c->out_off, c->out_len - c->out_off,
				 MSG_NOSIGNAL | MSG_DONTWAIT);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
			break;
		if (n <= 0) {
			conn_close(s, c);
			return false;
		}
		c->out_off += (size_t)n;
		c->active_ns = s->now_ns; /* it reads its answers */
	}
	if (c->out_off == c->out_len) {
		c->out_off = c->out_len = 0;
		if (c->closing) {
			conn_close(s, c);
			return false;
		}
	}
	conn_watch(s, c, c->out_len != 0);
	return true;
}

static void
conn_send(struct lsw_rpc_server *s, struct conn *c, json_t *resp)
{
	char *txt;
	size_t n;

	if (resp == NULL)
		return;
	txt = json_dumps(resp, JSON_COMPACT);
	json_decref(resp);
	if (txt == NULL)
		return;
	n = strlen(txt);
	if (c->out_len + n + 1 > MAX_OUTPUT) {
		s->st.output_overflow++;
		free(txt);
		c->closing = true;
		c->out_len = c->out_off; /* nothing more will be sent */
		return;
	}
	if (c->out_len + n + 1 > c->out_cap) {
		size_t cap = (c->out_len + n + 1) * 2;
		char *p = realloc(c->out, cap);
		if (p == NULL) {
			free(txt);
			c->closing = true;
			return;
		}
		c->out = p;
		c->out_cap = cap;
	}
	memcpy(c->out + c->out_len, txt, n);
	c->out[c->out_len + n] = '\n';
	c->out_len += n + 1;
	free(txt);
}

static void
send_error(struct lsw_rpc_server *s, struct conn *c, int code, const char *msg)
{
	conn_send(s, c, lsw_rpc_error_response(NULL, code, msg, NULL));
}

/* Answer every complete request in the input buffer; keep a partial one. */
static void
conn_process(struct lsw_rpc_server *s, struct conn *c, uint64_t now_ns)
{
	size_t off = 0, skip, end;
	bool framed;

	while (!c->closing) {
		bool whole = lsw_rpc_next(c->in + off, c->in_len - off, &skip, &end, &framed);
		const char *p = c->in + off + skip;
		json_error_t je;
		json_t *v;

		off += skip;
		if (!whole)
			break;
		off += end;
		s->st.requests++;
		v = json_loadb(p, end, framed ? JSON_REJECT_DUPLICATES : JSON_DECODE_ANY, &je);
		if (v == NULL) {
			s->st.parse_errors++;
			send_error(s, c, LSW_RPC_PARSE_ERROR, je.text);
		} else if (!framed) {
			send_error(s, c, LSW_RPC_INVALID_REQUEST, LSW_RPC_MSG_NOT_A_REQUEST);
		} else {
			conn_send(s, c, lsw_rpc_handle(s->sw, v));
		}
		json_decref(v);
	}
	memmove(c->in, c->in + off, c->in_len - off);
	c->in_len -= off;
	c->partial_since_ns = c->in_len ? (c->partial_since_ns ? c->partial_since_ns : now_ns) : 0;
	if (c->in_len > s->lim.max_request) {
		char msg[96];
		s->st.too_large++;
		snprintf(msg, sizeof(msg), "request larger than %u bytes", s->lim.max_request);
		send_error(s, c, LSW_RPC_INVALID_REQUEST, msg);
		c->in_len = 0;
		c->closing = true;
	}
}

static void
conn_read(struct lsw_rpc_server *s, struct conn *c, uint64_t now_ns)
{
	bool eof = false;

	for (;;) {
		if (c->in_cap - c->in_len < 4096) {
			size_t cap = c->in_cap ? c->in_cap * 2 : 8192;
			if (cap > (size_t)s->lim.max_request + 8192)
				cap = (size_t)s->lim.max_request + 8192;
			if (cap > c->in_cap) {
				char *p = realloc(c->in, cap);
				if (p == NULL)
					break;
				c->in = p;
				c->in_cap = cap;
			}
		}
		if (c->in_cap == c->in_len) {
			conn_process(s, c, now_ns);
			if (c->closing || c->in_cap == c->in_len)
				break;
			continue;
		}
		ssize_t n = recv(c->fd, c->in + c->in_len, c->in_cap - c->in_len, MSG_DONTWAIT);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
			break;
		if (n <= 0) {
			eof = true;
			break;
		}
		c->in_len += (size_t)n;
		c->active_ns = now_ns;
	}
	conn_process(s, c, now_ns);
	if (eof)
		c->closing = true; /* answer what came before the shutdown, then close */
	conn_flush(s, c);
}

static void
do_accept(struct lsw_rpc_server *s, int lfd, uint64_t now_ns)
{
	for (;;) {
		int fd = accept4(lfd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
		if (fd < 0)
			return;
		if (s->n_conns == s->lim.max_conns) {
			s->st.refused++;
			close(fd);
			continue;
		}
		unsigned int i;
		for (i = 0; s->conns[i].fd >= 0; i++)
			;
		struct conn *c = &s->conns[i];
		*c = (struct conn){.fd = fd, .active_ns = now_ns};
		struct epoll_event ev = {.events = EPOLLIN, .data.u32 = i};
		if (epoll_ctl(s->epfd, EPOLL_CTL_ADD, fd, &ev) != 0) {
			close(fd);
			c->fd = -1;
			continue;
		}
		s->n_conns++;
		s->st.connections++;
		if (lfd == s->tfd) {
			int one = 1; /* answers are whole lines: send each at once */
			setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
			s->st.tcp_connections++;
		}
	}
}

void
lsw_rpc_server_poll(struct lsw_rpc_server *s, int timeout_ms, uint64_t now_ns)
{
	struct epoll_event evs[16];
	int n = epoll_wait(s->epfd, evs, 16, timeout_ms);

	if (s->lock != NULL)
		pthread_mutex_lock(s->lock);
	s->now_ns = now_ns;
	for (int i = 0; i < n; i++) {
		if (evs[i].data.u32 == LISTEN_TAG || evs[i].data.u32 == LISTEN_TCP_TAG) {
			do_accept(s, evs[i].data.u32 == LISTEN_TAG ? s->lfd : s->tfd, now_ns);
			continue;
		}
		struct conn *c = &s->conns[evs[i].data.u32];
		if (c->fd < 0)
			continue;
		if (evs[i].events & EPOLLOUT && !conn_flush(s, c))
			continue;
		if (evs[i].events & (EPOLLIN | EPOLLHUP | EPOLLERR))
			conn_read(s, c, now_ns);
	}
	/* A request that stays half-sent past the deadline is dropped, with an answer; so is
	 * a connection that sent nothing for the idle timeout (each one holds a slot). */
	uint64_t limit = (uint64_t)s->lim.timeout_ms * 1000000;
	uint64_t idle = (uint64_t)s->lim.idle_timeout_ms * 1000000;
	for (unsigned int i = 0; i < s->lim.max_conns; i++) {
		struct conn *c = &s->conns[i];
		/* Idle: nothing sent for the timeout, no partial request, and no answer it is
		 * reading (one it never reads counts as idle too); nothing waiting in the socket
		 * either (epoll may not have reported it in this batch). */
		char peek;
		if (c->fd >= 0 && idle != 0 && c->in_len == 0 && now_ns - c->active_ns >= idle &&
		    recv(c->fd, &peek, 1, MSG_PEEK | MSG_DONTWAIT) <= 0) {
			if (c->out_len != 0 || c->closing) { /* cannot take even an error */
				s->st.idle_closed++;
				conn_close(s, c);
				continue;
			}
			s->st.idle_closed++;
			c->closing = true;
			conn_send(s, c, lsw_rpc_error_response(NULL, LSW_RPC_ERR_TIMEOUT,
					"connection idle for rpc_idle_timeout_ms: closed", NULL));
			conn_flush(s, c);
			continue;
		}
		if (c->fd < 0 || c->partial_since_ns == 0 || now_ns - c->partial_since_ns < limit)
			continue;
		s->st.timeouts++;
		c->in_len = 0;
		c->partial_since_ns = 0;
		c->closing = true;
		conn_send(s, c, lsw_rpc_error_response(NULL, LSW_RPC_ERR_TIMEOUT,
						       "request incomplete after the timeout",
						       NULL));
		conn_flush(s, c);
	}
	if (s->lock != NULL)
		pthread_mutex_unlock(s->lock);
}

/* TCP has no file permissions: anyone who reaches the address drives the switch, hence
 * 127.0.0.1 unless the config says otherwise. */
static int
tcp_listen(struct lsw_rpc_server *s, char *err, size_t errlen)
{
	struct sockaddr_in sa = {.sin_family = AF_INET, .sin_port = htons(s->lim.tcp_port),
				 .sin_addr.s_addr = htonl(s->lim.tcp_addr)};
	struct epoll_event ev = {.events = EPOLLIN, .data.u32 = LISTEN_TCP_TAG};
	int one = 1;

	s->tfd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (s->tfd < 0 || setsockopt(s->tfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) != 0 ||
	    bind(s->tfd, (struct sockaddr *)&sa, sizeof(sa)) != 0 || listen(s->tfd, 16) != 0 ||
	    epoll_ctl(s->epfd, EPOLL_CTL_ADD, s->tfd, &ev) != 0) {
		snprintf(err, errlen, "TCP port %u: %s", s->lim.tcp_port, strerror(errno));
		return -1;
	}
	return 0;
}

struct lsw_rpc_server *
lsw_rpc_server_create(struct lsw_switch *sw, const char *path, const struct lsw_rpc_limits *lim,
		      char *err, size_t errlen)
{
	struct lsw_rpc_server *s = calloc(1, sizeof(*s));
	struct sockaddr_un sa = {.sun_family = AF_UNIX};

	if (s == NULL || strlen(path) >= sizeof(sa.sun_path)) {
		snprintf(err, errlen, "socket path too long");
		free(s);
		return NULL;
	}
	s->sw = sw;
	s->lim = *lim;
	s->lfd = s->tfd = s->epfd = s->lockfd = -1;
	snprintf(s->path, sizeof(s->path), "%s", path);
	snprintf(s->lockpath, sizeof(s->lockpath), "%s.lock", path);
	s->conns = calloc(lim->max_conns, sizeof(*s->conns));
	if (s->conns == NULL)
		goto fail_errno;
	for (unsigned int i = 0; i < lim->max_conns; i++)
		s->conns[i].fd = -1;

	/* The lock tells a live switch from a stale socket left by a crash. */
	s->lockfd = open(s->lockpath, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
	if (s->lockfd < 0)
		goto fail_errno;
	if (flock(s->lockfd, LOCK_EX | LOCK_NB) != 0) {
		snprintf(err, errlen, "%s is in use by another running lsw", path);
		goto fail;
	}
	unlink(path);
	s->lfd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (s->lfd < 0)
		goto fail_errno;
	memcpy(sa.sun_path, path, strlen(path) + 1);
	if (bind(s->lfd, (struct sockaddr *)&sa, sizeof(sa)) != 0 || chmod(path, 0660) != 0 ||
	    listen(s->lfd, 16) != 0)
		goto fail_errno;
	s->epfd = epoll_create1(EPOLL_CLOEXEC);
	struct epoll_event ev = {.events = EPOLLIN, .data.u32 = LISTEN_TAG};
	if (s->epfd < 0 || epoll_ctl(s->epfd, EPOLL_CTL_ADD, s->lfd, &ev) != 0)
		goto fail_errno;
	if (lim->tcp_port != 0 && tcp_listen(s, err, errlen) != 0)
		goto fail;
	return s;
fail_errno:
	snprintf(err, errlen, "%s: %s", path, strerror(errno));
fail:
	lsw_rpc_server_destroy(s);
	return NULL;
}

void
lsw_rpc_server_destroy(struct lsw_rpc_server *s)
{
	if (s == NULL)
		return;
	for (unsigned int i = 0; s->conns != NULL && i < s->lim.max_conns; i++)
		if (s->conns[i].fd >= 0)
			conn_close(s, &s->conns[i]);
	if (s->lfd >= 0) {
		close(s->lfd);
		unlink(s->path);
	}
	if (s->tfd >= 0)
		close(s->tfd);
	if (s->epfd >= 0)
		close(s->epfd);
	if (s->lockfd >= 0) {
		if (flock(s->lockfd, LOCK_EX | LOCK_NB) == 0)
			unlink(s->lockpath);
		close(s->lockfd);
	}
	free(s->conns);
	free(s);
}

const struct lsw_rpc_stats *
lsw_rpc_server_stats(const struct lsw_rpc_server *s)
{
	return &s->st;
}

unsigned int
lsw_rpc_server_conns(const struct lsw_rpc_server *s)
{
	return s->n_conns;
}

void
lsw_rpc_server_set_lock(struct lsw_rpc_server *s, pthread_mutex_t *lock)
{
	s->lock = lock;
}
