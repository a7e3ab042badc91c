// SPDX-License-Identifier: GPL-2.0
/*
 * rb_apitest: check, at module load, that the 6.1 RCU and SRCU API other
 * than rcu_read_lock()/call_rcu() throughput works on the kernel it is
 * loaded into: callbacks, barriers, expedited and polled grace periods,
 * kvfree_rcu(), the lockdep helpers, and SRCU.  Each check prints one
 * line, "rb_apitest: <check> ok [(note)]" or "rb_apitest: <check> FAIL:
 * <why>", and the last line is "rb_apitest: done N ok M failed".  Init
 * always returns 0, so that the lines are what a test looks at.
 *
 * Every check looks for an effect that a broken implementation would not
 * produce: a callback that ran exactly once, a count of callbacks after a
 * barrier, a cookie that is complete or still pending, a reader that was
 * still inside its critical section when a grace period returned.  The
 * gp_<primitive>_waits_<reader> checks hold a reader on another CPU for
 * hold_ms and fail if the grace-period primitive returns before it ended;
 * the handoff reader goes from rcu_read_lock() to preempt_disable() and
 * back every few ms, as rcutorture's readers do.
 *
 * Only exported symbols are used: a symbol one kernel lacks makes the
 * module fail to load, which the host test reports as a failure.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/kernel.h>
#include <linux/atomic.h>
#include <linux/bottom_half.h>
#include <linux/completion.h>
#include <linux/cpu.h>
#include <linux/cpumask.h>
#include <linux/delay.h>
#include <linux/irqflags.h>
#include <linux/jiffies.h>
#include <linux/kthread.h>
#include <linux/ktime.h>
#include <linux/mm.h>
#include <linux/preempt.h>
#include <linux/rcupdate.h>
#include <linux/rcupdate_wait.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/smp.h>
#include <linux/srcu.h>
#include <linux/vmalloc.h>
#include <linux/workqueue.h>

static unsigned int hold_ms = 100;
module_param(hold_ms, uint, 0444);
MODULE_PARM_DESC(hold_ms, "How long a gp_*_waits_* reader stays in its critical section (ms)");

static unsigned int timeout_ms = 20000;
module_param(timeout_ms, uint, 0444);
MODULE_PARM_DESC(timeout_ms, "Longest wait for a polled grace period or a deferred free (ms)");

#define RB_MAGIC	0x5a5aa5a5UL
#define RB_BARRIER_CBS	500	/* callbacks per CPU in the barrier checks */
#define RB_MAX_COOKIES	16

static char why[192];
static char note[192];
static int n_ok, n_failed;

/* Record why the running check failed; returns false for "return failed(...)". */
static __printf(1, 2) bool failed(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
	return false;
}

/* Record a remark printed after "ok", e.g. a timing or what was not tested. */
static __printf(1, 2) void noted(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(note, sizeof(note), fmt, ap);
	va_end(ap);
}

static void run_check(const char *name, bool (*fn)(const void *arg), const void *arg)
{
	why[0] = '\0';
	note[0] = '\0';
	if (fn(arg)) {
		n_ok++;
		if (note[0])
			pr_info("%s ok (%s)\n", name, note);
		else
			pr_info("%s ok\n", name);
	} else {
		n_failed++;
		pr_err("%s FAIL: %s\n", name, why[0] ? why : "no reason recorded");
	}
}

/* Can rcu_read_lock_held() and friends tell "not held"?  Only with lockdep. */
static bool rb_lockdep_rcu(void)
{
#ifdef CONFIG_DEBUG_LOCK_ALLOC
	return debug_lockdep_rcu_enabled();
#else
	return false;
#endif
}

/* Poll a cookie until its grace period ended: elapsed ms, or -1 on timeout. */
static long rb_poll_rcu(unsigned long cookie)
{
	unsigned long start = jiffies;

	while (!poll_state_synchronize_rcu(cookie)) {
		if (time_after(jiffies, start + msecs_to_jiffies(timeout_ms)))
			return -1;
		usleep_range(500, 1000);
	}
	return jiffies_to_msecs(jiffies - start);
}

static long rb_poll_rcu_full(struct rcu_gp_oldstate *rgosp)
{
	unsigned long start = jiffies;

	while (!poll_state_synchronize_rcu_full(rgosp)) {
		if (time_after(jiffies, start + msecs_to_jiffies(timeout_ms)))
			return -1;
		usleep_range(500, 1000);
	}
	return jiffies_to_msecs(jiffies - start);
}

static long rb_poll_srcu(struct srcu_struct *ssp, unsigned long cookie)
{
	unsigned long start = jiffies;

	while (!poll_state_synchronize_srcu(ssp, cookie)) {
		if (time_after(jiffies, start + msecs_to_jiffies(timeout_ms)))
			return -1;
		usleep_range(500, 1000);
	}
	return jiffies_to_msecs(jiffies - start);
}

/*
 * 6.1's unsigned long cookie folds normal and expedited grace periods into
 * one counter and "can sometimes fail to take grace periods into account"
 * (get_state_synchronize_rcu_full()): rcutorture's rcu_poll_need_2gp()
 * waits for two grace periods before it requires such a cookie to be
 * complete.  A struct rcu_gp_oldstate cookie sees every grace period, so it
 * must be complete after one.  The checks hold each kind to its promise.
 *
 * rb_pending_after_2gp: is @cookie still pending after the grace period the
 * caller waited for and, if it needed one, a second from @gp?  Counts the
 * second grace periods in rb_second_gps.
 */
static int rb_second_gps;

static bool rb_pending_after_2gp(unsigned long cookie, void (*gp)(void))
{
	if (poll_state_synchronize_rcu(cookie))
		return false;
	rb_second_gps++;
	gp();
	return !poll_state_synchronize_rcu(cookie);
}

static void rb_sync_mult(void)
{
	synchronize_rcu_mult(call_rcu);
}

/* ---- call_rcu() and rcu_barrier() ---- */

