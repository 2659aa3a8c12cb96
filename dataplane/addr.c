/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A port's own addresses, both families: is an address the port's, is it on one of the
 * port's subnets, and which of them to speak from. ARP, NDP and the ICMP errors ask; kept
 * below all three so that none of them needs another for it.
 */
#include "lsw/dataplane.h"

bool
lsw_port_has_addr(const struct lsw_port_dp *p, uint32_t ip)
{
	for (unsigned int i = 0; i < p->n_addr; i++)
		if (p->addr[i] == ip)
			return true;
	return false;
}

/* The index of the port's address whose subnet holds @ip, or -1. */
static int
subnet_of(const struct lsw_port_dp *p, uint32_t ip)
{
	for (unsigned int i = 0; i < p->n_addr; i++)
		if (((ip ^ p->addr[i]) & lsw_prefix_mask(p->plen[i])) == 0)
			return (int)i;
	return -1;
}

bool
lsw_port_on_link(const struct lsw_port_dp *p, uint32_t ip)
{
	return subnet_of(p, ip) >= 0;
}

/* The port address to speak from towards @dst: the one whose subnet holds it, else the first. */
uint32_t
lsw_port_src_addr(const struct lsw_port_dp *p, uint32_t dst)
{
	int i = subnet_of(p, dst);

	return i >= 0 ? p->addr[i] : p->n_addr ? p->addr[0] : 0;
}

bool
lsw_port_has_addr6(const struct lsw_port_dp *p, const uint8_t *ip)
{
	if (lsw_ip6_eq(p->ll6, ip))
		return true;
	for (unsigned int i = 0; i < p->n_addr6; i++)
		if (lsw_ip6_eq(p->addr6[i], ip))
			return true;
	return false;
}

/* The index of the port's global address whose subnet holds @ip, or -1. */
static int
subnet6_of(const struct lsw_port_dp *p, const uint8_t *ip)
{
	for (unsigned int i = 0; i < p->n_addr6; i++)
		if (lsw_ip6_match(p->addr6[i], ip, p->plen6[i]))
			return (int)i;
	return -1;
}

bool
lsw_port_on_link6(const struct lsw_port_dp *p, const uint8_t *ip)
{
	return lsw_ip6_is_ll(ip) || subnet6_of(p, ip) >= 0;
}

const uint8_t *
lsw_port_src_addr6(const struct lsw_port_dp *p, const uint8_t *dst)
{
	if (lsw_ip6_is_ll(dst) || p->n_addr6 == 0)
		return p->ll6;
	int i = subnet6_of(p, dst);
	return p->addr6[i >= 0 ? i : 0];
}
