"""Grace-period latency in ticks against what each design predicts.

The gp test measures synchronize_rcu() lone (the grace-period machinery
idle before it: 40 ticks of sleep, then a random phase within a tick) and
back to back (the next call as soon as the previous returned).  Both
seed designs advance their grace periods from the scheduling-clock tick
only, so at 1 CPU, with the CPU idle while synchronize_rcu() waits (a
quiescent state at every tick), the code fixes the latency in ticks.  The
derivations (state by state, from patches/0002 and kernel/rcu/rcupreempt.c
of patches/0004-0010):

Flip-counter preemptible RCU (family rcupreempt), G = rcupreempt.gp_stages.
Each tick, rcu_check_callbacks() runs rcu_try_flip(), which advances the
state machine by at most one state (idle -> waitack -> waitzero -> waitmb
-> idle), then __rcu_advance_callbacks(), which moves the callback lists
one list further when the flip count changed, and raises RCU_SOFTIRQ
when donelist is not empty (the callback is invoked in that tick's
softirq).  At 1 CPU every state ends at its first tick (the CPU acks the
flip and passes its barrier and quiescent state in the tick before), so a
stage is 4 ticks: idle (flip), waitack, waitzero, waitmb.
  lone: the call lands at phase u of a tick (u uniform in [0, 1)); the
    next tick flips (rcu_pending() sees the callback in nextlist) and moves
    it to waitlist[0]; each later flip, one per stage of 4 ticks, moves it
    one list on; the (G+1)-th flip, 4G ticks after the first, moves it
    from waitlist[G-1] to donelist and the same tick invokes it:
    4G + (1 - u) ticks, uniform over (4G, 4G + 1], median 4G + 1/2.
  back to back: the previous callback was invoked at the tick of its
    (G+1)-th flip, and that flip began a stage (rcu_pending() saw the
    callback still in the last wait list); the next call, right after that
    tick, waits that stage out (4 ticks) before the flip that takes its
    callback, then 4G ticks: 4(G + 1) ticks from the tick the previous
    call returned at (12 at G = 2); the call starts a moment after that
    tick and returns a moment after its last one, so about 4(G + 1).
Classic RCU (family classic, the 2.6.23 code of patches/0002):
  lone: the first tick after call_rcu() sees nxtlist with an empty curlist
    (rcu_pending()), and its softirq moves nxtlist to curlist and starts a
    batch (rcu_start_batch(): cur + 1); rcu_check_quiescent_state() then
    notes the new batch and clears passed_quiesc.  The second tick, from
    idle, counts a quiescent state (rcu_qsctr_inc()), and its softirq
    reports it (cpu_quiet(): completed = cur), after the softirq checked
    for a completed curlist.  The third tick's softirq moves curlist to
    donelist and invokes it: 2 + (1 - u) ticks, uniform over (2, 3],
    median 2.5.
  back to back: the previous callback was invoked in a tick's softirq with
    no batch pending (cpu_quiet() found next_pending 0), so the next call
    is lone at phase u close to 0: about 3 ticks.
The design variants of patch 0011 (rcupreempt.fast_advance=1,
idle_skip=1; gp_stages rows say which were on), at 1 CPU:
  fast_advance: rcu_try_flip() goes on through every state whose
    condition holds.  The flipping CPU acknowledges its flip only after
    rcu_try_flip() returns, and executes the memory-barrier request of
    waitmb in the tick before the next rcu_try_flip(), so a tick moves
    idle -> waitack (the flip), the next waitack -> waitzero -> waitmb,
    the next waitmb -> idle -> waitack (the next flip): a stage is S = 2
    ticks instead of 4.  With S ticks a stage, the formulas above read:
    lone S*G + U(0,1], back to back S*(G + 1).
  idle_skip: a CPU hands its last wait list (where the callback sits
    after the G-th flip) to RCU_SOFTIRQ in the tick whose rcu_try_flip()
    ends that stage (waitmb -> idle), without waiting for a (G+1)-th flip,
    and rcu_pending() does not count it.  One state a tick, stage G ends a
    tick before the seed's (G+1)-th flip: lone 4G - 1 + U(0,1]; back to
    back the previous callback started no stage, so the next call is a
    lone one at phase 0: 4G.  With fast_advance too, stage G ends in the
    very tick of that flip: lone as fast_advance alone, 2G + U(0,1], back
    to back 2G + 1.
Tree RCU: no prediction here (its grace-period kthread sleeps
jiffies_till_first_fqs and reacts to wakeups; not derived).

Measured against predicted: a lone sample also counts the moment from
the tick that invokes its callback to the caller's return (the softirq,
the wakeup, the switch: 0.1-0.3 tick under TCG), which a back-to-back
sample cancels (it starts that same moment after a tick); so lone medians
sit a little above 4G + 1/2 and 2.5, back-to-back ones on 4(G+1) and 3.
On a loaded host QEMU's vCPU thread is descheduled now and then, which
adds a tail of samples several ticks long (and moves a median of few
samples up); the bulk of the samples still lies in the predicted range.

The predictions hold at 1 vCPU only: at more CPUs a state waits for every
CPU's tick, whose phases differ; the table shows them beside the 1-vCPU
cells only.

Call points: report_section(rd, kernels) -> list[str] (Markdown lines), and
prediction(family, spacing, stages) for a single figure.
"""

