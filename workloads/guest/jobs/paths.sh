# Guest job of workloads/paths.sh: real kernel paths counted by rbstat (a
# guest booted with the rbcount plugin).  Each workload runs at two sizes;
# workloads/paths.py takes the difference, so that the setup (fork, exec,
# thread creation, the directories) cancels and what is left is per
# operation.  A warm-up run of each first: the second size must not find
# caches the first one filled.
# run NAME N CMD...: rbstat -x, of CMD into /results/paths-NAME-N.csv.
run() {
	name=$1 n=$2
	shift 2
	rbstat -x, -- "$@" >/dev/null 2>"/results/paths-$name-$n.csv" ||
		echo "paths: $name $n: exit $?" >&2
}
rb-pathwalk 10 && perf bench sched pipe -l 10 >/dev/null &&
	perf bench sched messaging -p -g 1 -l 1 >/dev/null || exit 1
run pathwalk 200 rb-pathwalk 200
run pathwalk 2200 rb-pathwalk 2200
run pipe 100 perf bench sched pipe -l 100
run pipe 2100 perf bench sched pipe -l 2100
run messaging 2 perf bench sched messaging -p -g 1 -l 2
run messaging 10 perf bench sched messaging -p -g 1 -l 10
ls /results/paths-*.csv
