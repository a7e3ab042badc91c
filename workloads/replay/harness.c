// SPDX-License-Identifier: GPL-2.0
/*
 * replay-harness: run a kernel's read-side instructions natively, as
 * rewritten by workloads/replay/replay.py into replay.S (linked in).
 *
 * Usage: replay-harness time RUNS TARGET_MS
 *        replay-harness trace read|empty ITERATIONS
 *        replay-harness map
 *
 * time: ns per rcu_read_lock()/rcu_read_unlock() pair as the guest's read
 * test takes it: the replayed rb_read_loop minus the replayed rb_empty_loop
 * over the same iterations, divided by them; iterations grow until the read
 * loop lasts TARGET_MS; RUNS runs.  Prints "ns_per_pair MEDIAN",
 * "ns_per_pair_low Q1", "ns_per_pair_high Q3", "baseline_ns MEDIAN"
 * (the empty loop per iteration), "cycle_ns MEDIAN" (a dependent add,
 * timed in each run) and "cycles_per_pair MEDIAN" (each run's pair over its
 * cycle time).
 *
 * trace: single-steps one call of the loop with ITERATIONS iterations (the
 * trap flag, a SIGTRAP per instruction) and prints the index of each
 * replayed instruction executed, one a line (replay.py names them).
 *
 * map: prints the address of each replayed instruction, one a line, so
 * that replay.py can check the replay has the kernel's code layout.
 *
 * Either way the replay must stay on the common path: a call of a slow-path
 * stub is an error.  Built with -mno-red-zone: the flag pushes below %rsp.
 */
#define _GNU_SOURCE
#include <asm/prctl.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <ucontext.h>
#include <unistd.h>

#include "native-timing.h"

#define MAX_RUNS 1001
#define MAX_STEPS 100000
#define X86_EFLAGS_TF 0x100

/* What replay.S (generated) defines. */
struct rb_replay_init {
	long area;		/* 0: GS area, -1: end of table */
	unsigned long offset;
	unsigned long size;	/* 4 or 8, 0: the address of the task area */
	unsigned long value;
};

typedef void (*loop_fn)(long last);
extern void rb_k_rb_read_loop(long last);
extern void rb_k_rb_empty_loop(long last);
extern const struct rb_replay_init rb_replay_inits[];
extern unsigned char rb_replay_gs_area[], rb_replay_task[], rb_replay_global[];
extern const unsigned long rb_replay_gs_size;
extern unsigned long rb_replay_stub_hits[];
extern const unsigned long rb_replay_nstubs;
extern const char *const rb_replay_stub_names[];
extern const unsigned long rb_replay_insn_map[];
extern const unsigned long rb_replay_ninsns;
extern const char rb_replay_text_start[], rb_replay_text_end[];

static unsigned long steps[MAX_STEPS];
static volatile unsigned long nsteps;
static volatile int overflow;

static void die(const char *msg)
{
	fprintf(stderr, "rcu-bench: error: replay-harness: %s\n", msg);
	exit(1);
}

/* The per-CPU values the common case needs (replay.py: PERCPU_INIT). */
static void init_areas(void)
{
	for (const struct rb_replay_init *i = rb_replay_inits; i->area >= 0; i++) {
		unsigned char *p = rb_replay_gs_area + i->offset;

		if (i->offset + 8 > rb_replay_gs_size)
			die("an initial value lies outside the GS area");
		if (i->size == 0) {
			unsigned long task = (unsigned long)rb_replay_task;

			memcpy(p, &task, sizeof(task));
		} else {
			memcpy(p, &i->value, i->size);
		}
	}
}

/* A replay that called a stub left the guest's common path: say where. */
static void check_stubs(void)
{
	int bad = 0;

	for (unsigned long i = 0; i < rb_replay_nstubs; i++) {
		if (rb_replay_stub_hits[i]) {
			fprintf(stderr, "rcu-bench: error: replay-harness: the replay called %s %lu times: "
				"not the common path\n", rb_replay_stub_names[i], rb_replay_stub_hits[i]);
			bad = 1;
		}
	}
	if (bad)
		exit(1);
}

static loop_fn loop_named(const char *name)
{
	if (!strcmp(name, "read"))
		return rb_k_rb_read_loop;
	if (!strcmp(name, "empty"))
		return rb_k_rb_empty_loop;
	die("the loop is read or empty");
	return NULL;
}

static double time_loop(loop_fn fn, unsigned long n)
{
	double t0 = now_ns();

	fn((long)n - 1);
	return now_ns() - t0;
}

/* The value at fraction q of the sorted v[0..n) (linear interpolation). */
static double quantile(const double *v, int n, double q)
{
	double pos = q * (n - 1);
	int i = (int)pos;

	return i + 1 < n ? v[i] + (pos - i) * (v[i + 1] - v[i]) : v[i];
}

/* The cycle clock: calibrate.c's alu op, a dependent add (1 cycle) 16 times an iteration. */
static void loop_alu(long last)
{
	unsigned long x = 0;

	for (long i = last; i >= 0; i--)
		asm volatile(".rept 16\n\taddq $1,%0\n\t.endr" : "+r"(x) :: "cc");
}

static void loop_c_empty(long last)
{
	for (long i = last; i >= 0; i--)
		asm volatile("" ::: "memory");
}

