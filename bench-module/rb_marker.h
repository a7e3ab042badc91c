/* SPDX-License-Identifier: GPL-2.0+ */
/*
 * Region markers for the rbcount QEMU TCG plugin (workloads/tcg-plugin/).
 *
 * A marker is "nopl RB_MARKER_MAGIC|op<<12|id(%rax,%rax,1)", the 8-byte
 * no-op 0f 1f 84 00 <disp32>: it changes nothing in the guest, and the
 * plugin recognises the displacement.  Ids are compile-time constants
 * (0..0xfff).  Between RB_REGION_START(id) and RB_REGION_END(id) the
 * plugin counts what this CPU executes, interrupts apart; between
 * RB_WINDOW_OPEN(id) and RB_WINDOW_CLOSE(id) it attributes what every CPU
 * executes to kernel functions.  Keep in sync with rbcount.c.
 */
#ifndef RB_MARKER_H
#define RB_MARKER_H

#define RB_MARKER_MAGIC 0x52420000
#define RB_OP_START 1
#define RB_OP_END 2
#define RB_OP_WIN_OPEN 3
#define RB_OP_WIN_CLOSE 4

/* "memory": the compiler keeps loads and stores on their side of it. */
#define RB_MARKER(op, id)						\
	do {								\
		asm volatile("nopl %c0(%%rax,%%rax,1)"			\
			     : : "i" (RB_MARKER_MAGIC | ((op) << 12) | (id))	\
			     : "memory");					\
	} while (0)

#define RB_REGION_START(id) RB_MARKER(RB_OP_START, id)
#define RB_REGION_END(id) RB_MARKER(RB_OP_END, id)
#define RB_WINDOW_OPEN(id) RB_MARKER(RB_OP_WIN_OPEN, id)
#define RB_WINDOW_CLOSE(id) RB_MARKER(RB_OP_WIN_CLOSE, id)

#endif /* RB_MARKER_H */
