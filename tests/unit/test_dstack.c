/* test_dstack.c - dstack configurations read as dstack's models read them
 * (dstack.c): the gpu forms, ranges exact or open, the profile keys as
 * candidates, what is refused, and the spans --emit dstack carries. */
#include "testutil.h"

#include "core/task/dstack.h"

static struct dstack_conf dc;
static char err[512];
static struct offer_set set;

static int parse(const char *yaml)
{
	dstack_free(&dc);
	return dstack_parse(yaml, strlen(yaml), "x.dstack.yml", &dc, err, sizeof(err));
}

static const struct sky_doc *doc(const char *yaml)
{
	if (parse(yaml))
		fail_msg("%s", err);
	assert_int_equal(dc.task.ndoc, 1);
	assert_true(dc.task.doc[0].ncand >= 1);
	return &dc.task.doc[0];
}

static struct offer *offer(const char *provider, const char *region, const char *gpu, double n)
{
	return tu_offer_in(&set, provider, region, gpu, n);
}

static int teardown(void **s)
{
	dstack_free(&dc);
	free(set.v);
	set.v = NULL;
	set.n = set.cap = 0;
	return tu_teardown(s);
}

/* Whether candidate 0 of yaml's task fits o. */
static bool fits(const char *yaml, const struct offer *o)
{
	return sky_res_fits(&doc(yaml)->cand[0], o, false);
}

#define T(gpu) "type: task\ncommands: [x]\nresources:\n  gpu: " gpu "\n"

/* 48GB is exact (Range._parse: min = max), a range is inclusive */
static void test_memory(void **s)
{
	struct offer *l40s, *a6000, *a10g, *a80, *v32;

	(void)s;
	set.n = 0;
	l40s = offer("aws", "us-east-1", "L40S", 1);
	a6000 = offer("lambda", "us-west-1", "RTXA6000", 1);
	a10g = offer("aws", "us-east-1", "A10G", 1);
	a80 = offer("gcp", "us-central1", "A100-80GB", 1);
	v32 = offer("runpod", "US", "V100-32GB", 1);
	assert_true(fits(T("48GB"), l40s) && fits(T("48GB"), a6000));
	assert_false(fits(T("48GB"), a10g) || fits(T("48GB"), a80));
	assert_true(fits(T("16GB..24GB"), a10g));
	assert_false(fits(T("16GB..24GB"), v32) || fits(T("16GB..24GB"), l40s));
	assert_true(fits(T("24GB.."), a80) && fits(T("..32GB"), v32) && !fits(T("..32GB"), l40s));
	assert_true(fits(T("49152MB"), l40s) && !fits(T("0.1TB"), a80));
	assert_true(fits(T("{memory: {min: 40GB}}"), a80) && !fits(T("{total_memory: 100GB..}"), a80));
}

/* counts: 1 exact, A100:2 two (40 or 80 GB: a name is a family), A100 1.. */
static void test_counts_and_names(void **s)
{
	struct offer *a1, *a2, *a8, *a80x2, *h1;

	(void)s;
	set.n = 0;
	a1 = offer("gcp", "us-central1", "A100", 1);
	a2 = offer("gcp", "us-central1", "A100", 2);
	a8 = offer("aws", "us-east-1", "A100", 8);
	a80x2 = offer("gcp", "us-west1", "A100-80GB", 2);
	h1 = offer("vast", "global", "H100", 1);
	assert_true(fits(T("1"), a1) && fits(T("1"), h1) && !fits(T("1"), a2));
	assert_true(fits(T("A100:2"), a2) && fits(T("A100:2"), a80x2) && !fits(T("A100:2"), a8));
	assert_true(fits(T("A100"), a1) && fits(T("A100"), a8) && !fits(T("A100"), h1));
	assert_true(fits(T("A100:80GB:2"), a80x2) && !fits(T("A100:80GB:2"), a2));
	assert_true(fits(T("1..2"), a2) && !fits(T("1..2"), a8));
	assert_true(fits(T("nvidia:2"), a2) && !fits(T("amd:2"), a2));
	assert_true(fits(T("{name: [H100, A100], count: 1}"), h1));
	/* names whole, as gpuhunt names the cards: H100 is not the H100 NVL,
	 * A6000 is the RTX A6000 */
	assert_false(fits(T("H100"), offer("lambda", "us-west-1", "H100-NVL", 1)));
	assert_true(fits(T("H100NVL"), offer("lambda", "us-west-1", "H100-NVL", 1)));
	assert_true(fits(T("A6000"), offer("lambda", "us-west-1", "RTXA6000", 1)));
	assert_true(fits(T("a100"), offer("gcp", "us-central1", "A100-80GB-PCIE", 1)));
	/* A10G,H100: one candidate a name, any of them */
	assert_int_equal(doc(T("A10G,H100"))->ncand, 2);
	assert_int_equal(doc(T("A10G,H100"))->pref, SKY_PREF_ANY_OF);
}

