# SPDX-License-Identifier: BSD-3-Clause
"""The documents against the tree and the programs.

1. Every relative link of every Markdown page git tracks leads to a file or folder of the
   repository, and so does every repository path a page or a man page names in code
   (`control/config/inflight.c`, `tests/integration/host_*`).
2. No tracked file cites a file outside the repository: the project's pages and comments
   name public sources (papers, standards, SONiC designs) by title and link.
3. Each program's --help and its man page name the same options, and for the commands
   with subcommands (lswctl, lsw-lab, lsw-bench) the same subcommands: an option added to
   one and not the other fails here.

Prints each problem and exits 1; else a summary. Needs the build (LSW_BUILD_ROOT) for the
C programs' --help.
"""
import glob
import os
import re
import subprocess
import sys

SOURCE = os.environ.get("LSW_SOURCE_ROOT", os.path.join(os.path.dirname(__file__), ".."))
BUILD = os.environ.get("LSW_BUILD_ROOT", os.path.join(SOURCE, "build"))
TOP = ("dataplane", "control", "include", "configs", "tests", "tools", ".ci")
PATH_RE = re.compile(r"(?<![\w/.$@-])((?:%s)/[\w./*+@-]*)" %
                     "|".join(re.escape(t) for t in TOP))
LINK_RE = re.compile(r"\]\(([^)\s]+)\)")
# Built from parts, so that this file does not cite what it forbids.
OUTSIDE_RE = re.compile("|".join([r"\breference/[\w-]+\." + "md", r"\.\./" + "shared\\b",
                                  "/work/" + "shared"]))


def tracked():
    r = subprocess.run(["git", "-C", SOURCE, "ls-files", "-z"], capture_output=True, text=True)
    if r.returncode != 0:
        return None
    return [p for p in r.stdout.split("\0") if p and os.path.isfile(os.path.join(SOURCE, p))]


def exists(path):
    full = os.path.join(SOURCE, path.rstrip("/"))
    return bool(glob.glob(full)) if "*" in full else os.path.exists(full)


def code_spans(text):
    """The text of the `code` spans and fenced blocks of a Markdown page, or the bold
    (*...*) and literal blocks of an scdoc page."""
    spans = re.findall(r"```.*?```", text, re.S)
    text = re.sub(r"```.*?```", "", text, flags=re.S)
    return spans + re.findall(r"`([^`\n]+)`", text) + re.findall(r"\*([^*\n]+)\*", text)


def check_pages(files, problems):
    pages = [f for f in files if f.endswith((".md", ".scd"))]
    links = paths = 0
    for page in pages:
        text = open(os.path.join(SOURCE, page), encoding="utf-8").read()
        here = os.path.dirname(page)
        if page.endswith(".md"):
            for url in LINK_RE.findall(text):
                if re.match(r"[a-z]+:", url) or url.startswith("#"):
                    continue
                target = os.path.normpath(os.path.join(here, url.split("#")[0]))
                links += 1
                if target.startswith("..") or not os.path.exists(os.path.join(SOURCE, target)):
                    problems.append("%s: the link %s leads nowhere in the repository" %
                                    (page, url))
        for span in code_spans(text):
            for p in PATH_RE.findall(span):
                p = p.rstrip(".,:;")
                paths += 1
                if not exists(p):
                    problems.append("%s: names %s, which the repository does not have" %
                                    (page, p))
    return len(pages), links, paths


def check_citations(files, problems):
    n = 0
    for f in files:
        try:
            text = open(os.path.join(SOURCE, f), encoding="utf-8").read()
        except (UnicodeDecodeError, OSError):
            continue
        n += 1
        for i, line in enumerate(text.split("\n"), 1):
            if OUTSIDE_RE.search(line):
                problems.append("%s:%d: cites a file outside the repository: %s" %
                                (f, i, line.strip()))
    return n


def help_text(argv):
    r = subprocess.run(argv + ["--help"], capture_output=True, text=True, timeout=60)
    if r.returncode != 0:
        return None
    return r.stdout


