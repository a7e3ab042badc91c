#!/usr/bin/python3
"""Instruction classes of a function's loop body, from its disassembly.

usage: tests/objdump_loop.py OBJECT FUNCTION

The loop body is the code from the target of the function's last backward
branch to that branch, inclusive (the shape of rcubench.ko's loops: one
loop, the test at the bottom).  Prints "class=count" for the classes the
rbcount plugin counts statically: what one iteration executes.
"""

import re
import subprocess
import sys

INSN = re.compile(r"^\s*([0-9a-f]+):\s+(.*)$")
TARGET = re.compile(r"^j\w*\s+([0-9a-f]+)\b")


def disassembly(obj: str, func: str) -> list[tuple[int, str]]:
    """(address, instruction text) of func, without raw bytes."""
    out = subprocess.run(["objdump", "-d", "--no-show-raw-insn", obj], check=True,
                         capture_output=True, text=True).stdout
    insns, on = [], False
    for line in out.splitlines():
        if line.endswith(f"<{func}>:"):
            on = True
            continue
        if on and not line.strip():
            break
        m = INSN.match(line) if on else None
        if m:
            insns.append((int(m.group(1), 16), m.group(2).strip()))
    return insns


def loop_body(insns: list[tuple[int, str]]) -> list[str]:
    for i in range(len(insns) - 1, -1, -1):
        addr, text = insns[i]
        m = TARGET.match(text)
        if m and int(m.group(1), 16) < addr:
            start = int(m.group(1), 16)
            return [t for a, t in insns[: i + 1] if a >= start]
    raise SystemExit("no backward branch: no loop")


def classes(body: list[str]) -> dict[str, int]:
    def count(pred) -> int:
        return sum(1 for t in body if pred(t))
    return {
        "insns": len(body),
        "locked": count(lambda t: t.startswith("lock ") or re.match(r"xchg\s+\S*\(", t) is not None),
        "fences": count(lambda t: t.split()[0] in ("mfence", "lfence", "sfence")),
        "cli": count(lambda t: t.split()[0] == "cli"),
        "sti": count(lambda t: t.split()[0] == "sti"),
        "pushf": count(lambda t: t.split()[0] in ("pushf", "pushfq")),
        "popf": count(lambda t: t.split()[0] in ("popf", "popfq")),
        "percpu": count(lambda t: "%gs:" in t),
        "calls": count(lambda t: t.split()[0].startswith("call")),
        "rets": count(lambda t: t.split()[0].startswith("ret")),
    }


def main() -> int:
    if len(sys.argv) != 3:
        raise SystemExit(__doc__.split("\n\n")[1])
    insns = disassembly(sys.argv[1], sys.argv[2])
    if not insns:
        raise SystemExit(f"no function {sys.argv[2]} in {sys.argv[1]}")
    print(" ".join(f"{k}={v}" for k, v in classes(loop_body(insns)).items()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
