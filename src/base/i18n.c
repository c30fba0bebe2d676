/*
 * i18n.c - the translation hooks (i18n.h): the identities until the
 * command kit's msg_init() sets gettext wrappers.
 */
#include "base/i18n.h"

const char *core_tr_identity(const char *msgid)
{
	return msgid;
}

const char *core_ntr_identity(const char *s, const char *p, unsigned long n)
{
	return n == 1 ? s : p;
}

const char *(*core_tr)(const char *msgid) = core_tr_identity;
const char *(*hw_tr)(const char *msgid) = core_tr_identity;
const char *(*core_ntr)(const char *s, const char *p, unsigned long n) = core_ntr_identity;
