// SPDX-License-Identifier: GPL-2.0+
/*
 * rcubench: the rcu-bench measurement module.
 *
 * One test per load, chosen by test=:
 *   read     cost of an rcu_read_lock()/rcu_read_unlock() pair, minus an
 *            empty loop measured the same way (refscale style)
 *   read_mb  the same section with smp_mb() after lock and before unlock:
 *            the per-section barriers that preemptible RCU amortises over
 *            the grace period instead
 *   callrcu  call_rcu() throughput from writers= kthreads, peak backlog and
 *            the rcu_barrier() drain time (rcuscale style)
 *   gp       synchronize_rcu() latency samples, idle or against readers
 *   latency  wakeup latency of a SCHED_FIFO task on a CPU whose readers
 *            hold rcu_read_lock() for reader_us at a time, and the
 *            grace-period latency meanwhile
 *
 * Module init runs the test to completion, so when insmod returns the CSV
 * lines "test,params,metric,value,unit,source" are readable at
 * /sys/kernel/debug/rcubench/results.  A bad parameter fails init with
 * -EINVAL and a message naming it.
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

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("rcu-bench: RCU read-side, call_rcu and grace-period benchmarks");

static char *test = "read";
module_param(test, charp, 0444);
MODULE_PARM_DESC(test, "Test to run: read, read_mb, callrcu, gp, latency");

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
MODULE_PARM_DESC(writers, "callrcu: posting kthreads (1..online CPUs)");

static int duration_ms = 1000;
module_param(duration_ms, int, 0444);
MODULE_PARM_DESC(duration_ms, "callrcu: posting time in milliseconds");

static int max_outstanding = 1000000;
module_param(max_outstanding, int, 0444);
MODULE_PARM_DESC(max_outstanding, "callrcu: backlog at which writers wait for grace periods");

static int samples = 100;
module_param(samples, int, 0444);
MODULE_PARM_DESC(samples, "gp: synchronize_rcu() latency samples");

static char *load = "idle";
module_param(load, charp, 0444);
MODULE_PARM_DESC(load, "gp: idle, or readers (read-side load on every other CPU)");

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
static int rb_maxrows;
static struct dentry *rb_debugfs_dir;

static void rb_add_row(const char *params, const char *metric,
		       const char *unit, s64 value, bool milli)
{
	struct rb_row *row;

	if (WARN_ON_ONCE(rb_nrows >= rb_maxrows))
		return;
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

static const struct rb_read_ops rb_read_ops[] = {
	{ "read", rb_read_loop, rb_read_loop_nest2 },
	{ "read_mb", rb_read_mb_loop, rb_read_mb_loop_nest2 },
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

static int rb_test_read(const struct rb_read_ops *ops)
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
	/* A cost below the noise floor comes out as zero, never negative. */
	cost = max_t(s64, rb_median(diff, runs), 0);
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

/* ---- callrcu ---------------------------------------------------------- */

static atomic_long_t rb_cb_queued;
static atomic_long_t rb_cb_invoked;
static atomic_long_t rb_cb_outstanding;
static atomic_t rb_writers_left;
static DECLARE_COMPLETION(rb_writers_done);
static u64 rb_writers_deadline;

struct rb_writer {
	struct task_struct *task;
	long peak;		/* highest backlog this writer saw */
};

static void rb_cb_fn(struct rcu_head *rh)
{
	kfree(rh);
	atomic_long_dec(&rb_cb_outstanding);
	atomic_long_inc(&rb_cb_invoked);
}

static int rb_writer_fn(void *arg)
{
	struct rb_writer *w = arg;
	struct rcu_head *rh;
	long backlog;

	while (ktime_get_mono_fast_ns() < rb_writers_deadline) {
		rh = NULL;
		if (atomic_long_read(&rb_cb_outstanding) < max_outstanding)
			rh = kmalloc(sizeof(*rh), GFP_KERNEL);
		if (!rh) {
			/* Backlog full (or no memory): let grace periods catch up. */
			schedule_timeout_uninterruptible(1);
			continue;
		}
		backlog = atomic_long_inc_return(&rb_cb_outstanding);
		w->peak = max(w->peak, backlog);
		atomic_long_inc(&rb_cb_queued);
		call_rcu(rh, rb_cb_fn);
		cond_resched();
	}
	if (atomic_dec_and_test(&rb_writers_left))
		complete(&rb_writers_done);
	rb_park_until_stopped();
	return 0;
}

