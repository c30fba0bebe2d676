/*
 * i18n.c - the core's translation hook (i18n.h): the identity until the
 * command layer's msg_init() sets a gettext wrapper.
 */
#include "i18n.h"

const char *core_tr_identity(const char *msgid)
{
	return msgid;
}

const char *(*core_tr)(const char *msgid) = core_tr_identity;
