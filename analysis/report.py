#!/usr/bin/python3
"""report.py RESULTDIR: everything derived from a sweep's rows: plots,
tables, gnuplot scripts and the refscale agreement.

Writes RESULTDIR/plots/*.png + *.svg, RESULTDIR/gnuplot/*.gp + *.dat (run
from that directory to replot), RESULTDIR/csv/agreement.csv (as sweep.py
finish does) and RESULTDIR/report.md, whose top is which patch series built
the kernels (provenance.py), the verdict table (verdict.py) and the summary
(summary.py): each suite.conf COMPARE_PAIRS kernel against its base; then
prints the read-side cost vs vCPUs on gnuplot's dumb terminal.  Bad input is refused
with one line "rcu-bench: error: FILE:LINE: ..." before anything is written.
"""

import argparse
import shutil
import subprocess
import sys
from pathlib import Path

import charts
import costmodel
import derive
import gpdesign
import figures
import latency
import provenance
import realpaths
import scale
import suiteconf
import summary
import tables
import variants
import verdict
from resultdir import ResultDir, ResultsError, atomic_write, load_result_dir, write_agreement

DUMB_FIGURE = "read_nest1"
# The full profile's scale run: a results directory of its own inside the sweep
# (workloads/bench.sh).
SCALE_SUBDIR = "scale"


def note(msg: str) -> None:
    print(f"rcu-bench: {msg}", file=sys.stderr)


def present_kernels(rd: ResultDir) -> list[str]:
    """suite.conf's kernels that have rows, in suite.conf order (the boot
    variants have their own section, "Design variants")."""
    have = {r.kernel for r in rd.rows}
    return [k for k in suiteconf.kernels() if k in have]


def present_scale_kernels(rd: ResultDir) -> list[str]:
    """Every kernel with rows, variants after suite.conf's: a scale run of a
    variant (make scale KERNELS=preempt-fast-advance) is shown too."""
    have = {r.kernel for r in rd.rows}
    return [k for k in suiteconf.known_kernels() if k in have]


def header(rd: ResultDir) -> list[str]:
    meta = rd.metadata
    params = meta.get("parameters", {})
    host = meta.get("host", {})
    accels = sorted({r.accel for r in rd.rows})
    commits = sorted({r.commit for r in rd.rows})
    tree = provenance.tree_series()
    lines = ["# rcu-bench report", ""] + provenance.warnings(rd, tree) + [
             f"- result directory: `{rd.path}`",
             f"- commit: {', '.join(commits)}; accelerator: {', '.join(accels)}"]
    lines += provenance.header_lines(rd, tree)
    lines.append(f"- rows: {len(rd.rows)} ({len(rd.failed_rows)} failed cells)")
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
    lines += overcommit_note(rd) + flagged_note(rd)
    return lines + [""]


def overcommit_note(rd: ResultDir) -> list[str]:
    """Name the guest vCPU counts that reach the host's CPU count."""
    over = sorted({r.vcpus for r in rd.rows
                   if r.accel != "native" and rd.overcommitted(r.kernel, r.vcpus)})
    if not over:
        return []
    cpus = rd.host_cpus or "?"
    counts = ", ".join(str(v) for v in over)
    return [f"- Overcommitted: the host has {cpus} CPUs, so at {counts} vCPUs the vCPU threads "
            "share host CPUs with each other and with QEMU; guest-measured times there "
            "inflate and throughputs are shared.  Those cells are shown, marked, and never "
            "feed a headline ratio."]


def flagged_note(rd: ResultDir) -> list[str]:
    n = sum(b.flagged for b in rd.boots.values())
    if not n:
        return []
    return [f"- {n} of {len(rd.boots)} boots ran beside other host load (flagged in "
            "csv/boots.csv); their cells say 'flagged boots'."]


def plots_section(figs: list[charts.Figure]) -> list[str]:
    lines = ["## Plots", "", "PNG and SVG in `plots/`; gnuplot scripts and data in "
             "`gnuplot/` (`cd gnuplot && gnuplot -p NAME.gp`).", ""]
    return lines + [f"![{f.name}](plots/{f.name}.png)" for f in figs] + [""]


