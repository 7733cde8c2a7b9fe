set terminal pngcairo noenhanced size 800,520 font 'DejaVu Sans,11' background '#ffffff'
set output 'init.png'
set title 'Start-up reads from shared storage against training time (8 servers)'
set xlabel 'workers (one V100 each)'
set ylabel 'seconds'
set logscale x 2
set logscale y
set key top center
set grid
plot 'init.dat' index 0 using 1:2 with linespoints lw 2 pt 7 title 'sequential start-up', 'init.dat' index 1 using 1:2 with linespoints lw 2 pt 7 title 'parallel start-up', 'init.dat' index 0 using 1:3 with linespoints lw 2 pt 5 dt 2 title 'training (1e6 samples)'
unset output
set terminal svg noenhanced size 800,520 font 'DejaVu Sans,11' background '#ffffff'
set output 'init.svg'
set title 'Start-up reads from shared storage against training time (8 servers)'
set xlabel 'workers (one V100 each)'
set ylabel 'seconds'
set logscale x 2
set logscale y
set key top center
set grid
plot 'init.dat' index 0 using 1:2 with linespoints lw 2 pt 7 title 'sequential start-up', 'init.dat' index 1 using 1:2 with linespoints lw 2 pt 7 title 'parallel start-up', 'init.dat' index 0 using 1:3 with linespoints lw 2 pt 5 dt 2 title 'training (1e6 samples)'
unset output
