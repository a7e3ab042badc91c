# rcu-bench top-level Makefile.  Facts (kernel list, vCPU counts, ...) live
# in suite.conf and are read by the scripts under workloads/, which do the
# work; KERNELS=, VCPUS=, ... given to make override them.

SHELL := /bin/bash
PYTHON := /usr/bin/python3

.PHONY: help deps kernels test plugin

help:
	@echo "targets: deps kernels boot shell test bench report compare torture verify plugin"

deps:
	@scripts/deps.sh

# make kernels [KERNELS="classic preempt"]
kernels:
	@workloads/build-kernels.sh

# make test [TIER="host guest"|long|all] [TESTS="t-analysis t-config"]: the
# host tier, then the guest tier (what CI runs); TIER=long runs the long
# tier; TESTS= runs the named tests (of every tier unless TIER= is given).
test:
	@tests/run.sh $(if $(TIER),--tier "$(TIER)") $(TESTS)

# The rbcount QEMU TCG plugin (workloads/boot.sh --plugin builds it too).
plugin:
	@$(MAKE) -s -C workloads/tcg-plugin

# make boot KERNEL=preempt VCPUS=4 [JOB=workloads/guest/jobs/banner.sh]
KERNEL ?= tree
BOOT_VCPUS = $(or $(VCPUS),2)
JOB ?= workloads/guest/jobs/banner.sh
BOOT_OUT ?= $(or $(RCU_BENCH_CACHE),$(HOME)/.cache/rcu-bench)/boot/$(KERNEL)-$(BOOT_VCPUS)
.PHONY: boot
boot:
	@workloads/boot.sh --kernel "$(KERNEL)" --vcpus "$(BOOT_VCPUS)" --job "$(JOB)" --out "$(BOOT_OUT)" --quiet && \
		{ echo "--- results in $(BOOT_OUT)/results:"; cat "$(BOOT_OUT)/results/job.log"; }

# make shell KERNEL=preempt VCPUS=4 [PLUGIN=1] [APPEND="boot args"]: an
# interactive guest on this terminal; 'poweroff' ends it, Ctrl-A x kills QEMU.
.PHONY: shell
shell:
	@workloads/shell.sh --kernel "$(KERNEL)" --vcpus "$(BOOT_VCPUS)" \
		$(if $(filter-out 0,$(PLUGIN)),--plugin) $(if $(APPEND),--append "$(APPEND)")

# make torture [KERNELS=...] [DURATION=seconds] [VCPUS=n] [PARALLEL=n]
.PHONY: torture
torture:
	@workloads/torture-all.sh

# make torture-stress [STRESS_RUNS=n] [STRESS_VCPUS="2 4"] [STRESS_DURATION=s]: one scenario
# (suite.conf TORTURE_STRESS_*) rerun many times; any failure fails it.
.PHONY: torture-stress
torture-stress:
	@workloads/torture-stress.sh

# make bench [FULL=1] [KERNELS="tree preempt"] [VCPUS="1 2"] [REPEATS=N]
#            [BENCH_TESTS="read gp"] [SEED=N] [OUT=dir] [RESUME=reports/<stamp>|last]
# Builds what is missing (kernels, rcubench.ko, initramfs, plugin) first.
# Only variables given on the command line (or in the environment) are
# passed on: the defaults live in suite.conf and workloads/bench.sh.
bench_given = $(filter command line environment,$(origin $(1)))
.PHONY: bench
bench:
	@workloads/bench.sh $(if $(RESUME),--resume "$(RESUME)") $(if $(filter-out 0,$(FULL)),--full) \
		$(if $(call bench_given,KERNELS),--kernels "$(KERNELS)") \
		$(if $(call bench_given,VCPUS),--vcpus "$(VCPUS)") \
		$(if $(REPEATS),--repeats "$(REPEATS)") $(if $(BENCH_TESTS),--tests "$(BENCH_TESTS)") \
		$(if $(call bench_given,SEED),--seed "$(SEED)") $(if $(OUT),--out "$(OUT)")

# make verify [VERIFY="config..."]: SPIN checks of the preemptible RCU
# grace-period machine (verify/rcupreempt.pml), with a results table.
.PHONY: verify
verify:
	@verify/run.sh $(VERIFY)

# make report RESULTS=reports/<stamp>: regenerate everything derived of a
# results directory (report.md, csv/agreement.csv, plots/ PNG + SVG and
# gnuplot/) from its csv/results.csv, csv/boots.csv and metadata.json.
# A missing, empty or older-schema directory is refused; nothing is deleted.
.PHONY: report
report:
	@[ -n "$(RESULTS)" ] || { echo "rcu-bench: error: make report needs RESULTS=<results directory>" >&2; exit 2; }
	@$(PYTHON) analysis/report.py "$(RESULTS)"

# make scale [KERNELS=...] [VCPUS="1 2 4 8 16"] [REPEATS=N] [OUT=dir] [RESUME=...]:
# the count tests across vCPU counts (suite.conf VCPUS_SCALE, SCALE_TESTS,
# BENCH_SCALE): every boot counts, with the plugin's coherence model, on
# single-threaded TCG.  A results directory like make bench's; make bench
# FULL=1 runs it too, into its sweep's scale/.
.PHONY: scale
scale:
	@workloads/bench.sh $(if $(RESUME),--resume "$(RESUME)",--scale) \
		$(if $(call bench_given,KERNELS),--kernels "$(KERNELS)") \
		$(if $(call bench_given,VCPUS),--vcpus "$(VCPUS)") \
		$(if $(REPEATS),--repeats "$(REPEATS)") $(if $(BENCH_TESTS),--tests "$(BENCH_TESTS)") \
		$(if $(call bench_given,SEED),--seed "$(SEED)") $(if $(OUT),--out "$(OUT)")

# make compare A=<results dir>[:KERNEL] B=<results dir>[:KERNEL] [KERNELS="k1 k2"] [CSV=file]:
# every measure both sides have, B against A (ratios of medians with 95%
# intervals, sorted by effect; exact counts B - A), Markdown on stdout
# (analysis/compare.py).  DIR:KERNEL compares one kernel of a side (two
# kernels of one sweep: A=reports/X:preempt B=reports/X:classic-preempt);
# KERNELS= restricts both sides; CSV= also writes the rows as CSV.
.PHONY: compare
compare:
	@[ -n "$(A)" ] && [ -n "$(B)" ] || { echo "rcu-bench: error: make compare needs A=<results dir>[:KERNEL] and B=<results dir>[:KERNEL]" >&2; exit 2; }
	@$(PYTHON) analysis/compare.py "$(A)" "$(B)" $(if $(KERNELS),--kernels "$(KERNELS)") $(if $(CSV),--csv "$(CSV)")
