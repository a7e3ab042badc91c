#!/usr/bin/env python3
"""kcsan-reports.py: the KCSAN data-race reports of a guest console, each
placed in the RCU implementation or elsewhere.

    workloads/kcsan-reports.py CONSOLE --obj OBJDIR [--patches DIR] [--tsv OUT]
    workloads/kcsan-reports.py CONSOLE --funcmap FILE [--patches DIR] [--tsv OUT]

A report ("BUG: KCSAN: data-race in A / B", then one stack per access) is
in the RCU implementation when the top frame of either access, followed
through the functions inlined there, is in a kernel/rcu/ file or an
include/linux/rcu*.h header that the series (patches/*.patch) adds or
changes: the seed implementations, their rcutorture additions, their
read-side headers.  Frames are resolved with addr2line -i on OBJDIR's
vmlinux (System.map for symbol addresses; a module's frames, "[name]",
are its source file kernel/.../name.c), or, for tests, with a FUNCMAP of
"function<TAB>file" lines.

Prints one line per distinct race (where, how many reports, the title,
each access's operation and top frame's file:line) and a last line
"kcsan_reports=N kcsan_rcu=R kcsan_other=O kcsan_races_rcu=.. kcsan_races_other=..";
--tsv writes the races as a table (one module reads this format: this
one).  Exits 1 when a report is in the RCU implementation, 0 when none
is, 2 on bad input.
"""
from __future__ import annotations

import argparse
import bisect
import csv
import re
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

TITLE = re.compile(r"BUG: KCSAN: (?P<kind>data-race|assert: race) in (?P<title>.*)$")
# kernel/kcsan/report.c: "<op> to 0x<addr> of <n> bytes by task <pid>|interrupt on cpu <c>:",
# op one of read, write, read-write, each maybe "(marked)", "(reordered)",
# or an assertion's "assert no accesses|writes".
ACCESS = re.compile(r"^(?P<op>[a-z -]+(?: \([a-z, ]+\))?) to (?P<addr>0x[0-9a-f]+) of (?P<size>\d+) bytes"
                    r" by (?P<who>task \d+|interrupt) on cpu (?P<cpu>\d+):$")
UNKNOWN = re.compile(r"^race at unknown origin, with (?P<op>.+?) to (?P<addr>0x[0-9a-f]+) of (?P<size>\d+) bytes"
                     r" by (?P<who>task \d+|interrupt) on cpu (?P<cpu>\d+):$")
FRAME = re.compile(r"^\s*(?:\? )?(?P<func>[A-Za-z0-9_.$]+)\+(?P<off>0x[0-9a-f]+)/(?P<size>0x[0-9a-f]+)(?: \[(?P<mod>[A-Za-z0-9_]+)\])?$")
TIMESTAMP = re.compile(r"^\[[ 0-9.]+\] ")
RULE = "=" * 20
SERIES_FILE = re.compile(r"^(kernel/rcu/[^/]+|include/linux/rcu[^/]*\.h)$")


def fail(msg: str) -> None:
    print(f"kcsan-reports: {msg}", file=sys.stderr)
    sys.exit(2)


@dataclass
class Access:
    op: str
    size: int
    who: str
    frames: list[tuple[str, int, int, str | None]] = field(default_factory=list)
    where: list[str] = field(default_factory=list)  # top frame, innermost first: file:line


@dataclass
class Report:
    kind: str
    title: str
    accesses: list[Access] = field(default_factory=list)
    rcu: bool = False


def console_lines(path: Path) -> list[str]:
    text = path.read_text(errors="replace").replace("\r", "")
    return [TIMESTAMP.sub("", line).rstrip() for line in text.split("\n")]


def parse_reports(lines: list[str]) -> list[Report]:
    """Every KCSAN report of the console, with its accesses' stacks."""
    reports: list[Report] = []
    cur: Report | None = None
    acc: Access | None = None
    for line in lines:
        m = TITLE.search(line)
        if m:
            cur = Report(m["kind"], m["title"].strip())
            reports.append(cur)
            acc = None
            continue
        if cur is None:
            continue
        if line.startswith(RULE) or line.startswith("Reported by Kernel Concurrency Sanitizer"):
            cur = acc = None
            continue
        m = ACCESS.match(line.strip()) or UNKNOWN.match(line.strip())
        if m:
            acc = Access(m["op"], int(m["size"]), m["who"])
            cur.accesses.append(acc)
            continue
        m = FRAME.match(line)
        if m and acc is not None:
            acc.frames.append((m["func"], int(m["off"], 16), int(m["size"], 16), m["mod"]))
        elif not line.strip():
            acc = None  # a blank line ends a stack
    return reports


def series_files(patches: Path) -> set[str]:
    """The RCU implementation's files: what the series adds or changes
    under kernel/rcu/ and include/linux/rcu*.h."""
    files: set[str] = set()
    for p in sorted(patches.glob("*.patch")):
        for line in p.read_text(errors="replace").splitlines():
            if line.startswith("+++ b/"):
                f = line[6:].strip()
                if SERIES_FILE.match(f):
                    files.add(f)
    if not files:
        fail(f"no kernel/rcu files in {patches}/*.patch")
    return files