/* backends, regions, spot_policy, max_price, nodes; dstack's backends only */
static void test_profile(void **s)
{
	const struct sky_doc *d;
	struct offer *aws, *vast, *gongji;

	(void)s;
	set.n = 0;
	aws = offer("aws", "us-east-1", "L40S", 1);
	vast = offer("Vast.ai", "global", "L40S", 1);
	gongji = offer("Gongji", "cn-east", "L40S", 1);
	d = doc("type: task\nnodes: 2\ncommands: [x]\nbackends: [aws, vastai]\nregions: [us-east-1, global]\n"
		"spot_policy: spot\nmax_price: 2.5\n");
	assert_int_equal(d->num_nodes, 2);
	assert_int_equal(d->ncand, 4);
	assert_int_equal(dc.spot, 1);
	assert_true(dc.max_price == 2.5);
	assert_int_equal(d->cand[0].use_spot, 1);
	assert_false(fits(T("L40S"), gongji));
	assert_true(fits("type: task\ncommands: [x]\nbackends: [vastai]\n", vast));
	assert_false(fits("type: task\ncommands: [x]\nbackends: [vastai]\n", aws));
	assert_int_equal(doc("type: task\ncommands: [x]\n")->cand[0].use_spot, 0);   /* on-demand */
	assert_int_equal(doc("type: service\nport: 80\nimage: x\nspot_policy: auto\nmodel: m/x\n")->cand[0].use_spot, -1);
	assert_string_equal(dc.model, "m/x");
	assert_int_equal(dc.kind, DSTACK_SERVICE);
	assert_string_equal(dstack_backend_of(&vast->provider), "vastai");
	assert_null(dstack_backend_of(&gongji->provider));
}

/* a fleet and the other non-jobs: refused naming dstack; bad values at their line */
static void test_refused(void **s)
{
	static const struct {
		const char *yaml, *want;
	} bad[] = {
		{"type: fleet\nnodes: 2\n", "x.dstack.yml:1: type: a dstack fleet: capacity"},
		{"name: v\ntype: volume\n", "x.dstack.yml:2: type: a dstack volume"},
		{"type: gateway\n", "x.dstack.yml:1: type: a dstack gateway"},
		{"type: job\n", "x.dstack.yml:1: type: expected a dstack type"},
		{"name: x\n", "x.dstack.yml:1: type: missing"},
		{T("A100::2"), "x.dstack.yml:4: resources.gpu: expected a GPU spec"},
		{T("80GB..24GB"), "x.dstack.yml:4: resources.gpu: expected one memory part"},
		{T("2:4"), "x.dstack.yml:4: resources.gpu: expected one count part"},
		{T("{nme: A100}"), "x.dstack.yml:4: resources.gpu.nme: expected vendor, name"},
		{"type: task\nnodes: 0\n", "x.dstack.yml:2: nodes: expected a whole number"},
		{"type: task\nspot_policy: always\n", "x.dstack.yml:2: spot_policy: expected spot, on-demand or auto"},
		{"type: task\nbackends: aws\n", "x.dstack.yml:2: backends: expected a list"},
		{"type: task\ngroups:\n  - nodes: 1\n", "x.dstack.yml:2: groups: dstack task groups"},
		{"type: task\n---\ntype: task\n", "x.dstack.yml:3: a second YAML document"},
		{"type: task\ntype: task\n", "x.dstack.yml:2: type: duplicate"},
		{"type: task\nresources:\n  cpu: {[a]: 1}\n", "x.dstack.yml:3: resources.cpu: expected key: value pairs"},
		{"type: task\nresources:\n  disk: {*a: 1}\n", "x.dstack.yml:3: resources.disk: expected key: value pairs"},
		{"type: service\nport: 1\nmodel: {[b]: 1}\n", "x.dstack.yml:3: model: expected key: value pairs"},
		{T("0"), "x.dstack.yml:4: resources.gpu: no GPU at most: a job on CPUs only"},
		{T("{count: {max: 0}}"), "x.dstack.yml:4: resources.gpu: no GPU at most"},
		{T("A100:..0"), "x.dstack.yml:4: resources.gpu: no GPU at most"},
		{"type: task\ncommands: [x]\ngpu: 1\n", "x.dstack.yml:3: gpu: not a key of a dstack task (dstack refuses "
		 "unknown keys); it belongs under resources:"},
		{"type: service\nport: 80\nnodes: 2\n", "x.dstack.yml:3: nodes: not a key of a dstack service"},
		{"type: dev-environment\nide: vscode\ncommands: [x]\n", "x.dstack.yml:3: commands: not a key of a dstack "
		 "dev-environment"},
	};

	(void)s;
	for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
		if (!parse(bad[i].yaml))
			fail_msg("accepted: %s", bad[i].yaml);
		if (strncmp(err, bad[i].want, strlen(bad[i].want)))
			fail_msg("%s: got %s", bad[i].want, err);
		assert_null(strchr(err, '\n'));
	}
	assert_true(parse("type: fleet\n") == -1 && dc.kind == DSTACK_FLEET);
}

