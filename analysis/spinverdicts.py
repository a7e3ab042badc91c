"""verify/configs reader for the report: the SPIN verdicts that settle the
seed design's open questions, shown in the "Design variants" section.

verify/configs owns each SPIN run and its expected outcome (PASS, FAIL or
NONE-FOUND); `make verify` (verify/run.sh) fails when a run's outcome
differs from it, and `make test` runs its fast rows (t-verify-safety,
t-verify-mutations).  This module only reads it: which run answers which
question is here (QUESTIONS), the verdict always comes from the file.

Call points: read_configs(path) -> {name: SpinRun}; report_lines(path)
-> Markdown lines.
"""

from pathlib import Path
from typing import NamedTuple

import units
from tables import table

VERIFY_CONFIGS = Path(__file__).resolve().parent.parent / "verify" / "configs"


class SpinRun(NamedTuple):
    name: str
    expect: str   # PASS, FAIL or NONE-FOUND
    search: str   # full, bitstate or liveness
    defines: str


# (question, [(run, what it models)]): the seed article's open choices
# (000-article.md) and issue 22's variants.
QUESTIONS: list[tuple[str, list[tuple[str, str]]]] = [
    ("Quick Quiz 7: may rcu_read_lock() disable preemption instead of interrupts?",
     [("mut-qq7-3cpu-gp2", "Oleg Nesterov's scenario, 3 CPUs, GP_STAGES 2"),
      ("mut-qq7-3cpu-gp4", "the same, GP_STAGES 4")]),
    ("How many stages does a grace period need?",
     [("gp1-2cpu", "GP_STAGES 1"),
      ("safe-2cpu-gp2", "GP_STAGES 2 (mainline)"),
      ("safe-2cpu-gp4", "GP_STAGES 4 (the September 2007 -rt patch)"),
      ("mut-nowaitack-gp2", "without waitack, GP_STAGES 2"),
      ("mut-nowaitack-gp4", "without waitack, GP_STAGES 4: the extra stages mask it"),
      ("mut-nowaitmb-gp4", "without waitmb, GP_STAGES 4: masked too")]),
    ("fast_advance: every satisfied state in one tick?",
     [("fast-2cpu-gp2", "the variant"),
      ("mut-fast-noack-gp2", "mutation: passing waitack without the acknowledgements")]),
    ("idle_skip: no stage that no callback needs?",
     [("idleskip-2cpu-gp2", "the variant"),
      ("live-idleskip-gp2", "the variant: grace periods keep completing"),
      ("mut-idleskip-early-gp2", "mutation: the stage's end published before waitmb"),
      ("mut-live-idleskip-nomove", "mutation: last waitlist ignored but not moved (liveness)")]),
]

MEANING = {"PASS": "safe (exhaustive: no violation)",
           "FAIL": "unsafe (counterexample)",
           "NONE-FOUND": "no violation found (bitstate: not a proof)"}
# A liveness run checks for non-progress cycles, not for safety.
LIVENESS_MEANING = {"PASS": "live (no non-progress cycle)",
                    "FAIL": "not live (a non-progress cycle)"}


class ConfigsError(Exception):
    """verify/configs is missing or has a malformed line."""


def read_configs(path: Path = VERIFY_CONFIGS) -> dict[str, SpinRun]:
    """Every run of the file: NAME EXPECT SEARCH DEFINES..., '#' comments."""
    try:
        text = path.read_text()
    except OSError as err:
        raise ConfigsError(f"cannot read {path}: {err.strerror}") from err
    runs: dict[str, SpinRun] = {}
    for number, line in enumerate(text.splitlines(), 1):
        fields = line.split()
        if not fields or fields[0].startswith("#"):
            continue
        if len(fields) < 3 or fields[1] not in MEANING:
            raise ConfigsError(f"{path}:{number}: expected NAME EXPECT SEARCH DEFINES...")
        runs[fields[0]] = SpinRun(fields[0], fields[1], fields[2], " ".join(fields[3:]))
    return runs


def verdict_cell(runs: dict[str, SpinRun], name: str) -> tuple[str, str]:
    run = runs.get(name)
    if run is None:
        return units.NONE, "not in verify/configs"
    special = LIVENESS_MEANING if run.search == "liveness" else {}
    return run.search, f"{run.expect}: {special.get(run.expect, MEANING[run.expect])}"


def report_lines(path: Path = VERIFY_CONFIGS) -> list[str]:
    """The design questions with the runs that answer them."""
    try:
        runs = read_configs(path)
    except ConfigsError as err:
        return ["### What SPIN settled", "", f"(no SPIN verdicts: {err})", ""]
    body = [[question if i == 0 else "", f"`{name}`", what, *verdict_cell(runs, name)]
            for question, answers in QUESTIONS for i, (name, what) in enumerate(answers)]
    return (["### What SPIN settled", "",
             "The SPIN model of the flip-counter machine (verify/rcupreempt.pml, 2 CPUs "
             "unless said; verify/README.md gives each counterexample).  Verdicts from "
             "verify/configs, which `make verify` checks run by run (`make test` runs "
             "its fast rows).  " + qq7_sentence(runs) + "  A variant is measured below "
             "only when SPIN finds it safe.", ""]
            + table(["question", "run", "models", "search", "verdict"], body))


def qq7_sentence(runs: dict[str, SpinRun]) -> str:
    """Quick Quiz 7's answer, as the verdicts give it."""
    failing = [name for name, _ in QUESTIONS[0][1]
               if name in runs and runs[name].expect == "FAIL"]
    if len(failing) == len(QUESTIONS[0][1]):
        return ("A preemption-disabling rcu_read_lock() is unsafe at 2 and at 4 stages, as "
                "the article's answer to Quick Quiz 7 says (no finite number of stages "
                "suffices).")
    return "Quick Quiz 7's runs do not all fail: see the table."
