/*
 * i18n.h - the one way to mark a translatable string, git's way:
 *
 *   _("...")        marks a message and translates it when it is used;
 *   N_("...")       marks one for later (a table's strings; printed through
 *                   msg_tr()); the string itself, so it may initialise arrays;
 *   Q_(s, p, n)     picks the singular or plural form for a count.
 *
 * xgettext reads these three keywords (po/po.mk). Translation goes through a
 * hook: the identity here (src/base and src/core have no I/O and link alone
 * into unit tests and fuzzers), set to gettext by the command kit's
 * msg_init() (src/kit/msg.c) and back to the identity by
 * msg_untranslated() (--json, the ledger). A format is translated before
 * it is formatted: snprintf(err, errlen, _("%s:%zu: %s: expected a number"), ...).
 *
 * The hardware loaders (src/os/dl.c, src/hw/nvml.c, src/hw/cuda.c) define
 * I18N_HOOK as hw_tr before their first include: their words are shown in
 * the user's language only by `gpurent env`, which sets hw_tr; everywhere
 * else (bench, run, probe, JSON, the ledger) they stay English.
 */
#ifndef GPURENT_BASE_I18N_H
#define GPURENT_BASE_I18N_H

/* The translation hooks: never NULL; each returns s or its translation. */
extern const char *(*core_tr)(const char *msgid);
extern const char *(*hw_tr)(const char *msgid);
/* The plural hook: s when n == 1, else p, or their translation. */
extern const char *(*core_ntr)(const char *s, const char *p, unsigned long n);

/* The identities, the hooks' values until the command kit sets them. */
const char *core_tr_identity(const char *msgid);
const char *core_ntr_identity(const char *s, const char *p, unsigned long n);

/* format_arg: gcc checks the literal's specifiers against the arguments. */
__attribute__((format_arg(2))) static inline const char *i18n_tr(const char *(*hook)(const char *),
								 const char *s)
{
	return hook(s);
}
__attribute__((format_arg(1), format_arg(2))) static inline const char *i18n_ntr(const char *s,
										 const char *p,
										 unsigned long n)
{
	return core_ntr(s, p, n);
}

#ifndef I18N_HOOK
#define I18N_HOOK core_tr
#endif

#define _(s) i18n_tr(I18N_HOOK, s)
#define Q_(s, p, n) i18n_ntr((s), (p), (unsigned long)(n))
/* Bare, as git's: `static const char usage[] = N_("...")` must stay an
 * array initialised by a string literal. */
#define N_(s) s

#endif
