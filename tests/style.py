# SPDX-License-Identifier: BSD-3-Clause
"""The layout of the sources, as DPDK's style has it (.editorconfig says the same to editors).

Every *.c and *.h file under dataplane/, control/, include/, tests/ and tools/ (the ones git
tracks, in a git checkout; every one found there otherwise, e.g. in a source tarball or
where git is not installed):

1. starts with an SPDX line, /* SPDX-License-Identifier: ... */;
2. has no line over 100 columns, a tab moving to the next multiple of 8;
3. indents with tabs: no line's leading whitespace holds 8 spaces in a row (alignment after
   the tabs takes at most 7 spaces);
4. in dataplane/ (the workers' hot path), has no function over 100 lines, unless a comment
   just above it says why it is long ("long on purpose: ..."): split, each step can be read
   at a sitting, and always-inlined steps cost nothing.

Every other source of text (Python, shell scripts, meson files, Markdown, man pages):

5. has no blank at the end of a line and ends with a newline;
6. Python has no line over 100 columns; Markdown neither, outside tables, code blocks,
   headings and lines that hold a link's address (which cannot be broken);
7. Python imports the project's code by module name (tools/lswpy, the RPC client and the
   process wrapper, is one package for every user): no module loaded from a file's path
   with importlib's file loaders or runpy, which made copies of one client drift apart.

With LSW_STYLE_COMMITS set to a git range (e.g. main..HEAD), the commits in it also:

8. have a subject of at most 72 characters, and a blank line between it and the body.

(Not by default: the project's older history does not hold to it, and CI checks a fresh
clone whose range to the lead's main is not known.)

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
MAX_FUNCTION_LINES = 100
FUNCTION_START = re.compile(r"[a-z_][a-z0-9_]*\(")
# Point 7, spelled in two halves so that this file does not match itself.
LOAD_BY_PATH = re.compile(r"\b(?:Source" r"FileLoader|spec_from_file" r"_location|run" r"_path)\b|"
                          r"\bimport run" r"py\b")


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


def git_text_files(root):
    """Every tracked file that is a source of text (point 5), or None outside a checkout."""
    try:
        ls = subprocess.run(["git", "-C", root, "ls-files", "-z"], capture_output=True,
                            text=True)
    except OSError:
        return None
    if ls.returncode != 0:
        return None
    out = []
    for rel in ls.stdout.split("\0"):
        if not rel or rel.endswith((".c", ".h")) or not os.path.isfile(os.path.join(root, rel)):
            continue
        if text_kind(root, rel):
            out.append(rel)
    return sorted(out)


def text_kind(root, rel):
    """"python", "markdown", "text" (other sources of text) or None (not checked)."""
    name = os.path.basename(rel)
    if rel.endswith(".py"):
        return "python"
    if rel.endswith(".md"):
        return "markdown"
    if rel.endswith((".scd", ".build", ".txt", ".in")) and "corpus" not in rel:
        return "text"
    if name in (".editorconfig", ".clang-format", ".gitignore", "LICENSE"):
        return "text"
    try:
        head = open(os.path.join(root, rel), "rb").read(64)
    except OSError:
        return None
    if head.startswith(b"#!/usr/bin/python3") or head.startswith(b"#!/usr/bin/env python3"):
        return "python"
    if head.startswith(b"#!/bin/sh") or head.startswith(b"#!/bin/bash") or \
            head.startswith(b"#!/usr/bin/env bash"):
        return "text"
    return None


def check_text(root, rel, kind):
    """The violations of points 4 and 5 in one file, as (line number, reason)."""
    with open(os.path.join(root, rel), encoding="utf-8", errors="replace", newline="") as f:
        text = f.read()
    bad = []
    if text and not text.endswith("\n"):
        bad.append((text.count("\n") + 1, "no newline at the end of the file"))
    fence = False
    for n, line in enumerate(text.split("\n"), 1):
        if line != line.rstrip(" \t\r"):
            bad.append((n, "blanks at the end of the line"))
        if kind == "markdown" and line.lstrip().startswith("```"):
            fence = not fence
            continue
        long_ok = kind == "markdown" and (fence or line.lstrip().startswith(("|", "#")) or
                                          "](" in line or "://" in line)
        if kind in ("python", "markdown") and len(line) > MAX_COLUMNS and not long_ok:
            bad.append((n, "%d columns, over %d" % (len(line), MAX_COLUMNS)))
        if kind == "python" and LOAD_BY_PATH.search(line):
            bad.append((n, "a module loaded from a path: import it by name (point 7)"))
    return bad


def check_commits(root, rng):
    """Point 7 over the commits of git range @rng, as (commit, reason)."""
    log = subprocess.run(["git", "-C", root, "log", "--format=%h%x00%B%x01", rng],
                         capture_output=True, text=True)
    if log.returncode != 0:
        return [(rng, "git log failed: " + log.stderr.strip())]
    bad = []
    for entry in log.stdout.split("\x01"):
        if not entry.strip():
            continue
        sha, msg = entry.strip("\n").split("\0", 1)
        lines = msg.split("\n")
        if len(lines[0]) > 72:
            bad.append((sha, "subject of %d characters, over 72" % len(lines[0])))
        if len(lines) > 1 and lines[1].strip():
            bad.append((sha, "no blank line between the subject and the body"))
    return bad


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
    if rel.startswith("dataplane" + os.sep) and rel.endswith(".c"):
        bad += long_functions(lines)
    return bad


def long_functions(lines):
    """Point 4: (line, reason) for each function over MAX_FUNCTION_LINES lines (DPDK style:
    the name starts a line, the closing brace is alone at the start of one)."""
    bad = []
    start = None
    for n, line in enumerate(lines, 1):
        if start is None and FUNCTION_START.match(line):
            start = n
        elif start is not None and line.startswith("}"):
            if n - start > MAX_FUNCTION_LINES and \
                    not any("long on purpose" in x for x in lines[max(0, start - 12):start]):
                bad.append((start, "a function of %d lines, over %d, with no comment above "
                                   "saying why (long on purpose: ...)"
                            % (n - start, MAX_FUNCTION_LINES)))
            start = None
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
    texts = git_text_files(root) if how == "tracked by git" else []
    violations = 0
    bad_files = 0
    checks = [(rel, check(root, rel)) for rel in files]
    checks += [(rel, check_text(root, rel, text_kind(root, rel))) for rel in texts]
    for rel, bad in checks:
        for n, reason in bad:
            print("%s:%d: %s" % (rel, n, reason))
        violations += len(bad)
        bad_files += bool(bad)
    rng = os.environ.get("LSW_STYLE_COMMITS")
    commits = check_commits(root, rng) if rng else []
    for sha, reason in commits:
        print("commit %s: %s" % (sha, reason))
    if violations or commits:
        print("style: %d violations in %d of %d files, %d in commits" %
              (violations, bad_files, len(files) + len(texts), len(commits)))
        return 1
    print("style: %d C files %s: SPDX first lines, at most %d columns, tabs for indentation, "
          "dataplane functions of at most %d lines; "
          "%d other text files: no trailing blanks, final newlines, lines of Python and "
          "Markdown prose of at most %d columns, no module loaded by path%s"
          % (len(files), how, MAX_COLUMNS, MAX_FUNCTION_LINES, len(texts), MAX_COLUMNS,
             "; commits %s: subjects of at most 72 characters" % rng if rng else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main())
