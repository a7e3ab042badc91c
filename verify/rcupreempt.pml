/*
 * rcupreempt.pml: Promela model of the 2007 flip-counter preemptible RCU
 * (design: /work/shared/seeds/000-article.md, "The design of preemptible
 * read-copy-update"), as kernel/rcu/rcupreempt.c of our patch series
 * implements it.  Checked with SPIN by verify/run.sh (`make verify`).
 *
 * What is modelled
 *   - NCPU CPUs, each with a scheduling-clock interrupt handler (proctype
 *     clock = rcu_check_callbacks()) that runs rcu_check_mb(), the
 *     rcu_try_flip() state machine idle -> waitack -> waitzero -> waitmb
 *     and __rcu_advance_callbacks().
 *   - NREADER reader tasks (proctype reader) looping over
 *     rcu_read_lock(); [nested lock/unlock]; access; rcu_read_unlock(),
 *     preemptible anywhere outside their irq-disabled regions, and
 *     migrated between CPUs by proctype scheduler (the per-task
 *     rcu_flipctr_idx travels with the task).
 *   - One updater task pinned to CPU 0 (proctype updater):
 *     list_del_rcu() of the current object, call_rcu(), and the callback
 *     (kfree) once the callback reached the donelist.  It loops, so grace
 *     periods keep being requested.  The callback flows
 *     nextlist -> waitlist[0..GP_STAGES-1] -> donelist (cb_stage).
 *   - With -DHANDOFF, RCU-sched folded into RCU and readers that hand
 *     their protection off to a preempt-disabled region and back:
 *     the per-CPU rcu_sched_qs_flag (sqs_flag) is set at each flip with
 *     rcu_flip_flag, and waitmb also waits for it; the tick clears it
 *     (rcu_sched_qs(), after smp_mb()) when the interrupted code is not
 *     in a preempt-disabled region (rcu_tick_in_sched_qs()), and so does
 *     the context switch of a migration (rcu_note_context_switch()).  A
 *     reader may, inside its section, preempt_disable();
 *     rcu_read_unlock(); then either rcu_read_lock(); preempt_enable()
 *     (and again, any number of times) or preempt_enable(), which ends
 *     the chain: one critical section throughout, ref[t] held until the
 *     chain ends.  While preemption is disabled the task holds its CPU
 *     (preempt_owner[]): it does not migrate, the CPU's other tasks do
 *     not run, and the tick reports no sched QS.  The fixed code: that
 *     rcu_read_unlock() leaves its count held (held[]: the kernel's
 *     per-CPU rcu_held, tagged with the task);
 *     the task's next outermost rcu_read_lock() takes it over (no
 *     increment), else the next tick outside the region (after its sched
 *     QS) or context switch (migration) releases it: a decrement on the
 *     task's CPU, no barrier (rcu_read_release_held()).  Readers in
 *     handlers (which never hold) are not modelled.
 *
 * Memory model (why waitmb is needed in the model, not assumed)
 *   The control variables (completed, rcu_flip_flag, rcu_mb_flag,
 *   rcu_try_flip_state, fliplock, callback lists) are sequentially
 *   consistent: the design orders them with explicit smp_mb()s.  The read
 *   side has no barriers, and three weak-memory effects are modelled per
 *   CPU; each is undone by smp_mb() on that CPU (inline smp_mb) or at an
 *   arbitrary later moment (proctype memory):
 *   - pend[]: rcu_flipctr increments/decrements sit in the CPU's store
 *     buffer, invisible to the CPU summing in rcu_try_flip_waitzero();
 *   - stale[]: after list_del_rcu() on CPU 0, another CPU may still load
 *     the removed pointer (invalidate queue; equivalently, the critical
 *     section's loads executed early, before rcu_read_lock());
 *   - linger[]: the accesses of a critical section that already ended
 *     in program order (rcu_read_unlock() done, counter decremented) may
 *     still be unperformed (executed late, after rcu_read_unlock()).
 *   A CPU sees its own accesses in order (Quick Quiz 5), so the summing
 *   CPU reads its own pend[], and the callback's CPU ignores its own
 *   linger[].  Migrating a task runs the scheduler's full barrier on the
 *   CPU it leaves.  Context switches on one CPU are free interleavings
 *   (no barrier assumed: more behaviours than the kernel has).
 *
 * Safety (inline rcu_gp_end_check): when the callback reaches the
 * donelist, no reader task may hold the removed object, no other CPU may
 * have unperformed accesses to it, and no other CPU may still load it
 * (so no load of it can follow the kfree()).
 * Liveness (-DLIVENESS, pan -l -f): the updater passes its progress label
 * infinitely often, i.e. grace periods keep completing; interrupt
 * handlers are then atomic so that weak fairness lets the tasks run.
 *
 * Configuration (-D on the spin command line, see verify/run.sh):
 *   NCPU=2|3, NREADER=1|2, GP_STAGES=1|2|4, NO_NEST, LIVENESS, HANDOFF
 *   (above), CTR_BOUND (default 2, see below), NO_STORE_BUFFER (counter
 *   updates go straight to memory),
 *   ONLY_UPDATER_CBS (only the updater's callback starts grace periods;
 *   by default any CPU may start one, as with other CPUs' callbacks:
 *   rcu_try_flip_idle() flips when its CPU has callbacks or a polled
 *   grace period is pending), HOLD_READER0 (reader 0 is preempted in its
 *   first section for ever: Task A of Quick Quiz 7's scenario; a subset
 *   of the behaviours, which keeps the 3-CPU search small).
 * Design variants (not in the kernel; default off):
 *   FAST_ADVANCE     "all satisfied states per tick": rcu_try_flip() goes
 *                    on, in the same call and under the same fliplock
 *                    hold, with every state whose condition already holds
 *                    (idle -> waitack -> waitzero -> waitmb -> idle ...),
 *                    and stops at the first that does not.  Bound: at most
 *                    RCU_TRY_FLIP_NSTATES (4) moves per call, one trip round
 *                    the cycle, so a call never flips twice.  Each state
 *                    is its own step (other CPUs run in between).  The
 *                    flipping CPU still acknowledges its flip only after
 *                    rcu_try_flip() returns (in __rcu_advance_callbacks()),
 *                    and runs rcu_check_mb() before it, so a flip always
 *                    stops at waitack and waitzero always stops at waitmb:
 *                    a call makes at most 2 moves (asserted), waitack ->
 *                    waitzero (-> waitmb) or waitmb -> idle (-> waitack).
 *   IDLE_SKIP        "no stage that no callback needs": a CPU moves its
 *                    last waitlist to the donelist as soon as it sees that
 *                    the stage of the flip it saw last has ended
 *                    (rcu_ctrlblk.completed_stage == rdp->completed, which
 *                    rcu_try_flip_waitmb() writes after its smp_mb(), when
 *                    every CPU did its rcu_check_mb() barrier), not only at
 *                    the next flip; rcu_pending() no longer counts a
 *                    callback in the last waitlist, so the machine can
 *                    stay idle.  Control variables are sequentially
 *                    consistent here, so the model assumes the ordering
 *                    the kernel needs between reading completed_stage and
 *                    invoking the callback (rdp->lock's unlock/lock pair
 *                    gives it, as for the flip path's read of completed;
 *                    or an acquire load).
 * Mutations:
 *   NO_WAITMB        rcu_try_flip_waitzero() goes straight to idle
 *   NO_WAITACK       rcu_try_flip_idle() goes straight to waitzero
 *   QQ7              rcu_read_lock() disables preemption, not irqs
 *   CALL_RCU_NO_ADVANCE  call_rcu() does not call __rcu_advance_callbacks()
 *                    first (the article's worst-case assumption)
 *   NO_ACK_CPU1      CPU 1 never acknowledges a flip (liveness must fail)
 *   NO_HOLD          (with HANDOFF) the code before the fix: the
 *                    rcu_read_unlock() in the preempt-disabled region
 *                    decrements at once and the rcu_read_lock() after it
 *                    increments under the current index; the chained
 *                    reader escapes its grace period (safety must fail)
 *   FAST_NO_ACK      (with FAST_ADVANCE) a call that already moved (it
 *                    flipped) passes waitack without looking at the
 *                    acknowledgements (safety must fail at GP_STAGES=2)
 *   IDLE_SKIP_EARLY  (with IDLE_SKIP) completed_stage is written when
 *                    waitzero ends, not waitmb: the last waitlist goes to
 *                    the donelist before the other CPUs' barriers (safety
 *                    must fail at GP_STAGES=2)
 *   IDLE_SKIP_NOMOVE (with IDLE_SKIP) rcu_pending() ignores the last
 *                    waitlist but the CPU still waits for the next flip to
 *                    move it (with ONLY_UPDATER_CBS, liveness must fail)
 */

