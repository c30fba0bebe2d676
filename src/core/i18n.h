/*
 * i18n.h - the core's two translation marks.
 *
 * N_() marks a help string of src/core's tables for the message catalog
 * (xgettext --keyword=N_) and is the string itself; the command layer prints
 * it through msg_tr().
 *
 * CE_() marks an error or warning format the core words itself
 * (xgettext --keyword=CE_) and translates it through core_tr, a hook: an
 * identity function here (the core has no I/O and is linked alone into unit
 * tests and fuzzers), set to a gettext wrapper by the command layer's
 * msg_init() (src/cli/msg.c). A format is passed through it before
 * formatting: snprintf(err, errlen, CE_("%s:%zu: %s: expected a number"), ...).
 * The same N_() definition as src/cli/gettext.h's, so both may be included.
 */
#ifndef GPURENT_CORE_I18N_H
#define GPURENT_CORE_I18N_H

#ifndef N_
#define N_(s) s
#endif

/* The translation hook: never NULL; returns s or its translation. */
extern const char *(*core_tr)(const char *msgid);

/* The identity, core_tr's value until the command layer sets it. */
const char *core_tr_identity(const char *msgid);

/* format_arg: gcc checks the literal's specifiers against the arguments. */
__attribute__((format_arg(1))) static inline const char *core_tr_fmt(const char *s)
{
	return core_tr(s);
}

#define CE_(s) core_tr_fmt(s)

#endif