struct rb_cb {
	struct rcu_head rh;
	unsigned long magic;
	atomic_t calls;
};

static struct rb_cb rb_cb_rcu, rb_cb_srcu, rb_cb_static;
static atomic_t rb_bad_cbs;

static void rb_cb_fn(struct rcu_head *rh)
{
	struct rb_cb *cb = container_of(rh, struct rb_cb, rh);

	if (cb->magic == RB_MAGIC)
		atomic_inc(&cb->calls);
	else
		atomic_inc(&rb_bad_cbs);
}

static void rb_cb_init(struct rb_cb *cb)
{
	cb->magic = RB_MAGIC;
	atomic_set(&cb->calls, 0);
	atomic_set(&rb_bad_cbs, 0);
}

/* How a single callback fared: true if it ran exactly once, with its head. */
static bool rb_cb_ran_once(struct rb_cb *cb, const char *after)
{
	int calls = atomic_read(&cb->calls);

	if (atomic_read(&rb_bad_cbs))
		return failed("callback invoked with a wrong rcu_head");
	if (calls != 1)
		return failed("callback invoked %d times after %s, expected once", calls, after);
	return true;
}

static bool check_call_rcu(const void *unused)
{
	int early;

	rb_cb_init(&rb_cb_rcu);
	rcu_read_lock();
	call_rcu(&rb_cb_rcu.rh, rb_cb_fn);
	mdelay(5);
	early = atomic_read(&rb_cb_rcu.calls);
	rcu_read_unlock();
	if (early) {
		rcu_barrier();
		return failed("callback ran inside the read-side critical section that queued it");
	}
	synchronize_rcu();
	rcu_barrier();
	return rb_cb_ran_once(&rb_cb_rcu, "synchronize_rcu() and rcu_barrier()");
}

static struct rcu_head *rb_heads;
static atomic_t rb_queued, rb_invoked;

static void rb_count_cb(struct rcu_head *rh)
{
	atomic_inc(&rb_invoked);
}

/* IPI handler: queue RB_BARRIER_CBS callbacks on this CPU's lists. */
static void rb_queue_rcu_cbs(void *unused)
{
	struct rcu_head *h = &rb_heads[smp_processor_id() * RB_BARRIER_CBS];
	int i;

	for (i = 0; i < RB_BARRIER_CBS; i++)
		call_rcu(&h[i], rb_count_cb);
	atomic_add(RB_BARRIER_CBS, &rb_queued);
}

static bool check_rcu_barrier(const void *unused)
{
	int early, queued, invoked;

	rb_heads = kcalloc(nr_cpu_ids * RB_BARRIER_CBS, sizeof(*rb_heads), GFP_KERNEL);
	if (!rb_heads)
		return failed("cannot allocate %u rcu_heads", nr_cpu_ids * RB_BARRIER_CBS);
	atomic_set(&rb_queued, 0);
	atomic_set(&rb_invoked, 0);
	/* Inside a reader none of them can be invoked before rcu_barrier(). */
	rcu_read_lock();
	on_each_cpu(rb_queue_rcu_cbs, NULL, 1);
	early = atomic_read(&rb_invoked);
	rcu_read_unlock();
	rcu_barrier();
	queued = atomic_read(&rb_queued);
	invoked = atomic_read(&rb_invoked);
	if (early)
		return failed("%d callbacks ran inside the reader that queued them", early);
	if (invoked != queued) {
		/* Leak the heads: some callbacks may still be queued on them. */
		return failed("rcu_barrier() returned with %d of %d callbacks invoked",
			      invoked, queued);
	}
	kfree(rb_heads);
	noted("%d callbacks queued from IPIs on %d CPUs", queued, queued / RB_BARRIER_CBS);
	return true;
}

/* ---- expedited, multiple and polled grace periods ---- */

static struct rcu_head rb_busy_heads[8];

static void rb_busy_cb(struct rcu_head *rh)
{
}

/*
 * Callbacks queued first may put a normal grace period in flight too: the
 * case where Tree RCU's combined cookie can miss the expedited one.
 */
static bool check_sync_expedited(const void *unused)
{
	struct rcu_gp_oldstate full;
	unsigned long cookie;
	ktime_t t0;
	int i;

	for (i = 0; i < ARRAY_SIZE(rb_busy_heads); i++)
		call_rcu(&rb_busy_heads[i], rb_busy_cb);
	cookie = get_state_synchronize_rcu();
	get_state_synchronize_rcu_full(&full);
	t0 = ktime_get();
	synchronize_rcu_expedited();
	noted("%lld ms", ktime_ms_delta(ktime_get(), t0));
	if (!poll_state_synchronize_rcu_full(&full)) {
		rcu_barrier();
		return failed("old full cookie pending after synchronize_rcu_expedited()");
	}
	if (rb_pending_after_2gp(cookie, synchronize_rcu_expedited)) {
		rcu_barrier();
		return failed("old cookie %lx pending after 2 synchronize_rcu_expedited()", cookie);
	}
	rcu_barrier();
	return true;
}

static bool check_sync_mult(const void *unused)
{
	unsigned long cookie = get_state_synchronize_rcu();
	struct rcu_gp_oldstate full;

	get_state_synchronize_rcu_full(&full);
	synchronize_rcu_mult(call_rcu);
	if (!poll_state_synchronize_rcu_full(&full))
		return failed("old full cookie pending after synchronize_rcu_mult()");
	if (rb_pending_after_2gp(cookie, rb_sync_mult))
		return failed("old cookie %lx pending after 2 synchronize_rcu_mult()", cookie);
	/* 6.1 has no synchronize_sched(): the gp_*_waits_sched checks cover it. */
	noted("synchronize_sched() is gone in 6.1: see gp_mult_waits_sched");
	return true;
}

