"""The report's "Design variants" section: each boot variant of a sweep
against the kernel whose build it boots, and the priority-boosting
experiment on every kernel.

A boot variant is a scenario with BUILD = <kernel> (configs/README.md):
the same bzImage booted with other arguments, e.g. preempt-fast-advance
(rcupreempt.fast_advance=1) against preempt.  Its column pairs it with
that build on the verdict's figures (verdict.py: the largest vCPU count
below the host's CPUs, exact counts, TCG wall clock with 95% intervals)
and on those a design variant is meant to change: back-to-back grace
periods, the RCU core's instructions per grace period and per tick with
interrupts off (mean and worst: the plugin's irqwork), and the boost
test.  The grace-period latency of each against what its design predicts
comes from gpdesign.py (the variants' derivations are there).  The
boosting table has one row per kernel of the sweep that ran the boost
test, with the boost delay its boot arguments set (metadata.json
kernel_boot_args; rcupreempt's default, 500 ms, when they set none) and
the prediction: a preempted reader holds the grace period up for the
boost delay with boosting, for the hog's whole run without it.

Call point: report_section(rd) -> list[str] (Markdown lines).
"""

import derive
import gpdesign
import measures
import spinverdicts
import suiteconf
import units
import verdict
from measures import Measure
from resultdir import ResultDir, Row
from tables import mark, table

TITLE = "Design variants"
# rcupreempt.boost_delay_ms's default (patch 0008).
DEFAULT_BOOST_DELAY_MS = 500


def boost_boots(metric: str) -> derive.CellFn:
    """A boost test figure per boot (the module's summary rows)."""
    def fn(rows: list[Row], kernel: str, vcpus: int) -> derive.PerBoot:
        return derive.per_boot(derive.select(rows, "boost", metric, kernel, vcpus))
    return fn


def boosts_boots(rows: list[Row], kernel: str, vcpus: int) -> derive.PerBoot:
    return derive.per_boot(derive.select(rows, "boost_count", "boosts", kernel, vcpus))


def count_boots(test: str, metric: str, **params: object) -> derive.CellFn:
    """An rbcount figure per boot (count boots: usually one a cell)."""
    def fn(rows: list[Row], kernel: str, vcpus: int) -> derive.PerBoot:
        return derive.per_boot(derive.select(rows, test, metric, kernel, vcpus, **params))
    return fn


GP_B2B_TICKS = Measure("Back-to-back grace-period latency in ticks", "gp",
                       lambda rows, k, v: derive.gp_boots(rows, k, v, metric="latency_ticks",
                                                          spacing="back_to_back"),
                       "ticks", "back-to-back synchronize_rcu() calls take", "longer", "shorter")
def gp_count(title: str, metric: str, what: str) -> Measure:
    """A count_gp figure (idle load) as a measure: more is worse."""
    return Measure(title, "count_gp", count_boots("count_gp", metric, load="idle"), "count",
                   what, "more", "less")


GP_CORE = gp_count("RCU core instructions per grace period per CPU", "core_insns",
                   "the RCU core executes per grace period per CPU")
GP_TICK = gp_count("RCU core instructions in the tick per grace period per CPU", "core_insns_tick",
                   "the tick's RCU work per grace period per CPU is")
IRQOFF_MEAN = gp_count("RCU work per tick with interrupts off", "irqoff_core_insns_mean",
                       "the RCU core executes with interrupts off per tick")
IRQOFF_MAX = gp_count("Worst tick's RCU work with interrupts off", "irqoff_core_insns_max",
                      "the worst tick's RCU work with interrupts off is")
BOOST_GP = Measure("Grace period behind a preempted reader", "boost", boost_boots("gp_median_ns"),
                   "ns", "a synchronize_rcu() behind a reader preempted by a SCHED_FIFO hog takes",
                   "longer", "shorter")
BOOST_OUTSTANDING = Measure("Callbacks outstanding behind a preempted reader", "boost",
                            boost_boots("outstanding_median"), "count",
                            "callbacks queued at 1/ms behind that reader peak at", "more", "fewer")
BOOSTS = Measure("Readers boosted", "boost_count", boosts_boots, "count",
                 "the booster boosted", "more", "fewer")

ROWS = (
    verdict.VerdictRow("lone grace period (ticks)", verdict.WALL, verdict.measured(measures.GP_TICKS)),
    verdict.VerdictRow("back-to-back grace period (ticks)", verdict.WALL, verdict.measured(GP_B2B_TICKS)),
    verdict.VerdictRow("RCU core instructions / GP / CPU", verdict.EXACT + " (varies)",
                       verdict.measured(GP_CORE)),
    verdict.VerdictRow("of them in the tick", verdict.EXACT + " (varies)", verdict.measured(GP_TICK)),
    verdict.VerdictRow("tick's RCU work, interrupts off: mean", verdict.EXACT + " (varies)",
                       verdict.measured(IRQOFF_MEAN)),
    verdict.VerdictRow("tick's RCU work, interrupts off: worst", verdict.EXACT + " (varies)",
                       verdict.measured(IRQOFF_MAX)),
    verdict.VerdictRow("read pair: instructions", verdict.EXACT, verdict.read_count("insns")),
    verdict.VerdictRow("call_rcu() cost", verdict.WALL, verdict.measured(measures.CALLRCU_COST)),
    verdict.VerdictRow("callback capacity (CPU-bound)", verdict.WALL, verdict.measured(measures.CAPACITY)),
    verdict.VerdictRow("memory held by callbacks", verdict.WALL, verdict.measured(measures.MEMORY)),
    verdict.VerdictRow("grace period behind a preempted reader", verdict.WALL, verdict.measured(BOOST_GP)),
    verdict.VerdictRow("callbacks outstanding behind it", verdict.WALL, verdict.measured(BOOST_OUTSTANDING)),
    verdict.VerdictRow("readers boosted (per boot)", "count", verdict.measured(BOOSTS)),
)


