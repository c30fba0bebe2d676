/*
 * release.c - the plan of `gpurent release` (release.h): the paths by
 * category with --keep applied, the platform actions and what a stop
 * keeps billing. No I/O.
 */
#include "release.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "i18n.h"
#include "../util/util.h"

const char *release_cat_name(enum rel_cat c)
{
	static const char *const names[] = {N_("credential"), N_("leftover"), N_("path"), N_("history")};
	_Static_assert(ARRAY_SIZE(names) == REL_CAT_COUNT, "a name per category");
	return (unsigned)c < ARRAY_SIZE(names) ? names[c] : "?";
}

bool release_kept(const char *path, const char *const *keep, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		size_t l = strlen(keep[i]);
		if (l == 1 && keep[i][0] == '/')
			return true;
		while (l > 1 && keep[i][l - 1] == '/')
			l--;
		if (!strncmp(path, keep[i], l) && (path[l] == '\0' || path[l] == '/'))
			return true;
	}
	return false;
}

int release_plan_add(struct rel_plan *p, enum rel_cat cat, const char *path,
		     const char *const *keep, size_t nkeep)
{
	struct rel_item *it;

	if (strlen(path) >= sizeof(p->v[0].path))
		return -1;
	if (release_kept(path, keep, nkeep))
		return 0;
	for (size_t i = 0; i < p->n; i++)
		if (!strcmp(p->v[i].path, path))
			return 0;
	if (util_grow((void **)&p->v, &p->cap, p->n + 1, sizeof(*p->v)))
		return -1;
	it = &p->v[p->n++];
	it->cat = cat;
	memcpy(it->path, path, strlen(path) + 1);
	return 1;
}

void release_plan_sort(struct rel_plan *p)
{
	/* insertion sort: stable, and plans are short */
	for (size_t i = 1; i < p->n; i++) {
		struct rel_item t = p->v[i];
		size_t j = i;
		while (j > 0 && p->v[j - 1].cat > t.cat) {
			p->v[j] = p->v[j - 1];
			j--;
		}
		p->v[j] = t;
	}
}

void release_plan_free(struct rel_plan *p)
{
	free(p->v);
	p->v = NULL;
	p->n = p->cap = 0;
}

const char *const release_histories[] = {
	".bash_history", ".zsh_history", ".python_history", ".local/share/fish/fish_history",
	".lesshst", ".viminfo", ".psql_history", ".mysql_history", ".node_repl_history",
	".sqlite_history", NULL,
};

/* MUST name presets of src/guard/action.c; docs/release.md cites each. */
static const struct rel_action actions[] = {
	{"autodl", REL_STOPS, "autodl", NULL},
	{"aws-release", REL_RELEASES, "aws", NULL},
	{"azure-release", REL_RELEASES, "azure", NULL},
	{"gcp-release", REL_RELEASES, "gcp", NULL},
	{"runpod", REL_STOPS, "runpod", "runpod-release"},
	{"runpod-release", REL_RELEASES, "runpod", NULL},
	{"shutdown", REL_STOPS, NULL, NULL},
	{"slurm", REL_RELEASES, "campus-hpc", NULL},
	{"vastai", REL_STOPS, "vast", "vastai-release"},
	{"vastai-release", REL_RELEASES, "vast", NULL},
};

const struct rel_action *release_action(const char *preset)
{
	for (size_t i = 0; i < ARRAY_SIZE(actions); i++)
		if (!strcmp(actions[i].preset, preset))
			return &actions[i];
	return NULL;
}

const char *release_preset_for(const char *provider, size_t len, bool campus)
{
	static const struct {
		const char *prefix, *preset;
	} map[] = {
		{"runpod", "runpod-release"}, {"vast", "vastai-release"}, {"aws", "aws-release"},
		{"gcp", "gcp-release"}, {"google", "gcp-release"}, {"azure", "azure-release"},
		{"autodl", "autodl"},
	};

	if (campus)
		return "slurm";
	for (size_t i = 0; i < ARRAY_SIZE(map); i++) {
		size_t l = strlen(map[i].prefix);
		if (len >= l && !strncasecmp(provider, map[i].prefix, l))
			return map[i].preset;
	}
	return NULL;
}

double release_stopped_per_day(const struct billing_profile *p, double disk_gb)
{
	double d = 24 * p->stopped_per_hour;

	if (p->storage_bills_stopped && disk_gb > 0)
		d += disk_gb * p->storage_gb_month / 30;
	return d;
}
