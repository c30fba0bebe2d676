/*
 * svg.c - the report's SVG charts (svg.h): fixed layouts in a viewBox,
 * "nice" axis ticks (1, 2, 5 x 10^k), text escaped for XML.
 */
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/i18n.h"
#include "cmd/books/svg.h"

/* Colour-blind-safe palette (Okabe & Ito, "Color Universal Design", 2008). */
static const char *const palette[SVG_MAX_SERIES] = {
	"#0072B2", "#E69F00", "#009E73", "#CC79A7", "#56B4E9", "#D55E00", "#F0E442", "#000000",
};

const char *svg_colour(size_t j)
{
	return palette[j % SVG_MAX_SERIES];
}

void svg_escape(FILE *f, const char *s)
{
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		switch (*p) {
		case '&': fputs("&amp;", f); break;
		case '<': fputs("&lt;", f); break;
		case '>': fputs("&gt;", f); break;
		case '"': fputs("&quot;", f); break;
		case '\'': fputs("&#39;", f); break;
		default:
			if ((*p < 0x20 && *p != '\t' && *p != '\n') || *p == 0x7f)
				fputs("\xEF\xBF\xBD", f);
			else
				fputc(*p, f);
		}
	}
}

/* The tick step for an axis from 0 to max with about n ticks: 1, 2 or 5 x 10^k. */
static double nice_step(double max, int n)
{
	double raw = max / n, mag, r;

	if (!(raw > 0) || !isfinite(raw))
		return 1;
	mag = pow(10, floor(log10(raw)));
	r = raw / mag;
	return (r <= 1 ? 1 : r <= 2 ? 2 : r <= 5 ? 5 : 10) * mag;
}

/* An axis from 0 to max (nothing above 0: to 1) in about n ticks: its top,
 * a whole number of *step. */
static double axis_top(double max, int n, double *step)
{
	double m = max > 0 ? max : 1;

	*step = nice_step(m, n);
	return ceil(m / *step) * *step;
}

static void begin(FILE *f, const char *title, int w, int h)
{
	fprintf(f, "<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 %d %d\" width=\"%d\" "
		"height=\"%d\" role=\"img\" font-family=\"sans-serif\" font-size=\"12\"><title>", w, h, w, h);
	svg_escape(f, title);
	fprintf(f, "</title><rect width=\"%d\" height=\"%d\" fill=\"#ffffff\"/>\n", w, h);
}

/* A chart with nothing to draw says so in its middle. */
static void nothing(FILE *f, int w, int h)
{
	fprintf(f, "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\" fill=\"#777777\">", w / 2, h / 2);
	svg_escape(f, _("nothing recorded yet"));
	fputs("</text>\n", f);
}

static void tick_label(char *buf, size_t n, double v)
{
	if (fabs(v) >= 1e6 || (v != 0 && fabs(v) < 0.01))
		snprintf(buf, n, "%.3g", v);
	else
		snprintf(buf, n, "%g", v);
}

/* Plot area of the vertical charts. */
enum { W = 640, H = 320, ML = 64, MR = 16, MT = 28, MB = 64 };

/* The value axis of a vertical chart, ph high: a grid line and a label at
 * each step from 0 to top. */
static void y_grid(FILE *f, double top, double step, double ph)
{
	char lab[32];

	for (double t = 0; t <= top + step / 2; t += step) {
		double y = MT + ph - ph * t / top;
		tick_label(lab, sizeof(lab), t);
		fprintf(f, "<line x1=\"%d\" x2=\"%d\" y1=\"%.1f\" y2=\"%.1f\" stroke=\"#dddddd\"/>"
			"<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\" fill=\"#333333\">%s</text>\n",
			ML, W - MR, y, y, ML - 6, y + 4, lab);
	}
}

