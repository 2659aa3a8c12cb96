/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * PFC headroom of a lossless PG, SONiC's dynamic buffer model (its headroom calculation HLD,
 * buffer_headroom_mellanox.lua; "generic" is the HLD / barefoot variant). The headroom
 * holds what arrives after the switch decides to pause: the frame it is sending, the
 * round trip on the cable, the MAC/PHY delay, the peer's response time and the frame the
 * peer has started, all scaled by the cell waste of small packets.
 */
#include <math.h>
#include <stddef.h>
#include "qos.h"

/* IEEE 802.3 31B.3.7: pause quanta a peer may take to respond, by speed (Mb/s). */
static uint32_t
response_quanta(uint32_t speed)
{
	static const struct {
		uint32_t speed, quanta;
	} t[] = {
		{100, 1}, {1000, 2}, {10000, 67}, {25000, 80}, {40000, 118}, {50000, 147},
		{100000, 394}, {200000, 453}, {400000, 905}, {800000, 905},
	};

	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++)
		if (t[i].speed == speed)
			return t[i].quanta;
	return 0;
}

static uint64_t
round_up_1k(double v)
{
	return (uint64_t)ceil(v / 1024.0) * 1024;
}

int
lsw_buffer_headroom(const struct lsw_buffer_conf *b, uint32_t speed, uint32_t cable_m,
		    uint32_t port_mtu, uint64_t inflight, uint32_t ring_frames, bool shp,
		    struct lsw_headroom *h)
{
	const double cell = b->cell, p = b->small_packet_percentage, lmtu = b->lossless_mtu;
	bool mellanox = b->headroom_model == 0;
	uint32_t q = response_quanta(speed);

	if (speed == 0 || b->cell == 0)
		return -1;
	h->wcf = cell > 128 ? cell / 64 : 2 * cell / (1 + cell);
	if (mellanox) {
		h->wcf = ceil(h->wcf);
		/* p is a share of packets; by bytes it is much smaller. */
		double pb = 100.0 * 64 / ((p * 64 + (100 - p) * lmtu) / 100);
		h->occupancy = (100 - pb + pb * h->wcf) / 100;
	} else {
		h->occupancy = (100 - p + p * h->wcf) / 100;
	}
	/* Two cable lengths at 198 000 km/s, in bytes at the port speed. */
	h->cable_bytes = 2.0 * cable_m * speed * 1e9 / 198e6 / (mellanox ? 8000 : 8192);
	h->peer_response = q ? q * 512.0 / 8 : b->peer_response_time;
	/* A software link holds more than a cable: what the sender handed its PMD ahead of
	 * the line rate, and what sits in the PMD's rings, arrive after a pause goes out. */
	h->inflight = (double)inflight;
	h->propagation = port_mtu + h->cable_bytes + b->mac_phy_delay + h->peer_response +
			 h->inflight;
	/* Ring slots are counted in frames, each charged whole (an 802.1Q frame of the port
	 * MTU in cells), not scaled by the cell waste of small packets: a slot holds one
	 * frame however small, so with 4 KB cells the scaling counted a ring 4 times over. */
	h->ring = (double)ring_frames * ceil((port_mtu + 18) / cell) * cell;
	h->xoff = round_up_1k(lmtu + h->propagation * h->occupancy + h->ring);
	if (mellanox && b->small_packet_percentage != 100 && !shp)
		h->xoff += 2048; /* buffer_headroom_mellanox.lua's compensation without SHP */
	h->xon = round_up_1k(b->pipeline_latency);
	/* With a shared headroom pool the xoff comes from the pool, not the profile. */
	h->size = shp ? h->xon : h->xoff + h->xon;
	return 0;
}
