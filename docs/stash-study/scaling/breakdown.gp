# breakdown: redraw with 'gnuplot breakdown.gp' in this directory (data: breakdown.dat).
do for [fmt in 'png svg'] {
  if (fmt eq 'png') {
    set terminal pngcairo noenhanced size 1756,2523 font 'sans,10' background '#ffffff'
  } else {
    set terminal svg noenhanced size 1756,2523 font 'sans,10' background '#ffffff'
  }
  set output 'breakdown.'.fmt
  reset
  set datafile separator '\t'
  set datafile missing 'NaN'
  set multiplot
  set label 1 'Percent of the iteration, timeline breakdown: where the GPUs'' time goes (label: iteration time)' at screen 0.5, screen 0.99445 center font ',11'
  set lmargin at screen 0.00569
  set rmargin at screen 0.99431
  set tmargin at screen 0.98969
  set bmargin at screen 0.98098
  set style fill solid 0.9 border rgb '#333333'
  unset border
  unset tics
  set xrange [0:1]
  set yrange [0:1]
  set key center center horizontal Left reverse samplen 2 maxrows 1 width -3
  plot NaN with boxes lc rgb '#4daf4a' title 'compute', NaN with boxes lc rgb '#ff7f00' title 'prep (CPU) stall', NaN with boxes lc rgb '#a65628' title 'fetch (disk) stall', NaN with boxes lc rgb '#377eb8' title 'interconnect stall', NaN with boxes lc rgb '#984ea3' title 'network stall'
  unset label 1
  unset key
  set border
  set tics
  set autoscale
  set style data histograms
  set style histogram rowstacked
  set style fill solid 0.9 border rgb '#333333'
  set boxwidth 0.7
  set yrange [0:112]
  set ytics 0,20,100 nomirror
  set grid ytics lc rgb '#dddddd'
  set ylabel '% of the iteration'
  set xtics nomirror scale 0 rotate by 35 right
  set lmargin at screen 0.04670
  set rmargin at screen 0.48405
  set tmargin at screen 0.96512
  set bmargin at screen 0.87396
  set title 'alexnet, --bucket-mb 0 --async-copy'
  set xrange [-0.6:11.6]
  plot 'breakdown.dat' index 0 using 2:xtic(1) lc rgb '#4daf4a' notitle, \
       'breakdown.dat' index 0 using 3:xtic(1) lc rgb '#ff7f00' notitle, \
       'breakdown.dat' index 0 using 4:xtic(1) lc rgb '#a65628' notitle, \
       'breakdown.dat' index 0 using 5:xtic(1) lc rgb '#377eb8' notitle, \
       'breakdown.dat' index 0 using 6:xtic(1) lc rgb '#984ea3' notitle, \
       '' index 0 using 0:(100):(sprintf('%.1f ms', column(7))) with labels offset 0,0.8 font ',8' notitle
  set lmargin at screen 0.54670
  set rmargin at screen 0.98405
  set tmargin at screen 0.96512
  set bmargin at screen 0.87396
  set title 'resnet18, --bucket-mb 0 --async-copy'
  set xrange [-0.6:11.6]
  plot 'breakdown.dat' index 1 using 2:xtic(1) lc rgb '#4daf4a' notitle, \
       'breakdown.dat' index 1 using 3:xtic(1) lc rgb '#ff7f00' notitle, \
       'breakdown.dat' index 1 using 4:xtic(1) lc rgb '#a65628' notitle, \
       'breakdown.dat' index 1 using 5:xtic(1) lc rgb '#377eb8' notitle, \
       'breakdown.dat' index 1 using 6:xtic(1) lc rgb '#984ea3' notitle, \
       '' index 1 using 0:(100):(sprintf('%.1f ms', column(7))) with labels offset 0,0.8 font ',8' notitle
  set lmargin at screen 0.04670
  set rmargin at screen 0.48405
  set tmargin at screen 0.82521
  set bmargin at screen 0.73405
  set title 'resnet50, --bucket-mb 0 --async-copy'
  set xrange [-0.6:11.6]
  plot 'breakdown.dat' index 2 using 2:xtic(1) lc rgb '#4daf4a' notitle, \
       'breakdown.dat' index 2 using 3:xtic(1) lc rgb '#ff7f00' notitle, \
       'breakdown.dat' index 2 using 4:xtic(1) lc rgb '#a65628' notitle, \
       'breakdown.dat' index 2 using 5:xtic(1) lc rgb '#377eb8' notitle, \
       'breakdown.dat' index 2 using 6:xtic(1) lc rgb '#984ea3' notitle, \
       '' index 2 using 0:(100):(sprintf('%.1f ms', column(7))) with labels offset 0,0.8 font ',8' notitle
  set lmargin at screen 0.54670
  set rmargin at screen 0.98405
  set tmargin at screen 0.82521
  set bmargin at screen 0.73405
  set title 'vgg11, --bucket-mb 0 --async-copy'
  set xrange [-0.6:11.6]
  plot 'breakdown.dat' index 3 using 2:xtic(1) lc rgb '#4daf4a' notitle, \
       'breakdown.dat' index 3 using 3:xtic(1) lc rgb '#ff7f00' notitle, \
       'breakdown.dat' index 3 using 4:xtic(1) lc rgb '#a65628' notitle, \
       'breakdown.dat' index 3 using 5:xtic(1) lc rgb '#377eb8' notitle, \
       'breakdown.dat' index 3 using 6:xtic(1) lc rgb '#984ea3' notitle, \
       '' index 3 using 0:(100):(sprintf('%.1f ms', column(7))) with labels offset 0,0.8 font ',8' notitle
  set lmargin at screen 0.04670
  set rmargin at screen 0.48405
  set tmargin at screen 0.68530
  set bmargin at screen 0.59413
  set title 'mobilenet_v2, --bucket-mb 0 --async-copy'
  set xrange [-0.6:11.6]
  plot 'breakdown.dat' index 4 using 2:xtic(1) lc rgb '#4daf4a' notitle, \
       'breakdown.dat' index 4 using 3:xtic(1) lc rgb '#ff7f00' notitle, \
       'breakdown.dat' index 4 using 4:xtic(1) lc rgb '#a65628' notitle, \
       'breakdown.dat' index 4 using 5:xtic(1) lc rgb '#377eb8' notitle, \
       'breakdown.dat' index 4 using 6:xtic(1) lc rgb '#984ea3' notitle, \
       '' index 4 using 0:(100):(sprintf('%.1f ms', column(7))) with labels offset 0,0.8 font ',8' notitle
  set lmargin at screen 0.54670
  set rmargin at screen 0.98405
  set tmargin at screen 0.68530
  set bmargin at screen 0.59413
  set title 'shufflenet_v2_x0_5, --bucket-mb 0 --async-copy'
  set xrange [-0.6:11.6]
  plot 'breakdown.dat' index 5 using 2:xtic(1) lc rgb '#4daf4a' notitle, \
       'breakdown.dat' index 5 using 3:xtic(1) lc rgb '#ff7f00' notitle, \
       'breakdown.dat' index 5 using 4:xtic(1) lc rgb '#a65628' notitle, \
       'breakdown.dat' index 5 using 5:xtic(1) lc rgb '#377eb8' notitle, \
       'breakdown.dat' index 5 using 6:xtic(1) lc rgb '#984ea3' notitle, \
       '' index 5 using 0:(100):(sprintf('%.1f ms', column(7))) with labels offset 0,0.8 font ',8' notitle
  set lmargin at screen 0.04670
  set rmargin at screen 0.48405
  set tmargin at screen 0.54538
  set bmargin at screen 0.45422
  set title 'squeezenet1_0, --bucket-mb 0 --async-copy'
  set xrange [-0.6:11.6]
  plot 'breakdown.dat' index 6 using 2:xtic(1) lc rgb '#4daf4a' notitle, \
       'breakdown.dat' index 6 using 3:xtic(1) lc rgb '#ff7f00' notitle, \
       'breakdown.dat' index 6 using 4:xtic(1) lc rgb '#a65628' notitle, \
       'breakdown.dat' index 6 using 5:xtic(1) lc rgb '#377eb8' notitle, \
       'breakdown.dat' index 6 using 6:xtic(1) lc rgb '#984ea3' notitle, \
       '' index 6 using 0:(100):(sprintf('%.1f ms', column(7))) with labels offset 0,0.8 font ',8' notitle
  set lmargin at screen 0.54670
  set rmargin at screen 0.98405
  set tmargin at screen 0.54538
  set bmargin at screen 0.45422
  set title 'alexnet, --bucket-mb 0 --async-copy --compute-scale 0.306'
  set xrange [-0.6:7.6]
  plot 'breakdown.dat' index 7 using 2:xtic(1) lc rgb '#4daf4a' notitle, \
       'breakdown.dat' index 7 using 3:xtic(1) lc rgb '#ff7f00' notitle, \
       'breakdown.dat' index 7 using 4:xtic(1) lc rgb '#a65628' notitle, \
       'breakdown.dat' index 7 using 5:xtic(1) lc rgb '#377eb8' notitle, \
       'breakdown.dat' index 7 using 6:xtic(1) lc rgb '#984ea3' notitle, \
       '' index 7 using 0:(100):(sprintf('%.1f ms', column(7))) with labels offset 0,0.8 font ',8' notitle
  set lmargin at screen 0.04670
  set rmargin at screen 0.48405
  set tmargin at screen 0.40547
  set bmargin at screen 0.31431
  set title 'resnet18, --bucket-mb 0 --async-copy --compute-scale 0.306'
  set xrange [-0.6:7.6]
  plot 'breakdown.dat' index 8 using 2:xtic(1) lc rgb '#4daf4a' notitle, \
       'breakdown.dat' index 8 using 3:xtic(1) lc rgb '#ff7f00' notitle, \
       'breakdown.dat' index 8 using 4:xtic(1) lc rgb '#a65628' notitle, \
       'breakdown.dat' index 8 using 5:xtic(1) lc rgb '#377eb8' notitle, \
       'breakdown.dat' index 8 using 6:xtic(1) lc rgb '#984ea3' notitle, \
       '' index 8 using 0:(100):(sprintf('%.1f ms', column(7))) with labels offset 0,0.8 font ',8' notitle
  set lmargin at screen 0.54670
  set rmargin at screen 0.98405
  set tmargin at screen 0.40547
  set bmargin at screen 0.31431
  set title 'resnet50, --bucket-mb 0 --async-copy --compute-scale 0.306'
  set xrange [-0.6:7.6]
  plot 'breakdown.dat' index 9 using 2:xtic(1) lc rgb '#4daf4a' notitle, \
       'breakdown.dat' index 9 using 3:xtic(1) lc rgb '#ff7f00' notitle, \
       'breakdown.dat' index 9 using 4:xtic(1) lc rgb '#a65628' notitle, \
       'breakdown.dat' index 9 using 5:xtic(1) lc rgb '#377eb8' notitle, \
       'breakdown.dat' index 9 using 6:xtic(1) lc rgb '#984ea3' notitle, \
       '' index 9 using 0:(100):(sprintf('%.1f ms', column(7))) with labels offset 0,0.8 font ',8' notitle
  set lmargin at screen 0.04670
  set rmargin at screen 0.48405
  set tmargin at screen 0.26556
  set bmargin at screen 0.17440
  set title 'vgg11, --bucket-mb 0 --async-copy --compute-scale 0.306'
  set xrange [-0.6:7.6]
  plot 'breakdown.dat' index 10 using 2:xtic(1) lc rgb '#4daf4a' notitle, \
       'breakdown.dat' index 10 using 3:xtic(1) lc rgb '#ff7f00' notitle, \
       'breakdown.dat' index 10 using 4:xtic(1) lc rgb '#a65628' notitle, \
       'breakdown.dat' index 10 using 5:xtic(1) lc rgb '#377eb8' notitle, \
       'breakdown.dat' index 10 using 6:xtic(1) lc rgb '#984ea3' notitle, \
       '' index 10 using 0:(100):(sprintf('%.1f ms', column(7))) with labels offset 0,0.8 font ',8' notitle
  set lmargin at screen 0.54670
  set rmargin at screen 0.98405
  set tmargin at screen 0.26556
  set bmargin at screen 0.17440
  set title 'mobilenet_v2, --bucket-mb 0 --async-copy --compute-scale 0.306'
  set xrange [-0.6:7.6]
  plot 'breakdown.dat' index 11 using 2:xtic(1) lc rgb '#4daf4a' notitle, \
       'breakdown.dat' index 11 using 3:xtic(1) lc rgb '#ff7f00' notitle, \
       'breakdown.dat' index 11 using 4:xtic(1) lc rgb '#a65628' notitle, \
       'breakdown.dat' index 11 using 5:xtic(1) lc rgb '#377eb8' notitle, \
       'breakdown.dat' index 11 using 6:xtic(1) lc rgb '#984ea3' notitle, \
       '' index 11 using 0:(100):(sprintf('%.1f ms', column(7))) with labels offset 0,0.8 font ',8' notitle
  set lmargin at screen 0.04670
  set rmargin at screen 0.48405
  set tmargin at screen 0.12564
  set bmargin at screen 0.03448
  set title 'shufflenet_v2_x0_5, --bucket-mb 0 --async-copy --compute-scale 0.306'
  set xrange [-0.6:7.6]
  plot 'breakdown.dat' index 12 using 2:xtic(1) lc rgb '#4daf4a' notitle, \
       'breakdown.dat' index 12 using 3:xtic(1) lc rgb '#ff7f00' notitle, \
       'breakdown.dat' index 12 using 4:xtic(1) lc rgb '#a65628' notitle, \
       'breakdown.dat' index 12 using 5:xtic(1) lc rgb '#377eb8' notitle, \
       'breakdown.dat' index 12 using 6:xtic(1) lc rgb '#984ea3' notitle, \
       '' index 12 using 0:(100):(sprintf('%.1f ms', column(7))) with labels offset 0,0.8 font ',8' notitle
  set lmargin at screen 0.54670
  set rmargin at screen 0.98405
  set tmargin at screen 0.12564
  set bmargin at screen 0.03448
  set title 'squeezenet1_0, --bucket-mb 0 --async-copy --compute-scale 0.306'
  set xrange [-0.6:7.6]
  plot 'breakdown.dat' index 13 using 2:xtic(1) lc rgb '#4daf4a' notitle, \
       'breakdown.dat' index 13 using 3:xtic(1) lc rgb '#ff7f00' notitle, \
       'breakdown.dat' index 13 using 4:xtic(1) lc rgb '#a65628' notitle, \
       'breakdown.dat' index 13 using 5:xtic(1) lc rgb '#377eb8' notitle, \
       'breakdown.dat' index 13 using 6:xtic(1) lc rgb '#984ea3' notitle, \
       '' index 13 using 0:(100):(sprintf('%.1f ms', column(7))) with labels offset 0,0.8 font ',8' notitle
  unset multiplot
  set output
}
