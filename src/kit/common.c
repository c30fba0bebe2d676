/*
 * common.c - data loading, file reading, errors and JSON output shared
 * by the commands (common.h).
 */
#include "kit/common.h"

#include "base/out.h"
#include "core/text/units.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

const char *common_data_dir;


const char *common_file_kind(mode_t mode)
{
	return S_ISFIFO(mode) ? "a FIFO" : S_ISDIR(mode) ? "a directory" : S_ISSOCK(mode) ? "a socket"
	       : S_ISCHR(mode) ? "a character device" : S_ISBLK(mode) ? "a block device"
	       : S_ISLNK(mode) ? "a symlink" : S_ISREG(mode) ? "a regular file" : "a special file";
}

int common_open_regular(const char *path, struct stat *st, char *err, size_t errlen)
{
	/* O_NONBLOCK: opening a FIFO must not wait for a writer; checked below */
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY), flags;

	if (fd < 0) {
		snprintf(err, errlen, _("%s: cannot open: %s"), path, strerror(errno));
		return -1;
	}
	if (fstat(fd, st)) {
		snprintf(err, errlen, _("%s: cannot open: %s"), path, strerror(errno));
		goto out_close;
	}
	if (!S_ISREG(st->st_mode)) {
		snprintf(err, errlen, _("%s: expected a regular file, got %s"), path,
			 common_file_kind(st->st_mode));
		goto out_close;
	}
	if ((flags = fcntl(fd, F_GETFL)) >= 0)
		fcntl(fd, F_SETFL, flags & ~O_NONBLOCK);
	return fd;
out_close:
	close(fd);
	return -1;
}

int common_read_file(const char *path, char **buf, size_t *len, char *err, size_t errlen)
{
	struct stat st;
	char *p = NULL;
	size_t n = 0, cap = 0;
	int fd = common_open_regular(path, &st, err, errlen);

	if (fd < 0)
		return -1;
	for (;;) {
		ssize_t got;
		if (cap - n < 65536) {
			size_t ncap = cap ? cap * 2 : 65536;
			char *np = realloc(p, ncap + 1);
			if (!np) {
				snprintf(err, errlen, _("%s: out of memory"), path);
				goto out_fail;
			}
			p = np;
			cap = ncap;
		}
		got = read(fd, p + n, cap - n);
		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0) {
			snprintf(err, errlen, _("%s: read error: %s"), path, strerror(errno));
			goto out_fail;
		}
		if (got == 0)
			break;
		n += (size_t)got;
	}
	close(fd);
	p[n] = '\0';
	*buf = p;
	*len = n;
	return 0;
out_fail:
	free(p);
	close(fd);
	return -1;
}

int common_data_file(const char *name, const char **buf, size_t *len, char **owned,
		     const char **path)
{
	static char pathbuf[4096];
	char err[512];

	*owned = NULL;
	if (!common_data_dir) {
		for (const struct embedded_file *f = embedded_files; f->name; f++)
			if (!strcmp(f->name, name)) {
				*buf = f->data;
				*len = f->len;
				*path = f->name;
				return 0;
			}
		msg_error(_("%s: not built into this binary"), name);
		return EXIT_RUNTIME;
	}
	snprintf(pathbuf, sizeof(pathbuf), "%s/%s", common_data_dir, name);
	if (common_read_file(pathbuf, owned, len, err, sizeof(err))) {
		msg_error("%s", err);
		return EXIT_USAGE;
	}
	*buf = *owned;
	*path = pathbuf;
	return 0;
}

static int load_one(const char *name,
		    int (*load)(void *, const char *, size_t, const char *, char *, size_t),
		    void *db)
{
	char err[512], *owned;
	const char *buf, *path;
	size_t len;
	int rc;

	if ((rc = common_data_file(name, &buf, &len, &owned, &path)))
		return rc;
	rc = load(db, buf, len, path, err, sizeof(err));
	free(owned);
	if (rc) {
		msg_error("%s", err);
		return common_data_dir ? EXIT_USAGE : EXIT_RUNTIME;
	}
	return 0;
}

static int gpu_loader(void *db, const char *b, size_t l, const char *f, char *e, size_t el)
{
	return gpu_db_load(db, b, l, f, e, el);
}

static int model_loader(void *db, const char *b, size_t l, const char *f, char *e, size_t el)
{
	return model_db_load(db, b, l, f, e, el);
}

