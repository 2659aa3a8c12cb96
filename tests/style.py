# SPDX-License-Identifier: BSD-3-Clause
"""The layout of the C sources, as DPDK's style has it.

Every *.c and *.h file under dataplane/, control/, include/, tests/ and tools/ (the ones git
tracks, in a git checkout; every one found there otherwise, e.g. in a source tarball or
where git is not installed):

1. starts with an SPDX line, /* SPDX-License-Identifier: ... */;
2. has no line over 100 columns, a tab moving to the next multiple of 8;
3. indents with tabs: no line's leading whitespace holds 8 spaces in a row (alignment after
   the tabs takes at most 7 spaces).

Prints FILE:LINE: REASON for each violation and exits 1; else a one-line summary, exit 0.
Usage: python3 tests/style.py [SOURCE_ROOT]   (default: $LSW_SOURCE_ROOT, else this file's ../)
"""
import os
import re
import subprocess
import sys

DIRS = ["dataplane", "control", "include", "tests", "tools"]
MAX_COLUMNS = 100
TAB = 8
SPDX = re.compile(r"/\* SPDX-License-Identifier: \S.* \*/$")
LEADING = re.compile(r"[ \t]*")


def git_files(root):
    """The tracked *.c and *.h files under DIRS, relative to root, or None when root is not
    the top of a git checkout (or git is missing or refuses it)."""
    try:
        top = subprocess.run(["git", "-C", root, "rev-parse", "--show-toplevel"],
                             capture_output=True, text=True)
    except OSError:
        return None
    if top.returncode != 0 or \
            os.path.realpath(top.stdout.strip()) != os.path.realpath(root):
        return None
    ls = subprocess.run(["git", "-C", root, "ls-files", "-z", "--"] + DIRS,
                        capture_output=True, text=True)
    if ls.returncode != 0:
        return None
    return sorted(p for p in ls.stdout.split("\0") if p.endswith((".c", ".h")))


def walked_files(root):
    found = []
    for d in DIRS:
        for top, dirs, files in os.walk(os.path.join(root, d)):
            dirs[:] = sorted(x for x in dirs if not x.startswith(".") and x != "__pycache__")
            found += [os.path.relpath(os.path.join(top, f), root)
                      for f in files if f.endswith((".c", ".h"))]
    return sorted(found)


def check(root, rel):
    """The violations in one file, as (line number, reason)."""
    with open(os.path.join(root, rel), encoding="utf-8", errors="replace", newline="") as f:
        lines = f.read().split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    bad = []
    if not lines or not SPDX.match(lines[0].rstrip("\r")):
        bad.append((1, "the first line is not /* SPDX-License-Identifier: ... */"))
    for n, line in enumerate(lines, 1):
        line = line.rstrip("\r")
        width = len(line.expandtabs(TAB))
        if width > MAX_COLUMNS:
            bad.append((n, "%d columns, over %d (a tab is %d)" % (width, MAX_COLUMNS, TAB)))
        if " " * TAB in LEADING.match(line).group(0):
            bad.append((n, "indented with %d spaces where a tab is due" % TAB))
    return bad


def main():
    root = sys.argv[1] if len(sys.argv) > 1 else os.environ.get(
        "LSW_SOURCE_ROOT", os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
    files = git_files(root)
    how = "tracked by git"
    if files is None:
        files, how = walked_files(root), "found (not a git checkout)"
    # A file deleted but not yet committed is no longer there to check.
    files = [f for f in files if os.path.isfile(os.path.join(root, f))]
    if not files:
        print("style: no *.c or *.h file under %s in %s" % (", ".join(DIRS), root))
        return 1
    violations = 0
    bad_files = 0
    for rel in files:
        bad = check(root, rel)
        for n, reason in bad:
            print("%s:%d: %s" % (rel, n, reason))
        violations += len(bad)
        bad_files += bool(bad)
    if violations:
        print("style: %d violations in %d of %d files" % (violations, bad_files, len(files)))
        return 1
    print("style: %d C files %s: SPDX first lines, at most %d columns, tabs for indentation"
          % (len(files), how, MAX_COLUMNS))
    return 0


if __name__ == "__main__":
    sys.exit(main())
