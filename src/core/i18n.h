/*
 * i18n.h - N_() for src/core's tables: it marks a help string for the
 * message catalog (xgettext --keyword=N_) and is the string itself. The core
 * never translates; the command layer prints the string through msg_tr().
 * The same definition as src/cli/gettext.h's, so both may be included.
 */
#ifndef GPURENT_CORE_I18N_H
#define GPURENT_CORE_I18N_H

#ifndef N_
#define N_(s) s
#endif

#endif
