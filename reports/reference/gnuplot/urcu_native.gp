# urcu_native: run from this directory (data in urcu_native.dat)
set key left top
set grid
# -e "style_err='lines'; show_boots=0" drops the error bars and the per-boot dots (dumb terminal)
if (!exists("style_err")) style_err = "yerrorlines"
if (!exists("show_boots")) show_boots = 1
err_using = (style_err eq "yerrorlines") ? "1:2:3:4" : "1:2"
set title "liburcu on the host (native)"
set xlabel "reader threads"
set ylabel "ns per pair"
set logscale y
unset logscale x
set xtics (1, 2)
set autoscale x
plot "urcu_native.dat" index 0 using @err_using with @style_err title "urcu-mb", \
     "urcu_native.dat" index 1 using @err_using with @style_err title "urcu-memb", \
     "urcu_native.dat" index 2 using @err_using with @style_err title "urcu-qsbr", \
     "urcu_native.dat" index 3 using 1:(show_boots ? $2 : 1/0) with points pt 7 ps 0.4 title (show_boots ? "urcu-mb per boot" : ""), \
     "urcu_native.dat" index 4 using 1:(show_boots ? $2 : 1/0) with points pt 7 ps 0.4 title (show_boots ? "urcu-memb per boot" : ""), \
     "urcu_native.dat" index 5 using 1:(show_boots ? $2 : 1/0) with points pt 7 ps 0.4 title (show_boots ? "urcu-qsbr per boot" : "")
