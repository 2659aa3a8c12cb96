/* SPDX-License-Identifier: BSD-3-Clause */
/* pcapng files (pcapng.h): SHB, IDB, EPB, written through a large stdio buffer. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "pcapng.h"

#define SHB_TYPE      0x0A0D0D0Au
#define IDB_TYPE      1u
#define EPB_TYPE      6u
#define BYTE_ORDER_MAGIC 0x1A2B3C4Du
#define LINKTYPE_ETHERNET 1
#define OPT_END       0
#define SHB_USERAPPL  4
#define IF_NAME       2
#define IF_TSRESOL    9
#define EPB_FLAGS     2
#define BUF_SIZE      (256 * 1024)

struct lsw_pcapng {
	FILE *f;
	uint64_t size;          /* bytes handed to stdio */
	uint32_t n_if;
	int err;                /* the first errno; 0: none */
};

/* A block's body (header and trailer are added around it); SHB and IDB only. */
struct body {
	size_t n;
	uint8_t b[512];
};

static size_t
pad4(size_t n)
{
	return (4 - (n & 3)) & 3;
}

static void
put(struct body *b, const void *v, size_t n)
{
	if (n && b->n + n <= sizeof(b->b)) /* every caller bounds what it puts */
		memcpy(b->b + b->n, v, n);
	b->n += n;
}

static void
put_u16(struct body *b, uint16_t v)
{
	put(b, &v, 2);
}

static void
put_u32(struct body *b, uint32_t v)
{
	put(b, &v, 4);
}

/* A string option, cut to fit a block's body. */
static uint16_t
str_len(const char *s)
{
	size_t n = strlen(s);

	return (uint16_t)(n < 200 ? n : 200);
}

static void
put_opt(struct body *b, uint16_t code, const void *v, uint16_t len)
{
	static const uint8_t zero[4];

	put_u16(b, code);
	put_u16(b, len);
	put(b, v, len);
	put(b, zero, pad4(len));
}

static int
write_raw(struct lsw_pcapng *p, const void *v, size_t n)
{
	if (p->err)
		return -1;
	if (n && fwrite(v, 1, n, p->f) != n) {
		p->err = errno ? errno : EIO;
		return -1;
	}
	p->size += n;
	return 0;
}

static int
write_block(struct lsw_pcapng *p, uint32_t type, const struct body *b)
{
	uint32_t hdr[2] = {type, (uint32_t)(b->n + 12)};

	if (b->n > sizeof(b->b)) {
		p->err = EOVERFLOW;
		return -1;
	}
	write_raw(p, hdr, sizeof(hdr));
	write_raw(p, b->b, b->n);
	return write_raw(p, &hdr[1], 4);
}

struct lsw_pcapng *
lsw_pcapng_open(const char *path, const char *appl, char *err, size_t errlen)
{
	struct lsw_pcapng *p = calloc(1, sizeof(*p));
	struct body b = {0};
	int64_t section_len = -1; /* unknown: the file is written as it goes */

	if (p == NULL) {
		snprintf(err, errlen, "%s: out of memory", path);
		return NULL;
	}
	p->f = fopen(path, "wb");
	if (p->f == NULL) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		free(p);
		return NULL;
	}
	setvbuf(p->f, NULL, _IOFBF, BUF_SIZE);
	put_u32(&b, BYTE_ORDER_MAGIC);
	put_u16(&b, 1); /* version 1.0 */
	put_u16(&b, 0);
	put(&b, &section_len, 8);
	put_opt(&b, SHB_USERAPPL, appl, str_len(appl));
	put_opt(&b, OPT_END, NULL, 0);
	if (write_block(p, SHB_TYPE, &b) != 0) {
		snprintf(err, errlen, "%s: %s", path, strerror(p->err));
		fclose(p->f);
		free(p);
		return NULL;
	}
	return p;
}

int
lsw_pcapng_interface(struct lsw_pcapng *p, const char *name, uint32_t snaplen)
{
	const uint8_t tsresol = 9; /* 10^-9 s */
	struct body b = {0};

	put_u16(&b, LINKTYPE_ETHERNET);
	put_u16(&b, 0);
	put_u32(&b, snaplen);
	put_opt(&b, IF_NAME, name, str_len(name));
	put_opt(&b, IF_TSRESOL, &tsresol, 1);
	put_opt(&b, OPT_END, NULL, 0);
	if (write_block(p, IDB_TYPE, &b) != 0)
		return -1;
	return (int)p->n_if++;
}

int
lsw_pcapng_packet(struct lsw_pcapng *p, uint32_t ifid, uint64_t ts_ns, uint32_t flags,
		  const struct iovec *iov, int n, uint32_t len)
{
	static const uint8_t zero[4];
	uint32_t caplen = 0;

	for (int i = 0; i < n; i++)
		caplen += (uint32_t)iov[i].iov_len;
	uint32_t opts = flags ? 8 + 4 : 0; /* epb_flags, then opt_endofopt */
	uint32_t total = 32 + caplen + (uint32_t)pad4(caplen) + opts;
	uint32_t hdr[7] = {EPB_TYPE, total, ifid, (uint32_t)(ts_ns >> 32), (uint32_t)ts_ns,
			   caplen, len};
	const uint16_t opt_flags[2] = {EPB_FLAGS, 4}, opt_end[2] = {OPT_END, 0};

	write_raw(p, hdr, sizeof(hdr));
	for (int i = 0; i < n; i++)
		write_raw(p, iov[i].iov_base, iov[i].iov_len);
	write_raw(p, zero, pad4(caplen));
	if (flags) {
		write_raw(p, opt_flags, sizeof(opt_flags));
		write_raw(p, &flags, 4);
		write_raw(p, opt_end, sizeof(opt_end));
	}
	return write_raw(p, &total, 4);
}

int
lsw_pcapng_flush(struct lsw_pcapng *p)
{
	if (!p->err && fflush(p->f) != 0)
		p->err = errno ? errno : EIO;
	return p->err ? -1 : 0;
}

uint64_t
lsw_pcapng_size(const struct lsw_pcapng *p)
{
	return p->size;
}

const char *
lsw_pcapng_error(const struct lsw_pcapng *p)
{
	return p->err ? strerror(p->err) : NULL;
}

int
lsw_pcapng_close(struct lsw_pcapng *p, char *err, size_t errlen)
{
	int rc;

	lsw_pcapng_flush(p);
	if (fclose(p->f) != 0 && !p->err)
		p->err = errno ? errno : EIO;
	rc = p->err ? -1 : 0;
	if (rc != 0)
		snprintf(err, errlen, "%s", strerror(p->err));
	free(p);
	return rc;
}
