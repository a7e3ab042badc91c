# Guest job: report which RCU implementation this kernel runs.
dmesg | grep -m1 'RCU implementation' | sed 's/^\[[^]]*\] //; s/^rcu: //' >/results/rcu-banner.txt
cat /results/rcu-banner.txt
