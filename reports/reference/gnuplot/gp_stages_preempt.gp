# gp_stages_preempt: run from this directory (data in gp_stages_preempt.dat)
set key left top
set grid
# -e "style_err='lines'; show_boots=0" drops the error bars and the per-boot dots (dumb terminal)
if (!exists("style_err")) style_err = "yerrorlines"
if (!exists("show_boots")) show_boots = 1
err_using = (style_err eq "yerrorlines") ? "1:2:3:4" : "1:2"
set title "preempt: ticks per stage in each state (median, 95% CI; design at 1 CPU: 1 each)"
set xlabel "vCPUs, load"
set ylabel "ticks per stage (HZ=1000)"
unset logscale y
unset logscale x
set style fill solid 0.8
set boxwidth 0.6
set xtics ("1 vCPU idle" 0, "1 vCPU readers" 1, "2 vCPU idle" 2, "2 vCPU readers" 3)
set xrange [-0.5:3.5]
plot "gp_stages_preempt.dat" index 0 using 1:2 with boxes title "waitmb", \
     "gp_stages_preempt.dat" index 1 using 1:2 with boxes title "waitzero", \
     "gp_stages_preempt.dat" index 2 using 1:2 with boxes title "waitack", \
     "gp_stages_preempt.dat" index 3 using 1:2 with boxes title "idle"
