// SPDX-License-Identifier: GPL-2.0+
/*
 * Host-only test of the plugin's coherence model
 * (workloads/tcg-plugin/coherence.h) on synthetic access sequences whose
 * answers are worked out by hand in the comments.  Prints "ok: ..." per
 * check, "FAIL: ..." and exits 1 on the first wrong answer.
 */
#include <stdio.h>
#include <stdlib.h>

#include "coherence.h"

static const char *const names[] = { "outside", "first", "hit", "fill", "read-miss",
				      "invalidate" };

static void expect(struct rb_coh *c, int step, unsigned int cpu, char rw, uint64_t pa,
		   enum rb_coh_event want)
{
	enum rb_coh_event got = rb_coh_access(c, pa, cpu, rw == 'W');

	if (got != want) {
		printf("FAIL: step %d: cpu%u %c %#llx: %s, want %s\n", step, cpu, rw,
		       (unsigned long long)pa, names[got], names[want]);
		exit(1);
	}
}

static void check(int cond, const char *what)
{
	if (!cond) {
		printf("FAIL: %s\n", what);
		exit(1);
	}
	printf("ok: %s\n", what);
}

int main(void)
{
	struct rb_coh c;
	uint64_t transfers = 0;
	int k, i;

	/* A and A8 share a line; B is the next line. */
	const uint64_t A = 0x1000, A8 = 0x1008, B = 0x1040;

	check(rb_coh_init(&c, 1 << 20), "1 MiB modelled");
	expect(&c, 1, 0, 'R', A, RB_COH_FIRST);		/* cold */
	expect(&c, 2, 0, 'R', A8, RB_COH_HIT);		/* same line, S */
	expect(&c, 3, 1, 'R', A, RB_COH_FILL);		/* S elsewhere: no transfer */
	expect(&c, 4, 1, 'W', A, RB_COH_INVALIDATE);	/* cpu0's S copy: transfer 1 */
	expect(&c, 5, 0, 'R', A, RB_COH_READ_MISS);	/* cpu1 holds M: transfer 2 */
	expect(&c, 6, 0, 'W', A, RB_COH_INVALIDATE);	/* cpu1's S copy: transfer 3 */
	expect(&c, 7, 0, 'W', A8, RB_COH_HIT);		/* M */
	expect(&c, 8, 2, 'W', B, RB_COH_FIRST);
	expect(&c, 9, 2, 'W', B, RB_COH_HIT);
	expect(&c, 10, 0, 'R', B, RB_COH_READ_MISS);	/* cpu2 holds M: transfer 4 */
	expect(&c, 11, 0, 'R', B, RB_COH_HIT);
	expect(&c, 12, 1, 'R', A, RB_COH_READ_MISS);	/* cpu0 holds M since 6: transfer 5 */
	expect(&c, 13, 2, 'W', B, RB_COH_INVALIDATE);	/* cpu0's S copy: transfer 6 */
	expect(&c, 14, 1, 'R', 1ULL << 40, RB_COH_OUTSIDE);
	check(c.lines[A >> 6].transfers == 4 && c.lines[B >> 6].transfers == 2,
	      "per-line transfers: A's line 4 (steps 4, 5, 6, 12), B's 2 (10, 13)");
	/*
	 * A new epoch: every line cold again, whatever it held (cpu2 holds B
	 * modified since 13), its transfers from 0; then as before.
	 */
	rb_coh_new_epoch(&c);
	expect(&c, 15, 0, 'R', B, RB_COH_FIRST);
	expect(&c, 16, 2, 'R', B, RB_COH_FILL);		/* no M copy any more */
	expect(&c, 17, 1, 'W', A, RB_COH_FIRST);
	expect(&c, 18, 0, 'R', A, RB_COH_READ_MISS);
	check(c.lines[A >> 6].transfers == 1 && c.lines[B >> 6].transfers == 0,
	      "a new epoch: lines cold, their transfers from 0 (A's line 1: step 18)");
	rb_coh_free(&c);

	/* Two CPUs hand one line back and forth k times: k - 1 invalidations. */
	rb_coh_init(&c, 1 << 20);
	k = 1000;
	for (i = 0; i < k; i++)
		transfers += rb_coh_is_transfer(rb_coh_access(&c, A, i & 1, true));
	check(transfers == (uint64_t)k - 1, "ping-pong of 1000 writes: 999 transfers");
	/*
	 * A load and a store as separate instructions per hand-off: a read
	 * miss on the other CPU's M copy, then an upgrade that invalidates
	 * its S copy: 2 per hand-off after the first touch (1 + 999 x 2 - 1),
	 * as on MESI hardware.  A locked read-modify-write instruction fetches
	 * the line for ownership at once: the plugin passes its load as a
	 * write, one transfer per hand-off (the first ping-pong above).
	 */
	transfers = 0;
	for (i = 0; i < k; i++) {
		transfers += rb_coh_is_transfer(rb_coh_access(&c, B, i & 1, false));
		transfers += rb_coh_is_transfer(rb_coh_access(&c, B, i & 1, true));
	}
	check(transfers == 2 * ((uint64_t)k - 1),
	      "1000 hand-offs of a load then a store: 1998 transfers");
	rb_coh_free(&c);

	/* Each of 64 CPUs increments only its own per-CPU line: 0 transfers. */
	rb_coh_init(&c, 1 << 20);
	transfers = 0;
	for (i = 0; i < 64 * 100; i++) {
		unsigned int cpu = i % 64;
		uint64_t pa = 0x10000 + (uint64_t)cpu * 64;

		transfers += rb_coh_is_transfer(rb_coh_access(&c, pa, cpu, false));
		transfers += rb_coh_is_transfer(rb_coh_access(&c, pa, cpu, true));
	}
	check(transfers == 0, "64 CPUs, each its own line, 100 increments: 0 transfers");
	/*
	 * A flag cpu0 writes and 63 CPUs read, 10 rounds: in the first, the
	 * write is a first touch and the first reader misses on cpu0's M copy
	 * (the 62 others fill from S: no transfer); in each later round the
	 * write invalidates 63 S copies (one transfer) and the first reader
	 * misses again: 1 + 9 x 2 = 19.
	 */
	transfers = 0;
	for (k = 0; k < 10; k++) {
		transfers += rb_coh_is_transfer(rb_coh_access(&c, A, 0, true));
		for (i = 1; i < 64; i++)
			transfers += rb_coh_is_transfer(rb_coh_access(&c, A, i, false));
	}
	check(transfers == 19, "a flag written by cpu0 and read by 63, 10 rounds: 19 transfers");
	rb_coh_free(&c);
	return 0;
}
