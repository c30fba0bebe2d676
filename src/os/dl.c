/*
 * dl.c - the one dynamic-library loader (dl.h): dlopen over a list of file
 * names, dlsym over a table of symbols with alternative names, and a
 * one-line reason when a library or a required symbol is missing.
 */
/* The loaders' words: translated only where `gpurent env` sets hw_tr (base/i18n.h). */
#define I18N_HOOK hw_tr
#include "os/dl.h"
#include "base/i18n.h"

#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>


struct dl_lib {
	void *handle;
	char name[256];
};

/* Resolve every symbol into a scratch copy of the caller's table layout:
 * the table itself is only written once the library is kept. Returns the
 * index of the first required symbol missing, or nsyms when all are there. */
static size_t resolve(void *handle, const struct dl_sym *syms, size_t nsyms, void **found)
{
	for (size_t i = 0; i < nsyms; i++) {
		found[i] = NULL;
		for (size_t k = 0; k < DL_MAX_NAMES && syms[i].names[k] && !found[i]; k++)
			found[i] = dlsym(handle, syms[i].names[k]);
		if (!found[i] && syms[i].required)
			return i;
	}
	return nsyms;
}

/* A failure's rank: a later, more telling one replaces an earlier reason. */
static int rank(int code)
{
	return code == DL_ENOSYM ? 3 : code == DL_ELOAD ? 2 : 1;
}

int dl_open(const char *const *libs, size_t nlibs, const struct dl_sym *syms, size_t nsyms,
	    void *table, struct dl_lib **out, char *err, size_t errlen)
{
	struct dl_lib *l;
	void **found = NULL;
	int rc = DL_ENOTFOUND, worst = 0;

	*out = NULL;
	if (errlen)
		err[0] = '\0';
	if (!(l = calloc(1, sizeof(*l))) || (nsyms && !(found = calloc(nsyms, sizeof(*found))))) {
		snprintf(err, errlen, _("out of memory loading %s"), nlibs ? libs[0] : _("a library"));
		rc = DL_ENOMEM;
		goto out_free;
	}
	for (size_t i = 0; i < nlibs; i++) {
		void *h;
		size_t miss;
		int code;
		const char *why;

		dlerror();   /* clear a stale message */
		if (!(h = dlopen(libs[i], RTLD_NOW | RTLD_LOCAL))) {
			why = dlerror();
			/* glibc words a missing file with strerror(ENOENT), in the same locale */
			code = !why || strstr(why, strerror(ENOENT)) ? DL_ENOTFOUND : DL_ELOAD;
			if (rank(code) > worst) {
				worst = rank(code);
				rc = code;
				if (code == DL_ENOTFOUND && nlibs > 1)
					snprintf(err, errlen, _("%s not found (%zu file names tried)"), libs[0], nlibs);
				else if (code == DL_ENOTFOUND)
					snprintf(err, errlen, _("%s not found"), libs[i]);
				else
					snprintf(err, errlen, _("%s: cannot be loaded: %s"), libs[i], why);
			}
			continue;
		}
		if ((miss = resolve(h, syms, nsyms, found)) < nsyms) {
			if (rank(DL_ENOSYM) > worst) {
				worst = rank(DL_ENOSYM);
				rc = DL_ENOSYM;
				snprintf(err, errlen, _("%s lacks %s"), libs[i], syms[miss].names[0]);
			}
			dlclose(h);
			continue;
		}
		/* POSIX guarantees dlsym's object pointers convert to function
		 * pointers; memcpy because ISO C forbids the cast. */
		for (size_t k = 0; k < nsyms; k++)
			memcpy((char *)table + syms[k].off, &found[k], sizeof(found[k]));
		l->handle = h;
		snprintf(l->name, sizeof(l->name), "%s", libs[i]);
		if (errlen)
			err[0] = '\0';
		free(found);
		*out = l;
		return 0;
	}
	if (!nlibs)
		snprintf(err, errlen, "%s", _("no library to load"));
out_free:
	free(found);
	free(l);
	return rc;
}

const char *dl_name(const struct dl_lib *l)
{
	return l ? l->name : "";
}

void dl_close(struct dl_lib *l)
{
	if (!l)
		return;
	dlclose(l->handle);
	free(l);
}

void dl_keep(struct dl_lib *l)
{
	free(l);
}