def variant_pairs(rd: ResultDir) -> list[tuple[str, str]]:
    """(variant, its build) for each boot variant with rows whose build has rows."""
    have = {r.kernel for r in rd.ok_rows}
    builds = {k: suiteconf.kernel_build(k) for k in suiteconf.known_kernels() if k in have}
    return [(k, b) for k, b in builds.items() if b != k and b in have]


def pair_kernels(pairs: list[tuple[str, str]]) -> list[str]:
    """The kernels of pairs, each build before its variant, each once."""
    return list(dict.fromkeys(k for variant, build in pairs for k in (build, variant)))


def boot_args(rd: ResultDir, kernel: str) -> str:
    recorded = rd.metadata.get("kernel_boot_args", {})
    args = recorded.get(kernel) if isinstance(recorded, dict) else None
    return args if args else "(none)"


def comparison_table(rd: ResultDir, pairs: list[tuple[str, str]]) -> list[str]:
    found = [(row, [row.cell(rd, k, b) for k, b in pairs]) for row in ROWS]
    found = [(row, got) for row, got in found if any(got)]
    if not found:
        return []
    vcpus = {c.vcpus for _, got in found for c in got if c}

    def text(c: verdict.Cell | None) -> str:
        if c is None:
            return units.NONE
        return c.text if len(vcpus) == 1 else f"{c.text} ({c.vcpus} vCPU{'s' if c.vcpus > 1 else ''})"
    body = [[row.label, row.kind] + [text(c) for c in got] for row, got in found]
    return table(["measure", "kind"] + [f"{k} vs {b}" for k, b in pairs], body)


def prediction_table(rd: ResultDir, pairs: list[tuple[str, str]]) -> list[str]:
    """gpdesign's lines (measured ticks against the design) of each build
    and its variants, at the predicted vCPU count."""
    rows = rd.ok_rows
    v = gpdesign.PREDICTED_VCPUS
    body = [line for k in pair_kernels(pairs) for s in derive.gp_spacings(rows)
            if (line := gpdesign.cell_line(rd, k, v, "idle", s)) is not None]
    return table(["kernel", "vCPUs", "load", "spacing", "measured (ticks)", "design predicts",
                  "median vs prediction", "cell"], body) if body else []


def counted_ticks_table(rd: ResultDir, pairs: list[tuple[str, str]]) -> list[str]:
    """Back-to-back grace periods counted, not timed: count_gp's interrupt
    episodes with RCU work per grace period (at 1 vCPU every tick runs the
    core, so these are the ticks a grace period took) and the kernel's own
    grace-period counter per synchronize_rcu() (rcupreempt: stages),
    beside the design's prediction."""
    rows = rd.ok_rows
    v = gpdesign.PREDICTED_VCPUS
    body = []
    for k in pair_kernels(pairs):
        ticks = derive.estimate(count_boots("count_gp", "irqoff_episodes_per_gp", load="idle")(rows, k, v))
        if ticks is None:
            continue
        stages = derive.estimate(count_boots("count_gp", "kernel_gps_per_sync", load="idle")(rows, k, v))
        # The variant flags and stages come from the gp test's rows of the same kernel.
        p = gpdesign.cell_prediction(rows, k, v, "back_to_back")
        body.append([k, units.sig(ticks.value), units.sig(stages.value) if stages else units.NONE,
                     p.text() if p else units.NONE,
                     gpdesign.verdict(ticks.value, p) if p else units.NONE])
    return table(["kernel", "ticks per back-to-back GP (counted)", "kernel GPs (stages) per call",
                  "design predicts", "counted vs prediction"], body) if body else []


def boost_delay_ms(rd: ResultDir, kernel: str) -> int | None:
    """The boost delay kernel booted with (None: a kernel without the booster)."""
    if suiteconf.kernel_family(kernel) != "rcupreempt":
        return None
    for arg in boot_args(rd, kernel).split():
        if arg.startswith("rcupreempt.boost_delay_ms="):
            return int(arg.partition("=")[2])
    return DEFAULT_BOOST_DELAY_MS


def hog_ms(rows: list[Row]) -> int | None:
    values = {r.param_int("hog_ms") for r in rows if r.ok and r.test == "boost"}
    values.discard(None)
    return values.pop() if len(values) == 1 else None