int common_load_data(struct gpu_db *gdb, struct model_db *mdb)
{
	int rc;

	if (gdb && (rc = load_one("gpus.csv", gpu_loader, gdb)))
		return rc;
	if (mdb && (rc = load_one("models.csv", model_loader, mdb))) {
		if (gdb)
			gpu_db_free(gdb);
		return rc;
	}
	return 0;
}

static int billing_loader(void *db, const char *b, size_t l, const char *f, char *e, size_t el)
{
	return billing_db_load(db, b, l, f, e, el);
}

int common_load_billing(struct billing_db *db)
{
	return load_one("billing.csv", billing_loader, db);
}



bool common_money_has_code(const char *v)
{
	return units_money_has_code(v);
}


/* ---- JSON ---- */

void json_init(struct json *j, FILE *f)
{
	msg_untranslated();   /* JSON is the same bytes in every locale */
	memset(j, 0, sizeof(*j));
	j->f = f;
}

static void indent(struct json *j)
{
	for (int i = 0; i < j->depth; i++)
		fputs("  ", j->f);
}

/*
 * A JSON string that is always valid UTF-8 (docs/json.md): quote and
 * backslash escaped, control bytes (C0, DEL, C1) as \u00XX (\n and \t
 * short), valid UTF-8 as is, every byte that is not valid UTF-8 as U+FFFD.
 */
static void put_string(FILE *f, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t n = strlen(s);

	fputc('"', f);
	for (size_t i = 0; i < n;) {
		unsigned char c = p[i];
		size_t k;
		if (c == '"' || c == '\\')
			fprintf(f, "\\%c", c);
		else if (c == '\n')
			fputs("\\n", f);
		else if (c == '\t')
			fputs("\\t", f);
		else if (c < 0x20 || c == 0x7f)
			fprintf(f, "\\u%04x", c);
		else if (c < 0x80)
			fputc(c, f);
		else if ((k = out_utf8_len(p + i, n - i))) {
			if (c == 0xc2 && p[i + 1] <= 0x9f)
				fprintf(f, "\\u%04x", p[i + 1]);   /* C1 control */
			else
				fwrite(p + i, 1, k, f);
			i += k;
			continue;
		} else
			fputs("\xef\xbf\xbd", f);   /* U+FFFD for a byte that is not UTF-8 */
		i++;
	}
	fputc('"', f);
}

static void item(struct json *j, const char *key)
{
	if (j->depth > 0) {
		fputs(j->need_comma[j->depth] ? ",\n" : "\n", j->f);
		j->need_comma[j->depth] = true;
		indent(j);
	}
	if (key) {
		put_string(j->f, key);
		fputs(": ", j->f);
	}
}

static void open_(struct json *j, const char *key, char c)
{
	item(j, key);
	fputc(c, j->f);
	if (j->depth < 31)
		j->depth++;
	j->need_comma[j->depth] = false;
}

static void close_(struct json *j, char c)
{
	bool any = j->need_comma[j->depth];

	j->depth--;
	if (any) {
		fputc('\n', j->f);
		indent(j);
	}
	fputc(c, j->f);
	if (j->depth == 0)
		fputc('\n', j->f);
}

void json_obj_begin(struct json *j, const char *key) { open_(j, key, '{'); }
void json_obj_end(struct json *j) { close_(j, '}'); }
void json_arr_begin(struct json *j, const char *key) { open_(j, key, '['); }
void json_arr_end(struct json *j) { close_(j, ']'); }

void json_num(struct json *j, const char *key, double v)
{
	item(j, key);
	if (!isfinite(v))
		fputs("null", j->f);
	else if (v == floor(v) && fabs(v) < 9e15)
		fprintf(j->f, "%.0f", v);
	else
		fprintf(j->f, "%.15g", v);
}

void json_int(struct json *j, const char *key, long v)
{
	item(j, key);
	fprintf(j->f, "%ld", v);
}

void json_str(struct json *j, const char *key, const char *v)
{
	item(j, key);
	put_string(j->f, v);
}

void json_bool(struct json *j, const char *key, bool v)
{
	item(j, key);
	fputs(v ? "true" : "false", j->f);
}

void json_null(struct json *j, const char *key)
{
	item(j, key);
	fputs("null", j->f);
}

int common_walk_error(const char *dir, int r, const char *err)
{
	/* on -2 err starts with the path below dir; names are escaped by msg.h */
	if (r == -2) {
		msg_error("%s%s%s", dir, dir[strlen(dir) - 1] == '/' ? "" : "/", err);
		return EXIT_USAGE;   /* nested deeper than WALK_MAX_DEPTH */
	}
	msg_error("%s: %s", dir, err);
	return EXIT_RUNTIME;
}
