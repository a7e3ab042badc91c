// SPDX-License-Identifier: GPL-2.0+
/*
 * rcubench: the rcu-bench measurement module.
 *
 * One test per load, chosen by test= from rb_tests[] below (the list of
 * tests and what each one reads and writes is there):
 *   read     cost of an rcu_read_lock()/rcu_read_unlock() pair, minus an
 *            empty loop measured the same way (refscale style)
 *   read_mb  the same section with smp_mb() after lock and before unlock:
 *            the per-section barriers that preemptible RCU amortises over
 *            the grace period instead
 *   callrcu_cost      CPU time per call_rcu() of writers= kthreads posting
 *                     calls= preallocated rcu_heads each
 *   callrcu_capacity  callbacks invoked per second when writers= kthreads
 *                     post as fast as they can with at most max_backlog=
 *                     callbacks outstanding (set far above what the window
 *                     can fill: CPU-bound), how close the backlog came to
 *                     that limit, the backlog left at the end and its
 *                     rcu_barrier() drain
 *   callrcu_memory    callbacks outstanding and bytes they hold when
 *                     writers= kthreads each call call_rcu() rate= times a
 *                     second: the memory price of a grace period's length
 *   gp       synchronize_rcu() latency samples in ns and ticks, idle or
 *            against readers: lone (after spacing=lone's idle gap, at a
 *            random phase within a tick) or back to back
 *   latency  wakeup latency of a SCHED_FIFO task on a CPU whose readers
 *            hold rcu_read_lock() for reader_us at a time, and the
 *            grace-period latency meanwhile
 *   count_*  counted, not timed: marked regions for the rbcount QEMU plugin
 *            (see "count_read, ..." below)
 *
 * The host's table of bench tests (suite.conf BENCH_TEST_*) names the same
 * tests; tests/t-registry.sh checks that the two agree.
 *
 * Module init runs the test to completion, so when insmod returns the CSV
 * lines "test,params,metric,value,unit,source" are readable at
 * /sys/kernel/debug/rcubench/results.  A bad parameter fails init with
 * -EINVAL and a message naming it.
 *
 * The parameters' defaults below are used only when the module is loaded
 * by hand: the guest job (workloads/guest/jobs/bench.sh) passes every
 * parameter a test reads, with the values of suite.conf's profiles.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/atomic.h>
#include <linux/completion.h>
#include <linux/cpumask.h>
#include <linux/debugfs.h>
#include <linux/delay.h>
#include <linux/kthread.h>
#include <linux/math64.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/random.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/sort.h>
#include <linux/string.h>
#include <linux/timekeeping.h>
#include <linux/wait.h>

#include "rcu.h"	/* rcu_get_gp_seq(), rcu_seq_ctr() */

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("rcu-bench: RCU read-side, call_rcu and grace-period benchmarks");

/*
 * The tests: name, timed (rows in results) or counted (labels in
 * count_labels, for the rbcount plugin), the most result rows one load
 * adds (fixed, plus so many per sample of samples=), and the parameters it
 * reads ([p]: absent has a meaning of its own).  This list is the one
 * place a test is named: it gives rb_tests[], the description of test=
 * and the error for an unknown test.  tests/t-registry.sh reads it (one
 * T(...) a line) against the host's table of tests and the guest job.
 * The list is in parentheses (a macro's value, as checkpatch wants it);
 * RB_UNPAREN() unwraps it where it is used.
 */
#define RB_TESTS(T) (							\
	T(read,			RB_TIMED, 2, 0, "readers nest runs target_ms [loops]")		\
	T(read_mb,		RB_TIMED, 2, 0, "readers nest runs target_ms [loops]")		\
	T(callrcu_cost,		RB_TIMED, 1, 0, "writers calls")				\
	T(callrcu_capacity,	RB_TIMED, 7, 0, "writers duration_ms max_backlog")		\
	T(callrcu_memory,	RB_TIMED, 9, 0, "writers duration_ms max_backlog rate")		\
	T(gp,			RB_TIMED, 6, 2, "samples load hold_us spacing")			\
	T(latency,		RB_TIMED, 10, 0, "reader_us readers samples")			\
	T(boost,		RB_TIMED, 8, 0, "samples hog_ms")				\
	T(count_read,		RB_COUNTED, 0, 0, "loops")					\
	T(count_read_mb,	RB_COUNTED, 0, 0, "loops")					\
	T(count_callrcu,	RB_COUNTED, 0, 0, "loops")					\
	T(count_gp,		RB_COUNTED, 0, 0, "samples load hold_us")			\
	T(count_refscale,	RB_COUNTED, 0, 0, "modules_list range_lo range_hi loops")	\
	T(count_share,		RB_COUNTED, 0, 0, "loops")					\
	T(count_migrate,	RB_COUNTED, 0, 0, "")						\
)
#define RB_STRIP(...) __VA_ARGS__
#define RB_UNPAREN(list) RB_STRIP(RB_STRIP list)

#define RB_TEST_NAME(name, kind, rows, rows_per_sample, params) " " #name

static char *test = "read";
module_param(test, charp, 0444);
MODULE_PARM_DESC(test, "Test to run, one of:" RB_UNPAREN(RB_TESTS(RB_TEST_NAME)));

static int readers = 1;
module_param(readers, int, 0444);
MODULE_PARM_DESC(readers, "read/read_mb: reader kthreads, one per CPU (1..online CPUs)");

static int nest = 1;
module_param(nest, int, 0444);
MODULE_PARM_DESC(nest, "read/read_mb: read-side nesting depth (1 or 2)");

/* Explicit loops=0 is an error, absent loops means "calibrate". */
static long loops;
static bool loops_given;

static int loops_set(const char *val, const struct kernel_param *kp)
{
	loops_given = true;
	return param_set_long(val, kp);
}

static const struct kernel_param_ops loops_ops = {
	.set = loops_set,
	.get = param_get_long,
};

module_param_cb(loops, &loops_ops, &loops, 0444);
MODULE_PARM_DESC(loops, "read/read_mb: sections per timed run (absent: auto)");

static int runs = 5;
module_param(runs, int, 0444);
MODULE_PARM_DESC(runs, "read/read_mb: timed runs, the median is reported");

static int target_ms = 20;
module_param(target_ms, int, 0444);
MODULE_PARM_DESC(target_ms, "read/read_mb: minimum length of an auto-sized timed run");

static int writers = 1;
module_param(writers, int, 0444);
MODULE_PARM_DESC(writers, "callrcu_*: posting kthreads, one per CPU (1..online CPUs)");

static int duration_ms = 1000;
module_param(duration_ms, int, 0444);
MODULE_PARM_DESC(duration_ms, "callrcu_capacity, callrcu_memory: posting time in milliseconds");

static int max_backlog = 2000000;
module_param(max_backlog, int, 0444);
MODULE_PARM_DESC(max_backlog, "callrcu_capacity, callrcu_memory: callbacks outstanding at which writers wait");

static int rate = 10000;
module_param(rate, int, 0444);
MODULE_PARM_DESC(rate, "callrcu_memory: call_rcu() calls per second of each writer");

static int calls = 100000;
module_param(calls, int, 0444);
MODULE_PARM_DESC(calls, "callrcu_cost: call_rcu() calls per writer");

static int samples = 100;
module_param(samples, int, 0444);
MODULE_PARM_DESC(samples, "gp: synchronize_rcu() latency samples");

static char *load = "idle";
module_param(load, charp, 0444);
MODULE_PARM_DESC(load, "gp: idle, or readers (read-side load on every other CPU)");

static char *spacing = "lone";
module_param(spacing, charp, 0444);
MODULE_PARM_DESC(spacing, "gp: lone (an idle gap before each sample) or back_to_back");

static int hold_us = 5;
module_param(hold_us, int, 0444);
MODULE_PARM_DESC(hold_us, "gp load=readers: microseconds inside each read-side section");

static int reader_us = 1000;
module_param(reader_us, int, 0444);
MODULE_PARM_DESC(reader_us, "latency: microseconds inside each read-side section (1..10000)");

/* Results: one row per CSV line, printed by the debugfs seq_file. */
struct rb_row {
	char params[96];
	const char *metric;
	const char *unit;
	s64 value;
	bool milli;		/* value is in thousandths of the unit */
};

static struct rb_row *rb_rows;
static int rb_nrows;
static int rb_maxrows;		/* the test's own bound, from rb_tests[] */
static bool rb_overflow;	/* a row or label did not fit: init fails */
static struct dentry *rb_debugfs_dir;

static void rb_add_row(const char *params, const char *metric,
		       const char *unit, s64 value, bool milli)
{
	struct rb_row *row;

	if (rb_nrows >= rb_maxrows) {
		rb_overflow = true;
		return;
	}
	row = &rb_rows[rb_nrows++];
	strscpy(row->params, params, sizeof(row->params));
	row->metric = metric;
	row->unit = unit;
	row->value = value;
	row->milli = milli;
}