def readers_preemptible(kernel: str) -> bool:
    """Tree RCU's readers are preemptible where its read side is a nesting
    counter (READ_SIDE counter: tree-preempt); Classic's counter is the
    preemption count."""
    return suiteconf.kernel_family(kernel) == "rcupreempt" or (
        suiteconf.kernel_family(kernel) == "tree" and suiteconf.kernel_fact(kernel, "READ_SIDE") == "counter")


def boost_prediction(rd: ResultDir, kernel: str, hog: int | None) -> str:
    """How long the preempted reader should hold the grace period up."""
    delay = boost_delay_ms(rd, kernel)
    if hog is None:
        return units.NONE
    if delay is None:
        if readers_preemptible(kernel):
            return f"the hog's {hog} ms unless Tree RCU boosts (CONFIG_RCU_BOOST)"
        return "no time: its readers cannot be preempted"
    if delay == 0:
        return f"the hog's {hog} ms (no boosting)"
    return f"the boost delay, {delay} ms" if delay < hog else f"the hog's {hog} ms"


def boost_table(rd: ResultDir) -> list[str]:
    rows = rd.ok_rows
    hog = hog_ms(rows)
    body = []
    for k in derive.kernels_of(rows, "boost"):
        for v in derive.vcpus_of(rows, "boost", k):
            def est(fn: derive.CellFn) -> str:
                return units.cell(derive.cell_estimate(fn, rows, k, v), "count")
            body.append([k, str(v), boot_args(rd, k), boost_prediction(rd, k, hog),
                         units.cell(derive.cell_estimate(boost_boots("gp_median_ns"), rows, k, v), "ns"),
                         units.cell(derive.cell_estimate(boost_boots("reader_section_median_ns"),
                                                         rows, k, v), "ns"),
                         units.cell(derive.cell_estimate(boost_boots("hog_delay_median_ns"),
                                                         rows, k, v), "ns"),
                         est(boost_boots("outstanding_median")), est(boosts_boots),
                         est(boost_boots("pool_exhausted")), mark(rd, k, v)])
    if not body:
        return []
    return table(["kernel", "vCPUs", "boot arguments", "reader holds the GP up for",
                  "grace period", "read-side section", "hog's wakeup delay",
                  "callbacks outstanding", "boosts", "pool exhausted", "cell"], body)


INTRO = ("Each boot variant (configs/<kernel>/facts BUILD: the same build booted with "
         "other arguments) against the kernel whose build it boots, on the verdict's "
         "figures and those a variant of the grace-period machine is meant to change "
         "(kinds as in the verdict; *exact count (varies)*: counted exactly, but the "
         "ticks a grace period spans vary from boot to boot).  Whether each variant is "
         "safe is SPIN's verdict, not the sweep's: verify/README.md \"Design variants\".")
PREDICT_INTRO = ("Grace periods in ticks against each design's prediction (1 vCPU, idle "
                 "load; analysis/gpdesign.py derives them, variants included).")
COUNTED_INTRO = ("The same, counted instead of timed (rbcount, count_gp, idle load, 1 vCPU, "
                 "20 back-to-back synchronize_rcu() calls): the interrupt episodes in which the "
                 "RCU core ran, per grace period (every tick runs it, so: ticks), and how far "
                 "the kernel's own grace-period counter moved per call (the flip-counter "
                 "design counts stages).  Host load does not move a count.")
BOOST_INTRO = ("The boost test, all on one CPU: a normal-priority reader enters "
               "rcu_read_lock() and wakes a CPU-bound SCHED_FIFO hog (priority 1) that "
               "spins for {hog}; a SCHED_FIFO measurer times synchronize_rcu() from the moment "
               "the hog runs, and a SCHED_FIFO poster queues one callback a millisecond.  "
               "Each boot's median over its samples, then the median over boots [95% CI].  "
               "Where readers cannot be preempted the hog runs only after the section (its "
               "wakeup delay is the section's rest) and the grace period has no reader to "
               "wait for; where they can, the reader holds the grace period up until it runs "
               "again: after the boost delay when the booster (patch 0008, "
               "rcupreempt.boost_delay_ms) lifts it above the hog, else after the hog.")


def report_section(rd: ResultDir) -> list[str]:
    pairs = variant_pairs(rd)
    boost = boost_table(rd)
    if not pairs and not boost:
        return []
    lines = [f"## {TITLE}", ""] + spinverdicts.report_lines()
    if pairs:
        lines += [INTRO, "", "Boot arguments: " + "; ".join(
            f"{k} `{boot_args(rd, k)}`" for k, _ in pairs) + ".", ""]
        lines += comparison_table(rd, pairs)
        predicted = prediction_table(rd, pairs)
        counted = counted_ticks_table(rd, pairs)
        if predicted or counted:
            lines += ["### Grace periods against the design", "", PREDICT_INTRO, ""] + predicted
        if counted:
            lines += [COUNTED_INTRO, ""] + counted
    if boost:
        hog = hog_ms(rd.ok_rows)
        lines += ["### Priority boosting", "",
                  BOOST_INTRO.format(hog=f"{hog} ms" if hog else "hog_ms"), ""] + boost
    return lines