#ifndef NCPU
#define NCPU 2
#endif
/* Other CPUs have callbacks (and polled grace periods) too: any CPU may
 * start a grace period, so call_rcu() can run while its CPU has not yet
 * seen a flip.  -DONLY_UPDATER_CBS: only CPU 0's callback starts them. */
#ifndef ONLY_UPDATER_CBS
#define BACKGROUND_CBS
#endif
#ifndef GP_STAGES
#define GP_STAGES 2
#endif
#ifndef NREADER
#define NREADER 2	/* 1 or 2: the MIGRATE() lines below stop at 2 */
#endif
#define UPDATER NREADER		/* task id of the updater */
#define UPDATER_CPU 0
#ifndef COMPLETED_WRAP
#define COMPLETED_WRAP 4	/* rcu_ctrlblk.completed modulo this */
#endif

/* rcu_try_flip_state values */
#define IDLE 0
#define WAITACK 1
#define WAITZERO 2
#define WAITMB 3

/* cb_stage: where the updater's callback is */
#define CB_NONE 0
#define CB_NEXT 1		/* nextlist; waitlist[i] is CB_NEXT + 1 + i */
#define CB_LAST (GP_STAGES + 1)	/* waitlist[GP_STAGES - 1] */
#define CB_DONE (GP_STAGES + 2)

