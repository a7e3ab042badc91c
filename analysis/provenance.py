"""Which kernels a results directory measured, against this tree's: the
report's first lines.

A sweep records the patch series that built its kernels and each kernel's
build key (metadata.json, resultdir.Provenance); the tree's series is
computed from the checkout when the report is made (scripts/series.py, the
key's one owner).  When the two differ, when a kernel was booted out of
date or rebuilt between the boots of a resumed sweep, or when the directory
recorded no series, the report's first screen says so (warnings()); its
header names a recorded series (header_lines()).
"""

import sys
from pathlib import Path

from resultdir import Provenance, ResultDir

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "scripts"))
import series  # noqa: E402  (scripts/series.py)

NOT_THIS_TREE = "these numbers are not from this tree's kernels."


def describe(key: str, patches: int) -> str:
    return f"{key} ({patches} patch{'es' if patches != 1 else ''})"


def tree_series() -> series.Series | None:
    """This checkout's series (None when it cannot be read: a patch missing)."""
    try:
        return series.checkout_series()
    except series.SeriesError:
        return None


def measured_commit(rd: ResultDir) -> str:
    """The suite commit the sweep ran at (metadata, else the rows')."""
    commit = rd.metadata.get("commit")
    if isinstance(commit, str) and commit:
        return commit
    return ", ".join(sorted({r.commit for r in rd.rows})) or "unknown"


def tree_text(tree: series.Series | None) -> str:
    if tree is None:
        return "this tree's series cannot be read (patches/series names a missing patch)"
    return f"this tree's series is {describe(tree.key, len(tree.patches))}"


def recorded_warnings(p: Provenance, tree: series.Series | None) -> list[str]:
    """A recorded series that is not the tree's, and kernels out of date."""
    lines = []
    if tree is None or p.series_key != tree.key:
        lines.append(f"Measured with series {describe(p.series_key, len(p.patches))}; "
                     f"{tree_text(tree)}: {NOT_THIS_TREE}")
    stale = p.out_of_date
    if stale:
        lines.append(f"Kernels {', '.join(stale)} were booted as built before: their build key "
                     f"is not the one series {p.series_key} and their config fragments give "
                     "(make kernels rebuilds them), so their numbers are not from that series "
                     "either.")
    return lines


def resume_warnings(rd: ResultDir) -> list[str]:
    """Kernels rebuilt between the start of a sweep and a resume of it."""
    if rd.provenance is None:
        return []
    first = rd.provenance.kernel_keys
    lines = []
    for at, p in rd.resumes:
        rebuilt = [k for k, key in p.kernel_keys.items()
                   if k in first and key.built != first[k].built]
        if rebuilt:
            lines.append(f"Resumed at {at} with kernels {', '.join(rebuilt)} rebuilt: their "
                         "cells mix boots of two builds.")
    return lines


def unrecorded_warning(rd: ResultDir, tree: series.Series | None) -> str:
    """A directory without a series: name its commit and that commit's series."""
    commit = measured_commit(rd)
    text = (f"Series not recorded: this directory was measured at commit {commit} and did not "
            "record which patch series built its kernels.")
    try:
        then = series.commit_series(commit.removesuffix("-dirty"))
    except series.SeriesError:
        other = tree_text(tree)
        return f"{text}  {other[0].upper()}{other[1:]}: these numbers may not be from it."
    same = tree is not None and then.key == tree.key
    return (f"{text}  That commit's patches/series is {describe(then.key, len(then.patches))}; "
            f"{tree_text(tree)}: "
            + ("the same series, but which kernels were booted is not known." if same
               else NOT_THIS_TREE))


def warnings(rd: ResultDir, tree: series.Series | None) -> list[str]:
    """The first screen's warnings about the kernels measured (none when they
    are this tree's), as Markdown block quotes."""
    if rd.provenance is None:
        lines = [unrecorded_warning(rd, tree)]
    else:
        lines = recorded_warnings(rd.provenance, tree) + resume_warnings(rd)
    return [line for text in lines for line in (f"> {text}", "")]


def header_lines(rd: ResultDir, tree: series.Series | None) -> list[str]:
    """The header's line on the recorded series (none when there is none:
    the warning says so)."""
    p = rd.provenance
    if p is None:
        return []
    same = tree is not None and p.series_key == tree.key
    return [f"- patch series: {describe(p.series_key, len(p.patches))}, "
            + ("this tree's patches/series" if same else f"not this tree's ({tree_text(tree)})")]
