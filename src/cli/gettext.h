/*
 * gettext.h - the markers of translatable messages, for now without a
 * translation: _() a message, N_() one marked where it is defined but
 * translated where it is used, Q_() a message with a singular and a
 * plural form chosen by n (ngettext). The message module (GNU gettext,
 * zh_CN first) will own this header and give them their real meaning;
 * until then they are the English text itself.
 */
#ifndef GPURENT_GETTEXT_H
#define GPURENT_GETTEXT_H

#define _(s) (s)
#define N_(s) (s)
#define Q_(s, p, n) ((n) == 1 ? (s) : (p))

#endif
