// SPDX-License-Identifier: GPL-2.0+
/*
 * rbcount: a QEMU TCG plugin (x86-64 guests, QEMU 7.2, plugin API 1) that
 * counts the instructions a guest kernel executes inside marked regions.
 *
 * Two modes, both always on:
 *
 *   Regions.  rcubench.ko brackets each measured loop with marker no-ops
 *   (bench-module/rb_marker.h): "nopl RB_MAGIC|op|id(%rax,%rax,1)".  Between
 *   a start and an end marker on one vCPU every executed instruction is
 *   classified and counted for that vCPU.  What runs between an interrupt
 *   or exception entry (a translation block starting at an IDT entry stub,
 *   addresses from the guest's System.map) and the matching iretq goes to a
 *   separate "irq" bucket, so the region's own figure is exact and the same
 *   on every boot.  Each closed region is one record.
 *
 *   Windows.  Between a window-open and a window-close marker (on any
 *   vCPU) every instruction of every vCPU is attributed to the vmlinux
 *   function holding its address (System.map), or, outside vmlinux text,
 *   to the address of its translation block (module code: count_rows.py does
 *   not use these yet; the suite's kernels have no kallsyms to map them).
 *   Interrupts are included: the RCU core's tick work is what a window
 *   measures.
 *
 *   Interrupt work (core=REGEX).  In windows, each vCPU's hard-interrupt
 *   episodes (from an entry at nesting 0 to the iretq back to it) are
 *   followed, and the instructions the episode spends in the functions
 *   core= names (the RCU core; notcore= takes some back out: the read
 *   side) before it turns to softirqs (__do_softirq, which runs with
 *   interrupts enabled; a hard interrupt nested in it counts again) are
 *   its interrupts-off RCU work: per window and vCPU, the episodes with
 *   any, their sum and the largest (the tick's worst case).
 *
 *   Coherence (coh=on).  While a window or a region is open, every load
 *   and store of every vCPU goes, by its guest physical address, through
 *   an MSI model of private caches (coherence.h): in windows, its first
 *   touches, read misses and invalidations (transfers: the last two) are
 *   attributed like the instructions, and the lines with the most
 *   transfers are named; in regions, the region's own (and its
 *   interrupts') are counted.  Outside them nothing is modelled, and the
 *   model starts cold when watching begins (a line's first access is then
 *   a first touch): a 64-vCPU boot to init runs at the plugin's speed
 *   without the model.
 *
 *   Stat (rbstat).  Between RB_OP_STAT_OPEN and RB_OP_STAT_CLOSE, which
 *   rbstat executes in user space around a command, every vCPU's
 *   instructions are counted by class, user and kernel apart, and the
 *   kernel's by function; at the close the totals go to the guest as text
 *   lines over the stat= channel (a FIFO that QEMU feeds to a serial port),
 *   where rbstat prints them as perf stat does.
 *
 * Arguments: out=FILE (written at exit, required), map=System.map
 * (required: interrupt entries and function names), mem=on|off (count
 * loads and stores with memory callbacks, default on; they slow the
 * guest down), stat=FIFO (rbstat's channel to the guest, optional),
 * statfuncs=REGEX (functions rbstat reports by name, RB_STAT_FUNCS_DEFAULT),
 * coh=on|off (the coherence model, default off: then nothing of it runs and
 * the output is what it was without it; on, it slows the guest further),
 * core=REGEX and notcore=REGEX (the interrupt work's functions: names
 * without a ".suffix" matching core= and not notcore=; without core= no
 * irqwork section).
 *
 * QEMU 7.2 installs no qemu-plugin.h, so the few declarations this plugin
 * uses are below (from QEMU's include/qemu/qemu-plugin.h, version 1).
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <regex.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* ---- QEMU plugin API, version 1 (QEMU 7.x) ---------------------------- */

#define QEMU_PLUGIN_EXPORT __attribute__((visibility("default")))

typedef uint64_t qemu_plugin_id_t;
typedef uint32_t qemu_plugin_meminfo_t;
struct qemu_plugin_tb;
struct qemu_plugin_insn;

typedef struct qemu_info_t {
	const char *target_name;
	struct {
		int min;
		int cur;
	} version;
	bool system_emulation;
	union {
		struct {
			int smp_vcpus;
			int max_vcpus;
		} system;
	};
} qemu_info_t;

enum qemu_plugin_cb_flags {
	QEMU_PLUGIN_CB_NO_REGS,
	QEMU_PLUGIN_CB_R_REGS,
	QEMU_PLUGIN_CB_RW_REGS,
};

enum qemu_plugin_mem_rw {
	QEMU_PLUGIN_MEM_R = 1,
	QEMU_PLUGIN_MEM_W,
	QEMU_PLUGIN_MEM_RW,
};

typedef void (*qemu_plugin_udata_cb_t)(qemu_plugin_id_t id, void *userdata);
typedef void (*qemu_plugin_vcpu_udata_cb_t)(unsigned int vcpu_index, void *userdata);
typedef void (*qemu_plugin_vcpu_tb_trans_cb_t)(qemu_plugin_id_t id, struct qemu_plugin_tb *tb);
typedef void (*qemu_plugin_vcpu_mem_cb_t)(unsigned int vcpu_index, qemu_plugin_meminfo_t info,
					  uint64_t vaddr, void *userdata);

void qemu_plugin_register_vcpu_tb_trans_cb(qemu_plugin_id_t id, qemu_plugin_vcpu_tb_trans_cb_t cb);
void qemu_plugin_register_vcpu_tb_exec_cb(struct qemu_plugin_tb *tb, qemu_plugin_vcpu_udata_cb_t cb,
					  enum qemu_plugin_cb_flags flags, void *userdata);
void qemu_plugin_register_vcpu_insn_exec_cb(struct qemu_plugin_insn *insn,
					    qemu_plugin_vcpu_udata_cb_t cb,
					    enum qemu_plugin_cb_flags flags, void *userdata);
void qemu_plugin_register_vcpu_mem_cb(struct qemu_plugin_insn *insn, qemu_plugin_vcpu_mem_cb_t cb,
				      enum qemu_plugin_cb_flags flags, enum qemu_plugin_mem_rw rw,
				      void *userdata);
void qemu_plugin_register_atexit_cb(qemu_plugin_id_t id, qemu_plugin_udata_cb_t cb, void *userdata);
size_t qemu_plugin_tb_n_insns(const struct qemu_plugin_tb *tb);
uint64_t qemu_plugin_tb_vaddr(const struct qemu_plugin_tb *tb);
struct qemu_plugin_insn *qemu_plugin_tb_get_insn(const struct qemu_plugin_tb *tb, size_t idx);
const void *qemu_plugin_insn_data(const struct qemu_plugin_insn *insn);
size_t qemu_plugin_insn_size(const struct qemu_plugin_insn *insn);
uint64_t qemu_plugin_insn_vaddr(const struct qemu_plugin_insn *insn);
bool qemu_plugin_mem_is_store(qemu_plugin_meminfo_t info);
void qemu_plugin_outs(const char *string);

/* Only with coh=on: the guest physical address of an access. */
struct qemu_plugin_hwaddr;
unsigned int qemu_plugin_mem_size_shift(qemu_plugin_meminfo_t info);
struct qemu_plugin_hwaddr *qemu_plugin_get_hwaddr(qemu_plugin_meminfo_t info, uint64_t vaddr);
bool qemu_plugin_hwaddr_is_io(const struct qemu_plugin_hwaddr *haddr);
uint64_t qemu_plugin_hwaddr_phys_addr(const struct qemu_plugin_hwaddr *haddr);

QEMU_PLUGIN_EXPORT int qemu_plugin_version = 1;

/* ---- markers: the protocol of bench-module/rb_marker.h ---------------- */

#include "rb_marker.h"
#include "coherence.h"

#define RB_OP(disp) (((disp) >> RB_MARKER_OP_SHIFT) & RB_MARKER_OP_MASK)
#define RB_ID(disp) ((disp) & RB_MARKER_ID_MASK)

/* ---- instruction classes ---------------------------------------------- */

/* In the order of RB_CLASS_NAMES, whose names head counts.csv's columns. */
enum rb_class {
	C_INSNS, C_LOCKED, C_FENCES, C_CLI, C_STI, C_PUSHF, C_POPF,
	C_PERCPU, C_CALLS, C_RETS, C_LOADS, C_STORES, C_N
};

static const char *const rb_class_name[] = { RB_CLASS_NAMES };
_Static_assert(sizeof(rb_class_name) / sizeof(rb_class_name[0]) == C_N,
	       "enum rb_class and RB_CLASS_NAMES differ in length");

struct rb_decoded {
	uint32_t cls[C_N];
	int marker_op;		/* 0: not a marker */
	int marker_id;
	bool iret;
	bool mem_known;		/* its loads and stores are static: in cls */
};

static void rb_static_mem(uint8_t op, bool has_modrm, uint8_t modrm, struct rb_decoded *d);

