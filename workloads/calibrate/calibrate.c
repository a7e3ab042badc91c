// SPDX-License-Identifier: GPL-2.0
/*
 * calibrate: native cost on this host's CPU of the instruction classes the
 * rbcount plugin counts, so that analysis/costmodel.py can turn exact guest
 * counts into a modelled-ns range.
 *
 * Usage: calibrate [RUNS [TARGET_MS]]
 * Output, one CSV line per op and metric (the guest row format of
 * analysis/SCHEMA.md): calib,op=NAME,METRIC,VALUE,ns,native-calib
 * with METRIC ns_per_op (median over RUNS), ns_per_op_low and
 * ns_per_op_high (first and third quartile: the spread).
 *
 * Each op is UNROLL copies of one instruction (sequence) in a counted loop;
 * the same loop with an empty body is timed right before it and subtracted.
 * Iterations grow until the op's loop lasts TARGET_MS.  Built with
 * -mno-red-zone: call, pushf and the locked add write below %rsp.
 */
#define _GNU_SOURCE
#include <asm/prctl.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "native-timing.h"

#define UNROLL 16
#define STR(x) #x
#define XSTR(x) STR(x)
#define MAX_RUNS 101

/* The assembler repeats the measured instruction UNROLL times. */
#define UNROLLED(insn) ".rept " XSTR(UNROLL) "\n\t" insn "\n\t.endr\n\t"

/* The target of the call_ret op: returns at once. */
asm(".text\n.globl rb_calib_ret\n.type rb_calib_ret,@function\n"
	"rb_calib_ret:\n\tret\n.size rb_calib_ret,.-rb_calib_ret\n");

/* The word the gs_inc op increments (GS base points at it). */
static unsigned long gs_area[8];
/* Global, so that the compiler keeps it: only the asm names it. */
__thread unsigned long rb_calib_fs_word;
static int gs_ok;

typedef void (*loop_fn)(unsigned long n);

static void loop_empty(unsigned long n)
{
	for (unsigned long i = 0; i < n; i++)
		asm volatile("" ::: "memory");
}

/* smp_mb() on x86-64 since v4.15: lock; addl $0,-4(%rsp). */
static void loop_locked_add(unsigned long n)
{
	for (unsigned long i = 0; i < n; i++)
		asm volatile(UNROLLED("lock; addl $0,-4(%%rsp)") ::: "memory", "cc");
}

static void loop_mfence(unsigned long n)
{
	for (unsigned long i = 0; i < n; i++)
		asm volatile(UNROLLED("mfence") ::: "memory");
}

/* local_irq_save()'s flag read: pushf; pop. */
static void loop_pushf_pop(unsigned long n)
{
	unsigned long flags;

	for (unsigned long i = 0; i < n; i++)
		asm volatile(UNROLLED("pushfq\n\tpopq %0") : "=r"(flags) :: "memory");
}

/*
 * local_irq_restore() of 2.6.2x kernels: push; popf.  In user mode popf
 * leaves IF alone (IOPL 0) and restores the other flags unchanged.
 */
static void loop_push_popf(unsigned long n)
{
	unsigned long flags;

	asm volatile("pushfq\n\tpopq %0" : "=r"(flags));
	for (unsigned long i = 0; i < n; i++)
		asm volatile(UNROLLED("pushq %0\n\tpopfq") :: "r"(flags) : "memory", "cc");
}

/* A this_cpu_inc(): a %gs-relative read-modify-write increment. */
static void loop_gs_inc(unsigned long n)
{
	for (unsigned long i = 0; i < n; i++)
		asm volatile(UNROLLED("incq %%gs:0") ::: "memory", "cc");
}

/* Fallback when ARCH_SET_GS is refused: the same increment %fs-relative. */
static void loop_fs_inc(unsigned long n)
{
	for (unsigned long i = 0; i < n; i++)
		asm volatile(UNROLLED("incq %%fs:rb_calib_fs_word@tpoff") ::: "memory", "cc");
}

