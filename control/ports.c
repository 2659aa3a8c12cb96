/* SPDX-License-Identifier: BSD-3-Clause */
/* Port start-up and shutdown: one rx and one tx queue per port, both used by its owner. */
#include <stdio.h>
#include <string.h>
#include <rte_ethdev.h>
#include <rte_pci.h>
#include "lsw/log.h"
#include "jsonv.h"
#include "eal.h"
#include "switch.h"

/* The ethdev name EAL gave the device of @devargs: the vdev name, or the full PCI address. */
static int
find_port(const char *devargs, bool is_pci, uint16_t *port_id)
{
	char name[RTE_ETH_NAME_MAX_LEN];
	size_t n = strcspn(devargs, ",");

	if (n >= sizeof(name))
		return -1;
	memcpy(name, devargs, n);
	name[n] = '\0';
	if (is_pci) {
		struct rte_pci_addr addr;
		if (rte_pci_addr_parse(name, &addr) != 0)
			return -1;
		rte_pci_device_name(&addr, name, sizeof(name));
	}
	return rte_eth_dev_get_port_by_name(name, port_id);
}

/* A NIC's own 802.3x flow control would pause the link behind lsw's back and swallow the
 * PAUSE and PFC frames lsw must see: turn it off and ask the MAC to pass control frames
 * up. Virtual ports have no MAC flow control (ENOTSUP, said at debug level); a NIC that
 * refuses is named, since PFC through it then depends on the NIC (README, PFC). */
static void
mac_flow_ctrl(const struct lsw_port_conf *pc, uint16_t port_id)
{
	struct rte_eth_fc_conf fc;
	int rc = rte_eth_dev_flow_ctrl_get(port_id, &fc);

	if (rc == 0) {
		fc.mode = RTE_ETH_FC_NONE;
		fc.autoneg = 0;
		fc.mac_ctrl_frame_fwd = 1;
		rc = rte_eth_dev_flow_ctrl_set(port_id, &fc);
	}
	if (rc == 0)
		LSW_LOG(INFO, "%s: the NIC's flow control off, MAC control frames passed up",
			pc->name);
	else if (rc == -ENOTSUP && !pc->is_pci)
		LSW_LOG(DEBUG, "%s: no MAC flow control to turn off", pc->name);
	else
		LSW_LOG(WARNING, "%s: cannot turn the NIC's flow control off or pass MAC control "
			"frames up (%s): PFC and PAUSE frames may not reach lsw", pc->name,
			rte_strerror(-rc));
}