from dataclasses import dataclass

import derive
import suiteconf
import units
from resultdir import ResultDir, Row
from tables import mark, section, table


TITLE = "Grace-period latency in ticks against the design"
# A measured median this far (ticks) from the predicted median agrees.
TOLERANCE_TICKS = 1.0
PREDICTED_VCPUS = 1


@dataclass(frozen=True)
class Prediction:
    """Ticks from synchronize_rcu() to its return: [low, high], median."""

    low: float
    high: float
    median: float

    def text(self) -> str:
        if self.low == self.high:
            return f"about {units.sig(self.median)} ticks"
        return (f"{units.sig(self.low)}–{units.sig(self.high)} ticks, "
                f"median {units.sig(self.median)}")


def prediction(family: str, spacing: str, stages: int | None,
               fast_advance: bool = False, idle_skip: bool = False) -> Prediction | None:
    """The design's latency at 1 CPU (see the module's text), or None."""
    if family == "rcupreempt" and stages:
        stage = 2 if fast_advance else 4    # ticks a stage takes
        flip = stage * stages + 1           # the tick of the (G+1)-th flip
        # The tick that ends stage G: its own before the flip, or the
        # flip's own with fast_advance (waitmb -> idle -> waitack).
        end = flip if fast_advance else flip - 1
        deliver = end if idle_skip else flip
        if spacing == "lone":
            return Prediction(deliver - 1, deliver, deliver - 0.5)
        if spacing == "back_to_back":
            b2b = deliver if idle_skip else deliver - 1 + stage
            return Prediction(b2b, b2b, b2b)
    if family == "classic":
        if spacing == "lone":
            return Prediction(2, 3, 2.5)
        if spacing == "back_to_back":
            return Prediction(3, 3, 3)
    return None


def verdict(measured: float, p: Prediction) -> str:
    off = measured - p.median
    if abs(off) <= TOLERANCE_TICKS:
        return f"agrees ({units.sig(off)} ticks off)" if off else "agrees"
    return f"**{'+' if off > 0 else ''}{units.sig(off)} ticks off**"


def cell_prediction(rows: list[Row], kernel: str, vcpus: int, spacing: str) -> Prediction | None:
    """The design's prediction for kernel's cell (its family; the stages and
    variants its gp_stages rows say it ran), at PREDICTED_VCPUS only."""
    family = suiteconf.kernel_family(kernel) if vcpus == PREDICTED_VCPUS else None
    if not family:
        return None
    return prediction(family, spacing, derive.stage_count(rows, kernel, vcpus),
                      derive.variant_on(rows, kernel, vcpus, "fast_advance"),
                      derive.variant_on(rows, kernel, vcpus, "idle_skip"))


def cell_line(rd: ResultDir, kernel: str, vcpus: int, load: str, spacing: str) -> list[str] | None:
    rows = rd.ok_rows
    e = derive.estimate(derive.gp_boots(rows, kernel, vcpus, load, "latency_ticks", spacing))
    if e is None:
        return None
    p = cell_prediction(rows, kernel, vcpus, spacing)
    return [kernel, str(vcpus), load, spacing.replace("_", " "), units.cell(e, "ticks"),
            p.text() if p else units.NONE, verdict(e.value, p) if p else units.NONE,
            mark(rd, kernel, vcpus)]


INTRO = ("synchronize_rcu() in scheduler ticks (HZ from the rows), each boot's median "
         "over its samples, then the median over boots [95% CI].  *lone*: after 40 ticks "
         "of sleep (the grace-period machinery idle) at a random phase within a tick; "
         "*back to back*: each call right after the previous returned; *unspecified*: "
         "sweeps before spacing= existed, samples 1-2 ticks apart, a mixture of the two.  "
         "Prediction (1 vCPU, idle CPU): flip-counter preemptible RCU, G stages of 4 "
         "states, one state per tick: lone 4G + U(0,1], back to back 4(G+1) (the stage "
         "the previous callback's last flip began runs first); Classic RCU: lone "
         "2 + U(0,1] (batch start, quiescent state, invocation: one tick each), back "
         "to back 3; the design variants: fast_advance S = 2 ticks a stage instead of 4 "
         "(lone S·G + U(0,1], back to back S·(G+1)); idle_skip delivers the last wait list "
         "when its stage ends, not at the next flip (4G − 1 + U(0,1] lone, 4G back to back; "
         "with fast_advance that is the flip's tick: 2G + U(0,1], 2G + 1); the derivations are in analysis/gpdesign.py.  A median more than "
         f"{TOLERANCE_TICKS:g} tick from the prediction's is in bold.")


def report_section(rd: ResultDir, kernels: list[str]) -> list[str]:
    rows = rd.ok_rows
    body = [line for k in kernels for v in derive.vcpus_of(rows, "gp", k)
            for load in derive.gp_loads(rows) for s in derive.gp_spacings(rows)
            if (line := cell_line(rd, k, v, load, s)) is not None]
    return section(TITLE, INTRO, table(
        ["kernel", "vCPUs", "load", "spacing", "measured (ticks)", "design predicts",
         "median vs prediction", "cell"], body))
