#!/usr/bin/python3
# tier: host
"""No script in the repository may load, unload or kexec kernel code on
the host.  Those commands may appear only where they run inside a guest:
files under workloads/guest/ (copied into the initramfs) and here-documents
named JOB that a script writes out as a guest job.  Comments and
documentation do not count."""
import re
import subprocess
import sys
from pathlib import Path

TOP = Path(__file__).resolve().parent.parent
FORBIDDEN = re.compile(r"(^|[;&|(`$\s])(sudo\s+)?(insmod|modprobe|rmmod|kexec)(\s|$)")
HEREDOC_START = re.compile(r"<<-?\s*['\"]?JOB['\"]?")
GUEST_DIRS = ("workloads/guest/",)
SCRIPT_SUFFIXES = {".sh", ".py", ".mk", ""}


def is_script(path: Path) -> bool:
    if path.name == "Makefile" or path.suffix in {".sh", ".py", ".mk"}:
        return True
    if path.suffix in SCRIPT_SUFFIXES and path.is_file():
        with path.open("rb") as f:
            return f.read(2) == b"#!"
    return False


def host_lines(path: Path) -> list[tuple[int, str]]:
    """Lines of PATH that run on the host and call a forbidden command."""
    hits = []
    in_job = False
    for no, line in enumerate(path.read_text(errors="replace").splitlines(), 1):
        if in_job:
            in_job = line.strip() != "JOB"
            continue
        if HEREDOC_START.search(line):
            in_job = True
        code = line.split("#", 1)[0]
        if FORBIDDEN.search(code):
            hits.append((no, line.strip()))
    return hits


def tracked_files() -> list[str]:
    out = subprocess.run(["git", "-C", str(TOP), "ls-files", "-co", "--exclude-standard"],
                         capture_output=True, text=True, check=True)
    return out.stdout.split()


def main() -> int:
    bad = []
    checked = 0
    for name in tracked_files():
        path = TOP / name
        if (name.startswith(GUEST_DIRS) or path == Path(__file__).resolve()
                or not path.is_file() or not is_script(path)):
            continue
        checked += 1
        bad += [f"{name}:{no}: {line}" for no, line in host_lines(path)]
    # The check must itself be able to fail: a planted host call is caught.
    probe = TOP / "tests" / ".probe-host-insmod.sh"
    probe.write_text("#!/bin/sh\ninsmod /lib/modules/x.ko\n")
    try:
        if not host_lines(probe):
            print("FAIL: the checker missed a planted host insmod")
            return 1
    finally:
        probe.unlink()
    for b in bad:
        print("host module/kexec call:", b)
    print(f"{checked} scripts checked, {len(bad)} host calls")
    return 1 if bad or checked == 0 else 0


if __name__ == "__main__":
    sys.exit(main())