/* Decode the few facts we count from one x86-64 instruction's bytes. */
static void rb_decode(const uint8_t *p, size_t len, struct rb_decoded *d)
{
	const uint8_t *end = p + len;
	bool lock = false, gs = false, rex_w = false;
	uint8_t op, modrm = 0;
	bool has_modrm;

	memset(d, 0, sizeof(*d));
	d->cls[C_INSNS] = 1;
	for (; p < end; p++) {
		if (*p == 0xf0)
			lock = true;
		else if (*p == 0x65)
			gs = true;
		else if (*p != 0xf2 && *p != 0xf3 && *p != 0x2e && *p != 0x36 &&
			 *p != 0x3e && *p != 0x26 && *p != 0x64 && *p != 0x66 && *p != 0x67)
			break;
	}
	if (p < end && (*p & 0xf0) == 0x40) {
		rex_w = *p & 8;
		p++;
	}
	if (p >= end)
		return;
	op = *p++;
	has_modrm = p < end;
	if (has_modrm)
		modrm = *p;
	d->cls[C_PERCPU] = gs;
	if (op == 0x0f && p < end) {
		uint8_t op2 = *p++;

		modrm = p < end ? *p : 0;
		/* nopl disp32(%rax,%rax,1): 0f 1f 84 00 imm32. */
		if (op2 == 0x1f && end - p == 6 && p[0] == 0x84 && p[1] == 0x00) {
			uint32_t disp;

			memcpy(&disp, p + 2, 4);
			if ((disp & RB_MARKER_MAGIC_MASK) == RB_MARKER_MAGIC) {
				d->marker_op = RB_OP(disp);
				d->marker_id = RB_ID(disp);
			}
		}
		/* mfence, lfence, sfence: 0f ae /6, /5, /7 with mod == 3. */
		if (op2 == 0xae && p < end && (modrm >> 6) == 3 &&
		    ((modrm >> 3) & 7) >= 5)
			d->cls[C_FENCES] = 1;
		d->cls[C_LOCKED] = lock;
		/* jcc rel32: no memory access. */
		d->mem_known = op2 >= 0x80 && op2 <= 0x8f;
		return;
	}
	/* xchg with a memory operand is locked without the prefix. */
	d->cls[C_LOCKED] = lock || ((op == 0x86 || op == 0x87) && has_modrm && (modrm >> 6) != 3);
	d->cls[C_CLI] = op == 0xfa;
	d->cls[C_STI] = op == 0xfb;
	d->cls[C_PUSHF] = op == 0x9c;
	d->cls[C_POPF] = op == 0x9d;
	/* call rel32, call and far call through a register or memory */
	d->cls[C_CALLS] = op == 0xe8 ||
		(op == 0xff && has_modrm && (((modrm >> 3) & 7) == 2 || ((modrm >> 3) & 7) == 3));
	d->cls[C_RETS] = op == 0xc2 || op == 0xc3 || op == 0xca || op == 0xcb;
	d->iret = op == 0xcf && rex_w;
	rb_static_mem(op, has_modrm, modrm, d);
}

/*
 * The loads and stores of the instructions that commonly end a block, known
 * from the opcode.  QEMU 7.2 leaves a block's last memory callbacks armed
 * after the block exits, so an interrupt delivered next would report its
 * own descriptor and stack accesses through them: the last instruction of
 * a block is counted statically when it is one of these.
 */
static void rb_static_mem(uint8_t op, bool has_modrm, uint8_t modrm, struct rb_decoded *d)
{
	int reg = (modrm >> 3) & 7, loads = 0, stores = 0;
	bool mem = has_modrm && (modrm >> 6) != 3;

	bool none = (op >= 0x70 && op <= 0x7f) || op == 0xeb || op == 0xe9 || op == 0xe3 ||
		    op == 0xfa || op == 0xfb || op == 0xf4 || op == 0x90;

	if (op == 0xe8 || op == 0x9c) {
		stores = 1;
	} else if (op == 0xc3 || op == 0xc2 || op == 0x9d) {
		loads = 1;
	} else if (op == 0xff && has_modrm && (reg == 2 || reg == 4)) {
		loads = mem;
		stores = reg == 2;
	} else if (!none) {
		return;
	}
	d->mem_known = true;
	d->cls[C_LOADS] = loads;
	d->cls[C_STORES] = stores;
}

/* ---- System.map: interrupt entries and functions ---------------------- */

struct rb_sym {
	uint64_t addr;
	char *name;
};

static struct rb_sym *rb_syms;	/* text symbols, sorted by address */
static size_t rb_nsyms;
static uint64_t rb_text_end;	/* first address past the last text symbol */

struct rb_range {
	uint64_t lo, hi;	/* [lo, hi) */
};

static struct rb_range *rb_entries;	/* interrupt/exception entry points */
static size_t rb_nentries;

static int rb_sym_cmp(const void *a, const void *b)
{
	const struct rb_sym *x = a, *y = b;

	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

/* Index of the last of syms (sorted) at or below addr, -1 if none. */
static long rb_sym_below(const struct rb_sym *syms, size_t n, uint64_t addr)
{
	size_t lo = 0, hi = n;

	if (!n || addr < syms[0].addr)
		return -1;
	while (hi - lo > 1) {
		size_t mid = (lo + hi) / 2;

		if (syms[mid].addr <= addr)
			lo = mid;
		else
			hi = mid;
	}
	return lo;
}

/* Index of the function holding addr, -1 outside vmlinux text. */
static long rb_func_of(uint64_t addr)
{
	if (addr >= rb_text_end)
		return -1;
	return rb_sym_below(rb_syms, rb_nsyms, addr);
}

static void rb_add_entry(uint64_t lo, uint64_t hi)
{
	rb_entries = realloc(rb_entries, (rb_nentries + 1) * sizeof(*rb_entries));
	rb_entries[rb_nentries].lo = lo;
	rb_entries[rb_nentries].hi = hi;
	rb_nentries++;
}

/*
 * Interrupts and exceptions enter through asm_exc_* and asm_sysvec_*, and
 * external vectors through the stubs at irq_entries_start and
 * spurious_entries_start (which jump on to asm_common_interrupt and
 * asm_spurious_interrupt: those two are not entries themselves).
 */
static void rb_find_entries(void)
{
	size_t i;

	for (i = 0; i < rb_nsyms; i++) {
		const char *n = rb_syms[i].name;
		uint64_t next = i + 1 < rb_nsyms ? rb_syms[i + 1].addr : rb_text_end;

		if (!strcmp(n, "irq_entries_start") || !strcmp(n, "spurious_entries_start"))
			rb_add_entry(rb_syms[i].addr, next);
		else if (!strncmp(n, "asm_exc_", 8) || !strncmp(n, "asm_sysvec_", 11))
			rb_add_entry(rb_syms[i].addr, rb_syms[i].addr + 1);
	}
}

static bool rb_is_entry(uint64_t addr)
{
	size_t i;

	for (i = 0; i < rb_nentries; i++)
		if (addr >= rb_entries[i].lo && addr < rb_entries[i].hi)
			return true;
	return false;
}

/* ---- System.map: data symbols (coh=on: naming the hottest lines) ------ */

/* The kernel image's mapping: phys_base + (vaddr - this) is its physical address. */
#define RB_START_KERNEL_MAP 0xffffffff80000000ULL

static bool rb_coh_on;
static struct rb_sym *rb_dsyms;		/* the kernel image's data symbols */
static struct rb_sym *rb_pcpu_syms;	/* the per-CPU section's symbols (offsets) */
static size_t rb_ndsyms, rb_npcpu_syms, rb_dsyms_cap, rb_pcpu_syms_cap;
static uint64_t rb_image_lo, rb_image_hi;	/* _text, _end */
static uint64_t rb_pcpu_lo, rb_pcpu_hi;		/* __per_cpu_start, __per_cpu_end */

static void rb_sym_push(struct rb_sym **syms, size_t *n, size_t *cap, uint64_t addr,
			const char *name)
{
	if (*n == *cap) {
		*cap = *cap ? 2 * *cap : 4096;
		*syms = realloc(*syms, *cap * sizeof(**syms));
	}
	(*syms)[*n].addr = addr;
	(*syms)[*n].name = strdup(name);
	(*n)++;
}

/*
 * One System.map line, for naming lines: data (d, b, r: any binding) in
 * the kernel image, and the per-CPU section, whose symbols are offsets
 * into each CPU's per-CPU area (x86-64 before 6.15: zero-based, from
 * __per_cpu_start to __per_cpu_end, below the image).
 */
static void rb_map_data(uint64_t addr, char type, const char *name)
{
	if (!strcmp(name, "_text"))
		rb_image_lo = addr;
	else if (!strcmp(name, "_end"))
		rb_image_hi = addr;
	else if (!strcmp(name, "__per_cpu_start"))
		rb_pcpu_lo = addr;
	else if (!strcmp(name, "__per_cpu_end"))
		rb_pcpu_hi = addr;
	if (!strchr("dDbBrR", type))
		return;
	if (addr >= RB_START_KERNEL_MAP)
		rb_sym_push(&rb_dsyms, &rb_ndsyms, &rb_dsyms_cap, addr, name);
	else
		rb_sym_push(&rb_pcpu_syms, &rb_npcpu_syms, &rb_pcpu_syms_cap, addr, name);
}

/*
 * Sort and keep one symbol per address: section markers (_sdata,
 * __per_cpu_start, __bss_start...) share their address with the first
 * object, whose name is the one wanted; markers begin with '_', most
 * objects do not.
 */
static void rb_sym_unique(struct rb_sym *syms, size_t *n)
{
	size_t i, k = 0;

	if (!*n)
		return;
	qsort(syms, *n, sizeof(*syms), rb_sym_cmp);
	for (i = 1; i < *n; i++) {
		if (syms[i].addr != syms[k].addr)
			syms[++k] = syms[i];
		else if (syms[i].name[0] != '_' || syms[k].name[0] == '_')
			syms[k] = syms[i];
	}
	*n = k + 1;
}

static int rb_load_map(const char *path)
{
	char line[512], type, name[400];
	unsigned long long addr;
	size_t cap = 0;
	FILE *f = fopen(path, "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%llx %c %399s", &addr, &type, name) != 3)
			continue;
		if (!strcmp(name, "_etext"))
			rb_text_end = addr;
		if (rb_coh_on)
			rb_map_data(addr, type, name);
		if (type != 't' && type != 'T')
			continue;
		if (rb_nsyms == cap) {
			cap = cap ? 2 * cap : 65536;
			rb_syms = realloc(rb_syms, cap * sizeof(*rb_syms));
		}
		rb_syms[rb_nsyms].addr = addr;
		rb_syms[rb_nsyms].name = strdup(name);
		rb_nsyms++;
	}
	fclose(f);
	if (!rb_nsyms)
		return -1;
	qsort(rb_syms, rb_nsyms, sizeof(*rb_syms), rb_sym_cmp);
	if (!rb_text_end)
		rb_text_end = rb_syms[rb_nsyms - 1].addr + 1;
	rb_find_entries();
	if (rb_coh_on) {
		size_t i, k = 0;

		for (i = 0; i < rb_npcpu_syms; i++)
			if (rb_pcpu_syms[i].addr >= rb_pcpu_lo && rb_pcpu_syms[i].addr < rb_pcpu_hi)
				rb_pcpu_syms[k++] = rb_pcpu_syms[i];
		rb_npcpu_syms = k;
		rb_sym_unique(rb_dsyms, &rb_ndsyms);
		rb_sym_unique(rb_pcpu_syms, &rb_npcpu_syms);
	}
	return rb_nentries ? 0 : -1;
}