static bool check_polled_completed(const void *unused)
{
	struct rcu_gp_oldstate full;
	unsigned long done = get_completed_synchronize_rcu();

	if (!poll_state_synchronize_rcu(done))
		return failed("get_completed_synchronize_rcu() cookie %lx not complete", done);
	if (!same_state_synchronize_rcu(done, get_completed_synchronize_rcu()))
		return failed("two get_completed_synchronize_rcu() cookies differ");
	get_completed_synchronize_rcu_full(&full);
	if (!poll_state_synchronize_rcu_full(&full))
		return failed("get_completed_synchronize_rcu_full() cookie not complete");
	cond_synchronize_rcu(done);
	cond_synchronize_rcu_full(&full);
	return true;
}

/*
 * A cookie taken inside a read-side critical section cannot be complete
 * before that section ends: no grace period can end while it runs.
 */
static bool check_polled_in_reader(const void *unused)
{
	unsigned long got, started;
	bool early = false;
	int i;

	rcu_read_lock();
	got = get_state_synchronize_rcu();
	started = start_poll_synchronize_rcu();
	for (i = 0; i < 20 && !early; i++) {
		early = poll_state_synchronize_rcu(got) || poll_state_synchronize_rcu(started);
		mdelay(1);
	}
	rcu_read_unlock();
	if (early)
		return failed("cookie %lx/%lx complete while the reader it was taken in still ran",
			      got, started);
	synchronize_rcu();
	if (rb_pending_after_2gp(got, synchronize_rcu))
		return failed("get_state cookie %lx pending after 2 synchronize_rcu()", got);
	if (rb_pending_after_2gp(started, synchronize_rcu))
		return failed("start_poll cookie %lx pending after 2 synchronize_rcu()", started);
	return true;
}

/* start_poll_synchronize_rcu() must get its grace period going by itself. */
static bool check_start_poll(const void *unused)
{
	unsigned long cookie = start_poll_synchronize_rcu();
	long ms = rb_poll_rcu(cookie);

	if (ms < 0)
		return failed("start_poll_synchronize_rcu() cookie %lx still pending after %u ms",
			      cookie, timeout_ms);
	noted("complete after %ld ms of polling", ms);
	return true;
}

static bool check_cond_sync(const void *unused)
{
	unsigned long cookie = get_state_synchronize_rcu();

	/* cond_synchronize_rcu() waits one grace period: allow the cookie two. */
	cond_synchronize_rcu(cookie);
	if (rb_pending_after_2gp(cookie, synchronize_rcu))
		return failed("get_state cookie %lx pending after cond_sync and a 2nd GP",
			      cookie);
	/* Already complete: must return, without anything to check. */
	cond_synchronize_rcu(cookie);
	cookie = start_poll_synchronize_rcu();
	cond_synchronize_rcu(cookie);
	if (rb_pending_after_2gp(cookie, synchronize_rcu))
		return failed("start_poll cookie %lx pending after cond_sync and a 2nd GP",
			      cookie);
	return true;
}

static bool check_polled_full(const void *unused)
{
	struct rcu_gp_oldstate got, started;
	bool early = false;
	long ms;
	int i;

	rcu_read_lock();
	get_state_synchronize_rcu_full(&got);
	start_poll_synchronize_rcu_full(&started);
	for (i = 0; i < 20 && !early; i++) {
		early = poll_state_synchronize_rcu_full(&got) ||
			poll_state_synchronize_rcu_full(&started);
		mdelay(1);
	}
	rcu_read_unlock();
	if (early)
		return failed("full cookie complete while the reader it was taken in still ran");
	ms = rb_poll_rcu_full(&started);
	if (ms < 0)
		return failed("start_poll_synchronize_rcu_full() cookie still pending after %u ms",
			      timeout_ms);
	synchronize_rcu();
	if (!poll_state_synchronize_rcu_full(&got))
		return failed("get_state_full cookie pending after synchronize_rcu()");
	get_state_synchronize_rcu_full(&got);
	cond_synchronize_rcu_full(&got);
	if (!poll_state_synchronize_rcu_full(&got))
		return failed("full cookie not complete after cond_synchronize_rcu_full()");
	noted("start_poll_full complete after %ld ms of polling", ms);
	return true;
}

static bool check_polled_expedited(const void *unused)
{
	struct rcu_gp_oldstate full;
	unsigned long cookie;
	bool early = false;
	long ms, ms_full;
	int i;

	rcu_read_lock();
	cookie = start_poll_synchronize_rcu_expedited();
	start_poll_synchronize_rcu_expedited_full(&full);
	for (i = 0; i < 20 && !early; i++) {
		early = poll_state_synchronize_rcu(cookie) ||
			poll_state_synchronize_rcu_full(&full);
		mdelay(1);
	}
	rcu_read_unlock();
	if (early)
		return failed("expedited cookie complete inside the reader it was taken in");
	ms = rb_poll_rcu(cookie);
	ms_full = rb_poll_rcu_full(&full);
	if (ms < 0 || ms_full < 0)
		return failed("start_poll_expedited%s cookie pending after %u ms",
			      ms < 0 ? "" : "_full", timeout_ms);
	cookie = get_state_synchronize_rcu();
	cond_synchronize_rcu_expedited(cookie);
	if (rb_pending_after_2gp(cookie, synchronize_rcu_expedited))
		return failed("cookie %lx pending after cond_sync_expedited and a 2nd GP",
			      cookie);
	get_state_synchronize_rcu_full(&full);
	cond_synchronize_rcu_expedited_full(&full);
	if (!poll_state_synchronize_rcu_full(&full))
		return failed("full cookie pending after cond_synchronize_rcu_expedited_full()");
	noted("complete after %ld/%ld ms of polling", ms, ms_full);
	return true;
}

/* Add @c to the @n pending cookies of @set unless it is there already. */
static void rb_add_cookie(unsigned long *set, int *n, unsigned long c)
{
	int i;

	for (i = 0; i < *n; i++)
		if (same_state_synchronize_rcu(set[i], c))
			return;
	if (*n < RB_MAX_COOKIES)
		set[(*n)++] = c;
}

