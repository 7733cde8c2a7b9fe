# throughput_cost: redraw with 'gnuplot throughput_cost.gp' in this directory (data: throughput_cost.dat).
do for [fmt in 'png svg'] {
  if (fmt eq 'png') {
    set terminal pngcairo noenhanced size 3512,1468 font 'sans,10' background '#ffffff'
  } else {
    set terminal svg noenhanced size 3512,1468 font 'sans,10' background '#ffffff'
  }
  set output 'throughput_cost.'.fmt
  reset
  set datafile separator '\t'
  set datafile missing 'NaN'
  set multiplot
  set style data histograms
  set style histogram clustered gap 1
  set style fill solid 0.85 border rgb '#333333'
  set boxwidth 0.7
  set yrange [0:*]
  set offsets 0,0,graph 0.12,0
  set grid ytics lc rgb '#dddddd'
  set ytics nomirror
  unset key
  set xtics nomirror scale 0 rotate by 35 right
  set lmargin at screen 0.02335
  set rmargin at screen 0.24203
  set tmargin at screen 0.96594
  set bmargin at screen 0.80926
  set title 'alexnet'."\n".'throughput'
  set ylabel 'samples/s'
  set xrange [-0.6:11.6]
  plot 'throughput_cost.dat' index 0 using 2:xtic(1) lc rgb '#377eb8', \
       '' index 0 using 0:2:(''.gprintf(column(2) >= 100 ? '%.0f' : column(2) >= 1 ? '%.2f' : '%.3g', column(2))) with labels offset 0,0.7 font ',8'
  set lmargin at screen 0.27335
  set rmargin at screen 0.49203
  set tmargin at screen 0.96594
  set bmargin at screen 0.80926
  set title 'alexnet'."\n".'cost per epoch'
  set ylabel '$ per epoch'
  set xrange [-0.6:11.6]
  plot 'throughput_cost.dat' index 0 using 3:xtic(1) lc rgb '#e41a1c', \
       '' index 0 using 0:3:('$'.gprintf(column(3) >= 100 ? '%.0f' : column(3) >= 1 ? '%.2f' : '%.3g', column(3))) with labels offset 0,0.7 font ',8'
  set lmargin at screen 0.52335
  set rmargin at screen 0.74203
  set tmargin at screen 0.96594
  set bmargin at screen 0.80926
  set title 'resnet18'."\n".'throughput'
  set ylabel 'samples/s'
  set xrange [-0.6:11.6]
  plot 'throughput_cost.dat' index 1 using 2:xtic(1) lc rgb '#377eb8', \
       '' index 1 using 0:2:(''.gprintf(column(2) >= 100 ? '%.0f' : column(2) >= 1 ? '%.2f' : '%.3g', column(2))) with labels offset 0,0.7 font ',8'
  set lmargin at screen 0.77335
  set rmargin at screen 0.99203
  set tmargin at screen 0.96594
  set bmargin at screen 0.80926
  set title 'resnet18'."\n".'cost per epoch'
  set ylabel '$ per epoch'
  set xrange [-0.6:11.6]
  plot 'throughput_cost.dat' index 1 using 3:xtic(1) lc rgb '#e41a1c', \
       '' index 1 using 0:3:('$'.gprintf(column(3) >= 100 ? '%.0f' : column(3) >= 1 ? '%.2f' : '%.3g', column(3))) with labels offset 0,0.7 font ',8'
  set lmargin at screen 0.02335
  set rmargin at screen 0.24203
  set tmargin at screen 0.71594
  set bmargin at screen 0.55926
  set title 'resnet50'."\n".'throughput'
  set ylabel 'samples/s'
  set xrange [-0.6:11.6]
  plot 'throughput_cost.dat' index 2 using 2:xtic(1) lc rgb '#377eb8', \
       '' index 2 using 0:2:(''.gprintf(column(2) >= 100 ? '%.0f' : column(2) >= 1 ? '%.2f' : '%.3g', column(2))) with labels offset 0,0.7 font ',8'
  set lmargin at screen 0.27335
  set rmargin at screen 0.49203
  set tmargin at screen 0.71594
  set bmargin at screen 0.55926
  set title 'resnet50'."\n".'cost per epoch'
  set ylabel '$ per epoch'
  set xrange [-0.6:11.6]
  plot 'throughput_cost.dat' index 2 using 3:xtic(1) lc rgb '#e41a1c', \
       '' index 2 using 0:3:('$'.gprintf(column(3) >= 100 ? '%.0f' : column(3) >= 1 ? '%.2f' : '%.3g', column(3))) with labels offset 0,0.7 font ',8'
  set lmargin at screen 0.52335
  set rmargin at screen 0.74203
  set tmargin at screen 0.71594
  set bmargin at screen 0.55926
  set title 'vgg11'."\n".'throughput'
  set ylabel 'samples/s'
  set xrange [-0.6:11.6]
  plot 'throughput_cost.dat' index 3 using 2:xtic(1) lc rgb '#377eb8', \
       '' index 3 using 0:2:(''.gprintf(column(2) >= 100 ? '%.0f' : column(2) >= 1 ? '%.2f' : '%.3g', column(2))) with labels offset 0,0.7 font ',8'
  set lmargin at screen 0.77335
  set rmargin at screen 0.99203
  set tmargin at screen 0.71594
  set bmargin at screen 0.55926
  set title 'vgg11'."\n".'cost per epoch'
  set ylabel '$ per epoch'
  set xrange [-0.6:11.6]
  plot 'throughput_cost.dat' index 3 using 3:xtic(1) lc rgb '#e41a1c', \
       '' index 3 using 0:3:('$'.gprintf(column(3) >= 100 ? '%.0f' : column(3) >= 1 ? '%.2f' : '%.3g', column(3))) with labels offset 0,0.7 font ',8'
  set lmargin at screen 0.02335
  set rmargin at screen 0.24203
  set tmargin at screen 0.46594
  set bmargin at screen 0.30926
  set title 'mobilenet_v2'."\n".'throughput'
  set ylabel 'samples/s'
  set xrange [-0.6:11.6]
  plot 'throughput_cost.dat' index 4 using 2:xtic(1) lc rgb '#377eb8', \
       '' index 4 using 0:2:(''.gprintf(column(2) >= 100 ? '%.0f' : column(2) >= 1 ? '%.2f' : '%.3g', column(2))) with labels offset 0,0.7 font ',8'
  set lmargin at screen 0.27335
  set rmargin at screen 0.49203
  set tmargin at screen 0.46594
  set bmargin at screen 0.30926
  set title 'mobilenet_v2'."\n".'cost per epoch'
  set ylabel '$ per epoch'
  set xrange [-0.6:11.6]
  plot 'throughput_cost.dat' index 4 using 3:xtic(1) lc rgb '#e41a1c', \
       '' index 4 using 0:3:('$'.gprintf(column(3) >= 100 ? '%.0f' : column(3) >= 1 ? '%.2f' : '%.3g', column(3))) with labels offset 0,0.7 font ',8'
  set lmargin at screen 0.52335
  set rmargin at screen 0.74203
  set tmargin at screen 0.46594
  set bmargin at screen 0.30926
  set title 'shufflenet_v2_x0_5'."\n".'throughput'
  set ylabel 'samples/s'
  set xrange [-0.6:11.6]
  plot 'throughput_cost.dat' index 5 using 2:xtic(1) lc rgb '#377eb8', \
       '' index 5 using 0:2:(''.gprintf(column(2) >= 100 ? '%.0f' : column(2) >= 1 ? '%.2f' : '%.3g', column(2))) with labels offset 0,0.7 font ',8'
  set lmargin at screen 0.77335
  set rmargin at screen 0.99203
  set tmargin at screen 0.46594
  set bmargin at screen 0.30926
  set title 'shufflenet_v2_x0_5'."\n".'cost per epoch'
  set ylabel '$ per epoch'
  set xrange [-0.6:11.6]
  plot 'throughput_cost.dat' index 5 using 3:xtic(1) lc rgb '#e41a1c', \
       '' index 5 using 0:3:('$'.gprintf(column(3) >= 100 ? '%.0f' : column(3) >= 1 ? '%.2f' : '%.3g', column(3))) with labels offset 0,0.7 font ',8'
  set lmargin at screen 0.02335
  set rmargin at screen 0.24203
  set tmargin at screen 0.21594
  set bmargin at screen 0.05926
  set title 'squeezenet1_0'."\n".'throughput'
  set ylabel 'samples/s'
  set xrange [-0.6:11.6]
  plot 'throughput_cost.dat' index 6 using 2:xtic(1) lc rgb '#377eb8', \
       '' index 6 using 0:2:(''.gprintf(column(2) >= 100 ? '%.0f' : column(2) >= 1 ? '%.2f' : '%.3g', column(2))) with labels offset 0,0.7 font ',8'
  set lmargin at screen 0.27335
  set rmargin at screen 0.49203
  set tmargin at screen 0.21594
  set bmargin at screen 0.05926
  set title 'squeezenet1_0'."\n".'cost per epoch'
  set ylabel '$ per epoch'
  set xrange [-0.6:11.6]
  plot 'throughput_cost.dat' index 6 using 3:xtic(1) lc rgb '#e41a1c', \
       '' index 6 using 0:3:('$'.gprintf(column(3) >= 100 ? '%.0f' : column(3) >= 1 ? '%.2f' : '%.3g', column(3))) with labels offset 0,0.7 font ',8'
  unset multiplot
  set output
}
