#!/usr/bin/python3
# tier: host
"""The native replay of the read pair (workloads/replay), on the committed
bundles of workloads/replay/fixtures/ (no kernel needed):

  - each bundle's generated assembly assembles into the harness, which
    runs: single-stepped counts, and a short timing with finite numbers;
  - what one replayed iteration of each loop executes inside the loop
    function is exactly objdump_loop.py's loop body of that function, and
    the pair's classes (read iteration minus empty iteration, the callees'
    common path included) are the bundle's "# expect pair:" line: the
    rbcount plugin's count_read in the guest (the synthetic bundle: counted
    by hand from its disassembly);
  - cli and sti are replaced by 1-byte nops, counted apart, and still
    counted as cli/sti in the pair;
  - a common path that would call a slow path is refused, and bad input
    (a missing function, a file that is no bundle, an unknown kernel, a
    missing bundle) is one clear "rcu-bench: error:" line;
  - workloads/replay/run.sh appends rows that the suite's checker and
    analysis/costmodel.py read.
"""

import os
import re
import subprocess
import sys
import tempfile
from collections import Counter
from pathlib import Path

TOP = Path(__file__).resolve().parent.parent
FIXTURES = TOP / "workloads" / "replay" / "fixtures"
sys.path.insert(0, str(TOP / "workloads" / "replay"))
sys.path.insert(0, str(TOP / "tests"))
sys.path.insert(0, str(TOP / "analysis"))
import objdump_loop  # noqa: E402
import replay  # noqa: E402

EXPECT = re.compile(r"^# expect pair: (.*)$", re.M)
failures = 0


def check(ok: bool, what: str) -> None:
    global failures
    print(("ok: " if ok else "FAIL: ") + what)
    failures += not ok


def expected(path: Path) -> dict[str, int]:
    m = EXPECT.search(path.read_text())
    if not m:
        raise SystemExit(f"FAIL: {path}: no '# expect pair:' line")
    return {k: int(v) for k, v in (kv.split("=") for kv in m.group(1).split())}


def loop_body_names(f: replay.Function) -> list[str]:
    """objdump_loop.py's loop body of f, as the replay names instructions
    (each text carries its address past a tab, which the branch match ignores)."""
    body = objdump_loop.loop_body([(i.addr, f"{i.code}\t@{i.addr:x}") for i in f.insns])
    return [f"{f.name}+{int(t.rsplit('@', 1)[1], 16) - f.start:#x}" for t in body]


def check_bundle(path: Path, tmp: Path) -> None:
    bundle = replay.load_bundle(path)
    asm, layout, names = replay.generate(bundle)
    binary = replay.build(asm, tmp / path.stem)
    check(binary.exists() and (tmp / path.stem / "replay.lst").exists(),
          f"{path.name}: the generated assembly assembles into the harness")
    moved = replay.layout_differences(binary, bundle)
    check(not moved, f"{path.name}: every replayed instruction at its kernel offset {moved[:3]}")
    c = replay.counts(binary, names, replay.insn_texts(bundle))
    want = expected(path)
    got = {k: c["pair"][k] for k in want}
    check(got == want, f"{path.name}: pair {' '.join(f'{k}={v}' for k, v in got.items())}"
          + ("" if got == want else f", expected {want}"))
    for loop, fname in (("read", replay.LOOP), ("empty", replay.EMPTY)):
        inside = [n for n in c[loop + "_names"] if n.startswith(fname + "+")]
        body = loop_body_names(bundle.functions[fname])
        check(Counter(inside) == Counter(body),
              f"{path.name}: an iteration of the {loop} loop runs {fname}'s loop body as objdump_loop.py "
              f"finds it ({len(body)} instructions)")
    n_cli = sum(1 for f in bundle.functions.values() for i in f.insns if i.mnemonic == "cli")
    n_sti = sum(1 for f in bundle.functions.values() for i in f.insns if i.mnemonic == "sti")
    check(layout.replaced == Counter({"cli": n_cli, "sti": n_sti}) - Counter(),
          f"{path.name}: {n_cli} cli and {n_sti} sti replaced by nops")
    check(len(re.findall(r"^\tnop\t\t# was: (?:cli|sti)", asm, re.M)) == n_cli + n_sti,
          f"{path.name}: each a 1-byte nop in the assembly")
    timed = dict(line.split() for line in replay.time_rows(binary, 3, 0.5))
    check(set(timed) == {"ns_per_pair", "ns_per_pair_low", "ns_per_pair_high", "baseline_ns",
                         "cycle_ns", "cycles_per_pair"} and float(timed["cycle_ns"]) > 0
          and all(abs(float(v)) < 1e4 for v in timed.values()),
          f"{path.name}: timed: {timed.get('ns_per_pair')} ns per pair (3 short runs)")


