#!/usr/bin/python3
"""The boots of a sweep (workloads/bench.sh): their seeded order (seed,
order) and their record, csv/boots.csv (annotate, record).  The files and
their formats are resultdir.py's.

Boots run in an order shuffled by a seed kept in metadata.json, so that
slow drift of the host (other load, thermal state) does not line up with
one kernel, and a sweep can be replayed or resumed in the same order.
"""

import argparse
import random
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from resultdir import (run_command, read_boot_rows, save_metadata,  # noqa: E402
                       sweep_metadata, write_boot_rows)

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
    meta = sweep_metadata(sweep)
    meta["seed"] = parse_seed(args.seed)
    meta["host_cpus"] = int(args.host_cpus)
    meta["boots_columns"] = args.columns.split()
    save_metadata(sweep, meta)
    write_boot_rows(sweep, meta["boots_columns"], [])
    return 0


def cmd_record(args: argparse.Namespace) -> int:
    """Record one boot (K=V fields); a redone boot replaces its old row."""
    sweep = Path(args.dir)
    columns = sweep_metadata(sweep)["boots_columns"]
    row = dict(kv.split("=", 1) for kv in args.field)
    unknown = set(row) - set(columns)
    if unknown:
        raise SystemExit(f"rcu-bench: error: boots.csv has no column {sorted(unknown)}")
    key = (row["kernel"], row["vcpus"], row["repeat"])
    rows = [r for r in read_boot_rows(sweep, columns)
            if (r["kernel"], r["vcpus"], r["repeat"]) != key]
    write_boot_rows(sweep, columns, rows + [{c: row.get(c, "") for c in columns}])
    return 0


def parse_args(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="cmd", required=True)
    seed = sub.add_parser("seed", help=cmd_seed.__doc__)
    seed.add_argument("--seed", default="", help="the seed asked for (empty: a random one)")
    seed.set_defaults(func=cmd_seed)
    order = sub.add_parser("order", help=cmd_order.__doc__)
    for f in ("seed", "kernels", "vcpus", "repeats"):
        order.add_argument(f"--{f}", required=True)
    order.set_defaults(func=cmd_order)
    annotate = sub.add_parser("annotate", help=cmd_annotate.__doc__)
    for f in ("dir", "seed", "host-cpus", "columns"):
        annotate.add_argument(f"--{f}", required=True)
    annotate.set_defaults(func=cmd_annotate)
    record = sub.add_parser("record", help=cmd_record.__doc__)
    record.add_argument("--dir", required=True, help="sweep directory reports/<stamp>")
    record.add_argument("field", nargs="+", help="column=value")
    record.set_defaults(func=cmd_record)
    return parser.parse_args(argv)


def main(argv: list[str]) -> int:
    return run_command(parse_args(argv))


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