#if (defined(IDLE_SKIP_EARLY) || defined(IDLE_SKIP_NOMOVE)) && !defined(IDLE_SKIP)
#error "IDLE_SKIP_EARLY and IDLE_SKIP_NOMOVE are mutations of IDLE_SKIP"
#endif
#if defined(FAST_NO_ACK) && !defined(FAST_ADVANCE)
#error "FAST_NO_ACK is a mutation of FAST_ADVANCE"
#endif
#if defined(IDLE_SKIP) && defined(NO_WAITMB)
#error "IDLE_SKIP publishes completed_stage in waitmb"
#endif

/* rcu_ctrlblk */
byte completed;
bool fliplock;
byte try_flip_state;		/* rcu_try_flip_state */
#ifdef IDLE_SKIP
/* rcu_ctrlblk.completed_stage (modulo COMPLETED_WRAP): the last flip
 * whose stage ended, written by rcu_try_flip_waitmb() after its smp_mb()
 * (always completed or completed - 1) */
byte completed_stage;
#endif

/* per CPU: rcu_flip_flag (1 = rcu_flipped, 0 = rcu_flip_seen),
 * rcu_mb_flag (1 = rcu_mb_needed, 0 = rcu_mb_done), rcu_data.completed */
bool flip_flag[NCPU];
bool mb_flag[NCPU];
byte rdp_completed[NCPU];

/* per CPU rcu_flipctr[2], flattened [cpu * 2 + idx]: value visible to
 * other CPUs, and the part still in the CPU's store buffer */
short flipctr[NCPU * 2];
short pend[NCPU * 2];
bool stale[NCPU];
byte linger[NCPU];		/* unperformed accesses, bit 1 << (ref - 1) */

bool inirq[NCPU];		/* the CPU is in its interrupt handler */
byte preempt_owner[NCPU];	/* task id + 1 holding the CPU (QQ7, HANDOFF) */

#if defined(NO_HOLD) && !defined(HANDOFF)
#error "NO_HOLD is a mutation of HANDOFF"
#endif
#ifdef HANDOFF
#ifdef QQ7
#error "HANDOFF and QQ7 both use preempt_owner[]"
#endif
/* per CPU rcu_sched_qs_flag (1 = rcu_sched_qs_needed): set at each flip,
 * cleared (after a barrier) by a tick or context switch outside any
 * preempt-disabled region; waitmb waits for it too. */
bool sqs_flag[NCPU];
/* per task: the count held for it (idx + 1, or 0), the kernel's rcu_held
 * of its CPU while its region lasts; the updater never holds one */
byte held[NREADER + 1];
#endif

/* per task (the updater is task UPDATER) */
byte cpu_of[NREADER + 1];
byte nesting[NREADER];		/* rcu_read_lock_nesting */
bit flipctr_idx[NREADER];	/* rcu_flipctr_idx */
byte ref[NREADER];		/* REF_CUR/REF_OLD held in the CS, or 0 */

/* The RCU-protected object and its callback.  Objects are named relative to the updater: REF_CUR is the published
 * object, REF_OLD the removed one its callback will free (list_del_rcu()
 * turns every REF_CUR into REF_OLD). */
#define REF_CUR 1
#define REF_OLD 2
#define OLD_BIT 2
byte cb_stage;

/* Migration makes per-CPU counters drift without bound (+1 here, -1
 * there, forever) while their sum stays bounded; keep the state space
 * finite by not letting one CPU's counter leave [-CTR_BOUND, CTR_BOUND]
 * (runs that would are cut, which only removes behaviours). */
#ifndef CTR_BOUND
#define CTR_BOUND 2
#endif
#define CTR(c, i) (flipctr[(c) * 2 + (i)] + pend[(c) * 2 + (i)])

/* rcu_flipctr update by the CPU's own reader: into its store buffer
 * (pend), or with -DNO_STORE_BUFFER straight to memory. */
#ifdef NO_STORE_BUFFER
#define CTR_ADD(c, i, d) flipctr[(c) * 2 + (i)] = flipctr[(c) * 2 + (i)] + (d)
#else
#define CTR_ADD(c, i, d) pend[(c) * 2 + (i)] = pend[(c) * 2 + (i)] + (d)
#endif
#define TASK_RUNS(t) (!inirq[cpu_of[t]] && \
	(preempt_owner[cpu_of[t]] == 0 || preempt_owner[cpu_of[t]] == (t) + 1))

