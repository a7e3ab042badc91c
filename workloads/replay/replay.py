#!/usr/bin/python3
"""Replay a kernel's read-side instructions natively in user space.

The cost model (analysis/costmodel.py) adds up per-class costs; this checks
it against the real thing: the instructions one rcu_read_lock();
rcu_read_unlock() pair executes in the guest, run on this host's CPU.

A *bundle* is the disassembly the replay needs, one text file per kernel
(fixtures: workloads/replay/fixtures/<kernel>.dis):

  ## symbols   System.map lines of the per-CPU and global symbols the code names
  ## module    objdump -drw of rcubench.ko's rb_read_loop and rb_empty_loop
              (and the module functions they call directly)
  ## vmlinux   objdump -dw of the vmlinux functions those loops call

`extract` writes a bundle from a built kernel and its rcubench.ko;
`generate` rewrites a bundle into an assembly file that gas assembles into
workloads/replay/harness.c:

  - instructions that need no change are emitted as their bytes (the
    kernel's own encodings), with the objdump text as a comment;
  - %gs-relative per-CPU accesses address a buffer the harness installs as
    the GS base (arch_prctl(ARCH_SET_GS)), %gs:disp(%rip) ones too (against
    an absolute symbol at the per-CPU offset); current_task points at a zeroed
    task area, __preempt_count starts at PREEMPT_ENABLED, so the unlikely
    branches (nesting, need-resched, special unlock) are not taken;
  - RIP-relative kernel globals go to a zeroed data area, one slot per symbol;
  - branch targets become local labels; calls to the other replayed
    functions go to their copies, calls and jumps anywhere else (slow
    paths: rcu_read_unlock_special, preempt_schedule_thunk, ...) to a stub
    that counts its calls and returns: a replay that leaves the common
    path says so instead of timing something else;
  - cli and sti (they fault at CPL 3) become a 1-byte nop each, counted
    apart; pushf/popf run as they are (popf at CPL 3 keeps IF);
  - every instruction keeps the kernel's length and each function its
    offset in a 64-byte line (the harness's map lets replay.py check it).

`run` does it all for one bundle: generate, build, count (the harness
single-steps one and two iterations of each loop: the difference is what
one iteration executes, class by class) and time (median of runs, the empty
loop subtracted), and prints the rows of test `replay` (analysis/SCHEMA.md)
in the guest row format.  `count` prints the per-pair classes only.
"""

import argparse
import csv
import re
import subprocess
import sys
import tempfile
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Optional

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent.parent / "tests"))
import objdump_loop  # noqa: E402  (the suite's exact-count classes)

LOOP = "rb_read_loop"
EMPTY = "rb_empty_loop"
SECTIONS = ("symbols", "module", "vmlinux")
# Per-CPU variables whose zero is not the common case (x86-64, Linux 6.1):
# the preemption count's NEED_RESCHED bit is inverted, PREEMPT_ENABLED =
# 0x80000000; with 0 the preempt_enable() of classic-preempt would see a
# reschedule pending.  current_task points at the task area (a zeroed
# task_struct: nesting 0, no special unlock pending).
PERCPU_INIT = {"__preempt_count": (4, 0x80000000)}
PERCPU_TASK = "current_task"
TASK_AREA = 1 << 16      # > sizeof(struct task_struct) of these kernels
GLOBAL_SLOT = 1 << 12    # data area per RIP-relative symbol
GS_SLACK = 1 << 12       # past the highest per-CPU offset named
REPLACED = {"cli": "nop", "sti": "nop"}  # faults at CPL 3 -> same length (1 byte)
# The per-pair classes of the replay's rows: count_read's (objdump_loop.py's).
PAIR_CLASSES = ("insns", "locked", "fences", "cli", "sti", "pushf", "popf", "percpu", "calls",
                "rets")

FUNC = re.compile(r"^([0-9a-f]+) <([^>]+)>:$")
INSN = re.compile(r"^\s*([0-9a-f]+):\t([0-9a-f]{2}(?: [0-9a-f]{2})*)\s*(?:\t(.*))?$")
RELOC = re.compile(r"^\s+([0-9a-f]+): (R_X86_64_\w+)\s+(\S+)$")
INLINE_RELOC = re.compile(r"\t([0-9a-f]+): (R_X86_64_\w+)\s+(\S+)\s*$")  # objdump -drw
MAPLINE = re.compile(r"^([0-9a-f]{16}) (\w) (\S+)$")
SYMREF = re.compile(r"^(.+?)(?:([+-])0x([0-9a-f]+))?$")
COMMENT = re.compile(r"\s+#\s*([0-9a-f]+) <([^>]+)>\s*$")
RIPREL = re.compile(r"(-?0x[0-9a-f]+)\(%rip\)")
GSABS = re.compile(r"%gs:(0x[0-9a-f]+|\d+)")
BRANCH = re.compile(r"^(j\w+|call|jmp)q?\s+([0-9a-f]+) <([^>]+)>$")
INDIRECT = re.compile(r"^(call|jmp)q?\s+\*")


