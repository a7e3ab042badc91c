// SPDX-License-Identifier: GPL-2.0
/*
 * pingpong: the cost on this host of one cache-line transfer between two
 * CPUs, the unit the rbcount plugin's coherence model counts (a read miss
 * or an invalidation: issue 20's modelled ns per grace period).
 *
 * Usage: pingpong CPU_A CPU_B [RUNS [TARGET_MS]]
 * Output (analysis/SCHEMA.md's calib rows):
 *   calib,op=line_transfer,METRIC,VALUE,ns,native-calib
 * METRIC ns_per_op (median over RUNS), ns_per_op_low and ns_per_op_high
 * (first and third quartile).
 *
 * Two threads, pinned to CPU_A and CPU_B, hand one 64-byte line back and
 * forth: each waits until the counter in it has the other's parity, then
 * increments it.  Every increment takes the line from the other CPU's
 * cache (the wait loads it shared, the increment writes it): one round
 * trip is two transfers, and a transfer is the round trip's half, as the
 * published core-to-core figures (nviennot/core-to-core-latency) count
 * it.  The host is a VM: its vCPUs may sit on any two physical cores (or
 * one core's two threads), which is why the published range is shown
 * beside it.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>

#include "native-timing.h"

#define MAX_RUNS 101

static struct {
	unsigned long counter;
} __attribute__((aligned(64))) line;

struct player {
	int cpu;
	unsigned long parity;	/* moves when the counter has this parity */
	unsigned long rounds;
};

static int pin(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	return pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
}

/* rounds moves of this player: wait for its parity, then increment. */
static void play(unsigned long parity, unsigned long rounds)
{
	for (unsigned long i = 0; i < rounds; i++) {
		while ((__atomic_load_n(&line.counter, __ATOMIC_ACQUIRE) & 1) != parity)
			__builtin_ia32_pause();
		__atomic_fetch_add(&line.counter, 1, __ATOMIC_RELEASE);
	}
}

static void *other(void *arg)
{
	struct player *p = arg;

	if (pin(p->cpu))
		return (void *)1;
	play(p->parity, p->rounds);
	return NULL;
}

/* ns of one transfer over rounds round trips between this thread's CPU and cpu_b. */
static double run(int cpu_b, unsigned long rounds)
{
	struct player b = { cpu_b, 1, rounds };
	pthread_t t;
	void *ret;
	double t0;

	line.counter = 0;
	if (pthread_create(&t, NULL, other, &b)) {
		fprintf(stderr, "rcu-bench: error: pingpong: no second thread\n");
		exit(1);
	}
	t0 = now_ns();
	play(0, rounds);
	pthread_join(t, &ret);
	if (ret) {
		fprintf(stderr, "rcu-bench: error: pingpong: cannot pin a thread to CPU %d\n", cpu_b);
		exit(1);
	}
	return (now_ns() - t0) / (2.0 * rounds);
}

static double quantile(const double *v, int n, double q)
{
	double pos = q * (n - 1);
	int i = (int)pos;

	return i + 1 < n ? v[i] + (pos - i) * (v[i + 1] - v[i]) : v[i];
}

int main(int argc, char **argv)
{
	int cpu_a, cpu_b, runs = argc > 3 ? atoi(argv[3]) : 11;
	double target_ms = argc > 4 ? atof(argv[4]) : 20.0, ns[MAX_RUNS];
	unsigned long rounds = 1000;

	if (argc < 3 || runs < 1 || runs > MAX_RUNS || target_ms <= 0) {
		fprintf(stderr, "rcu-bench: error: usage: pingpong CPU_A CPU_B [RUNS 1..%d [TARGET_MS > 0]]\n",
			MAX_RUNS);
		return 2;
	}
	cpu_a = atoi(argv[1]);
	cpu_b = atoi(argv[2]);
	if (cpu_a == cpu_b || pin(cpu_a)) {
		fprintf(stderr, "rcu-bench: error: pingpong: CPUs %d and %d: two different CPUs of this host\n",
			cpu_a, cpu_b);
		return 2;
	}
	while (run(cpu_b, rounds) * 2 * rounds < target_ms * 1e6 && rounds < (1UL << 30))
		rounds *= 2;
	for (int r = 0; r < runs; r++)
		ns[r] = run(cpu_b, rounds);
	qsort(ns, runs, sizeof(ns[0]), cmp_double);
	printf("calib,op=line_transfer,ns_per_op,%.4f,ns,native-calib\n", quantile(ns, runs, 0.5));
	printf("calib,op=line_transfer,ns_per_op_low,%.4f,ns,native-calib\n", quantile(ns, runs, 0.25));
	printf("calib,op=line_transfer,ns_per_op_high,%.4f,ns,native-calib\n", quantile(ns, runs, 0.75));
	fprintf(stderr, "calibrate: line_transfer median %.1f ns, quartiles [%.1f, %.1f], range [%.1f, %.1f] "
		"(CPUs %d and %d, %d runs of %lu round trips)\n", quantile(ns, runs, 0.5),
		quantile(ns, runs, 0.25), quantile(ns, runs, 0.75), ns[0], ns[runs - 1], cpu_a, cpu_b,
		runs, rounds);
	return 0;
}
