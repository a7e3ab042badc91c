"""Loading and validation: good input loads, bad input names file and line."""

import hashlib
import json
import shutil
import subprocess
import sys
import tempfile
import unittest
from pathlib import Path

from helpers import ANALYSIS, FIXTURES, GOOD, copy_fixture, rmtree
from test_series import PATCH_FILES, SERIES_TEXT, SHELL_KEY, make_patches
import resultdir
import suiteconf


class GoodInput(unittest.TestCase):
    def test_loads_every_row(self) -> None:
        rd = resultdir.load_result_dir(GOOD)
        with open(GOOD / "csv" / "results.csv") as fh:
            lines = fh.read().splitlines()
        self.assertEqual(len(rd.rows), len(lines) - 1)
        self.assertEqual(len(rd.failed_rows), 1)
        failed = rd.failed_rows[0]
        self.assertEqual((failed.kernel, failed.vcpus, failed.test, failed.repeat),
                         ("tree", 4, "callrcu_capacity", 2))
        self.assertIsNone(failed.value)
        self.assertEqual(failed.reason, "hang after 120s")
        self.assertEqual(lines[failed.line - 1].split(",")[-1], failed.status)

    def test_params_parsed(self) -> None:
        self.assertEqual(resultdir.parse_params("readers=2;nest=1;loops=99"),
                         {"readers": "2", "nest": "1", "loops": "99"})
        self.assertEqual(resultdir.parse_params(""), {})
        with self.assertRaises(ValueError):
            resultdir.parse_params("readers")

    def test_columns_from_suite_conf(self) -> None:
        header = (GOOD / "csv" / "results.csv").read_text().splitlines()[0]
        self.assertEqual(header.split(","), suiteconf.csv_columns())


class BadInput(unittest.TestCase):
    def assert_refused(self, name: str, line: int, text: str) -> None:
        with self.assertRaises(resultdir.ResultsError) as ctx:
            resultdir.load_result_dir(FIXTURES / name)
        msg = str(ctx.exception)
        self.assertIn(f"{FIXTURES / name / 'csv' / 'results.csv'}:{line}:", msg)
        self.assertIn(text, msg)
        self.assertNotIn("\n", msg)

    def test_wrong_header(self) -> None:
        self.assert_refused("bad-header", 1, "wrong header")

    def test_wrong_column_count(self) -> None:
        self.assert_refused("bad-columns", 5, "expected 13 columns, got 12")

    def test_non_numeric_value(self) -> None:
        self.assert_refused("bad-value", 4, "not a number: 'fast'")

    def test_truncated_last_line(self) -> None:
        self.assert_refused("truncated", 6, "truncated last line")

    def test_old_schema(self) -> None:
        want = suiteconf.schema_version()
        with self.assertRaises(resultdir.ResultsError) as ctx:
            resultdir.load_result_dir(FIXTURES / "old-schema")
        self.assertIn(f"result directory from schema v{want - 1}, this suite reads v{want}",
                      str(ctx.exception))

    def test_unknown_kernel(self) -> None:
        self.assert_refused("unknown-kernel", 4, "unknown kernel 'rt-preempt'")

    def test_missing_dir(self) -> None:
        with self.assertRaises(resultdir.ResultsError):
            resultdir.load_result_dir(FIXTURES / "nonexistent")

    def test_empty_dir_and_header_only(self) -> None:
        d = Path(tempfile.mkdtemp(prefix="rb-empty-"))
        try:
            with self.assertRaisesRegex(resultdir.ResultsError, "no csv/results.csv"):
                resultdir.load_result_dir(d)
            (d / "csv").mkdir()
            (d / "csv" / "results.csv").write_text(",".join(suiteconf.csv_columns()) + "\n")
            with self.assertRaisesRegex(resultdir.ResultsError, "no rows"):
                resultdir.load_result_dir(d)
        finally:
            shutil.rmtree(d)

    def test_boots_record_required(self) -> None:
        """...when guests ran: a host-only directory (liburcu anchor) has none."""
        d = copy_fixture("good")
        try:
            (d / "csv" / "boots.csv").unlink()
            with self.assertRaisesRegex(resultdir.ResultsError, "no csv/boots.csv"):
                resultdir.load_result_dir(d)
            path = d / "csv" / "results.csv"
            lines = path.read_text().splitlines(keepends=True)
            path.write_text("".join(lines[:1] + [x for x in lines if ",native,host," in x]))
            self.assertEqual({r.test for r in resultdir.load_result_dir(d).rows}, {"urcu"})
        finally:
            rmtree(d)


