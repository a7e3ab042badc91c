# rcu-bench top-level Makefile.  Facts (kernel list, vCPU counts, ...) come
# from suite.conf; the work is done by the scripts under workloads/.
include suite.conf

SHELL := /bin/bash
PYTHON := /usr/bin/python3

.PHONY: help deps kernels test

help:
	@echo "targets: deps kernels boot test bench torture verify"

deps:
	@scripts/deps.sh

# make kernels [KERNELS="classic preempt"]
kernels:
	@workloads/build-kernels.sh $(KERNELS)

test:
	@tests/run.sh $(TESTS)

# make boot KERNEL=preempt VCPUS=4 [JOB=workloads/guest/jobs/banner.sh]
KERNEL ?= tree
VCPUS ?= 2
JOB ?= workloads/guest/jobs/banner.sh
BOOT_OUT ?= $(or $(RCU_BENCH_CACHE),$(HOME)/.cache/rcu-bench)/boot/$(KERNEL)-$(VCPUS)
.PHONY: boot
boot:
	@workloads/boot.sh --kernel "$(KERNEL)" --vcpus "$(VCPUS)" --job "$(JOB)" --out "$(BOOT_OUT)" --quiet && \
		{ echo "--- results in $(BOOT_OUT)/results:"; cat "$(BOOT_OUT)/results/job.log"; }