void svg_stacked_bars(FILE *f, const char *title, const char *unit, const char *const *cat,
		      size_t ncat, const char *const *ser, size_t nser, const double *v)
{
	double max = 0, step, top;
	double pw = W - ML - MR, ph = H - MT - MB, bw;

	for (size_t i = 0; i < ncat; i++) {
		double t = 0;
		for (size_t j = 0; j < nser; j++)
			t += v[i * nser + j] > 0 ? v[i * nser + j] : 0;
		if (t > max)
			max = t;
	}
	top = axis_top(max, 5, &step);
	begin(f, title, W, H);
	/* the value axis: ticks, grid, unit */
	y_grid(f, top, step, ph);
	fprintf(f, "<text x=\"14\" y=\"%d\" transform=\"rotate(-90 14 %d)\" text-anchor=\"middle\" "
		"fill=\"#333333\">", MT + H / 2 - MB / 2, MT + H / 2 - MB / 2);
	svg_escape(f, unit);
	fputs("</text>\n", f);
	fprintf(f, "<line x1=\"%d\" x2=\"%d\" y1=\"%.1f\" y2=\"%.1f\" stroke=\"#333333\"/>\n", ML,
		W - MR, MT + ph, MT + ph);
	bw = ncat ? pw / (double)ncat : pw;
	for (size_t i = 0; i < ncat; i++) {
		double x = ML + bw * (double)i + bw * 0.15, y = MT + ph, total = 0;
		for (size_t j = 0; j < nser; j++) {
			double a = v[i * nser + j], hgt = a > 0 ? ph * a / top : 0;
			total += a;
			if (hgt <= 0)
				continue;
			y -= hgt;
			fprintf(f, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"%s\">"
				"<title>", x, y, bw * 0.7, hgt, svg_colour(j));
			svg_escape(f, cat[i]);
			fputs(" ", f);
			svg_escape(f, ser[j]);
			fprintf(f, ": %.2f</title></rect>\n", a);
		}
		fprintf(f, "<text class=\"v\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\" "
			"fill=\"#000000\">%.2f</text>\n", x + bw * 0.35, y - 4, total);
		fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\" fill=\"#333333\" "
			"transform=\"rotate(-30 %.1f %.1f)\">", x + bw * 0.35, MT + ph + 16, x + bw * 0.35,
			MT + ph + 16);
		svg_escape(f, cat[i]);
		fputs("</text>\n", f);
	}
	if (!ncat)
		nothing(f, W, H);
	/* the legend */
	for (size_t j = 0, lx = ML; j < nser; j++) {
		fprintf(f, "<rect x=\"%zu\" y=\"8\" width=\"10\" height=\"10\" fill=\"%s\"/>"
			"<text x=\"%zu\" y=\"17\" fill=\"#333333\">", lx, svg_colour(j), lx + 14);
		svg_escape(f, ser[j]);
		fputs("</text>\n", f);
		lx += 14 + 8 * strlen(ser[j]) + 12;
	}
	fputs("</svg>\n", f);
}

void svg_hbars(FILE *f, const char *title, const char *unit, const char *const *label,
	       const double *v, size_t n)
{
	enum { LW = 200, ROW = 26 };
	int h = MT + (int)(n ? n : 1) * ROW + 40;
	double max = 0, step, top, pw = W - LW - MR - 48;
	char lab[32];

	for (size_t i = 0; i < n; i++)
		if (v[i] > max)
			max = v[i];
	top = axis_top(max, 4, &step);
	begin(f, title, W, h);
	for (double t = 0; t <= top + step / 2; t += step) {
		double x = LW + pw * t / top;
		tick_label(lab, sizeof(lab), t);
		fprintf(f, "<line x1=\"%.1f\" x2=\"%.1f\" y1=\"%d\" y2=\"%d\" stroke=\"#dddddd\"/>"
			"<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\" fill=\"#333333\">%s</text>\n",
			x, x, MT - 8, h - 34, x, h - 20, lab);
	}
	fprintf(f, "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\" fill=\"#333333\">", LW + pw / 2,
		h - 4);
	svg_escape(f, unit);
	fputs("</text>\n", f);
	for (size_t i = 0; i < n; i++) {
		double y = MT + (double)i * ROW, wd = v[i] > 0 ? pw * v[i] / top : 0;
		fprintf(f, "<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\" fill=\"#333333\">", LW - 8,
			y + 16);
		svg_escape(f, label[i]);
		fprintf(f, "</text><rect x=\"%d\" y=\"%.1f\" width=\"%.1f\" height=\"18\" fill=\"%s\"/>"
			"<text class=\"v\" x=\"%.1f\" y=\"%.1f\" fill=\"#000000\">%.2f</text>\n",
			LW, y + 3, wd, svg_colour(0), LW + wd + 4, y + 16, v[i]);
	}
	if (!n)
		nothing(f, W, h);
	fputs("</svg>\n", f);
}

