# Guest job of `make shell`: an interactive busybox shell on the console.
# The kernel's modules and rcubench.ko are in /modules; perf is in
# /usr/bin.  Leaving the shell (exit, poweroff, Ctrl-D) ends the job: the
# init script then powers the guest off and QEMU exits.
mkdir -p /etc
cat >/etc/profile <<'PROFILE'
export PATH=/bin:/sbin:/usr/bin:/usr/sbin
export PS1='rcu-bench:\w# '
# /init is PID 1 (not busybox init): leaving the shell powers off.
poweroff() { exit 0; }
halt() { exit 0; }
reboot() { exit 0; }
PROFILE
echo "rcu-bench shell: $(dmesg | grep -m1 'RCU implementation' | sed 's/^\[[^]]*\] //; s/^rcu: //')"
echo "rcu-bench shell: $(nproc) CPUs; modules in /modules: $(ls /modules | tr '\n' ' ')"
echo "rcu-bench shell: 'poweroff' or 'exit' ends the session; Ctrl-A x kills QEMU."
echo "RB-SHELL-READY"
# cttyhack gives the shell the console as its controlling terminal (job
# control, Ctrl-C), instead of the pipe /init reads the job's output from.
setsid cttyhack sh -l