/* smp_mb() on CPU c: drain its store buffer, process its invalidations,
 * perform its pending accesses. */
inline smp_mb(c)
{
	flipctr[c * 2] = flipctr[c * 2] + pend[c * 2];
	pend[c * 2] = 0;
	flipctr[c * 2 + 1] = flipctr[c * 2 + 1] + pend[c * 2 + 1];
	pend[c * 2 + 1] = 0;
	stale[c] = 0;
	linger[c] = 0
}

/* Safety: the callback of the removed object reached CPU c's donelist. */
inline rcu_gp_end_check(c, i)
{
	i = 0;
	do
	:: i < NREADER ->
		assert(ref[i] != REF_OLD);	/* reader still in its CS */
		i++
	:: else -> break
	od;
	i = 0;
	do
	:: i < NCPU ->
		assert(i == c || (linger[i] & OLD_BIT) == 0);	/* late accesses */
		assert(i == c || !stale[i]);	/* CPU i can still load it */
		i++
	:: else -> break
	od;
	linger[c] = linger[c] & ~OLD_BIT;	/* own accesses: in order */
	i = 0
}

/* rcu_pending(c), as seen by rcu_try_flip_idle().  With IDLE_SKIP a
 * callback in the last waitlist does not count: it needs only the stage
 * of the flip its CPU saw last to end, and that stage is under way (the
 * machine is not idle) or over (it goes to the donelist at the next
 * __rcu_advance_callbacks()), so no further flip is needed for it. */
#ifdef IDLE_SKIP
#define CB_PENDING (cb_stage != CB_NONE && cb_stage != CB_LAST)
#else
#define CB_PENDING (cb_stage != CB_NONE)
#endif
#define RCU_PENDING(c) ((c == UPDATER_CPU && CB_PENDING) || \
	flip_flag[c] || mb_flag[c] || rdp_completed[c] != completed)

/* __rcu_advance_callbacks(), lines 7-37: advance the callback lists */
inline advance_lists(c, i)
{
	if
	:: rdp_completed[c] != completed ->
		if
		:: c == UPDATER_CPU && cb_stage >= CB_NEXT && cb_stage < CB_DONE ->
			cb_stage++;
			if
			:: cb_stage == CB_DONE -> rcu_gp_end_check(c, i)
			:: else
			fi
		:: else
		fi;
		rdp_completed[c] = completed
#if defined(IDLE_SKIP) && !defined(IDLE_SKIP_NOMOVE)
	:: /* IDLE_SKIP: no new flip, but the stage of the flip this CPU
	    * saw last has ended (rcu_ctrlblk.completed_stage ==
	    * rdp->completed, i.e. the machine went idle after that flip's
	    * waitmb): the last waitlist goes to the donelist now.  The
	    * read is sequentially consistent here, like every control
	    * variable; in the kernel it must be ordered before the
	    * callback (rdp->lock's unlock here and lock in
	    * rcu_process_callbacks() do, as for the read of completed;
	    * or smp_load_acquire()), pairing with the smp_mb() in
	    * rcu_try_flip_waitmb() before the write. */
		rdp_completed[c] == completed && completed_stage == completed &&
		c == UPDATER_CPU && cb_stage == CB_LAST ->
		cb_stage = CB_DONE;
		rcu_gp_end_check(c, i)
#endif
	:: else
	fi
}

/* __rcu_advance_callbacks(), lines 38-43: acknowledge the counter flip */
inline ack_flip(c)
{
	if
#ifdef NO_ACK_CPU1
	:: flip_flag[c] && c == 1 -> skip	/* liveness mutation */
	:: flip_flag[c] && c != 1 -> smp_mb(c); flip_flag[c] = 0; smp_mb(c)
#else
	:: flip_flag[c] -> smp_mb(c); flip_flag[c] = 0; smp_mb(c)
#endif
	:: else
	fi
}

/* rcu_check_mb() */
inline rcu_check_mb(c)
{
	if
	:: mb_flag[c] -> smp_mb(c); mb_flag[c] = 0
	:: else
	fi
}

#ifdef HANDOFF
/* rcu_sched_qs(): report CPU c's RCU-sched quiescent state */
inline rcu_sched_qs(c)
{
	if
	:: sqs_flag[c] -> smp_mb(c); sqs_flag[c] = 0
	:: else
	fi
}

/* rcu_read_release_held(): task tt, on CPU c, left every disabled region:
 * decrement the count it held, on CPU c, no barrier. */
inline rcu_read_release_held(tt, c)
{
	if
	:: held[tt] != 0 -> CTR_ADD(c, held[tt] - 1, -1); held[tt] = 0
	:: else
	fi
}

