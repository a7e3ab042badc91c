// SPDX-License-Identifier: GPL-2.0+
/*
 * rbstat: exact counters for a command in a guest booted with the rbcount
 * TCG plugin (make shell PLUGIN=1), in perf stat's layout.
 *
 *   rbstat [-x SEP] [--] CMD [ARG...]
 *
 * rbstat executes the plugin's stat-open marker (a no-op instruction the
 * plugin recognises, bench-module/rb_marker.h), runs CMD, executes the
 * stat-close marker and reads what the plugin counted in between, on
 * every CPU, from the serial port the plugin writes to (RBSTAT_TTY,
 * default /dev/ttyS2).  The counts are exact instruction counts (the
 * guest has no PMU under TCG): instructions user and kernel, locked
 * instructions, fences, interrupt-flag instructions (cli, sti, pushf,
 * popf), calls, loads and stores, and the kernel functions that executed
 * most instructions.  Everything the guest ran in the window counts, not
 * only CMD: as perf stat -a.  The plugin counts a block from its start, so
 * a block that faults (a page fault, say) counts again from the faulting
 * instruction when it is re-executed: where a tick lands can add a few
 * instructions to a window, never remove any; repeat and take the least.  -x SEP prints perf stat's CSV form
 * (value SEP unit SEP event SEP ...).  Without the plugin (the kernel
 * command line has no rb_plugin=1) rbstat says so in one line and runs
 * CMD.  The exit status is CMD's.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#include "rb_marker.h"

#define MAX_LINES 64
#define REPLY_TIMEOUT_MS 10000

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

static const char *const class_names[] = { RB_CLASS_NAMES };
#define NCLASSES ARRAY_SIZE(class_names)

struct counts {
	uint64_t cnt[2][NCLASSES];	/* [0] user, [1] kernel */
	char func[MAX_LINES][128];
	uint64_t func_insns[MAX_LINES];
	int nfunc;
	char named[MAX_LINES][128];	/* the plugin's statfuncs= (RCU read side) */
	uint64_t named_insns[MAX_LINES], named_entries[MAX_LINES];
	int nnamed;
};

static bool plugin_present(void)
{
	char line[4096];
	FILE *f = fopen("/proc/cmdline", "r");
	bool found = false;

	if (!f)
		return false;
	if (fgets(line, sizeof(line), f))
		found = strstr(line, "rb_plugin=1") != NULL;
	fclose(f);
	return found;
}

static int open_channel(const char *path)
{
	struct termios t;
	int fd = open(path, O_RDONLY | O_NOCTTY | O_NONBLOCK);

	if (fd < 0)
		return -1;
	if (tcgetattr(fd, &t) == 0) {
		cfmakeraw(&t);
		tcsetattr(fd, TCSANOW, &t);
	}
	tcflush(fd, TCIFLUSH);	/* nothing stale from an earlier window */
	return fd;
}

/* "user|kernel class=count ...": the counts of one address space. */
static void parse_classes(const char *tok, uint64_t *cnt)
{
	char name[32];
	unsigned long long v;
	int used;

	while (sscanf(tok, " %31[a-z]=%llu%n", name, &v, &used) == 2) {
		for (size_t i = 0; i < NCLASSES; i++)
			if (!strcmp(name, class_names[i]))
				cnt[i] = v;
		tok += used;
	}
}

/* One line of the plugin's reply; true at its last line, "end". */
static bool parse_line(const char *line, struct counts *c)
{
	unsigned long long v, e;

	if (!strcmp(line, "end"))
		return true;
	if (!strncmp(line, "user ", 5))
		parse_classes(line + 4, c->cnt[0]);
	else if (!strncmp(line, "kernel ", 7))
		parse_classes(line + 6, c->cnt[1]);
	else if (!strncmp(line, "func ", 5) && c->nfunc < MAX_LINES &&
		 sscanf(line + 5, "%127s %llu", c->func[c->nfunc], &v) == 2)
		c->func_insns[c->nfunc++] = v;
	else if (!strncmp(line, "named ", 6) && c->nnamed < MAX_LINES &&
		 sscanf(line + 6, "%127s %llu %llu", c->named[c->nnamed], &v, &e) == 3) {
		c->named_insns[c->nnamed] = v;
		c->named_entries[c->nnamed++] = e;
	}
	return false;
}

