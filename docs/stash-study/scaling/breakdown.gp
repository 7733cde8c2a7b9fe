# breakdown: redraw with 'gnuplot breakdown.gp' in this directory (data: breakdown.dat).
do for [fmt in 'png svg'] {
  if (fmt eq 'png') {
    set terminal pngcairo noenhanced size 1756,1464 font 'sans,10' background '#ffffff'
  } else {
    set terminal svg noenhanced size 1756,1464 font 'sans,10' background '#ffffff'
  }
  set output 'breakdown.'.fmt
  reset
  set datafile separator '\t'
  set datafile missing 'NaN'
  set multiplot
  set label 1 'Percent of the iteration, timeline breakdown: where the GPUs'' time goes (label: iteration time)' at screen 0.5, screen 0.99044 center font ',11'
  set lmargin at screen 0.00569
  set rmargin at screen 0.99431
  set tmargin at screen 0.98224
  set bmargin at screen 0.96721
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
  set tmargin at screen 0.93989
  set bmargin at screen 0.78279
  set title 'alexnet'
  set xrange [-0.6:11.6]
  plot 'breakdown.dat' index 0 using 2:xtic(1) lc rgb '#4daf4a' notitle, \
       'breakdown.dat' index 0 using 3:xtic(1) lc rgb '#ff7f00' notitle, \
       'breakdown.dat' index 0 using 4:xtic(1) lc rgb '#a65628' notitle, \
       'breakdown.dat' index 0 using 5:xtic(1) lc rgb '#377eb8' notitle, \
       'breakdown.dat' index 0 using 6:xtic(1) lc rgb '#984ea3' notitle, \
       '' index 0 using 0:(100):(sprintf('%.1f ms', column(7))) with labels offset 0,0.8 font ',8' notitle
  set lmargin at screen 0.54670
  set rmargin at screen 0.98405
  set tmargin at screen 0.93989
  set bmargin at screen 0.78279
  set title 'resnet18'
  set xrange [-0.6:11.6]
  plot 'breakdown.dat' index 1 using 2:xtic(1) lc rgb '#4daf4a' notitle, \
       'breakdown.dat' index 1 using 3:xtic(1) lc rgb '#ff7f00' notitle, \
       'breakdown.dat' index 1 using 4:xtic(1) lc rgb '#a65628' notitle, \
       'breakdown.dat' index 1 using 5:xtic(1) lc rgb '#377eb8' notitle, \
       'breakdown.dat' index 1 using 6:xtic(1) lc rgb '#984ea3' notitle, \
       '' index 1 using 0:(100):(sprintf('%.1f ms', column(7))) with labels offset 0,0.8 font ',8' notitle
  set lmargin at screen 0.04670
  set rmargin at screen 0.48405
  set tmargin at screen 0.69877
  set bmargin at screen 0.54167
  set title 'resnet50'
  set xrange [-0.6:11.6]
  plot 'breakdown.dat' index 2 using 2:xtic(1) lc rgb '#4daf4a' notitle, \
       'breakdown.dat' index 2 using 3:xtic(1) lc rgb '#ff7f00' notitle, \
       'breakdown.dat' index 2 using 4:xtic(1) lc rgb '#a65628' notitle, \
       'breakdown.dat' index 2 using 5:xtic(1) lc rgb '#377eb8' notitle, \
       'breakdown.dat' index 2 using 6:xtic(1) lc rgb '#984ea3' notitle, \
       '' index 2 using 0:(100):(sprintf('%.1f ms', column(7))) with labels offset 0,0.8 font ',8' notitle
  set lmargin at screen 0.54670
  set rmargin at screen 0.98405
  set tmargin at screen 0.69877
  set bmargin at screen 0.54167
  set title 'vgg11'
  set xrange [-0.6:11.6]
  plot 'breakdown.dat' index 3 using 2:xtic(1) lc rgb '#4daf4a' notitle, \
       'breakdown.dat' index 3 using 3:xtic(1) lc rgb '#ff7f00' notitle, \
       'breakdown.dat' index 3 using 4:xtic(1) lc rgb '#a65628' notitle, \
       'breakdown.dat' index 3 using 5:xtic(1) lc rgb '#377eb8' notitle, \
       'breakdown.dat' index 3 using 6:xtic(1) lc rgb '#984ea3' notitle, \
       '' index 3 using 0:(100):(sprintf('%.1f ms', column(7))) with labels offset 0,0.8 font ',8' notitle
  set lmargin at screen 0.04670
  set rmargin at screen 0.48405
  set tmargin at screen 0.45765
  set bmargin at screen 0.30055
  set title 'mobilenet_v2'
  set xrange [-0.6:11.6]
  plot 'breakdown.dat' index 4 using 2:xtic(1) lc rgb '#4daf4a' notitle, \
       'breakdown.dat' index 4 using 3:xtic(1) lc rgb '#ff7f00' notitle, \
       'breakdown.dat' index 4 using 4:xtic(1) lc rgb '#a65628' notitle, \
       'breakdown.dat' index 4 using 5:xtic(1) lc rgb '#377eb8' notitle, \
       'breakdown.dat' index 4 using 6:xtic(1) lc rgb '#984ea3' notitle, \
       '' index 4 using 0:(100):(sprintf('%.1f ms', column(7))) with labels offset 0,0.8 font ',8' notitle
  set lmargin at screen 0.54670
  set rmargin at screen 0.98405
  set tmargin at screen 0.45765
  set bmargin at screen 0.30055
  set title 'shufflenet_v2_x0_5'
  set xrange [-0.6:11.6]
  plot 'breakdown.dat' index 5 using 2:xtic(1) lc rgb '#4daf4a' notitle, \
       'breakdown.dat' index 5 using 3:xtic(1) lc rgb '#ff7f00' notitle, \
       'breakdown.dat' index 5 using 4:xtic(1) lc rgb '#a65628' notitle, \
       'breakdown.dat' index 5 using 5:xtic(1) lc rgb '#377eb8' notitle, \
       'breakdown.dat' index 5 using 6:xtic(1) lc rgb '#984ea3' notitle, \
       '' index 5 using 0:(100):(sprintf('%.1f ms', column(7))) with labels offset 0,0.8 font ',8' notitle
  set lmargin at screen 0.04670
  set rmargin at screen 0.48405
  set tmargin at screen 0.21653
  set bmargin at screen 0.05943
  set title 'squeezenet1_0'
  set xrange [-0.6:11.6]
  plot 'breakdown.dat' index 6 using 2:xtic(1) lc rgb '#4daf4a' notitle, \
       'breakdown.dat' index 6 using 3:xtic(1) lc rgb '#ff7f00' notitle, \
       'breakdown.dat' index 6 using 4:xtic(1) lc rgb '#a65628' notitle, \
       'breakdown.dat' index 6 using 5:xtic(1) lc rgb '#377eb8' notitle, \
       'breakdown.dat' index 6 using 6:xtic(1) lc rgb '#984ea3' notitle, \
       '' index 6 using 0:(100):(sprintf('%.1f ms', column(7))) with labels offset 0,0.8 font ',8' notitle
  unset multiplot
  set output
}