class Resolver:
    """Frame -> source locations, innermost inlined function first."""

    def __init__(self, obj: Path | None, funcmap: Path | None) -> None:
        self.obj = obj
        self.funcs: dict[str, str] = {}
        self.syms: dict[str, list[tuple[int, int]]] = {}
        if funcmap is not None:
            for line in funcmap.read_text().splitlines():
                if line.strip() and not line.startswith("#"):
                    func, _, path = line.partition("\t")
                    self.funcs[func.strip()] = path.strip()
            return
        assert obj is not None
        vmlinux = obj / "vmlinux"
        if not vmlinux.is_file():
            fail(f"no {vmlinux}: build the kernel first")
        out = subprocess.run(["nm", "-S", "--defined-only", str(vmlinux)],
                             capture_output=True, text=True, check=True).stdout
        for line in out.splitlines():
            parts = line.split()
            if len(parts) == 4 and parts[2] in "tTwW":
                self.syms.setdefault(parts[3], []).append((int(parts[0], 16), int(parts[1], 16)))
        self.cache: dict[tuple[str, int, int], list[str]] = {}

    def locate(self, func: str, off: int, size: int, mod: str | None) -> list[str]:
        if self.funcs:
            return [self.funcs[func]] if func in self.funcs else []
        if mod is not None:
            ko = sorted(self.obj.rglob(f"{mod}.ko")) if self.obj else []
            return [str(ko[0].relative_to(self.obj).with_suffix(".c"))] if ko else [f"[{mod}]"]
        key = (func, off, size)
        if key not in self.cache:
            cands = self.syms.get(func, [])
            exact = [a for a, s in cands if s == size] or [a for a, _ in cands]
            if not exact:
                self.cache[key] = []
            else:
                # Every frame is a return address, the top one too (the
                # instrumented access is a call to __tsan_*): back up one
                # byte into the call.
                addr = exact[0] + max(off - 1, 0)
                out = subprocess.run(["addr2line", "-i", "-e", str(self.obj / "vmlinux"), hex(addr)],
                                     capture_output=True, text=True, check=False).stdout
                self.cache[key] = [norm_path(l) for l in out.splitlines() if l and not l.startswith("??")]
        return self.cache[key]


def norm_path(loc: str) -> str:
    """addr2line's path (absolute, or relative to the build) as a tree path."""
    m = re.search(r"((?:kernel|include|mm|lib|fs|arch|init|drivers|block|security|net|ipc|crypto)/[^ ]*)", loc)
    return m.group(1) if m else loc


def in_series(loc: str, files: set[str]) -> bool:
    return loc.split(":")[0] in files


def classify(reports: list[Report], resolver: Resolver, files: set[str]) -> None:
    for r in reports:
        for a in r.accesses:
            if a.frames:
                a.where = resolver.locate(*a.frames[0])
        r.rcu = any(in_series(loc, files) for a in r.accesses for loc in a.where)


def race_key(r: Report) -> tuple:
    return (r.title, tuple(sorted(a.op + "@" + (a.frames[0][0] if a.frames else "?") for a in r.accesses)))


def access_text(a: Access) -> str:
    top = a.frames[0][0] if a.frames else "?"
    loc = a.where[0] if a.where else "?"
    return f"{a.op} {a.size}B in {top} ({loc})"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("console", type=Path)
    src = ap.add_mutually_exclusive_group(required=True)
    src.add_argument("--obj", type=Path, help="the kernel's build directory (vmlinux, System.map)")
    src.add_argument("--funcmap", type=Path, help="function<TAB>file lines instead of addr2line (tests)")
    ap.add_argument("--patches", type=Path, default=Path(__file__).resolve().parent.parent / "patches")
    ap.add_argument("--tsv", type=Path, help="write the distinct races here")
    args = ap.parse_args()
    if not args.console.is_file():
        fail(f"no console log {args.console}")
    reports = parse_reports(console_lines(args.console))
    files = series_files(args.patches)
    classify(reports, Resolver(args.obj, args.funcmap), files)
    races: dict[tuple, list[Report]] = {}
    for r in reports:
        races.setdefault(race_key(r), []).append(r)
    rows = sorted(races.values(), key=lambda rs: (not rs[0].rcu, -len(rs), rs[0].title))
    for rs in rows:
        r = rs[0]
        print(f"{'rcu' if r.rcu else 'other'}\t{len(rs)}\t{r.kind} in {r.title}\t"
              + " / ".join(access_text(a) for a in r.accesses))
    if args.tsv:
        with args.tsv.open("w", newline="") as f:
            w = csv.writer(f, delimiter="\t", lineterminator="\n")
            w.writerow(["where", "reports", "kind", "title", "access1", "access2"])
            for rs in rows:
                r = rs[0]
                acc = [access_text(a) for a in r.accesses] + ["", ""]
                w.writerow(["rcu" if r.rcu else "other", len(rs), r.kind, r.title, acc[0], acc[1]])
    n_rcu = sum(r.rcu for r in reports)
    races_rcu = sum(rs[0].rcu for rs in rows)
    print(f"kcsan_reports={len(reports)} kcsan_rcu={n_rcu} kcsan_other={len(reports) - n_rcu}"
          f" kcsan_races_rcu={races_rcu} kcsan_races_other={len(rows) - races_rcu}")
    return 1 if n_rcu else 0


if __name__ == "__main__":
    sys.exit(main())
