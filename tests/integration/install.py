# SPDX-License-Identifier: BSD-3-Clause
"""`meson install` makes lsw a daemon: the programs on the PATH, the example configs in
/etc/lsw, the traffic they replay in share/lsw, and a systemd unit lsw@.service that
systemd-analyze accepts. The installed lsw runs the installed default config from the
unit's working directory, exactly as the unit's ExecStart says, and stops cleanly.
"""
import json
import os
import re
import signal
import subprocess
import sys

sys.path.insert(0, os.path.dirname(__file__))
from lswtest import BUILD, PYTHON, Client, run_test, tmpdir, wait_until  # noqa: E402


def options():
    r = subprocess.run(["meson", "introspect", "--buildoptions", BUILD], check=True,
                       capture_output=True, text=True)
    return {o["name"]: o["value"] for o in json.loads(r.stdout)}


def test_install():
    tmp = tmpdir("lsw-install-")
    dest = os.path.join(tmp, "root")
    subprocess.run(["meson", "install", "-C", BUILD, "--destdir", dest, "--no-rebuild",
                    "--quiet"], check=True, capture_output=True)
    o = options()
    prefix, confdir = o["prefix"], o["confdir"]
    bindir = os.path.join(prefix, o["bindir"])
    datadir = os.path.join(prefix, o["datadir"], "lsw")
    unitdir = os.path.join(prefix, "lib", "systemd", "system")

    def inst(path):
        return dest + path

    for tool in ("lsw", "lswctl", "lsw-pcapgen", "lab-host"):
        p = inst(os.path.join(bindir, tool))
        assert os.access(p, os.X_OK), p + " is not installed as a program"
    for cfg in ("default", "tap-lab", "buffers", "ecn"):
        assert os.path.isfile(inst(os.path.join(confdir, cfg + ".json"))), cfg
    assert os.path.isfile(inst(os.path.join(datadir, "configs", "traffic", "default.pcap")))
    # lswctl's RPC client (tools/lswpy), where the installed lswctl looks for it.
    assert os.path.isfile(inst(os.path.join(datadir, "python", "lswpy", "rpc.py")))
    # The README and the reference pages where its links find them; the man pages where
    # scdoc rendered them (the build's "man" feature).
    docdir = os.path.join(prefix, o["datadir"], "doc", "lsw")
    for page in ("README.md", "LICENSE", "configs/README.md", "control/OPERATING.md",
                 "include/lsw/COUNTERS.md"):
        assert os.path.isfile(inst(os.path.join(docdir, page))), page
    if os.path.exists(os.path.join(BUILD, "control", "lsw.8")):
        for page in ("man8/lsw.8", "man8/lswctl.8", "man8/lsw-host.8", "man1/lsw-lab.1",
                     "man5/lsw.json.5"):
            assert os.path.isfile(inst(os.path.join(prefix, o["mandir"], page))), page
    unit_path = inst(os.path.join(unitdir, "lsw@.service"))
    unit = open(unit_path).read()
    assert "@" not in re.sub(r"lsw@|%i|\[.*\]|#.*", "", unit), "unsubstituted variable:\n" + unit
    execstart = re.search(r"^ExecStart=(.*)$", unit, re.M).group(1).split()
    workdir = re.search(r"^WorkingDirectory=(.*)$", unit, re.M).group(1)
    assert execstart[0] == os.path.join(bindir, "lsw") and workdir == datadir, (execstart, workdir)

    # systemd-analyze verify checks the unit's syntax, and that its programs exist: point
    # them into the installed tree.
    check = os.path.join(tmp, "unit")
    os.mkdir(check)
    with open(os.path.join(check, "lsw@.service"), "w") as f:
        f.write(unit.replace(bindir + "/", inst(bindir) + "/"))
    r = subprocess.run(["systemd-analyze", "verify", os.path.join(check, "lsw@default.service")],
                       capture_output=True, text=True)
    assert r.returncode == 0 and "lsw@" not in r.stderr, r.stderr
    # ... and refuses a broken one, so the check above can fail.
    with open(os.path.join(check, "lsw@.service"), "w") as f:
        f.write(unit.replace(bindir + "/lsw", inst(bindir) + "/no-such-lsw"))
    r = subprocess.run(["systemd-analyze", "verify", os.path.join(check, "lsw@default.service")],
                       capture_output=True, text=True)
    assert r.returncode != 0, "systemd-analyze accepted a unit whose program is missing"

    # The installed tools work without the source tree.
    r = subprocess.run([PYTHON, inst(os.path.join(bindir, "lswctl")), "--help"],
                       capture_output=True, text=True, cwd=tmp)
    assert r.returncode == 0 and "switch" in r.stdout, r.stderr
    r = subprocess.run([inst(os.path.join(bindir, "lsw-pcapgen")),
                        os.path.join(tmp, "x.pcap"), "--flows", "3", "--profile", "roce"],
                       capture_output=True, text=True, cwd=tmp)
    assert r.returncode == 0 and "3 frames" in r.stdout, r.stderr

    # The installed daemon as the unit starts it: ExecStartPre's check, then ExecStart, in
    # the working directory, on the installed default config (socket and EAL prefix made
    # unique so that it can run beside anything else).
    conf = json.load(open(inst(os.path.join(confdir, "default.json"))))
    conf["LSW"]["global"]["file_prefix"] = "lswinstall-%d" % os.getpid()
    mine = os.path.join(tmp, "default.json")
    json.dump(conf, open(mine, "w"))
    lsw = inst(os.path.join(bindir, "lsw"))
    r = subprocess.run([lsw, "-c", mine, "--check"], capture_output=True, text=True,
                       cwd=inst(workdir))
    assert r.returncode == 0, r.stdout + r.stderr
    sock = os.path.join(tmp, "default.sock")
    log = open(os.path.join(tmp, "lsw.log"), "w")
    proc = subprocess.Popen([lsw, "-c", mine, "--rpc-socket", sock], cwd=inst(workdir),
                            stdout=log, stderr=subprocess.STDOUT)
    try:
        def forwarding():
            try:
                st = Client(sock).call("port.stats", {"port": "Ethernet0"})
            except OSError:
                return False
            return st["ports"]["Ethernet0"]["IF_IN_UCAST_PKTS"] > 0
        wait_until(forwarding, timeout=60, what="the installed lsw to replay its pcap")
    finally:
        proc.send_signal(signal.SIGINT)
        rc = proc.wait(timeout=60)
        log.close()
    out = open(os.path.join(tmp, "lsw.log")).read()
    assert rc == 0 and "mbufs are back in the pool" in out, out
    print("installed %d files; systemd-analyze verify: ok" % sum(
        len(f) for _, _, f in os.walk(dest)))


if __name__ == "__main__":
    run_test(test_install)