/* ---- per-vCPU state and records --------------------------------------- */

#define RB_MAX_VCPUS 64
#define __aligned(n) __attribute__((aligned(n)))

/* Coherence events (coh=on), in the order of their columns; transfers: the last two. */
enum rb_coh_kind { K_FIRST, K_READ_MISS, K_INVALIDATE, K_N };

struct rb_coh_cnt {
	uint64_t n[K_N];
};

struct rb_vcpu {
	int region;		/* open region id + 1, 0: none */
	int irq_nest;
	bool iret_pending;	/* the last block ended with iretq */
	int arm;		/* RB_OP_RANGE_LO/HI: the next load gives the address */
	uint64_t cnt[2][C_N];	/* [0] the region itself, [1] interrupts */
	uint64_t irqs;		/* interrupt entries inside the region */
	struct rb_coh_cnt coh[2];	/* coh=on: the region's coherence events, as cnt */
	/* Windows' interrupt work (core=): the episode being followed. */
	int wnest;		/* hard-interrupt nesting */
	int wsoftirq;		/* the nesting __do_softirq began at, 0: none */
	bool wiret_pending;
	uint64_t wep;		/* the episode's interrupts-off core instructions */
} __aligned(64);

static struct rb_vcpu rb_vcpus[RB_MAX_VCPUS];

struct rb_record {
	uint64_t seq;
	unsigned int vcpu;
	int id;
	uint64_t irqs;
	uint64_t cnt[2][C_N];
	struct rb_coh_cnt coh[2];
};

static pthread_mutex_t rb_lock = PTHREAD_MUTEX_INITIALIZER;
static struct rb_record *rb_records;
static size_t rb_nrecords, rb_records_cap;
static uint64_t rb_unmatched;	/* end markers without a start, starts left open */

/* Windows: attribution to functions, all vCPUs; each window is one slot. */
#define RB_MAX_WINDOWS 16
static int rb_window;	/* open window's slot + 1, 0: none (atomic) */
static int rb_nwindows;
static int rb_window_ids[RB_MAX_WINDOWS];
static unsigned int rb_nvcpus;

struct rb_func_cnt {
	uint64_t insns, fences, locked;
};

/* [slot][vcpu * rb_nsyms + symbol] */
static struct rb_func_cnt *rb_func_cnt[RB_MAX_WINDOWS];
static struct rb_coh_cnt *rb_coh_cnt[RB_MAX_WINDOWS];	/* coh=on only */

/* core=: each window's interrupt work per vCPU. */
struct rb_irqwork {
	uint64_t episodes;	/* hard-interrupt episodes with core work */
	uint64_t insns;		/* their core instructions, interrupts off */
	uint64_t max;		/* the largest episode's */
};

static struct rb_irqwork rb_irqwork[RB_MAX_WINDOWS][RB_MAX_VCPUS];
static bool *rb_core;		/* [symbol]: an interrupt-work function */
static long rb_softirq_func = -1;	/* __do_softirq's symbol */

/* Outside vmlinux text: counts per translation block address. */
struct rb_tb_cnt {
	uint64_t addr;
	unsigned int vcpu;
	int slot;
	struct rb_func_cnt c;
	struct rb_coh_cnt coh;
	struct rb_tb_cnt *next;
};

#define RB_TB_HASH 4096
static struct rb_tb_cnt *rb_tb_hash[RB_TB_HASH];

/* The counts of vCPU vcpu's block at vaddr (outside vmlinux text) in window slot. */
static struct rb_tb_cnt *rb_tb_cnt_get(int slot, unsigned int vcpu, uint64_t vaddr)
{
	struct rb_tb_cnt *t;
	unsigned int h = (vaddr >> 4) % RB_TB_HASH;

	pthread_mutex_lock(&rb_lock);
	for (t = rb_tb_hash[h]; t; t = t->next)
		if (t->addr == vaddr && t->vcpu == vcpu && t->slot == slot)
			break;
	if (!t) {
		t = calloc(1, sizeof(*t));
		t->addr = vaddr;
		t->vcpu = vcpu;
		t->slot = slot;
		t->next = rb_tb_hash[h];
		rb_tb_hash[h] = t;
	}
	pthread_mutex_unlock(&rb_lock);
	return t;
}

/* rbstat: counts by class, [vcpu][0 user, 1 kernel], and kernel functions. */
struct rb_stat_vcpu {
	uint64_t cnt[2][C_N];
} __aligned(64);

static int rb_stat_on;			/* atomic */
static struct rb_stat_vcpu rb_stat[RB_MAX_VCPUS];
static uint64_t *rb_stat_func;		/* [vcpu * rb_nsyms + symbol]: instructions */
static uint64_t *rb_stat_entries;	/* [vcpu * rb_nsyms + symbol]: entries */
/*
 * Functions whose instructions and entries (executions of their first
 * instruction: calls and tail calls) rbstat always reports: the RCU
 * read-side primitives of the suite's kernels, where they are functions
 * (workloads/tcg-plugin/count_rows.py READ_SIDE).  statfuncs=REGEX
 * (POSIX extended, matched against the whole name) replaces the list.
 */
#define RB_STAT_FUNCS_DEFAULT \
	"__rcu_read_lock|__rcu_read_unlock|rcu_read_unlock_special|rcu_preempted_reader_exit"
static bool *rb_stat_named;		/* [symbol]: reported by name */
static int rb_stat_fd = -1;		/* the channel to the guest, -1: none */
static uint64_t rb_stat_windows;

static const char *rb_out_path;
static bool rb_mem = true;
static unsigned long rb_ntb_fast, rb_ntb_slow;

/* What the translator knows about one block (never freed: blocks are few). */
struct rb_tb {
	bool ret;		/* ends with a ret */
	uint32_t cls[C_N];	/* totals of the block */
	uint64_t vaddr;
	long func;		/* vmlinux function of all its insns, -1: none or mixed */
	bool entry;		/* starts at an interrupt entry */
	bool iret;		/* ends with iretq */
};

struct rb_insn {
	struct rb_decoded d;
	uint64_t vaddr;
	long func;
	bool entry;
};

/* Kernel addresses are the upper half of the x86-64 address space. */
static inline int rb_is_kernel(uint64_t vaddr)
{
	return vaddr >= 0xffff800000000000ULL;
}

static inline void rb_stat_count(unsigned int vcpu, long func, uint64_t vaddr,
				 const uint32_t *cls)
{
	uint64_t *cnt = rb_stat[vcpu].cnt[rb_is_kernel(vaddr)];
	int c;

	for (c = 0; c < C_N; c++)
		cnt[c] += cls[c];
	if (func >= 0) {
		rb_stat_func[vcpu * rb_nsyms + func] += cls[C_INSNS];
		if (vaddr == rb_syms[func].addr)
			rb_stat_entries[vcpu * rb_nsyms + func]++;
	}
}

static void rb_stat_open(void)
{
	memset(rb_stat, 0, sizeof(rb_stat));
	memset(rb_stat_func, 0, (size_t)rb_nvcpus * rb_nsyms * sizeof(*rb_stat_func));
	memset(rb_stat_entries, 0, (size_t)rb_nvcpus * rb_nsyms * sizeof(*rb_stat_entries));
	__atomic_store_n(&rb_stat_on, 1, __ATOMIC_SEQ_CST);
}

/* Write all of buf to the channel (a FIFO the guest reads: short writes). */
static void rb_stat_write(const char *buf, size_t len)
{
	while (len) {
		ssize_t n = write(rb_stat_fd, buf, len);

		if (n <= 0)
			return;
		buf += n;
		len -= n;
	}
}

#define RB_STAT_TOP 10

/*
 * The window's totals as lines: "rbstat 1 vcpus N", "user|kernel
 * <class>=<count>...", up to RB_STAT_TOP "func <name> <insns>" (the kernel
 * functions that executed most instructions, all vCPUs), "named <name>
 * <insns> <entries>" for each function of statfuncs=, "end".
 */
