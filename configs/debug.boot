# Kernel command-line arguments of every kernel that merges debug.config
# (workloads/boot.sh).
# highres=off: in 6.1 a printk from hard-irq context writes to the 8250
# console under its spinlock_t port lock, which PROVE_RAW_LOCK_NESTING
# reports as an invalid wait context; under TCG, hrtimer_interrupt()
# regularly overruns and prints "hrtimer: interrupt took N ns" from hard
# irq, a splat that has nothing to do with RCU.  Low-resolution timers run
# from the (periodic) tick and never print it.  Known cost: with
# highres=off, a CPU 0 spinning with preemption disabled (rcutorture
# stall_cpu=) stopped jiffies in our TCG guests, so the stall warning
# never came (62 s stall on preempt-debug); with high-resolution timers
# it came 28.9 s into a 36 s stall (26 s timeout under PROVE_RCU).  The
# stall-warning test uses the non-debug kernels.
highres=off
