/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A small pcapng writer (IETF draft-ietf-opsawg-pcapng): one section, an Interface
 * Description Block per interface (Ethernet, nanosecond timestamps), then Enhanced Packet
 * Blocks with their direction. Written in the host's byte order, which the section's
 * byte-order magic tells readers (Wireshark, tshark, libpcap). No DPDK here: the capture
 * hands it a frame as pieces (an mbuf chain's segments).
 */
#ifndef LSW_PCAPNG_H
#define LSW_PCAPNG_H

#include <stddef.h>
#include <stdint.h>
#include <sys/uio.h>

/* epb_flags: the frame's direction (bits 0-1). */
enum { LSW_PCAPNG_INBOUND = 1, LSW_PCAPNG_OUTBOUND = 2 };

struct lsw_pcapng;

/* Create (or truncate) @path and write the Section Header Block, naming @appl the writer.
 * NULL with @err set when the file cannot be written. */
struct lsw_pcapng *lsw_pcapng_open(const char *path, const char *appl, char *err,
				   size_t errlen);
/* Describe the next interface (ids count from 0): its if_name, and the snap length its
 * frames were cut to (0: none). Its id, or -1 after a write error. */
int lsw_pcapng_interface(struct lsw_pcapng *p, const char *name, uint32_t snaplen);
/* One frame of @len bytes on the wire, of which the @n pieces of @iov hold what was kept,
 * seen on interface @ifid at @ts_ns (nanoseconds since the UNIX epoch) with epb_flags
 * @flags (0: none). 0, or -1 after a write error (the first stays in lsw_pcapng_error). */
int lsw_pcapng_packet(struct lsw_pcapng *p, uint32_t ifid, uint64_t ts_ns, uint32_t flags,
		      const struct iovec *iov, int n, uint32_t len);
/* Push what is buffered to the file (readers of a growing file see whole blocks). */
int lsw_pcapng_flush(struct lsw_pcapng *p);
/* Bytes written so far, headers included. */
uint64_t lsw_pcapng_size(const struct lsw_pcapng *p);
/* The first write error (strerror), or NULL. */
const char *lsw_pcapng_error(const struct lsw_pcapng *p);
/* Flush, close and free. 0, or -1 if any write failed (lsw_pcapng_error's, into @err). */
int lsw_pcapng_close(struct lsw_pcapng *p, char *err, size_t errlen);

#endif