class ReplayError(Exception):
    """Bad input: the message says what and where."""


@dataclass
class Reloc:
    offset: int
    kind: str
    symbol: str
    addend: int


@dataclass
class Insn:
    addr: int
    data: bytes
    text: str                      # objdump's text, comment included
    reloc: Optional[Reloc] = None

    @property
    def mnemonic(self) -> str:
        return self.text.split()[0] if self.text else ""

    @property
    def code(self) -> str:
        """The text without objdump's trailing '# address <symbol>' comment."""
        return COMMENT.sub("", self.text).strip()

    @property
    def end(self) -> int:
        return self.addr + len(self.data)


@dataclass
class Function:
    name: str
    origin: str                    # "module" or "vmlinux"
    insns: list[Insn] = field(default_factory=list)

    @property
    def start(self) -> int:
        return self.insns[0].addr

    def at(self, addr: int) -> Optional[Insn]:
        return next((i for i in self.insns if i.addr == addr), None)


@dataclass
class Bundle:
    symbols: dict[str, int]
    functions: dict[str, Function]
    header: list[str]

    def percpu_symbol(self, offset: int) -> Optional[tuple[str, int]]:
        """(symbol, offset into it) of a per-CPU offset: the nearest symbol below."""
        best = max(((a, n) for n, a in self.symbols.items() if a <= offset and a < 1 << 32),
                   default=None)
        return (best[1], offset - best[0]) if best else None


# --- reading a bundle ---------------------------------------------------------

def parse_symref(text: str) -> tuple[str, int]:
    m = SYMREF.match(text)
    if not m:
        raise ReplayError(f"bad relocation target '{text}'")
    sign = -1 if m.group(2) == "-" else 1
    return m.group(1), sign * int(m.group(3), 16) if m.group(3) else 0


def parse_objdump(lines: list[str], origin: str, where: str) -> dict[str, Function]:
    """Functions of objdump -d[r][w] output; continuation lines of long
    instructions (objdump without -w) are joined to their instruction."""
    funcs: dict[str, Function] = {}
    cur: Optional[Function] = None
    for no, line in enumerate(lines, 1):
        if m := FUNC.match(line):
            cur = funcs.setdefault(m.group(2), Function(m.group(2), origin))
            continue
        if cur is None or not line.strip():
            continue
        if m := RELOC.match(line):
            if not cur.insns:
                raise ReplayError(f"{where}:{no}: relocation before any instruction")
            sym, add = parse_symref(m.group(3))
            cur.insns[-1].reloc = Reloc(int(m.group(1), 16), m.group(2), sym, add)
            continue
        if m := INSN.match(line):
            data = bytes.fromhex(m.group(2).replace(" ", ""))
            if m.group(3) is None and cur.insns and cur.insns[-1].end == int(m.group(1), 16):
                cur.insns[-1].data += data
                continue
            text, reloc = m.group(3) or "", None
            if r := INLINE_RELOC.search(text):
                text = text[:r.start()]
                sym, add = parse_symref(r.group(3))
                reloc = Reloc(int(r.group(1), 16), r.group(2), sym, add)
            cur.insns.append(Insn(int(m.group(1), 16), data, text.strip(), reloc))
    return funcs


def parse_bundle(text: str, where: str) -> Bundle:
    parts: dict[str, list[str]] = {}
    header, section = [], None
    for line in text.splitlines():
        if line.startswith("## "):
            section = line[3:].split()[0].rstrip(":")
            if section not in SECTIONS:
                raise ReplayError(f"{where}: unknown section '{section}' (known: {', '.join(SECTIONS)})")
            parts[section] = []
        elif section is None:
            header.append(line)
        else:
            parts[section].append(line)
    missing = [s for s in SECTIONS if s not in parts]
    if missing:
        raise ReplayError(f"{where}: no section {', '.join(missing)}: not a replay bundle")
    symbols = {}
    for line in parts["symbols"]:
        if m := MAPLINE.match(line.strip()):
            symbols[m.group(3)] = int(m.group(1), 16)
    funcs = parse_objdump(parts["module"], "module", where)
    for name, f in parse_objdump(parts["vmlinux"], "vmlinux", where).items():
        if name in funcs:
            raise ReplayError(f"{where}: function {name} both in the module and in vmlinux")
        funcs[name] = f
    return Bundle(symbols, funcs, header)


