# scale_transfers: run from this directory (data in scale_transfers.dat)
set key left top
set grid
# -e "style_err='lines'; show_boots=0" drops the error bars and the per-boot dots (dumb terminal)
if (!exists("style_err")) style_err = "yerrorlines"
if (!exists("show_boots")) show_boots = 1
err_using = (style_err eq "yerrorlines") ? "1:2:3:4" : "1:2"
set multiplot layout 1,2
set title "Cache-line transfers per GP per CPU, load=idle"
set xlabel "vCPUs"
set ylabel "transfers (median, min–max over boots; dots: boots)"
set logscale y
set logscale x 2
set xtics (2, 4, 8, 16, 32, 64)
set autoscale x
plot "scale_transfers.dat" index 0 using @err_using with @style_err title "classic", \
     "scale_transfers.dat" index 1 using @err_using with @style_err title "preempt", \
     "scale_transfers.dat" index 2 using @err_using with @style_err title "tree", \
     "scale_transfers.dat" index 3 using @err_using with @style_err title "tree-preempt", \
     "scale_transfers.dat" index 4 using @err_using with @style_err title "classic-preempt", \
     "scale_transfers.dat" index 5 using 1:(show_boots ? $2 : 1/0) with points pt 7 ps 0.4 title (show_boots ? "classic per boot" : ""), \
     "scale_transfers.dat" index 6 using 1:(show_boots ? $2 : 1/0) with points pt 7 ps 0.4 title (show_boots ? "preempt per boot" : ""), \
     "scale_transfers.dat" index 7 using 1:(show_boots ? $2 : 1/0) with points pt 7 ps 0.4 title (show_boots ? "tree per boot" : ""), \
     "scale_transfers.dat" index 8 using 1:(show_boots ? $2 : 1/0) with points pt 7 ps 0.4 title (show_boots ? "tree-preempt per boot" : ""), \
     "scale_transfers.dat" index 9 using 1:(show_boots ? $2 : 1/0) with points pt 7 ps 0.4 title (show_boots ? "classic-preempt per boot" : "")
set title "Hottest line of RCU state: its transfers per GP (all CPUs), load=idle"
set xlabel "vCPUs"
set ylabel "transfers (median, min–max over boots; dots: boots)"
set logscale y
set logscale x 2
set xtics (2, 4, 8, 16, 32, 64)
set autoscale x
plot "scale_transfers.dat" index 10 using @err_using with @style_err title "classic", \
     "scale_transfers.dat" index 11 using @err_using with @style_err title "preempt", \
     "scale_transfers.dat" index 12 using @err_using with @style_err title "tree", \
     "scale_transfers.dat" index 13 using @err_using with @style_err title "tree-preempt", \
     "scale_transfers.dat" index 14 using @err_using with @style_err title "classic-preempt", \
     "scale_transfers.dat" index 15 using 1:(show_boots ? $2 : 1/0) with points pt 7 ps 0.4 title (show_boots ? "classic per boot" : ""), \
     "scale_transfers.dat" index 16 using 1:(show_boots ? $2 : 1/0) with points pt 7 ps 0.4 title (show_boots ? "preempt per boot" : ""), \
     "scale_transfers.dat" index 17 using 1:(show_boots ? $2 : 1/0) with points pt 7 ps 0.4 title (show_boots ? "tree per boot" : ""), \
     "scale_transfers.dat" index 18 using 1:(show_boots ? $2 : 1/0) with points pt 7 ps 0.4 title (show_boots ? "tree-preempt per boot" : ""), \
     "scale_transfers.dat" index 19 using 1:(show_boots ? $2 : 1/0) with points pt 7 ps 0.4 title (show_boots ? "classic-preempt per boot" : "")
unset multiplot
