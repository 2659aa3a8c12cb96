# SPDX-License-Identifier: BSD-3-Clause
"""Every external command and Python module that tests/ and tools/ use comes from a Debian
package that tools/setup installs, in the layer of the file that uses it.

A machine where a package was once installed by hand runs the suite green while a fresh
one fails (dpdk-dev, which ships dpdk-telemetry.py, was missing for a whole round). And
tools/setup installs in layers (run, labs, test, bench: `tools/setup --packages LAYER` lists
one), so that running the switch does not install the test suite's or the benchmarks'
packages; a tool of the run layer that needs a test package would fail on a machine set up
to run. So:

1. COMMANDS and MODULES below map each command and module to the package that ships it,
   and each of those packages that a used command or module needs must be in the PACKAGES
   of the layer of the file that uses it (LAYERS below), or be Essential or required (on
   every Debian machine);
2. a scan of tests/ and tools/ finds the commands they run (Python: the first string of a
   call or of a list, the argument of shutil.which; shell: the first word of a command) and
   the modules they import; each one that is installed outside the project must be in the
   tables above or come from an Essential or required package (on every Debian machine);
3. where a command or module is installed, dpkg must agree with the table (the package
   there, or one it depends on, ships it).
"""
import ast
import importlib.util
import os
import re
import subprocess
import sys

SOURCE = os.environ.get("LSW_SOURCE_ROOT", os.path.join(os.path.dirname(__file__), "../.."))
SYSTEM_PATH = ["/usr/sbin", "/usr/bin", "/sbin", "/bin"]

# Command -> the Debian package that ships it.
COMMANDS = {
    "apt-get": "apt",
    "bpftool": "bpftool",
    "clang": "clang",
    "dpdk-telemetry.py": "dpdk-dev",
    "dpdk-testpmd": "dpdk-dev",
    "ethtool": "ethtool",
    "gcc": "gcc",
    "git": "git",
    "ip": "iproute2",
    "llvm-cov": "llvm",
    "make": "make",
    "nm": "binutils",
    "ovs-appctl": "openvswitch-common",
    "ovs-ofctl": "openvswitch-common",
    "ovs-vsctl": "openvswitch-switch",
    "ovs-vswitchd": "openvswitch-switch",
    "ovsdb-server": "openvswitch-common",
    "ovsdb-tool": "openvswitch-common",
    "llvm-profdata": "llvm",
    "iperf3": "iperf3",
    "meson": "meson",
    "ninja": "ninja-build",
    "perf": "linux-perf",
    "pgrep": "procps",
    "ping": "iputils-ping",
    "pkg-config": "pkg-config",
    "pkill": "procps",
    "ps": "procps",
    "python3": "python3",
    "sysctl": "procps",
    "systemd-analyze": "systemd",
    "tcpdump": "tcpdump",
    "tshark": "tshark",
}
# Python module (top-level name) -> package.
MODULES = {
    "matplotlib": "python3-matplotlib",
    "numpy": "python3-numpy",
    "scapy": "python3-scapy",
}
# Commands a file uses only where they are installed, working without them.
OPTIONAL = {
    "tools/lswctl": {"tshark"},  # capture prints tshark's lines, else one line a frame
}
# Words at a command position that are not programs: shell builtins and keywords, and the
# project's own tools (run from tools/ or build/).
NOT_COMMANDS = {
    "cd", "exec", "exit", "export", "set", "shift", "trap", "wait", "read", "local", "return",
    "if", "then", "else", "elif", "fi", "for", "while", "do", "done", "case", "esac", "in",
    "break", "continue", "unset", "command", "eval", ".", "[", "test", "echo", "printf",
    "true", "false", "kill", "type", "umask", "ulimit",
}


