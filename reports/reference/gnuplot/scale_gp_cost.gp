# scale_gp_cost: run from this directory (data in scale_gp_cost.dat)
set key left top
set grid
# -e "style_err='lines'; show_boots=0" drops the error bars and the per-boot dots (dumb terminal)
if (!exists("style_err")) style_err = "yerrorlines"
if (!exists("show_boots")) show_boots = 1
err_using = (style_err eq "yerrorlines") ? "1:2:3:4" : "1:2"
set multiplot layout 1,2
set title "RCU core instructions per GP per CPU, load=idle"
set xlabel "vCPUs"
set ylabel "instructions (median, min–max over boots; dots: boots)"
set logscale y
set logscale x 2
set xtics (1, 2, 4, 8, 16, 32, 64)
set autoscale x
plot "scale_gp_cost.dat" index 0 using @err_using with @style_err title "classic", \
     "scale_gp_cost.dat" index 1 using @err_using with @style_err title "preempt", \
     "scale_gp_cost.dat" index 2 using @err_using with @style_err title "tree", \
     "scale_gp_cost.dat" index 3 using @err_using with @style_err title "tree-preempt", \
     "scale_gp_cost.dat" index 4 using @err_using with @style_err title "classic-preempt", \
     "scale_gp_cost.dat" index 5 using 1:(show_boots ? $2 : 1/0) with points pt 7 ps 0.4 title (show_boots ? "classic per boot" : ""), \
     "scale_gp_cost.dat" index 6 using 1:(show_boots ? $2 : 1/0) with points pt 7 ps 0.4 title (show_boots ? "preempt per boot" : ""), \
     "scale_gp_cost.dat" index 7 using 1:(show_boots ? $2 : 1/0) with points pt 7 ps 0.4 title (show_boots ? "tree per boot" : ""), \
     "scale_gp_cost.dat" index 8 using 1:(show_boots ? $2 : 1/0) with points pt 7 ps 0.4 title (show_boots ? "tree-preempt per boot" : ""), \
     "scale_gp_cost.dat" index 9 using 1:(show_boots ? $2 : 1/0) with points pt 7 ps 0.4 title (show_boots ? "classic-preempt per boot" : "")
set title "Tick's RCU work with interrupts off, worst episode, load=idle"
set xlabel "vCPUs"
set ylabel "instructions (median, min–max over boots; dots: boots)"
set logscale y
set logscale x 2
set xtics (1, 2, 4, 8, 16, 32, 64)
set autoscale x
plot "scale_gp_cost.dat" index 10 using @err_using with @style_err title "classic", \
     "scale_gp_cost.dat" index 11 using @err_using with @style_err title "preempt", \
     "scale_gp_cost.dat" index 12 using @err_using with @style_err title "tree", \
     "scale_gp_cost.dat" index 13 using @err_using with @style_err title "tree-preempt", \
     "scale_gp_cost.dat" index 14 using @err_using with @style_err title "classic-preempt", \
     "scale_gp_cost.dat" index 15 using 1:(show_boots ? $2 : 1/0) with points pt 7 ps 0.4 title (show_boots ? "classic per boot" : ""), \
     "scale_gp_cost.dat" index 16 using 1:(show_boots ? $2 : 1/0) with points pt 7 ps 0.4 title (show_boots ? "preempt per boot" : ""), \
     "scale_gp_cost.dat" index 17 using 1:(show_boots ? $2 : 1/0) with points pt 7 ps 0.4 title (show_boots ? "tree per boot" : ""), \
     "scale_gp_cost.dat" index 18 using 1:(show_boots ? $2 : 1/0) with points pt 7 ps 0.4 title (show_boots ? "tree-preempt per boot" : ""), \
     "scale_gp_cost.dat" index 19 using 1:(show_boots ? $2 : 1/0) with points pt 7 ps 0.4 title (show_boots ? "classic-preempt per boot" : "")
unset multiplot