def load_bundle(path: Path) -> Bundle:
    try:
        text = path.read_text()
    except OSError as e:
        raise ReplayError(f"{path}: {e.strerror}") from None
    bundle = parse_bundle(text, str(path))
    for name in (LOOP, EMPTY):
        if name not in bundle.functions or not bundle.functions[name].insns:
            raise ReplayError(f"{path}: no function {name} in the module section")
    return bundle


# --- the rewrite -------------------------------------------------------------------

@dataclass
class Layout:
    """Where the replay puts what the kernel code addresses."""

    bundle: Bundle
    stubs: list[str] = field(default_factory=list)
    globals_: list[str] = field(default_factory=list)
    percpu: dict[str, int] = field(default_factory=dict)   # symbol -> offset
    max_gs: int = 0
    gs_abs: dict[str, int] = field(default_factory=dict)    # %gs:sym(%rip) targets
    replaced: Counter = field(default_factory=Counter)

    def stub(self, name: str) -> str:
        if name not in self.stubs:
            self.stubs.append(name)
        return f"rb_stub_{self.stubs.index(name)}"

    def global_ref(self, sym: str, off: int) -> str:
        if sym in self.bundle.functions:
            raise ReplayError(f"RIP-relative reference to the code of {sym}: unsupported")
        if not 0 <= off < GLOBAL_SLOT:
            raise ReplayError(f"RIP-relative {sym}{off:+#x}: outside its {GLOBAL_SLOT}-byte slot")
        if sym not in self.globals_:
            self.globals_.append(sym)
        return f"rb_replay_global+{self.globals_.index(sym) * GLOBAL_SLOT + off:#x}"

    def gs_offset(self, sym: str, off: int, where: str) -> int:
        if sym not in self.bundle.symbols:
            raise ReplayError(f"{where}: per-CPU symbol {sym} not in the symbols section")
        base = self.bundle.symbols[sym]
        self.note_gs(base + off, where)
        return base + off

    def note_gs(self, offset: int, where: str) -> None:
        found = self.bundle.percpu_symbol(offset)
        if found is None:
            raise ReplayError(f"{where}: %gs:{offset:#x} names no per-CPU symbol of the symbols section")
        self.percpu[found[0]] = self.bundle.symbols[found[0]]
        self.max_gs = max(self.max_gs, offset)


def label(f: Function, addr: int) -> str:
    return f".Lk_{asm_name(f.name)}_{addr:x}"


def asm_name(name: str) -> str:
    return re.sub(r"\W", "_", name)


def func_symbol(name: str) -> str:
    return f"rb_k_{asm_name(name)}"


def reloc_target(insn: Insn) -> tuple[str, int]:
    """Symbol and offset a PC-relative relocation's field resolves to."""
    r = insn.reloc
    assert r is not None
    if r.kind in ("R_X86_64_PC32", "R_X86_64_PLT32"):
        return r.symbol, r.addend + (insn.end - r.offset)
    return r.symbol, r.addend


def branch_target(layout: Layout, f: Function, insn: Insn, where: str) -> str:
    """The assembly target of a direct call or jump."""
    m = BRANCH.match(insn.code)
    assert m is not None
    if insn.reloc is not None:                           # module: the linker's target
        sym, off = reloc_target(insn)
        if off == 0 and sym in layout.bundle.functions:
            return func_symbol(sym)
        return layout.stub(sym if off == 0 else f"{sym}{off:+#x}")
    addr, name = int(m.group(2), 16), m.group(3)
    if f.at(addr) is not None:
        return label(f, addr)
    if f.insns[0].addr <= addr < f.insns[-1].end:
        raise ReplayError(f"{where}: branch into the middle of an instruction ({addr:#x})")
    callee, _, off = name.partition("+")
    if not off and callee in layout.bundle.functions and \
            layout.bundle.functions[callee].origin == f.origin:
        return func_symbol(callee)
    return layout.stub(name)


def branch_size(mnemonic: str, insn: Insn) -> str:
    """gas's pseudo-prefix that keeps a jump's displacement size, so that
    every replayed instruction has the kernel's length (and the code its
    layout): 2 bytes disp8, longer disp32."""
    if mnemonic == "call":
        return ""
    return "{disp8} " if len(insn.data) == 2 else "{disp32} "


def gs_riprel_offset(bundle: Bundle, insn: Insn, where: str) -> int:
    """The per-CPU offset of a %gs:disp(%rip) operand (this_cpu_read() of 6.1):
    the address objdump's comment gives, or the module's relocation."""
    if insn.reloc is not None:
        sym, off = reloc_target(insn)
        if sym not in bundle.symbols:
            raise ReplayError(f"{where}: per-CPU symbol {sym} not in the symbols section")
        return bundle.symbols[sym] + off
    if m := COMMENT.search(insn.text):
        return int(m.group(1), 16)
    raise ReplayError(f"{where}: %gs RIP-relative operand without its address")