static int rb_results_show(struct seq_file *m, void *v)
{
	struct rb_row *row;
	u64 mag;
	u32 frac;
	int i;

	for (i = 0; i < rb_nrows; i++) {
		row = &rb_rows[i];
		seq_printf(m, "%s,%s,%s,", test, row->params, row->metric);
		if (row->value < 0)
			seq_putc(m, '-');
		mag = row->value < 0 ? -row->value : row->value;
		if (row->milli) {
			mag = div_u64_rem(mag, 1000, &frac);
			seq_printf(m, "%llu.%03u", mag, frac);
		} else {
			seq_printf(m, "%llu", mag);
		}
		seq_printf(m, ",%s,rcubench\n", row->unit);
	}
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(rb_results);

/* Start fn(data) in a kthread bound to cpu. */
static struct task_struct *rb_start_kthread(int (*fn)(void *), void *data,
					    int cpu, const char *name)
{
	struct task_struct *t;

	t = kthread_create(fn, data, "rcubench_%s/%d", name, cpu);
	if (IS_ERR(t))
		return t;
	kthread_bind(t, cpu);
	wake_up_process(t);
	return t;
}

/*
 * A kthread that has finished its work waits here for kthread_stop(), so
 * that no thread is still running module text after init returns.
 */
static void rb_park_until_stopped(void)
{
	for (;;) {
		set_current_state(TASK_IDLE);
		if (kthread_should_stop())
			break;
		schedule();
	}
	__set_current_state(TASK_RUNNING);
}

static void rb_stop_kthreads(struct task_struct **tasks, int n)
{
	int i;

	for (i = 0; i < n; i++)
		if (!IS_ERR_OR_NULL(tasks[i]))
			kthread_stop(tasks[i]);
}

/* The CPU running the n-th kthread of a test: spread over online CPUs. */
static int rb_nth_cpu(int n)
{
	int cpu;

	n %= num_online_cpus();
	for_each_online_cpu(cpu)
		if (!n--)
			return cpu;
	return cpumask_first(cpu_online_mask);
}

static int rb_cmp_s64(const void *a, const void *b)
{
	s64 x = *(const s64 *)a, y = *(const s64 *)b;

	return x < y ? -1 : x > y;
}

/* Sorts v[0..n-1]; nearest-rank percentile pct (0: the minimum). */
static s64 rb_percentile(s64 *v, int n, int pct)
{
	int rank = DIV_ROUND_UP(n * pct, 100);

	sort(v, n, sizeof(*v), rb_cmp_s64, NULL);
	return v[clamp(rank, 1, n) - 1];
}

static s64 rb_median(s64 *v, int n)
{
	sort(v, n, sizeof(*v), rb_cmp_s64, NULL);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* ---- read, read_mb ---------------------------------------------------- */

/*
 * The loops are noinline and called once per timed run through the ops
 * table, so the per-section cost is the loop body only.  barrier() keeps
 * the empty loop from being optimised away; it is also all that
 * rcu_read_lock() is on a non-preemptible kernel, whose cost then comes
 * out as zero after the baseline is subtracted.
 *
 * Each loop runs last + 1 sections, counting i down from last to 0 as
 * refscale's ref_rcu_read_section() does, so that the empty loop compiles
 * to the same instructions as refscale's (tests/t-bench-loopcode.sh
 * checks it).  Under QEMU TCG an iteration's cost depends on the exact
 * instructions and where translation blocks split them: "n > 0" (jle)
 * measured 9-10 ns per empty iteration, "i = n - 1; i >= 0" (dec first)
 * 2.2 ns, refscale's shape 4.5-5.5 ns, on the same 1-vCPU guest.
 */
static noinline void rb_empty_loop(long last)
{
	long i;

	for (i = last; i >= 0; i--)
		barrier();
}

static noinline void rb_read_loop(long last)
{
	long i;

	for (i = last; i >= 0; i--) {
		rcu_read_lock();
		rcu_read_unlock();
	}
}

static noinline void rb_read_loop_nest2(long last)
{
	long i;

	for (i = last; i >= 0; i--) {
		rcu_read_lock();
		rcu_read_lock();
		rcu_read_unlock();
		rcu_read_unlock();
	}
}

static noinline void rb_read_mb_loop(long last)
{
	long i;

	for (i = last; i >= 0; i--) {
		rcu_read_lock();
		smp_mb(); /* The per-section barrier under test. */
		smp_mb(); /* The per-section barrier under test. */
		rcu_read_unlock();
	}
}

static noinline void rb_read_mb_loop_nest2(long last)
{
	long i;

	for (i = last; i >= 0; i--) {
		rcu_read_lock();
		smp_mb(); /* The per-section barrier under test. */
		rcu_read_lock();
		rcu_read_unlock();
		smp_mb(); /* The per-section barrier under test. */
		rcu_read_unlock();
	}
}

struct rb_read_ops {
	const char *name;
	void (*section)(long last);
	void (*section_nest2)(long last);
};

static const struct rb_read_ops rb_read_plain_ops = {
	"read", rb_read_loop, rb_read_loop_nest2
};

static const struct rb_read_ops rb_read_mb_ops = {
	"read_mb", rb_read_mb_loop, rb_read_mb_loop_nest2
};

/* Sections the early finishers keep running so the others see the same load. */
#define RB_COOLDOWN_LOOPS 1000
/* Auto-sized runs have at least this many sections: < 0.1 ns/pair for 1 us of timer jitter. */
#define RB_MIN_AUTO_LOOPS 10000L

struct rb_reader {
	struct task_struct *task;
	u64 duration_ns;
};

static struct rb_reader *rb_readers;
static DECLARE_WAIT_QUEUE_HEAD(rb_phase_wq);
static DECLARE_COMPLETION(rb_phase_done);
static void (*rb_phase_fn)(long last);
static long rb_phase_loops;
static unsigned long rb_phase_gen;
static atomic_t rb_n_started;
static atomic_t rb_n_measured;
static atomic_t rb_n_done;

/* Time n sections of fn. */
static u64 rb_time_loop(void (*fn)(long last), long n)
{
	unsigned long flags;
	u64 t0, t1;

	/* Irqs off, as in refscale: the timed run measures the loop alone. */
	local_irq_save(flags);
	t0 = ktime_get_mono_fast_ns();
	fn(n - 1);
	t1 = ktime_get_mono_fast_ns();
	local_irq_restore(flags);
	return t1 - t0;
}

static bool rb_phase_started(unsigned long seen)
{
	/* Pairs with the release in rb_read_phase(). */
	return smp_load_acquire(&rb_phase_gen) != seen;
}

static int rb_reader_fn(void *arg)
{
	struct rb_reader *rr = arg;
	unsigned long seen = 0;

	for (;;) {
		wait_event_idle(rb_phase_wq,
				kthread_should_stop() || rb_phase_started(seen));
		if (kthread_should_stop())
			break;
		seen = READ_ONCE(rb_phase_gen);

		/* Start together, so that all readers' runs overlap. */
		atomic_dec(&rb_n_started);
		while (atomic_read(&rb_n_started))
			cpu_relax();
		rb_phase_fn(rb_phase_loops / 16); /* Warm the caches. */
		rr->duration_ns = rb_time_loop(rb_phase_fn, rb_phase_loops);
		atomic_dec(&rb_n_measured);
		while (atomic_read(&rb_n_measured))
			rb_phase_fn(RB_COOLDOWN_LOOPS - 1);
		if (atomic_dec_and_test(&rb_n_done))
			complete(&rb_phase_done);
	}
	return 0;
}

/* One timed run of fn on every reader; mean time per iteration in ps. */
static s64 rb_read_phase(void (*fn)(long last), long n)
{
	u64 sum = 0;
	int i;

	rb_phase_fn = fn;
	rb_phase_loops = n;
	atomic_set(&rb_n_started, readers);
	atomic_set(&rb_n_measured, readers);
	atomic_set(&rb_n_done, readers);
	reinit_completion(&rb_phase_done);
	/* Publish the phase before the new generation that starts it. */
	smp_store_release(&rb_phase_gen, rb_phase_gen + 1);
	wake_up_all(&rb_phase_wq);
	wait_for_completion(&rb_phase_done);
	for (i = 0; i < readers; i++)
		sum += rb_readers[i].duration_ns;
	return div64_u64(sum * 1000, (u64)readers * n);
}

/* Double the loop count until one run lasts target_ms. */
static long rb_calibrate(void (*fn)(long last))
{
	u64 target_ns = (u64)target_ms * NSEC_PER_MSEC;
	long n = RB_MIN_AUTO_LOOPS;

	while (n < LONG_MAX / 2 && rb_time_loop(fn, n) < target_ns)
		n *= 2;
	return n;
}

static int rb_read_test(const struct rb_read_ops *ops)
{
	void (*section)(long last) = nest == 2 ? ops->section_nest2 : ops->section;
	char params[96];
	s64 *base, *diff, cost, baseline;
	long n;
	int i, ret = 0;

	n = loops_given ? loops : rb_calibrate(section);
	base = kcalloc(runs, sizeof(*base), GFP_KERNEL);
	diff = kcalloc(runs, sizeof(*diff), GFP_KERNEL);
	rb_readers = kcalloc(readers, sizeof(*rb_readers), GFP_KERNEL);
	if (!base || !diff || !rb_readers) {
		ret = -ENOMEM;
		goto out;
	}
	for (i = 0; i < readers; i++) {
		rb_readers[i].task = rb_start_kthread(rb_reader_fn, &rb_readers[i],
						      rb_nth_cpu(i), "reader");
		if (IS_ERR(rb_readers[i].task)) {
			ret = PTR_ERR(rb_readers[i].task);
			goto stop;
		}
	}
	/* Baseline and section alternate, so that drift hits both alike. */
	for (i = 0; i < runs; i++) {
		base[i] = rb_read_phase(rb_empty_loop, n);
		diff[i] = rb_read_phase(section, n) - base[i];
	}
	snprintf(params, sizeof(params), "readers=%d;nest=%d;loops=%ld",
		 readers, nest, n);
	/*
	 * Not clamped: a cost below the noise floor may come out negative,
	 * and the analysis needs it as it is (a median over boots).
	 */
	cost = rb_median(diff, runs);
	baseline = rb_median(base, runs);
	rb_add_row(params, "ns_per_pair", "ns", cost, true);
	rb_add_row(params, "baseline_ns", "ns", baseline, true);
	pr_info("%s %s: %lld ps/section, baseline %lld ps\n", ops->name, params,
		cost, baseline);
stop:
	for (i = 0; i < readers; i++)
		rb_stop_kthreads(&rb_readers[i].task, 1);
out:
	kfree(rb_readers);
	rb_readers = NULL;
	kfree(diff);
	kfree(base);
	return ret;
}

static int rb_test_read(void)
{
	return rb_read_test(&rb_read_plain_ops);
}

static int rb_test_read_mb(void)
{
	return rb_read_test(&rb_read_mb_ops);
}

/* ---- callrcu_cost ---------------------------------------------------- */

/*
 * CPU time of call_rcu() alone: each writer posts calls= preallocated
 * rcu_heads (no allocator) in batches timed with interrupts off, so that no
 * callback invocation or tick lands inside a timed batch; between batches
 * interrupts are on and the grace-period machinery runs.  The callback
 * bumps a per-CPU counter: nothing in the loop touches shared cache lines
 * that the measurement would then include.
 */
#define RB_COST_BATCH 256

static DEFINE_PER_CPU(unsigned long, rb_cost_invoked);
static atomic_t rb_writers_starting;
static atomic_t rb_writers_left;
static DECLARE_COMPLETION(rb_writers_done);

struct rb_writer {
	struct task_struct *task;
	struct rcu_head *heads;		/* callrcu_cost: calls preallocated heads */
	u64 busy_ns;			/* callrcu_cost: time inside call_rcu() */
	struct rb_cap_head *pool;	/* callrcu_capacity, _memory: the backlog */
	int pool_size;
	unsigned long queued;		/* written by the writer only */
	atomic_long_t invoked;		/* by the callbacks, on the writer's CPU */
	bool full;			/* the writer found its backlog full */
	long peak;			/* callrcu_memory: most outstanding */
};

static void rb_cost_cb(struct rcu_head *rh)
{
	this_cpu_inc(rb_cost_invoked);
}

/* All writers start their loops together, so that their runs overlap. */
static void rb_writers_start_together(void)
{
	atomic_dec(&rb_writers_starting);
	while (atomic_read(&rb_writers_starting))
		cpu_relax();
}

static void rb_writer_finished(void)
{
	if (atomic_dec_and_test(&rb_writers_left))
		complete(&rb_writers_done);
	rb_park_until_stopped();
}

static int rb_cost_writer_fn(void *arg)
{
	struct rb_writer *w = arg;
	unsigned long flags;
	u64 t0;
	int i, j, n;

	rb_writers_start_together();
	for (i = 0; i < calls; i += n) {
		n = min(calls - i, RB_COST_BATCH);
		local_irq_save(flags);
		t0 = ktime_get_mono_fast_ns();
		for (j = i; j < i + n; j++)
			call_rcu(&w->heads[j], rb_cost_cb);
		w->busy_ns += ktime_get_mono_fast_ns() - t0;
		local_irq_restore(flags);
		cond_resched();
	}
	rb_writer_finished();
	return 0;
}

/*
 * Start writers= kthreads running fn, one per CPU.  On an error the
 * writers already started still run to their end.
 */
static int rb_start_writers(struct rb_writer *w, int (*fn)(void *))
{
	int i;

	atomic_set(&rb_writers_starting, writers);
	atomic_set(&rb_writers_left, writers);
	reinit_completion(&rb_writers_done);
	for (i = 0; i < writers; i++) {
		w[i].task = rb_start_kthread(fn, &w[i], rb_nth_cpu(i), "writer");
		if (IS_ERR(w[i].task)) {
			/* Let the started writers past the start line and out. */
			atomic_sub(writers - i, &rb_writers_starting);
			atomic_sub(writers - i, &rb_writers_left);
			return PTR_ERR(w[i].task);
		}
	}
	return 0;
}

/* Wait until the started writers have finished, then stop them. */
static void rb_stop_writers(struct rb_writer *w)
{
	int i;

	if (!IS_ERR_OR_NULL(w[0].task))
		wait_for_completion(&rb_writers_done);
	for (i = 0; i < writers && !IS_ERR_OR_NULL(w[i].task); i++)
		kthread_stop(w[i].task);
}

static int rb_test_callrcu_cost(void)
{
	unsigned long invoked = 0;
	u64 busy_ns = 0;
	char params[96];
	struct rb_writer *w;
	int i, cpu, ret = 0;

	w = kcalloc(writers, sizeof(*w), GFP_KERNEL);
	if (!w)
		return -ENOMEM;
	for (i = 0; i < writers; i++) {
		w[i].heads = kvcalloc(calls, sizeof(*w[i].heads), GFP_KERNEL);
		if (!w[i].heads) {
			ret = -ENOMEM;
			goto out;
		}
	}
	for_each_possible_cpu(cpu)
		per_cpu(rb_cost_invoked, cpu) = 0;
	ret = rb_start_writers(w, rb_cost_writer_fn);
	rb_stop_writers(w);
	/* The heads are freed below: every callback must have run. */
	rcu_barrier();
	if (ret)
		goto out;
	for_each_possible_cpu(cpu)
		invoked += per_cpu(rb_cost_invoked, cpu);
	if (invoked != (unsigned long)calls * writers) {
		pr_err("callrcu_cost: %lu callbacks invoked, %lu posted\n",
		       invoked, (unsigned long)calls * writers);
		ret = -EIO;
		goto out;
	}
	for (i = 0; i < writers; i++)
		busy_ns += w[i].busy_ns;
	snprintf(params, sizeof(params), "writers=%d;calls=%d", writers, calls);
	rb_add_row(params, "ns_per_call", "ns",
		   div64_u64(busy_ns * 1000, (u64)calls * writers), true);
	pr_info("callrcu_cost %s: %llu ns in call_rcu() in all\n", params, busy_ns);
out:
	for (i = 0; i < writers; i++)
		kvfree(w[i].heads);
	kfree(w);
	return ret;
}

/* ---- callrcu_capacity, callrcu_memory ------------------------------ */

/*
 * callrcu_capacity: callbacks invoked per second when writers post as fast
 * as they can.  Each writer owns max_backlog / writers preallocated heads
 * and reuses a head only after its callback has run, waiting a tick when
 * the next one is still queued.  With max_backlog far above what the
 * window can fill (rate x duration) the writers never wait and the rate is
 * bound by the CPU, not by the grace-period latency: limit_reached says
 * whether a writer ever found its backlog full, limit_ratio how close the
 * peak came (peak_outstanding / max_backlog).  At the end of the window
 * the backlog left is reported, and the time rcu_barrier() takes to
 * drain it.
 */
struct rb_cap_head {
	struct rcu_head rh;
	struct rb_writer *w;
	u64 posted_ns;			/* callrcu_memory: when it was posted */
	bool queued;
};

static u64 rb_cap_start;
static u64 rb_cap_deadline;

static void rb_cap_cb(struct rcu_head *rh)
{
	struct rb_cap_head *h = container_of(rh, struct rb_cap_head, rh);

	atomic_long_inc(&h->w->invoked);
	/* Pairs with the acquire in rb_cap_post(): the head is free. */
	smp_store_release(&h->queued, false);
}

/*
 * Post the writer's next head with func; false (and w->full) when that
 * head's callback has not run yet: the backlog is at its limit.
 */
static bool rb_cap_post(struct rb_writer *w, rcu_callback_t func, u64 now)
{
	struct rb_cap_head *h = &w->pool[w->queued % w->pool_size];

	/* Pairs with the release in rb_cap_cb(). */
	if (smp_load_acquire(&h->queued)) {
		WRITE_ONCE(w->full, true);
		return false;
	}
	h->posted_ns = now;
	h->queued = true;
	WRITE_ONCE(w->queued, w->queued + 1);
	call_rcu(&h->rh, func);
	return true;
}

static int rb_cap_writer_fn(void *arg)
{
	struct rb_writer *w = arg;

	rb_writers_start_together();
	while (ktime_get_mono_fast_ns() < rb_cap_deadline) {
		if (!rb_cap_post(w, rb_cap_cb, 0)) {
			/* Backlog full: let grace periods catch up. */
			schedule_timeout_uninterruptible(1);
			continue;
		}
		cond_resched();
	}
	rb_writer_finished();
	return 0;
}

struct rb_cap_count {
	long queued, invoked;
	bool full;
};

static struct rb_cap_count rb_cap_sum(struct rb_writer *w)
{
	struct rb_cap_count c = { 0, 0, false };
	int i;

	for (i = 0; i < writers; i++) {
		c.queued += READ_ONCE(w[i].queued);
		c.invoked += atomic_long_read(&w[i].invoked);
		c.full |= READ_ONCE(w[i].full);
	}
	return c;
}

/*
 * The insmod thread watches the window from outside the writers' loops:
 * the peak backlog (sampled every tick) and the counts at its end.
 */
static struct rb_cap_count rb_cap_watch(struct rb_writer *w, long *peak)
{
	struct rb_cap_count c;

	for (;;) {
		c = rb_cap_sum(w);
		*peak = max(*peak, c.queued - c.invoked);
		if (ktime_get_mono_fast_ns() >= rb_cap_deadline)
			return c;
		schedule_timeout_uninterruptible(1);
	}
}

/* Writers' state with max_backlog / writers preallocated heads each. */
static struct rb_writer *rb_cap_alloc(void)
{
	struct rb_writer *w;
	int i, j;

	w = kcalloc(writers, sizeof(*w), GFP_KERNEL);
	if (!w)
		return NULL;
	for (i = 0; i < writers; i++) {
		w[i].pool_size = max(max_backlog / writers, 1);
		w[i].pool = kvcalloc(w[i].pool_size, sizeof(*w[i].pool), GFP_KERNEL);
		if (!w[i].pool)
			goto nomem;
		for (j = 0; j < w[i].pool_size; j++)
			w[i].pool[j].w = &w[i];
	}
	return w;
nomem:
	while (i--)
		kvfree(w[i].pool);
	kfree(w);
	return NULL;
}

static void rb_cap_free(struct rb_writer *w)
{
	int i;

	for (i = 0; i < writers; i++)
		kvfree(w[i].pool);
	kfree(w);
}

/* The writers' window: duration_ms from now. */
static void rb_cap_window(void)
{
	rb_cap_start = ktime_get_mono_fast_ns();
	rb_cap_deadline = rb_cap_start + (u64)duration_ms * NSEC_PER_MSEC;
}

static int rb_test_callrcu_capacity(void)
{
	struct rb_cap_count end;
	struct rb_writer *w;
	u64 stop, drain_start, drained;
	long peak = 0;
	char params[96];
	int ret;

	w = rb_cap_alloc();
	if (!w)
		return -ENOMEM;
	rb_cap_window();
	ret = rb_start_writers(w, rb_cap_writer_fn);
	end = rb_cap_watch(w, &peak);
	stop = ktime_get_mono_fast_ns();
	rb_stop_writers(w);
	drain_start = ktime_get_mono_fast_ns();
	rcu_barrier();
	drained = ktime_get_mono_fast_ns();
	if (ret)
		goto out;
	/* A writer may have hit the limit after the watcher's last look. */
	end.full = rb_cap_sum(w).full;
	snprintf(params, sizeof(params), "writers=%d;duration_ms=%d;max_backlog=%d",
		 writers, duration_ms, max_backlog);
	rb_add_row(params, "invoked_per_s", "1/s",
		   div64_u64((u64)end.invoked * NSEC_PER_SEC, stop - rb_cap_start), false);
	rb_add_row(params, "queued_per_s", "1/s",
		   div64_u64((u64)end.queued * NSEC_PER_SEC, stop - rb_cap_start), false);
	rb_add_row(params, "backlog_end", "count", end.queued - end.invoked, false);
	rb_add_row(params, "drain_ns", "ns", drained - drain_start, false);
	rb_add_row(params, "peak_outstanding", "count", peak, false);
	rb_add_row(params, "limit_ratio", "ratio",
		   div64_s64((s64)peak * 1000, max_backlog), true);
	rb_add_row(params, "limit_reached", "count", end.full, false);
	pr_info("callrcu_capacity %s: queued %ld invoked %ld in window, backlog %ld, peak %ld%s, drain %llu ns\n",
		params, end.queued, end.invoked, end.queued - end.invoked, peak,
		end.full ? " (limit reached)" : "", drained - drain_start);
out:
	rb_cap_free(w);
	return ret;
}

/*
 * callrcu_memory: each writer calls call_rcu() rate times a second, in a
 * batch each tick (as many as are due since the window opened), and
 * records the most callbacks outstanding (right after a batch: only
 * posting raises the count).  Each callback adds its latency to a sum;
 * by Little's law the mean number outstanding over the window is that
 * sum over the window's length (the ramp at the start and the tail after
 * it balance in a steady state).  Bytes held: those counts times the
 * size of the object each callback frees (struct rb_cap_head here).
 */
static atomic64_t rb_mem_lat_sum;

static void rb_mem_cb(struct rcu_head *rh)
{
	struct rb_cap_head *h = container_of(rh, struct rb_cap_head, rh);

	atomic64_add(ktime_get_mono_fast_ns() - h->posted_ns, &rb_mem_lat_sum);
	rb_cap_cb(rh);
}

static int rb_mem_writer_fn(void *arg)
{
	struct rb_writer *w = arg;
	u64 now, due;

	rb_writers_start_together();
	while ((now = ktime_get_mono_fast_ns()) < rb_cap_deadline) {
		due = div64_u64((now - rb_cap_start) * rate, NSEC_PER_SEC);
		while (w->queued < due && rb_cap_post(w, rb_mem_cb, now))
			;
		w->peak = max(w->peak, (long)w->queued - atomic_long_read(&w->invoked));
		schedule_timeout_uninterruptible(1);
	}
	rb_writer_finished();
	return 0;
}

static int rb_test_callrcu_memory(void)
{
	struct rb_cap_count c;
	struct rb_writer *w;
	s64 window, lat_sum, mean_milli;
	long peak = 0;
	char params[96];
	int i, ret;

	w = rb_cap_alloc();
	if (!w)
		return -ENOMEM;
	atomic64_set(&rb_mem_lat_sum, 0);
	rb_cap_window();
	ret = rb_start_writers(w, rb_mem_writer_fn);
	rb_stop_writers(w);
	window = ktime_get_mono_fast_ns() - rb_cap_start;
	/* Every callback's latency is in the sum, and the heads can go. */
	rcu_barrier();
	if (ret)
		goto out;
	c = rb_cap_sum(w);
	for (i = 0; i < writers; i++)
		peak += w[i].peak;
	lat_sum = atomic64_read(&rb_mem_lat_sum);
	mean_milli = div64_s64(lat_sum * 1000, window);
	snprintf(params, sizeof(params), "writers=%d;rate=%d;duration_ms=%d;max_backlog=%d",
		 writers, rate, duration_ms, max_backlog);
	rb_add_row(params, "calls_per_s", "1/s",
		   div64_u64((u64)c.queued * NSEC_PER_SEC, window), false);
	rb_add_row(params, "cb_latency_mean_ns", "ns",
		   c.queued ? div64_s64(lat_sum, c.queued) : 0, false);
	rb_add_row(params, "outstanding_mean", "count", mean_milli, true);
	rb_add_row(params, "outstanding_max", "count", peak, false);
	rb_add_row(params, "object_bytes", "bytes", sizeof(struct rb_cap_head), false);
	rb_add_row(params, "bytes_mean", "bytes",
		   div64_s64(mean_milli * sizeof(struct rb_cap_head), 1000), false);
	rb_add_row(params, "bytes_max", "bytes", peak * sizeof(struct rb_cap_head), false);
	rb_add_row(params, "limit_reached", "count", c.full, false);
	pr_info("callrcu_memory %s: %ld calls, mean outstanding %lld.%03lld, max %ld%s\n",
		params, c.queued, mean_milli / 1000, mean_milli % 1000, peak,
		c.full ? " (limit reached)" : "");
out:
	rb_cap_free(w);
	return ret;
}

/* ---- gp --------------------------------------------------------------- */

/* Read-side sections per voluntary schedule(): classic RCU needs the switch. */
#define RB_LOAD_YIELD 64

static s64 *rb_gp_lat;
static DECLARE_COMPLETION(rb_gp_done);

static int rb_gp_load_fn(void *arg)
{
	unsigned long n = 0;

	while (!kthread_should_stop()) {
		rcu_read_lock();
		udelay(hold_us);
		rcu_read_unlock();
		if (!(++n % RB_LOAD_YIELD))
			schedule();
	}
	return 0;
}

/*
 * spacing=lone: a synchronize_rcu() on a machine whose grace-period
 * machinery has gone idle.  After a grace period ends, the flip-counter
 * design's state machine may still run a stage of 4 ticks (a flip that
 * rcu_pending() started for the callback that just ended its wait); with
 * at most RCU_PREEMPT_MAX_GP_STAGES (8) stages of 4 ticks, 40 ticks of
 * sleep leave every implementation idle.
 */
#define RB_GP_LONE_GAP_TICKS 40

/*
 * Grace periods advance from the scheduler tick, so a latency depends on
 * where in a tick synchronize_rcu() starts: start each lone sample at a
 * random phase, a random delay after a jiffy edge, so that the samples
 * average over the phase instead of sharing one.
 */
static void rb_gp_random_phase(void)
{
	unsigned long j = jiffies;

	while (READ_ONCE(jiffies) == j)
		cpu_relax();
	udelay(get_random_u32_below(USEC_PER_SEC / HZ));
}

static int rb_gp_sampler_fn(void *arg)
{
	u64 t0;
	int i;

	synchronize_rcu(); /* Warm-up: not a sample. */
	for (i = 0; i < samples; i++) {
		/* back_to_back: the next starts as soon as the last returned. */
		if (!strcmp(spacing, "lone")) {
			schedule_timeout_idle(RB_GP_LONE_GAP_TICKS);
			rb_gp_random_phase();
		}
		t0 = ktime_get_mono_fast_ns();
		synchronize_rcu();
		rb_gp_lat[i] = ktime_get_mono_fast_ns() - t0;
	}
	complete(&rb_gp_done);
	rb_park_until_stopped();
	return 0;
}

/* ns as thousandths of a scheduler tick (1 tick = NSEC_PER_SEC / HZ ns). */
static s64 rb_ns_to_milliticks(s64 ns)
{
	return div64_s64(ns * HZ, NSEC_PER_MSEC);
}

static void rb_gp_report(void)
{
	static const struct { const char *metric; int pct; } summary[] = {
		{ "min_ns", 0 }, { "median_ns", 50 }, { "p90_ns", 90 },
		{ "p99_ns", 99 }, { "max_ns", 100 },
	};
	char params[96];
	s64 v;
	int i;

	for (i = 0; i < samples; i++) {
		snprintf(params, sizeof(params), "load=%s;spacing=%s;samples=%d;hz=%d;sample=%d",
			 load, spacing, samples, HZ, i);
		rb_add_row(params, "latency_ns", "ns", rb_gp_lat[i], false);
		rb_add_row(params, "latency_ticks", "ticks",
			   rb_ns_to_milliticks(rb_gp_lat[i]), true);
	}
	snprintf(params, sizeof(params), "load=%s;spacing=%s;samples=%d;hz=%d",
		 load, spacing, samples, HZ);
	for (i = 0; i < ARRAY_SIZE(summary); i++) {
		if (summary[i].pct == 50)
			v = rb_median(rb_gp_lat, samples);
		else
			v = rb_percentile(rb_gp_lat, samples, summary[i].pct);
		rb_add_row(params, summary[i].metric, "ns", v, false);
	}
	rb_add_row(params, "median_ticks", "ticks",
		   rb_ns_to_milliticks(rb_median(rb_gp_lat, samples)), true);
	pr_info("gp %s: median %lld ns, max %lld ns\n", params,
		rb_median(rb_gp_lat, samples), rb_gp_lat[samples - 1]);
}

static int rb_test_gp(void)
{
	struct task_struct **tasks, *sampler;
	int sampler_cpu = cpumask_first(cpu_online_mask);
	int cpu, nload = 0, ret = 0;

	rb_gp_lat = kcalloc(samples, sizeof(*rb_gp_lat), GFP_KERNEL);
	tasks = kcalloc(nr_cpu_ids, sizeof(*tasks), GFP_KERNEL);
	if (!rb_gp_lat || !tasks) {
		ret = -ENOMEM;
		goto out;
	}
	if (!strcmp(load, "readers")) {
		for_each_online_cpu(cpu) {
			if (cpu == sampler_cpu)
				continue;
			tasks[nload] = rb_start_kthread(rb_gp_load_fn, NULL, cpu, "load");
			if (IS_ERR(tasks[nload])) {
				ret = PTR_ERR(tasks[nload]);
				goto stop;
			}
			nload++;
		}
	}
	sampler = rb_start_kthread(rb_gp_sampler_fn, NULL, sampler_cpu, "gp");
	if (IS_ERR(sampler)) {
		ret = PTR_ERR(sampler);
		goto stop;
	}
	wait_for_completion(&rb_gp_done);
	kthread_stop(sampler);
	rb_gp_report();
stop:
	rb_stop_kthreads(tasks, nload);
out:
	kfree(tasks);
	kfree(rb_gp_lat);
	rb_gp_lat = NULL;
	return ret;
}

/* ---- count_read, count_read_mb, count_callrcu, count_gp ------------- */

/*
 * Counting tests for the rbcount QEMU plugin (workloads/tcg-plugin/): they
 * time nothing, they bracket loops with marker no-ops (rb_marker.h) and
 * the plugin counts the instructions executed in between.  Each region
 * runs a loop twice, with loops/2 and loops iterations: the difference
 * divided by the difference in iterations is the exact per-iteration count
 * of the loop body, free of the call and marker overhead.  The host joins
 * the plugin's records with the lines of debugfs rcubench/count_labels,
 * "id,test,params,role,iterations", one per region or window in the order
 * they ran (regions of one id run one after the other on one CPU).
 *
 * irqs=off runs the loop with interrupts disabled; irqs=on with them
 * enabled (the real path: local_irq_restore() ends in sti) and the loop
 * preemptible, as readers usually run: migration disabled so that the
 * region stays on its CPU, SCHED_FIFO so that no other task runs inside
 * it; the plugin counts the interrupts that land in it separately.
 * Preemptible RCU's rcu_read_unlock() inside a disabled region (irqs=off)
 * holds its count on the CPU and the next rcu_read_lock() carries it on:
 * that is the path irqs=off counts there.
 */
#include "rb_marker.h"

#define RB_ID_COUNT_READ 1
#define RB_ID_COUNT_READ_MB 2
#define RB_ID_COUNT_CALLRCU 3
#define RB_ID_COUNT_GP 4
#define RB_ID_COUNT_CB 5
#define RB_ID_SHARE_PINGPONG0 6
#define RB_ID_SHARE_PINGPONG1 7
#define RB_ID_SHARE_PERCPU0 8
#define RB_ID_SHARE_PERCPU1 9
#define RB_ID_MIGRATE_LOCK 10
#define RB_ID_MIGRATE_UNLOCK 11
#define RB_ID_MIGRATE_EMPTY 12
#define RB_ID_MIGRATE_WATCH 13

/* Iterations of a counted loop when loops= is absent. */
#define RB_COUNT_LOOPS 20000L
/*
 * The most call_rcu() heads one count_callrcu run preallocates: few enough
 * that no CPU's backlog nears Tree RCU's qhimark (10000), whose overload
 * path would dominate the per-call count.
 */
#define RB_COUNT_MAX_CALLS 8000L

static char *rb_labels;
static size_t rb_labels_len;
#define RB_LABELS_SIZE 8192

/* A label that does not fit fails the load: the host could not join the counts. */
static void rb_label(int id, const char *params, const char *role, long iterations)
{
	size_t room = RB_LABELS_SIZE - rb_labels_len;
	int len;

	if (!rb_labels)
		return;
	len = snprintf(rb_labels + rb_labels_len, room, "%d,%s,%s,%s,%ld\n",
		       id, test, params, role, iterations);
	if (len >= room) {
		rb_labels[rb_labels_len] = '\0';
		rb_overflow = true;
		return;
	}
	rb_labels_len += len;
}

static int rb_count_labels_show(struct seq_file *m, void *v)
{
	if (rb_labels)
		seq_write(m, rb_labels, rb_labels_len);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(rb_count_labels);

/* The marker ids must be constants: one region function per id. */
#define RB_DEFINE_REGION(name, id)					\
static noinline void name(void (*fn)(long last), long n)		\
{									\
	RB_REGION_START(id);						\
	fn(n - 1);							\
	RB_REGION_END(id);						\
}

RB_DEFINE_REGION(rb_region_read, RB_ID_COUNT_READ)

RB_DEFINE_REGION(rb_region_read_mb, RB_ID_COUNT_READ_MB)

/*
 * One read-side critical section just before a region, in its context:
 * the region's first section then finds what each later one finds (with
 * preemptible RCU, a count held on the CPU or none), so that every
 * iteration of the region runs the same instructions.
 */
static noinline void rb_settle_read_side(void)
{
	rcu_read_lock();
	rcu_read_unlock();
}

/* One region of n iterations, preemptible with interrupts on, or irqs off. */
static void rb_count_region(void (*region)(void (*fn)(long), long),
			    void (*fn)(long last), long n, bool irqs_on)
{
	unsigned long flags;

	if (irqs_on) {
		sched_set_fifo(current);
		migrate_disable();
		rb_settle_read_side();
		region(fn, n);
		migrate_enable();
		sched_set_normal(current, 0);
	} else {
		local_irq_save(flags);
		rb_settle_read_side();
		region(fn, n);
		local_irq_restore(flags);
	}
}

/*
 * Runs of fn with n/2 and n iterations, labelled <role>_half and
 * <role>_full; with drain, rcu_barrier() after the first so that both
 * start with no callbacks queued.
 */
static void rb_count_runs(void (*region)(void (*fn)(long), long), int id,
			  const char *params, const char *role,
			  void (*fn)(long last), long n, bool irqs_on, bool drain)
{
	char name[32];

	rb_count_region(region, fn, n / 2, irqs_on);
	snprintf(name, sizeof(name), "%s_half", role);
	rb_label(id, params, name, n / 2);
	if (drain)
		rcu_barrier();
	rb_count_region(region, fn, n, irqs_on);
	snprintf(name, sizeof(name), "%s_full", role);
	rb_label(id, params, name, n);
}

static long rb_count_loops(void)
{
	return loops_given ? loops : RB_COUNT_LOOPS;
}

static int rb_count_read_test(const struct rb_read_ops *ops, int id,
			      void (*region)(void (*fn)(long), long))
{
	long n = rb_count_loops();
	char params[96];
	int nst, irqs_on;

	for (nst = 1; nst <= 2; nst++) {
		void (*section)(long) = nst == 2 ? ops->section_nest2 : ops->section;

		for (irqs_on = 1; irqs_on >= 0; irqs_on--) {
			snprintf(params, sizeof(params), "readers=1;nest=%d;irqs=%s;loops=%ld",
				 nst, irqs_on ? "on" : "off", n);
			/* Untimed warm-up: translation, caches. */
			section(n / 16);
			rb_count_runs(region, id, params, "base", rb_empty_loop, n, irqs_on, false);
			rb_count_runs(region, id, params, "section", section, n, irqs_on, false);
		}
	}
	pr_info("%s: %ld loops counted\n", test, n);
	return 0;
}

static int rb_test_count_read(void)
{
	return rb_count_read_test(&rb_read_plain_ops, RB_ID_COUNT_READ, rb_region_read);
}

static int rb_test_count_read_mb(void)
{
	return rb_count_read_test(&rb_read_mb_ops, RB_ID_COUNT_READ_MB, rb_region_read_mb);
}

/* count_callrcu: per call_rcu() with preallocated heads, per callback invoked. */
static struct rcu_head *rb_count_heads;
static long rb_count_next_head;
static atomic_long_t rb_count_invoked;

static void rb_count_cb(struct rcu_head *rh)
{
	atomic_long_inc(&rb_count_invoked);
}

static noinline void rb_count_callrcu_loop(long last)
{
	struct rcu_head *rh = rb_count_heads + rb_count_next_head;
	long i;

	for (i = last; i >= 0; i--)
		call_rcu(rh++, rb_count_cb);
	rb_count_next_head = rh - rb_count_heads;
}

RB_DEFINE_REGION(rb_region_callrcu, RB_ID_COUNT_CALLRCU)

static int rb_test_count_callrcu(void)
{
	long n = min(rb_count_loops(), RB_COUNT_MAX_CALLS / 4);
	long total = 2 * n + n / 2, posted;
	char params[96];
	unsigned long flags;

	rb_count_heads = kvcalloc(total, sizeof(*rb_count_heads), GFP_KERNEL);
	if (!rb_count_heads)
		return -ENOMEM;
	rb_count_next_head = 0;
	atomic_long_set(&rb_count_invoked, 0);
	snprintf(params, sizeof(params), "calls=%ld", n);
	rcu_barrier(); /* Start with no callbacks of ours or anyone's queued. */
	rb_count_runs(rb_region_callrcu, RB_ID_COUNT_CALLRCU, params, "base", rb_empty_loop,
		      n, true, false);
	/* Each run starts with no callbacks queued, as the first did. */
	rb_count_runs(rb_region_callrcu, RB_ID_COUNT_CALLRCU, params, "section",
		      rb_count_callrcu_loop, n, true, true);
	rcu_barrier();
	/* Per callback invoked: a window over n more calls and their invocation. */
	local_irq_save(flags);
	RB_WINDOW_OPEN(RB_ID_COUNT_CB);
	local_irq_restore(flags);
	rb_count_callrcu_loop(n - 1);
	rcu_barrier();
	RB_WINDOW_CLOSE(RB_ID_COUNT_CB);
	rb_label(RB_ID_COUNT_CB, params, "window", n);
	posted = rb_count_next_head;
	kvfree(rb_count_heads);
	rb_count_heads = NULL;
	if (atomic_long_read(&rb_count_invoked) != posted) {
		pr_err("count_callrcu: %ld callbacks posted, %ld invoked\n", posted,
		       atomic_long_read(&rb_count_invoked));
		return -EIO;
	}
	pr_info("count_callrcu %s: %ld callbacks posted and invoked\n", params, posted);
	return 0;
}

/*
 * count_share: a known sharing pattern for the plugin's cache-coherence
 * model (coh=on; tests/t-coherence-guest.sh).  Two kthreads on the first
 * two online CPUs, preemption off (interrupts stay on: a CPU spinning with
 * them off could wait forever on one whose IPI it does not answer; the
 * plugin counts interrupts apart from the region):
 *
 *  - pingpong: they hand one cache line back and forth, loops= hand-offs
 *    each (and loops/2 in a first run): each waits until the line's turn
 *    is its own, then gives it to the other.  Each hand-off is one
 *    invalidation (the writer's copy becomes the only one) and one read
 *    miss (the receiver's next read finds it modified elsewhere): 2
 *    transfers, so k hand-offs cost at least k and at most 2k + 2 (the
 *    first read of each side may also miss on the line as the starting
 *    CPU left it);
 *  - percpu: each increments its own per-CPU counter loops= times (and
 *    loops/2), after a warm-up run that touched it: no transfer at all.
 *
 * Each CPU's runs are regions of an id of their own (the plugin counts a
 * region's accesses apart from its interrupts'); the labels, side=0|1,
 * are written once both threads are done.
 */
struct rb_share_turn {
	int turn;
} ____cacheline_aligned;

static struct rb_share_turn rb_share_line;
static DEFINE_PER_CPU_ALIGNED(unsigned long, rb_share_count);

struct rb_share_side {
	struct task_struct *task;
	int side;
	long n;
	struct completion done;
};

static noinline void rb_share_pingpong0(long last)
{
	long i;

	for (i = last; i >= 0; i--) {
		while (READ_ONCE(rb_share_line.turn) != 0)
			cpu_relax();
		WRITE_ONCE(rb_share_line.turn, 1);
	}
}

static noinline void rb_share_pingpong1(long last)
{
	long i;

	for (i = last; i >= 0; i--) {
		while (READ_ONCE(rb_share_line.turn) != 1)
			cpu_relax();
		WRITE_ONCE(rb_share_line.turn, 0);
	}
}

static noinline void rb_share_percpu(long last)
{
	long i;

	for (i = last; i >= 0; i--)
		this_cpu_inc(rb_share_count);
}

RB_DEFINE_REGION(rb_region_pingpong0, RB_ID_SHARE_PINGPONG0)

RB_DEFINE_REGION(rb_region_pingpong1, RB_ID_SHARE_PINGPONG1)

RB_DEFINE_REGION(rb_region_percpu0, RB_ID_SHARE_PERCPU0)

RB_DEFINE_REGION(rb_region_percpu1, RB_ID_SHARE_PERCPU1)

static int rb_share_fn(void *arg)
{
	struct rb_share_side *s = arg;
	void (*pingpong)(void (*fn)(long), long) = s->side ? rb_region_pingpong1 :
							      rb_region_pingpong0;
	void (*percpu)(void (*fn)(long), long) = s->side ? rb_region_percpu1 : rb_region_percpu0;

	preempt_disable();
	pingpong(s->side ? rb_share_pingpong1 : rb_share_pingpong0, s->n / 2);
	pingpong(s->side ? rb_share_pingpong1 : rb_share_pingpong0, s->n);
	rb_share_percpu(s->n / 16);
	percpu(rb_share_percpu, s->n / 2);
	percpu(rb_share_percpu, s->n);
	preempt_enable();
	complete(&s->done);
	rb_park_until_stopped();
	return 0;
}

/* The most hand-offs a side: the two CPUs spin with preemption off meanwhile. */
#define RB_SHARE_MAX_LOOPS 4000L

static int rb_test_count_share(void)
{
	long n = min(rb_count_loops(), RB_SHARE_MAX_LOOPS);
	static const int ids[2][2] = {
		{ RB_ID_SHARE_PINGPONG0, RB_ID_SHARE_PERCPU0 },
		{ RB_ID_SHARE_PINGPONG1, RB_ID_SHARE_PERCPU1 },
	};
	struct rb_share_side s[2];
	char params[64];
	int i;

	if (num_online_cpus() < 2) {
		pr_err("count_share: needs 2 online CPUs, %u are online\n", num_online_cpus());
		return -EINVAL;
	}
	WRITE_ONCE(rb_share_line.turn, 0);
	/* Both threads exist before either runs: a side alone would spin forever. */
	for (i = 0; i < 2; i++) {
		s[i].side = i;
		s[i].n = n;
		init_completion(&s[i].done);
		s[i].task = kthread_create(rb_share_fn, &s[i], "rcubench_share/%d", rb_nth_cpu(i));
		if (IS_ERR(s[i].task)) {
			int ret = PTR_ERR(s[i].task);

			if (i)
				kthread_stop(s[0].task);	/* never woken: never runs */
			pr_err("count_share: no kthread (%d)\n", ret);
			return ret;
		}
		kthread_bind(s[i].task, rb_nth_cpu(i));
	}
	/* Neither may preempt this task on its CPU before the other is woken. */
	preempt_disable();
	for (i = 0; i < 2; i++)
		wake_up_process(s[i].task);
	preempt_enable();
	for (i = 0; i < 2; i++) {
		wait_for_completion(&s[i].done);
		kthread_stop(s[i].task);
	}
	for (i = 0; i < 2; i++) {
		snprintf(params, sizeof(params), "pattern=pingpong;side=%d;loops=%ld", i, n);
		rb_label(ids[i][0], params, "half", n / 2);
		rb_label(ids[i][0], params, "full", n);
		snprintf(params, sizeof(params), "pattern=percpu;side=%d;loops=%ld", i, n);
		rb_label(ids[i][1], params, "half", n / 2);
		rb_label(ids[i][1], params, "full", n);
	}
	pr_info("count_share: %ld hand-offs and increments a side on CPUs %d and %d\n", n,
		rb_nth_cpu(0), rb_nth_cpu(1));
	return 0;
}

/*
 * count_migrate: a read pair whose reader migrates to another CPU between
 * its rcu_read_lock() and its rcu_read_unlock(), beside one that stays,
 * for the coherence model (coh=on).  The flip counters are summed over
 * all CPUs so that an unlock may decrement the counter of the CPU it runs
 * on, not the one its lock incremented: a migrated unlock stays local.
 * Tree RCU's preemptible readers count in the task instead.
 *
 * A kthread, SCHED_FIFO, takes rcu_read_lock() on the first online CPU
 * (A) in a region of its own, then spins, preemptible, inside its section
 * until this task moves it to the second (B) with set_cpus_allowed_ptr()
 * (an involuntary preemption by the stopper: a reader must not block),
 * and takes rcu_read_unlock() on B in another region; it then moves back
 * to A by itself, outside the section.  move=0 runs the same regions on A
 * without the move.  An empty region per pair gives the marker overhead.
 * A window open over all of it keeps the coherence model watching
 * between the regions (it starts cold with the first open one).  The
 * move needs preemptible readers (CONFIG_RCU_PREEMPTIBLE_READERS) and two
 * CPUs: elsewhere only move=0 runs.
 */
#define RB_MIGRATE_PAIRS 8

struct rb_migrate {
	struct task_struct *task;
	int cpu_a, cpu_b;
	bool move;
	struct completion locked, done;
};

/* The empty region's body: the call and return that the other two make. */
static noinline void rb_migrate_nothing_fn(long last)
{
	barrier();
}

static noinline void rb_migrate_lock_fn(long last)
{
	rcu_read_lock();
}

static noinline void rb_migrate_unlock_fn(long last)
{
	rcu_read_unlock();
}

RB_DEFINE_REGION(rb_region_migrate_lock, RB_ID_MIGRATE_LOCK)

RB_DEFINE_REGION(rb_region_migrate_unlock, RB_ID_MIGRATE_UNLOCK)

RB_DEFINE_REGION(rb_region_migrate_empty, RB_ID_MIGRATE_EMPTY)

static int rb_migrate_fn(void *arg)
{
	struct rb_migrate *m = arg;
	int i;

	sched_set_fifo(current);
	for (i = 0; i < RB_MIGRATE_PAIRS; i++) {
		set_cpus_allowed_ptr(current, cpumask_of(m->cpu_a));
		rb_region_migrate_empty(rb_migrate_nothing_fn, 1);
		rb_region_migrate_lock(rb_migrate_lock_fn, 1);
		complete(&m->locked);
		while (m->move && raw_smp_processor_id() == m->cpu_a)
			cpu_relax();
		rb_region_migrate_unlock(rb_migrate_unlock_fn, 1);
		complete(&m->done);
	}
	sched_set_normal(current, 0);
	rb_park_until_stopped();
	return 0;
}

/* The pairs of one variant; returns 0, or -EIO if the reader did not move. */
static int rb_migrate_run(struct rb_migrate *m)
{
	char params[32];
	int i, ret = 0;

	init_completion(&m->locked);
	init_completion(&m->done);
	m->task = kthread_create(rb_migrate_fn, m, "rcubench_migrate");
	if (IS_ERR(m->task))
		return PTR_ERR(m->task);
	wake_up_process(m->task);	/* It moves itself to A. */
	for (i = 0; i < RB_MIGRATE_PAIRS; i++) {
		wait_for_completion(&m->locked);
		if (m->move && set_cpus_allowed_ptr(m->task, cpumask_of(m->cpu_b)))
			ret = -EIO;
		wait_for_completion(&m->done);
	}
	kthread_stop(m->task);
	snprintf(params, sizeof(params), "move=%d", m->move);
	for (i = 0; i < RB_MIGRATE_PAIRS; i++) {
		rb_label(RB_ID_MIGRATE_EMPTY, params, "empty", 1);
		rb_label(RB_ID_MIGRATE_LOCK, params, "lock", 1);
		rb_label(RB_ID_MIGRATE_UNLOCK, params, "unlock", 1);
	}
	return ret;
}

static int rb_test_count_migrate(void)
{
	struct rb_migrate m = { .cpu_a = rb_nth_cpu(0), .cpu_b = rb_nth_cpu(1) };
	bool can_move = IS_ENABLED(CONFIG_RCU_PREEMPTIBLE_READERS) && num_online_cpus() > 1;
	unsigned long flags;
	int ret;

	local_irq_save(flags);
	RB_WINDOW_OPEN(RB_ID_MIGRATE_WATCH);
	local_irq_restore(flags);
	m.move = false;
	ret = rb_migrate_run(&m);
	if (!ret && can_move) {
		m.move = true;
		ret = rb_migrate_run(&m);
	}
	RB_WINDOW_CLOSE(RB_ID_MIGRATE_WATCH);
	rb_label(RB_ID_MIGRATE_WATCH, can_move ? "moves=1" : "moves=0", "window", 1);
	if (ret) {
		pr_err("count_migrate: %d\n", ret);
		return ret;
	}
	if (can_move)
		pr_info("count_migrate: %d read pairs on CPU %d, %d moving from it to CPU %d\n",
			RB_MIGRATE_PAIRS, m.cpu_a, RB_MIGRATE_PAIRS, m.cpu_b);
	else
		pr_info("count_migrate: %d read pairs on CPU %d, none moving (%s)\n",
			RB_MIGRATE_PAIRS, m.cpu_a,
			num_online_cpus() > 1 ? "readers are not preemptible" : "one CPU");
	return 0;
}

/*
 * Start rb_gp_load_fn() readers on every online CPU but skip_cpu, into
 * tasks[]; returns how many, or an error after stopping those started.
 * (rb_test_gp() can use it too.)
 */
static int rb_start_gp_load(struct task_struct **tasks, int skip_cpu)
{
	int cpu, n = 0;

	for_each_online_cpu(cpu) {
		if (cpu == skip_cpu)
			continue;
		tasks[n] = rb_start_kthread(rb_gp_load_fn, NULL, cpu, "load");
		if (IS_ERR(tasks[n])) {
			int ret = PTR_ERR(tasks[n]);

			rb_stop_kthreads(tasks, n);
			return ret;
		}
		n++;
	}
	return n;
}

/*
 * count_gp: the RCU core's work over samples= synchronize_rcu() calls.
 * kgps= is how far the implementation's own grace-period counter
 * (rcu_get_gp_seq(): Classic's completed batches, the flip-counter
 * design's completed stages, Tree's gp_seq) moved meanwhile, so the
 * analysis can tell grace periods from synchronize_rcu() calls.
 */
static int rb_test_count_gp(void)
{
	int self = get_cpu(), nload = 0, i;
	struct task_struct **tasks;
	unsigned long gp_seq, kgps;
	char params[128];

	put_cpu();
	tasks = kcalloc(nr_cpu_ids, sizeof(*tasks), GFP_KERNEL);
	if (!tasks)
		return -ENOMEM;
	if (!strcmp(load, "readers")) {
		nload = rb_start_gp_load(tasks, self);
		if (nload < 0) {
			kfree(tasks);
			return nload;
		}
	}
	synchronize_rcu(); /* Warm-up, and the readers are running. */
	gp_seq = rcu_get_gp_seq();
	RB_WINDOW_OPEN(RB_ID_COUNT_GP);
	for (i = 0; i < samples; i++)
		synchronize_rcu();
	RB_WINDOW_CLOSE(RB_ID_COUNT_GP);
	/*
	 * The counter is rcu_seq_ctr() wide, not unsigned long wide: Tree RCU
	 * starts it 300 grace periods short of wrapping, so a window across
	 * the wrap needs the difference taken modulo that width.
	 */
	kgps = (rcu_seq_ctr(rcu_get_gp_seq()) - rcu_seq_ctr(gp_seq)) &
	       (ULONG_MAX >> RCU_SEQ_CTR_SHIFT);
	snprintf(params, sizeof(params), "load=%s;gps=%d;cpus=%d;kgps=%lu", load, samples,
		 num_online_cpus(), kgps);
	rb_label(RB_ID_COUNT_GP, params, "window", samples);
	pr_info("count_gp %s: window done\n", params);
	rb_stop_kthreads(tasks, nload);
	kfree(tasks);
	return 0;
}

/*
 * count_refscale: each call of refscale's ref_rcu_read_section(), at
 * offsets [range_lo, range_hi) of refscale.ko's .text, becomes a counted
 * region.  The suite's kernels have no kallsyms: the host gives the offsets
 * (from the .ko) and the address of the kernel's module list (from
 * System.map), where this module finds refscale's base (.text comes first
 * in a module's core).  The guest job loads refscale (waiting holdoff
 * seconds) before this module.
 */
static unsigned long modules_list, range_lo, range_hi;
module_param(modules_list, ulong, 0444);
MODULE_PARM_DESC(modules_list, "count_refscale: address of the kernel's module list");
module_param(range_lo, ulong, 0444);
MODULE_PARM_DESC(range_lo, "count_refscale: offset in refscale's .text of the code to count");
module_param(range_hi, ulong, 0444);
MODULE_PARM_DESC(range_hi, "count_refscale: offset past it");

static unsigned long rb_refscale_base(void)
{
	struct list_head *head = (struct list_head *)modules_list;
	unsigned long base = 0;
	struct module *mod;

	/* The list is RCU-protected; modules_list is checked by the caller. */
	rcu_read_lock();
	list_for_each_entry_rcu(mod, head, list)
		if (!strcmp(mod->name, "refscale"))
			base = (unsigned long)mod->core_layout.base;
	rcu_read_unlock();
	return base;
}

static int rb_test_count_refscale(void)
{
	unsigned long flags, base;
	char params[96];

	/* Our own entry is on the list: a wrong address does not find it. */
	if (!modules_list || THIS_MODULE->list.prev == THIS_MODULE->list.next ||
	    range_hi <= range_lo) {
		pr_err("invalid parameters modules_list=%lx range_lo=%lx range_hi=%lx\n",
		       modules_list, range_lo, range_hi);
		return -EINVAL;
	}
	base = rb_refscale_base();
	if (!base) {
		pr_err("count_refscale: no refscale module loaded\n");
		return -ENOENT;
	}
	/* Each marker's next load on this CPU is its own: no interrupt between. */
	local_irq_save(flags);
	RB_RANGE(base + range_lo, base + range_hi);
	local_irq_restore(flags);
	snprintf(params, sizeof(params), "readers=1;nest=1;loops=%ld", rb_count_loops());
	/* Labelled with the base: the plugin adds the range's generation. */
	rb_label(RB_RANGE_ID_BASE, params, "range", rb_count_loops());
	return 0;
}

/* ---- latency ---------------------------------------------------------- */

/*
 * What preemptible readers buy.  readers= normal-priority kthreads on
 * one CPU loop over read-side sections of reader_us each; a SCHED_FIFO
 * measurer on the same CPU sleeps on an hrtimer to an absolute expiry
 * and records how late it runs.  A reader that cannot be preempted
 * delays the measurer until rcu_read_unlock() (classic-preempt) or the
 * cond_resched() after it (PREEMPT_NONE).  Meanwhile a normal-priority
 * kthread on another CPU (the same one with one CPU online) times
 * synchronize_rcu() calls.
 *
 * The expiries must not be phase-locked to the readers: a measurer that
 * re-armed a fixed 1-2 ms after it woke (at a reader boundary, behind a
 * non-preemptible reader) would always land 1-2 ms into the next reader.
 * So they are drawn on a grid of the clock at the start, which the
 * readers do not reset: slot k begins at t0 + k * period, and its expiry
 * is uniform over the slot's first spread = 2 * reader_us (at least
 * RB_LAT_MIN_SPREAD_US) nanoseconds, more than one reader period, so
 * that the expiry's phase within a reader is uniform: behind
 * non-preemptible readers of L us the delays spread over [0, L].  The
 * rest of the slot (reader_us + RB_LAT_MARGIN_US) leaves room for the
 * worst delay, so a wakeup ends before the next slot begins; a slot
 * that began before the measurer was ready again is skipped (counted in
 * skipped_slots), never armed in the past.
 */
#define RB_LAT_MAX_READER_US	10000
#define RB_LAT_MIN_SPREAD_US	1000
#define RB_LAT_MARGIN_US	2000
#define RB_LAT_MAX_GP_SAMPLES	1000

static s64 *rb_lat_wake;
static s64 *rb_lat_gp;
static int rb_lat_ngp;
static int rb_lat_skipped;
static bool rb_lat_measuring;
static DECLARE_COMPLETION(rb_lat_done);

static int rb_lat_reader_fn(void *arg)
{
	while (!kthread_should_stop()) {
		rcu_read_lock();
		udelay(reader_us);
		rcu_read_unlock();
		/* A PREEMPT_NONE kernel switches to the measurer only here. */
		cond_resched();
	}
	return 0;
}

static int rb_lat_measurer_fn(void *arg)
{
	u32 spread = max(2 * reader_us, RB_LAT_MIN_SPREAD_US) * NSEC_PER_USEC;
	u64 period = spread + (u64)(reader_us + RB_LAT_MARGIN_US) * NSEC_PER_USEC;
	ktime_t t0, slot, expiry;
	u64 k = 0;
	int i;

	sched_set_fifo(current);
	t0 = ktime_get();
	rb_lat_skipped = 0;
	for (i = 0; i < samples; i++) {
		/* The next slot that has not begun yet. */
		slot = ktime_add_ns(t0, ++k * period);
		while (ktime_before(slot, ktime_get())) {
			rb_lat_skipped++;
			slot = ktime_add_ns(t0, ++k * period);
		}
		expiry = ktime_add_ns(slot, get_random_u32_below(spread));
		set_current_state(TASK_UNINTERRUPTIBLE);
		schedule_hrtimeout(&expiry, HRTIMER_MODE_ABS);
		rb_lat_wake[i] = ktime_to_ns(ktime_sub(ktime_get(), expiry));
	}
	WRITE_ONCE(rb_lat_measuring, false);
	complete(&rb_lat_done);
	rb_park_until_stopped();
	return 0;
}

static int rb_lat_gp_fn(void *arg)
{
	u64 t0;

	while (READ_ONCE(rb_lat_measuring) && rb_lat_ngp < RB_LAT_MAX_GP_SAMPLES) {
		t0 = ktime_get_mono_fast_ns();
		synchronize_rcu();
		rb_lat_gp[rb_lat_ngp++] = ktime_get_mono_fast_ns() - t0;
	}
	rb_park_until_stopped();
	return 0;
}

/*
 * Quartiles and p99, nearest rank, and the worst.  No p99.9: at the
 * 100 samples of the profiles it is the maximum.
 */
static void rb_lat_report(void)
{
	static const struct { const char *metric; int pct; } summary[] = {
		{ "wakeup_p25_ns", 25 }, { "wakeup_p75_ns", 75 },
		{ "wakeup_p99_ns", 99 }, { "wakeup_max_ns", 100 },
	};
	char params[96];
	int i;

	snprintf(params, sizeof(params), "reader_us=%d;readers=%d;samples=%d",
		 reader_us, readers, samples);
	rb_add_row(params, "samples", "count", samples, false);
	rb_add_row(params, "wakeup_median_ns", "ns", rb_median(rb_lat_wake, samples), false);
	for (i = 0; i < ARRAY_SIZE(summary); i++)
		rb_add_row(params, summary[i].metric, "ns",
			   rb_percentile(rb_lat_wake, samples, summary[i].pct), false);
	rb_add_row(params, "skipped_slots", "count", rb_lat_skipped, false);
	rb_add_row(params, "gp_samples", "count", rb_lat_ngp, false);
	if (rb_lat_ngp) {
		rb_add_row(params, "gp_median_ns", "ns", rb_median(rb_lat_gp, rb_lat_ngp), false);
		rb_add_row(params, "gp_max_ns", "ns", rb_lat_gp[rb_lat_ngp - 1], false);
	}
	pr_info("latency %s: wakeup median %lld ns max %lld ns, %d grace periods\n",
		params, rb_median(rb_lat_wake, samples), rb_lat_wake[samples - 1], rb_lat_ngp);
}

static int rb_test_latency(void)
{
	struct task_struct **tasks, *measurer, *gp;
	int cpu = cpumask_first(cpu_online_mask);
	int nreaders = 0, ret = 0;

	rb_lat_wake = kcalloc(samples, sizeof(*rb_lat_wake), GFP_KERNEL);
	rb_lat_gp = kcalloc(RB_LAT_MAX_GP_SAMPLES, sizeof(*rb_lat_gp), GFP_KERNEL);
	tasks = kcalloc(readers, sizeof(*tasks), GFP_KERNEL);
	if (!rb_lat_wake || !rb_lat_gp || !tasks) {
		ret = -ENOMEM;
		goto out;
	}
	for (nreaders = 0; nreaders < readers; nreaders++) {
		tasks[nreaders] = rb_start_kthread(rb_lat_reader_fn, NULL, cpu, "lat_reader");
		if (IS_ERR(tasks[nreaders])) {
			ret = PTR_ERR(tasks[nreaders]);
			goto stop;
		}
	}
	rb_lat_ngp = 0;
	WRITE_ONCE(rb_lat_measuring, true);
	gp = rb_start_kthread(rb_lat_gp_fn, NULL, rb_nth_cpu(1), "lat_gp");
	if (IS_ERR(gp)) {
		ret = PTR_ERR(gp);
		goto stop;
	}
	measurer = rb_start_kthread(rb_lat_measurer_fn, NULL, cpu, "lat_fifo");
	if (IS_ERR(measurer)) {
		WRITE_ONCE(rb_lat_measuring, false);
		kthread_stop(gp);
		ret = PTR_ERR(measurer);
		goto stop;
	}
	wait_for_completion(&rb_lat_done);
	kthread_stop(measurer);
	kthread_stop(gp);
	rb_lat_report();
stop:
	rb_stop_kthreads(tasks, nreaders);
out:
	kfree(tasks);
	kfree(rb_lat_gp);
	kfree(rb_lat_wake);
	return ret;
}

/* ---- boost ------------------------------------------------------------ */

/*
 * What priority boosting of preempted readers buys (patch 0008).  All on
 * one CPU: a normal-priority reader enters rcu_read_lock() and wakes a
 * CPU-bound SCHED_FIFO hog (priority 1), which preempts it inside its
 * section wherever the kernel preempts readers, and spins for hog_ms.
 * A SCHED_FIFO measurer (priority 50, above the hog) times a
 * synchronize_rcu() that the hog starts as soon as it runs, while the
 * reader is preempted; a SCHED_FIFO poster (also 50) queues one callback
 * a millisecond for the whole test and records the most outstanding
 * during each sample.  With the booster (rcupreempt.boost_delay_ms, 500
 * by default) the reader runs again, boosted above the hog, after the
 * boost delay and the grace period ends soon after; without it
 * (boost_delay_ms=0), after the hog.  A kernel that cannot preempt the
 * reader runs the hog, and so starts the grace period, only after the
 * reader's section: then hog_delay_median_ns is the section's remainder
 * and the grace period has no reader to wait for.
 *
 * hog_ms stays below the RT throttling budget (sched_rt_runtime_us, 950
 * ms a second): past it the scheduler runs the reader whatever the
 * booster does.  The poster's callbacks come from a pool; a post that
 * finds its slot still queued is counted (pool_exhausted), not made, so a
 * nonzero count means the outstanding figure was bounded by the pool.
 */
#define RB_BOOST_POOL		4096
#define RB_BOOST_MAX_HOG_MS	900
#define RB_BOOST_READER_US	100

static int hog_ms = 800;
module_param(hog_ms, int, 0444);
MODULE_PARM_DESC(hog_ms, "boost: milliseconds the SCHED_FIFO hog spins (1..900)");

struct rb_boost_cb {
	struct rcu_head rh;
	atomic_t queued;
};

static struct rb_boost_cb *rb_boost_pool;
static atomic_t rb_boost_outstanding;
static int rb_boost_exhausted;
static int rb_boost_sample = -1;	/* the sample the poster records, -1: none */
static s64 *rb_boost_gp, *rb_boost_hog_delay, *rb_boost_section, *rb_boost_outmax;
static ktime_t rb_boost_lock_time;
static DECLARE_COMPLETION(rb_boost_reader_go);
static DECLARE_COMPLETION(rb_boost_reader_done);
static DECLARE_COMPLETION(rb_boost_hog_go);
static DECLARE_COMPLETION(rb_boost_hog_done);
static DECLARE_COMPLETION(rb_boost_gp_go);
static DECLARE_COMPLETION(rb_boost_gp_done);

static void rb_boost_cb_fn(struct rcu_head *rh)
{
	struct rb_boost_cb *cb = container_of(rh, struct rb_boost_cb, rh);

	atomic_dec(&rb_boost_outstanding);
	atomic_set_release(&cb->queued, 0);
}

static int rb_boost_poster_fn(void *arg)
{
	struct rb_boost_cb *cb;
	ktime_t next = ktime_get();
	int out, i, slot = 0;

	sched_set_fifo(current);
	while (!kthread_should_stop()) {
		cb = &rb_boost_pool[slot];
		if (atomic_read_acquire(&cb->queued)) {
			rb_boost_exhausted++;
		} else {
			atomic_set(&cb->queued, 1);
			out = atomic_inc_return(&rb_boost_outstanding);
			call_rcu(&cb->rh, rb_boost_cb_fn);
			slot = (slot + 1) % RB_BOOST_POOL;
			i = READ_ONCE(rb_boost_sample);
			if (i >= 0 && out > rb_boost_outmax[i])
				rb_boost_outmax[i] = out;
		}
		next = ktime_add_ms(next, 1);
		set_current_state(TASK_UNINTERRUPTIBLE);
		schedule_hrtimeout(&next, HRTIMER_MODE_ABS);
	}
	return 0;
}

static int rb_boost_reader_fn(void *arg)
{
	int i;

	for (i = 0; i < samples; i++) {
		wait_for_completion(&rb_boost_reader_go);
		rcu_read_lock();
		rb_boost_lock_time = ktime_get();
		complete(&rb_boost_hog_go);
		udelay(RB_BOOST_READER_US);
		/* Before the unlock, where a non-preemptible reader is preempted. */
		rb_boost_section[i] = ktime_to_ns(ktime_sub(ktime_get(), rb_boost_lock_time));
		rcu_read_unlock();
		complete(&rb_boost_reader_done);
	}
	rb_park_until_stopped();
	return 0;
}

static int rb_boost_hog_fn(void *arg)
{
	ktime_t start;
	int i;

	sched_set_fifo_low(current);
	for (i = 0; i < samples; i++) {
		wait_for_completion(&rb_boost_hog_go);
		start = ktime_get();
		rb_boost_hog_delay[i] = ktime_to_ns(ktime_sub(start, rb_boost_lock_time));
		complete(&rb_boost_gp_go);
		while (ktime_ms_delta(ktime_get(), start) < hog_ms)
			cpu_relax();
		complete(&rb_boost_hog_done);
	}
	rb_park_until_stopped();
	return 0;
}

static int rb_boost_gp_fn(void *arg)
{
	u64 t0;
	int i;

	sched_set_fifo(current);
	for (i = 0; i < samples; i++) {
		wait_for_completion(&rb_boost_gp_go);
		t0 = ktime_get_ns();
		synchronize_rcu();
		rb_boost_gp[i] = ktime_get_ns() - t0;
		complete(&rb_boost_gp_done);
	}
	rb_park_until_stopped();
	return 0;
}

/* Each sample array sorted once by rb_median(); its last entry is the worst. */
static void rb_boost_report(void)
{
	s64 gp = rb_median(rb_boost_gp, samples);
	s64 hog_delay = rb_median(rb_boost_hog_delay, samples);
	s64 section = rb_median(rb_boost_section, samples);
	s64 outstanding = rb_median(rb_boost_outmax, samples);
	s64 gp_max = rb_boost_gp[samples - 1];
	s64 outstanding_max = rb_boost_outmax[samples - 1];
	char params[96];

	snprintf(params, sizeof(params), "hog_ms=%d;samples=%d", hog_ms, samples);
	rb_add_row(params, "samples", "count", samples, false);
	rb_add_row(params, "gp_median_ns", "ns", gp, false);
	rb_add_row(params, "gp_max_ns", "ns", gp_max, false);
	rb_add_row(params, "hog_delay_median_ns", "ns", hog_delay, false);
	rb_add_row(params, "reader_section_median_ns", "ns", section, false);
	rb_add_row(params, "outstanding_median", "count", outstanding, false);
	rb_add_row(params, "outstanding_max", "count", outstanding_max, false);
	rb_add_row(params, "pool_exhausted", "count", rb_boost_exhausted, false);
	pr_info("boost %s: grace period median %lld ns max %lld ns, read-side section %lld ns, %lld callbacks outstanding at most\n",
		params, gp, gp_max, section, outstanding_max);
}

static int rb_test_boost(void)
{
	int (*fns[])(void *) = { rb_boost_poster_fn, rb_boost_reader_fn,
				 rb_boost_hog_fn, rb_boost_gp_fn };
	static const char * const names[] = { "boost_post", "boost_reader",
					      "boost_hog", "boost_gp" };
	struct task_struct *tasks[ARRAY_SIZE(fns)] = { };
	int cpu = cpumask_first(cpu_online_mask);
	int i, n, ret = 0;

	rb_boost_pool = kcalloc(RB_BOOST_POOL, sizeof(*rb_boost_pool), GFP_KERNEL);
	rb_boost_gp = kcalloc(4 * samples, sizeof(*rb_boost_gp), GFP_KERNEL);
	if (!rb_boost_pool || !rb_boost_gp) {
		ret = -ENOMEM;
		goto out;
	}
	rb_boost_hog_delay = rb_boost_gp + samples;
	rb_boost_section = rb_boost_hog_delay + samples;
	rb_boost_outmax = rb_boost_section + samples;
	atomic_set(&rb_boost_outstanding, 0);
	rb_boost_exhausted = 0;
	WRITE_ONCE(rb_boost_sample, -1);
	/*
	 * All created before any runs: a thread already waiting for its
	 * completion could not be stopped if a later one failed.
	 */
	for (n = 0; n < ARRAY_SIZE(fns); n++) {
		tasks[n] = kthread_create(fns[n], NULL, "rcubench_%s/%d", names[n], cpu);
		if (IS_ERR(tasks[n])) {
			ret = PTR_ERR(tasks[n]);
			goto stop;
		}
		kthread_bind(tasks[n], cpu);
	}
	for (i = 0; i < n; i++)
		wake_up_process(tasks[i]);
	for (i = 0; i < samples; i++) {
		/*
		 * 200 ms between hogs: no second of RT throttling's budget
		 * holds more than hog_ms + 100 ms of them.
		 */
		msleep(200);
		WRITE_ONCE(rb_boost_sample, i);
		complete(&rb_boost_reader_go);
		wait_for_completion(&rb_boost_reader_done);
		wait_for_completion(&rb_boost_gp_done);
		wait_for_completion(&rb_boost_hog_done);
		WRITE_ONCE(rb_boost_sample, -1);
	}
	rb_boost_report();
stop:
	/* The hog, reader and measurer park once their samples are done. */
	rb_stop_kthreads(tasks, n);
	/* Every queued callback has run before its pool is freed. */
	rcu_barrier();
out:
	kfree(rb_boost_gp);
	kfree(rb_boost_pool);
	rb_boost_pool = NULL;
	rb_boost_gp = NULL;
	return ret;
}

/* ---- parameters, init, exit ------------------------------------------ */

struct rb_int_param {
	const char *name;
	const int *val;
	int min, max;
};

static int rb_check_params(void)
{
	int ncpus = num_online_cpus();
	const struct rb_int_param ints[] = {
		{ "readers", &readers, 1, ncpus },
		{ "nest", &nest, 1, 2 },
		{ "runs", &runs, 1, 1000 },
		{ "target_ms", &target_ms, 1, 10000 },
		{ "writers", &writers, 1, ncpus },
		{ "duration_ms", &duration_ms, 1, 600000 },
		{ "max_backlog", &max_backlog, writers, 10000000 },
		{ "rate", &rate, 1, 10000000 },
		{ "calls", &calls, 1, 10000000 },
		{ "samples", &samples, 1, 100000 },
		{ "hold_us", &hold_us, 0, 1000 },
		{ "reader_us", &reader_us, 1, RB_LAT_MAX_READER_US },
		{ "hog_ms", &hog_ms, 1, RB_BOOST_MAX_HOG_MS },
	};
	int i;

	for (i = 0; i < ARRAY_SIZE(ints); i++) {
		if (*ints[i].val < ints[i].min || *ints[i].val > ints[i].max) {
			pr_err("invalid parameter %s=%d: must be %d..%d (%d CPUs online)\n",
			       ints[i].name, *ints[i].val, ints[i].min, ints[i].max, ncpus);
			return -EINVAL;
		}
	}
	if (loops_given && loops <= 0) {
		pr_err("invalid parameter loops=%ld: must be positive\n", loops);
		return -EINVAL;
	}
	if (strcmp(load, "idle") && strcmp(load, "readers")) {
		pr_err("invalid parameter load=%s: must be idle or readers\n", load);
		return -EINVAL;
	}
	if (strcmp(spacing, "lone") && strcmp(spacing, "back_to_back")) {
		pr_err("invalid parameter spacing=%s: must be lone or back_to_back\n", spacing);
		return -EINVAL;
	}
	return 0;
}

/* ---- the tests, init, exit ------------------------------------------- */

enum rb_kind {
	RB_TIMED,	/* rows in debugfs rcubench/results */
	RB_COUNTED,	/* labels in debugfs rcubench/count_labels, no rows */
};

struct rb_test {
	const char *name;
	int (*run)(void);
	enum rb_kind kind;
	int rows;		/* the most rows one load adds: rows + */
	int rows_per_sample;	/* rows_per_sample * samples */
	const char *params;	/* the parameters it reads */
};

#define RB_TEST_ENTRY(_name, _kind, _rows, _rows_per_sample, _params)	\
	{								\
		.name = #_name,						\
		.run = rb_test_##_name,					\
		.kind = _kind,						\
		.rows = _rows,						\
		.rows_per_sample = _rows_per_sample,			\
		.params = _params,					\
	},

static const struct rb_test rb_tests[] = {
	RB_UNPAREN(RB_TESTS(RB_TEST_ENTRY))
};

static const char rb_test_names[] = RB_UNPAREN(RB_TESTS(RB_TEST_NAME));

static const struct rb_test *rb_find_test(const char *name)
{
	int i;

	for (i = 0; i < ARRAY_SIZE(rb_tests); i++)
		if (!strcmp(name, rb_tests[i].name))
			return &rb_tests[i];
	return NULL;
}

static void rb_free(void)
{
	kfree(rb_labels);
	rb_labels = NULL;
	kvfree(rb_rows);
	rb_rows = NULL;
}

static int __init rb_init(void)
{
	const struct rb_test *t = rb_find_test(test);
	int ret;

	if (!t) {
		pr_err("invalid parameter test=%s: must be one of:%s\n", test, rb_test_names);
		return -EINVAL;
	}
	ret = rb_check_params();
	if (ret)
		return ret;
	rb_maxrows = t->rows + t->rows_per_sample * samples;
	if (rb_maxrows) {
		rb_rows = kvcalloc(rb_maxrows, sizeof(*rb_rows), GFP_KERNEL);
		if (!rb_rows)
			return -ENOMEM;
	}
	if (t->kind == RB_COUNTED) {
		rb_labels = kzalloc(RB_LABELS_SIZE, GFP_KERNEL);
		if (!rb_labels) {
			rb_free();
			return -ENOMEM;
		}
	}
	ret = t->run();
	if (!ret && rb_overflow) {
		/* A bound in RB_TESTS is wrong: fail rather than drop results. */
		pr_err("test=%s: more results than its bound (%d rows, %d bytes of labels)\n",
		       test, rb_maxrows, RB_LABELS_SIZE);
		ret = -ENOSPC;
	}
	if (ret) {
		rb_free();
		return ret;
	}
	rb_debugfs_dir = debugfs_create_dir("rcubench", NULL);
	debugfs_create_file("results", 0444, rb_debugfs_dir, NULL, &rb_results_fops);
	if (rb_labels)
		debugfs_create_file("count_labels", 0444, rb_debugfs_dir, NULL,
				    &rb_count_labels_fops);
	return 0;
}

static void __exit rb_exit(void)
{
	debugfs_remove_recursive(rb_debugfs_dir);
	rb_free();
}

module_init(rb_init);
module_exit(rb_exit);
