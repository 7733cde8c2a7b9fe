set terminal pngcairo noenhanced size 800,520 font 'DejaVu Sans,11' background '#ffffff'
set output 'servers.png'
set title 'ASGD with parameter servers: throughput against workers (MobileNetV2, p3.2xlarge workers)'
set xlabel 'workers (one V100 each)'
set ylabel 'samples/s'
set logscale x 2
set key top left
set grid
plot 'servers.dat' index 0 using 1:2 with linespoints lw 2 pt 7 title '1 server', 'servers.dat' index 1 using 1:2 with linespoints lw 2 pt 7 title '2 servers', 'servers.dat' index 2 using 1:2 with linespoints lw 2 pt 7 title '4 servers', 'servers.dat' index 3 using 1:2 with linespoints lw 2 pt 7 title '8 servers'
unset output
set terminal svg noenhanced size 800,520 font 'DejaVu Sans,11' background '#ffffff'
set output 'servers.svg'
set title 'ASGD with parameter servers: throughput against workers (MobileNetV2, p3.2xlarge workers)'
set xlabel 'workers (one V100 each)'
set ylabel 'samples/s'
set logscale x 2
set key top left
set grid
plot 'servers.dat' index 0 using 1:2 with linespoints lw 2 pt 7 title '1 server', 'servers.dat' index 1 using 1:2 with linespoints lw 2 pt 7 title '2 servers', 'servers.dat' index 2 using 1:2 with linespoints lw 2 pt 7 title '4 servers', 'servers.dat' index 3 using 1:2 with linespoints lw 2 pt 7 title '8 servers'
unset output