static void loop_call_ret(unsigned long n)
{
	for (unsigned long i = 0; i < n; i++)
		asm volatile(UNROLLED("call rb_calib_ret") ::: "memory");
}

/* A plain ALU op in one dependency chain: its latency (1 cycle). */
static void loop_alu(unsigned long n)
{
	unsigned long x = 0;

	for (unsigned long i = 0; i < n; i++)
		asm volatile(UNROLLED("addq $1,%0") : "+r"(x) :: "cc");
}

static double time_loop(loop_fn fn, unsigned long n)
{
	double t0 = now_ns();

	fn(n);
	return now_ns() - t0;
}

/* The value at fraction q of the sorted v[0..n) (linear interpolation). */
static double quantile(const double *v, int n, double q)
{
	double pos = q * (n - 1);
	int i = (int)pos;

	return i + 1 < n ? v[i] + (pos - i) * (v[i + 1] - v[i]) : v[i];
}

static void measure(const char *name, loop_fn fn, int runs, double target_ns)
{
	double ns[MAX_RUNS];
	unsigned long n = 1000;

	while (time_loop(fn, n) < target_ns && n < (1UL << 40))
		n *= 2;
	for (int r = 0; r < runs; r++) {
		double empty = time_loop(loop_empty, n);
		double full = time_loop(fn, n);

		ns[r] = (full - empty) / ((double)n * UNROLL);
	}
	qsort(ns, runs, sizeof(ns[0]), cmp_double);
	printf("calib,op=%s,ns_per_op,%.4f,ns,native-calib\n", name, quantile(ns, runs, 0.5));
	printf("calib,op=%s,ns_per_op_low,%.4f,ns,native-calib\n", name, quantile(ns, runs, 0.25));
	printf("calib,op=%s,ns_per_op_high,%.4f,ns,native-calib\n", name, quantile(ns, runs, 0.75));
	fprintf(stderr, "calibrate: %-10s median %.3f ns, quartiles [%.3f, %.3f], ",
		name, quantile(ns, runs, 0.5), quantile(ns, runs, 0.25), quantile(ns, runs, 0.75));
	fprintf(stderr, "range [%.3f, %.3f] (%d runs of %lu x %d)\n",
		ns[0], ns[runs - 1], runs, n, UNROLL);
}

int main(int argc, char **argv)
{
	int runs = argc > 1 ? atoi(argv[1]) : 11;
	double target_ms = argc > 2 ? atof(argv[2]) : 10.0;

	if (runs < 1 || runs > MAX_RUNS || target_ms <= 0) {
		fprintf(stderr, "rcu-bench: error: usage: calibrate [RUNS 1..%d [TARGET_MS > 0]]\n",
			MAX_RUNS);
		return 2;
	}
	/* RB_CALIB_NO_GS=1 takes the fallback (tests/t-calibrate.sh). */
	errno = EPERM;
	gs_ok = !getenv("RB_CALIB_NO_GS") &&
		syscall(SYS_arch_prctl, ARCH_SET_GS, (unsigned long)gs_area) == 0;
	if (!gs_ok)
		fprintf(stderr, "calibrate: ARCH_SET_GS: %s: gs_inc is an %%fs-relative inc\n",
			strerror(errno));
	measure("alu", loop_alu, runs, target_ms * 1e6);
	measure("locked_add", loop_locked_add, runs, target_ms * 1e6);
	measure("mfence", loop_mfence, runs, target_ms * 1e6);
	measure("pushf_pop", loop_pushf_pop, runs, target_ms * 1e6);
	measure("push_popf", loop_push_popf, runs, target_ms * 1e6);
	/* The fallback says so in its rows too: params op=gs_inc;segment=fs. */
	measure(gs_ok ? "gs_inc" : "gs_inc;segment=fs", gs_ok ? loop_gs_inc : loop_fs_inc,
		runs, target_ms * 1e6);
	measure("call_ret", loop_call_ret, runs, target_ms * 1e6);
	return 0;
}
