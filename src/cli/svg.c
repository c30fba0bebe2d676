/*
 * svg.c - the report's SVG charts (svg.h): fixed layouts in a viewBox,
 * "nice" axis ticks (1, 2, 5 x 10^k), text escaped for XML.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "svg.h"

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

static void begin(FILE *f, const char *title, int w, int h)
{
	fprintf(f, "<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 %d %d\" width=\"%d\" "
		"height=\"%d\" role=\"img\" font-family=\"sans-serif\" font-size=\"12\"><title>", w, h, w, h);
	svg_escape(f, title);
	fprintf(f, "</title><rect width=\"%d\" height=\"%d\" fill=\"#ffffff\"/>\n", w, h);
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

void svg_stacked_bars(FILE *f, const char *title, const char *unit, const char *const *cat,
		      size_t ncat, const char *const *ser, size_t nser, const double *v)
{
	double max = 0, step, top;
	double pw = W - ML - MR, ph = H - MT - MB, bw;
	char lab[32];

	for (size_t i = 0; i < ncat; i++) {
		double t = 0;
		for (size_t j = 0; j < nser; j++)
			t += v[i * nser + j] > 0 ? v[i * nser + j] : 0;
		if (t > max)
			max = t;
	}
	step = nice_step(max > 0 ? max : 1, 5);
	top = ceil((max > 0 ? max : 1) / step) * step;
	begin(f, title, W, H);
	/* the value axis: ticks, grid, unit */
	for (double t = 0; t <= top + step / 2; t += step) {
		double y = MT + ph - ph * t / top;
		tick_label(lab, sizeof(lab), t);
		fprintf(f, "<line x1=\"%d\" x2=\"%d\" y1=\"%.1f\" y2=\"%.1f\" stroke=\"#dddddd\"/>"
			"<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\" fill=\"#333333\">%s</text>\n",
			ML, W - MR, y, y, ML - 6, y + 4, lab);
	}
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
	step = nice_step(max > 0 ? max : 1, 4);
	top = ceil((max > 0 ? max : 1) / step) * step;
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
	fputs("</svg>\n", f);
}
