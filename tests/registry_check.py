#!/usr/bin/python3
"""Check that every place naming the bench tests agrees with the host's
table (suite.conf BENCH_TEST_*): rcubench.ko's RB_TESTS, the guest job's
test_<name> functions and the parameters they pass, analysis/SCHEMA.md's
vocabulary and the analysis' test -> cell mapping;
and that the rbcount plugin's instruction classes follow rb_marker.h.

Usage: registry_check.py [--top DIR] (default: this checkout).  Prints one
line per check; exits 1 with a line per disagreement.
"""

import argparse
import importlib
import re
import sys
from pathlib import Path

# The sources a guest writes (SCHEMA.md's source column): a vocabulary row
# with another source (liburcu, native-calib) is a host-native test.
GUEST_SOURCES = {"rcubench", "debugfs", "refscale", "rcuscale", "tcg-plugin"}
MODULE_KIND = {"RB_TIMED": "timed", "RB_COUNTED": "count"}


def module_tests(top: Path) -> dict[str, tuple[str, list[str]]]:
    """rcubench.c RB_TESTS: name -> (kind, parameters it needs passed)."""
    text = (top / "bench-module/rcubench.c").read_text()
    block = re.search(r"#define RB_TESTS\(T\) \((.*?)^\)$", text, re.S | re.M)
    if not block:
        raise SystemExit("rcubench.c: no RB_TESTS list")
    tests = {}
    for m in re.finditer(r'^\s*T\((\w+),\s*(\w+),\s*\d+,\s*\d+,\s*"([^"]*)"\)', block[1], re.M):
        # [p]: absent has a meaning of its own; the job need not pass it.
        needed = [p for p in m[3].split() if not p.startswith("[")]
        tests[m[1]] = (MODULE_KIND.get(m[2], m[2]), needed)
    return tests


def host_tests(top: Path) -> list:
    sys.path.insert(0, str(top / "analysis"))
    import suiteconf  # noqa: E402 (the checkout under test)
    return suiteconf.bench_tests(top / "suite.conf"), suiteconf


def job_functions(top: Path) -> dict[str, str]:
    """The guest job's test_<name>() functions: name -> body."""
    text = (top / "workloads/guest/jobs/bench.sh").read_text()
    return {m[1]: m[2] for m in re.finditer(r"^test_(\w+)\(\) \{\n(.*?)^\}", text, re.S | re.M)}


def schema_tests(top: Path) -> dict[str, str]:
    """SCHEMA.md's vocabulary: test -> source."""
    text = (top / "analysis/SCHEMA.md").read_text()
    section = text.split("## Vocabulary", 1)[1].split("\n## ", 1)[0]
    rows = {}
    for line in section.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) >= 2 and re.fullmatch(r"\w+", cells[0]) and cells[0] != "test":
            rows[cells[0]] = cells[1]
    return rows


def analysis_cell_map(top: Path):
    """CELL_OF_TEST of the analysis module that defines it, or None when
    no module does (then the analysis must use suiteconf.cell_of_test())."""
    for path in sorted((top / "analysis").glob("*.py")):
        if re.search(r"^CELL_OF_TEST\s*=", path.read_text(), re.M):
            return path.name, importlib.import_module(path.stem).CELL_OF_TEST
    return None, None


def plugin_classes(top: Path) -> tuple[list[str], list[str]]:
    """rbcount.c's enum rb_class (lower-cased) and rb_marker.h's RB_CLASS_NAMES."""
    plugin = (top / "workloads/tcg-plugin/rbcount.c").read_text()
    enum = re.search(r"enum rb_class \{(.*?)\}", plugin, re.S)
    members = [c.strip()[2:].lower() for c in enum[1].split(",") if c.strip()] if enum else []
    header = (top / "bench-module/rb_marker.h").read_text().replace("\\\n", " ")
    names = re.search(r"^#define RB_CLASS_NAMES (.*)$", header, re.M)
    return [m for m in members if m != "n"], re.findall(r'"(\w+)"', names[1]) if names else []


def check(top: Path) -> list[str]:
    errors = []
    table, suiteconf = host_tests(top)
    host = {t.name: t for t in table}
    rows = {r: t.name for t in table for r in t.rows}

    module = module_tests(top)
    ours = {n for n, t in host.items() if t.runner == "rcubench"}
    for n in sorted(set(module) - ours):
        errors.append(f"rcubench.c RB_TESTS has {n}, suite.conf has no BENCH_TEST_{n} run by rcubench")
    for n in sorted(ours - set(module)):
        errors.append(f"suite.conf BENCH_TEST_{n} is run by rcubench, rcubench.c RB_TESTS has no {n}")
    for n in sorted(ours & set(module)):
        if module[n][0] != host[n].kind:
            errors.append(f"{n}: {module[n][0]} in rcubench.c, {host[n].kind} in suite.conf")
    print(f"module: {len(module)} tests in RB_TESTS, {len(ours)} rcubench tests in suite.conf")

    job = job_functions(top)
    for n in sorted(set(host) - set(job)):
        errors.append(f"the guest job has no test_{n} for suite.conf BENCH_TEST_{n}")
    for n in sorted(set(job) - set(host)):
        errors.append(f"the guest job's test_{n} is no test of suite.conf")
    for n in sorted(set(module) & set(job)):
        for p in module[n][1]:
            if not re.search(rf"\b{p}=", job[n]):
                errors.append(f"the guest job's test_{n} does not pass {p}= (rcubench.c RB_TESTS: {n} reads it)")
    print(f"guest job: {len(job)} test_ functions")

    schema = schema_tests(top)
    guest = {t for t, src in schema.items() if set(src.replace("\\", "").split("|")) & GUEST_SOURCES}
    for r in sorted(set(rows) - set(schema)):
        errors.append(f"test value {r} (suite.conf BENCH_TEST_{rows[r]}) is not in SCHEMA.md's vocabulary")
    for r in sorted(guest - set(rows)):
        errors.append(f"SCHEMA.md's vocabulary has {r} ({schema[r]}), no suite.conf BENCH_TEST_* emits it")
    print(f"SCHEMA.md: {len(guest)} guest test values, {len(rows)} in suite.conf")

    sys.path.insert(0, str(top / "analysis"))
    where, cell_map = analysis_cell_map(top)
    if cell_map is not None:
        want = {r: c for r, c in suiteconf.cell_of_test(top / "suite.conf").items() if r != c}
        if cell_map != want:
            errors.append(f"analysis/{where} CELL_OF_TEST is {cell_map}, suite.conf's table gives {want}")
        print(f"analysis/{where}: CELL_OF_TEST {cell_map}")
    else:
        print("analysis: no CELL_OF_TEST (the analysis reads suiteconf.cell_of_test())")

    members, names = plugin_classes(top)
    if not names or members != names:
        errors.append(f"rbcount.c enum rb_class {members} differs from rb_marker.h RB_CLASS_NAMES {names}")
    print(f"plugin: {len(names)} instruction classes as in rb_marker.h")
    return errors


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--top", type=Path, default=Path(__file__).resolve().parent.parent,
                    help="the checkout to check (default: this one)")
    args = ap.parse_args()
    errors = check(args.top.resolve())
    for e in errors:
        print(f"registry: {e}", file=sys.stderr)
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
