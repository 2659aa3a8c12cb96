/* SPDX-License-Identifier: BSD-3-Clause */
/* lsw-host's wire formats: the ICRC against published vectors (InfiniBand's Annex A17),
 * frames built and parsed back, and what a switch may change without breaking the ICRC. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>
#include "lsw/parse.h"
#include "roce.h"

static uint16_t
hex(const char *s, uint8_t *out)
{
	uint16_t n = 0;

	while (*s) {
		unsigned int v;
		if (*s == ' ' || *s == '\n') {
			s++;
			continue;
		}
		assert_int_equal(sscanf(s, "%2x", &v), 1);
		out[n++] = (uint8_t)v;
		s += 2;
	}
	return n;
}

/* The ConnectX-4 Lx CNP of scapy's test/contrib/roce.uts: ends in 82 fd 00 2a. */
static const char cx4_cnp[] =
	"e41d2dab2bc27cfe90643b32080045c2003c718c400040119161"
	"0a0011010a0012010000 12b7002800008100ffff40000118"
	"000000000000000000000000000000000000000082fd002a";
/* scapy's UC SEND_ONLY example: ICRC 78 f3 53 f3. */
static const char uc_send[] =
	"248a07a8fa22248a07a8fa22080045010040047840004011b4d5c0a80007c0a80007c00012b7002c"
	"aca22460ffff000000d300cf17104630818be28935d90e9a95505401be885e50000078f353f3";

static void
icrc_vectors(void **state)
{
	uint8_t f[128];
	uint16_t n;

	(void)state;
	n = hex(cx4_cnp, f);
	assert_int_equal(n, 74);
	assert_int_equal(lsw_roce_icrc(f, 14, n), 0x2a00fd82);
	assert_int_equal(lsw_roce_icrc_stored(f, n), 0x2a00fd82);
	n = hex(uc_send, f);
	assert_int_equal(lsw_roce_icrc(f, 14, n), lsw_roce_icrc_stored(f, n));
	assert_int_equal(lsw_roce_icrc_stored(f, n), 0xf353f378);
	/* The frame is left as it was. */
	uint8_t g[128];
	hex(uc_send, g);
	assert_memory_equal(f, g, n);
}

/* TOS (CE), TTL and the IP checksum are masked: a switch that marks and routes keeps the
 * ICRC valid. Anything else it changed would break it. */
static void
icrc_masks(void **state)
{
	uint8_t f[128];
	uint16_t n = hex(cx4_cnp, f);

	(void)state;
	f[15] |= LSW_ECN_CE;
	f[22]--;                   /* TTL */
	f[24] ^= 0x5a;             /* header checksum */
	f[40] = 0x12;              /* UDP checksum */
	f[46] = 0x80;              /* FECN set by a switch */
	assert_int_equal(lsw_roce_icrc(f, 14, n), 0x2a00fd82);
	f[33] ^= 1;                /* the destination address */
	assert_int_not_equal(lsw_roce_icrc(f, 14, n), 0x2a00fd82);
}

/* A CNP built with the ConnectX-4 Lx's fields is that frame, byte for byte. */
static void
cnp_as_cx4(void **state)
{
	uint8_t want[128], f[128];
	uint16_t n = hex(cx4_cnp, want);
	struct lsw_roce_l2l3 l = {.sip = 0x0a001101, .dip = 0x0a001201, .tos = 0xc2, .sport = 0,
				  .ip_id = 0x718c};
	struct lsw_roce_bth b = {.opcode = LSW_OP_CNP, .pkey = 0xffff, .becn = true, .dqpn = 0x118};
	struct lsw_roce_ext x = {0};

	(void)state;
	memcpy(&l.dmac, want, 6);
	memcpy(&l.smac, want + 6, 6);
	assert_int_equal(lsw_roce_build(f, &l, &b, &x, 0), n);
	assert_memory_equal(f, want, n);
}