static void rb_add_cookie_full(struct rcu_gp_oldstate *set, int *n, struct rcu_gp_oldstate *c)
{
	int i;

	for (i = 0; i < *n; i++)
		if (same_state_synchronize_rcu_full(&set[i], c))
			return;
	if (*n < RB_MAX_COOKIES)
		set[(*n)++] = *c;
}

/*
 * Users size arrays of pending cookies by NUM_ACTIVE_RCU_POLL_OLDSTATE and
 * NUM_ACTIVE_RCU_POLL_FULL_OLDSTATE: never more distinct cookies than
 * that may be pending at once.  Take cookies for half a second while
 * start_poll keeps grace periods going.  Every cookie in a set was taken
 * before the scan that found it pending, so all of them were pending at
 * once when the newest one was taken.
 */
static bool check_polled_active_bound(const void *unused)
{
	unsigned long set[RB_MAX_COOKIES];
	struct rcu_gp_oldstate fset[RB_MAX_COOKIES], f;
	unsigned long start = jiffies;
	int n = 0, nf = 0, max_n = 0, max_nf = 0, gps = 0, loops = 0;
	int i;

	while (time_before(jiffies, start + msecs_to_jiffies(500)) || gps < 4) {
		if (time_after(jiffies, start + msecs_to_jiffies(timeout_ms)))
			return failed("%d polled grace periods in %u ms", gps, timeout_ms);
		if (loops++ & 1)
			rb_add_cookie(set, &n, start_poll_synchronize_rcu());
		else
			rb_add_cookie(set, &n, get_state_synchronize_rcu());
		start_poll_synchronize_rcu_full(&f);
		rb_add_cookie_full(fset, &nf, &f);
		for (i = 0; i < n;) {
			if (poll_state_synchronize_rcu(set[i])) {
				set[i] = set[--n];
				gps++;
			} else {
				i++;
			}
		}
		for (i = 0; i < nf;) {
			if (poll_state_synchronize_rcu_full(&fset[i]))
				fset[i] = fset[--nf];
			else
				i++;
		}
		if (n > NUM_ACTIVE_RCU_POLL_OLDSTATE)
			return failed("%d cookies pending at once, NUM_ACTIVE_RCU_POLL_OLDSTATE %d",
				      n, NUM_ACTIVE_RCU_POLL_OLDSTATE);
		if (nf > NUM_ACTIVE_RCU_POLL_FULL_OLDSTATE)
			return failed("%d full cookies pending, NUM_ACTIVE_..._FULL_OLDSTATE %d",
				      nf, NUM_ACTIVE_RCU_POLL_FULL_OLDSTATE);
		max_n = max(max_n, n);
		max_nf = max(max_nf, nf);
		usleep_range(200, 400);
	}
	noted("%d grace periods; at most %d/%d cookies, %d/%d full cookies pending",
	      gps, max_n, NUM_ACTIVE_RCU_POLL_OLDSTATE, max_nf, NUM_ACTIVE_RCU_POLL_FULL_OLDSTATE);
	return true;
}

/* ---- kvfree_rcu() ---- */

struct rb_obj {
	unsigned long magic;
	struct rcu_head rh;
};

/*
 * Whether an object was freed is observable only for vmalloc memory: vfree()
 * clears its page-table entries, so vmalloc_to_page() returns NULL.  The
 * guests use SLOB, which has no per-object or per-cache accounting, so for
 * kmalloc()ed objects the check is that they stay intact (SLOB writes its
 * free-list header over the first bytes of a freed block) while the reader
 * that freed them runs, and that nothing crashes later.
 */
static bool check_kvfree_rcu(const void *unused)
{
	struct rb_obj *v, *k, *kv;
	unsigned long start;
	void *vbuf;
	bool intact;

	v = vzalloc(2 * PAGE_SIZE);
	vbuf = vzalloc(PAGE_SIZE);
	k = kmalloc(sizeof(*k), GFP_KERNEL);
	kv = kvmalloc(sizeof(*kv), GFP_KERNEL);
	if (!v || !vbuf || !k || !kv) {
		vfree(v);
		vfree(vbuf);
		kfree(k);
		kvfree(kv);
		return failed("cannot allocate the test objects");
	}
	v->magic = RB_MAGIC;
	k->magic = RB_MAGIC;
	kv->magic = RB_MAGIC;

	rcu_read_lock();
	kvfree_rcu(v, rh);
	kfree_rcu(k, rh);
	kvfree_rcu(kv, rh);
	mdelay(10);
	intact = vmalloc_to_page(v) && READ_ONCE(v->magic) == RB_MAGIC &&
		 READ_ONCE(k->magic) == RB_MAGIC && READ_ONCE(kv->magic) == RB_MAGIC;
	rcu_read_unlock();
	if (!intact)
		return failed("object given to k(v)free_rcu() freed inside the reader");

	/* The one-argument form may sleep and is called outside readers. */
	kvfree_rcu_mightsleep(vbuf);
	synchronize_rcu();
	rcu_barrier();
	start = jiffies;
	while (vmalloc_to_page(v) || vmalloc_to_page(vbuf)) {
		if (time_after(jiffies, start + msecs_to_jiffies(timeout_ms)))
			return failed("kvfree_rcu(%s) object mapped %u ms after rcu_barrier()",
				      vmalloc_to_page(v) ? "ptr, rh" : "ptr", timeout_ms);
		msleep(20);
	}
	noted("vmalloc objects unmapped %u ms after rcu_barrier(); kmalloc frees unobservable",
	      jiffies_to_msecs(jiffies - start));
	return true;
}

/* ---- lockdep helpers and reader nesting ---- */