static int
port_start(struct lsw_switch *sw, uint16_t idx)
{
	const struct lsw_port_conf *pc = &sw->cfg->port[idx];
	struct lsw_port_rt *rt = &sw->port[idx];
	struct rte_eth_dev_info info;
	struct rte_eth_conf conf = {0};
	uint16_t rxd = sw->cfg->g.rx_desc, txd = sw->cfg->g.tx_desc;
	int rc;

	if (find_port(pc->devargs, pc->is_pci, &rt->port_id) != 0) {
		LSW_LOG(ERR, "%s: no DPDK port for devargs '%s'", pc->name, pc->devargs);
		return -1;
	}
	rc = rte_eth_dev_info_get(rt->port_id, &info);
	if (rc != 0)
		return rc;
	snprintf(rt->driver, sizeof(rt->driver), "%s", info.driver_name);
	/* ethdev checks MTU + overhead against max_rx_pktlen (net_tap 22.11: 1522 bytes). */
	uint32_t overhead = RTE_ETHER_HDR_LEN + RTE_ETHER_CRC_LEN;
	if (info.max_mtu != UINT16_MAX && info.max_rx_pktlen > info.max_mtu)
		overhead = info.max_rx_pktlen - info.max_mtu;
	uint32_t max_mtu = RTE_MIN((uint32_t)info.max_mtu, info.max_rx_pktlen - overhead);
	/* net_memif reports a 1518-byte frame but carries larger ones on chained descriptors
	 * (DPDK 22.11), which RoCE's 4 KB MTU needs: ethdev gets what it accepts, lsw keeps
	 * the configured MTU. */
	bool memif = strcmp(info.driver_name, "net_memif") == 0;
	if ((pc->mtu > max_mtu && !memif) || pc->mtu < info.min_mtu) {
		LSW_LOG(ERR, "$.PORT.%s.mtu: %u is outside what %s supports [%u, %u]", pc->name,
			pc->mtu, info.driver_name, info.min_mtu, max_mtu);
		return -1;
	}
	conf.rxmode.mtu = RTE_MIN(pc->mtu, max_mtu);
	rc = rte_eth_dev_configure(rt->port_id, 1, 1, &conf);
	if (rc == 0)
		rc = rte_eth_dev_adjust_nb_rx_tx_desc(rt->port_id, &rxd, &txd);
	if (rc == 0)
		rc = rte_eth_rx_queue_setup(rt->port_id, 0, rxd, rte_eth_dev_socket_id(rt->port_id),
					    NULL, sw->dp.pool);
	if (rc == 0)
		rc = rte_eth_tx_queue_setup(rt->port_id, 0, txd, rte_eth_dev_socket_id(rt->port_id),
					    NULL);
	if (rc == 0)
		rc = rte_eth_dev_start(rt->port_id);
	if (rc != 0) {
		LSW_LOG(ERR, "%s (%s): start failed: %s", pc->name, pc->devargs, rte_strerror(-rc));
		return rc;
	}
	rt->started = true;
	mac_flow_ctrl(pc, rt->port_id);
	/* Configure keeps the MTU inside ethdev; set_mtu also reaches the device (net_tap's
	 * kernel interface), so that both sides agree on the largest frame. */
	rc = memif ? 0 : rte_eth_dev_set_mtu(rt->port_id, pc->mtu);
	if (rc != 0 && rc != -ENOTSUP)
		LSW_LOG(WARNING, "%s: set MTU %u: %s", pc->name, pc->mtu, rte_strerror(-rc));
	/* Frames are filtered by destination MAC in software, so the PMD must pass them all. */
	rc = rte_eth_promiscuous_enable(rt->port_id);
	if (rc != 0 && rc != -ENOTSUP)
		LSW_LOG(WARNING, "%s: promiscuous mode: %s", pc->name, rte_strerror(-rc));
	if (pc->mac_set)
		rt->mac = pc->mac;
	else
		rte_eth_macaddr_get(rt->port_id, &rt->mac);
	struct rte_eth_link link;
	rt->speed = pc->speed;
	if (rt->speed == 0) {
		rt->speed = RTE_ETH_SPEED_NUM_10G;
		if (rte_eth_link_get_nowait(rt->port_id, &link) == 0 && link.link_speed != 0 &&
		    link.link_speed != RTE_ETH_SPEED_NUM_UNKNOWN)
			rt->speed = link.link_speed;
	}
	if (!pc->admin_up)
		lsw_port_set_admin(sw, idx, false);
	char mac[24];
	lsw_fmt_mac(mac, sizeof(mac), &rt->mac);
	char ring[40] = "";
	if (lsw_port_is_memif(sw->cfg, idx))
		snprintf(ring, sizeof(ring), ", ring %u slots",
			 lsw_port_ring_slots(sw->cfg, idx, pc->speed ? pc->speed : 10000));
	LSW_LOG(INFO, "%s: port %u (%s) mac %s mtu %u speed %u Mb/s%s, lcore %d, admin %s",
		pc->name, rt->port_id, info.driver_name, mac, pc->mtu, rt->speed, ring, pc->lcore,
		pc->admin_up ? "up" : "down");
	return 0;
}

int
lsw_ports_init(struct lsw_switch *sw)
{
	for (uint16_t i = 0; i < sw->cfg->n_ports; i++)
		if (port_start(sw, i) != 0)
			return -1;
	return 0;
}

void
lsw_ports_close(struct lsw_switch *sw)
{
	for (uint16_t i = 0; i < sw->cfg->n_ports; i++) {
		struct lsw_port_rt *rt = &sw->port[i];
		if (!rt->started)
			continue;
		rte_eth_dev_stop(rt->port_id);
		/* Close releases the queues and the mbufs still in the PMD's rings. */
		rte_eth_dev_close(rt->port_id);
		rt->started = false;
	}
}

/* The link follows the admin state where the PMD can (net_tap takes the kernel side down);
 * the workers drop whatever still arrives as IRIF_DISABLED. */
