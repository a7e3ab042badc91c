/* SPDX-License-Identifier: GPL-2.0 */
/*
 * native-timing.h: the clock and the sort of the suite's native host
 * benchmarks (workloads/calibrate, workloads/urcu), so that both time and
 * take medians the same way.
 */
#ifndef RB_NATIVE_TIMING_H
#define RB_NATIVE_TIMING_H

#include <time.h>

/* CLOCK_MONOTONIC in ns, as a double: runs last milliseconds. */
static inline double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

/* qsort() order of doubles, for medians. */
static inline int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

#endif /* RB_NATIVE_TIMING_H */
