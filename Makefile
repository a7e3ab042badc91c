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
