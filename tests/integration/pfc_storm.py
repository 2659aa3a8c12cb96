#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""PFC watchdog under a storm: the peer on Ethernet4 pauses priority 3 for seconds while
lossless traffic waits for it. The watchdog (poll 100 ms, detection 200 ms, restoration
400 ms, action drop) storms the queue within its window; the queue's traffic is dropped
and counted, no PAUSE goes upstream because of it (sonic-buildimage#26248), lossy traffic
on the same port and traffic to another port keep flowing; when the pause ends the queue
restores and forwards again, with nothing left of the action (sonic-buildimage#5898)."""
import os
import sys
import time

sys.path.insert(0, os.path.dirname(__file__))
from lswtest import Lsw, base_config, roce_pcap, run_test, tmpdir, wait_until  # noqa: E402

from scapy.all import Ether, Raw, wrpcap  # noqa: E402


def pfc_xoff(prio, quanta):
    body = bytes([0x01, 0x01, 0x00, 1 << prio])
    body += b"".join((quanta if i == prio else 0).to_bytes(2, "big") for i in range(8))
    return Ether(dst="01:80:c2:00:00:01", src="02:00:00:00:04:01", type=0x8808) / \
        Raw(body + bytes(26))


def test_pfc_storm():
    tmp = tmpdir("lsw-storm-")
    lossless = roce_pcap(os.path.join(tmp, "lossless.pcap"), 1024, 8, "10.9.0.0/24", dscp=3)
    lossy = roce_pcap(os.path.join(tmp, "lossy.pcap"), 256, 8, "10.8.0.0/24", dscp=0)
    storm = os.path.join(tmp, "storm.pcap")
    # One XOFF of 0xffff quanta at 10 Mb/s: 3.36 s of pause for priority 3.
    wrpcap(storm, [pfc_xoff(3, 0xffff)])
    lossy4 = roce_pcap(os.path.join(tmp, "lossy4.pcap"), 256, 4, "10.9.0.0/24", dscp=0)
    cfg = base_config(tmp, {
        "Ethernet0": ("net_pcap0,rx_pcap=%s,infinite_rx=1" % lossless, "10.0.0.0/31", None),
        "Ethernet4": ("net_pcap1,rx_pcap=%s" % storm, "10.0.1.0/31", {"speed": "10"}),
        "Ethernet8": ("net_null0,no-rx=1", "10.0.2.0/31", None),
        "Ethernet12": ("net_pcap2,rx_pcap=%s,infinite_rx=1" % lossy, "10.0.3.0/31", None),
        "Ethernet16": ("net_pcap3,rx_pcap=%s,infinite_rx=1" % lossy4, "10.0.4.0/31", None)},
        idle_sleep_us=0, mbufs=16384, workers=[1])
    cfg["STATIC_ROUTE"] = {"10.9.0.0/24": {"nexthop": "10.0.1.1"},
                           "10.8.0.0/24": {"nexthop": "10.0.2.1"}}
    cfg["NEIGH"] = {"Ethernet4|10.0.1.1": {"neigh": "02:00:00:00:04:01"},
                    "Ethernet8|10.0.2.1": {"neigh": "02:00:00:00:08:01"}}
    cfg["LSW"]["buffer"] = {"size": "4MB"}
    cfg["BUFFER_PROFILE"] = {"pg_lossless": {"pool": "ingress_lossless_pool", "size": "64KB",
                                             "xoff": "64KB", "dynamic_th": "-4"}}
    cfg["BUFFER_PG"] = {"Ethernet0|3": {"profile": "pg_lossless"}}
    cfg["PORT_QOS_MAP"] = {
        "Ethernet0,Ethernet8,Ethernet12,Ethernet16": {"pfc_enable": "3,4"},
        "Ethernet4": {"pfc_enable": "3,4", "pfcwd_sw_enable": "3"}}
    cfg["PFC_WD"] = {"GLOBAL": {"POLL_INTERVAL": "100"},
                     "Ethernet4": {"action": "drop", "detection_time": "200",
                                   "restoration_time": "400"}}

    sw = Lsw(cfg, tmp)
    with sw:
        wd = lambda: sw.rpc("pfcwd.stats")["ports"]["Ethernet4"]["queues"]["3"]
        q4 = lambda: sw.rpc("queue.stats", {"port": "Ethernet4"})["ports"]["Ethernet4"]
        pre = "PFC_WD_QUEUE_STATS_"
        # The storm is detected while the pause lasts.
        s = wait_until(lambda: (lambda x: x["PFC_WD_STATUS"] == "stormed" and x)(wd()),
                       timeout=30, what="storm detected")
        assert s[pre + "DEADLOCK_DETECTED"] == 1 and s["action"] == "drop"
        pfc4 = sw.rpc("pfc.stats", {"port": "Ethernet4"})["ports"]["Ethernet4"]["priorities"]
        assert pfc4["3"]["rx_paused"] and pfc4["3"]["PFC_3_RX_PKTS"] == 1
        # Drops for the stormed queue grow; lossy traffic on the same port and traffic to
        # the other port keep flowing.
        a = (wd(), q4(), sw.rpc("port.stats", {"port": "Ethernet8"})["ports"]["Ethernet8"])
        wait_until(lambda: wd()[pre + "TX_DROPPED_PACKETS"] > a[0][pre + "TX_DROPPED_PACKETS"]
                   and q4()["1"]["PACKETS"] > a[1]["1"]["PACKETS"]
                   and sw.rpc("port.stats", {"port": "Ethernet8"})["ports"]["Ethernet8"]
                   ["IF_OUT_UCAST_PKTS"] > a[2]["IF_OUT_UCAST_PKTS"], what="others flowing")
        assert q4()["3"]["PACKETS"] == a[1]["3"]["PACKETS"]  # the stormed queue sends nothing
        # Dropped before admission: PG 3 of Ethernet0 empties and stops pausing upstream.
        wait_until(lambda: not sw.rpc("pfc.stats", {"port": "Ethernet0"})["ports"]["Ethernet0"]
                   ["priorities"]["3"]["tx_pausing"], what="no more PAUSE upstream")
        t0 = sw.rpc("pfc.stats", {"port": "Ethernet0"})["ports"]["Ethernet0"]["priorities"]["3"]
        time.sleep(0.3)
        t1 = sw.rpc("pfc.stats", {"port": "Ethernet0"})["ports"]["Ethernet0"]["priorities"]["3"]
        if wd()["PFC_WD_STATUS"] == "stormed":
            assert t1["PFC_3_TX_PKTS"] == t0["PFC_3_TX_PKTS"], (t0, t1)
        # The pause runs out; 400 ms later the queue restores and forwards again.
        s = wait_until(lambda: (lambda x: x["PFC_WD_STATUS"] == "operational" and x)(wd()),
                       timeout=60, what="restoration")
        assert s[pre + "DEADLOCK_DETECTED"] == 1 and s[pre + "DEADLOCK_RESTORED"] == 1
        assert s[pre + "TX_DROPPED_PACKETS"] > 0
        assert s[pre + "TX_DROPPED_PACKETS_LAST"] == s[pre + "TX_DROPPED_PACKETS"]
        after = q4()["3"]["PACKETS"]
        wait_until(lambda: q4()["3"]["PACKETS"] > after, what="the queue forwards again")
        d0 = wd()[pre + "TX_DROPPED_PACKETS"]
        time.sleep(0.3)
        assert wd()[pre + "TX_DROPPED_PACKETS"] == d0  # nothing left of the action
        drops4 = sw.rpc("port.stats", {"port": "Ethernet4"})["ports"]["Ethernet4"]["drops"]
        assert drops4.get("PFC_WD_TX_DROP", 0) == d0, (drops4, d0, wd())
        assert "StormDetected" not in sw.read_log()
    log = sw.read_log()
    assert "PFC storm detected on Ethernet4 queue 3" in log, log
    assert "PFC storm restored on Ethernet4 queue 3" in log, log


if __name__ == "__main__":
    run_test(test_pfc_storm)