static void rb_stat_close(void)
{
	static const char *const space[2] = { "user", "kernel" };
	uint64_t tot[2][C_N] = { { 0 } };
	size_t top[RB_STAT_TOP], ntop = 0, i, k;
	uint64_t *sum, *entries;
	char *buf = NULL;
	size_t len = 0;
	FILE *f;
	int s, c;

	__atomic_store_n(&rb_stat_on, 0, __ATOMIC_SEQ_CST);
	rb_stat_windows++;
	if (rb_stat_fd < 0)
		return;
	sum = calloc(rb_nsyms, sizeof(*sum));
	entries = calloc(rb_nsyms, sizeof(*entries));
	for (unsigned int v = 0; v < rb_nvcpus; v++) {
		for (s = 0; s < 2; s++)
			for (c = 0; c < C_N; c++)
				tot[s][c] += rb_stat[v].cnt[s][c];
		for (i = 0; i < rb_nsyms; i++) {
			sum[i] += rb_stat_func[v * rb_nsyms + i];
			entries[i] += rb_stat_entries[v * rb_nsyms + i];
		}
	}
	for (i = 0; i < rb_nsyms; i++) {
		if (!sum[i] || (ntop == RB_STAT_TOP && sum[i] <= sum[top[ntop - 1]]))
			continue;
		k = ntop < RB_STAT_TOP ? ntop++ : ntop - 1;
		while (k > 0 && sum[top[k - 1]] < sum[i]) {
			top[k] = top[k - 1];
			k--;
		}
		top[k] = i;
	}
	f = open_memstream(&buf, &len);
	fprintf(f, "rbstat 1 vcpus %u mem %s\n", rb_nvcpus, rb_mem ? "on" : "off");
	for (s = 0; s < 2; s++) {
		fprintf(f, "%s", space[s]);
		for (c = 0; c < C_N; c++)
			fprintf(f, " %s=%" PRIu64, rb_class_name[c], tot[s][c]);
		fputc('\n', f);
	}
	for (i = 0; i < ntop; i++)
		fprintf(f, "func %s %" PRIu64 "\n", rb_syms[top[i]].name, sum[top[i]]);
	for (i = 0; i < rb_nsyms; i++)
		if (rb_stat_named[i])
			fprintf(f, "named %s %" PRIu64 " %" PRIu64 "\n", rb_syms[i].name, sum[i],
				entries[i]);
	fprintf(f, "end\n");
	fclose(f);
	rb_stat_write(buf, len);
	free(buf);
	free(sum);
	free(entries);
}

/* Mark the symbols whose whole name matches the extended regex re. */
static int rb_stat_name_funcs(const char *re)
{
	regex_t rx;
	char *anchored;
	size_t i;

	if (asprintf(&anchored, "^(%s)$", re) < 0)
		return -1;
	if (regcomp(&rx, anchored, REG_EXTENDED | REG_NOSUB)) {
		free(anchored);
		return -1;
	}
	free(anchored);
	rb_stat_named = calloc(rb_nsyms, sizeof(*rb_stat_named));
	for (i = 0; i < rb_nsyms; i++)
		rb_stat_named[i] = !regexec(&rx, rb_syms[i].name, 0, NULL, 0);
	regfree(&rx);
	return 0;
}

/*
 * core=, notcore=: mark the interrupt-work functions: the symbols whose
 * name without a ".suffix" (.isra.0, .constprop.0, .cold) matches the
 * extended regex core and not notcore (NULL: none); note __do_softirq.
 */
static int rb_core_funcs(const char *core, const char *notcore)
{
	regex_t rx[2];
	char *anchored;
	int n, k;
	size_t i;

	for (n = 0; n < 2 && (n == 0 ? core : notcore); n++) {
		if (asprintf(&anchored, "^(%s)$", n == 0 ? core : notcore) < 0)
			return -1;
		k = regcomp(&rx[n], anchored, REG_EXTENDED | REG_NOSUB);
		free(anchored);
		if (k) {
			while (n--)
				regfree(&rx[n]);
			return -1;
		}
	}
	rb_core = calloc(rb_nsyms, sizeof(*rb_core));
	for (i = 0; i < rb_nsyms; i++) {
		char *name = strdup(rb_syms[i].name), *dot = strchr(name, '.');

		if (dot)
			*dot = '\0';
		rb_core[i] = !regexec(&rx[0], name, 0, NULL, 0) &&
			     (n < 2 || regexec(&rx[1], name, 0, NULL, 0));
		if (!strcmp(name, "__do_softirq"))
			rb_softirq_func = i;
		free(name);
	}
	while (n--)
		regfree(&rx[n]);
	return 0;
}

/* ---- the coherence model (coh=on): state and windows ------------------ */

/*
 * One model of the guest's RAM.  Multi-threaded TCG runs the vCPUs in
 * parallel, so each line's accesses are serialised by one of
 * RB_COH_STRIPES locks chosen by line number: neighbouring lines, which
 * different vCPUs touch at the same time, take different locks (each
 * lock in a host cache line of its own).
 */
#define RB_COH_STRIPES 1024
#define RB_COH_TOP 5		/* the hottest lines named per window */
#define RB_COH_LINE_MASK ((1ULL << RB_COH_LINE_SHIFT) - 1)

struct rb_coh_stripe {
	pthread_mutex_t lock;
} __aligned(64);

static struct rb_coh rb_coh;
static struct rb_coh_stripe rb_coh_stripes[RB_COH_STRIPES];

/*
 * The model runs only while something watches it: an open window, or a
 * vCPU's open region.  Outside, accesses skip it (a boot to init runs
 * several times faster), and it starts cold again when watching begins
 * (a new epoch: a line's first access is a first touch).
 */
static int rb_coh_watchers;

static void rb_coh_watch(void)
{
	if (!rb_coh_on)
		return;
	if (!__atomic_load_n(&rb_coh_watchers, __ATOMIC_RELAXED))
		rb_coh_new_epoch(&rb_coh);
	__atomic_fetch_add(&rb_coh_watchers, 1, __ATOMIC_SEQ_CST);
}

static void rb_coh_unwatch(void)
{
	if (rb_coh_on)
		__atomic_fetch_sub(&rb_coh_watchers, 1, __ATOMIC_SEQ_CST);
}

/* Per vCPU, for the end line: what the model took and what it could not. */
struct rb_coh_vcpu {
	uint64_t accesses;	/* line accesses modelled */
	uint64_t io;		/* MMIO or no physical address: skipped */
	uint64_t outside;	/* above the modelled RAM */
	uint64_t image_off;	/* kernel image data at another phys_base */
} __aligned(64);

static struct rb_coh_vcpu rb_coh_vcpus[RB_MAX_VCPUS];

/*
 * Each line's transfers in the open window, for naming the hottest: slot
 * says which window (+ 1) the count belongs to, so that a new window
 * needs no clearing.  Serialised by the line's stripe lock, like the
 * model's line.
 */
struct rb_coh_hot {
	uint64_t vaddr;		/* the virtual address of its last transfer */
	uint32_t transfers;
	uint8_t slot;
};

static struct rb_coh_hot *rb_coh_hot;	/* [line] */

/* The lines with a transfer in the open window. */
static pthread_mutex_t rb_coh_list_lock = PTHREAD_MUTEX_INITIALIZER;
static uint64_t *rb_coh_list;
static size_t rb_coh_nlist, rb_coh_list_cap;

struct rb_coh_top {
	uint64_t line, vaddr;
	uint32_t transfers;
};

static struct rb_coh_top rb_coh_top[RB_MAX_WINDOWS][RB_COH_TOP];
static int rb_coh_ntop[RB_MAX_WINDOWS];
static bool rb_coh_top_done[RB_MAX_WINDOWS];

/*
 * Each vCPU's per-CPU base (its __per_cpu_offset[], the kernel's GS base),
 * learnt from its %gs-relative accesses, to name per-CPU lines; 0: none
 * seen.  And phys_base, learnt from accesses to the kernel image's data
 * (UINT64_MAX: none yet), to check the physical addresses.
 */
static uint64_t rb_gs_base[RB_MAX_VCPUS];
static uint64_t rb_phys_base = UINT64_MAX;

/* Line a before line b among the hottest: more transfers, then lower address. */
static bool rb_coh_hotter(uint32_t ta, uint64_t a, const struct rb_coh_top *b)
{
	return ta > b->transfers || (ta == b->transfers && a < b->line);
}

/*
 * The hottest lines of window slot, from the lines with a transfer in it.
 * Taken when the next window opens or at exit, not at its close marker:
 * by then no access of the window can still be on its way.
 */
static void rb_coh_window_done(int slot)
{
	struct rb_coh_top *top = rb_coh_top[slot];
	size_t i;
	int k, n = 0;

	if (!rb_coh_on || rb_coh_top_done[slot])
		return;
	rb_coh_top_done[slot] = true;
	pthread_mutex_lock(&rb_coh_list_lock);
	for (i = 0; i < rb_coh_nlist; i++) {
		uint64_t line = rb_coh_list[i];
		const struct rb_coh_hot *h = &rb_coh_hot[line];

		if (n == RB_COH_TOP && !rb_coh_hotter(h->transfers, line, &top[n - 1]))
			continue;
		k = n < RB_COH_TOP ? n++ : n - 1;
		while (k > 0 && rb_coh_hotter(h->transfers, line, &top[k - 1])) {
			top[k] = top[k - 1];
			k--;
		}
		top[k].line = line;
		top[k].vaddr = h->vaddr;
		top[k].transfers = h->transfers;
	}
	rb_coh_ntop[slot] = n;
	rb_coh_nlist = 0;
	pthread_mutex_unlock(&rb_coh_list_lock);
}