void svg_scatter(FILE *f, const char *title, const char *xunit, const char *yunit,
		 const double *x, const double *y, const bool *front, size_t n)
{
	double xmax = 0, ymax = 0, xs, ys, xt, yt, pw = W - ML - MR, ph = H - MT - MB;
	double px = 0, py = 0;
	bool have_prev = false, *done = NULL;
	char lab[32];

	for (size_t i = 0; i < n; i++) {
		if (x[i] > xmax)
			xmax = x[i];
		if (y[i] > ymax)
			ymax = y[i];
	}
	xt = axis_top(xmax, 5, &xs);
	yt = axis_top(ymax, 5, &ys);
	begin(f, title, W, H);
	y_grid(f, yt, ys, ph);
	for (double t = 0; t <= xt + xs / 2; t += xs) {
		double xx = ML + pw * t / xt;
		tick_label(lab, sizeof(lab), t);
		fprintf(f, "<line x1=\"%.1f\" x2=\"%.1f\" y1=\"%d\" y2=\"%.1f\" stroke=\"#eeeeee\"/>"
			"<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\" fill=\"#333333\">%s</text>\n",
			xx, xx, MT, MT + ph, xx, MT + ph + 16, lab);
	}
	fprintf(f, "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\" fill=\"#333333\">", ML + pw / 2,
		H - 24);
	svg_escape(f, xunit);
	fprintf(f, "</text><text x=\"14\" y=\"%d\" transform=\"rotate(-90 14 %d)\" "
		"text-anchor=\"middle\" fill=\"#333333\">", MT + (int)ph / 2, MT + (int)ph / 2);
	svg_escape(f, yunit);
	fputs("</text>\n", f);
	/* the legend: the front filled, the other offers hollow */
	fprintf(f, "<circle cx=\"%d\" cy=\"12\" r=\"5\" fill=\"%s\"/><text x=\"%d\" y=\"16\" "
		"fill=\"#333333\">", ML + 6, svg_colour(1), ML + 16);
	svg_escape(f, _("Pareto front"));
	fprintf(f, "</text><circle cx=\"%d\" cy=\"12\" r=\"3.5\" fill=\"none\" stroke=\"%s\"/>"
		"<text x=\"%d\" y=\"16\" fill=\"#333333\">", ML + 126, svg_colour(0), ML + 136);
	svg_escape(f, _("other feasible offers"));
	fputs("</text>\n", f);
	for (size_t i = 0; i < n; i++)
		if (!front[i])
			fprintf(f, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"3.5\" fill=\"none\" stroke=\"%s\"/>\n",
				ML + pw * x[i] / xt, MT + ph - ph * y[i] / yt, svg_colour(0));
	/* the front, in order of x: a line through it, then its points */
	if (n && !(done = calloc(n, sizeof(*done))))
		n = 0;
	for (;;) {
		size_t best = n;
		for (size_t i = 0; i < n; i++)
			if (front[i] && !done[i] && (best == n || x[i] < x[best]))
				best = i;
		if (best == n)
			break;
		done[best] = true;
		{
			double cx = ML + pw * x[best] / xt, cy = MT + ph - ph * y[best] / yt;
			if (have_prev)
				fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\" "
					"stroke-width=\"2\"/>\n", px, py, cx, cy, svg_colour(1));
			fprintf(f, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"5\" fill=\"%s\"/>"
				"<text class=\"v\" x=\"%.1f\" y=\"%.1f\" fill=\"#000000\" stroke=\"#ffffff\" "
				"stroke-width=\"3\" paint-order=\"stroke\">%.2f</text>\n",
				cx, cy, svg_colour(1), cx + 7, cy - 7, y[best]);
			px = cx;
			py = cy;
			have_prev = true;
		}
	}
	free(done);
	if (!n)
		nothing(f, W, H);
	fputs("</svg>\n", f);
}

