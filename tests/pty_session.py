#!/usr/bin/python3
"""Drive an interactive program on a pseudo-terminal, expect-style (tests).

    tests/pty_session.py [--timeout S] [--exit-within S] [--transcript F] STEP... -- CMD...

Each STEP is "expect:REGEX" (wait up to --timeout seconds for REGEX in what
the program printed since the previous match) or "send:TEXT" (type TEXT;
\\n is a newline).  After the last step the program must exit within
--exit-within seconds.  Prints the transcript to stderr on failure; exit
status 0 when every step matched and the program exited with status 0,
else 1 with the reason on stdout's last line.
"""

import argparse
import os
import pty
import re
import select
import subprocess
import sys
import time


class Session:
    def __init__(self, cmd: list[str]) -> None:
        self.master, slave = pty.openpty()
        self.proc = subprocess.Popen(cmd, stdin=slave, stdout=slave, stderr=slave,
                                     start_new_session=True)
        os.close(slave)
        self.seen = b""   # everything printed
        self.pos = 0      # where the next expect starts

    def read(self, timeout: float) -> bool:
        """Read what is there within timeout; False at end of output."""
        ready, _, _ = select.select([self.master], [], [], timeout)
        if not ready:
            return True
        try:
            data = os.read(self.master, 65536)
        except OSError:
            return False
        self.seen += data
        return bool(data)

    def expect(self, pattern: str, timeout: float) -> bool:
        rx = re.compile(pattern.encode())
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            m = rx.search(self.seen, self.pos)
            if m:
                self.pos = m.end()
                return True
            if not self.read(min(0.5, max(0.0, end - time.monotonic()))):
                break
        m = rx.search(self.seen, self.pos)
        if m:
            self.pos = m.end()
        return bool(m)

    def send(self, text: str) -> None:
        os.write(self.master, text.encode())

    def wait(self, timeout: float) -> int | None:
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            self.read(0.2)
            if self.proc.poll() is not None:
                return self.proc.returncode
        return None


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--timeout", type=float, default=120.0)
    ap.add_argument("--exit-within", type=float, default=60.0)
    ap.add_argument("--transcript", help="write everything the program printed to this file")
    ap.add_argument("steps", nargs="+", help="expect:REGEX | send:TEXT ... -- CMD...")
    args, _ = ap.parse_known_args()
    argv = sys.argv[1:]
    if "--" not in argv:
        ap.error("no command after --")
    cmd = argv[argv.index("--") + 1:]
    steps = [a for a in argv[:argv.index("--")] if a.startswith(("expect:", "send:"))]
    s = Session(cmd)
    why = ""
    for step in steps:
        kind, text = step.split(":", 1)
        if kind == "send":
            s.send(text.replace("\\n", "\n"))
        elif not s.expect(text, args.timeout):
            why = f"no '{text}' within {args.timeout:g} s"
            break
    rc = None
    if not why:
        start = time.monotonic()
        rc = s.wait(args.exit_within)
        if rc is None:
            why = f"still running {args.exit_within:g} s after the last step"
        elif rc != 0:
            why = f"exit status {rc}"
        else:
            print(f"exited with status 0 {time.monotonic() - start:.1f} s after the last step")
    if s.proc.poll() is None:
        os.killpg(s.proc.pid, 9)
        s.proc.wait()
    if args.transcript:
        with open(args.transcript, "wb") as f:
            f.write(s.seen)
    if why:
        sys.stderr.write(s.seen.decode(errors="replace")[-4000:] + "\n")
        print(f"pty session failed: {why}")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