static void rb_close_region(unsigned int vcpu, struct rb_vcpu *v, int id)
{
	struct rb_record *r;

	if (v->region)
		rb_coh_unwatch();
	pthread_mutex_lock(&rb_lock);
	if (v->region != id + 1) {
		rb_unmatched++;
		pthread_mutex_unlock(&rb_lock);
		v->region = 0;
		return;
	}
	if (rb_nrecords == rb_records_cap) {
		rb_records_cap = rb_records_cap ? 2 * rb_records_cap : 1024;
		rb_records = realloc(rb_records, rb_records_cap * sizeof(*rb_records));
	}
	r = &rb_records[rb_nrecords];
	r->seq = rb_nrecords++;
	r->vcpu = vcpu;
	r->id = id;
	r->irqs = v->irqs;
	memcpy(r->cnt, v->cnt, sizeof(r->cnt));
	memcpy(r->coh, v->coh, sizeof(r->coh));
	pthread_mutex_unlock(&rb_lock);
	v->region = 0;
}

static void rb_marker(unsigned int vcpu, struct rb_vcpu *v, int op, int id)
{
	switch (op) {
	case RB_OP_START:
		if (v->region)
			__atomic_fetch_add(&rb_unmatched, 1, __ATOMIC_RELAXED);
		else
			rb_coh_watch();
		memset(v->cnt, 0, sizeof(v->cnt));
		memset(v->coh, 0, sizeof(v->coh));
		v->irqs = 0;
		v->irq_nest = 0;
		v->iret_pending = false;
		v->region = id + 1;
		break;
	case RB_OP_END:
		rb_close_region(vcpu, v, id);
		break;
	case RB_OP_WIN_OPEN:
		pthread_mutex_lock(&rb_lock);
		if (__atomic_load_n(&rb_window, __ATOMIC_RELAXED) ||
		    rb_nwindows == RB_MAX_WINDOWS) {
			rb_unmatched++;
		} else {
			if (rb_coh_on) {
				if (rb_nwindows)
					rb_coh_window_done(rb_nwindows - 1);
				rb_coh_cnt[rb_nwindows] = calloc((size_t)rb_nvcpus * rb_nsyms,
								 sizeof(struct rb_coh_cnt));
			}
			rb_func_cnt[rb_nwindows] = calloc((size_t)rb_nvcpus * rb_nsyms,
							  sizeof(struct rb_func_cnt));
			rb_window_ids[rb_nwindows] = id;
			rb_nwindows++;
			rb_coh_watch();
			__atomic_store_n(&rb_window, rb_nwindows, __ATOMIC_SEQ_CST);
		}
		pthread_mutex_unlock(&rb_lock);
		break;
	case RB_OP_WIN_CLOSE:
		if (__atomic_exchange_n(&rb_window, 0, __ATOMIC_SEQ_CST))
			rb_coh_unwatch();
		break;
	case RB_OP_RANGE_LO:
	case RB_OP_RANGE_HI:
		v->arm = op;
		break;
	case RB_OP_STAT_OPEN:
		rb_stat_open();
		break;
	case RB_OP_STAT_CLOSE:
		rb_stat_close();
		break;
	}
}

static inline void rb_add(uint64_t *cnt, const uint32_t *cls)
{
	int c;

	for (c = 0; c < C_N; c++)
		cnt[c] += cls[c];
}

/*
 * core=: follow vCPU v's hard-interrupt episodes in window slot (entry:
 * the block or instruction begins an interrupt entry; iret: it ends with
 * iretq, whose return is seen at the next one), and add the interrupts-off
 * core instructions of func to the episode.
 */
static void rb_irqwork_count(int slot, unsigned int vcpu, struct rb_vcpu *v, bool entry,
			     bool iret, long func, uint32_t insns)
{
	if (v->wiret_pending) {
		v->wiret_pending = false;
		if (v->wnest > 0 && --v->wnest < v->wsoftirq)
			v->wsoftirq = 0;
		if (v->wnest == 0 && v->wep) {
			struct rb_irqwork *w = &rb_irqwork[slot][vcpu];

			w->episodes++;
			w->insns += v->wep;
			if (v->wep > w->max)
				w->max = v->wep;
			v->wep = 0;
		}
	}
	if (entry) {
		if (v->wnest == 0) {
			v->wep = 0;
			v->wsoftirq = 0;
		}
		v->wnest++;
	}
	v->wiret_pending = iret;
	if (v->wnest == 0 || func < 0)
		return;
	if (func == rb_softirq_func) {
		if (!v->wsoftirq)
			v->wsoftirq = v->wnest;
	} else if (rb_core[func] && (!v->wsoftirq || v->wnest > v->wsoftirq)) {
		v->wep += insns;
	}
}

static void rb_window_count(int slot, unsigned int vcpu, long func, uint64_t vaddr,
			    const uint32_t *cls)
{
	struct rb_func_cnt *fc;

	if (func >= 0)
		fc = &rb_func_cnt[slot][vcpu * rb_nsyms + func];
	else
		fc = &rb_tb_cnt_get(slot, vcpu, vaddr)->c;
	fc->insns += cls[C_INSNS];
	fc->fences += cls[C_FENCES];
	fc->locked += cls[C_LOCKED];
}

/*
 * Interrupt nesting, at the start of a block (or instruction) that begins
 * an interrupt entry or ends with iretq.  The iretq's own memory accesses
 * (its pops and descriptor loads) come after this callback, so its
 * decrement waits for the next block.
 */
static inline void rb_irq_track(struct rb_vcpu *v, bool entry, bool iret)
{
	if (v->iret_pending) {
		v->iret_pending = false;
		if (v->irq_nest > 0)
			v->irq_nest--;
	}
	if (entry) {
		v->irq_nest++;
		v->irqs++;
	}
	v->iret_pending = iret;
}

/*
 * Function ranges: code without markers (refscale's loop) counted as a
 * region per call.  A module sets the range with RB_OP_RANGE_LO/HI markers,
 * each followed by a one-byte load whose address is the range's first and
 * last byte.  Each call (a block starting at the range's start) opens a
 * region with id RB_RANGE_ID_BASE + the range's generation; the first
 * ret of a block inside the range closes it.
 */
static uint64_t rb_range_lo, rb_range_hi;	/* [lo, hi), 0: none */
static int rb_range_gen;

static void rb_range_exec(unsigned int vcpu, struct rb_vcpu *v, struct rb_tb *tb, bool after)
{
	int id = RB_RANGE_ID_BASE + rb_range_gen;

	if (!after && tb->vaddr == rb_range_lo && !v->region)
		rb_marker(vcpu, v, RB_OP_START, id);
	else if (after && tb->ret && v->region == id + 1 && tb->vaddr >= rb_range_lo &&
		 tb->vaddr < rb_range_hi)
		rb_marker(vcpu, v, RB_OP_END, id);
}

static void rb_range_arm(struct rb_vcpu *v, uint64_t vaddr)
{
	pthread_mutex_lock(&rb_lock);
	if (v->arm == RB_OP_RANGE_LO) {
		rb_range_hi = 0;
		rb_range_lo = vaddr;
	} else if (rb_range_lo) {
		rb_range_gen++;
		rb_range_hi = vaddr + 1;
	}
	pthread_mutex_unlock(&rb_lock);
	v->arm = 0;
}

/* Fast path: a block without markers, counted as a whole at its start. */
static void rb_tb_exec(unsigned int vcpu, void *udata)
{
	struct rb_tb *tb = udata;
	struct rb_vcpu *v = &rb_vcpus[vcpu];
	int w = __atomic_load_n(&rb_window, __ATOMIC_RELAXED);
	bool range = rb_range_hi != 0;

	if (range)
		rb_range_exec(vcpu, v, tb, false);
	if (v->region) {
		rb_irq_track(v, tb->entry, tb->iret);
		rb_add(v->cnt[v->irq_nest > 0], tb->cls);
		if (range)
			rb_range_exec(vcpu, v, tb, true);
	}
	if (w) {
		if (rb_core)
			rb_irqwork_count(w - 1, vcpu, v, tb->entry, tb->iret, tb->func,
					 tb->cls[C_INSNS]);
		rb_window_count(w - 1, vcpu, tb->func, tb->vaddr, tb->cls);
	}
	if (__atomic_load_n(&rb_stat_on, __ATOMIC_RELAXED))
		rb_stat_count(vcpu, tb->func, tb->vaddr, tb->cls);
}

/* Slow path: blocks holding a marker, one callback per instruction. */
static void rb_insn_exec(unsigned int vcpu, void *udata)
{
	struct rb_insn *in = udata;
	struct rb_vcpu *v = &rb_vcpus[vcpu];
	int w;

	if (in->d.marker_op) {
		rb_marker(vcpu, v, in->d.marker_op, in->d.marker_id);
		return;
	}
	if (v->region) {
		rb_irq_track(v, in->entry, in->d.iret);
		rb_add(v->cnt[v->irq_nest > 0], in->d.cls);
	}
	w = __atomic_load_n(&rb_window, __ATOMIC_RELAXED);
	if (w) {
		if (rb_core)
			rb_irqwork_count(w - 1, vcpu, v, in->entry, in->d.iret, in->func,
					 in->d.cls[C_INSNS]);
		rb_window_count(w - 1, vcpu, in->func, in->vaddr, in->d.cls);
	}
	if (__atomic_load_n(&rb_stat_on, __ATOMIC_RELAXED))
		rb_stat_count(vcpu, in->func, in->vaddr, in->d.cls);
}

/* udata: 1 when the accessing instruction is kernel code, else 0 (rbstat). */
static void rb_mem_exec(unsigned int vcpu, qemu_plugin_meminfo_t info, uint64_t vaddr,
			void *udata)
{
	struct rb_vcpu *v = &rb_vcpus[vcpu];
	int cls = qemu_plugin_mem_is_store(info) ? C_STORES : C_LOADS;

	if (v->arm)
		rb_range_arm(v, vaddr);
	if (v->region)
		v->cnt[v->irq_nest > 0][cls]++;
	if (__atomic_load_n(&rb_stat_on, __ATOMIC_RELAXED))
		rb_stat[vcpu].cnt[udata != NULL][cls]++;
}

