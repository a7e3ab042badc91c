/* SPDX-License-Identifier: GPL-2.0+ */
/*
 * The marker protocol between rcubench.ko and the rbcount QEMU TCG plugin
 * (workloads/tcg-plugin/rbcount.c): both include this file, and
 * workloads/tcg-plugin/count_rows.py reads its constants from it.
 *
 * A marker is "nopl RB_MARKER_MAGIC|op<<12|id(%rax,%rax,1)", the 8-byte
 * no-op 0f 1f 84 00 <disp32>: it changes nothing in the guest, and the
 * plugin recognises the displacement.  Ids are compile-time constants
 * (0..0xfff).  Between RB_REGION_START(id) and RB_REGION_END(id) the
 * plugin counts what this CPU executes, interrupts apart; between
 * RB_WINDOW_OPEN(id) and RB_WINDOW_CLOSE(id) it attributes what every CPU
 * executes to kernel functions.  RB_RANGE(lo, hi) makes each call of the
 * code at [lo, hi) (a function without markers, such as refscale's loop)
 * a region: each marker is followed by a one-byte load from the range's
 * first and last byte, whose address the plugin takes.  RB_STAT_OPEN and
 * RB_STAT_CLOSE (rbstat, in user space) bracket a command.
 */
#ifndef RB_MARKER_H
#define RB_MARKER_H

/* The displacement: "RB" in its top half, then op (4 bits) and id (12 bits). */
#define RB_MARKER_MAGIC 0x52420000
#define RB_MARKER_MAGIC_MASK 0xffff0000
#define RB_MARKER_OP_SHIFT 12
#define RB_MARKER_OP_MASK 0xf
#define RB_MARKER_ID_MASK 0xfff

#define RB_OP_START 1
#define RB_OP_END 2
#define RB_OP_WIN_OPEN 3
#define RB_OP_WIN_CLOSE 4
#define RB_OP_RANGE_LO 5
#define RB_OP_RANGE_HI 6
/*
 * rbstat (workloads/rbstat): from RB_OP_STAT_OPEN to RB_OP_STAT_CLOSE,
 * executed in user space, the plugin counts what every CPU executes, user
 * and kernel apart, and sends the totals to the guest over a serial port
 * (the plugin's stat= argument).
 */
#define RB_OP_STAT_OPEN 7
#define RB_OP_STAT_CLOSE 8

/*
 * The plugin numbers the regions of a range RB_RANGE_ID_BASE + the range's
 * generation (1, 2, ...): marker ids of regions and windows stay below it.
 */
#define RB_RANGE_ID_BASE 256

/*
 * The instruction classes the plugin counts, in the order of its counts.csv
 * columns (its enum rb_class follows it).
 */
#define RB_CLASS_NAMES "insns", "locked", "fences", "cli", "sti", "pushf", \
	"popf", "percpu", "calls", "rets", "loads", "stores"

#ifdef __KERNEL__

/* "memory": the compiler keeps loads and stores on their side of it. */
#define RB_MARKER(op, id)						\
	do {								\
		asm volatile("nopl %c0(%%rax,%%rax,1)"			\
			     : : "i" (RB_MARKER_MAGIC |			\
				      ((op) << RB_MARKER_OP_SHIFT) | (id))	\
			     : "memory");					\
	} while (0)

#define RB_REGION_START(id) RB_MARKER(RB_OP_START, id)
#define RB_REGION_END(id) RB_MARKER(RB_OP_END, id)
#define RB_WINDOW_OPEN(id) RB_MARKER(RB_OP_WIN_OPEN, id)
#define RB_WINDOW_CLOSE(id) RB_MARKER(RB_OP_WIN_CLOSE, id)

/* lo and hi are in registers first: no other load between marker and load. */
#define RB_RANGE(lo, hi)						\
	do {								\
		const char *__rb_lo = (const char *)(lo);		\
		const char *__rb_hi = (const char *)(hi) - 1;		\
									\
		asm volatile("" : "+r" (__rb_lo), "+r" (__rb_hi));	\
		RB_MARKER(RB_OP_RANGE_LO, 0);				\
		(void)READ_ONCE(*__rb_lo);				\
		RB_MARKER(RB_OP_RANGE_HI, 0);				\
		(void)READ_ONCE(*__rb_hi);				\
	} while (0)

#else /* user space: rbstat */

#define RB_MARKER(op, id)						\
	do {								\
		__asm__ volatile("nopl %c0(%%rax,%%rax,1)"		\
				 : : "i" (RB_MARKER_MAGIC |		\
					  ((op) << RB_MARKER_OP_SHIFT) | (id)) \
				 : "memory");				\
	} while (0)

#define RB_STAT_OPEN() RB_MARKER(RB_OP_STAT_OPEN, 0)
#define RB_STAT_CLOSE() RB_MARKER(RB_OP_STAT_CLOSE, 0)

#endif /* __KERNEL__ */

#endif /* RB_MARKER_H */