# The layer of each file (the first pattern that matches its path under the source root):
# what tools/setup LAYER installs before that file runs.
LAYERS = [
    ("tools/bench-", "bench"), ("tools/bench_", "bench"),
    ("tools/lsw-lab", "labs"), ("tools/lswlab/", "labs"), ("tools/lsw-pcapgen", "labs"),
    ("tools/lswtimeline.py", "labs"),
    ("tools/run-default", "run"), ("tools/setup", "run"), ("tools/lswctl", "run"),
    ("tools/lab-host", "run"), ("tools/lswpy/", "run"),  # lswctl's RPC client
    ("", "test"),  # tests/, tools/run-tests and the test tools (fuzz-*, soak, ecmp-compare)
]


def layer_of(rel):
    return next(layer for prefix, layer in LAYERS if rel.startswith(prefix))


def setup_packages(layer):
    r = subprocess.run([os.path.join(SOURCE, "tools", "setup"), "--packages", layer],
                       capture_output=True, text=True)
    assert r.returncode == 0, "tools/setup --packages %s: %s" % (layer, r.stderr)
    return set(r.stdout.split())


def project_files():
    for top in ("tests", "tools"):
        for root, dirs, files in os.walk(os.path.join(SOURCE, top)):
            dirs[:] = [d for d in dirs if d not in ("__pycache__", "corpus")]
            for f in files:
                path = os.path.join(root, f)
                try:
                    head = open(path, "rb").read(200)
                except OSError:
                    continue
                if f.endswith(".py") or head.startswith(b"#!/usr/bin/python3") or \
                        head.startswith(b"#!/usr/bin/env python3"):
                    yield path, "python"
                elif head.startswith(b"#!/bin/sh") or head.startswith(b"#!/bin/bash") or \
                        head.startswith(b"#!/usr/bin/env bash"):
                    yield path, "shell"