/* ---- the coherence model (coh=on): accesses --------------------------- */

/* What a memory callback knows of its instruction. */
struct rb_mem_insn {
	long func;		/* its vmlinux function, -1 outside vmlinux text */
	uint64_t key;		/* outside vmlinux text: the address its counts go to */
	int32_t gs_disp;	/* gs: the displacement of its %gs-relative operand */
	bool gs;		/* its only access is %gs:gs_disp: learn the GS base */
	bool count;		/* count its loads and stores (rb_mem_exec) */
	bool kernel;
	bool rmw;		/* locked: its load fetches the line for ownership */
};

/*
 * A %gs-relative instruction whose only memory access is its operand at an
 * absolute 32-bit displacement: prefixes (65, 66, f0, f2, f3), REX without
 * X, an opcode of the list, modrm mod 00 r/m 100, SIB index 100 base 101,
 * disp32.  The kernel's this_cpu_*() compile to it (zero-based per-CPU
 * symbols), so its address minus disp is the vCPU's GS base.  The list:
 * ALU, mov, test, xchg, group 1/3 and inc/dec, movzx/movsx, cmpxchg,
 * xadd, imul: no push, pop, call or string access beside the operand.
 */
static bool rb_gs_disp(const uint8_t *p, size_t len, int32_t *disp)
{
	const uint8_t *end = p + len;
	bool gs = false, ok;
	uint8_t op, reg;

	for (; p < end; p++) {
		if (*p == 0x65)
			gs = true;
		else if (*p != 0x66 && *p != 0xf0 && *p != 0xf2 && *p != 0xf3)
			break;
	}
	if (p < end && (*p & 0xf0) == 0x40) {
		if (*p & 2)	/* REX.X: an index register */
			return false;
		p++;
	}
	if (!gs || end - p < 7)
		return false;
	op = *p++;
	if (op == 0x0f) {
		op = *p++;
		ok = op == 0xb6 || op == 0xb7 || op == 0xbe || op == 0xbf || op == 0xb0 ||
		     op == 0xb1 || op == 0xc0 || op == 0xc1 || op == 0xaf;
	} else {
		reg = (p[0] >> 3) & 7;
		ok = (op < 0x40 && (op & 7) < 4) || (op >= 0x80 && op <= 0x8b && op != 0x82) ||
		     op == 0xc6 || op == 0xc7 || op == 0xf6 || op == 0xf7 || op == 0xfe ||
		     (op == 0xff && reg <= 1);
	}
	if (!ok || end - p < 6 || (p[0] & 0xc7) != 0x04 || (p[1] & 0x3f) != 0x25)
		return false;
	memcpy(disp, p + 2, 4);
	return true;
}

/*
 * Kernel image data is mapped at RB_START_KERNEL_MAP + its physical
 * address - phys_base: every access there should give one phys_base.
 */
static void rb_coh_phys_base(struct rb_coh_vcpu *cv, uint64_t pb)
{
	uint64_t cur = __atomic_load_n(&rb_phys_base, __ATOMIC_RELAXED);

	if (cur == UINT64_MAX && __atomic_compare_exchange_n(&rb_phys_base, &cur, pb, false,
							     __ATOMIC_RELAXED, __ATOMIC_RELAXED))
		return;
	if (cur != pb)
		cv->image_off++;
}

/* A transfer of line n in window slot, under the line's stripe lock. */
static void rb_coh_hot_add(int slot, uint64_t n, uint64_t vaddr)
{
	struct rb_coh_hot *h = &rb_coh_hot[n];

	if (h->slot != slot + 1) {
		h->slot = slot + 1;
		h->transfers = 0;
		pthread_mutex_lock(&rb_coh_list_lock);
		if (rb_coh_nlist == rb_coh_list_cap) {
			rb_coh_list_cap = rb_coh_list_cap ? 2 * rb_coh_list_cap : 4096;
			rb_coh_list = realloc(rb_coh_list, rb_coh_list_cap * sizeof(*rb_coh_list));
		}
		rb_coh_list[rb_coh_nlist++] = n;
		pthread_mutex_unlock(&rb_coh_list_lock);
	}
	h->transfers++;
	h->vaddr = vaddr;
}

/* The column of a model event, -1 for hits and fills (they move nothing between caches). */
static int rb_coh_kind_of(enum rb_coh_event e)
{
	if (e == RB_COH_FIRST)
		return K_FIRST;
	if (e == RB_COH_READ_MISS)
		return K_READ_MISS;
	if (e == RB_COH_INVALIDATE)
		return K_INVALIDATE;
	return -1;
}

/* An event (column k) of vCPU vcpu's instruction mi in window slot, where its instructions go. */
static void rb_coh_count(int slot, unsigned int vcpu, const struct rb_mem_insn *mi, int k)
{
	struct rb_coh_cnt *c;

	if (mi->func >= 0)
		c = &rb_coh_cnt[slot][vcpu * rb_nsyms + mi->func];
	else
		c = &rb_tb_cnt_get(slot, vcpu, mi->key)->coh;
	c->n[k]++;
}

/* vCPU vcpu's access to the line holding vaddr. */
static void rb_coh_line(unsigned int vcpu, qemu_plugin_meminfo_t info, uint64_t vaddr,
			const struct rb_mem_insn *mi, bool write)
{
	struct qemu_plugin_hwaddr *hw = qemu_plugin_get_hwaddr(info, vaddr);
	struct rb_coh_vcpu *cv = &rb_coh_vcpus[vcpu];
	struct rb_vcpu *v = &rb_vcpus[vcpu];
	pthread_mutex_t *lock;
	enum rb_coh_event e;
	uint64_t pa, n;
	int w, k;

	if (!hw || qemu_plugin_hwaddr_is_io(hw)) {
		cv->io++;
		return;
	}
	pa = qemu_plugin_hwaddr_phys_addr(hw);
	if (vaddr >= rb_image_lo && vaddr < rb_image_hi)
		rb_coh_phys_base(cv, pa - (vaddr - RB_START_KERNEL_MAP));
	n = pa >> RB_COH_LINE_SHIFT;
	lock = &rb_coh_stripes[n % RB_COH_STRIPES].lock;
	/* Read once: the model's event and its window counts agree. */
	w = __atomic_load_n(&rb_window, __ATOMIC_RELAXED);
	pthread_mutex_lock(lock);
	e = rb_coh_access(&rb_coh, pa, vcpu, write);
	if (w && rb_coh_is_transfer(e))
		rb_coh_hot_add(w - 1, n, vaddr);
	pthread_mutex_unlock(lock);
	if (e == RB_COH_OUTSIDE) {
		cv->outside++;
		return;
	}
	cv->accesses++;
	k = rb_coh_kind_of(e);
	if (k < 0)
		return;
	if (w)
		rb_coh_count(w - 1, vcpu, mi, k);
	/* A region's own accesses apart from its interrupts', as its instructions. */
	if (v->region)
		v->coh[v->irq_nest > 0].n[k]++;
}

/*
 * coh=on: every instruction's callback.  A locked read-modify-write is
 * one request for ownership on hardware, so its load counts as a write
 * (then its store hits the line it holds modified); an access that spans
 * two lines touches both.
 */
static void rb_mem_coh_exec(unsigned int vcpu, qemu_plugin_meminfo_t info, uint64_t vaddr,
			    void *udata)
{
	const struct rb_mem_insn *mi = udata;
	bool write = mi->rmw || qemu_plugin_mem_is_store(info);
	uint64_t size = 1ULL << qemu_plugin_mem_size_shift(info);
	uint64_t base = vaddr - (int64_t)mi->gs_disp;

	if (mi->count)
		rb_mem_exec(vcpu, info, vaddr, mi->kernel ? (void *)1 : NULL);
	/*
	 * Per-CPU areas are page-aligned, in the upper half (the direct map
	 * of 5-level paging, -cpu max, starts at 0xff11000000000000, below
	 * rb_is_kernel()'s bound): anything else was no GS base.
	 */
	if (mi->gs && !(base & 0xfff) && (int64_t)base < 0)
		__atomic_store_n(&rb_gs_base[vcpu], base, __ATOMIC_RELAXED);
	if (!__atomic_load_n(&rb_coh_watchers, __ATOMIC_RELAXED))
		return;
	rb_coh_line(vcpu, info, vaddr, mi, write);
	if ((vaddr & RB_COH_LINE_MASK) + size > RB_COH_LINE_MASK + 1)
		rb_coh_line(vcpu, info, (vaddr | RB_COH_LINE_MASK) + 1, mi, write);
}

