/*
 * fuzz_sky_emit.c - a SkyPilot task (the bytes, as YAML) read by
 * sky_task_parse (src/core/task/skytask.c), each document written back by the
 * emitter of `plan --emit sky` (src/core/plan/skyemit.c) for a fixed choice, and
 * the emitted text read again by the same reader: it must read (one
 * document), and what survives the trip must be equal: the name, every
 * env, the setup: text (carried over as written), and the run: script in
 * its heredoc.
 */
#include "core/plan/skyemit.h"
#include "core/task/skytask.h"
#include "fuzz.h"

static const struct sky_env *env_of(const struct sky_doc *d, const char *key)
{
	for (size_t i = 0; i < d->nenv; i++)
		if (!strcmp(d->env[i].key, key))
			return &d->env[i];
	return NULL;
}

/* The script between the emitted run's heredoc lines, or NULL (owned). */
static char *heredoc_of(const char *run)
{
	const char *p = strstr(run, "<<'"), *q, *end;
	char delim[64], *out;
	size_t n;

	if (!p)
		return NULL;
	p += 3;
	q = strchr(p, '\'');
	FUZZ_CHECK(q && (size_t)(q - p) < sizeof(delim) - 2);
	delim[0] = '\n';
	memcpy(delim + 1, p, (size_t)(q - p));
	delim[1 + (q - p)] = '\0';
	strcat(delim, "\n");
	FUZZ_CHECK(q[1] == '\n');
	p = q + 2;
	/* the delimiter is no line of the script: its first line on its own ends it */
	end = p;
	for (;;) {
		if (!strncmp(end, delim + 1, strlen(delim + 1)))
			break;
		end = strchr(end, '\n');
		FUZZ_CHECK(end != NULL);
		end++;
	}
	n = (size_t)(end - p);
	out = malloc(n + 1);
	FUZZ_CHECK(out != NULL);
	memcpy(out, p, n);
	out[n] = '\0';
	return out;
}

static void check_doc(const struct sky_doc *d, const char *src, size_t src_len, size_t index)
{
	static const char prov[] = "lambda", inst[] = "gpu_1x_a100", region[] = "us-east-1", gpu[] = "A100";
	struct workload w;
	struct plan_opts po;
	struct plan_choice c;
	struct offer o;
	struct sky_emit e;
	struct sky_task back;
	const struct sky_doc *b;
	char *buf = NULL, err[512];
	size_t len = 0;
	FILE *f;
	int rc;

	memset(&w, 0, sizeof(w));
	memset(&po, 0, sizeof(po));
	memset(&c, 0, sizeof(c));
	memset(&o, 0, sizeof(o));
	o.provider = (struct cat_str){prov, sizeof(prov) - 1};
	o.instance = (struct cat_str){inst, sizeof(inst) - 1};
	o.region = (struct cat_str){region, sizeof(region) - 1};
	o.gpu_name = (struct cat_str){gpu, sizeof(gpu) - 1};
	o.gpus = 1;
	o.price = 1.29;
	c.offer = &o;
	c.mode = PLAN_ON_DEMAND;
	c.gpus = 1;
	c.nodes = 1;
	c.wall_s = 3600;
	c.cost.total = 1.29;
	c.ckpt_write_s = 30;
	memset(&e, 0, sizeof(e));
	e.w = &w;
	e.po = &po;
	e.c = &c;
	e.rank = 1;
	e.doc = d;
	e.src = src;
	e.src_len = src_len;
	e.doc_index = index;
	e.use_spot = -1;
	e.code = "USD";
	e.usd_per_unit = 1;

	f = open_memstream(&buf, &len);
	FUZZ_CHECK(f != NULL);
	rc = sky_emit_write(f, &e);
	FUZZ_CHECK(fclose(f) == 0);
	if (rc == -2) {   /* refused as a whole (an alias into what gpurent rewrites) */
		free(buf);
		return;
	}
	FUZZ_CHECK(rc == 0);
	err[0] = '\0';
	rc = sky_task_parse(buf, len, "emitted.yaml", &back, err, sizeof(err));
	if (rc)
		fprintf(stderr, "the emitted task does not read back: %s\n%s\n", err, buf);
	FUZZ_CHECK(rc == 0);
	FUZZ_CHECK(back.ndoc == 1);
	b = &back.doc[0];
	FUZZ_CHECK(!strcmp(b->name, d->name));
	FUZZ_CHECK(b->num_nodes == 1);
	FUZZ_CHECK(b->ncand == 1);
	for (size_t i = 0; i < d->nenv; i++) {
		const struct sky_env *be = env_of(b, d->env[i].key);
		FUZZ_CHECK(be != NULL);
		FUZZ_CHECK(!strcmp(be->value, env_of(d, d->env[i].key)->value));
	}
	if (d->setup && *d->setup) {
		FUZZ_CHECK(b->setup != NULL);
		FUZZ_CHECK(!strcmp(b->setup, d->setup));
	}
	FUZZ_CHECK(b->nenv == d->nenv);
	if (d->run && *d->run) {
		/* the heredoc: the script's lines, each ended by a newline */
		char *hs;
		size_t n = strlen(d->run);
		FUZZ_CHECK(b->run != NULL);
		hs = heredoc_of(b->run);
		FUZZ_CHECK(hs != NULL);
		FUZZ_CHECK(!strncmp(hs, d->run, n));
		FUZZ_CHECK(!strcmp(hs + n, d->run[n - 1] == '\n' ? "" : "\n"));
		free(hs);
	}
	sky_task_free(&back);
	free(buf);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct sky_task t;
	char err[512];

	err[0] = '\0';
	if (sky_task_parse((const char *)data, size, "task.yaml", &t, err, sizeof(err)) == 0)
		for (size_t i = 0; i < t.ndoc; i++)
			check_doc(&t.doc[i], (const char *)data, size, i);
	sky_task_free(&t);
	return 0;
}
