# read_nest2: run from this directory (data in read_nest2.dat)
set key left top
set grid
# -e "style_err='lines'; show_boots=0" drops the error bars and the per-boot dots (dumb terminal)
if (!exists("style_err")) style_err = "yerrorlines"
if (!exists("show_boots")) show_boots = 1
err_using = (style_err eq "yerrorlines") ? "1:2:3:4" : "1:2"
set title "rcu_read_lock/unlock, nest=2, readers = vCPUs (TCG)"
set xlabel "vCPUs"
set ylabel "ns per pair (median, 95% CI; dots: boots)"
unset logscale y
unset logscale x
set xtics (1, 2)
set autoscale x
plot "read_nest2.dat" index 0 using @err_using with @style_err title "classic", \
     "read_nest2.dat" index 1 using @err_using with @style_err title "preempt", \
     "read_nest2.dat" index 2 using @err_using with @style_err title "tree", \
     "read_nest2.dat" index 3 using @err_using with @style_err title "tree-preempt", \
     "read_nest2.dat" index 4 using @err_using with @style_err title "classic-preempt", \
     "read_nest2.dat" index 5 using 1:(show_boots ? $2 : 1/0) with points pt 7 ps 0.4 title (show_boots ? "classic per boot" : ""), \
     "read_nest2.dat" index 6 using 1:(show_boots ? $2 : 1/0) with points pt 7 ps 0.4 title (show_boots ? "preempt per boot" : ""), \
     "read_nest2.dat" index 7 using 1:(show_boots ? $2 : 1/0) with points pt 7 ps 0.4 title (show_boots ? "tree per boot" : ""), \
     "read_nest2.dat" index 8 using 1:(show_boots ? $2 : 1/0) with points pt 7 ps 0.4 title (show_boots ? "tree-preempt per boot" : ""), \
     "read_nest2.dat" index 9 using 1:(show_boots ? $2 : 1/0) with points pt 7 ps 0.4 title (show_boots ? "classic-preempt per boot" : "")
