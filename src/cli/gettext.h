/*
 * gettext.h - the translation macros, git's way: _() marks and translates a
 * message, N_() marks one for translation later (tables), Q_() picks the
 * singular or plural form for a count. Every user-visible string of the
 * command layer goes through one of them; src/core never words messages.
 * The runtime is glibc's; msg_init() binds the "gpurent" domain.
 */
#ifndef GPURENT_GETTEXT_H
#define GPURENT_GETTEXT_H

#include <limits.h>   /* defines __GLIBC__ on glibc */

#if defined(__GLIBC__) || defined(GPURENT_NLS)
#include <libintl.h>
#define _(s) gettext(s)
#define Q_(s, p, n) ngettext((s), (p), (unsigned long)(n))
#else
#define _(s) (s)
#define Q_(s, p, n) ((n) == 1 ? (s) : (p))
#endif
/* Bare, as git's: `static const char usage[] = N_("...")` must stay an
 * array initialised by a string literal. */
#define N_(s) s

#endif