static bool check_read_lock_held(const void *unused)
{
	int in_rcu, in_bh, in_sched, in_any;

	rcu_read_lock();
	in_rcu = rcu_read_lock_held();
	rcu_read_unlock();
	rcu_read_lock_bh();
	in_bh = rcu_read_lock_bh_held();
	rcu_read_unlock_bh();
	rcu_read_lock_sched();
	in_sched = rcu_read_lock_sched_held();
	in_any = rcu_read_lock_any_held();
	rcu_read_unlock_sched();
	if (!in_rcu || !in_bh || !in_sched || !in_any)
		return failed("inside their sections: rcu %d bh %d sched %d any %d, expected all 1",
			      in_rcu, in_bh, in_sched, in_any);
	/* Outside: the sched/any helpers need a preempt count to say 0. */
	if (IS_ENABLED(CONFIG_PREEMPT_COUNT) &&
	    (rcu_read_lock_sched_held() || rcu_read_lock_any_held()))
		return failed("outside any section: sched %d any %d, expected 0",
			      rcu_read_lock_sched_held(), rcu_read_lock_any_held());
	if (rb_lockdep_rcu()) {
		if (rcu_read_lock_held() || rcu_read_lock_bh_held())
			return failed("outside any section: rcu %d bh %d, expected 0",
				      rcu_read_lock_held(), rcu_read_lock_bh_held());
	} else {
		noted("no lockdep: rcu/bh held outside not testable%s",
		      IS_ENABLED(CONFIG_PREEMPT_COUNT) ? "" : ", nor sched/any (no preempt count)");
	}
	return true;
}

static bool check_read_lock_nesting(const void *unused)
{
	int d[5];
	bool preemptible_inside;

	rcu_read_lock();
	preemptible_inside = preemptible();
	rcu_read_unlock();
	if (IS_ENABLED(CONFIG_RCU_PREEMPTIBLE_READERS)) {
		d[0] = rcu_preempt_depth();
		rcu_read_lock();
		d[1] = rcu_preempt_depth();
		rcu_read_lock();
		d[2] = rcu_preempt_depth();
		rcu_read_unlock();
		d[3] = rcu_preempt_depth();
		rcu_read_unlock();
		d[4] = rcu_preempt_depth();
		if (d[0] != 0 || d[1] != 1 || d[2] != 2 || d[3] != 1 || d[4] != 0)
			return failed("rcu_preempt_depth() went %d %d %d %d %d, expected 0 1 2 1 0",
				      d[0], d[1], d[2], d[3], d[4]);
		if (IS_ENABLED(CONFIG_PREEMPTION) && !preemptible_inside)
			return failed("rcu_read_lock() disabled preemption");
		noted("preemptible readers, depth 0 1 2 1 0");
	} else if (IS_ENABLED(CONFIG_PREEMPT_COUNT)) {
		if (preemptible_inside)
			return failed("preemptible inside a non-preemptible reader");
		noted("non-preemptible readers");
	} else {
		noted("no preempt count: nesting not observable");
	}
	return true;
}

/* ---- grace periods against a reader on another CPU ---- */

enum rb_reader { RB_RCU, RB_SCHED, RB_BH, RB_IRQ, RB_HANDOFF, RB_SRCU };
static const char * const rb_reader_names[] = {
	"rcu", "sched", "bh", "irq", "handoff", "srcu",
};

enum rb_gp {
	GP_SYNC, GP_EXP, GP_MULT, GP_COND, GP_COND_FULL, GP_POLL, GP_POLL_FULL,
	GP_POLL_EXP, GP_COND_EXP, GP_SRCU_SYNC, GP_SRCU_EXP, GP_SRCU_POLL,
};

static const char * const rb_gp_names[] = {
	"sync", "exp", "mult", "cond", "cond_full", "poll", "poll_full",
	"poll_exp", "cond_exp", "srcu_sync", "srcu_exp", "srcu_poll",
};

static struct srcu_struct rb_srcu;
static bool rb_srcu_ready;

struct rb_reader_ctx {
	enum rb_reader type;
	struct completion entered;
	bool ended;		/* set just before the section ends */
	struct task_struct *task;
};

/* Each segment of a handoff reader, in ms: ticks come inside each. */
#define RB_HANDOFF_MS 3

/*
 * One critical section for hold_ms that hands its protection over from
 * rcu_read_lock() to a preempt-disabled region and back every
 * RB_HANDOFF_MS, as rcutorture's readers do: each rcu_read_unlock()
 * comes with preemption disabled and each rcu_read_lock() before it is
 * enabled again.  A grace period must wait for the whole of it.
 */
static void rb_handoff_hold(void)
{
	unsigned int ms;

	for (ms = 0; ms + 2 * RB_HANDOFF_MS <= hold_ms; ms += 2 * RB_HANDOFF_MS) {
		mdelay(RB_HANDOFF_MS);
		preempt_disable();
		rcu_read_unlock();
		mdelay(RB_HANDOFF_MS);
		rcu_read_lock();
		preempt_enable();
	}
	mdelay(hold_ms - ms);
}

static int rb_reader_fn(void *arg)
{
	struct rb_reader_ctx *r = arg;
	unsigned long flags = 0;
	int idx = 0;

	switch (r->type) {
	case RB_RCU:
	case RB_HANDOFF:
		rcu_read_lock();
		break;
	case RB_SCHED:
		rcu_read_lock_sched();
		break;
	case RB_BH:
		rcu_read_lock_bh();
		break;
	case RB_IRQ:
		local_irq_save(flags);
		break;
	case RB_SRCU:
		idx = srcu_read_lock(&rb_srcu);
		break;
	}
	complete(&r->entered);
	if (r->type == RB_SRCU)
		msleep(hold_ms);	/* SRCU readers may sleep */
	else if (r->type == RB_HANDOFF)
		rb_handoff_hold();
	else
		mdelay(hold_ms);
	WRITE_ONCE(r->ended, true);
	switch (r->type) {
	case RB_RCU:
	case RB_HANDOFF:
		rcu_read_unlock();
		break;
	case RB_SCHED:
		rcu_read_unlock_sched();
		break;
	case RB_BH:
		rcu_read_unlock_bh();
		break;
	case RB_IRQ:
		local_irq_restore(flags);
		break;
	case RB_SRCU:
		srcu_read_unlock(&rb_srcu, idx);
		break;
	}
	/* Wait for kthread_stop(): the checker owns the task's lifetime. */
	set_current_state(TASK_INTERRUPTIBLE);
	while (!kthread_should_stop()) {
		schedule();
		set_current_state(TASK_INTERRUPTIBLE);
	}
	__set_current_state(TASK_RUNNING);
	return 0;
}

