#!/usr/bin/python3
"""The boots of a bench sweep (workloads/bench.sh): their seeded random
order, and the boots record csv/boots.csv (columns: suite.conf
BOOTS_COLUMNS, documented in analysis/SCHEMA.md).

Boots run in an order shuffled by a seed kept in metadata.json, so that
slow drift of the host (other load, thermal state) does not line up with
one kernel, and a sweep can be replayed or resumed in the same order.

Subcommands: seed, order, annotate, record (see --help of each).
"""

import argparse
import csv
import io
import random
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_results import atomic_write, load_meta, save_meta  # noqa: E402

SEED_MAX = 2**32 - 1


def parse_seed(text: str) -> int:
    """A seed is a decimal integer 0..2^32-1; anything else is an error."""
    if not text.isdigit() or int(text) > SEED_MAX:
        raise SystemExit(f"rcu-bench: error: --seed must be an integer 0..{SEED_MAX}, got '{text}'")
    return int(text)


def cmd_seed(args: argparse.Namespace) -> int:
    """Print a valid seed: the given one, or a fresh random one."""
    print(parse_seed(args.seed) if args.seed else random.SystemRandom().randint(0, SEED_MAX))
    return 0


def boot_order(seed: int, kernels: list[str], vcpus: list[str], repeats: int) -> list[tuple[str, str, int]]:
    """Every (kernel, vcpus, repeat) of the sweep, shuffled by seed.

    The list is built in a fixed order before shuffling, so the same seed
    and parameters always give the same order (Python's Random is stable
    across versions for shuffle with an integer seed)."""
    boots = [(k, v, r) for r in range(1, repeats + 1) for k in kernels for v in vcpus]
    random.Random(seed).shuffle(boots)
    return boots


def cmd_order(args: argparse.Namespace) -> int:
    """Print "position kernel vcpus repeat" lines in the seeded order."""
    boots = boot_order(parse_seed(args.seed), args.kernels.split(), args.vcpus.split(),
                       int(args.repeats))
    for n, (k, v, r) in enumerate(boots, 1):
        print(n, k, v, r)
    return 0


def cmd_annotate(args: argparse.Namespace) -> int:
    """Add the seed and the host CPU count to a new sweep's metadata.json."""
    sweep = Path(args.dir)
    meta = load_meta(sweep)
    meta["seed"] = parse_seed(args.seed)
    meta["host_cpus"] = int(args.host_cpus)
    meta["boots_columns"] = args.columns.split()
    save_meta(sweep, meta)
    write_boots(sweep, meta["boots_columns"], [])
    return 0


def boots_path(sweep: Path) -> Path:
    return sweep / "csv" / "boots.csv"


def read_boots(sweep: Path) -> list[dict[str, str]]:
    path = boots_path(sweep)
    if not path.exists():
        return []
    with open(path, newline="", encoding="utf-8") as f:
        return list(csv.DictReader(f))


def write_boots(sweep: Path, columns: list[str], rows: list[dict[str, str]]) -> None:
    out = io.StringIO()
    writer = csv.DictWriter(out, fieldnames=columns, lineterminator="\n")
    writer.writeheader()
    writer.writerows(rows)
    atomic_write(boots_path(sweep), out.getvalue())


def cmd_record(args: argparse.Namespace) -> int:
    """Record one boot (K=V fields); a redone boot replaces its old row."""
    sweep = Path(args.dir)
    columns = load_meta(sweep)["boots_columns"]
    row = dict(kv.split("=", 1) for kv in args.field)
    unknown = set(row) - set(columns)
    if unknown:
        raise SystemExit(f"rcu-bench: error: boots.csv has no column {sorted(unknown)}")
    key = (row["kernel"], row["vcpus"], row["repeat"])
    rows = [r for r in read_boots(sweep) if (r["kernel"], r["vcpus"], r["repeat"]) != key]
    write_boots(sweep, columns, rows + [{c: row.get(c, "") for c in columns}])
    return 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="cmd", required=True)
    p = sub.add_parser("seed", help=cmd_seed.__doc__)
    p.add_argument("--seed", default="", help="the seed asked for (empty: a random one)")
    p.set_defaults(func=cmd_seed)
    p = sub.add_parser("order", help=cmd_order.__doc__)
    for f in ("seed", "kernels", "vcpus", "repeats"):
        p.add_argument(f"--{f}", required=True)
    p.set_defaults(func=cmd_order)
    p = sub.add_parser("annotate", help=cmd_annotate.__doc__)
    for f in ("dir", "seed", "host-cpus", "columns"):
        p.add_argument(f"--{f}", required=True)
    p.set_defaults(func=cmd_annotate)
    p = sub.add_parser("record", help=cmd_record.__doc__)
    p.add_argument("--dir", required=True)
    p.add_argument("field", nargs="+", help="column=value")
    p.set_defaults(func=cmd_record)
    args = parser.parse_args()
    return args.func(args)


if __name__ == "__main__":
    sys.exit(main())
