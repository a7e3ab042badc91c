// SPDX-License-Identifier: GPL-2.0
/*
 * rb_testmod: the harness's own test module.  It logs its load and unload
 * and exposes the value it was loaded with, so a test can check that a
 * parameter went in and a result came back; on request it also makes the
 * guest fail in the ways the harness must survive (a panic, or a hang with
 * interrupts off and no console output).
 */
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/string.h>
#include <linux/irqflags.h>

static int answer;
module_param(answer, int, 0444);
MODULE_PARM_DESC(answer, "Value echoed back through sysfs");

static char *fault = "none";
module_param(fault, charp, 0444);
MODULE_PARM_DESC(fault, "none, panic or hang: how to break the guest at load");

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
	if (strcmp(fault, "none")) {
		pr_err("rb_testmod: fault=%s: must be none, panic or hang\n", fault);
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