/* Start a reader, on another CPU if there is one, and wait until it is inside. */
static bool rb_reader_start(struct rb_reader_ctx *r, enum rb_reader type)
{
	unsigned int cpu;

	r->type = type;
	r->ended = false;
	init_completion(&r->entered);
	r->task = kthread_create(rb_reader_fn, r, "rb_reader_%s", rb_reader_names[type]);
	if (IS_ERR(r->task))
		return failed("kthread_create() returned %ld", PTR_ERR(r->task));
	cpu = cpumask_any_but(cpu_online_mask, raw_smp_processor_id());
	if (cpu < nr_cpu_ids)
		kthread_bind(r->task, cpu);
	wake_up_process(r->task);
	if (!wait_for_completion_timeout(&r->entered, msecs_to_jiffies(timeout_ms))) {
		kthread_stop(r->task);
		return failed("the reader thread did not enter its section in %u ms", timeout_ms);
	}
	return true;
}

/* Wait for a grace period of kind @gp; false (with a reason) if it never ends. */
static bool rb_do_gp(enum rb_gp gp)
{
	struct rcu_gp_oldstate full;
	unsigned long cookie;
	long ms = 0;

	switch (gp) {
	case GP_SYNC:
		synchronize_rcu();
		break;
	case GP_EXP:
		synchronize_rcu_expedited();
		break;
	case GP_MULT:
		synchronize_rcu_mult(call_rcu);
		break;
	case GP_COND:
		cond_synchronize_rcu(get_state_synchronize_rcu());
		break;
	case GP_COND_FULL:
		get_state_synchronize_rcu_full(&full);
		cond_synchronize_rcu_full(&full);
		break;
	case GP_POLL:
		ms = rb_poll_rcu(start_poll_synchronize_rcu());
		break;
	case GP_POLL_FULL:
		start_poll_synchronize_rcu_full(&full);
		ms = rb_poll_rcu_full(&full);
		break;
	case GP_POLL_EXP:
		ms = rb_poll_rcu(start_poll_synchronize_rcu_expedited());
		break;
	case GP_COND_EXP:
		cond_synchronize_rcu_expedited(get_state_synchronize_rcu());
		break;
	case GP_SRCU_SYNC:
		synchronize_srcu(&rb_srcu);
		break;
	case GP_SRCU_EXP:
		synchronize_srcu_expedited(&rb_srcu);
		break;
	case GP_SRCU_POLL:
		cookie = start_poll_synchronize_srcu(&rb_srcu);
		ms = rb_poll_srcu(&rb_srcu, cookie);
		break;
	}
	if (ms < 0)
		return failed("polled grace period still pending after %u ms", timeout_ms);
	return true;
}

struct rb_gp_case {
	enum rb_gp gp;
	enum rb_reader reader;
};

static bool check_gp_waits(const void *arg)
{
	const struct rb_gp_case *gc = arg;
	struct rb_reader_ctx r;
	bool done, ended;
	ktime_t t0;
	s64 ms;

	if (gc->reader == RB_SRCU && !rb_srcu_ready)
		return failed("no srcu_struct: init_srcu_struct() failed");
	if (!rb_reader_start(&r, gc->reader))
		return false;
	t0 = ktime_get();
	done = rb_do_gp(gc->gp);
	ended = READ_ONCE(r.ended);
	ms = ktime_ms_delta(ktime_get(), t0);
	kthread_stop(r.task);
	if (!done)
		return false;
	if (!ended)
		return failed("%s returned after %lld ms, inside a %u ms %s reader begun before it",
			      rb_gp_names[gc->gp], ms, hold_ms, rb_reader_names[gc->reader]);
	noted("waited %lld ms", ms);
	return true;
}

/* ---- SRCU ---- */

DEFINE_STATIC_SRCU(rb_static_srcu);

static bool check_srcu_init(const void *unused)
{
	int ret = init_srcu_struct(&rb_srcu);

	if (ret)
		return failed("init_srcu_struct() returned %d", ret);
	rb_srcu_ready = true;
	return true;
}

static bool check_srcu_read_lock(const void *unused)
{
	int outer, inner, held;

	if (!rb_srcu_ready)
		return failed("no srcu_struct: init_srcu_struct() failed");
	outer = srcu_read_lock(&rb_srcu);
	usleep_range(1000, 2000);	/* SRCU readers may sleep */
	inner = srcu_read_lock(&rb_srcu);
	held = srcu_read_lock_held(&rb_srcu);
	srcu_read_unlock(&rb_srcu, inner);
	srcu_read_unlock(&rb_srcu, outer);
	if (!held)
		return failed("srcu_read_lock_held() is 0 inside srcu_read_lock()");
	if (rb_lockdep_rcu()) {
		if (srcu_read_lock_held(&rb_srcu))
			return failed("srcu_read_lock_held() is 1 outside any SRCU section");
	} else {
		noted("no lockdep: srcu_read_lock_held() is always 1, outside not testable");
	}
	return true;
}

static bool check_call_srcu(const void *unused)
{
	int early, idx;

	if (!rb_srcu_ready)
		return failed("no srcu_struct: init_srcu_struct() failed");
	rb_cb_init(&rb_cb_srcu);
	idx = srcu_read_lock(&rb_srcu);
	call_srcu(&rb_srcu, &rb_cb_srcu.rh, rb_cb_fn);
	usleep_range(5000, 6000);
	early = atomic_read(&rb_cb_srcu.calls);
	srcu_read_unlock(&rb_srcu, idx);
	if (early) {
		srcu_barrier(&rb_srcu);
		return failed("callback ran inside the SRCU reader that queued it");
	}
	synchronize_srcu(&rb_srcu);
	srcu_barrier(&rb_srcu);
	return rb_cb_ran_once(&rb_cb_srcu, "synchronize_srcu() and srcu_barrier()");
}