def python_uses(path):
    """Commands (candidates) and imported top-level modules of a Python file; modules
    imported inside a try whose handler catches ImportError are optional."""
    tree = ast.parse(open(path).read(), path)
    cmds, mods, optional = set(), set(), set()

    def first_string(node):
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            return node.value
        return None

    def callee(node):
        f = node.func
        return f.attr if isinstance(f, ast.Attribute) else f.id if isinstance(f, ast.Name) else ""

    for node in ast.walk(tree):
        # run("ip", ...), Popen(["tshark", ...]), shutil.which("iperf3"), cmd = ["x", ...]
        if isinstance(node, ast.Call) and node.args and callee(node) in RUNNERS:
            args = node.args
            if isinstance(args[0], (ast.List, ast.Tuple)):
                args = args[0].elts
            strings = [first_string(a) for a in args]
            # The first string is the program (ns(NAME, "ping", ...) runs ping), and so is
            # what follows "exec NAME" (ip netns exec NAME iperf3 ...).
            s = next((x for x in strings if x), None)
            if s:
                cmds.add(s)
            for i, x in enumerate(strings[:-2]):
                if x == "exec" and strings[i + 2]:
                    cmds.add(strings[i + 2])
        elif isinstance(node, ast.Assign) and isinstance(node.value, (ast.List, ast.Tuple)) \
                and node.value.elts and any(isinstance(t, ast.Name) and
                                            re.search("cmd|argv|args", t.id) for t in node.targets):
            s = first_string(node.value.elts[0])
            if s:
                cmds.add(s)
        elif isinstance(node, ast.Try):
            catches = any(h.type is None or "ImportError" in ast.dump(h.type) or
                          "ModuleNotFoundError" in ast.dump(h.type) for h in node.handlers)
            if catches:
                for sub in node.body:
                    for n in ast.walk(sub):
                        if isinstance(n, ast.Import):
                            optional.update(a.name.split(".")[0] for a in n.names)
                        elif isinstance(n, ast.ImportFrom) and n.module and n.level == 0:
                            optional.add(n.module.split(".")[0])
        if isinstance(node, ast.Import):
            mods.update(a.name.split(".")[0] for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            mods.add(node.module.split(".")[0])
    # "ip netns exec NS cmd ...", "/usr/bin/python3": a path's basename is the command.
    return {os.path.basename(c) for c in cmds if re.fullmatch(r"[\w./+-]+", c)}, \
        mods - optional


# Functions that run their first argument (or the first element of it) as a program.
RUNNERS = {"run", "Popen", "check_output", "check_call", "call", "which", "sh", "ns",
           "execvp", "execv", "execvpe", "system", "spawn"}
SHELL_SPLIT = re.compile(r"(?:^|[;&|(`]|\$\(|\bthen\b|\bdo\b|\belse\b|\bexec\b|!)\s*"
                         r"([A-Za-z0-9_./+-]+)")


def shell_uses(path):
    cmds = set()
    in_string = False  # in a literal string of several lines (tools/setup's package lists)
    for line in open(path):
        line = line.split("#", 1)[0] if not line.lstrip().startswith("#!") else ""
        if in_string:
            in_string = line.count('"') % 2 == 0
            continue
        m = re.match(r'\s*\w+="[^"$`]*("?)', line)  # VAR="a literal": no command in it
        if m:
            in_string = not m.group(1)
            line = line[m.end():]
        cmds.update(re.findall(r"\b(?:CC|CXX)=([\w.+-]+)", line))  # the compiler meson uses
        line = re.sub(r"^\s*\w+=\S*\s+", "", line)  # VAR=value cmd
        for m in SHELL_SPLIT.finditer(line):
            cmds.add(os.path.basename(m.group(1)))
    return cmds


def system_which(cmd):
    for d in SYSTEM_PATH:
        p = os.path.join(d, cmd)
        if os.path.isfile(p) and os.access(p, os.X_OK):
            return p
    return None


def dpkg_owner(path):
    for p in (path, os.path.realpath(path)):
        r = subprocess.run(["dpkg", "-S", p], capture_output=True, text=True)
        if r.returncode == 0:
            return r.stdout.split(":")[0].split(",")[0].strip()
        # /bin is a symlink to /usr/bin on Debian 12: try the other spelling.
        alt = p.replace("/usr/bin/", "/bin/", 1) if p.startswith("/usr/bin/") else \
            p.replace("/bin/", "/usr/bin/", 1) if p.startswith("/bin/") else None
        if alt:
            r = subprocess.run(["dpkg", "-S", alt], capture_output=True, text=True)
            if r.returncode == 0:
                return r.stdout.split(":")[0].split(",")[0].strip()
    return None


def depends_on(pkg, dep):
    """Does installing @pkg install @dep (a direct Depends or Pre-Depends)?"""
    r = subprocess.run(["dpkg-query", "-W", "-f", "${Depends}, ${Pre-Depends}", pkg],
                       capture_output=True, text=True)
    names = {d.strip().split()[0].split(":")[0] for d in re.split(r"[,|]", r.stdout) if d.strip()}
    return dep in names


def always_there(pkg):
    """Essential or required packages are on every Debian 12 machine."""
    r = subprocess.run(["dpkg-query", "-W", "-f", "${Essential} ${Priority}", pkg],
                       capture_output=True, text=True)
    return r.returncode == 0 and (r.stdout.startswith("yes") or "required" in r.stdout)


def test_packages():
    layers = {layer: setup_packages(layer) for _, layer in LAYERS}
    listed = set.union(*layers.values())
    assert layers["run"] < layers["labs"] < layers["test"] and layers["run"] < layers["bench"]
    errors = []
    used_cmds, used_mods = {}, {}
    for path, kind in project_files():
        rel = os.path.relpath(path, SOURCE)
        if kind == "python":
            cmds, mods = python_uses(path)
            for m in mods:
                used_mods.setdefault(m, []).append(rel)
        else:
            cmds = shell_uses(path)
        for c in cmds:
            used_cmds.setdefault(c, []).append(rel)

    def outside_layer(pkg, users):
        """Each file of @users whose layer does not install @pkg, as 'FILE (LAYER)'."""
        return ["%s (%s)" % (u, layer_of(u)) for u in users
                if pkg not in layers[layer_of(u)] and not always_there(pkg) and
                not any(c in OPTIONAL.get(u, ()) for c, p in COMMANDS.items() if p == pkg)]
    project_tools = set(os.listdir(os.path.join(SOURCE, "tools")))
    checked = []
    for cmd, users in sorted(used_cmds.items()):
        where = users[0]
        if cmd in NOT_COMMANDS or cmd in project_tools:
            continue
        path = system_which(cmd)
        if cmd in COMMANDS:
            if COMMANDS[cmd] not in listed and not always_there(COMMANDS[cmd]):
                errors.append("%s (used by %s) needs package %s, which tools/setup does not "
                              "install" % (cmd, where, COMMANDS[cmd]))
            elif outside_layer(COMMANDS[cmd], users):
                errors.append("%s needs package %s, which the layer of %s does not install" %
                              (cmd, COMMANDS[cmd], ", ".join(outside_layer(COMMANDS[cmd], users))))
            if path is None:
                errors.append("%s (used by %s) is not installed: is %s in tools/setup?" %
                              (cmd, where, COMMANDS[cmd]))
                continue
            owner = dpkg_owner(path)
            if owner and owner != COMMANDS[cmd] and not depends_on(COMMANDS[cmd], owner):
                errors.append("%s comes from %s, not %s as the table says" %
                              (cmd, owner, COMMANDS[cmd]))
            checked.append(cmd)
            continue
        if path is None:
            continue  # not a program on this machine: a string that only looks like one
        owner = dpkg_owner(path)
        if owner is None or always_there(owner):
            continue
        errors.append("%s (used by %s) comes from package %s: add it to COMMANDS in %s and "
                      "to tools/setup" % (cmd, where, owner, os.path.relpath(__file__, SOURCE)))
    stdlib = os.path.dirname(os.__file__)
    for mod, users in sorted(used_mods.items()):
        where = users[0]
        if mod in sys.builtin_module_names or mod in ("lswtest", "lswctl"):
            continue
        spec = importlib.util.find_spec(mod) if mod not in MODULES else None
        if mod in MODULES:
            if MODULES[mod] not in listed:
                errors.append("module %s (used by %s) needs package %s, which tools/setup "
                              "does not install" % (mod, where, MODULES[mod]))
            elif outside_layer(MODULES[mod], users):
                errors.append("module %s needs package %s, which the layer of %s does not "
                              "install" % (mod, MODULES[mod],
                                           ", ".join(outside_layer(MODULES[mod], users))))
            try:
                spec = importlib.util.find_spec(mod)
            except (ImportError, ValueError):
                spec = None
            if spec is None:
                errors.append("module %s (used by %s) is missing: is %s in tools/setup?" %
                              (mod, where, MODULES[mod]))
            else:
                owner = dpkg_owner(spec.origin)
                if owner and owner != MODULES[mod] and not depends_on(MODULES[mod], owner):
                    errors.append("module %s comes from %s, not %s" % (mod, owner, MODULES[mod]))
            continue
        if spec is None or spec.origin in (None, "built-in", "frozen"):
            # The project's own module: beside its user, or one of tools/'s (lswtimeline,
            # which tests and lswlab import from there).
            dirs = (os.path.join(SOURCE, os.path.dirname(where)), os.path.join(SOURCE, "tools"))
            if spec is None and any(os.path.exists(os.path.join(d, mod + ".py")) or
                                    os.path.exists(os.path.join(d, mod, "__init__.py"))
                                    for d in dirs):
                continue
            if spec is None:
                errors.append("module %s (used by %s) is not installed" % (mod, where))
            continue
        if spec.origin.startswith(stdlib):
            continue
        owner = dpkg_owner(spec.origin)
        if owner is None or always_there(owner):
            continue
        errors.append("module %s (used by %s) comes from %s: add it to MODULES and to "
                      "tools/setup" % (mod, where, owner))
    assert not errors, "\n".join(errors)
    print("%d commands and %d modules checked against tools/setup's %d packages in %d layers: "
          "%s" % (len(checked), len(used_mods), len(listed), len(layers), " ".join(checked)))


if __name__ == "__main__":
    test_packages()
