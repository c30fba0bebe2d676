/*
 * svg.h - gpurent's small SVG writer for `gpurent report`: text escaped for
 * XML, a value axis with its unit, stacked vertical bars and ranked
 * horizontal bars. Each chart is one <svg> element with a viewBox (it
 * scales to the page's width) and its numbers in <text class="v">
 * elements, which tests/cli/report.sh reads back. Why our own writer and
 * not a library: docs/report.md.
 */
#ifndef GPURENT_SVG_H
#define GPURENT_SVG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#define SVG_MAX_SERIES 8

/* Write s to f escaped for XML text and attributes (&, <, >, ", ');
 * control bytes other than tab and newline become U+FFFD. */
void svg_escape(FILE *f, const char *s);

/*
 * A stacked bar chart: ncat bars (labels cat[i]) of nser stacked parts
 * (labels ser[j], colours by j), v[i * nser + j] >= 0 (negative parts are
 * drawn as 0; the total label is the sum as given). unit names the value
 * axis ("USD"); title is the chart's accessible name. The total of each
 * bar is printed above it with "%.2f" in a <text class="v">.
 */
void svg_stacked_bars(FILE *f, const char *title, const char *unit, const char *const *cat,
		      size_t ncat, const char *const *ser, size_t nser, const double *v);

/*
 * Ranked horizontal bars: n bars, label[i] and v[i] (>= 0), drawn in the
 * order given, with the value printed "%.2f" in a <text class="v"> at the
 * end of each bar; unit names the axis.
 */
void svg_hbars(FILE *f, const char *title, const char *unit, const char *const *label,
	       const double *v, size_t n);

/*
 * A scatter of n points (x[i], y[i] >= 0), both axes from 0 with their
 * units; the points with front[i] are drawn filled in the second colour
 * and joined in order of x (a Pareto front), each labelled with its y
 * ("%.2f") in a <text class="v">, in order of x.
 */
void svg_scatter(FILE *f, const char *title, const char *xunit, const char *yunit,
		 const double *x, const double *y, const bool *front, size_t n);

/*
 * One horizontal bar of nser stacked parts v[j] (>= 0, labels ser[j]) on a
 * scale that reaches the largest of the bar and the marks; each mark
 * mark[k] is a dashed vertical line labelled "%g" (the memory tiers). The
 * bar's total is printed "%.2f" in a <text class="v">, then each part's
 * value in the legend, also in <text class="v">, in order.
 */
void svg_stack_marks(FILE *f, const char *title, const char *unit, const char *const *ser,
		     const double *v, size_t nser, const double *mark, size_t nmark);

/* The colour of series j ("#1f77b4" ...), for the tables' legends. */
const char *svg_colour(size_t j);

#endif