/* rcu_check_callbacks(), first lines: if rcu_tick_in_sched_qs(), i.e. the
 * interrupted code is not in a preempt-disabled region (preempt_owner),
 * report the sched QS and release the held count of the current task.
 * The model does not say which task on CPU c is current: every task on
 * c holding a count is released (one that is not current was switched
 * out, and that context switch released it; here it happens later, on
 * the same CPU, which keeps the count up longer). */
inline tick_sched_qs(c, i)
{
	if
	:: preempt_owner[c] == 0 ->
		rcu_sched_qs(c);
		i = 0;
		do
		:: i < NREADER ->
			if
			:: cpu_of[i] == c -> rcu_read_release_held(i, c)
			:: else
			fi;
			i++
		:: else -> break
		od;
		i = 0
	:: else
	fi
}
#endif

/* phase of a multi-step rcu_try_flip() */
#define PH_NONE 0
#define PH_IDLE_FLAGS 1
#define PH_SUM 2
#define PH_AGAIN 3		/* FAST_ADVANCE: run the (new) state next */

#ifdef FAST_ADVANCE
#define RCU_TRY_FLIP_NSTATES 4
/* FAST_ADVANCE: rcu_try_flip() moved to the next state.  It goes on with
 * that state in the same call, still holding fliplock, unless this call
 * already made RCU_TRY_FLIP_NSTATES moves: one trip round the cycle, so
 * a call never flips twice (the explicit bound).  In the faithful model
 * a call makes at most two moves (asserted): a flip always stops at
 * waitack (the flipping CPU acknowledges only after rcu_try_flip()
 * returns) and waitzero always stops at waitmb (the CPU ran
 * rcu_check_mb() before rcu_try_flip()). */
inline try_flip_moved()
{
	ntrans++;
#if !defined(FAST_NO_ACK) && !defined(NO_WAITACK) && !defined(NO_WAITMB)
	assert(ntrans <= 2);
#endif
	if
	:: ntrans < RCU_TRY_FLIP_NSTATES -> phase = PH_AGAIN
	:: else -> ntrans = 0; fliplock = 0
	fi
}

/* FAST_ADVANCE: the state's condition does not hold: the call ends */
inline try_flip_stays()
{
	ntrans = 0;
	fliplock = 0
}
#endif

/* rcu_try_flip_idle(), line 11-12: start a grace-period stage */
inline flip_counter(c)
{
	completed = (completed + 1) % COMPLETED_WRAP;
	smp_mb(c);
	phase = PH_IDLE_FLAGS
}

#ifdef NO_WAITACK
#define AFTER_IDLE WAITZERO
#else
#define AFTER_IDLE WAITACK
#endif

/* waitmb waits for CPU i's barrier (and, with HANDOFF, its sched QS) */
#ifdef HANDOFF
#define MB_WAIT(i) (mb_flag[i] || sqs_flag[i])
#else
#define MB_WAIT(i) mb_flag[i]
#endif

/* IDLE_SKIP: rcu_try_flip_waitmb() writes completed_stage after its
 * smp_mb() (same step as the return to idle); IDLE_SKIP_EARLY writes it
 * in waitzero instead. */
#if defined(IDLE_SKIP) && !defined(IDLE_SKIP_EARLY)
#define STAGE_ENDS completed_stage = completed;
#else
#define STAGE_ENDS
#endif

/* rcu_try_flip(), first step (with fliplock taken): waitack and waitmb
 * are one step each (they only read flags that change one way while they
 * wait), idle is two (QQ3: other CPUs may see the new counter before
 * their rcu_flip_flag), waitzero sums the counters one CPU per step. */
