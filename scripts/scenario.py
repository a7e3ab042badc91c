#!/usr/bin/python3
"""The kernel scenarios of configs/<kernel>/ for Python (configs/README.md).

A kernel's facts (banner, RCU family, torture arguments, ...) are the
"NAME = value" lines of configs/<kernel>/facts, suite.conf's syntax; a
scenario that sets BASE has its base's facts unless it sets them itself.
The same rules as scripts/lib.sh (scenarios, kernel_fact), which the shell
scripts use; tests/t-scenarios.sh checks that the two agree.

    scripts/scenario.py                  every scenario, one a line
    scripts/scenario.py KERNEL FACT      FACT of KERNEL (empty when unset)
"""

import argparse
import sys
from pathlib import Path
from typing import Optional

CONFIGS = Path(__file__).resolve().parent.parent / "configs"
# A scenario's own facts, never inherited from its BASE.
OWN_FACTS = ("BASE", "FRAGMENTS", "BUILD")


class ScenarioError(Exception):
    """An unknown kernel or a facts file that cannot be read."""


def scenarios() -> list[str]:
    """Every kernel scenario: the directories of configs/ with a facts file."""
    return sorted(p.parent.name for p in CONFIGS.glob("*/facts"))


def read_facts(kernel: str) -> dict[str, str]:
    """The facts configs/KERNEL/facts sets itself ('#' starts a comment
    line, the first '=' splits, the first line on a name counts)."""
    path = CONFIGS / kernel / "facts"
    if "/" in kernel or kernel.startswith(".") or not path.is_file():
        raise ScenarioError(f"unknown kernel '{kernel}' (known: {' '.join(scenarios())}; "
                            "a kernel is a directory configs/<kernel>/)")
    facts: dict[str, str] = {}
    for line in path.read_text().splitlines():
        if line.lstrip().startswith("#") or "=" not in line:
            continue
        name, value = line.split("=", 1)
        facts.setdefault("".join(name.split()), value.strip())
    return facts


def fact(kernel: str, name: str) -> Optional[str]:
    """NAME of KERNEL, from its facts or else its BASE's (recursively);
    None when none sets it."""
    seen: list[str] = []
    k: Optional[str] = kernel
    while k is not None:
        if k in seen:
            raise ScenarioError(f"configs/{kernel}: BASE loops through {' '.join(seen)}")
        seen.append(k)
        facts = read_facts(k)
        if name in facts:
            return facts[name]
        if name in OWN_FACTS:
            return None
        k = facts.get("BASE")
    return None


def build(kernel: str) -> str:
    """The kernel whose build KERNEL boots: its BUILD (a boot variant, the
    same .config and bzImage with other boot arguments) or itself."""
    return fact(kernel, "BUILD") or kernel


def family(kernel: str) -> str:
    """The RCU family of KERNEL (FAMILY: classic, rcupreempt, tree)."""
    value = fact(kernel, "FAMILY")
    if not value:
        raise ScenarioError(f"configs/{kernel}/facts: no FAMILY")
    return value


def main() -> int:
    parser = argparse.ArgumentParser(description="Kernel scenarios of configs/.")
    parser.add_argument("kernel", nargs="?", help="a kernel scenario")
    parser.add_argument("fact", nargs="?", help="one of its facts (BANNER, FAMILY, ...)")
    args = parser.parse_args()
    try:
        if args.kernel is None:
            print("\n".join(scenarios()))
        elif args.fact is None:
            parser.error("KERNEL needs a FACT")
        else:
            print(fact(args.kernel, args.fact) or "")
    except ScenarioError as err:
        print(f"rcu-bench: error: {err}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
