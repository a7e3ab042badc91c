"""The headline measures: each a per-boot cell figure (derive.py) with the
words of its summary sentence.  The summary (summary.py) says them for each
compared pair; the verdict table (verdict.py) takes its rows from them.
"""

from dataclasses import dataclass

import derive
from stats import Estimate


@dataclass(frozen=True)
class Measure:
    """A headline figure: the cell function and the words of its sentence."""

    title: str
    test: str
    fn: derive.CellFn
    unit: str
    what: str           # subject of the sentence
    more: str           # verdict when kernel/base is above 1
    less: str           # ... below 1


READ = Measure("Read side (wall clock under TCG)", "read", derive.read_boots, "ns",
               "an rcu_read_lock()/rcu_read_unlock() pair (one reader per vCPU) takes",
               "more expensive", "cheaper")
GP = Measure("Lone grace-period latency", "gp", derive.gp_boots, "ns",
             "a lone synchronize_rcu() (grace-period machinery idle before it) takes",
             "longer", "shorter")
GP_TICKS = Measure("Lone grace-period latency in ticks", "gp",
                   lambda rows, k, v: derive.gp_boots(rows, k, v, metric="latency_ticks"), "ticks",
                   "a lone synchronize_rcu() (grace-period machinery idle before it) takes",
                   "longer", "shorter")
CALLRCU_COST = Measure("call_rcu() cost", "callrcu_cost", derive.callrcu_cost_boots, "ns",
                       "a call_rcu() costs its caller", "more expensive", "cheaper")
# Only boots whose backlog never reached its limit: a rate bound by the
# backlog is max_backlog / callback latency, not a capacity.
CAPACITY = Measure("call_rcu() capacity (CPU-bound)", "callrcu_capacity", derive.cpu_capacity_boots,
                   "1/s", "callbacks invoked per second (one writer per vCPU, backlog below its "
                   "limit) reach", "higher", "lower")
MEMORY = Measure("Memory held by callbacks", "callrcu_memory", derive.memory_boots, "bytes",
                 "callbacks posted at a fixed rate hold on average", "more", "less")

MEASURES = (READ, GP, GP_TICKS, CALLRCU_COST, CAPACITY, MEMORY)


def ratio_meaningful(r: Estimate | None, b: Estimate | None) -> bool:
    """A ratio kernel/base means something only when base's whole interval
    is above zero (and so the resampled ratios are bounded)."""
    return r is not None and r.bounded and b is not None and b.low > 0
