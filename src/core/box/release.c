/*
 * release.c - the plan of `gpurent release` (release.h): the paths by
 * category with --keep applied, the platform actions and what a stop
 * keeps billing. No I/O.
 */
#include "core/box/release.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "core/text/csv.h"
#include "base/i18n.h"
#include "base/util.h"

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

bool release_action(const char *preset, struct rel_action *out)
{
	const struct provider_preset *p = provider_preset_find(preset);
	const struct provider *pv = provider_of_preset(p);

	if (!p || !pv)
		return false;
	out->preset = p->name;
	out->effect = p->effect;
	out->billing = pv->billing;
	out->better = p == &pv->stop ? pv->release.name : NULL;
	return true;
}

const char *release_preset_for(const char *provider, size_t len, bool campus)
{
	const struct provider *p = NULL;

	if (!campus)
		p = provider_by_prefix(provider, len);
	for (size_t i = 0; campus && !p && i < providers_n; i++)
		if (providers[i].supply == SUPPLY_CAMPUS_HPC)
			p = &providers[i];
	if (!p)
		return NULL;
	return p->release.name ? p->release.name : p->stop.name;
}

double release_stopped_per_day(const struct billing_profile *p, double disk_gb)
{
	double d = 24 * p->stopped_per_hour;

	if (p->storage_bills_stopped && disk_gb > 0)
		d += disk_gb * p->storage_gb_month / 30;
	return d;
}

bool release_within(const char *path, const char *dir)
{
	size_t l = strlen(dir);

	if (l == 1 && dir[0] == '/')
		return path[0] == '/';
	return !strncmp(path, dir, l) && (path[l] == '\0' || path[l] == '/');
}

enum rel_scope release_scope(const struct rel_host *h)
{
	if (h->wipe)
		return REL_SCOPE_WIPE;
	if (h->slurm_job)
		return REL_SCOPE_SLURM_JOB;
	if (h->home_fstype)
		return REL_SCOPE_NETWORK_HOME;
	if (h->action && h->action->effect != REL_RELEASES)
		return REL_SCOPE_STOP_ONLY;
	if (!h->command && !(h->action && h->action->effect == REL_RELEASES))
		return REL_SCOPE_NO_RELEASE;
	return REL_SCOPE_WIPE;
}

bool release_network_fs(const char *type)
{
	/* MUST stay sorted (bsearch-free, but kept so for reading): the
	 * filesystems of mount(8), nfs(5), Lustre, IBM Storage Scale (gpfs),
	 * BeeGFS, CephFS, GlusterFS, OrangeFS, WekaFS, AFS, SMB and FUSE's
	 * network clients */
	static const char *const net[] = {
		"9p", "afs", "beegfs", "ceph", "cifs", "cvfs", "davfs", "glusterfs", "gpfs",
		"juicefs", "lustre", "ncpfs", "nfs", "nfs4", "ocfs2", "orangefs", "panfs",
		"pvfs2", "s3fs", "smb3", "smbfs", "sshfs", "wekafs",
	};

	if (!type)
		return false;
	if (!strncmp(type, "fuse.", 5))
		type += 5;
	for (size_t i = 0; i < ARRAY_SIZE(net); i++)
		if (!strcmp(type, net[i]))
			return true;
	return false;
}

static void copy_cut(char *out, size_t n, const char *s)
{
	if (n)
		snprintf(out, n, "%s", s);
}

/* Field of a mount table line into out (n bytes), octal escapes (\040)
 * decoded; advances *p past it and the blanks after. false when cut short. */
static bool mount_field(const char **p, const char *end, char *out, size_t n)
{
	size_t k = 0;
	const char *s = *p;
	bool whole = true;

	while (s < end && *s != ' ' && *s != '\t') {
		char c = *s++;
		if (c == '\\' && end - s >= 3 && s[0] >= '0' && s[0] <= '3' && s[1] >= '0' && s[1] <= '7' &&
		    s[2] >= '0' && s[2] <= '7') {
			c = (char)((s[0] - '0') * 64 + (s[1] - '0') * 8 + (s[2] - '0'));
			s += 3;
		}
		if (k + 1 < n)
			out[k++] = c;
		else
			whole = false;
	}
	out[k] = '\0';
	while (s < end && (*s == ' ' || *s == '\t'))
		s++;
	*p = s;
	return whole;
}