static void rb_tb_trans(qemu_plugin_id_t id, struct qemu_plugin_tb *qtb)
{
	size_t i, n = qemu_plugin_tb_n_insns(qtb);
	struct rb_insn *ins = calloc(n ? n : 1, sizeof(*ins));
	struct rb_tb *tb = calloc(1, sizeof(*tb));
	/* coh=on: what each instruction's memory callback needs (never freed). */
	struct rb_mem_insn *mis = rb_coh_on ? calloc(n ? n : 1, sizeof(*mis)) : NULL;
	bool has_marker = false, slow;

	tb->vaddr = qemu_plugin_tb_vaddr(qtb);
	tb->entry = rb_is_entry(tb->vaddr);
	tb->func = n ? -2 : -1;
	for (i = 0; i < n; i++) {
		struct qemu_plugin_insn *qi = qemu_plugin_tb_get_insn(qtb, i);
		struct rb_insn *in = &ins[i];

		rb_decode(qemu_plugin_insn_data(qi), qemu_plugin_insn_size(qi), &in->d);
		/* Only a block's last instruction is counted statically. */
		if (i + 1 < n || !in->d.mem_known) {
			in->d.mem_known = false;
			in->d.cls[C_LOADS] = in->d.cls[C_STORES] = 0;
		}
		in->vaddr = qemu_plugin_insn_vaddr(qi);
		in->func = rb_func_of(in->vaddr);
		in->entry = i == 0 && tb->entry;
		has_marker |= in->d.marker_op != 0;
		for (int c = 0; c < C_N; c++)
			tb->cls[c] += in->d.cls[c];
		if (tb->func == -2)
			tb->func = in->func;
		else if (tb->func != in->func)
			tb->func = -3;
		/*
		 * Not on a last instruction counted statically (see
		 * rb_static_mem()).  Open problem: about 1 boot in 10 with
		 * memory callbacks stops making progress after a test (none
		 * in 6 with mem=off; not registering them on any block's last
		 * instruction did not help): cause unknown.
		 *
		 * coh=on: on every instruction, since the model needs every
		 * address; loads and stores are counted as without it (count).
		 * An interrupt delivered after a block then reports its own
		 * accesses through the last instruction's callback: they are
		 * real accesses, modelled as that instruction's.
		 */
		if (rb_coh_on) {
			struct rb_mem_insn *mi = &mis[i];

			mi->func = in->func;
			mi->kernel = rb_is_kernel(in->vaddr);
			mi->count = rb_mem && !in->d.mem_known;
			mi->rmw = in->d.cls[C_LOCKED];
			/* Not a last instruction: an interrupt's accesses are no %gs ones. */
			mi->gs = mi->kernel && i + 1 < n &&
				 rb_gs_disp(qemu_plugin_insn_data(qi), qemu_plugin_insn_size(qi),
					    &mi->gs_disp);
			qemu_plugin_register_vcpu_mem_cb(qi, rb_mem_coh_exec,
							 QEMU_PLUGIN_CB_NO_REGS, QEMU_PLUGIN_MEM_RW,
							 mi);
		} else if (rb_mem && !in->d.mem_known) {
			qemu_plugin_register_vcpu_mem_cb(qi, rb_mem_exec, QEMU_PLUGIN_CB_NO_REGS,
							 QEMU_PLUGIN_MEM_RW,
							 rb_is_kernel(in->vaddr) ? (void *)1 : NULL);
		}
	}
	tb->iret = n && ins[n - 1].d.iret;
	tb->ret = n && ins[n - 1].d.cls[C_RETS];
	slow = has_marker || tb->func == -3;
	/* Outside vmlinux text events go where the instructions go: rb_window_count(). */
	for (i = 0; mis && i < n; i++)
		mis[i].key = slow ? ins[i].vaddr : tb->vaddr;
	if (slow) {
		/* Per instruction: markers take effect exactly where they are. */
		for (i = 0; i < n; i++)
			qemu_plugin_register_vcpu_insn_exec_cb(qemu_plugin_tb_get_insn(qtb, i),
							       rb_insn_exec,
							       QEMU_PLUGIN_CB_NO_REGS, &ins[i]);
		free(tb);
		__atomic_fetch_add(&rb_ntb_slow, 1, __ATOMIC_RELAXED);
	} else {
		qemu_plugin_register_vcpu_tb_exec_cb(qtb, rb_tb_exec, QEMU_PLUGIN_CB_NO_REGS, tb);
		free(ins);
		__atomic_fetch_add(&rb_ntb_fast, 1, __ATOMIC_RELAXED);
	}
}

/* ---- output ----------------------------------------------------------- */

/* coh=on: the coherence columns of a region or window row (c: its counts). */
#define RB_COH_COLUMNS ",first_touches,read_misses,invalidations,transfers"

static void rb_write_coh(FILE *f, const struct rb_coh_cnt *c)
{
	if (!rb_coh_on)
		return;
	fprintf(f, ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64, c->n[K_FIRST],
		c->n[K_READ_MISS], c->n[K_INVALIDATE], c->n[K_READ_MISS] + c->n[K_INVALIDATE]);
}

static void rb_write_counts(FILE *f)
{
	static const char *const bucket[2] = { "region", "irq" };
	size_t i;
	int b, c;

	fprintf(f, "# rbcount 1: regions\nkind,seq,vcpu,id,bucket,irqs");
	for (c = 0; c < C_N; c++)
		fprintf(f, ",%s", rb_class_name[c]);
	fprintf(f, "%s\n", rb_coh_on ? RB_COH_COLUMNS : "");
	for (i = 0; i < rb_nrecords; i++) {
		struct rb_record *r = &rb_records[i];

		for (b = 0; b < 2; b++) {
			fprintf(f, "region,%" PRIu64 ",%u,%d,%s,%" PRIu64, r->seq, r->vcpu, r->id,
				bucket[b], r->irqs);
			for (c = 0; c < C_N; c++)
				fprintf(f, ",%" PRIu64, r->cnt[b][c]);
			rb_write_coh(f, &r->coh[b]);
			fputc('\n', f);
		}
	}
}

static void rb_write_funcs(FILE *f)
{
	static const struct rb_coh_cnt none;
	unsigned int vcpu;
	size_t i, h;
	int w;

	fprintf(f, "# rbcount 1: windows\nkind,seq,vcpu,id,func,addr,insns,fences,locked%s\n",
		rb_coh_on ? RB_COH_COLUMNS : "");
	for (w = 0; w < rb_nwindows; w++) {
		for (vcpu = 0; vcpu < rb_nvcpus; vcpu++) {
			for (i = 0; i < rb_nsyms; i++) {
				struct rb_func_cnt *fc = &rb_func_cnt[w][vcpu * rb_nsyms + i];
				const struct rb_coh_cnt *cc = rb_coh_on ?
					&rb_coh_cnt[w][vcpu * rb_nsyms + i] : &none;

				/* An access just after the window opened, its block before. */
				if (!fc->insns && !memcmp(cc, &none, sizeof(none)))
					continue;
				fprintf(f, "func,%d,%u,%d,%s,%" PRIx64 ",%" PRIu64 ",%" PRIu64
					",%" PRIu64, w, vcpu, rb_window_ids[w], rb_syms[i].name,
					rb_syms[i].addr, fc->insns, fc->fences, fc->locked);
				rb_write_coh(f, cc);
				fputc('\n', f);
			}
		}
	}
	for (h = 0; h < RB_TB_HASH; h++) {
		for (struct rb_tb_cnt *t = rb_tb_hash[h]; t; t = t->next) {
			fprintf(f, "addr,%d,%u,%d,,%" PRIx64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64,
				t->slot, t->vcpu, rb_window_ids[t->slot], t->addr, t->c.insns,
				t->c.fences, t->c.locked);
			rb_write_coh(f, &t->coh);
			fputc('\n', f);
		}
	}
}

/* core=: each window's interrupt work per vCPU. */
static void rb_write_irqwork(FILE *f)
{
	unsigned int vcpu;
	int w;

	if (!rb_core)
		return;
	fprintf(f, "# rbcount 1: irqwork\nkind,seq,vcpu,id,episodes,insns,max\n");
	for (w = 0; w < rb_nwindows; w++) {
		for (vcpu = 0; vcpu < rb_nvcpus; vcpu++) {
			const struct rb_irqwork *iw = &rb_irqwork[w][vcpu];

			fprintf(f, "irqwork,%d,%u,%d,%" PRIu64 ",%" PRIu64 ",%" PRIu64 "\n", w,
				vcpu, rb_window_ids[w], iw->episodes, iw->insns, iw->max);
		}
	}
}

/*
 * The name of the data at vaddr: "percpu:<symbol>" inside a vCPU's static
 * per-CPU area (its GS base as learnt), "<symbol>" in the kernel image's
 * data, else "" (heap, stacks, dynamic per-CPU memory: System.map does not
 * know them); *off: vaddr's offset from the symbol.
 */
static const char *rb_coh_name(uint64_t vaddr, uint64_t *off)
{
	static char buf[512];
	unsigned int v;
	long i;

	for (v = 0; v < rb_nvcpus; v++) {
		uint64_t o = vaddr - rb_gs_base[v];

		if (!rb_gs_base[v] || o >= rb_pcpu_hi - rb_pcpu_lo)
			continue;
		i = rb_sym_below(rb_pcpu_syms, rb_npcpu_syms, rb_pcpu_lo + o);
		if (i < 0)
			break;
		*off = rb_pcpu_lo + o - rb_pcpu_syms[i].addr;
		snprintf(buf, sizeof(buf), "percpu:%s", rb_pcpu_syms[i].name);
		return buf;
	}
	if (vaddr < rb_image_lo || vaddr >= rb_image_hi)
		return "";
	i = rb_sym_below(rb_dsyms, rb_ndsyms, vaddr);
	if (i < 0)
		return "";
	*off = vaddr - rb_dsyms[i].addr;
	return rb_dsyms[i].name;
}

/*
 * coh=on: the hottest lines of each window, up to RB_COH_TOP by transfers:
 * its physical address, the virtual address of its last transfer in the
 * window, what lies there (symbol and offset, hex), its transfers.
 */
static void rb_write_lines(FILE *f)
{
	int w, k;

	if (!rb_coh_on)
		return;
	fprintf(f, "# rbcount 1: lines\nkind,seq,id,rank,line,vaddr,symbol,offset,transfers\n");
	for (w = 0; w < rb_nwindows; w++) {
		rb_coh_window_done(w);
		for (k = 0; k < rb_coh_ntop[w]; k++) {
			const struct rb_coh_top *t = &rb_coh_top[w][k];
			uint64_t off = 0;
			const char *name = rb_coh_name(t->vaddr, &off);

			fprintf(f, "line,%d,%d,%d,%" PRIx64 ",%" PRIx64 ",%s,", w, rb_window_ids[w],
				k + 1, t->line << RB_COH_LINE_SHIFT, t->vaddr, name);
			if (*name)
				fprintf(f, "%" PRIx64, off);
			fprintf(f, ",%u\n", t->transfers);
		}
	}
}

