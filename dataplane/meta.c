/* SPDX-License-Identifier: BSD-3-Clause */
/* The mbuf's dynamic field and flag (include/lsw/meta.h). */
#include <rte_mbuf_dyn.h>
#include "lsw/meta.h"

int lsw_meta_offset = -1;
uint64_t lsw_ucast_flag;

int
lsw_meta_register(void)
{
	static const struct rte_mbuf_dynfield desc = {
		.name = "lsw_pkt_meta",
		.size = sizeof(struct lsw_pkt_meta),
		.align = __alignof__(struct lsw_pkt_meta),
	};

	static const struct rte_mbuf_dynflag flag = {.name = "lsw_dynflag_ucast"};
	int bit;

	lsw_meta_offset = rte_mbuf_dynfield_register(&desc);
	bit = rte_mbuf_dynflag_register(&flag);
	if (lsw_meta_offset < 0 || bit < 0)
		return -1;
	lsw_ucast_flag = UINT64_C(1) << bit;
	return 0;
}