def scale_dir(rd: ResultDir) -> ResultDir:
    """Where the scale section's counts are: the sweep's scale/ (the full
    profile's scale run, a results directory of its own, its calibration
    its own) when there is one, else the sweep itself."""
    sub = rd.path / SCALE_SUBDIR
    return load_result_dir(sub) if (sub / "metadata.json").exists() else rd


def scale_part(rd: ResultDir, scale_rd: ResultDir | None) -> list[str]:
    """The scale section, of the scale run's own kernels; when its results
    are a directory of their own (scale/), first which series built them."""
    if scale_rd is None or scale_rd.path == rd.path:
        return scale.report_section(rd, present_scale_kernels(rd))
    lines = scale.report_section(scale_rd, present_scale_kernels(scale_rd))
    if not lines:
        return lines
    source = [f"Counts from `{SCALE_SUBDIR}/`, a results directory of its own: "
              + "; ".join(text.removeprefix("- ")
                          for text in provenance.header_lines(scale_rd, provenance.tree_series()))
              + f" (started {scale_rd.metadata.get('started', '?')}).", ""]
    return lines[:2] + source + lines[2:]


def report_markdown(rd: ResultDir, figs: list[charts.Figure], pairs: list[tuple[str, str]],
                    scale_rd: ResultDir | None = None) -> str:
    kernels = present_kernels(rd)
    # The count table is the report's first table (exact, unlike the TCG times).
    parts = [header(rd), verdict.verdict(rd, pairs), summary.summary(rd, pairs),
             costmodel.report_section(rd, kernels), scale_part(rd, scale_rd),
             costmodel.replay_report(rd), tables.failed_cells(rd),
             tables.read_side(rd, kernels),
             tables.gp_latency(rd, kernels), gpdesign.report_section(rd, kernels),
             latency.report_section(rd, kernels), variants.report_section(rd),
             tables.gp_stages(rd), tables.callrcu(rd, kernels), tables.refscale(rd),
             tables.urcu(rd), realpaths.report_section(rd, kernels), plots_section(figs)]
    return "\n".join(line for part in parts for line in part)


def dumb_plot(gnuplot_dir: Path) -> None:
    """The read-side cost vs vCPUs on the terminal (no error bars: unreadable there)."""
    script = gnuplot_dir / f"{DUMB_FIGURE}.gp"
    if not script.exists():
        note("no read-side data: no terminal plot")
        return
    if shutil.which("gnuplot") is None:
        note("gnuplot missing ('make deps'): no terminal plot")
        return
    subprocess.run(["gnuplot", "-e", "set terminal dumb size 100,28; style_err='lines'; show_boots=0",
                    script.name], cwd=gnuplot_dir, check=False)


def parse_args(argv: list[str]) -> argparse.Namespace:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("resultdir", type=Path, help="reports/<timestamp> directory of a sweep")
    ap.add_argument("--no-terminal-plot", action="store_true",
                    help="do not print the dumb-terminal plot at the end")
    return ap.parse_args(argv)


def main(argv: list[str]) -> int:
    args = parse_args(argv)
    try:
        rd = load_result_dir(args.resultdir)
        pairs = suiteconf.compare_pairs()
    except (ResultsError, suiteconf.ConfError) as err:
        print(f"rcu-bench: error: {err}", file=sys.stderr)
        return 1
    note(f"report: {len(rd.rows)} rows from {rd.path}")
    try:
        scale_rd = scale_dir(rd)
    except ResultsError as err:
        print(f"rcu-bench: error: {rd.path / SCALE_SUBDIR}: {err}", file=sys.stderr)
        return 1
    figs = figures.all_figures(rd.ok_rows, present_kernels(rd), rd.host_cpus, scale_rd.ok_rows,
                               present_scale_kernels(scale_rd))
    for fig in figs:
        note(f"report: plot {fig.name}")
        charts.render_matplotlib(fig, rd.path / "plots")
        charts.render_gnuplot(fig, rd.path / "gnuplot")
    write_agreement(rd.path, derive.agreement_per_boot(rd.ok_rows))
    atomic_write(rd.path / "report.md", report_markdown(rd, figs, pairs, scale_rd))
    note(f"report: {rd.path / 'report.md'} ({len(figs)} plots, {len(rd.failed_rows)} failed cells)")
    if not args.no_terminal_plot:
        dumb_plot(rd.path / "gnuplot")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