/* Read lines up to "end"; false on timeout or garbage. */
static bool read_reply(int fd, struct counts *c)
{
	char buf[8192], *eol;
	size_t len = 0;
	struct pollfd p = { .fd = fd, .events = POLLIN };

	memset(c, 0, sizeof(*c));
	for (;;) {
		ssize_t n;

		buf[len] = '\0';
		while ((eol = strchr(buf, '\n'))) {
			*eol = '\0';
			if (parse_line(buf, c))
				return true;
			len -= eol + 1 - buf;
			memmove(buf, eol + 1, len + 1);
		}
		if (len >= sizeof(buf) - 1)
			return false;
		if (poll(&p, 1, REPLY_TIMEOUT_MS) <= 0)
			return false;
		n = read(fd, buf + len, sizeof(buf) - 1 - len);
		if (n < 0 && errno == EAGAIN)
			continue;
		if (n <= 0)
			return false;
		len += n;
	}
}

static uint64_t class_sum(const struct counts *c, int s, const char *name)
{
	uint64_t v = 0;

	for (size_t i = 0; i < NCLASSES; i++)
		if (!strcmp(class_names[i], name))
			v = s < 0 ? c->cnt[0][i] + c->cnt[1][i] : c->cnt[s][i];
	return v;
}

static uint64_t irqflag(const struct counts *c, int s)
{
	return class_sum(c, s, "cli") + class_sum(c, s, "sti") +
	       class_sum(c, s, "pushf") + class_sum(c, s, "popf");
}

/* A number with thousands separators, as perf stat prints counts. */
static const char *grouped(uint64_t v, char *out, size_t size)
{
	char digits[32];
	int n = snprintf(digits, sizeof(digits), "%llu", (unsigned long long)v);
	size_t o = 0;

	for (int i = 0; i < n && o + 2 < size; i++) {
		if (i && (n - i) % 3 == 0)
			out[o++] = ',';
		out[o++] = digits[i];
	}
	out[o] = '\0';
	return out;
}

struct event {
	const char *name;
	uint64_t value;
};

