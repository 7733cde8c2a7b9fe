# scaling: redraw with 'gnuplot scaling.gp' in this directory (data: scaling.dat).
do for [fmt in 'png svg'] {
  if (fmt eq 'png') {
    set terminal pngcairo noenhanced size 2120,1384 font 'sans,10' background '#ffffff'
  } else {
    set terminal svg noenhanced size 2120,1384 font 'sans,10' background '#ffffff'
  }
  set output 'scaling.'.fmt
  reset
  set datafile separator '\t'
  set datafile missing 'NaN'
  set multiplot
  set grid lc rgb '#dddddd'
  set xlabel 'instances'
  set xtics (1, 2, 4, 8) nomirror
  set ytics nomirror
  set yrange [0:*]
  set offsets 0,0,graph 0.05,0
  set xrange [1:8]
  set key top left Left reverse box opaque samplen 2
  set lmargin at screen 0.03868
  set rmargin at screen 0.23679
  set tmargin at screen 0.96387
  set bmargin at screen 0.79046
  set title 'alexnet'."\n".'throughput'
  set ylabel 'samples/s'
  plot 'scaling.dat' index 0 using 1:2 with linespoints lw 2 pt 7 ps 0.8 lc rgb '#1b9e77' title 'p2.16xlarge', \
       'scaling.dat' index 1 using 1:2 with linespoints lw 2 pt 7 ps 0.8 lc rgb '#d95f02' title 'p3.8xlarge', \
       'scaling.dat' index 2 using 1:2 with linespoints lw 2 pt 7 ps 0.8 lc rgb '#7570b3' title 'p3.16xlarge'
  set lmargin at screen 0.28868
  set rmargin at screen 0.48679
  set tmargin at screen 0.96387
  set bmargin at screen 0.79046
  set title 'alexnet'."\n".'speedup over 1 instance'
  set ylabel 'speedup'
  plot 'scaling.dat' index 0 using 1:3 with linespoints lw 2 pt 7 ps 0.8 lc rgb '#1b9e77' title 'p2.16xlarge', \
       'scaling.dat' index 1 using 1:3 with linespoints lw 2 pt 7 ps 0.8 lc rgb '#d95f02' title 'p3.8xlarge', \
       'scaling.dat' index 2 using 1:3 with linespoints lw 2 pt 7 ps 0.8 lc rgb '#7570b3' title 'p3.16xlarge', \
       x / 1 with lines dt 2 lw 1.5 lc rgb '#777777' title 'linear'
  set lmargin at screen 0.53868
  set rmargin at screen 0.73679
  set tmargin at screen 0.96387
  set bmargin at screen 0.79046
  set title 'resnet18'."\n".'throughput'
  set ylabel 'samples/s'
  plot 'scaling.dat' index 3 using 1:2 with linespoints lw 2 pt 7 ps 0.8 lc rgb '#1b9e77' title 'p2.16xlarge', \
       'scaling.dat' index 4 using 1:2 with linespoints lw 2 pt 7 ps 0.8 lc rgb '#d95f02' title 'p3.8xlarge', \
       'scaling.dat' index 5 using 1:2 with linespoints lw 2 pt 7 ps 0.8 lc rgb '#7570b3' title 'p3.16xlarge'
  set lmargin at screen 0.78868
  set rmargin at screen 0.98679
  set tmargin at screen 0.96387
  set bmargin at screen 0.79046
  set title 'resnet18'."\n".'speedup over 1 instance'
  set ylabel 'speedup'
  plot 'scaling.dat' index 3 using 1:3 with linespoints lw 2 pt 7 ps 0.8 lc rgb '#1b9e77' title 'p2.16xlarge', \
       'scaling.dat' index 4 using 1:3 with linespoints lw 2 pt 7 ps 0.8 lc rgb '#d95f02' title 'p3.8xlarge', \
       'scaling.dat' index 5 using 1:3 with linespoints lw 2 pt 7 ps 0.8 lc rgb '#7570b3' title 'p3.16xlarge', \
       x / 1 with lines dt 2 lw 1.5 lc rgb '#777777' title 'linear'
  set lmargin at screen 0.03868
  set rmargin at screen 0.23679
  set tmargin at screen 0.71387
  set bmargin at screen 0.54046
  set title 'resnet50'."\n".'throughput'
  set ylabel 'samples/s'
  plot 'scaling.dat' index 6 using 1:2 with linespoints lw 2 pt 7 ps 0.8 lc rgb '#1b9e77' title 'p2.16xlarge', \
       'scaling.dat' index 7 using 1:2 with linespoints lw 2 pt 7 ps 0.8 lc rgb '#d95f02' title 'p3.8xlarge', \
       'scaling.dat' index 8 using 1:2 with linespoints lw 2 pt 7 ps 0.8 lc rgb '#7570b3' title 'p3.16xlarge'
  set lmargin at screen 0.28868
  set rmargin at screen 0.48679
  set tmargin at screen 0.71387
  set bmargin at screen 0.54046
  set title 'resnet50'."\n".'speedup over 1 instance'
  set ylabel 'speedup'
  plot 'scaling.dat' index 6 using 1:3 with linespoints lw 2 pt 7 ps 0.8 lc rgb '#1b9e77' title 'p2.16xlarge', \
       'scaling.dat' index 7 using 1:3 with linespoints lw 2 pt 7 ps 0.8 lc rgb '#d95f02' title 'p3.8xlarge', \
       'scaling.dat' index 8 using 1:3 with linespoints lw 2 pt 7 ps 0.8 lc rgb '#7570b3' title 'p3.16xlarge', \
       x / 1 with lines dt 2 lw 1.5 lc rgb '#777777' title 'linear'
  set lmargin at screen 0.53868
  set rmargin at screen 0.73679
  set tmargin at screen 0.71387
  set bmargin at screen 0.54046
  set title 'vgg11'."\n".'throughput'
  set ylabel 'samples/s'
  plot 'scaling.dat' index 9 using 1:2 with linespoints lw 2 pt 7 ps 0.8 lc rgb '#1b9e77' title 'p2.16xlarge', \
       'scaling.dat' index 10 using 1:2 with linespoints lw 2 pt 7 ps 0.8 lc rgb '#d95f02' title 'p3.8xlarge', \
       'scaling.dat' index 11 using 1:2 with linespoints lw 2 pt 7 ps 0.8 lc rgb '#7570b3' title 'p3.16xlarge'
  set lmargin at screen 0.78868
  set rmargin at screen 0.98679
  set tmargin at screen 0.71387
  set bmargin at screen 0.54046
  set title 'vgg11'."\n".'speedup over 1 instance'
  set ylabel 'speedup'
  plot 'scaling.dat' index 9 using 1:3 with linespoints lw 2 pt 7 ps 0.8 lc rgb '#1b9e77' title 'p2.16xlarge', \
       'scaling.dat' index 10 using 1:3 with linespoints lw 2 pt 7 ps 0.8 lc rgb '#d95f02' title 'p3.8xlarge', \
       'scaling.dat' index 11 using 1:3 with linespoints lw 2 pt 7 ps 0.8 lc rgb '#7570b3' title 'p3.16xlarge', \
       x / 1 with lines dt 2 lw 1.5 lc rgb '#777777' title 'linear'
  set lmargin at screen 0.03868
  set rmargin at screen 0.23679
  set tmargin at screen 0.46387
  set bmargin at screen 0.29046
  set title 'mobilenet_v2'."\n".'throughput'
  set ylabel 'samples/s'
  plot 'scaling.dat' index 12 using 1:2 with linespoints lw 2 pt 7 ps 0.8 lc rgb '#1b9e77' title 'p2.16xlarge', \
       'scaling.dat' index 13 using 1:2 with linespoints lw 2 pt 7 ps 0.8 lc rgb '#d95f02' title 'p3.8xlarge', \
       'scaling.dat' index 14 using 1:2 with linespoints lw 2 pt 7 ps 0.8 lc rgb '#7570b3' title 'p3.16xlarge'
  set lmargin at screen 0.28868
  set rmargin at screen 0.48679
  set tmargin at screen 0.46387
  set bmargin at screen 0.29046
  set title 'mobilenet_v2'."\n".'speedup over 1 instance'
  set ylabel 'speedup'
  plot 'scaling.dat' index 12 using 1:3 with linespoints lw 2 pt 7 ps 0.8 lc rgb '#1b9e77' title 'p2.16xlarge', \
       'scaling.dat' index 13 using 1:3 with linespoints lw 2 pt 7 ps 0.8 lc rgb '#d95f02' title 'p3.8xlarge', \
       'scaling.dat' index 14 using 1:3 with linespoints lw 2 pt 7 ps 0.8 lc rgb '#7570b3' title 'p3.16xlarge', \
       x / 1 with lines dt 2 lw 1.5 lc rgb '#777777' title 'linear'
  set lmargin at screen 0.53868
  set rmargin at screen 0.73679
  set tmargin at screen 0.46387
  set bmargin at screen 0.29046
  set title 'shufflenet_v2_x0_5'."\n".'throughput'
  set ylabel 'samples/s'
  plot 'scaling.dat' index 15 using 1:2 with linespoints lw 2 pt 7 ps 0.8 lc rgb '#1b9e77' title 'p2.16xlarge', \
       'scaling.dat' index 16 using 1:2 with linespoints lw 2 pt 7 ps 0.8 lc rgb '#d95f02' title 'p3.8xlarge', \
       'scaling.dat' index 17 using 1:2 with linespoints lw 2 pt 7 ps 0.8 lc rgb '#7570b3' title 'p3.16xlarge'
  set lmargin at screen 0.78868
  set rmargin at screen 0.98679
  set tmargin at screen 0.46387
  set bmargin at screen 0.29046
  set title 'shufflenet_v2_x0_5'."\n".'speedup over 1 instance'
  set ylabel 'speedup'
  plot 'scaling.dat' index 15 using 1:3 with linespoints lw 2 pt 7 ps 0.8 lc rgb '#1b9e77' title 'p2.16xlarge', \
       'scaling.dat' index 16 using 1:3 with linespoints lw 2 pt 7 ps 0.8 lc rgb '#d95f02' title 'p3.8xlarge', \
       'scaling.dat' index 17 using 1:3 with linespoints lw 2 pt 7 ps 0.8 lc rgb '#7570b3' title 'p3.16xlarge', \
       x / 1 with lines dt 2 lw 1.5 lc rgb '#777777' title 'linear'
  set lmargin at screen 0.03868
  set rmargin at screen 0.23679
  set tmargin at screen 0.21387
  set bmargin at screen 0.04046
  set title 'squeezenet1_0'."\n".'throughput'
  set ylabel 'samples/s'
  plot 'scaling.dat' index 18 using 1:2 with linespoints lw 2 pt 7 ps 0.8 lc rgb '#1b9e77' title 'p2.16xlarge', \
       'scaling.dat' index 19 using 1:2 with linespoints lw 2 pt 7 ps 0.8 lc rgb '#d95f02' title 'p3.8xlarge', \
       'scaling.dat' index 20 using 1:2 with linespoints lw 2 pt 7 ps 0.8 lc rgb '#7570b3' title 'p3.16xlarge'
  set lmargin at screen 0.28868
  set rmargin at screen 0.48679
  set tmargin at screen 0.21387
  set bmargin at screen 0.04046
  set title 'squeezenet1_0'."\n".'speedup over 1 instance'
  set ylabel 'speedup'
  plot 'scaling.dat' index 18 using 1:3 with linespoints lw 2 pt 7 ps 0.8 lc rgb '#1b9e77' title 'p2.16xlarge', \
       'scaling.dat' index 19 using 1:3 with linespoints lw 2 pt 7 ps 0.8 lc rgb '#d95f02' title 'p3.8xlarge', \
       'scaling.dat' index 20 using 1:3 with linespoints lw 2 pt 7 ps 0.8 lc rgb '#7570b3' title 'p3.16xlarge', \
       x / 1 with lines dt 2 lw 1.5 lc rgb '#777777' title 'linear'
  unset multiplot
  set output
}
