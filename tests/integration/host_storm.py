#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""Two closed-loop failure cases through a real lsw:

- a storm: host h0 keeps priority 3 paused (the malfunctioning NIC of the seeds) for 1.5 s;
  lsw's watchdog, on by SONiC's `pfc_watchdog_status` with its defaults (200 ms detection
  and restoration, action drop), stormed its queue while the storm ran and restored it after;
  h1's WRITE to h0 was dropped during the storm and completes after it by retransmission;
  h2's WRITE to h3 on other ports completes meanwhile, untouched;
- lossy: PFC off and a small buffer: a 4:1 incast loses packets at lsw (counted by reason),
  the receiver NAKs, the senders go back and resend, and every message completes.
"""
import os
import sys

sys.path.insert(0, os.path.dirname(__file__))
from hosttest import run_hosts, star, start, switch_drops  # noqa: E402
from lswtest import run_test, tmpdir  # noqa: E402


def storm():
    tmp = tmpdir("lsw-host-storm-")
    sw_cfg, hc = star(tmp, 4)
    sw_cfg["PORT_QOS_MAP"]["Ethernet0,Ethernet4,Ethernet8,Ethernet12"]["pfc_watchdog_status"] = \
        "enable"
    hc["hosts"]["h0"]["storm"] = {"priority": 3, "start_ms": 0, "duration_ms": 1500}
    # Retries outlast the storm: 8 x 300 ms.
    hc["defaults"] = {"rto_us": 300000, "retry_cnt": 7, "cc": {"algorithm": "none"}}
    hc["workload"] = [
        {"type": "flow", "src": "h1", "dst": "h0", "size": "1MB", "start_us": 100000},
        {"type": "flow", "src": "h2", "dst": "h3", "size": "4MB", "start_us": 300000}]
    sw = start(sw_cfg, tmp)
    try:
        res = run_hosts(hc, tmp, timeout=120)
        wd = sw.rpc("pfcwd.stats")["ports"]["Ethernet0"]["queues"]["3"]
        drops = switch_drops(sw)
        log = sw.read_log()
    finally:
        sw.stop()
    pre = "PFC_WD_QUEUE_STATS_"
    assert wd[pre + "DEADLOCK_DETECTED"] == 1 and wd[pre + "DEADLOCK_RESTORED"] == 1, wd
    assert wd[pre + "TX_DROPPED_PACKETS"] > 0 and wd["PFC_WD_STATUS"] == "operational", wd
    assert "PFC storm detected on Ethernet0 queue 3" in log, log
    assert "PFC storm restored on Ethernet0 queue 3" in log, log
    assert set(drops) == {"Ethernet0"} and set(drops["Ethernet0"]) == {"PFC_WD_TX_DROP"}, drops
    h = res["hosts"]
    assert h["h0"]["counters"]["tx_pause_storm_frames"] >= 2, h["h0"]
    assert res["messages_done"] == 2 and res["messages_failed"] == 0, res
    q = {x["src"]: x for x in res["qps"]}
    # h1 lost what it sent during the storm and sent it again after the restoration.
    assert q["h1"]["timeouts"] >= 1 and q["h1"]["retransmitted_packets"] > 0, q["h1"]
    assert q["h1"]["fct_us"]["max"] > 1000000, q["h1"]
    # h2 to h3 never lost a packet, and took about its line time (4 MB at 1 Gb/s: 34 ms).
    assert q["h2"]["retransmitted_packets"] == 0 and q["h2"]["timeouts"] == 0, q["h2"]
    assert q["h2"]["fct_us"]["max"] < 200000, q["h2"]


def lossy():
    tmp = tmpdir("lsw-host-lossy-")
    sw_cfg, hc = star(tmp, 5, pfc=False)
    # 256 KB of buffer for 4 senders at 1 Gb/s into one: less than 4 bandwidth-delay
    # products of a 1 ms RTT, so the egress queue overflows.
    sw_cfg["BUFFER_POOL"]["egress_lossless_pool"]["size"] = "256KB"
    sw_cfg["BUFFER_PROFILE"]["egress_lossy_profile"]["static_th"] = "128KB"
    hc["defaults"] = {"rto_us": 100000, "retry_cnt": 7, "cc": {"algorithm": "none"}}
    hc["workload"] = [{"type": "incast", "senders": ["h1", "h2", "h3", "h4"],
                       "receiver": "h0", "size": "1MB"}]
    sw = start(sw_cfg, tmp)
    try:
        res = run_hosts(hc, tmp, timeout=120)
        drops = switch_drops(sw)
    finally:
        sw.stop()
    assert drops.get("Ethernet0", {}).get("EGRESS_QUEUE_THRESHOLD", 0) > 0, drops
    h = res["hosts"]
    assert h["h0"]["counters"]["out_of_sequence"] > 0 and h["h0"]["counters"]["resp_nak_sent"] > 0
    senders = [h["h%d" % i]["counters"] for i in range(1, 5)]
    assert sum(c["packet_seq_err"] for c in senders) == h["h0"]["counters"]["resp_nak_sent"]
    assert sum(c["req_retransmitted_packets"] for c in senders) > 0
    assert res["messages_done"] == 4 and res["messages_failed"] == 0, res
    # Every byte arrived once, in order.
    assert sum(q["rx_bytes"] for q in res["qps"]) == 4 * 1024 * 1024


def test_host_storm():
    storm()
    lossy()


if __name__ == "__main__":
    run_test(test_host_storm)
