# gp_latency_ticks: run from this directory (data in gp_latency_ticks.dat)
set key left top
set grid
# -e "style_err='lines'; show_boots=0" drops the error bars and the per-boot dots (dumb terminal)
if (!exists("style_err")) style_err = "yerrorlines"
if (!exists("show_boots")) show_boots = 1
err_using = (style_err eq "yerrorlines") ? "1:2:3:4" : "1:2"
set multiplot layout 1,2
set title "lone synchronize_rcu(), load=idle"
set xlabel "vCPUs"
set ylabel "ticks (median, 95% CI; dots: boots; log scale)"
set logscale y
unset logscale x
set xtics (1, 2)
set autoscale x
plot "gp_latency_ticks.dat" index 0 using @err_using with @style_err title "classic", \
     "gp_latency_ticks.dat" index 1 using @err_using with @style_err title "preempt", \
     "gp_latency_ticks.dat" index 2 using @err_using with @style_err title "tree", \
     "gp_latency_ticks.dat" index 3 using @err_using with @style_err title "tree-preempt", \
     "gp_latency_ticks.dat" index 4 using @err_using with @style_err title "classic-preempt", \
     "gp_latency_ticks.dat" index 5 using 1:(show_boots ? $2 : 1/0) with points pt 7 ps 0.4 title (show_boots ? "classic per boot" : ""), \
     "gp_latency_ticks.dat" index 6 using 1:(show_boots ? $2 : 1/0) with points pt 7 ps 0.4 title (show_boots ? "preempt per boot" : ""), \
     "gp_latency_ticks.dat" index 7 using 1:(show_boots ? $2 : 1/0) with points pt 7 ps 0.4 title (show_boots ? "tree per boot" : ""), \
     "gp_latency_ticks.dat" index 8 using 1:(show_boots ? $2 : 1/0) with points pt 7 ps 0.4 title (show_boots ? "tree-preempt per boot" : ""), \
     "gp_latency_ticks.dat" index 9 using 1:(show_boots ? $2 : 1/0) with points pt 7 ps 0.4 title (show_boots ? "classic-preempt per boot" : "")
set title "lone synchronize_rcu(), load=readers"
set xlabel "vCPUs"
set ylabel "ticks (median, 95% CI; dots: boots; log scale)"
set logscale y
unset logscale x
set xtics (1, 2)
set autoscale x
plot "gp_latency_ticks.dat" index 10 using @err_using with @style_err title "classic", \
     "gp_latency_ticks.dat" index 11 using @err_using with @style_err title "preempt", \
     "gp_latency_ticks.dat" index 12 using @err_using with @style_err title "tree", \
     "gp_latency_ticks.dat" index 13 using @err_using with @style_err title "tree-preempt", \
     "gp_latency_ticks.dat" index 14 using @err_using with @style_err title "classic-preempt", \
     "gp_latency_ticks.dat" index 15 using 1:(show_boots ? $2 : 1/0) with points pt 7 ps 0.4 title (show_boots ? "classic per boot" : ""), \
     "gp_latency_ticks.dat" index 16 using 1:(show_boots ? $2 : 1/0) with points pt 7 ps 0.4 title (show_boots ? "preempt per boot" : ""), \
     "gp_latency_ticks.dat" index 17 using 1:(show_boots ? $2 : 1/0) with points pt 7 ps 0.4 title (show_boots ? "tree per boot" : ""), \
     "gp_latency_ticks.dat" index 18 using 1:(show_boots ? $2 : 1/0) with points pt 7 ps 0.4 title (show_boots ? "tree-preempt per boot" : ""), \
     "gp_latency_ticks.dat" index 19 using 1:(show_boots ? $2 : 1/0) with points pt 7 ps 0.4 title (show_boots ? "classic-preempt per boot" : "")
unset multiplot
