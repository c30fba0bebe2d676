/*
 * ckptwords.c - the reasons `gpurent ckpt latest --explain` gives, from
 * the codes of src/core/box/ckpt.c (ckptwords.h), marked with N_() and
 * translated with _(); the text is what it has always printed
 * (tests/cli/ckpt.sh).
 */
#include "cmd/box/ckptwords.h"

#include "base/i18n.h"

const char *ckpt_why_word(enum ckpt_why w)
{
	static const char *const t[CKPT_WHY_COUNT] = {
		[CKPT_WHY_NONE] = "",
		[CKPT_WHY_NO_STEP] = N_("no step number in the name"),
		[CKPT_WHY_TEMP] = N_("a temporary file"),
		[CKPT_WHY_NO_MARKER] = N_("no completion marker (other checkpoints here have one)"),
		[CKPT_WHY_EMPTY_DIR] = N_("an empty directory"),
		[CKPT_WHY_EMPTY_FILE] = N_("an empty file"),
	};
	if ((unsigned)w >= CKPT_WHY_COUNT)
		return "?";
	return t[w][0] ? _(t[w]) : "";
}

void ckpt_word_classes(struct ckpt_class *c, size_t n)
{
	for (size_t i = 0; i < n; i++)
		c[i].why = ckpt_why_word(c[i].code);
}
