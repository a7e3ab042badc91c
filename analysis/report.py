#!/usr/bin/python3
"""report.py RESULTDIR: plots, tables and gnuplot scripts of a sweep.

Writes RESULTDIR/plots/*.png + *.svg, RESULTDIR/gnuplot/*.gp + *.dat (run
from that directory to replot) and RESULTDIR/report.md, then prints the
read-side cost vs vCPUs on gnuplot's dumb terminal.  Bad input is refused
with one line "rcu-bench: error: FILE:LINE: ..." before anything is written.
"""

import argparse
import os
import shutil
import subprocess
import sys
from pathlib import Path

import charts
import figures
import latency
import suiteconf
import tables
from results import ResultDir, ResultsError, load_result_dir

DUMB_FIGURE = "read_nest1"


def note(msg: str) -> None:
    print(f"rcu-bench: {msg}", file=sys.stderr)


def present_kernels(rd: ResultDir) -> list[str]:
    """suite.conf's kernels that have rows, in suite.conf order."""
    have = {r.kernel for r in rd.rows}
    return [k for k in suiteconf.kernels() if k in have]


def header(rd: ResultDir) -> list[str]:
    meta = rd.metadata
    params = meta.get("parameters", {})
    host = meta.get("host", {})
    accels = sorted({r.accel for r in rd.rows})
    commits = sorted({r.commit for r in rd.rows})
    lines = ["# rcu-bench report", "",
             f"- result directory: `{rd.path}`",
             f"- commit: {', '.join(commits)}; accelerator: {', '.join(accels)}",
             f"- rows: {len(rd.rows)} ({len(rd.failed_rows)} failed cells)"]
    if meta:
        lines.append(f"- sweep: started {meta.get('started', '?')}, finished "
                     f"{meta.get('finished') or '?'}, complete: {meta.get('complete', '?')}; "
                     f"profile {params.get('profile', '?')}, repeats {params.get('repeats', '?')}")
    if isinstance(host, dict) and host:
        lines.append(f"- host: {host.get('cpu', '?')}, {host.get('cpus', '?')} CPUs, "
                     f"kernel {host.get('kernel', '?')}")
    if "tcg" in accels:
        lines.append("- Guest times are under QEMU TCG (emulation), not hardware times: "
                     "compare kernels by ratio; the native liburcu rows give real-hardware scale.")
    lines += overcommit_note(rd, host)
    return lines + [""]


def overcommit_note(rd: ResultDir, host: object) -> list[str]:
    """Warn when guests had more vCPUs than the host has CPUs: per-thread times inflate."""
    cpus = host.get("cpus") if isinstance(host, dict) else None
    if not isinstance(cpus, int) or cpus < 1:
        return []
    over = sorted({r.vcpus for r in rd.rows if r.accel != "native" and r.vcpus > cpus})
    if not over:
        return []
    counts = ", ".join(str(v) for v in over)
    return [f"- Overcommitted: the host has {cpus} CPUs, so at {counts} vCPUs each vCPU thread "
            f"gets at most {cpus}/vCPUs of a host CPU; guest-measured per-thread times "
            f"(read ns/pair, GP latency) there inflate by up to vCPUs/{cpus}, and throughputs "
            "are shared."]


def plots_section(figs: list[charts.Figure]) -> list[str]:
    lines = ["## Plots", "", "PNG and SVG in `plots/`; gnuplot scripts and data in "
             "`gnuplot/` (`cd gnuplot && gnuplot -p NAME.gp`).", ""]
    return lines + [f"![{f.name}](plots/{f.name}.png)" for f in figs] + [""]


def report_markdown(rd: ResultDir, figs: list[charts.Figure], table_vcpus: list[int]) -> str:
    rows, kernels = rd.ok_rows, present_kernels(rd)
    parts = [header(rd), tables.failed_cells(rd), tables.summary(rows, kernels, table_vcpus),
             tables.read_side(rows, kernels), tables.savings(rows), tables.gp_stages(rows),
             tables.refscale(rows), tables.callrcu(rows, kernels), tables.gp_latency(rows, kernels),
             tables.urcu(rows), latency_part(rd, kernels), plots_section(figs)]
    return "\n".join(line for part in parts for line in part)


def latency_part(rd: ResultDir, kernels: list[str]) -> list[str]:
    """The latency section (analysis/latency.py), which draws its own plots."""
    host = rd.metadata.get("host", {})
    cpus = host.get("cpus") if isinstance(host, dict) else None
    return latency.latency_section(rd.ok_rows, kernels, rd.path,
                                   cpus if isinstance(cpus, int) else None)


def write_atomically(path: Path, text: str) -> None:
    tmp = path.with_name(f".{path.name}.tmp.{os.getpid()}")
    tmp.write_text(text)
    os.replace(tmp, path)


def dumb_plot(gnuplot_dir: Path) -> None:
    """The read-side cost vs vCPUs on the terminal (no error bars: unreadable there)."""
    script = gnuplot_dir / f"{DUMB_FIGURE}.gp"
    if not script.exists():
        note("no read-side data: no terminal plot")
        return
    if shutil.which("gnuplot") is None:
        note("gnuplot missing ('make deps'): no terminal plot")
        return
    subprocess.run(["gnuplot", "-e", "set terminal dumb size 100,28; style_err='lines'",
                    script.name], cwd=gnuplot_dir, check=False)


def parse_args(argv: list[str]) -> argparse.Namespace:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("resultdir", type=Path, help="reports/<timestamp> directory of a sweep")
    ap.add_argument("--table-vcpus", default="2 4",
                    help="vCPU counts of the summary table (default: '2 4')")
    ap.add_argument("--no-terminal-plot", action="store_true",
                    help="do not print the dumb-terminal plot at the end")
    args = ap.parse_args(argv)
    if not all(v.isdigit() for v in args.table_vcpus.split()):
        ap.error(f"--table-vcpus: expected numbers, got '{args.table_vcpus}'")
    return args


def main(argv: list[str]) -> int:
    args = parse_args(argv)
    try:
        rd = load_result_dir(args.resultdir)
    except ResultsError as err:
        print(f"rcu-bench: error: {err}", file=sys.stderr)
        return 1
    note(f"report: {len(rd.rows)} rows from {rd.path}")
    figs = figures.all_figures(rd.ok_rows, present_kernels(rd))
    for fig in figs:
        note(f"report: plot {fig.name}")
        charts.render_matplotlib(fig, rd.path / "plots")
        charts.render_gnuplot(fig, rd.path / "gnuplot")
    md = report_markdown(rd, figs, [int(v) for v in args.table_vcpus.split()])
    write_atomically(rd.path / "report.md", md)
    note(f"report: {rd.path / 'report.md'} ({len(figs)} plots, {len(rd.failed_rows)} failed cells)")
    if not args.no_terminal_plot:
        dumb_plot(rd.path / "gnuplot")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