/* coh=on: the end line's account of the model. */
static void rb_write_coh_end(FILE *f)
{
	uint64_t tot[4] = { 0 };
	unsigned int v, bases = 0;

	if (!rb_coh_on)
		return;
	for (v = 0; v < rb_nvcpus; v++) {
		tot[0] += rb_coh_vcpus[v].accesses;
		tot[1] += rb_coh_vcpus[v].io;
		tot[2] += rb_coh_vcpus[v].outside;
		tot[3] += rb_coh_vcpus[v].image_off;
		bases += rb_gs_base[v] != 0;
	}
	fprintf(f, ", coherence: RAM %" PRIu64 " MiB, accesses %" PRIu64 ", io %" PRIu64
		", outside %" PRIu64 ", phys_base ", (rb_coh.nlines << RB_COH_LINE_SHIFT) >> 20,
		tot[0], tot[1], tot[2]);
	if (rb_phys_base == UINT64_MAX)
		fprintf(f, "unknown");
	else
		fprintf(f, "%" PRIx64, rb_phys_base);
	fprintf(f, " (%" PRIu64 " image accesses off it), per-CPU bases %u of %u:", tot[3], bases,
		rb_nvcpus);
	for (v = 0; v < rb_nvcpus; v++)
		fprintf(f, " %" PRIx64, rb_gs_base[v]);
}

static void rb_atexit(qemu_plugin_id_t id, void *udata)
{
	char msg[256];
	char *tmp;
	FILE *f;

	/* Written whole to a temporary name and renamed: never a partial file. */
	if (asprintf(&tmp, "%s.tmp", rb_out_path) < 0)
		return;
	f = fopen(tmp, "w");
	if (!f) {
		snprintf(msg, sizeof(msg), "rbcount: error: cannot write %s\n", tmp);
		qemu_plugin_outs(msg);
		return;
	}
	rb_write_counts(f);
	rb_write_funcs(f);
	rb_write_irqwork(f);
	rb_write_lines(f);
	fprintf(f, "# rbcount 1: end (regions %zu, unmatched markers %" PRIu64
		", blocks %lu fast %lu per-insn, ranges %d, last %" PRIx64 "-%" PRIx64
		", rbstat windows %" PRIu64,
		rb_nrecords, rb_unmatched, rb_ntb_fast, rb_ntb_slow, rb_range_gen,
		rb_range_lo, rb_range_hi, rb_stat_windows);
	rb_write_coh_end(f);
	fprintf(f, ")\n");
	if (fclose(f) || rename(tmp, rb_out_path)) {
		snprintf(msg, sizeof(msg), "rbcount: error: cannot write %s\n", rb_out_path);
		qemu_plugin_outs(msg);
	}
	free(tmp);
}

/*
 * The guest's RAM in bytes from QEMU's own -m, which the plugin API of
 * QEMU 7.2 does not pass on: "-m 512" (MiB), "-m 512M", "-m 1G",
 * "-m size=1G,maxmem=4G"; without -m QEMU's default, 128 MiB.  0: -m
 * unreadable.
 */
static uint64_t rb_guest_ram(void)
{
	uint64_t ram = 128ULL << 20;
	char *args = NULL, *a, *next, *end, *val, *tok, *save;
	size_t len = 0, cap = 0;
	ssize_t got;
	int fd = open("/proc/self/cmdline", O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return 0;
	do {
		if (len == cap) {
			cap = cap ? 2 * cap : 65536;
			args = realloc(args, cap + 1);
		}
		got = read(fd, args + len, cap - len);
		len += got > 0 ? got : 0;
	} while (got > 0);
	close(fd);
	args[len] = '\0';
	for (a = args; a < args + len; a = next) {
		next = a + strlen(a) + 1;
		if ((strcmp(a, "-m") && strcmp(a, "--m")) || next >= args + len)
			continue;
		ram = 0;
		val = next;
		next = val + strlen(val) + 1;
		for (tok = strtok_r(val, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
			double x;

			if (!strncmp(tok, "size=", 5))
				tok += 5;
			else if (strchr(tok, '='))
				continue;
			x = strtod(tok, &end);
			if (end == tok || x <= 0)
				break;
			switch (*end | 0x20) {
			case ' ':	/* '\0' | 0x20: no suffix, MiB */
			case 'm':
				ram = x * (1 << 20);
				break;
			case 'g':
				ram = x * (1 << 30);
				break;
			case 't':
				ram = x * (1ULL << 40);
				break;
			case 'k':
				ram = x * (1 << 10);
				break;
			case 'b':
				ram = x;
				break;
			}
			break;
		}
	}
	free(args);
	return ram;
}

/*
 * coh=on: the model, sized from the guest's RAM; physical addresses above
 * it (devices' memory; RAM above the 4 GiB hole of a guest with more than
 * about 3 GiB) are outside it.
 */
static int rb_coh_setup(void)
{
	uint64_t ram = rb_guest_ram();
	char msg[256];
	int i;

	if (!ram) {
		qemu_plugin_outs("rbcount: error: coh=on: no guest RAM size (-m) in QEMU's arguments\n");
		return -1;
	}
	if (rb_coh_init(&rb_coh, ram))
		rb_coh_hot = calloc(rb_coh.nlines, sizeof(*rb_coh_hot));
	if (!rb_coh_hot) {
		snprintf(msg, sizeof(msg), "rbcount: error: coh=on: no memory for %" PRIu64
			 " MiB of guest RAM\n", ram >> 20);
		qemu_plugin_outs(msg);
		return -1;
	}
	for (i = 0; i < RB_COH_STRIPES; i++)
		pthread_mutex_init(&rb_coh_stripes[i].lock, NULL);
	return 0;
}

QEMU_PLUGIN_EXPORT int qemu_plugin_install(qemu_plugin_id_t id, const qemu_info_t *info,
					   int argc, char **argv)
{
	const char *map = NULL, *statfuncs = RB_STAT_FUNCS_DEFAULT, *core = NULL, *notcore = NULL;
	char msg[512];
	int i, nvcpus;

	for (i = 0; i < argc; i++) {
		if (!strncmp(argv[i], "out=", 4)) {
			rb_out_path = argv[i] + 4;
		} else if (!strncmp(argv[i], "map=", 4)) {
			map = argv[i] + 4;
		} else if (!strcmp(argv[i], "mem=on") || !strcmp(argv[i], "mem=off")) {
			rb_mem = !strcmp(argv[i], "mem=on");
		} else if (!strcmp(argv[i], "coh=on") || !strcmp(argv[i], "coh=off")) {
			rb_coh_on = !strcmp(argv[i], "coh=on");
		} else if (!strncmp(argv[i], "core=", 5)) {
			core = argv[i] + 5;
		} else if (!strncmp(argv[i], "notcore=", 8)) {
			notcore = argv[i] + 8;
		} else if (!strncmp(argv[i], "statfuncs=", 10)) {
			statfuncs = argv[i] + 10;
		} else if (!strncmp(argv[i], "stat=", 5)) {
			/* O_RDWR: a FIFO opens at once, before QEMU opens its end. */
			rb_stat_fd = open(argv[i] + 5, O_RDWR | O_CLOEXEC);
			if (rb_stat_fd < 0) {
				snprintf(msg, sizeof(msg), "rbcount: error: cannot open %s\n",
					 argv[i] + 5);
				qemu_plugin_outs(msg);
				return -1;
			}
		} else {
			snprintf(msg, sizeof(msg), "rbcount: error: unknown argument '%s'\n", argv[i]);
			qemu_plugin_outs(msg);
			return -1;
		}
	}
	if (!rb_out_path || !map) {
		qemu_plugin_outs("rbcount: error: out=FILE and map=System.map are required\n");
		return -1;
	}
	if (strcmp(info->target_name, "x86_64") || !info->system_emulation) {
		qemu_plugin_outs("rbcount: error: only x86_64 system emulation is supported\n");
		return -1;
	}
	nvcpus = info->system.max_vcpus;
	if (nvcpus > RB_MAX_VCPUS) {
		snprintf(msg, sizeof(msg), "rbcount: error: %d vCPUs, at most %d\n", nvcpus,
			 RB_MAX_VCPUS);
		qemu_plugin_outs(msg);
		return -1;
	}
	if (rb_load_map(map)) {
		snprintf(msg, sizeof(msg),
			 "rbcount: error: %s is not a kernel System.map with interrupt entries\n", map);
		qemu_plugin_outs(msg);
		return -1;
	}
	rb_nvcpus = nvcpus;
	if (rb_coh_on && rb_coh_setup())
		return -1;
	rb_stat_func = calloc((size_t)nvcpus * rb_nsyms, sizeof(*rb_stat_func));
	rb_stat_entries = calloc((size_t)nvcpus * rb_nsyms, sizeof(*rb_stat_entries));
	if (rb_stat_name_funcs(statfuncs)) {
		snprintf(msg, sizeof(msg), "rbcount: error: statfuncs=%s is not a regex\n",
			 statfuncs);
		qemu_plugin_outs(msg);
		return -1;
	}
	if (core && rb_core_funcs(core, notcore)) {
		qemu_plugin_outs("rbcount: error: core= or notcore= is not a regex\n");
		return -1;
	}
	qemu_plugin_register_vcpu_tb_trans_cb(id, rb_tb_trans);
	qemu_plugin_register_atexit_cb(id, rb_atexit, NULL);
	return 0;
}
