// SPDX-License-Identifier: GPL-2.0
/*
 * rb_testmod: the harness's own test module.  It logs its load and unload
 * and exposes the value it was loaded with, so a test can check that a
 * parameter went in and a result came back; on request it also makes the
 * guest fail in the ways the harness must survive (a panic, a hang with
 * interrupts off and no console output, or an oops in a worker that the
 * loading task then waits for in silence).
 */
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/string.h>
#include <linux/irqflags.h>
#include <linux/workqueue.h>
#include <linux/completion.h>

static int answer;
module_param(answer, int, 0444);
MODULE_PARM_DESC(answer, "Value echoed back through sysfs");

static char *fault = "none";
module_param(fault, charp, 0444);
MODULE_PARM_DESC(fault, "none, panic, hang or oops: how to break the guest at load");

static DECLARE_COMPLETION(rb_oops_done);

/*
 * Dereference a bad pointer in a kworker, as a per-CPU pointer used
 * without per_cpu_ptr() does: the worker dies in an oops before it
 * completes rb_oops_done, and the kernel, which does not panic on an
 * oops, goes quiet.
 */
static void rb_oops_fn(struct work_struct *work)
{
	unsigned long *bad = (unsigned long *)0x23058UL;

	WRITE_ONCE(*bad, READ_ONCE(*bad) + 1);
	complete(&rb_oops_done);
}

static DECLARE_WORK(rb_oops_work, rb_oops_fn);

static int __init rb_testmod_init(void)
{
	pr_info("rb_testmod: loaded, answer=%d fault=%s\n", answer, fault);
	if (!strcmp(fault, "panic"))
		panic("rb_testmod: panic requested");
	if (!strcmp(fault, "hang")) {
		/* Wedge this CPU silently: the harness must notice the quiet. */
		local_irq_disable();
		for (;;)
			cpu_relax();
	}
	if (!strcmp(fault, "oops")) {
		schedule_work(&rb_oops_work);
		wait_for_completion(&rb_oops_done);
	}
	if (strcmp(fault, "none")) {
		pr_err("rb_testmod: fault=%s: must be none, panic, hang or oops\n", fault);
		return -EINVAL;
	}
	return 0;
}

static void __exit rb_testmod_exit(void)
{
	pr_info("rb_testmod: unloaded\n");
}

module_init(rb_testmod_init);
module_exit(rb_testmod_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("rcu-bench harness test module");