int
lsw_port_set_admin(struct lsw_switch *sw, uint16_t port, bool up)
{
	uint16_t id = sw->port[port].port_id;
	int rc = up ? rte_eth_dev_set_link_up(id) : rte_eth_dev_set_link_down(id);

	if (rc != 0 && rc != -ENOTSUP)
		LSW_LOG(WARNING, "%s: link %s: %s", sw->cfg->port[port].name, up ? "up" : "down",
			rte_strerror(-rc));
	sw->cfg->port[port].admin_up = up;
	return 0;
}

const char *
lsw_port_oper_status(const struct lsw_switch *sw, uint16_t port)
{
	struct rte_eth_link link;

	if (!sw->cfg->port[port].admin_up)
		return "down";
	if (rte_eth_link_get_nowait(sw->port[port].port_id, &link) != 0)
		return "unknown";
	return link.link_status ? "up" : "down";
}

void
lsw_ports_poll_link(struct lsw_switch *sw, uint64_t now_ns)
{
	bool changed = false;

	if (now_ns - sw->link_poll_ns < 100 * 1000000ull)
		return;
	sw->link_poll_ns = now_ns;
	for (uint16_t i = 0; i < sw->cfg->n_ports; i++) {
		const struct lsw_port_conf *pc = &sw->cfg->port[i];
		struct lsw_port_rt *rt = &sw->port[i];
		struct rte_eth_link link;
		if (!rt->started || sw->suspended[i] ||
		    rte_eth_link_get_nowait(rt->port_id, &link) != 0)
			continue;
		bool down = link.link_status == RTE_ETH_LINK_DOWN;
		if (down != rt->link_down) {
			rt->link_down = down;
			changed = true;
			LSW_LOG(INFO, "%s: link %s", pc->name, down ? "down" : "up");
		}
		/* PORT.speed governs; without it, the speed the link comes up at (pause
		 * times, the shaper and ECMP's load bands follow it), not a fallback. */
		if (pc->speed == 0 && !down && link.link_speed != 0 &&
		    link.link_speed != RTE_ETH_SPEED_NUM_UNKNOWN && link.link_speed != rt->speed) {
			LSW_LOG(INFO, "%s: speed %u Mb/s (the link's)", pc->name, link.link_speed);
			rt->speed = link.link_speed;
			changed = true;
		}
	}
	if (changed)
		(void)lsw_snapshot_refresh(sw);
}

/*
 * A port restart while the switch forwards: publish a snapshot in which the port is
 * suspended (its worker stops polling it and sending on it; its queues keep their
 * packets), wait for the grace period, stop the port, change it, start it, and publish it
 * back. The other ports never stop. net_tap changes its MTU live instead: it cannot be
 * restarted once its kernel side has moved to another namespace.
 */
int
lsw_port_set_mtu(struct lsw_switch *sw, uint16_t port, uint16_t mtu)
{
	struct lsw_port_conf *pc = &sw->cfg->port[port];
	uint16_t id = sw->port[port].port_id, old = pc->mtu;
	int rc;

	if (strcmp(sw->port[port].driver, "net_tap") == 0) {
		rc = rte_eth_dev_set_mtu(id, mtu);
		if (rc == -ENODEV) {
			/* The kernel side is in another namespace: lsw enforces the MTU on what it
			 * sends; the host's side is set where it lives. */
			LSW_LOG(WARNING, "%s: the tap's kernel side is out of reach (another "
				"namespace?); set its MTU there to %u", pc->name, mtu);
			rc = 0;
		}
	} else {
		sw->suspended[port] = true;
		if (lsw_snapshot_refresh(sw) != 0) {
			sw->suspended[port] = false;
			return -1;
		}
		rc = rte_eth_dev_stop(id);
		if (rc == 0) {
			/* net_null and net_pcap have no MTU of their own; net_memif's is nominal
			 * (port_start). */
			if (strcmp(sw->port[port].driver, "net_memif") != 0)
				rc = rte_eth_dev_set_mtu(id, mtu);
			if (rc == -ENOTSUP)
				rc = 0;
			int rs = rte_eth_dev_start(id);
			if (rc == 0)
				rc = rs;
		}
		sw->suspended[port] = false;
	}
	if (rc == 0)
		pc->mtu = mtu;
	else
		LSW_LOG(ERR, "%s: MTU %u -> %u: %s", pc->name, old, mtu, rte_strerror(-rc));
	(void)lsw_snapshot_refresh(sw);
	LSW_LOG(INFO, "%s: MTU %u", pc->name, pc->mtu);
	return rc == 0 ? 0 : -1;
}