def gs_riprel(layout: Layout, insn: Insn, code: str, where: str) -> str:
    """%gs:disp(%rip) addresses GS base + RIP + disp: the same form against an
    absolute symbol at the per-CPU offset (the linker makes RIP + disp that
    offset) keeps the instruction's length."""
    offset = gs_riprel_offset(layout.bundle, insn, where)
    layout.note_gs(offset, where)
    layout.gs_abs[f"rb_pcpu_{offset:x}"] = offset
    return RIPREL.sub(f"rb_pcpu_{offset:x}(%rip)", code)


def rewrite(layout: Layout, f: Function, insn: Insn) -> Optional[str]:
    """The instruction as assembly text, or None when its bytes can stay."""
    where = f"{f.name}+{insn.addr - f.start:#x} '{insn.text}'"
    code = insn.code
    if insn.mnemonic in REPLACED:
        if len(insn.data) != 1:
            raise ReplayError(f"{where}: a {len(insn.data)}-byte {insn.mnemonic}")
        layout.replaced[insn.mnemonic] += 1
        return REPLACED[insn.mnemonic]
    if INDIRECT.match(code):
        raise ReplayError(f"{where}: indirect branch: unsupported")
    if m := BRANCH.match(code):
        return f"{branch_size(m.group(1), insn)}{m.group(1)} {branch_target(layout, f, insn, where)}"
    if "%gs:" in code and "%rip" in code:
        return gs_riprel(layout, insn, code, where)
    if "%rip" in code:
        if insn.reloc is not None:
            sym, off = reloc_target(insn)
        elif m := COMMENT.search(insn.text):
            sym, off = parse_symref(m.group(2))
        else:
            raise ReplayError(f"{where}: RIP-relative operand without a symbol")
        return RIPREL.sub(layout.global_ref(sym, off) + "(%rip)", code)
    if "%gs:" in code:
        if insn.reloc is not None:                         # module: %gs:0x0 + relocation
            offset = layout.gs_offset(insn.reloc.symbol, insn.reloc.addend, where)
            return GSABS.sub(f"%gs:{offset:#x}", code, count=1)
        layout.note_gs(int(GSABS.search(code).group(1), 0), where)
        return None
    if insn.reloc is not None:
        raise ReplayError(f"{where}: relocation {insn.reloc.kind} {insn.reloc.symbol}: unsupported")
    if re.search(r"(^|[\s,])-?0xffffffff[0-9a-f]{8}\(", code):
        raise ReplayError(f"{where}: absolute kernel address in an operand: unsupported")
    return None


def replayed_functions(bundle: Bundle) -> list[Function]:
    """The loops, then every other function of the bundle (the callees)."""
    rest = [f for n, f in bundle.functions.items() if n not in (LOOP, EMPTY)]
    return [bundle.functions[LOOP], bundle.functions[EMPTY]] + rest


def emit_function(layout: Layout, f: Function, index: dict[str, int], out: list[str]) -> None:
    # The kernel's offset within a 64-byte line: fetch and the loop buffer see
    # the same layout.
    out += ["", "\t.p2align 6", f"\t.skip {f.start % 64}",
            f"\t.type {func_symbol(f.name)},@function",
            f"{func_symbol(f.name)}:\t\t\t\t# {f.origin} {f.name} at {f.start:#x}"]
    for insn in f.insns:
        index[f"{f.name}+{insn.addr - f.start:#x}"] = len(index)
        text = rewrite(layout, f, insn)
        was = insn.text
        if insn.reloc:
            was += f"  [{insn.reloc.kind} {insn.reloc.symbol}{insn.reloc.addend:+#x}]"
        out.append(f"{label(f, insn.addr)}:")
        if text is None:
            out.append(f"\t.byte {', '.join(f'{b:#04x}' for b in insn.data)}\t# {was}")
        else:
            out.append(f"\t{text}\t\t# was: {was}")
    out.append(f"\t.size {func_symbol(f.name)},.-{func_symbol(f.name)}")


