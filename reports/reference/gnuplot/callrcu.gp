# callrcu: run from this directory (data in callrcu.dat)
set key left top
set grid
# -e "style_err='lines'; show_boots=0" drops the error bars and the per-boot dots (dumb terminal)
if (!exists("style_err")) style_err = "yerrorlines"
if (!exists("show_boots")) show_boots = 1
err_using = (style_err eq "yerrorlines") ? "1:2:3:4" : "1:2"
set multiplot layout 1,3
set title "call_rcu() cost, writers = vCPUs"
set xlabel "vCPUs"
set ylabel "ns per call"
unset logscale y
unset logscale x
set xtics (1, 2)
set autoscale x
plot "callrcu.dat" index 0 using @err_using with @style_err title "classic", \
     "callrcu.dat" index 1 using @err_using with @style_err title "preempt", \
     "callrcu.dat" index 2 using @err_using with @style_err title "tree", \
     "callrcu.dat" index 3 using @err_using with @style_err title "tree-preempt", \
     "callrcu.dat" index 4 using @err_using with @style_err title "classic-preempt", \
     "callrcu.dat" index 5 using 1:(show_boots ? $2 : 1/0) with points pt 7 ps 0.4 title (show_boots ? "classic per boot" : ""), \
     "callrcu.dat" index 6 using 1:(show_boots ? $2 : 1/0) with points pt 7 ps 0.4 title (show_boots ? "preempt per boot" : ""), \
     "callrcu.dat" index 7 using 1:(show_boots ? $2 : 1/0) with points pt 7 ps 0.4 title (show_boots ? "tree per boot" : ""), \
     "callrcu.dat" index 8 using 1:(show_boots ? $2 : 1/0) with points pt 7 ps 0.4 title (show_boots ? "tree-preempt per boot" : ""), \
     "callrcu.dat" index 9 using 1:(show_boots ? $2 : 1/0) with points pt 7 ps 0.4 title (show_boots ? "classic-preempt per boot" : "")
set title "call_rcu() capacity (CPU-bound boots), writers = vCPUs"
set xlabel "vCPUs"
set ylabel "callbacks invoked per s"
unset logscale y
unset logscale x
set xtics (1, 2)
set autoscale x
plot "callrcu.dat" index 10 using @err_using with @style_err title "classic", \
     "callrcu.dat" index 11 using @err_using with @style_err title "preempt", \
     "callrcu.dat" index 12 using @err_using with @style_err title "tree", \
     "callrcu.dat" index 13 using @err_using with @style_err title "tree-preempt", \
     "callrcu.dat" index 14 using @err_using with @style_err title "classic-preempt", \
     "callrcu.dat" index 15 using 1:(show_boots ? $2 : 1/0) with points pt 7 ps 0.4 title (show_boots ? "classic per boot" : ""), \
     "callrcu.dat" index 16 using 1:(show_boots ? $2 : 1/0) with points pt 7 ps 0.4 title (show_boots ? "preempt per boot" : ""), \
     "callrcu.dat" index 17 using 1:(show_boots ? $2 : 1/0) with points pt 7 ps 0.4 title (show_boots ? "tree per boot" : ""), \
     "callrcu.dat" index 18 using 1:(show_boots ? $2 : 1/0) with points pt 7 ps 0.4 title (show_boots ? "tree-preempt per boot" : ""), \
     "callrcu.dat" index 19 using 1:(show_boots ? $2 : 1/0) with points pt 7 ps 0.4 title (show_boots ? "classic-preempt per boot" : "")
set title "Memory held by callbacks at a fixed call rate"
set xlabel "vCPUs"
set ylabel "bytes (mean)"
unset logscale y
unset logscale x
set xtics (1, 2)
set autoscale x
plot "callrcu.dat" index 20 using @err_using with @style_err title "classic", \
     "callrcu.dat" index 21 using @err_using with @style_err title "preempt", \
     "callrcu.dat" index 22 using @err_using with @style_err title "tree", \
     "callrcu.dat" index 23 using @err_using with @style_err title "tree-preempt", \
     "callrcu.dat" index 24 using @err_using with @style_err title "classic-preempt", \
     "callrcu.dat" index 25 using 1:(show_boots ? $2 : 1/0) with points pt 7 ps 0.4 title (show_boots ? "classic per boot" : ""), \
     "callrcu.dat" index 26 using 1:(show_boots ? $2 : 1/0) with points pt 7 ps 0.4 title (show_boots ? "preempt per boot" : ""), \
     "callrcu.dat" index 27 using 1:(show_boots ? $2 : 1/0) with points pt 7 ps 0.4 title (show_boots ? "tree per boot" : ""), \
     "callrcu.dat" index 28 using 1:(show_boots ? $2 : 1/0) with points pt 7 ps 0.4 title (show_boots ? "tree-preempt per boot" : ""), \
     "callrcu.dat" index 29 using 1:(show_boots ? $2 : 1/0) with points pt 7 ps 0.4 title (show_boots ? "classic-preempt per boot" : "")
unset multiplot