static void print_counts(const struct counts *c, char **cmd, double secs, const char *sep)
{
	struct event ev[] = {
		{ "instructions", class_sum(c, -1, "insns") },
		{ "instructions:u", class_sum(c, 0, "insns") },
		{ "instructions:k", class_sum(c, 1, "insns") },
		{ "rb:locked", class_sum(c, -1, "locked") },
		{ "rb:fences", class_sum(c, -1, "fences") },
		{ "rb:irqflag", irqflag(c, -1) },
		{ "rb:irqflag:k", irqflag(c, 1) },
		{ "rb:calls", class_sum(c, -1, "calls") },
		{ "rb:loads", class_sum(c, -1, "loads") },
		{ "rb:stores", class_sum(c, -1, "stores") },
	};
	char num[40];
	size_t i;

	if (sep) {
		/* perf stat -x: value, unit, event, run time, run %, metric. */
		for (i = 0; i < ARRAY_SIZE(ev); i++)
			fprintf(stderr, "%llu%s%s%s%s%s100.00%s%s\n",
				(unsigned long long)ev[i].value, sep, sep, ev[i].name, sep, sep,
				sep, sep);
		for (i = 0; i < (size_t)c->nfunc; i++)
			fprintf(stderr, "%llu%s%sinstructions:k:%s%s%s100.00%s%s\n",
				(unsigned long long)c->func_insns[i], sep, sep, c->func[i],
				sep, sep, sep, sep);
		for (i = 0; i < (size_t)c->nnamed; i++) {
			fprintf(stderr, "%llu%s%sinstructions:k:%s%s%s100.00%s%s\n",
				(unsigned long long)c->named_insns[i], sep, sep, c->named[i],
				sep, sep, sep, sep);
			fprintf(stderr, "%llu%s%srb:entries:%s%s%s100.00%s%s\n",
				(unsigned long long)c->named_entries[i], sep, sep, c->named[i],
				sep, sep, sep, sep);
		}
		return;
	}
	fprintf(stderr, "\n Performance counter stats for '");
	for (i = 0; cmd[i]; i++)
		fprintf(stderr, "%s%s", i ? " " : "", cmd[i]);
	fprintf(stderr, "' (rbcount plugin: exact counts, all CPUs):\n\n");
	for (i = 0; i < ARRAY_SIZE(ev); i++)
		fprintf(stderr, "%19s      %s\n", grouped(ev[i].value, num, sizeof(num)),
			ev[i].name);
	if (c->nfunc) {
		fprintf(stderr, "\n Kernel functions by instructions:\n\n");
		for (i = 0; i < (size_t)c->nfunc; i++)
			fprintf(stderr, "%19s      %s\n",
				grouped(c->func_insns[i], num, sizeof(num)), c->func[i]);
	}
	if (c->nnamed) {
		fprintf(stderr, "\n RCU read-side functions (instructions, entries):\n\n");
		for (i = 0; i < (size_t)c->nnamed; i++) {
			char calls[40];

			fprintf(stderr, "%19s %12s      %s\n",
				grouped(c->named_insns[i], num, sizeof(num)),
				grouped(c->named_entries[i], calls, sizeof(calls)), c->named[i]);
		}
	}
	fprintf(stderr, "\n%17.9f seconds time elapsed\n\n", secs);
}

static void print_usage(void)
{
	fputs("usage: rbstat [-x SEP] [--] CMD [ARG...]\n", stderr);
}

int main(int argc, char **argv)
{
	const char *sep = NULL, *tty = getenv("RBSTAT_TTY");
	struct timespec t0, t1;
	struct counts c;
	int opt, status, fd = -1;
	bool plugin;
	pid_t pid;

	while ((opt = getopt(argc, argv, "+x:h")) != -1) {
		switch (opt) {
		case 'x':
			sep = optarg;
			break;
		default:
			print_usage();
			return opt == 'h' ? 0 : 129;
		}
	}
	if (optind >= argc) {
		print_usage();
		return 129;
	}
	plugin = plugin_present();
	if (!plugin)
		fputs("rbstat: no rbcount plugin in this guest (boot it with PLUGIN=1): running the command without counts\n",
		      stderr);
	if (plugin) {
		fd = open_channel(tty ? tty : "/dev/ttyS2");
		if (fd < 0)
			fprintf(stderr, "rbstat: cannot open %s: %s: running the command without counts\n",
				tty ? tty : "/dev/ttyS2", strerror(errno));
	}
	clock_gettime(CLOCK_MONOTONIC, &t0);
	if (fd >= 0)
		RB_STAT_OPEN();
	pid = fork();
	if (pid == 0) {
		execvp(argv[optind], argv + optind);
		fprintf(stderr, "rbstat: %s: %s\n", argv[optind], strerror(errno));
		_exit(127);
	}
	if (pid < 0) {
		perror("rbstat: fork");
		return 126;
	}
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	if (fd >= 0)
		RB_STAT_CLOSE();
	clock_gettime(CLOCK_MONOTONIC, &t1);
	if (fd >= 0) {
		if (read_reply(fd, &c))
			print_counts(&c, argv + optind,
				     (t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) / 1e9, sep);
		else
			fprintf(stderr, "rbstat: no counts from the plugin within %d s\n",
				REPLY_TIMEOUT_MS / 1000);
	}
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}