def expect_error(args: list[str], pattern: str, what: str, env: dict | None = None) -> None:
    res = subprocess.run(args, capture_output=True, text=True, env=env)
    line = next((x for x in res.stderr.splitlines() if x.startswith("rcu-bench: error: ")), "")
    check(res.returncode != 0 and re.search(pattern, line) is not None,
          f"{what} -> {line or res.stderr.strip()[-200:]}")


def check_errors(tmp: Path) -> None:
    tool = [sys.executable, str(TOP / "workloads" / "replay" / "replay.py")]
    text = (FIXTURES / "synthetic.dis").read_text()
    no_loop = tmp / "no-loop.dis"
    no_loop.write_text(text.replace("<rb_read_loop>", "<rb_other_loop>"))
    expect_error(tool + ["generate", str(no_loop)], r"no function rb_read_loop",
                 "a bundle without rb_read_loop")
    not_bundle = tmp / "not-a-bundle.dis"
    not_bundle.write_text("just text\n")
    expect_error(tool + ["generate", str(not_bundle)], r"no section symbols, module, vmlinux",
                 "a file that is no bundle")
    expect_error(tool + ["generate", str(tmp / "missing.dis")], r"missing\.dis: No such file",
                 "a missing bundle")
    no_sym = tmp / "no-symbols.dis"
    no_sym.write_text(re.sub(r"^[0-9a-f]{16} D current_task\n", "", text, flags=re.M))
    expect_error(tool + ["generate", str(no_sym)], r"%gs:0x1fbc0 names no per-CPU symbol",
                 "a bundle without the per-CPU symbol its code names")
    # The slow path's test inverted: the replay would time it: refused.
    slow = tmp / "slow-path.dis"
    slow.write_text(re.sub(r"75 1e                	jne ", "74 1e                	je  ", text))
    expect_error(tool + ["count", str(slow), "--workdir", str(tmp / "slow")],
                 r"called rcu_read_unlock_special .*not the common path",
                 "a replay that leaves the common path")
    run = [str(TOP / "workloads" / "replay" / "run.sh"), str(tmp / "r")]
    (tmp / "r").mkdir()
    expect_error(run + ["--kernels", "nosuch", "--bundles", str(FIXTURES)],
                 r"unknown kernel 'nosuch'", "run.sh with an unknown kernel")
    expect_error(run + ["--kernels", "preempt", "--bundles", str(tmp)],
                 r"preempt: no bundle", "run.sh without the kernel's bundle")


def check_rows(tmp: Path) -> None:
    """run.sh on two fixture kernels; the checker's vocabulary and the
    analysis read the rows."""
    kernels = [k for k in ("classic", "preempt") if (FIXTURES / f"{k}.dis").exists()]
    if not kernels:
        check(False, "no kernel fixtures (classic.dis, preempt.dis)")
        return
    out = tmp / "rows"
    out.mkdir()
    res = subprocess.run([str(TOP / "workloads" / "replay" / "run.sh"), str(out), "--kernels",
                          " ".join(kernels), "--bundles", str(FIXTURES), "--runs", "3",
                          "--target-ms", "1"], capture_output=True, text=True)
    check(res.returncode == 0, f"run.sh --bundles on {' '.join(kernels)}"
          + ("" if res.returncode == 0 else f": {res.stderr.strip()[-300:]}"))
    if res.returncode:
        return
    import bench_csv_check as chk
    import costmodel
    import resultdir
    problems: list[str] = []
    rows = [cells for _, cells in resultdir.read_table(out / "csv" / "results.csv",
                                                      chk.conf_get("CSV_COLUMNS").split())]
    for r in rows:
        chk.check_row(r, chk.conf_get("CSV_SCHEMA_VERSION"), problems)
    check(not problems and len(rows) == 16 * len(kernels),
          f"{len(rows)} rows in the vocabulary of SCHEMA.md {problems[:3]}")
    text = costmodel.replay_section(resultdir.load_csv(
        out / "csv" / "results.csv", chk.conf_get("CSV_COLUMNS").split(),
        chk.conf_get("KERNELS").split(), int(chk.conf_get("CSV_SCHEMA_VERSION"))), "AMD EPYC")
    check(all(f"| {k} | " in text for k in kernels), "costmodel.replay_section reads them")


def main() -> int:
    os.chdir(TOP)
    with tempfile.TemporaryDirectory() as t:
        tmp = Path(t)
        for path in sorted(FIXTURES.glob("*.dis")):
            check_bundle(path, tmp)
        check_errors(tmp)
        check_rows(tmp)
    print(f"{failures} failure(s)")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