def generate(bundle: Bundle) -> tuple[str, Layout, list[str]]:
    """The assembly file, the layout, and the replayed instructions' names
    (function+offset) in the order of the harness's instruction map."""
    layout = Layout(bundle)
    index: dict[str, int] = {}
    body: list[str] = []
    for f in replayed_functions(bundle):
        emit_function(layout, f, index, body)
    if PERCPU_TASK not in bundle.symbols:
        raise ReplayError(f"no {PERCPU_TASK} in the symbols section: the task area has no pointer")
    layout.percpu.setdefault(PERCPU_TASK, bundle.symbols[PERCPU_TASK])
    layout.max_gs = max(layout.max_gs, bundle.symbols[PERCPU_TASK] + 8)
    names = list(index)
    out = ["# Generated by workloads/replay/replay.py: do not edit.",
           *(f"# {h.lstrip('# ')}" for h in bundle.header if h.strip()),
           "\t.text", "\t.globl rb_replay_text_start", "rb_replay_text_start:"]
    out += [f"\t.globl {func_symbol(LOOP)}", f"\t.globl {func_symbol(EMPTY)}"]
    out += body + stubs_text(layout) + ["\t.globl rb_replay_text_end", "rb_replay_text_end:"]
    out += ["", "# Per-CPU offsets that %gs:sym(%rip) operands reach (GS base + RIP + disp)."]
    out += [f"\t.set {name}, {off:#x}" for name, off in sorted(layout.gs_abs.items())]
    out += data_text(layout, bundle, names)
    return "\n".join(out) + "\n", layout, names


def stubs_text(layout: Layout) -> list[str]:
    """Stubs: count the call (the harness refuses a replay that hits one), return."""
    out = ["", "# Slow paths the common case never reaches."]
    for i, name in enumerate(layout.stubs):
        out += ["\t.p2align 4", f"rb_stub_{i}:\t\t\t\t# {name}",
                f"\tincq rb_replay_stub_hits+{8 * i}(%rip)", "\tret"]
    return out


def data_text(layout: Layout, bundle: Bundle, names: list[str]) -> list[str]:
    gs_size = (layout.max_gs + GS_SLACK + 4095) & ~4095
    out = ["", "\t.data", "\t.p2align 3", "\t.globl rb_replay_inits",
           "# Initial values: area (0 gs, 1 task, 2 global), offset, size, value;"
           " size 0 = the address of the task area.", "rb_replay_inits:"]
    for sym, off in sorted(layout.percpu.items(), key=lambda kv: kv[1]):
        if sym == PERCPU_TASK:
            out.append(f"\t.quad 0, {off:#x}, 0, 0\t\t# {sym} -> the task area")
        elif sym in PERCPU_INIT:
            size, value = PERCPU_INIT[sym]
            out.append(f"\t.quad 0, {off:#x}, {size}, {value:#x}\t# {sym}")
    out += ["\t.quad -1, 0, 0, 0"]
    out += ["", "\t.globl rb_replay_nstubs", f"rb_replay_nstubs:\t.quad {len(layout.stubs)}",
            "\t.globl rb_replay_stub_names", "rb_replay_stub_names:"]
    out += [f"\t.quad .Lstub_name_{i}" for i in range(len(layout.stubs))] + ["\t.quad 0"]
    out += [f".Lstub_name_{i}:\t.asciz \"{n}\"" for i, n in enumerate(layout.stubs)]
    out += ["", "\t.p2align 3", "\t.globl rb_replay_insn_map",
            "# Address of each replayed instruction, in the order of its name list.",
            "rb_replay_insn_map:"]
    out += [f"\t.quad {label(f, i.addr)}" for f in replayed_functions(bundle) for i in f.insns]
    out += ["\t.globl rb_replay_ninsns", f"rb_replay_ninsns:\t.quad {len(names)}"]
    out += ["", "\t.bss", "\t.p2align 12",
            "\t.globl rb_replay_gs_area", f"rb_replay_gs_area:\t.zero {gs_size:#x}",
            "\t.p2align 12",
            "\t.globl rb_replay_task", f"rb_replay_task:\t.zero {TASK_AREA:#x}",
            "\t.globl rb_replay_global",
            f"rb_replay_global:\t.zero {max(len(layout.globals_), 1) * GLOBAL_SLOT:#x}",
            "\t.globl rb_replay_stub_hits",
            f"rb_replay_stub_hits:\t.zero {8 * max(len(layout.stubs), 1)}",
            "", "\t.section .rodata", "\t.globl rb_replay_gs_size",
            f"rb_replay_gs_size:\t.quad {gs_size:#x}",
            "\t.globl rb_replay_global_names", "rb_replay_global_names:\t.asciz \""
            + " ".join(layout.globals_) + "\"",
            "\t.section .note.GNU-stack,\"\",@progbits"]
    return out


# --- counting what the replay executes ----------------------------------------

def static_classes(texts: list[str]) -> dict[str, int]:
    return objdump_loop.classes(texts)