/*
 * Each run times the empty loop, the read loop and the cycle clock back to
 * back: cycles per pair is the run's pair over its own cycle time, so a
 * frequency change or a busy sibling thread between runs cancels out.
 */
static void time_pair(int runs, double target_ns)
{
	static double pair[MAX_RUNS], base[MAX_RUNS], cycle[MAX_RUNS], cycles[MAX_RUNS];
	unsigned long n = 1000;

	while (time_loop(rb_k_rb_read_loop, n) < target_ns && n < (1UL << 40))
		n *= 2;
	for (int r = 0; r < runs; r++) {
		double empty = time_loop(rb_k_rb_empty_loop, n);
		double full = time_loop(rb_k_rb_read_loop, n);
		double alu = time_loop(loop_alu, n) - time_loop(loop_c_empty, n);

		pair[r] = (full - empty) / n;
		base[r] = empty / n;
		cycle[r] = alu / (16.0 * n);
		cycles[r] = pair[r] / cycle[r];
	}
	check_stubs();
	qsort(pair, runs, sizeof(pair[0]), cmp_double);
	qsort(base, runs, sizeof(base[0]), cmp_double);
	qsort(cycle, runs, sizeof(cycle[0]), cmp_double);
	qsort(cycles, runs, sizeof(cycles[0]), cmp_double);
	printf("ns_per_pair %.4f\n", quantile(pair, runs, 0.5));
	printf("ns_per_pair_low %.4f\n", quantile(pair, runs, 0.25));
	printf("ns_per_pair_high %.4f\n", quantile(pair, runs, 0.75));
	printf("baseline_ns %.4f\n", quantile(base, runs, 0.5));
	printf("cycle_ns %.4f\n", quantile(cycle, runs, 0.5));
	printf("cycles_per_pair %.3f\n", quantile(cycles, runs, 0.5));
	fprintf(stderr, "replay-harness: %d runs of %lu iterations: pair median %.3f ns, "
		"quartiles [%.3f, %.3f], range [%.3f, %.3f]\n", runs, n, quantile(pair, runs, 0.5),
		quantile(pair, runs, 0.25), quantile(pair, runs, 0.75), pair[0], pair[runs - 1]);
}

/* One SIGTRAP per instruction while the trap flag is set. */
static void on_step(int sig, siginfo_t *si, void *ctx)
{
	unsigned long rip = ((ucontext_t *)ctx)->uc_mcontext.gregs[REG_RIP];

	(void)sig;
	(void)si;
	if (rip < (unsigned long)rb_replay_text_start || rip >= (unsigned long)rb_replay_text_end)
		return;
	if (nsteps < MAX_STEPS)
		steps[nsteps++] = rip;
	else
		overflow = 1;
}

static void trace_loop(loop_fn fn, long iterations)
{
	struct sigaction sa = { .sa_sigaction = on_step, .sa_flags = SA_SIGINFO };

	if (sigaction(SIGTRAP, &sa, NULL))
		die("sigaction(SIGTRAP)");
	asm volatile("pushfq; orq %0,(%%rsp); popfq" :: "i"(X86_EFLAGS_TF) : "memory", "cc");
	fn(iterations - 1);
	asm volatile("pushfq; andq %0,(%%rsp); popfq" :: "i"(~X86_EFLAGS_TF) : "memory", "cc");
	if (overflow)
		die("more single steps than the trace holds");
	check_stubs();
	for (unsigned long s = 0; s < nsteps; s++) {
		unsigned long i;

		/* A stub's instructions are in the text too: not in the map. */
		for (i = 0; i < rb_replay_ninsns && rb_replay_insn_map[i] != steps[s]; i++)
			;
		if (i < rb_replay_ninsns)
			printf("%lu\n", i);
	}
}

int main(int argc, char **argv)
{
	errno = 0;
	if (syscall(SYS_arch_prctl, ARCH_SET_GS, (unsigned long)rb_replay_gs_area)) {
		fprintf(stderr, "rcu-bench: error: replay-harness: ARCH_SET_GS: %s: the per-CPU "
			"accesses have no GS base\n", strerror(errno));
		return 1;
	}
	init_areas();
	if (argc == 4 && !strcmp(argv[1], "time")) {
		int runs = atoi(argv[2]);
		double target_ms = atof(argv[3]);

		if (runs < 1 || runs > MAX_RUNS || target_ms <= 0)
			die("usage: replay-harness time RUNS(1..1001) TARGET_MS(>0)");
		time_pair(runs, target_ms * 1e6);
		return 0;
	}
	if (argc == 4 && !strcmp(argv[1], "trace")) {
		long iterations = atol(argv[3]);

		if (iterations < 1 || iterations > 100)
			die("usage: replay-harness trace read|empty ITERATIONS(1..100)");
		trace_loop(loop_named(argv[2]), iterations);
		return 0;
	}
	if (argc == 2 && !strcmp(argv[1], "map")) {
		for (unsigned long i = 0; i < rb_replay_ninsns; i++)
			printf("%#lx\n", rb_replay_insn_map[i]);
		return 0;
	}
	die("usage: replay-harness time RUNS TARGET_MS | trace read|empty ITERATIONS | map");
	return 1;
}
