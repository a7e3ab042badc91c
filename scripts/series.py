#!/usr/bin/python3
"""The kernel patch series (patches/series) and its key: the one place that
computes the key, for the shell (scripts/lib.sh series_key, which
workloads/build-kernels.sh keys the patched tree and, with the config
fragments, each kernel's obj/<kernel> by) and for Python (analysis/sweep.py
records it in metadata.json, analysis/report.py compares it with the tree's).

The series file names the patches in order ('#' starts a comment line;
whitespace separates names).  The key is the first 16 hex digits of the
sha256 of the series file followed by one `sha256sum` line per patch
("<sha256>  <file>"): the value build-kernels.sh has always used, so that a
tree prepared before this module existed keeps its key.

    scripts/series.py [--patches DIR] key          the key
    scripts/series.py [--patches DIR] json         key and patches, as JSON
    scripts/series.py [--top DIR] at COMMIT        the same of COMMIT's patches/ (git)
"""

import argparse
import hashlib
import json
import subprocess
import sys
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Callable, Optional

TOP = Path(__file__).resolve().parent.parent
PATCHES = TOP / "patches"
KEY_DIGITS = 16

# A file of the patches directory by name -> its bytes (None: no such file).
Reader = Callable[[str], Optional[bytes]]


class SeriesError(Exception):
    """The series names a patch that is not there, or git cannot read it."""


@dataclass(frozen=True)
class Patch:
    file: str
    sha256: str


@dataclass(frozen=True)
class Series:
    key: str
    patches: tuple[Patch, ...]

    def as_json(self) -> dict:
        return {"key": self.key, "patches": [asdict(p) for p in self.patches]}


def patch_names(series_text: bytes) -> list[str]:
    """The patch files a series file names, in order (what the shell's
    $(grep -v '^#' series) word-splits into)."""
    return [name for line in series_text.decode().splitlines() if not line.startswith("#")
            for name in line.split()]


def read_series(read: Reader) -> Series:
    """The series and its key from the files read() gives."""
    text = read("series") or b""
    patches = []
    for name in patch_names(text):
        data = read(name)
        if data is None:
            raise SeriesError(f"patches/series names missing patch {name}")
        patches.append(Patch(name, hashlib.sha256(data).hexdigest()))
    listing = "".join(f"{p.sha256}  {p.file}\n" for p in patches).encode()
    return Series(hashlib.sha256(text + listing).hexdigest()[:KEY_DIGITS], tuple(patches))


def checkout_series(patches: Path = PATCHES) -> Series:
    """The series of a patches directory (the checkout's by default)."""
    def read(name: str) -> Optional[bytes]:
        path = patches / name
        return path.read_bytes() if path.is_file() else None
    return read_series(read)


def commit_series(commit: str, top: Path = TOP) -> Series:
    """The series of patches/ as COMMIT of the git repository top has it."""
    def read(name: str) -> Optional[bytes]:
        proc = subprocess.run(["git", "-C", str(top), "show", f"{commit}:patches/{name}"],
                              capture_output=True, check=False)
        return proc.stdout if proc.returncode == 0 else None
    try:
        known = subprocess.run(["git", "-C", str(top), "cat-file", "-e", f"{commit}^{{commit}}"],
                               capture_output=True, check=False).returncode == 0
    except OSError as err:
        raise SeriesError(f"git: {err.strerror}") from err
    if not known:
        raise SeriesError(f"no commit {commit} in {top}")
    return read_series(read)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--patches", type=Path, default=PATCHES, help="the patches directory")
    parser.add_argument("--top", type=Path, default=TOP, help="the git repository (for at)")
    parser.add_argument("what", choices=("key", "json", "at"))
    parser.add_argument("commit", nargs="?", help="for at: a commit")
    args = parser.parse_args()
    try:
        if args.what == "at":
            if not args.commit:
                parser.error("at needs a COMMIT")
            print(json.dumps(commit_series(args.commit, args.top).as_json(), indent=1))
        elif args.what == "json":
            print(json.dumps(checkout_series(args.patches).as_json(), indent=1))
        else:
            print(checkout_series(args.patches).key)
    except SeriesError as err:
        print(f"rcu-bench: error: {err}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
