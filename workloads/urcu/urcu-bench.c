// SPDX-License-Identifier: GPL-2.0+
/*
 * urcu-bench: read-side cost of liburcu flavours on the host's real CPUs,
 * the native anchor beside the TCG guest numbers.
 *
 * usage: urcu-bench READERS [LOOPS [RUNS]]
 *
 * READERS threads, each pinned to a CPU, run LOOPS lock/unlock pairs of
 * each flavour, alternating with an empty loop of the same length; the
 * per-thread median of (section - empty) over RUNS runs, averaged over the
 * threads, is printed as a guest-format CSV row:
 *   urcu,flavour=memb;readers=2;membarrier=1,ns_per_pair,<v>,ns,liburcu
 * urcu-memb quietly falls back to per-section barriers when sys_membarrier
 * is unavailable, so its rows record whether the library really uses it.
 */
#define _GNU_SOURCE
#define _LGPL_SOURCE /* inline read-side fast paths, as real users get */
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "native-timing.h"

#include <urcu/urcu-mb.h>
#include <urcu/map/clear.h>
#include <urcu/urcu-memb.h>
#include <urcu/map/clear.h>
#include <urcu/urcu-qsbr.h>

#define MAX_RUNS 101
#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

struct flavour {
	const char *name;
	void (*reg)(void);
	void (*unreg)(void);
	void (*loop)(long n);
};

/* cmm_barrier() keeps the compiler from deleting or merging iterations. */
static void empty_loop(long n)
{
	for (long i = 0; i < n; i++)
		cmm_barrier();
}

#define SECTION_LOOP(fl)						\
static void fl##_loop(long n)						\
{									\
	for (long i = 0; i < n; i++) {					\
		urcu_##fl##_read_lock();				\
		urcu_##fl##_read_unlock();				\
		cmm_barrier();						\
	}								\
}

SECTION_LOOP(mb)
SECTION_LOOP(memb)
SECTION_LOOP(qsbr)

static const struct flavour flavours[] = {
	{ "mb", urcu_mb_register_thread, urcu_mb_unregister_thread, mb_loop },
	{ "memb", urcu_memb_register_thread, urcu_memb_unregister_thread, memb_loop },
	{ "qsbr", urcu_qsbr_register_thread, urcu_qsbr_unregister_thread, qsbr_loop },
};

struct reader {
	pthread_t tid;
	int cpu;
	const struct flavour *fl;
	double ns_per_pair;
};

static long loops = 10000000;
static int runs = 5;
static pthread_barrier_t start_line;

static double timed(void (*fn)(long), long n)
{
	double t0 = now_ns();

	fn(n);
	return now_ns() - t0;
}

static void *reader_fn(void *arg)
{
	struct reader *r = arg;
	double diff[MAX_RUNS];
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(r->cpu, &set);
	pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
	r->fl->reg();
	pthread_barrier_wait(&start_line);
	/* Empty and section runs alternate, so that drift hits both alike. */
	for (int i = 0; i < runs; i++) {
		double base = timed(empty_loop, loops);

		diff[i] = (timed(r->fl->loop, loops) - base) / loops;
	}
	r->fl->unreg();
	qsort(diff, runs, sizeof(diff[0]), cmp_double);
	r->ns_per_pair = diff[runs / 2];
	return NULL;
}

static double measure(const struct flavour *fl, int nreaders)
{
	struct reader *rs = calloc(nreaders, sizeof(*rs));
	long ncpus = sysconf(_SC_NPROCESSORS_ONLN);
	double sum = 0;

	if (!rs) {
		perror("urcu-bench: calloc");
		exit(1);
	}
	pthread_barrier_init(&start_line, NULL, nreaders);
	for (int i = 0; i < nreaders; i++) {
		rs[i].cpu = i % ncpus;
		rs[i].fl = fl;
		if (pthread_create(&rs[i].tid, NULL, reader_fn, &rs[i])) {
			perror("urcu-bench: pthread_create");
			exit(1);
		}
	}
	for (int i = 0; i < nreaders; i++) {
		pthread_join(rs[i].tid, NULL);
		sum += rs[i].ns_per_pair;
	}
	pthread_barrier_destroy(&start_line);
	free(rs);
	return sum / nreaders;
}

static long parse_arg(const char *s, long min, long max, const char *what)
{
	char *end;
	long v = strtol(s, &end, 10);

	if (*s == '\0' || *end != '\0' || v < min || v > max) {
		fprintf(stderr, "rcu-bench: error: urcu-bench: %s must be %ld..%ld, got '%s'\n",
			what, min, max, s);
		exit(2);
	}
	return v;
}

int main(int argc, char **argv)
{
	int nreaders;

	if (argc < 2 || argc > 4) {
		fprintf(stderr, "usage: urcu-bench READERS [LOOPS [RUNS]]\n");
		return 2;
	}
	nreaders = parse_arg(argv[1], 1, 1024, "READERS");
	if (argc > 2)
		loops = parse_arg(argv[2], 1000, 1000000000L, "LOOPS");
	if (argc > 3)
		runs = parse_arg(argv[3], 1, MAX_RUNS, "RUNS");
	for (size_t f = 0; f < ARRAY_SIZE(flavours); f++) {
		const struct flavour *fl = &flavours[f];
		double ns = measure(fl, nreaders);
		char extra[32] = "";

		/* Known only once a memb reader has registered (library init). */
		if (fl->loop == memb_loop)
			snprintf(extra, sizeof(extra), ";membarrier=%d",
				 urcu_memb_has_sys_membarrier ? 1 : 0);
		/* Below the noise floor comes out as zero, never negative. */
		printf("urcu,flavour=%s;readers=%d%s,ns_per_pair,%.3f,ns,liburcu\n",
		       fl->name, nreaders, extra, ns > 0 ? ns : 0.0);
		fflush(stdout);
	}
	return 0;
}