class SweepCommands(unittest.TestCase):
    """The subcommands workloads/bench.sh calls (sweep.py, boots.py) write what
    load_result_dir reads."""

    def setUp(self) -> None:
        self.tmp = Path(tempfile.mkdtemp(prefix="rb-sweep-"))
        self.sweep = self.tmp / "sweep"

    def tearDown(self) -> None:
        shutil.rmtree(self.tmp)

    def run_cmd(self, command: str, *args: str, script: str = "sweep.py") -> subprocess.CompletedProcess:
        return subprocess.run([sys.executable, str(ANALYSIS / script), command,
                               "--dir", str(self.sweep), *args],
                              capture_output=True, text=True, timeout=60)

    def boot_dir(self, rows: list[str]) -> Path:
        cell = self.tmp / "cell"
        (cell / "results").mkdir(parents=True, exist_ok=True)
        (cell / "status").write_text("ok\n")
        (cell / "results" / "cells.txt").write_text("read ok\nrefscale ok\n")
        (cell / "results" / "bench.csv").write_text("\n".join(rows) + "\n")
        return cell

    def test_init_merge_pending_finish(self) -> None:
        want = str(suiteconf.schema_version())
        proc = self.run_cmd("init", "--commit", "c0ffee", "--accel", "tcg", "--qemu", "q",
                            "--cache", str(self.tmp), "--kernels", "tree", "--vcpus", "1",
                            "--repeats", "1", "--tests", "read refscale", "--profile", "quick",
                            "--schema-version", want,
                            "--columns", " ".join(suiteconf.csv_columns()))
        self.assertEqual(proc.returncode, 0, proc.stderr)
        self.assertEqual(self.run_cmd("get", "kernels").stdout.strip(), "tree")
        common = ["--kernel", "tree", "--vcpus", "1", "--repeat", "1"]
        self.assertEqual(self.run_cmd("pending", *common, "--tests", "read refscale")
                         .stdout.split(), ["read", "refscale"])
        cell = self.boot_dir(["read,readers=1;nest=1;loops=9,ns_per_pair,10,ns,rcubench",
                              "read,readers=1;nest=1;loops=9,baseline_ns,0.5,ns,rcubench",
                              "refscale,readers=1;nest=1,ns_per_pair,21,ns,refscale"])
        proc = self.run_cmd("merge", *common, "--tests", "read refscale", "--commit", "c0ffee",
                            "--accel", "tcg", "--schema-version", want, "--cell-dir", str(cell))
        self.assertEqual(proc.stdout.split(), ["read:ok", "refscale:ok"], proc.stderr)
        self.assertEqual(self.run_cmd("pending", *common, "--tests", "read refscale")
                         .stdout.strip(), "")
        proc = self.run_cmd("finish")
        self.assertEqual(proc.returncode, 0, proc.stderr)
        agreement = (self.sweep / "csv" / "agreement.csv").read_text().splitlines()
        self.assertEqual(agreement[1], "tree,1,1,10.000,10.500,21.000,0.500")
        rows = resultdir.load_csv(self.sweep / "csv" / "results.csv", suiteconf.csv_columns(),
                                suiteconf.kernels(), int(want))
        self.assertEqual(len(rows), 3)

    def test_boots_record(self) -> None:
        """annotate and record write the boots.csv load_result_dir reads; a
        redone boot replaces its row."""
        self.test_init_merge_pending_finish()
        columns = suiteconf.conf_list("BOOTS_COLUMNS")
        proc = self.run_cmd("annotate", "--seed", "7", "--host-cpus", "2", "--columns",
                            " ".join(columns), script="boots.py")
        self.assertEqual(proc.returncode, 0, proc.stderr)
        fields = {c: "0" for c in columns}
        fields.update(schema_version=str(suiteconf.schema_version()), kernel="tree", vcpus="1",
                      repeat="1", host_cpus="2", status="ok")
        for flagged in ("1", "0"):
            fields["flagged"] = flagged
            proc = self.run_cmd("record", *(f"{k}={v}" for k, v in fields.items()),
                                script="boots.py")
            self.assertEqual(proc.returncode, 0, proc.stderr)
        rd = resultdir.load_result_dir(self.sweep)
        self.assertEqual(list(rd.boots), [("tree", 1, 1)])
        self.assertFalse(rd.boots[("tree", 1, 1)].flagged)
        self.assertEqual(rd.metadata["seed"], 7)

    def init_args(self, patches: Path) -> list[str]:
        return ["--commit", "c0ffee", "--accel", "tcg", "--qemu", "q", "--cache", str(self.tmp),
                "--kernels", "tree preempt", "--vcpus", "1", "--repeats", "1", "--tests", "read",
                "--profile", "quick", "--schema-version", str(suiteconf.schema_version()),
                "--columns", " ".join(suiteconf.csv_columns()), "--patches", str(patches),
                "--tree-key", "tree=1111", "--built-key", "tree=1111",
                "--tree-key", "preempt=2222", "--built-key", "preempt=3333"]

    def test_init_records_series(self) -> None:
        """metadata.json names the series (its key, the patches in order with
        their sha256) and each kernel's build keys; a resume adds its own."""
        patches = make_patches(self.tmp)
        (self.tmp / "obj" / "tree").mkdir(parents=True)
        (self.tmp / "obj" / "tree" / ".config").write_text("CONFIG_TREE_RCU=y\n")
        proc = self.run_cmd("init", *self.init_args(patches))
        self.assertEqual(proc.returncode, 0, proc.stderr)
        meta = json.loads((self.sweep / "metadata.json").read_text())
        self.assertEqual(meta["series"]["key"], SHELL_KEY)
        self.assertEqual(meta["series"]["patches"],
                         [{"file": name, "sha256": hashlib.sha256(text.encode()).hexdigest()}
                          for name, text in PATCH_FILES.items()])
        self.assertEqual(meta["kernel_keys"], {"tree": {"tree": "1111", "built": "1111"},
                                               "preempt": {"tree": "2222", "built": "3333"}})
        self.assertEqual(meta["kernel_config_sha256"]["tree"],
                         hashlib.sha256(b"CONFIG_TREE_RCU=y\n").hexdigest())
        (patches / "0001-a.patch").write_text("changed\n")
        proc = self.run_cmd("resumed", "--commit", "c0ffee", "--patches", str(patches),
                            "--tree-key", "tree=4444", "--built-key", "tree=4444")
        self.assertEqual(proc.returncode, 0, proc.stderr)
        resumed = json.loads((self.sweep / "metadata.json").read_text())["resumed"]
        self.assertNotEqual(resumed[0]["series"]["key"], SHELL_KEY)
        self.assertEqual(resumed[0]["kernel_keys"]["tree"], {"tree": "4444", "built": "4444"})

    def test_init_refuses_a_broken_series(self) -> None:
        patches = make_patches(self.tmp, SERIES_TEXT + "0003-gone.patch\n")
        proc = self.run_cmd("init", *self.init_args(patches))
        self.assertEqual(proc.returncode, 1)
        self.assertRegex(proc.stderr, r"^rcu-bench: error: patches/series names missing patch "
                         r"0003-gone\.patch\n$")

    def test_not_a_sweep(self) -> None:
        """A directory without metadata.json: one error line, no traceback."""
        self.sweep.mkdir()
        proc = self.run_cmd("get", "kernels")
        self.assertEqual(proc.returncode, 1)
        self.assertRegex(proc.stderr, r"^rcu-bench: error: .*: no metadata\.json")


if __name__ == "__main__":
    unittest.main()