inline rcu_try_flip_begin(c, i)
{
	if
	:: try_flip_state == IDLE ->
		/* rcu_try_flip_idle() */
		if
		:: RCU_PENDING(c) -> flip_counter(c)
#ifdef BACKGROUND_CBS
		:: !RCU_PENDING(c) -> flip_counter(c)	/* other callbacks */
#endif
#ifdef FAST_ADVANCE
		:: !RCU_PENDING(c) -> try_flip_stays()
#else
		:: !RCU_PENDING(c) -> fliplock = 0
#endif
		fi
	:: try_flip_state == WAITACK ->
		/* rcu_try_flip_waitack() */
		i = 0;
#ifdef FAST_NO_ACK
		/* mutation: a call that already moved (flipped) passes
		 * waitack without looking at the acknowledgements */
		if
		:: ntrans > 0 -> i = NCPU
		:: else
		fi;
#endif
		do
		:: i < NCPU && !flip_flag[i] -> i++
		:: i < NCPU && flip_flag[i] -> break
		:: i == NCPU -> break
		od;
#ifdef FAST_ADVANCE
		if
		:: i == NCPU -> smp_mb(c); try_flip_state = WAITZERO; i = 0; try_flip_moved()
		:: else -> i = 0; try_flip_stays()
		fi
#else
		if
		:: i == NCPU -> smp_mb(c); try_flip_state = WAITZERO
		:: else
		fi;
		i = 0;
		fliplock = 0
#endif
	:: try_flip_state == WAITZERO ->
		/* rcu_try_flip_waitzero(): lines 4-9 */
		lastidx = 1 - (completed & 1);
		phase = PH_SUM
	:: try_flip_state == WAITMB ->
		/* rcu_try_flip_waitmb() */
		i = 0;
		do
		:: i < NCPU && !MB_WAIT(i) -> i++
		:: i < NCPU && MB_WAIT(i) -> break
		:: i == NCPU -> break
		od;
#ifdef FAST_ADVANCE
		if
		:: i == NCPU -> smp_mb(c); STAGE_ENDS try_flip_state = IDLE; i = 0; try_flip_moved()
		:: else -> i = 0; try_flip_stays()
		fi
#else
		if
		:: i == NCPU -> smp_mb(c); STAGE_ENDS try_flip_state = IDLE
		:: else
		fi;
		i = 0;
		fliplock = 0
#endif
	fi
}

/* rcu_try_flip(), remaining steps */
inline rcu_try_flip_end(c, i)
{
	if
	:: phase == PH_IDLE_FLAGS ->
		/* rcu_try_flip_idle(), lines 13-14 */
		atomic {
			i = 0;
			do
			:: i < NCPU ->
				flip_flag[i] = 1;
#ifdef HANDOFF
				sqs_flag[i] = 1;
#endif
				i++
			:: else -> break
			od;
			i = 0;
			try_flip_state = AFTER_IDLE;
#ifdef FAST_ADVANCE
			phase = PH_NONE;
			try_flip_moved() }
#else
			fliplock = 0;
			phase = PH_NONE }
#endif
	:: phase == PH_SUM ->
		/* rcu_try_flip_waitzero(): the sum is not atomic */
		do
		:: i < NCPU ->
			sum = sum + flipctr[i * 2 + lastidx] +
				(i == c -> pend[c * 2 + lastidx] : 0);
			i++
		:: else -> break
		od;
		atomic {
			if
			:: sum == 0 ->
				smp_mb(c);
#ifdef NO_WAITMB
				try_flip_state = IDLE
#else
				i = 0;
				do
				:: i < NCPU -> mb_flag[i] = 1; i++
				:: else -> break
				od;
#ifdef IDLE_SKIP_EARLY
				/* mutation: the stage counts as ended once the
				 * old counters summed to zero, before waitmb */
				completed_stage = completed;
#endif
				try_flip_state = WAITMB
#endif
#ifdef FAST_ADVANCE
				;
				i = 0; sum = 0; lastidx = 0;
				phase = PH_NONE;
				try_flip_moved()
			:: else ->
				i = 0; sum = 0; lastidx = 0;
				phase = PH_NONE;
				try_flip_stays()
			fi }
#else
			:: else
			fi;
			i = 0; sum = 0; lastidx = 0;
			fliplock = 0;
			phase = PH_NONE }
#endif
	:: else
	fi
}

/* rcu_check_callbacks(): the scheduling-clock interrupt of CPU c.  Its
 * steps exclude the tasks of CPU c (inirq), not the other CPUs. */
#ifdef LIVENESS
#define IRQ_BEGIN atomic {
#define IRQ_END }
#else
#define IRQ_BEGIN
#define IRQ_END
#endif
proctype clock(byte c)
{
	byte i;
	short sum;
	bit lastidx;
	byte phase;
#ifdef FAST_ADVANCE
	byte ntrans;		/* moves in this rcu_try_flip() call */
#endif

	do
	:: IRQ_BEGIN
		atomic {
			inirq[c] = 1;
#ifdef HANDOFF
			tick_sched_qs(c, i);
#endif
			rcu_check_mb(c);
			/* rcu_try_flip() if this CPU saw the last flip,
			 * spin_trylock() of fliplock */
			if
			:: completed == rdp_completed[c] && !fliplock ->
				fliplock = 1;
				rcu_try_flip_begin(c, i)
			:: else
			fi }
#ifdef FAST_ADVANCE
		/* rcu_try_flip() goes on while a state's condition holds
		 * (one step per state: other CPUs run in between) */
		do
		:: atomic { phase == PH_AGAIN -> phase = PH_NONE; rcu_try_flip_begin(c, i) }
		:: phase == PH_IDLE_FLAGS || phase == PH_SUM -> rcu_try_flip_end(c, i)
		:: phase == PH_NONE -> break
		od;
#else
		rcu_try_flip_end(c, i);
#endif
		atomic { advance_lists(c, i) }
		atomic { ack_flip(c); inirq[c] = 0 }
	   IRQ_END
	od
}

