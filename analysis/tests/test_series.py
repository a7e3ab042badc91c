"""The patch series key (scripts/series.py): the value build-kernels.sh has
always keyed the tree by, computed in one place for the shell and Python."""

import shutil
import subprocess
import tempfile
import unittest
from pathlib import Path

from helpers import ANALYSIS
import series

TOP = ANALYSIS.parent
SERIES_TEXT = "# a comment line\n0001-a.patch\n\n0002-b.patch \n"
PATCH_FILES = {"0001-a.patch": "Subject: [PATCH 1/2] a\n\n--- a\n+++ b\n",
               "0002-b.patch": "Subject: [PATCH 2/2] b\n"}
# What the former build-kernels.sh series_key printed for this directory:
# (cat series; for p in $(grep -v '^#' series); do sha256sum "$p"; done) |
# sha256sum | cut -c1-16.  A changed algorithm would rekey every cache.
SHELL_KEY = "81e3a412fb70cbe7"


def make_patches(parent: Path, series_text: str = SERIES_TEXT) -> Path:
    patches = parent / "patches"
    patches.mkdir()
    (patches / "series").write_text(series_text)
    for name, text in PATCH_FILES.items():
        (patches / name).write_text(text)
    return patches


def lib_sh(function: str, patches_top: Path) -> subprocess.CompletedProcess:
    """Run a scripts/lib.sh function in a copy of the suite's scripts/ beside patches_top's patches."""
    return subprocess.run(["bash", "-c", f'. "{patches_top}/scripts/lib.sh" && {function}'],
                          capture_output=True, text=True, timeout=60)


class SeriesKey(unittest.TestCase):
    def setUp(self) -> None:
        self.tmp = Path(tempfile.mkdtemp(prefix="rb-series-"))
        self.patches = make_patches(self.tmp)

    def tearDown(self) -> None:
        shutil.rmtree(self.tmp)

    def test_key_is_the_former_shell_key(self) -> None:
        got = series.checkout_series(self.patches)
        self.assertEqual(got.key, SHELL_KEY)
        self.assertEqual([p.file for p in got.patches], ["0001-a.patch", "0002-b.patch"])

    def test_key_follows_a_patch(self) -> None:
        (self.patches / "0002-b.patch").write_text("Subject: [PATCH 2/2] b, changed\n")
        self.assertNotEqual(series.checkout_series(self.patches).key, SHELL_KEY)

    def test_missing_patch_is_an_error(self) -> None:
        (self.patches / "series").write_text(SERIES_TEXT + "0003-gone.patch\n")
        with self.assertRaisesRegex(series.SeriesError, "missing patch 0003-gone.patch"):
            series.checkout_series(self.patches)

    def test_lib_sh_series_key_is_series_py(self) -> None:
        """lib.sh series_key (build-kernels.sh's) prints scripts/series.py's key."""
        shutil.copytree(TOP / "scripts", self.tmp / "scripts")
        proc = lib_sh("series_key", self.tmp)
        self.assertEqual(proc.returncode, 0, proc.stderr)
        self.assertEqual(proc.stdout.strip(), SHELL_KEY)
        (self.patches / "series").write_text(SERIES_TEXT + "0003-gone.patch\n")
        proc = lib_sh('k=$(kernel_key classic) || echo "kernel_key failed"', self.tmp)
        self.assertIn("kernel_key failed", proc.stdout, "a broken series gave a kernel key")
        self.assertIn("rcu-bench: error: patches/series names missing patch", proc.stderr)

    def test_commit_series(self) -> None:
        """A commit's series read with git is the checkout's when they agree."""
        head = subprocess.run(["git", "-C", str(TOP), "rev-parse", "HEAD"], capture_output=True,
                              text=True, check=False)
        if head.returncode != 0:
            self.skipTest("not a git checkout")
        clean = subprocess.run(["git", "-C", str(TOP), "diff", "--quiet", "HEAD", "--", "patches"],
                               check=False).returncode == 0
        if not clean:
            self.skipTest("patches/ has uncommitted changes")
        self.assertEqual(series.commit_series(head.stdout.strip()), series.checkout_series())
        with self.assertRaises(series.SeriesError):
            series.commit_series("0" * 40)


if __name__ == "__main__":
    unittest.main()
