/*
 * billwords.h - the audit's findings (src/core/books/audit.h) worded: what was
 * found and the fix, whole sentences for gettext.
 */
#ifndef GPURENT_BILLWORDS_H
#define GPURENT_BILLWORDS_H

#include <stddef.h>

#include "core/books/audit.h"

/* One sentence on what f found (amounts in currency) into buf; returns buf. */
char *billwords_finding(const struct audit_finding *f, const char *currency, char *buf, size_t n);

/* The fix for a finding of code c (static string, translated). */
const char *billwords_fix(enum audit_code c);

/* A short title of code c for charts and tables ("Hourly rounding"). */
const char *billwords_title(enum audit_code c);

/* The kind's name as a reader sees it ("GPU time", "storage", ...). */
const char *billwords_kind(enum bill_kind k);

#endif