def iteration(trace_n1: list[int], trace_n2: list[int]) -> Counter:
    """What one more iteration executes: trace(2 iterations) - trace(1)."""
    extra = Counter(trace_n2) - Counter(trace_n1)
    if sum(extra.values()) != len(trace_n2) - len(trace_n1):
        raise ReplayError("the loop's second iteration is not a superset of the first")
    return extra


def class_counts(per_iter: Counter, texts: list[str]) -> dict[str, int]:
    """The classes of objdump_loop.py over one iteration's instructions,
    with cli/sti counted from the original text (the replay runs nops)."""
    body = [texts[i] for i, n in per_iter.items() for _ in range(n)]
    return static_classes(body)


def pair_counts(read: dict[str, int], empty: dict[str, int]) -> dict[str, int]:
    """Read-loop iteration minus empty-loop iteration: count_read's definition."""
    return {k: read[k] - empty.get(k, 0) for k in read}


# --- building and running the harness -----------------------------------------

def build(asm: str, workdir: Path) -> Path:
    workdir.mkdir(parents=True, exist_ok=True)
    (workdir / "replay.S").write_text(asm)
    res = subprocess.run(["make", "-s", "-C", str(HERE), f"OUT={workdir}",
                          f"REPLAY_S={workdir / 'replay.S'}"], capture_output=True, text=True)
    if res.returncode != 0:
        raise ReplayError(f"the harness does not build:\n{res.stdout}{res.stderr}")
    return workdir / "replay-harness"


def harness(binary: Path, *args: str) -> list[str]:
    res = subprocess.run([str(binary), *args], capture_output=True, text=True)
    if res.returncode != 0:
        err = res.stderr.strip().replace("rcu-bench: error: replay-harness: ", "")
        raise ReplayError(f"{binary.name} {' '.join(args)}: {err or res.returncode}")
    return res.stdout.splitlines()


def trace(binary: Path, loop: str, iterations: int) -> list[int]:
    return [int(x) for x in harness(binary, "trace", loop, str(iterations))]


def counts(binary: Path, names: list[str], texts: list[str]) -> dict[str, dict[str, int]]:
    """Per-iteration classes of each loop and of the pair (single-stepped)."""
    out = {}
    for loop in ("read", "empty"):
        per = iteration(trace(binary, loop, 1), trace(binary, loop, 2))
        out[loop] = class_counts(per, texts)
        out[loop + "_names"] = [names[i] for i in sorted(per.elements())]  # type: ignore[assignment]
    out["pair"] = pair_counts(out["read"], out["empty"])
    return out


def layout_differences(binary: Path, bundle: Bundle) -> list[str]:
    """Instructions whose offset in their function differs from the kernel's
    (the rewrite changed a length): none, or the replay's layout is not the
    kernel's."""
    addrs = [int(x, 16) for x in harness(binary, "map")]
    out, k = [], 0
    for f in replayed_functions(bundle):
        base = addrs[k]
        for i in f.insns:
            if addrs[k] - base != i.addr - f.start:
                out.append(f"{f.name}+{i.addr - f.start:#x} at +{addrs[k] - base:#x}")
            k += 1
    return out


def time_rows(binary: Path, runs: int, target_ms: float) -> list[str]:
    return harness(binary, "time", str(runs), str(target_ms))


def insn_texts(bundle: Bundle) -> list[str]:
    return [i.code for f in replayed_functions(bundle) for i in f.insns]


def rows(kernel: str, pair: dict[str, int], replaced: Counter, timed: list[str]) -> list[str]:
    """Guest-format rows of test replay (analysis/SCHEMA.md)."""
    p = f"kernel={kernel}"
    unit = {"cycles_per_pair": "cycles"}
    out = [f"replay,{p},{m},{v},{unit.get(m, 'ns')},native-replay"
           for m, v in (line.split() for line in timed)]
    for metric in PAIR_CLASSES:
        out.append(f"replay,{p},{metric},{pair[metric]},count,native-replay")
    return out


# --- extracting a bundle from a built kernel ------------------------------------

def objdump(*args: str) -> list[str]:
    res = subprocess.run(["objdump", *args], capture_output=True, text=True)
    if res.returncode != 0:
        raise ReplayError(f"objdump {' '.join(args)}: {res.stderr.strip()}")
    return res.stdout.splitlines()


def read_system_map(path: Path) -> list[tuple[int, str, str]]:
    try:
        lines = path.read_text().splitlines()
    except OSError as e:
        raise ReplayError(f"{path}: {e.strerror}") from None
    return [(int(m.group(1), 16), m.group(2), m.group(3)) for line in lines
            if (m := MAPLINE.match(line))]


