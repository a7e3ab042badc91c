"""Loading and validation: good input loads, bad input names file and line."""

import unittest

from helpers import FIXTURES, GOOD
import results
import suiteconf


class GoodInput(unittest.TestCase):
    def test_loads_every_row(self) -> None:
        rd = results.load_result_dir(GOOD)
        with open(GOOD / "csv" / "results.csv") as fh:
            lines = fh.read().splitlines()
        self.assertEqual(len(rd.rows), len(lines) - 1)
        self.assertEqual(len(rd.failed_rows), 1)
        failed = rd.failed_rows[0]
        self.assertEqual((failed.kernel, failed.vcpus, failed.test, failed.repeat),
                         ("tree", 4, "callrcu", 1))
        self.assertIsNone(failed.value)
        self.assertEqual(failed.reason, "hang after 120s")
        self.assertEqual(lines[failed.line - 1].split(",")[-1], failed.status)

    def test_params_parsed(self) -> None:
        self.assertEqual(results.parse_params("readers=2;nest=1;loops=99"),
                         {"readers": "2", "nest": "1", "loops": "99"})
        self.assertEqual(results.parse_params(""), {})
        with self.assertRaises(ValueError):
            results.parse_params("readers")

    def test_columns_from_suite_conf(self) -> None:
        header = (GOOD / "csv" / "results.csv").read_text().splitlines()[0]
        self.assertEqual(header.split(","), suiteconf.csv_columns())


class BadInput(unittest.TestCase):
    def assert_refused(self, name: str, line: int, text: str) -> None:
        with self.assertRaises(results.ResultsError) as ctx:
            results.load_result_dir(FIXTURES / name)
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
        self.assert_refused("old-schema", 2,
                            f"result directory from schema v0, this suite reads v{want}")

    def test_unknown_kernel(self) -> None:
        self.assert_refused("unknown-kernel", 4, "unknown kernel 'rt-preempt'")

    def test_missing_dir(self) -> None:
        with self.assertRaises(results.ResultsError):
            results.load_result_dir(FIXTURES / "nonexistent")


if __name__ == "__main__":
    unittest.main()