/* Every opcode and payload length builds a frame that lsw's parser and lsw-host's read back,
 * with a valid IPv4 checksum and ICRC, tagged or not. */
static void
build_parse(void **state)
{
	static const uint8_t ops[] = {LSW_OP_SEND_FIRST, LSW_OP_SEND_MIDDLE, LSW_OP_SEND_LAST,
				      LSW_OP_SEND_ONLY, LSW_OP_WRITE_FIRST, LSW_OP_WRITE_MIDDLE,
				      LSW_OP_WRITE_LAST, LSW_OP_WRITE_ONLY, LSW_OP_ACK, LSW_OP_CNP};
	uint8_t f[4400];

	(void)state;
	for (int tag = 0; tag < 2; tag++)
		for (size_t o = 0; o < sizeof(ops); o++)
			for (uint32_t pay = 0; pay <= 4096; pay += pay < 8 ? 1 : 1021) {
				struct lsw_roce_l2l3 l = {.sip = 0x0a000001, .dip = 0x0a000102,
							  .tos = 3 << 2 | 2, .tagged = tag,
							  .pcp = 3, .sport = 50000};
				struct lsw_roce_bth b = {.opcode = ops[o], .pkey = 0xffff,
							 .dqpn = 0x123456, .psn = 0xfffffe,
							 .becn = ops[o] == LSW_OP_CNP,
							 .ackreq = pay & 1};
				struct lsw_roce_ext x = {.va = 0x1122334455667788ull, .rkey = 7,
							 .dma_len = 9999, .syndrome = 0x60,
							 .msn = 42};
				uint32_t p = ops[o] == LSW_OP_ACK ? 0 : pay;
				uint16_t n = lsw_roce_build(f, &l, &b, &x, p);
				struct lsw_pkt_info pi;
				struct lsw_roce_rx r;
				assert_int_equal(n, lsw_roce_frame_len(tag, ops[o], p));
				assert_int_equal(n % 2, 0);
				assert_int_equal(lsw_parse(f, n, &pi), LSW_DROP_NONE);
				assert_true(pi.flags & LSW_PF_ROCE);
				assert_int_equal(pi.bth_opcode, ops[o]);
				assert_int_equal(pi.bth_psn, 0xfffffe);
				assert_true(lsw_roce_parse(f, n, &r));
				assert_int_equal(r.bth.dqpn, 0x123456);
				assert_int_equal(r.bth.ackreq, pay & 1);
				assert_int_equal(r.sport, 50000);
				assert_int_equal(r.tos, 3 << 2 | 2);
				if (ops[o] == LSW_OP_CNP) {
					assert_true(r.bth.becn);
					assert_int_equal(r.payload, 16);
				} else {
					assert_int_equal(r.payload, p);
				}
				if (ops[o] == LSW_OP_ACK) {
					assert_int_equal(r.syndrome, 0x60);
					assert_int_equal(r.msn, 42);
				}
				if (ops[o] == LSW_OP_WRITE_FIRST || ops[o] == LSW_OP_WRITE_ONLY)
					assert_int_equal(r.dma_len, 9999);
				assert_int_equal(lsw_roce_icrc(f, r.l3_off, n),
						 lsw_roce_icrc_stored(f, n));
			}
}

static void
psn_arithmetic(void **state)
{
	(void)state;
	assert_int_equal(lsw_psn_diff(5, 3), 2);
	assert_int_equal(lsw_psn_diff(3, 5), -2);
	assert_int_equal(lsw_psn_diff(1, 0xffffff), 2);
	assert_int_equal(lsw_psn_diff(0xffffff, 1), -2);
	assert_int_equal(lsw_psn_diff(0x7fffff, 0), 0x7fffff);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(icrc_vectors),
		cmocka_unit_test(icrc_masks),
		cmocka_unit_test(cnp_as_cx4),
		cmocka_unit_test(build_parse),
		cmocka_unit_test(psn_arithmetic),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