def function_block(lines: list[str], name: str) -> list[str]:
    out, on = [], False
    for line in lines:
        if m := FUNC.match(line):
            on = m.group(2) == name
        if on:
            out.append(line)
        if on and not line.strip() and len(out) > 1:
            break
    return [line for line in out if line.strip()]


def vmlinux_function(vmlinux: Path, smap: list[tuple[int, str, str]], name: str) -> list[str]:
    starts = sorted(a for a, t, _ in smap if t in "tT")
    addr = next((a for a, t, n in smap if n == name and t in "tT"), None)
    if addr is None:
        raise ReplayError(f"no function {name} in System.map")
    stop = next((a for a in starts if a > addr), addr + 4096)
    block = function_block(objdump("-dw", f"--start-address={addr:#x}", f"--stop-address={stop:#x}",
                                   str(vmlinux)), name)
    if not block:
        raise ReplayError(f"no disassembly of {name} in {vmlinux}")
    return block


def extract(obj: Path, ko: Path, header: str) -> str:
    """A bundle: the loops of ko, the vmlinux functions they call, the symbols."""
    smap = read_system_map(obj / "System.map")
    mod_lines = objdump("-drw", str(ko))
    module = {n: function_block(mod_lines, n) for n in (LOOP, EMPTY)}
    for n, block in module.items():
        if not block:
            raise ReplayError(f"{ko}: no function {n}")
    # Module functions the loops call directly (no relocation: the same
    # section), such as an out-of-line copy of a static inline read-side
    # helper that gcc -Os made: replayed as the module's own.
    todo = list(module)
    while todo:
        f = parse_objdump(module[todo.pop()], "module", str(ko))
        for i in (i for fn in f.values() for i in fn.insns):
            m = BRANCH.match(i.code)
            if m and not i.reloc and "+" not in m.group(3) and m.group(3) not in module:
                block = function_block(mod_lines, m.group(3))
                if block:
                    module[m.group(3)] = block
                    todo.append(m.group(3))
    funcs = parse_objdump(sum(module.values(), []), "module", str(ko))
    text_syms = {n for _, t, n in smap if t in "tT"}
    callees = sorted({i.reloc.symbol for f in funcs.values() for i in f.insns
                      if i.reloc and BRANCH.match(i.code) and i.reloc.symbol in text_syms})
    vml = {n: vmlinux_function(obj / "vmlinux", smap, n) for n in callees}
    vfuncs = parse_objdump(sum(vml.values(), []), "vmlinux", "vmlinux")
    wanted = {PERCPU_TASK} | set(PERCPU_INIT)
    for f in list(funcs.values()) + list(vfuncs.values()):
        for i in f.insns:
            if i.reloc:
                wanted.add(i.reloc.symbol)
            if "%gs:" in i.code and not i.reloc:
                off = (int(COMMENT.search(i.text).group(1), 16) if "%rip" in i.code
                       else int(GSABS.search(i.code).group(1), 0))
                below = max(((a, n) for a, _, n in smap if a <= off), default=None)
                if below:
                    wanted.add(below[1])
    syms = [f"{a:016x} {t} {n}" for a, t, n in smap if n in wanted and a < 1 << 32]
    return "\n".join([header, "## symbols", *syms,
                      f"## module {ko.name}: objdump -drw, {' '.join(module)}",
                      *sum(module.values(), []),
                      f"## vmlinux: objdump -dw, {' '.join(callees) or '(no callee)'}",
                      *sum(vml.values(), [])]) + "\n"


def guest_expectation(results: Path, kernel: str) -> str:
    """The '# expect pair:' line of a bundle: count_read (nest 1, interrupts
    on) of kernel in a results.csv, the rbcount plugin's exact counts."""
    try:
        with results.open(newline="") as fh:
            rows = [r for r in csv.DictReader(fh) if r["test"] == "count_read"
                    and r["kernel"] == kernel and r["status"] == "ok"
                    and "nest=1;irqs=on" in r["params"]]
    except OSError as e:
        raise ReplayError(f"{results}: {e.strerror}") from None
    values: dict[str, set[str]] = {}
    for r in rows:
        values.setdefault(r["metric"], set()).add(r["value"])
    missing = [c for c in PAIR_CLASSES if c not in values]
    if missing:
        raise ReplayError(f"{results}: no count_read {' '.join(missing)} of {kernel}")
    split = [c for c in PAIR_CLASSES if len(values[c]) > 1]
    if split:
        raise ReplayError(f"{results}: count_read of {kernel} differs between rows: {split}")
    commits = sorted({r["commit"] for r in rows})
    return (f"# expect pair: {' '.join(f'{c}={values[c].pop()}' for c in PAIR_CLASSES)}\n"
            f"# (count_read, nest 1, interrupts on, of {kernel} in {results}, suite commit "
            f"{' '.join(commits)}: the rbcount plugin's counts in the guest)")