def options(text):
    """The options a --help names: in its usage and at the start of its option lines."""
    found = set()
    usage = re.search(r"^usage: (.*?)(?:\n\s*\n|\Z)", text, re.S | re.M)
    if usage:
        found |= set(re.findall(r"\[(--?[A-Za-z][\w-]*)", usage.group(1)))
        found |= set(re.findall(r"(?<![\w\[-])(--?[A-Za-z][\w-]*)", usage.group(1)))
    for line in text.split("\n"):
        # An option line: its options, then two blanks or more, then what they do.
        m = re.match(r"\s+(-\S.*?)(?:\s{2,}|$)", line)
        if m:
            found |= set(re.findall(r"(?<![\w-])(--?[A-Za-z][\w-]*)", m.group(1)))
    return found


def walk(argv, path, out):
    """(subcommand path, its --help) of @argv and of each subcommand below it."""
    text = help_text(argv + path)
    if text is None:
        return False
    out.append((path, text))
    m = re.search(r"\{([\w,-]+)\}\s+\.\.\.", text)
    if m:
        for sub in m.group(1).split(","):
            walk(argv, path + [sub], out)
    return True


def page_options(scd):
    return set(re.findall(r"\*(--?[A-Za-z][\w-]*)\*", scd))


def check_help(problems):
    python = "/usr/bin/python3"
    programs = [
        ("lsw", [os.path.join(BUILD, "control", "lsw")], "control/lsw.8.scd"),
        ("lswctl", [python, os.path.join(SOURCE, "tools", "lswctl")], "tools/lswctl.8.scd"),
        ("lsw-host", [os.path.join(BUILD, "tools", "lsw-host")],
         "tools/lsw-host/lsw-host.8.scd"),
        ("lsw-agent", [os.path.join(BUILD, "tools", "lsw-agent")],
         "tools/lsw-agent/lsw-agent.8.scd"),
        ("lsw-lab", [python, os.path.join(SOURCE, "tools", "lsw-lab")], "tools/lsw-lab.1.scd"),
        ("lsw-bench", [python, os.path.join(SOURCE, "tools", "lsw-bench")],
         "tools/lswbench/lsw-bench.1.scd"),
    ]
    checked = []
    for name, argv, page in programs:
        if not os.path.exists(argv[-1]):
            if name == "lsw-agent":
                continue  # not built where clang, bpftool or libbpf is missing
            problems.append("%s: %s is not built" % (name, argv[-1]))
            continue
        helps = []
        if not walk(argv, [], helps):
            problems.append("%s --help fails, or exits non-zero" % name)
            continue
        scd = open(os.path.join(SOURCE, page), encoding="utf-8").read()
        in_help = set().union(*(options(t) for _, t in helps))
        in_page = page_options(scd)
        for o in sorted(in_help - in_page):
            problems.append("%s: --help names %s, %s does not" % (name, o, page))
        for o in sorted(in_page - in_help):
            problems.append("%s: %s names %s, --help does not" % (name, page, o))
        for path, text in helps:
            leaf = not re.search(r"\{([\w,-]+)\}\s+\.\.\.", text)
            if path and leaf and "*%s*" % " ".join(path) not in scd:
                problems.append("%s: %s does not document the command %s" %
                                (name, page, " ".join(path)))
        checked.append("%s (%d options)" % (name, len(in_help)))
    return checked


def main():
    files = tracked()
    if files is None:
        print("docs: not a git checkout; nothing checked")
        return 0
    problems = []
    pages, links, paths = check_pages(files, problems)
    cited = check_citations(files, problems)
    checked = check_help(problems)
    for p in problems:
        print(p)
    if problems:
        print("docs: %d problems" % len(problems))
        return 1
    print("docs: %d pages, %d relative links and %d paths exist; %d files cite nothing "
          "outside the repository; --help matches the man page of %s" %
          (pages, links, paths, cited, ", ".join(checked)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