struct rb_srcu_work {
	struct work_struct work;
	unsigned int cpu;
};

static void rb_queue_srcu_cbs(struct work_struct *work)
{
	struct rb_srcu_work *w = container_of(work, struct rb_srcu_work, work);
	struct rcu_head *h = &rb_heads[w->cpu * RB_BARRIER_CBS];
	int i;

	for (i = 0; i < RB_BARRIER_CBS; i++)
		call_srcu(&rb_srcu, &h[i], rb_count_cb);
	atomic_add(RB_BARRIER_CBS, &rb_queued);
}

/* Queue works[cpu], which queues RB_BARRIER_CBS callbacks from that CPU. */
static void rb_queue_srcu_work(struct rb_srcu_work *works, unsigned int cpu)
{
	works[cpu].cpu = cpu;
	INIT_WORK(&works[cpu].work, rb_queue_srcu_cbs);
	queue_work_on(cpu, system_wq, &works[cpu].work);
}

#ifdef CONFIG_TREE_SRCU
/*
 * Queue the worker of another CPU while holding the srcu_data lock that
 * call_srcu() takes while SRCU is small (the boot CPU's), until SRCU has
 * left SRCU_SIZE_SMALL or 200 ms passed: its first call_srcu() finds the
 * lock contended.  With srcutree.convert_to_big=16 and
 * small_contention_lim=0 that one contention grows the tree, every time;
 * with the defaults it does nothing.  Returns the CPU queued, or
 * nr_cpu_ids if there is no other CPU or SRCU is not small.
 */
static unsigned int rb_srcu_contend(struct rb_srcu_work *works)
{
	/* The boot CPU's: CPU 0 on x86 (__boot_cpu_id is not exported). */
	struct srcu_data *sdp = per_cpu_ptr(rb_srcu.sda, 0);
	unsigned int other;
	unsigned long flags;
	int us;

	if (READ_ONCE(rb_srcu.srcu_size_state) != SRCU_SIZE_SMALL)
		return nr_cpu_ids;
	spin_lock_irqsave(&ACCESS_PRIVATE(sdp, lock), flags);
	other = cpumask_any_but(cpu_online_mask, smp_processor_id());
	if (other < nr_cpu_ids) {
		rb_queue_srcu_work(works, other);
		for (us = 0; us < 200000 &&
		     READ_ONCE(rb_srcu.srcu_size_state) == SRCU_SIZE_SMALL; us += 10)
			udelay(10);
	}
	spin_unlock_irqrestore(&ACCESS_PRIVATE(sdp, lock), flags);
	return other;
}
#else
static unsigned int rb_srcu_contend(struct rb_srcu_work *works)
{
	return nr_cpu_ids;
}
#endif

static bool check_srcu_barrier(const void *unused)
{
	struct rb_srcu_work *works;
	int early, queued, invoked, idx;
	unsigned int cpu, contended;

	if (!rb_srcu_ready)
		return failed("no srcu_struct: init_srcu_struct() failed");
	works = kcalloc(nr_cpu_ids, sizeof(*works), GFP_KERNEL);
	rb_heads = kcalloc(nr_cpu_ids * RB_BARRIER_CBS, sizeof(*rb_heads), GFP_KERNEL);
	if (!works || !rb_heads) {
		kfree(works);
		kfree(rb_heads);
		return failed("cannot allocate the callbacks");
	}
	atomic_set(&rb_queued, 0);
	atomic_set(&rb_invoked, 0);
	/* Queue from a worker on each CPU, inside this SRCU reader. */
	idx = srcu_read_lock(&rb_srcu);
	cpus_read_lock();
	contended = rb_srcu_contend(works);
	for_each_online_cpu(cpu) {
		if (cpu == contended)
			continue;
		rb_queue_srcu_work(works, cpu);
	}
	for_each_online_cpu(cpu)
		flush_work(&works[cpu].work);
	cpus_read_unlock();
	early = atomic_read(&rb_invoked);
	srcu_read_unlock(&rb_srcu, idx);
	srcu_barrier(&rb_srcu);
	queued = atomic_read(&rb_queued);
	invoked = atomic_read(&rb_invoked);
	kfree(works);
	if (early)
		return failed("%d callbacks ran inside the SRCU reader that queued them", early);
	if (invoked != queued) {
		/* Leak the heads: some callbacks may still be queued on them. */
		return failed("srcu_barrier() returned with %d of %d callbacks invoked",
			      invoked, queued);
	}
	kfree(rb_heads);
#ifdef CONFIG_TREE_SRCU
	/*
	 * Where the queueing contended for the lock (rb_srcu_contend()),
	 * Tree SRCU may have started growing its tree: say how far
	 * (t-kernel-api checks that a boot asking for growth at the first
	 * contended lock got it).
	 */
	noted("%d callbacks queued from workers on %d CPUs; srcu_size_state %d of %d",
	      queued, queued / RB_BARRIER_CBS, READ_ONCE(rb_srcu.srcu_size_state),
	      SRCU_SIZE_BIG);
#else
	noted("%d callbacks queued from workers on %d CPUs", queued, queued / RB_BARRIER_CBS);
#endif
	return true;
}