int release_mount_of(const char *table, size_t len, const char *path, char *mnt, size_t mntlen,
		     char *type, size_t typelen, char *source, size_t sourcelen, bool *is_mount_point)
{
	enum { NF = 16 };
	char f[NF][1024];
	const char *p = table, *end = table + len;
	size_t best = 0;
	int found = 0;

	if (is_mount_point)
		*is_mount_point = false;
	while (p < end) {
		const char *eol = memchr(p, '\n', (size_t)(end - p)), *q = p, *mp, *ty, *src;
		int nf = 0, dash = -1;
		bool whole = true;

		if (!eol)
			eol = end;
		p = eol < end ? eol + 1 : end;
		/* mountinfo: ID PARENT MAJ:MIN ROOT MOUNT OPTS [TAGS...] - TYPE SOURCE SUPER;
		 * mounts (fstab's format): SOURCE MOUNT TYPE OPTS FREQ PASS */
		while (q < eol && (*q == ' ' || *q == '\t'))
			q++;
		if (q < eol && *q == '#')
			continue;
		while (q < eol && nf < NF) {
			whole &= mount_field(&q, eol, f[nf], sizeof(f[0]));
			if (nf >= 6 && dash < 0 && !strcmp(f[nf], "-"))
				dash = nf;
			nf++;
		}
		if (!whole)
			continue;   /* a field cut short would name another mount */
		if (dash >= 0 && nf >= dash + 3) {
			mp = f[4], ty = f[dash + 1], src = f[dash + 2];
		} else if (dash < 0 && nf >= 3 && nf <= 6) {
			mp = f[1], ty = f[2], src = f[0];
		} else {
			continue;
		}
		if (mp[0] != '/' || !release_within(path, mp) || strlen(mp) < best)
			continue;
		best = strlen(mp);
		copy_cut(mnt, mntlen, mp);
		copy_cut(type, typelen, ty);
		copy_cut(source, sourcelen, src);
		found = 1;
		if (is_mount_point)
			*is_mount_point = !strcmp(mp, path);
	}
	return found;
}

int release_leftovers_load(const char *buf, size_t len, const char *fname, struct rel_leftovers *out,
			   char *err, size_t errlen)
{
	static const char *const cols[] = {"preset", "keeps", "remove", "source"};
	struct csv *c = calloc(1, sizeof(*c));
	int ci[ARRAY_SIZE(cols)];

	memset(out, 0, sizeof(*out));
	if (!c) {
		snprintf(err, errlen, _("out of memory"));
		return -1;
	}
	if (csv_parse(buf, len, c, err, errlen)) {
		free(c);
		return -1;
	}
	for (size_t k = 0; k < ARRAY_SIZE(cols); k++)
		if ((ci[k] = csv_col(c, cols[k])) < 0) {
			snprintf(err, errlen, _("%s:%zu: %s: expected this column in the header"), fname,
				 c->header_line, cols[k]);
			goto out_free;
		}
	if (c->nrows && !(out->v = calloc(c->nrows, sizeof(*out->v)))) {
		snprintf(err, errlen, _("out of memory"));
		goto out_free;
	}
	for (size_t i = 0; i < c->nrows; i++) {
		const struct csv_row *r = &c->rows[i];
		const struct provider_preset *a;
		const char *f[ARRAY_SIZE(cols)];
		if (r->nfields != c->ncols) {
			snprintf(err, errlen, _("%s:%zu: expected %zu fields, got %zu"), fname, r->line,
				 c->ncols, r->nfields);
			goto out_free;
		}
		for (size_t k = 0; k < ARRAY_SIZE(cols); k++)
			if (!*(f[k] = csv_get(r, ci[k]))) {
				snprintf(err, errlen, _("%s:%zu: %s: expected a value"), fname, r->line, cols[k]);
				goto out_free;
			}
		if (!(a = provider_preset_find(f[0])) || a->effect != REL_RELEASES) {
			snprintf(err, errlen, _("%s:%zu: preset: expected a preset that releases (such as "
						  "aws-release), got '%s'"), fname, r->line, f[0]);
			goto out_free;
		}
		out->v[out->n++] = (struct rel_leftover){f[0], f[1], f[2], f[3]};
	}
	out->csv = c;
	return 0;
out_free:
	free(out->v);
	out->v = NULL;
	out->n = 0;
	csv_free(c);
	free(c);
	return -1;
}

void release_leftovers_free(struct rel_leftovers *l)
{
	free(l->v);
	if (l->csv)
		csv_free(l->csv);
	free(l->csv);
	memset(l, 0, sizeof(*l));
}