/* the spans --emit dstack carries: every key, from its line (comments too) */
static void test_spans(void **s)
{
	const char *y = "# top\ntype: task\n# about commands\ncommands:\n  - a\nresources:\n    gpu: 1\n    shm_size: 8GB\n";

	(void)s;
	doc(y);
	assert_int_equal(dc.nspan, 3);
	assert_int_equal(dc.span[0].from, 0);
	assert_string_equal(dc.span[1].key, "commands");
	assert_true(!strncmp(y + dc.span[0].to, "commands:", 9));   /* comments go with the key before */
	assert_true(!strncmp(y + dc.span[2].from, "resources:", 10));
	assert_int_equal(dc.span[2].to, strlen(y));
	assert_int_equal(dc.nres, 2);
	assert_int_equal(dc.res_col, 4);
	assert_true(!strncmp(y + dc.res[1].from, "    shm_size: 8GB\n", dc.res[1].to - dc.res[1].from));
	doc("type: task\ncommands: [x]\nresources: {gpu: 1, disk: 100GB}\n");
	assert_true(dc.res_flow && dc.nres == 2);
	assert_true(!strncmp(dc.buf + dc.res[1].from, "disk: 100GB", dc.res[1].to - dc.res[1].from));
}

/* the names --emit dstack writes: gpuhunt's */
static void test_gpu_names(void **s)
{
	static const char *const want[][2] = {
		{"A100-80GB", "A100"}, {"A100", "A100"}, {"RTXA6000", "A6000"}, {"H100-NVL", "H100NVL"},
		{"H100-PCIE", "H100"}, {"L40S", "L40S"}, {"RTX4090", "RTX4090"}, {"MI300X", "MI300X"},
		{"V100-32GB", "V100"}, {"A10G", "A10G"}, {"RTX6000Ada", "RTX6000Ada"},
	};
	char out[64];

	(void)s;
	for (size_t i = 0; i < ARRAY_SIZE(want); i++) {
		const struct gpu_spec *g = gpu_db_find(&tu_gdb, want[i][0]);
		assert_non_null(g);
		assert_string_equal(dstack_gpu_name(g, out, sizeof(out)), want[i][1]);
	}
}

static void test_file_is(void **s)
{
	static const char task[] = "type: task\n", sky[] = "resources:\n  accelerators: A100\nrun: x\n",
			  pvc[] = "type: k8s-pvc\nsize: 10Gi\n", svc[] = "run: {a: [1]}\ntype: service\n";

	(void)s;
	assert_true(dstack_file_is(task, strlen(task), "any.yaml"));
	assert_true(dstack_file_is(sky, strlen(sky), "train.dstack.yml"));
	assert_false(dstack_file_is(sky, strlen(sky), "train.yaml"));
	assert_false(dstack_file_is(pvc, strlen(pvc), "vol.yaml"));
	assert_true(dstack_file_is(svc, strlen(svc), "x.yaml"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_memory),
		cmocka_unit_test(test_counts_and_names),
		cmocka_unit_test(test_profile),
		cmocka_unit_test(test_refused),
		cmocka_unit_test(test_spans),
		cmocka_unit_test(test_gpu_names),
		cmocka_unit_test(test_file_is),
	};
	return cmocka_run_group_tests_name("dstack", tests, tu_setup, teardown);
}