/* The critical section's rcu_dereference() of the object, done in the
 * same step as the counter increment: a later load could only see a
 * newer pointer, so this is its worst case. */
inline cs_access(c)
{
	if
	:: stale[c] ->
		ref[t] = REF_OLD
	:: else -> ref[t] = REF_CUR
	fi
}

/* A reader task: __rcu_read_lock(), critical section, __rcu_read_unlock() */
proctype reader(byte t)
{
	byte c;
	bit idx;

	do
	::
#ifdef QQ7
		/* __rcu_read_lock() with preempt_disable() instead of
		 * local_irq_save(): interrupts (the state machine, the flip
		 * acknowledgement) may run between fetching the index and
		 * incrementing the counter. */
		atomic { TASK_RUNS(t) ->
			preempt_owner[cpu_of[t]] = t + 1;
			idx = completed & 1 }
		atomic { TASK_RUNS(t) && CTR(cpu_of[t], idx) < CTR_BOUND ->
			c = cpu_of[t];
			CTR_ADD(c, idx, 1);
			nesting[t] = 1;
			flipctr_idx[t] = idx;
			cs_access(c);
			preempt_owner[c] = 0;
			c = 0; idx = 0 }
#else
		/* __rcu_read_lock(), outermost: irqs disabled */
#if defined(HANDOFF) && !defined(NO_HOLD)
		/* a count that the task's last rcu_read_unlock() held (it
		 * was not released yet) is taken over: no increment */
		atomic { TASK_RUNS(t) && (held[t] != 0 || CTR(cpu_of[t], completed & 1) < CTR_BOUND) ->
			c = cpu_of[t];
			if
			:: held[t] != 0 -> idx = held[t] - 1; held[t] = 0
			:: else -> idx = completed & 1; CTR_ADD(c, idx, 1)
			fi;
#else
		atomic { TASK_RUNS(t) && CTR(cpu_of[t], completed & 1) < CTR_BOUND ->
			c = cpu_of[t];
			idx = completed & 1;
			CTR_ADD(c, idx, 1);
#endif
			nesting[t] = 1;
			flipctr_idx[t] = idx;
			cs_access(c);
			c = 0; idx = 0 }
#endif
#ifdef HOLD_READER0
		/* Task A of Oleg Nesterov's scenario (Quick Quiz 7): reader 0
		 * is preempted inside its first section and never runs again.
		 * A sub-behaviour of the model, so its violations are real. */
		(t != 0);
#endif
#ifndef NO_NEST
		/* optionally a nested rcu_read_lock()/rcu_read_unlock() */
		if
		:: atomic { TASK_RUNS(t) -> nesting[t]++ }
			atomic { TASK_RUNS(t) -> nesting[t]-- }
		:: skip
		fi;
#endif
#ifdef HANDOFF
		/* Hand the protection off to a preempt-disabled region and
		 * (optionally) back, any number of times: one critical
		 * section throughout, ref[t] held until the chain ends.
		 * Preemption disabled = the task holds its CPU
		 * (preempt_owner): it cannot migrate, the CPU's other tasks
		 * do not run and its tick reports no sched QS.
		 * preempt_disable() and rcu_read_unlock() are one step, and
		 * so are rcu_read_lock() and preempt_enable(): in between,
		 * the task is both counted and in the region, which (with
		 * the fix) no other step can tell from the held state. */
		do
		:: /* preempt_disable(); __rcu_read_unlock(), outermost,
		    * preemption disabled (the count bound is checked here:
		    * the held count is released on this CPU, see
		    * rcu_read_release_held()) */
			atomic { TASK_RUNS(t) && CTR(cpu_of[t], flipctr_idx[t]) > -CTR_BOUND ->
				preempt_owner[cpu_of[t]] = t + 1;
#ifdef NO_HOLD
				/* the old code: decrement now */
				c = cpu_of[t];
				CTR_ADD(c, flipctr_idx[t], -1);
				c = 0;
#else
				/* rcu_read_unlock_must_hold(): hold the count */
				held[t] = flipctr_idx[t] + 1;
#endif
				nesting[t] = 0;
				flipctr_idx[t] = 0 }
			if
			:: /* rcu_read_lock() again, then preempt_enable() */
#ifdef NO_HOLD
				/* the old code: a new count, current index */
				atomic { TASK_RUNS(t) && CTR(cpu_of[t], completed & 1) < CTR_BOUND ->
					c = cpu_of[t];
					idx = completed & 1;
					CTR_ADD(c, idx, 1);
					flipctr_idx[t] = idx;
					c = 0; idx = 0;
#else
				/* takes the held count over: no increment */
				atomic { TASK_RUNS(t) ->
					flipctr_idx[t] = held[t] - 1;
					held[t] = 0;
#endif
					nesting[t] = 1;
					preempt_owner[cpu_of[t]] = 0 }
			:: /* preempt_enable(): the chain ends (the count stays
			    * held until a tick or context switch); its
			    * accesses may still be unperformed (linger) */
				atomic { TASK_RUNS(t) ->
					c = cpu_of[t];
					preempt_owner[c] = 0;
					linger[c] = linger[c] | (1 << (ref[t] - 1));
					ref[t] = 0;
					c = 0 }
				goto cs_end
			fi
		:: break
		od;
#endif
		/* __rcu_read_unlock(), outermost: irqs disabled.  The
		 * section's accesses may still be unperformed (linger). */
		atomic { TASK_RUNS(t) && CTR(cpu_of[t], flipctr_idx[t]) > -CTR_BOUND ->
			c = cpu_of[t];
			idx = flipctr_idx[t];
			nesting[t] = 0;
			CTR_ADD(c, idx, -1);
			linger[c] = linger[c] | (1 << (ref[t] - 1));
			ref[t] = 0;
			flipctr_idx[t] = 0;
			c = 0; idx = 0 }
#ifdef HANDOFF
cs_end:		skip
#endif
	od
}

/* The scheduler: preempt reader task t and resume it on CPU to; the CPU
 * it leaves runs the context switch's full barrier.  With HANDOFF, its
 * rcu_note_context_switch() releases the task's held count (on the CPU
 * it leaves) and reports that CPU's sched QS. */
#ifdef HANDOFF
#define CTX_SWITCH_RCU(t) rcu_read_release_held(t, cpu_of[t]); rcu_sched_qs(cpu_of[t]);
#else
#define CTX_SWITCH_RCU(t)
#endif
#define MIGRATE(t, to) \
	:: atomic { t < NREADER && to < NCPU && to != cpu_of[t] && !inirq[cpu_of[t]] && \
	    preempt_owner[cpu_of[t]] != t + 1 -> \
		CTX_SWITCH_RCU(t) smp_mb(cpu_of[t]); cpu_of[t] = to }

proctype scheduler()
{
	do
	MIGRATE(0, 0)
	MIGRATE(0, 1)
	MIGRATE(0, 2)
	MIGRATE(1, 0)
	MIGRATE(1, 1)
	MIGRATE(1, 2)
	od
}

/* The memory system: buffered counter updates become visible on their
 * own, in any order.  Stale loads and late accesses are kept until the
 * CPU's next barrier: that is their worst case, and ending them earlier
 * can only remove violations. */
#define DRAIN(c, i) \
	:: atomic { c < NCPU && pend[c * 2 + i] != 0 -> \
		flipctr[c * 2 + i] = flipctr[c * 2 + i] + pend[c * 2 + i]; \
		pend[c * 2 + i] = 0 }

proctype memory()
{
	do
	DRAIN(0, 0)
	DRAIN(0, 1)
	DRAIN(1, 0)
	DRAIN(1, 1)
	DRAIN(2, 0)
	DRAIN(2, 1)
	od
}

/* The updater on CPU 0: list_del_rcu(), call_rcu(), the callback. */
proctype updater()
{
	byte i;

	do
	:: atomic { TASK_RUNS(UPDATER) ->
		/* list_del_rcu(): publish a new object; other CPUs may
		 * still load the old one until their next barrier.  (No
		 * REF_OLD is left: rcu_gp_end_check() checked that.) */
		i = 0;
		do
		:: i < NREADER ->
			if
			:: ref[i] == REF_CUR -> ref[i] = REF_OLD
			:: else
			fi;
			i++
		:: else -> break
		od;
		i = 0;
		do
		:: i < NCPU ->
			stale[i] = (i != UPDATER_CPU);
			linger[i] = (linger[i] & 1) << 1;
			i++
		:: else -> break
		od;
		i = 0 }
		atomic { TASK_RUNS(UPDATER) ->
			/* call_rcu(): irqs disabled */
#ifndef CALL_RCU_NO_ADVANCE
			advance_lists(UPDATER_CPU, i);
			ack_flip(UPDATER_CPU);
#endif
			cb_stage = CB_NEXT }
		/* rcu_process_callbacks() invokes the callback: kfree() */
		atomic { cb_stage == CB_DONE && TASK_RUNS(UPDATER) ->
			cb_stage = CB_NONE }
progress:
		skip
	od
}

init
{
	byte i;

	atomic {
		cpu_of[UPDATER] = UPDATER_CPU;
		i = 0;
		do
		:: i < NREADER -> cpu_of[i] = i % NCPU; run reader(i); i++
		:: else -> break
		od;
		i = 0;
		do
		:: i < NCPU -> run clock(i); i++
		:: else -> break
		od;
		i = 0;
		run updater();
		run scheduler();
		run memory()
	}
}
