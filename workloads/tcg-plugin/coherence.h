/* SPDX-License-Identifier: GPL-2.0+ */
/*
 * A cache-coherence model for the rbcount plugin: MSI per 64-byte line of
 * guest physical memory, for up to 64 vCPUs (each vCPU one private cache
 * of unlimited size: only coherence misses and first touches, no capacity
 * or conflict misses).
 *
 * Each line records which vCPUs hold it (a bitmask) and which one, if any,
 * holds it modified.  An access is classified as:
 *
 *   RB_COH_FIRST       the first access to the line by any vCPU (cold);
 *   RB_COH_HIT         the vCPU holds the line in a state that allows the
 *                      access (a read of S or M, a write of M, or a write
 *                      of S that no other vCPU holds: a silent upgrade);
 *   RB_COH_FILL        a read or write of a line that no other vCPU holds
 *                      modified and (for a write) no other vCPU holds:
 *                      it comes from memory, no transfer between CPUs;
 *   RB_COH_READ_MISS   a read of a line another vCPU holds modified: a
 *                      transfer (the owner's copy goes to S);
 *   RB_COH_INVALIDATE  a write to a line other vCPUs hold: a transfer
 *                      (their copies are invalidated; when one held it
 *                      modified, its data moves too).
 *
 * Transfers are RB_COH_READ_MISS + RB_COH_INVALIDATE: the cache-to-cache
 * traffic whose latency core-to-core benchmarks measure.  Each line
 * counts its own transfers, for the hottest lines.
 *
 * The state lives in a flat array indexed by physical line number, so the
 * model needs no allocation per access; accesses beyond it (MMIO, memory
 * above the array) are RB_COH_OUTSIDE and change nothing.  Callers
 * serialise accesses to one line (the plugin: a striped lock).
 *
 * Epochs: rb_coh_new_epoch() starts the model cold again in O(1) (each
 * line is reset at its first access in the new epoch), so that a caller
 * that watches only some intervals (the plugin: while a window or region
 * is open) need not model what runs between them: a line's first access
 * in an epoch is RB_COH_FIRST.
 */
#ifndef RB_COHERENCE_H
#define RB_COHERENCE_H

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>

#define RB_COH_LINE_SHIFT 6
#define RB_COH_NO_OWNER 0xff

enum rb_coh_event {
	RB_COH_OUTSIDE, RB_COH_FIRST, RB_COH_HIT, RB_COH_FILL, RB_COH_READ_MISS,
	RB_COH_INVALIDATE, RB_COH_NEVENTS
};

struct rb_coh_line {
	uint64_t holders;	/* bit v: vCPU v holds the line (S or M) */
	uint32_t transfers;	/* read misses + invalidations of this line */
	uint32_t epoch;		/* the epoch of its state; another: untouched */
	uint8_t owner;		/* the vCPU holding it modified, or RB_COH_NO_OWNER */
};

struct rb_coh {
	struct rb_coh_line *lines;
	uint64_t nlines;
	uint32_t epoch;		/* never 0: a calloc'ed line is untouched */
};

/* A model of physical memory below bytes; false when out of memory. */
static inline bool rb_coh_init(struct rb_coh *c, uint64_t bytes)
{
	c->nlines = bytes >> RB_COH_LINE_SHIFT;
	c->lines = calloc(c->nlines, sizeof(*c->lines));
	c->epoch = 1;
	return c->lines != NULL;
}

/* Every line untouched again (callers may access meanwhile: each line is
 * reset under their serialisation, at its first access in the epoch). */
static inline void rb_coh_new_epoch(struct rb_coh *c)
{
	uint32_t e = __atomic_load_n(&c->epoch, __ATOMIC_RELAXED) + 1;

	__atomic_store_n(&c->epoch, e ? e : 1, __ATOMIC_RELAXED);
}

static inline void rb_coh_free(struct rb_coh *c)
{
	free(c->lines);
	c->lines = NULL;
	c->nlines = 0;
}

static inline bool rb_coh_is_transfer(enum rb_coh_event e)
{
	return e == RB_COH_READ_MISS || e == RB_COH_INVALIDATE;
}

/* Classify vCPU vcpu's access to physical address paddr and apply it. */
static inline enum rb_coh_event rb_coh_access(struct rb_coh *c, uint64_t paddr,
					      unsigned int vcpu, bool write)
{
	uint64_t n = paddr >> RB_COH_LINE_SHIFT, me = 1ULL << vcpu;
	uint32_t epoch = __atomic_load_n(&c->epoch, __ATOMIC_RELAXED);
	struct rb_coh_line *l;
	enum rb_coh_event e;

	if (n >= c->nlines || vcpu >= 64)
		return RB_COH_OUTSIDE;
	l = &c->lines[n];
	if (l->epoch != epoch) {
		l->epoch = epoch;
		l->holders = me;
		l->owner = write ? vcpu : RB_COH_NO_OWNER;
		l->transfers = 0;
		return RB_COH_FIRST;
	}
	if (!write) {
		if (l->owner != RB_COH_NO_OWNER && l->owner != vcpu) {
			l->owner = RB_COH_NO_OWNER;
			e = RB_COH_READ_MISS;
		} else {
			e = (l->holders & me) ? RB_COH_HIT : RB_COH_FILL;
		}
		l->holders |= me;
	} else {
		if (l->holders & ~me)
			e = RB_COH_INVALIDATE;
		else
			e = (l->holders & me) ? RB_COH_HIT : RB_COH_FILL;
		l->holders = me;
		l->owner = vcpu;
	}
	if (rb_coh_is_transfer(e))
		l->transfers++;
	return e;
}

#endif /* RB_COHERENCE_H */
