/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * PFC at a host's link (lsw-host's engine, engine.h): the pauses its peer sends it, and the
 * pauses it sends, as a slow receiver whose buffer passed XOFF or as the storm mode. What
 * is paused is read by xmit.c; the frames go out from there too.
 */
#include "lsw/pfc.h"
#include "engine.h"

/* ---- pauses received ------------------------------------------------------------------ */

/* Pauses that ended by @now are accounted in rx_pause_ns. */
void
lsw_host_pause_expire(struct lsw_host *h, uint64_t now)
{
	for (int p = 0; p < 8; p++)
		if (h->rx_since[p] != 0 && due(h->rx_until[p], now)) {
			h->ps.rx_pause_ns[p] += h->rx_until[p] - h->rx_since[p];
			h->rx_since[p] = 0;
		}
}

void
lsw_host_pfc_rx(struct lsw_host *h, const uint8_t *body, uint32_t len, uint64_t now)
{
	struct lsw_pfc_frame f;
	enum lsw_drop why = lsw_pfc_decode(body, len, &f);

	if (why != LSW_DROP_NONE) {
		h->ps.rx_drop[why]++;
		return;
	}
	if (f.opcode == LSW_MACCTL_PAUSE) {
		h->rx_port_until = now + ns_at((uint64_t)f.time[0] * 64,
						   (double)h->c.speed_bps);
		return;
	}
	for (int p = 0; p < 8; p++) {
		if (!(f.enable >> p & 1))
			continue;
		h->ps.rx_pause[p]++;
		if (f.time[p] == 0) {
			if (h->rx_since[p] != 0 && !due(h->rx_until[p], now))
				h->rx_until[p] = now;
			lsw_host_pause_expire(h, now);
			continue;
		}
		lsw_host_pause_expire(h, now);
		if (h->rx_since[p] == 0)
			h->rx_since[p] = now;
		/* A quantum is 512 bit times: 64 bytes at the link's speed. */
		h->rx_until[p] = now + ns_at((uint64_t)f.time[p] * 64, (double)h->c.speed_bps);
	}
}

/* ---- the receive buffer of a slow receiver, and the storm ----------------------------- */

void
lsw_host_rxbuf_drain(struct lsw_host *h, uint64_t now)
{
	uint64_t gone = (uint64_t)((now - h->rxbuf_at) * (double)h->c.rx_drain_bps / 8 / NSEC_S);

	if (gone > 0 || h->rxbuf == 0) {
		h->rxbuf = gone >= h->rxbuf ? 0 : h->rxbuf - gone;
		h->rxbuf_at = now;
	}
	if (!h->tx_paused && h->rxbuf > h->c.rx_xoff) {
		h->tx_paused = true;
		h->tx_since = now;
		h->pfc_xoff_due = true;
	} else if (h->tx_paused && h->rxbuf <= h->c.rx_xon) {
		h->tx_paused = false;
		h->pfc_xon_due = true;
		h->ps.tx_pause_ns[h->c.prio_data] += now - h->tx_since;
	} else if (h->tx_paused && due(h->tx_refresh, now)) {
		h->pfc_xoff_due = true;
	}
}

/* Half a pause of @quanta: when a pause that must hold is sent again. */
uint64_t
lsw_host_half_pause_ns(const struct lsw_host *h, uint16_t quanta)
{
	return ns_at((uint64_t)quanta * 32, (double)h->c.speed_bps);
}

bool
lsw_host_storm_on(const struct lsw_host *h, uint64_t now)
{
	/* storm_from is 0 until the workload starts. */
	return h->c.storm_prio >= 0 && h->storm_from != 0 && due(h->storm_from, now) &&
	       (h->storm_until == 0 || !due(h->storm_until, now));
}