static int rb_test_callrcu(void)
{
	struct task_struct **tasks;
	struct rb_writer *w;
	long queued, invoked, peak = 0;
	u64 start, stop, drained;
	char params[96];
	int i, ret = 0;

	w = kcalloc(writers, sizeof(*w), GFP_KERNEL);
	tasks = kcalloc(writers, sizeof(*tasks), GFP_KERNEL);
	if (!w || !tasks) {
		ret = -ENOMEM;
		goto out;
	}
	atomic_set(&rb_writers_left, writers);
	start = ktime_get_mono_fast_ns();
	rb_writers_deadline = start + (u64)duration_ms * NSEC_PER_MSEC;
	for (i = 0; i < writers; i++) {
		w[i].task = rb_start_kthread(rb_writer_fn, &w[i], rb_nth_cpu(i), "writer");
		tasks[i] = w[i].task;
		if (IS_ERR(w[i].task)) {
			ret = PTR_ERR(w[i].task);
			/* The deadline passes; the started writers finish on their own. */
			atomic_sub(writers - i, &rb_writers_left);
			break;
		}
	}
	if (i)
		wait_for_completion(&rb_writers_done);
	stop = ktime_get_mono_fast_ns();
	queued = atomic_long_read(&rb_cb_queued);
	invoked = atomic_long_read(&rb_cb_invoked);
	rcu_barrier();
	drained = ktime_get_mono_fast_ns();
	rb_stop_kthreads(tasks, writers);
	if (ret)
		goto out;
	for (i = 0; i < writers; i++)
		peak = max(peak, w[i].peak);
	if (atomic_long_read(&rb_cb_invoked) != atomic_long_read(&rb_cb_queued))
		pr_err("rcu_barrier() returned with %ld callbacks not invoked\n",
		       atomic_long_read(&rb_cb_queued) - atomic_long_read(&rb_cb_invoked));
	snprintf(params, sizeof(params), "writers=%d;duration_ms=%d", writers, duration_ms);
	rb_add_row(params, "queued_per_s", "1/s",
		   div64_u64((u64)queued * NSEC_PER_SEC, stop - start), false);
	rb_add_row(params, "invoked_per_s", "1/s",
		   div64_u64((u64)invoked * NSEC_PER_SEC, stop - start), false);
	rb_add_row(params, "peak_outstanding", "count", peak, false);
	rb_add_row(params, "barrier_ns", "ns", drained - stop, false);
	pr_info("callrcu %s: queued %ld invoked %ld peak %ld barrier %llu ns\n",
		params, queued, invoked, peak, drained - stop);
out:
	kfree(tasks);
	kfree(w);
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

static int rb_gp_sampler_fn(void *arg)
{
	u64 t0;
	int i;

	synchronize_rcu(); /* Warm-up: not a sample. */
	for (i = 0; i < samples; i++) {
		t0 = ktime_get_mono_fast_ns();
		synchronize_rcu();
		rb_gp_lat[i] = ktime_get_mono_fast_ns() - t0;
	}
	complete(&rb_gp_done);
	rb_park_until_stopped();
	return 0;
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
		snprintf(params, sizeof(params), "load=%s;samples=%d;sample=%d",
			 load, samples, i);
		rb_add_row(params, "latency_ns", "ns", rb_gp_lat[i], false);
	}
	snprintf(params, sizeof(params), "load=%s;samples=%d", load, samples);
	for (i = 0; i < ARRAY_SIZE(summary); i++) {
		if (summary[i].pct == 50)
			v = rb_median(rb_gp_lat, samples);
		else
			v = rb_percentile(rb_gp_lat, samples, summary[i].pct);
		rb_add_row(params, summary[i].metric, "ns", v, false);
	}
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

/* ---- latency ---------------------------------------------------------- */

/*
 * What preemptible readers buy.  readers= normal-priority kthreads on
 * one CPU loop over read-side sections of reader_us each; a SCHED_FIFO
 * measurer on the same CPU sleeps on an hrtimer to an absolute expiry
 * 1-2 ms (random phase) ahead and records how late it runs.  A reader
 * that cannot be preempted delays the measurer until rcu_read_unlock()
 * (classic-preempt) or the cond_resched() after it (PREEMPT_NONE).
 * Meanwhile a normal-priority kthread on another CPU (the same one with
 * one CPU online) times synchronize_rcu() calls.
 */
#define RB_LAT_MAX_READER_US	10000
#define RB_LAT_MIN_GAP_US	1000
#define RB_LAT_GAP_SPREAD_US	1000
#define RB_LAT_MAX_GP_SAMPLES	1000

static s64 *rb_lat_wake;
static s64 *rb_lat_gp;
static int rb_lat_ngp;
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
	ktime_t expiry;
	int i;

	sched_set_fifo(current);
	for (i = 0; i < samples; i++) {
		expiry = ktime_add_us(ktime_get(), RB_LAT_MIN_GAP_US +
				      get_random_u32() % RB_LAT_GAP_SPREAD_US);
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

static void rb_lat_report(void)
{
	static const struct { const char *metric; int permille; } summary[] = {
		{ "wakeup_p99_ns", 990 }, { "wakeup_p999_ns", 999 },
		{ "wakeup_max_ns", 1000 },
	};
	char params[96];
	s64 v;
	int i;

	snprintf(params, sizeof(params), "reader_us=%d;readers=%d;samples=%d",
		 reader_us, readers, samples);
	rb_add_row(params, "samples", "count", samples, false);
	rb_add_row(params, "wakeup_median_ns", "ns", rb_median(rb_lat_wake, samples), false);
	for (i = 0; i < ARRAY_SIZE(summary); i++) {
		/* Nearest rank in thousandths; v is sorted by rb_median(). */
		v = rb_lat_wake[clamp(DIV_ROUND_UP(samples * summary[i].permille, 1000),
				      1, samples) - 1];
		rb_add_row(params, summary[i].metric, "ns", v, false);
	}
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
		{ "max_outstanding", &max_outstanding, 1, INT_MAX },
		{ "samples", &samples, 1, 100000 },
		{ "hold_us", &hold_us, 0, 1000 },
		{ "reader_us", &reader_us, 1, RB_LAT_MAX_READER_US },
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
	return 0;
}

static int rb_run_test(void)
{
	int i;

	for (i = 0; i < ARRAY_SIZE(rb_read_ops); i++)
		if (!strcmp(test, rb_read_ops[i].name))
			return rb_test_read(&rb_read_ops[i]);
	if (!strcmp(test, "callrcu"))
		return rb_test_callrcu();
	if (!strcmp(test, "gp"))
		return rb_test_gp();
	if (!strcmp(test, "latency"))
		return rb_test_latency();
	pr_err("invalid parameter test=%s: must be read, read_mb, callrcu, gp or latency\n", test);
	return -EINVAL;
}

static int __init rb_init(void)
{
	int ret;

	ret = rb_check_params();
	if (ret)
		return ret;
	rb_maxrows = samples + 16;
	rb_rows = kvcalloc(rb_maxrows, sizeof(*rb_rows), GFP_KERNEL);
	if (!rb_rows)
		return -ENOMEM;
	ret = rb_run_test();
	if (ret) {
		kvfree(rb_rows);
		return ret;
	}
	rb_debugfs_dir = debugfs_create_dir("rcubench", NULL);
	debugfs_create_file("results", 0444, rb_debugfs_dir, NULL, &rb_results_fops);
	return 0;
}

static void __exit rb_exit(void)
{
	debugfs_remove_recursive(rb_debugfs_dir);
	kvfree(rb_rows);
}

module_init(rb_init);
module_exit(rb_exit);
