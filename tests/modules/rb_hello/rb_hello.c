// SPDX-License-Identifier: GPL-2.0
/*
 * rb_hello: the trivial module of the harness round-trip test.  It only
 * logs its load and unload and exposes the value it was loaded with, so
 * the test can check that a parameter went in and a result came back.
 */
#include <linux/module.h>
#include <linux/moduleparam.h>

static int answer;
module_param(answer, int, 0444);
MODULE_PARM_DESC(answer, "Value echoed back through sysfs");

static int __init rb_hello_init(void)
{
	pr_info("rb_hello: loaded, answer=%d\n", answer);
	return 0;
}

static void __exit rb_hello_exit(void)
{
	pr_info("rb_hello: unloaded\n");
}

module_init(rb_hello_init);
module_exit(rb_hello_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("rcu-bench harness round-trip test module");
