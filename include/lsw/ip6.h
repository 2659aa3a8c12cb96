/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * IPv6 addresses as the switch handles them: 16 bytes in network order, compared and
 * masked bytewise. Pure inline helpers, shared by the dataplane, the control plane and tests.
 */
#ifndef LSW_IP6_H
#define LSW_IP6_H

#include <stdint.h>
#include <stdbool.h>
#include <string.h>
#include <rte_ether.h>

#define LSW_IP6_LEN 16

/* @a/@plen and @b are on the same prefix. */
static inline bool
lsw_ip6_match(const uint8_t *a, const uint8_t *b, uint8_t plen)
{
	unsigned int full = plen / 8u, rest = plen % 8u;

	if (memcmp(a, b, full) != 0)
		return false;
	if (rest == 0)
		return true;
	uint8_t m = (uint8_t)(0xff00 >> rest);
	return ((a[full] ^ b[full]) & m) == 0;
}

/* Clear the host bits of @a past @plen. */
static inline void
lsw_ip6_mask(uint8_t *a, uint8_t plen)
{
	for (unsigned int i = 0; i < LSW_IP6_LEN; i++) {
		unsigned int keep = plen > i * 8 ? plen - i * 8 : 0;
		if (keep < 8)
			a[i] &= (uint8_t)(0xff00 >> keep);
	}
}

static inline bool
lsw_ip6_eq(const uint8_t *a, const uint8_t *b)
{
	return memcmp(a, b, LSW_IP6_LEN) == 0;
}

static inline bool
lsw_ip6_is_zero(const uint8_t *a)
{
	static const uint8_t z[LSW_IP6_LEN];
	return memcmp(a, z, LSW_IP6_LEN) == 0;
}

static inline bool
lsw_ip6_is_mc(const uint8_t *a)
{
	return a[0] == 0xff;
}

/* fe80::/10 */
static inline bool
lsw_ip6_is_ll(const uint8_t *a)
{
	return a[0] == 0xfe && (a[1] & 0xc0) == 0x80;
}

static inline bool
lsw_ip6_is_loopback(const uint8_t *a)
{
	static const uint8_t lo[LSW_IP6_LEN] = {[15] = 1};
	return memcmp(a, lo, LSW_IP6_LEN) == 0;
}

/* fe80::/64 with the modified EUI-64 interface id of @mac (RFC 4291 appendix A). */
static inline void
lsw_ip6_ll_from_mac(uint8_t *a, const struct rte_ether_addr *mac)
{
	const uint8_t *m = mac->addr_bytes;

	memset(a, 0, LSW_IP6_LEN);
	a[0] = 0xfe;
	a[1] = 0x80;
	a[8] = m[0] ^ 0x02;
	a[9] = m[1];
	a[10] = m[2];
	a[11] = 0xff;
	a[12] = 0xfe;
	a[13] = m[3];
	a[14] = m[4];
	a[15] = m[5];
}

/* ff02::1:ffXX:XXXX, the solicited-node multicast address of @a (RFC 4291 2.7.1). */
static inline void
lsw_ip6_solicited(uint8_t *sn, const uint8_t *a)
{
	memset(sn, 0, LSW_IP6_LEN);
	sn[0] = 0xff;
	sn[1] = 0x02;
	sn[11] = 0x01;
	sn[12] = 0xff;
	sn[13] = a[13];
	sn[14] = a[14];
	sn[15] = a[15];
}

/* 33:33 + the low 32 bits of multicast address @a (RFC 2464 7), as lsw_mac_to_u64 does. */
static inline uint64_t
lsw_ip6_mc_mac(const uint8_t *a)
{
	struct rte_ether_addr e = {{0x33, 0x33, a[12], a[13], a[14], a[15]}};
	uint64_t v = 0;

	memcpy(&v, e.addr_bytes, RTE_ETHER_ADDR_LEN);
	return v;
}

#endif
