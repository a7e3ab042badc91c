// SPDX-License-Identifier: GPL-2.0+
/*
 * rb-pathwalk N [DEPTH]: stat() a file at the end of a DEPTH-deep path
 * (default 8) under /tmp N times: the path walk of the dentry cache,
 * which the kernel does under rcu_read_lock() (RCU-walk), as a workload
 * for rbstat (workloads/paths.sh).  The directories are made first, the
 * same for every N, so that two runs differ by their stat() calls only.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <fcntl.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	char path[4096] = "/tmp/rb-pathwalk.d";
	long n, depth = 8, i;
	struct stat st;
	int fd;

	if (argc < 2 || argc > 3) {
		fputs("usage: rb-pathwalk N [DEPTH]\n", stderr);
		return 2;
	}
	n = strtol(argv[1], NULL, 10);
	if (argc == 3)
		depth = strtol(argv[2], NULL, 10);
	if (n < 0 || depth < 1 || depth > 64) {
		fputs("rb-pathwalk: N >= 0 and 1 <= DEPTH <= 64\n", stderr);
		return 2;
	}
	mkdir(path, 0755);
	for (i = 0; i < depth; i++) {
		snprintf(path + strlen(path), sizeof(path) - strlen(path), "/d%ld", i);
		mkdir(path, 0755);
	}
	strcat(path, "/file");
	fd = open(path, O_CREAT | O_WRONLY, 0644);
	if (fd < 0) {
		perror(path);
		return 1;
	}
	close(fd);
	for (i = 0; i < n; i++) {
		if (stat(path, &st)) {
			perror(path);
			return 1;
		}
	}
	return 0;
}