void svg_stack_marks(FILE *f, const char *title, const char *unit, const char *const *ser,
		     const double *v, size_t nser, const double *mark, size_t nmark)
{
	enum { BY = 40, BH = 36 };
	double total = 0, max, step, top, pw = W - ML - MR, x = ML;
	int h = BY + BH + 40 + (int)((nser + 1) / 2) * 20 + 8;
	char lab[32];

	for (size_t j = 0; j < nser; j++)
		total += v[j] > 0 ? v[j] : 0;
	max = total;
	for (size_t k = 0; k < nmark; k++)
		if (mark[k] > max)
			max = mark[k];
	top = axis_top(max, 6, &step);
	begin(f, title, W, h);
	for (double t = 0; t <= top + step / 2; t += step) {
		double xx = ML + pw * t / top;
		tick_label(lab, sizeof(lab), t);
		fprintf(f, "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\" fill=\"#333333\">%s</text>\n",
			xx, BY + BH + 30, lab);
	}
	fprintf(f, "<text x=\"%d\" y=\"%d\" text-anchor=\"end\" fill=\"#333333\">", W - MR,
		BY + BH + 30 + 14);
	svg_escape(f, unit);
	fputs("</text>\n", f);
	for (size_t j = 0; j < nser; j++) {
		double wd = v[j] > 0 ? pw * v[j] / top : 0;
		if (wd > 0)
			fprintf(f, "<rect x=\"%.1f\" y=\"%d\" width=\"%.1f\" height=\"%d\" fill=\"%s\"/>\n",
				x, BY, wd, BH, svg_colour(j));
		x += wd;
	}
	fprintf(f, "<text class=\"v\" x=\"%.1f\" y=\"%d\" fill=\"#000000\" font-weight=\"bold\" "
		"stroke=\"#ffffff\" stroke-width=\"3\" paint-order=\"stroke\">%.2f</text>\n",
		x + 4 > W - 60 ? (double)(W - 60) : x + 4, BY + BH / 2 + 4, total);
	for (size_t k = 0; k < nmark; k++) {
		double xx = ML + pw * mark[k] / top;
		tick_label(lab, sizeof(lab), mark[k]);
		fprintf(f, "<line x1=\"%.1f\" x2=\"%.1f\" y1=\"%d\" y2=\"%d\" stroke=\"#333333\" "
			"stroke-dasharray=\"3 3\"/><text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\" "
			"font-size=\"10\" fill=\"#333333\">%s</text>\n",
			xx, xx, BY - 4, BY + BH + 6, xx, BY - 8, lab);
	}
	for (size_t j = 0; j < nser; j++) {
		int lx = ML + (int)(j % 2) * 280, ly = BY + BH + 60 + (int)(j / 2) * 20;
		fprintf(f, "<rect x=\"%d\" y=\"%d\" width=\"10\" height=\"10\" fill=\"%s\"/>"
			"<text x=\"%d\" y=\"%d\" fill=\"#333333\">", lx, ly - 9, svg_colour(j), lx + 14, ly);
		svg_escape(f, ser[j]);
		fprintf(f, " <tspan class=\"v\">%.2f</tspan></text>\n", v[j]);
	}
	fputs("</svg>\n", f);
}
