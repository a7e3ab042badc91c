# gp_cdf_4vcpu: run from this directory (data in gp_cdf_4vcpu.dat)
set key left top
set grid
# -e "style_err='lines'; show_boots=0" drops the error bars and the per-boot dots (dumb terminal)
if (!exists("style_err")) style_err = "yerrorlines"
if (!exists("show_boots")) show_boots = 1
err_using = (style_err eq "yerrorlines") ? "1:2:3:4" : "1:2"
set multiplot layout 1,2
set title "lone synchronize_rcu() latency, 4 vCPUs, load=idle"
set xlabel "latency (ms)"
set ylabel "fraction of grace periods"
unset logscale y
unset logscale x
set xtics autofreq
set autoscale x
plot "gp_cdf_4vcpu.dat" index 0 using 1:2 with steps title "classic", \
     "gp_cdf_4vcpu.dat" index 1 using 1:2 with steps title "preempt", \
     "gp_cdf_4vcpu.dat" index 2 using 1:2 with steps title "tree", \
     "gp_cdf_4vcpu.dat" index 3 using 1:2 with steps title "tree-preempt", \
     "gp_cdf_4vcpu.dat" index 4 using 1:2 with steps title "classic-preempt"
set title "lone synchronize_rcu() latency, 4 vCPUs, load=readers"
set xlabel "latency (ms)"
set ylabel "fraction of grace periods"
unset logscale y
unset logscale x
set xtics autofreq
set autoscale x
plot "gp_cdf_4vcpu.dat" index 5 using 1:2 with steps title "classic", \
     "gp_cdf_4vcpu.dat" index 6 using 1:2 with steps title "preempt", \
     "gp_cdf_4vcpu.dat" index 7 using 1:2 with steps title "tree", \
     "gp_cdf_4vcpu.dat" index 8 using 1:2 with steps title "tree-preempt", \
     "gp_cdf_4vcpu.dat" index 9 using 1:2 with steps title "classic-preempt"
unset multiplot