static bool check_srcu_polled(const void *unused)
{
	unsigned long got, started;
	bool early = false;
	int i, idx;
	long ms;

	if (!rb_srcu_ready)
		return failed("no srcu_struct: init_srcu_struct() failed");
	idx = srcu_read_lock(&rb_srcu);
	got = get_state_synchronize_srcu(&rb_srcu);
	started = start_poll_synchronize_srcu(&rb_srcu);
	for (i = 0; i < 20 && !early; i++) {
		early = poll_state_synchronize_srcu(&rb_srcu, got) ||
			poll_state_synchronize_srcu(&rb_srcu, started);
		usleep_range(1000, 2000);
	}
	srcu_read_unlock(&rb_srcu, idx);
	if (early)
		return failed("SRCU cookie %lx/%lx complete inside the reader it was taken in",
			      got, started);
	ms = rb_poll_srcu(&rb_srcu, started);
	if (ms < 0)
		return failed("start_poll_synchronize_srcu() cookie %lx still pending after %u ms",
			      started, timeout_ms);
	synchronize_srcu(&rb_srcu);
	if (!poll_state_synchronize_srcu(&rb_srcu, got))
		return failed("get_state cookie %lx pending after synchronize_srcu()", got);
	noted("start_poll complete after %ld ms of polling", ms);
	return true;
}

/* A DEFINE_STATIC_SRCU() in a module is set up by the module notifier. */
static bool check_srcu_static(const void *unused)
{
	int idx;

	rb_cb_init(&rb_cb_static);
	idx = srcu_read_lock(&rb_static_srcu);
	call_srcu(&rb_static_srcu, &rb_cb_static.rh, rb_cb_fn);
	srcu_read_unlock(&rb_static_srcu, idx);
	synchronize_srcu(&rb_static_srcu);
	srcu_barrier(&rb_static_srcu);
	return rb_cb_ran_once(&rb_cb_static, "synchronize_srcu() and srcu_barrier()");
}

/* cleanup_srcu_struct() reports misuse only by WARN(): the host test sees those. */
static bool check_srcu_cleanup(const void *unused)
{
	int ret, idx;

	if (!rb_srcu_ready)
		return failed("no srcu_struct: init_srcu_struct() failed");
	srcu_barrier(&rb_srcu);
	cleanup_srcu_struct(&rb_srcu);
	rb_srcu_ready = false;
	/* The structure can be initialized and used again. */
	ret = init_srcu_struct(&rb_srcu);
	if (ret)
		return failed("init_srcu_struct() after cleanup_srcu_struct() returned %d", ret);
	idx = srcu_read_lock(&rb_srcu);
	srcu_read_unlock(&rb_srcu, idx);
	synchronize_srcu(&rb_srcu);
	cleanup_srcu_struct(&rb_srcu);
	noted("misuse would show as a WARNING on the console");
	return true;
}

/* ---- the run ---- */

/* Each RCU grace-period primitive against each kind of RCU reader. */
static const enum rb_gp rb_rcu_gps[] = {
	GP_SYNC, GP_EXP, GP_MULT, GP_COND, GP_COND_FULL, GP_POLL, GP_POLL_FULL,
	GP_POLL_EXP, GP_COND_EXP,
};

static const enum rb_gp rb_srcu_gps[] = { GP_SRCU_SYNC, GP_SRCU_EXP, GP_SRCU_POLL };

static void run_gp_cases(const enum rb_gp *gps, int n, enum rb_reader first,
			 enum rb_reader last)
{
	struct rb_gp_case gc;
	char name[48];
	int i;

	for (i = 0; i < n; i++) {
		for (gc.reader = first; gc.reader <= last; gc.reader++) {
			gc.gp = gps[i];
			snprintf(name, sizeof(name), "gp_%s_waits_%s",
				 rb_gp_names[gc.gp], rb_reader_names[gc.reader]);
			run_check(name, check_gp_waits, &gc);
		}
	}
}

static int __init rb_apitest_init(void)
{
	pr_info("start: hold_ms=%u timeout_ms=%u, %u CPUs online\n",
		hold_ms, timeout_ms, num_online_cpus());
	run_check("call_rcu", check_call_rcu, NULL);
	run_check("rcu_barrier", check_rcu_barrier, NULL);
	run_check("sync_expedited", check_sync_expedited, NULL);
	run_check("sync_mult", check_sync_mult, NULL);
	run_check("polled_completed", check_polled_completed, NULL);
	run_check("polled_in_reader", check_polled_in_reader, NULL);
	run_check("start_poll", check_start_poll, NULL);
	run_check("cond_sync", check_cond_sync, NULL);
	run_check("polled_full", check_polled_full, NULL);
	run_check("polled_expedited", check_polled_expedited, NULL);
	run_check("polled_active_bound", check_polled_active_bound, NULL);
	run_check("kvfree_rcu", check_kvfree_rcu, NULL);
	run_check("read_lock_held", check_read_lock_held, NULL);
	run_check("read_lock_nesting", check_read_lock_nesting, NULL);
	run_gp_cases(rb_rcu_gps, ARRAY_SIZE(rb_rcu_gps), RB_RCU, RB_HANDOFF);
	run_check("srcu_init", check_srcu_init, NULL);
	run_check("srcu_read_lock", check_srcu_read_lock, NULL);
	run_check("call_srcu", check_call_srcu, NULL);
	run_check("srcu_barrier", check_srcu_barrier, NULL);
	run_check("srcu_polled", check_srcu_polled, NULL);
	run_gp_cases(rb_srcu_gps, ARRAY_SIZE(rb_srcu_gps), RB_SRCU, RB_SRCU);
	run_check("srcu_static", check_srcu_static, NULL);
	run_check("srcu_cleanup", check_srcu_cleanup, NULL);
	/* No callback of ours may outlive the module text. */
	rcu_barrier();
	pr_info("unsigned long cookies needed a second grace period %d times\n", rb_second_gps);
	pr_info("done %d ok %d failed\n", n_ok, n_failed);
	return 0;
}

static void __exit rb_apitest_exit(void)
{
	rcu_barrier();
	if (rb_srcu_ready) {
		srcu_barrier(&rb_srcu);
		cleanup_srcu_struct(&rb_srcu);
	}
	srcu_barrier(&rb_static_srcu);
	pr_info("unloaded\n");
}

module_init(rb_apitest_init);
module_exit(rb_apitest_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("rcu-bench: the 6.1 RCU and SRCU API on the suite's kernels");
