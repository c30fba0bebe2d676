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

/* The colour of series j ("#1f77b4" ...), for the tables' legends. */
const char *svg_colour(size_t j);

#endif