# --- command line ----------------------------------------------------------------

def cmd_extract(a: argparse.Namespace) -> int:
    header = "\n".join([f"# rcu-bench replay bundle: kernel {a.kernel}, {a.obj}, {a.ko}"]
                       + [f"# {n}" for n in a.note])
    if a.expect_from:
        header += "\n" + guest_expectation(Path(a.expect_from), a.kernel)
    text = extract(Path(a.obj), Path(a.ko), header)
    Path(a.output).write_text(text) if a.output else sys.stdout.write(text)
    return 0


def generate_file(path: Path) -> tuple[Bundle, str, Layout, list[str]]:
    """load_bundle + generate, errors naming the bundle."""
    bundle = load_bundle(path)
    try:
        asm, layout, names = generate(bundle)
    except ReplayError as e:
        raise ReplayError(f"{path}: {e}") from None
    return bundle, asm, layout, names


def cmd_generate(a: argparse.Namespace) -> int:
    _, asm, layout, _ = generate_file(Path(a.bundle))
    Path(a.output).write_text(asm) if a.output else sys.stdout.write(asm)
    print(f"replay: {len(layout.stubs)} stubs, cli {layout.replaced['cli']} and sti "
          f"{layout.replaced['sti']} replaced by nops", file=sys.stderr)
    return 0


def counted(a: argparse.Namespace, tmp: Path) -> tuple[Bundle, Layout, Path, dict]:
    bundle, asm, layout, names = generate_file(Path(a.bundle))
    binary = build(asm, Path(a.workdir) if a.workdir else tmp)
    moved = layout_differences(binary, bundle)
    if moved:
        raise ReplayError(f"{a.bundle}: the replay's code is not laid out as the kernel's: "
                          f"{', '.join(moved[:4])}")
    return bundle, layout, binary, counts(binary, names, insn_texts(bundle))


def cmd_count(a: argparse.Namespace) -> int:
    with tempfile.TemporaryDirectory() as tmp:
        _, layout, _, c = counted(a, Path(tmp))
    for key in ("read", "empty", "pair"):
        print(f"{key}: " + " ".join(f"{k}={v}" for k, v in c[key].items()))
    print(f"replaced: cli={layout.replaced['cli']} sti={layout.replaced['sti']} "
          f"(in the replayed code, executed or not)")
    if a.names:
        for loop in ("read", "empty"):
            print(f"{loop} iteration: " + " ".join(c[loop + "_names"]))
    return 0


def cmd_run(a: argparse.Namespace) -> int:
    with tempfile.TemporaryDirectory() as tmp:
        _, layout, binary, c = counted(a, Path(tmp))
        timed = time_rows(binary, a.runs, a.target_ms)
    print("\n".join(rows(a.kernel, c["pair"], layout.replaced, timed)))
    return 0


def main(argv: Optional[list[str]] = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    e = sub.add_parser("extract", help="write a bundle from a built kernel and its rcubench.ko")
    e.add_argument("--kernel", required=True)
    e.add_argument("--obj", required=True, help="the kernel's object dir (vmlinux, System.map)")
    e.add_argument("--ko", required=True, help="rcubench.ko built against it")
    e.add_argument("--expect-from", metavar="RESULTS_CSV",
                   help="add the guest's count_read of the kernel as the '# expect pair:' line")
    e.add_argument("--note", action="append", default=[],
                   help="a line of provenance for the header (repeatable)")
    e.add_argument("-o", "--output")
    g = sub.add_parser("generate", help="the replay's assembly file of a bundle")
    g.add_argument("bundle")
    g.add_argument("-o", "--output")
    for name, helptext in (("count", "per-pair instruction classes, single-stepped"),
                           ("run", "count and time: the rows of test replay")):
        p = sub.add_parser(name, help=helptext)
        p.add_argument("bundle")
        p.add_argument("--workdir", help="build here (default: a temporary dir)")
        if name == "count":
            p.add_argument("--names", action="store_true", help="list each iteration's instructions")
        else:
            p.add_argument("--kernel", required=True)
            # Many short runs: on a shared host a preemption spoils a few
            # runs, not the median.
            p.add_argument("--runs", type=int, default=201)
            p.add_argument("--target-ms", type=float, default=1.0)
    a = ap.parse_args(argv)
    try:
        return {"extract": cmd_extract, "generate": cmd_generate, "count": cmd_count,
                "run": cmd_run}[a.cmd](a)
    except ReplayError as e:
        print(f"rcu-bench: error: {e}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
