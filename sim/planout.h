/* planout: what stash-sim plan writes: the ranked table, the plan as JSON or CSV, and the time-cost
 * plot drawn with gnuplot (docs/plan.md). */
#ifndef SS_PLANOUT_H
#define SS_PLANOUT_H

#include "planner.h"

#include <stdio.h>

/* Write the ranked table (table), or the plan as JSON or CSV (a line per row). Returns 0 or SS_EIO. */
int ss_planout_write(FILE* f, const ss_planner* p, ss_format fmt);

/* Whether gnuplot can be run (--plot checks it before simulating): 0, or SS_EIO with "--plot needs
 * gnuplot, which is not on PATH: install it ..." in err. */
int ss_planout_plot_ready(ss_err* err);

/* Draw the time-cost scatter of p's rows (a point style per instance type) and the Pareto front
 * (a line through its points, by time) to path with gnuplot: pngcairo for .png, svg for .svg
 * (option.c refuses other endings). The gnuplot script (data in datablocks) goes to a scratch
 * file; gnuplot writes the temporary file of path's outfile, renamed over path only when gnuplot
 * succeeded. Returns 0, or SS_EIO with err naming path or gnuplot's first line of complaint. */
int ss_planout_plot(const ss_planner* p, const char* path, ss_err* err);

#endif
