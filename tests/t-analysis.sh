#!/bin/bash
# tier: host
# The analysis (analysis/): loading and validation, the derived numbers, the
# report's tables, plots and gnuplot scripts, on the fixtures shipped in
# analysis/tests/fixtures/.
set -euo pipefail
. "$(dirname "$0")/../scripts/lib.sh"
need_tool /usr/bin/python3 gnuplot
cd "$RB_TOP"
/usr/bin/python3 -c 'import matplotlib, numpy' 2>/dev/null ||
	die "python3-matplotlib/python3-numpy missing: run 'make deps' first"
/usr/bin/python3 -m unittest discover -v -s analysis/tests
