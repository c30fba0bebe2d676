/* test_skytask.c - SkyPilot task files read as SkyPilot's yaml-spec.rst
 * says (skytask.c), one case per misreading of issue 11, and the match of
 * a candidate against offers (sky_res_fits). */
#include "testutil.h"

#include "core/task/skytask.h"

static struct sky_task t;
static char err[512];

static int parse(const char *yaml)
{
	sky_task_free(&t);
	return sky_task_parse(yaml, strlen(yaml), "task.yaml", &t, err, sizeof(err));
}

static const struct sky_doc *doc(const char *yaml)
{
	if (parse(yaml))
		fail_msg("%s", err);
	assert_true(t.ndoc >= 1);
	assert_true(t.doc[0].ncand >= 1);
	return &t.doc[0];
}

static struct offer_set set;

static struct offer *offer(const char *provider, const char *region, const char *gpu, double n)
{
	return tu_offer_in(&set, provider, region, gpu, n);
}

static int teardown(void **s)
{
	sky_task_free(&t);
	free(set.v);
	set.v = NULL;
	set.n = set.cap = 0;
	return tu_teardown(s);
}

/* accelerators: A100 is one 40 GB A100 (count 1), not any count, not the 80 GB card */
static void test_a100_is_one_40gb(void **s)
{
	const struct sky_doc *d = doc("resources:\n  accelerators: A100\n");
	struct offer *a1, *a8, *a80, *pcie;

	(void)s;
	set.n = 0;
	a1 = offer("aws", "us-east-1", "A100", 1);
	a8 = offer("aws", "us-east-1", "A100", 8);
	a80 = offer("aws", "us-east-1", "A100-80GB", 1);
	pcie = offer("aws", "us-east-1", "A100-PCIE", 1);
	assert_int_equal(d->ncand, 1);
	assert_int_equal(d->pref, SKY_PREF_ONE);
	assert_string_equal(d->cand[0].accel, "A100");
	assert_true(d->cand[0].accel_count == 1);
	assert_non_null(a1->gpu);
	assert_true(sky_res_fits(&d->cand[0], a1, false));
	assert_false(sky_res_fits(&d->cand[0], a8, false));
	assert_false(sky_res_fits(&d->cand[0], a80, false));
	assert_false(sky_res_fits(&d->cand[0], pcie, false));   /* another row of gpus.csv */
	d = doc("resources:\n  accelerators: A100-80GB:8\n");
	a80->gpus = 8;
	assert_true(sky_res_fits(&d->cand[0], a80, false));
	assert_false(sky_res_fits(&d->cand[0], a8, false));
	/* an alias of the same row: A100-SXM4-40GB is the A100 */
	d = doc("resources:\n  accelerators: a100-sxm4-40gb:8\n");
	assert_true(sky_res_fits(&d->cand[0], a8, false));
}

/* L4:0.5 is half a GPU: it matches a slice offer of 0.5 */
static void test_fraction_is_a_slice(void **s)
{
	const struct sky_doc *d = doc("resources:\n  accelerators: L4:0.5\n");
	struct offer *half, *whole;

	(void)s;
	set.n = 0;
	half = offer("runpod", "US", "L4", 0.5);
	half->is_slice = true;
	whole = offer("runpod", "US", "L4", 1);
	assert_true(d->cand[0].accel_count == 0.5);
	assert_true(sky_res_fits(&d->cand[0], half, false));
	assert_false(sky_res_fits(&d->cand[0], whole, false));
}

/* the written forms: a list is tried in order, a set and a mapping of
 * several together (cheapest first) */
static void test_accelerator_forms(void **s)
{
	const struct sky_doc *d;

	(void)s;
	d = doc("resources:\n  accelerators: [A100:8, 'H100:8', L4]\n");
	assert_int_equal(d->pref, SKY_PREF_ORDERED);
	assert_int_equal(d->ncand, 3);
	assert_string_equal(d->cand[1].accel, "H100");
	assert_true(d->cand[1].accel_count == 8 && d->cand[2].accel_count == 1);
	d = doc("resources:\n  accelerators: {L4:8, A10g:8, A100-80GB:2}\n");
	assert_int_equal(d->pref, SKY_PREF_ANY_OF);
	assert_int_equal(d->ncand, 3);
	assert_string_equal(d->cand[1].accel, "A10g");
	assert_true(d->cand[2].accel_count == 2);
	d = doc("resources:\n  accelerators: {A100: 8}\n");
	assert_int_equal(d->pref, SKY_PREF_ONE);
	assert_true(d->ncand == 1 && d->cand[0].accel_count == 8);
	d = doc("resources:\n  accelerators: {A100: 8, H100: null}\n");
	assert_int_equal(d->pref, SKY_PREF_ANY_OF);
	assert_true(d->cand[1].accel_count == 1);
	/* no accelerators: one unconstrained candidate */
	d = doc("name: x\nrun: echo\n");
	assert_int_equal(d->ncand, 1);
	assert_string_equal(d->cand[0].accel, "");
	assert_false(d->has_resources);
}

/* any_of: each entry is the outer keys updated by its own */
static void test_any_of_merges_outer_keys(void **s)
{
	const struct sky_doc *d = doc("resources:\n  accelerators: H100:8\n  use_spot: true\n  infra: azure\n"
				      "  any_of:\n    - infra: aws/us-west-2\n    - infra: gcp/us-central1\n"
				      "      use_spot: false\n    - accelerators: H200:8\n");

	(void)s;
	assert_int_equal(d->pref, SKY_PREF_ANY_OF);
	assert_int_equal(d->ncand, 3);
	assert_string_equal(d->cand[0].accel, "H100");
	assert_string_equal(d->cand[0].cloud, "aws");
	assert_string_equal(d->cand[0].region, "us-west-2");
	assert_int_equal(d->cand[0].use_spot, 1);
	assert_string_equal(d->cand[1].cloud, "gcp");
	assert_int_equal(d->cand[1].use_spot, 0);
	assert_string_equal(d->cand[2].accel, "H200");
	assert_string_equal(d->cand[2].cloud, "azure");   /* the outer infra where the entry has none */
	assert_int_equal(d->cand[2].line, 9);   /* its any_of entry */
	/* ordered: the same merge, in order */
	d = doc("resources:\n  accelerators: A100:8\n  ordered:\n    - infra: aws/us-east-1\n    - infra: aws/us-west-2\n");
	assert_int_equal(d->pref, SKY_PREF_ORDERED);
	assert_int_equal(d->ncand, 2);
	assert_string_equal(d->cand[1].region, "us-west-2");
	assert_string_equal(d->cand[1].accel, "A100");
	/* an entry's accelerators set expands within it */
	d = doc("resources:\n  any_of:\n    - accelerators: {A100:8, H100:8}\n    - accelerators: L4\n");
	assert_int_equal(d->ncand, 3);
	assert_int_equal(d->pref, SKY_PREF_ANY_OF);
}

/* num_nodes, name, envs and every document of a pipeline */
static void test_documents(void **s)
{
	(void)s;
	assert_int_equal(parse("name: train\nnum_nodes: 4\nenvs:\n  A: 1\n  B:\n  C: text\nrun: x\n"
			       "---\nname: eval\nresources:\n  accelerators: T4\n---\n"
			       "name: third\nnum_nodes: 2\nsetup: y\n---\n"), 0);
	assert_int_equal(t.ndoc, 3);
	assert_string_equal(t.doc[0].name, "train");
	assert_int_equal(t.doc[0].num_nodes, 4);
	assert_int_equal(t.doc[0].nenv, 3);
	assert_string_equal(t.doc[0].env[0].key, "A");
	assert_string_equal(t.doc[0].env[0].value, "1");
	assert_string_equal(t.doc[0].env[1].value, "");   /* null: a required env */
	assert_true(t.doc[0].has_run && !t.doc[0].has_setup);
	assert_string_equal(t.doc[1].name, "eval");
	assert_int_equal(t.doc[1].num_nodes, 1);
	assert_string_equal(t.doc[1].cand[0].accel, "T4");
	assert_int_equal(t.doc[2].num_nodes, 2);
	assert_true(t.doc[2].has_setup);
	assert_null(t.not_a_task);
}

/* memory and disk_size with SkyPilot's units (powers of 2^10, GB default) */
static void test_units(void **s)
{
	const struct sky_doc *d;

	(void)s;
	d = doc("resources:\n  memory: 64GB\n  disk_size: 1TB\n  cpus: 8+\n");
	assert_true(d->cand[0].memory_gib == 64 && d->cand[0].memory_exact);
	assert_true(d->cand[0].disk_gb == 1024);
	assert_true(d->cand[0].cpus == 8 && !d->cand[0].cpus_exact);
	d = doc("resources:\n  memory: 32GB+\n  disk_size: 1500MB\n");
	assert_true(d->cand[0].memory_gib == 32 && !d->cand[0].memory_exact);
	assert_true(d->cand[0].disk_gb == 1);   /* floored, as the spec warns */
	d = doc("resources:\n  memory: 1024mb\n  disk_size: 512\n  cpus: 16\n");
	assert_true(d->cand[0].memory_gib == 1 && d->cand[0].disk_gb == 512 && d->cand[0].cpus_exact);
	d = doc("resources:\n  memory: 512+\n");
	assert_true(d->cand[0].memory_gib == 512 && !d->cand[0].memory_exact);
	set.n = 0;
	{
		struct offer *o = offer("aws", "us-east-1", "H100", 8);
		o->ram_gib = 1024;
		assert_true(sky_res_fits(&d->cand[0], o, false));
		o->ram_gib = 256;
		assert_false(sky_res_fits(&d->cand[0], o, false));
		o->ram_gib = 0;   /* not stated: not held against it */
		assert_true(sky_res_fits(&d->cand[0], o, false));
	}
}

/* infra: cloud/region/zone, '*' anywhere, k8s contexts with '/' */
static void test_infra(void **s)
{
	const struct sky_doc *d;
	struct offer *east, *west, *zoned;

	(void)s;
	set.n = 0;
	east = offer("aws", "us-east-1", "H100", 8);
	west = offer("aws", "us-west-2", "H100", 8);
	zoned = offer("gcp", "us-central1", "H100", 8);
	zoned->zone = (struct cat_str){"us-central1-b", 13};
	d = doc("resources:\n  infra: aws/*/us-east-1a\n");
	assert_string_equal(d->cand[0].cloud, "aws");
	assert_string_equal(d->cand[0].region, "");
	assert_string_equal(d->cand[0].zone, "us-east-1a");
	assert_true(sky_res_fits(&d->cand[0], east, false));    /* no zone named: its region prefixes the zone */
	assert_false(sky_res_fits(&d->cand[0], west, false));
	d = doc("resources:\n  infra: '*/us-west-2'\n");
	assert_string_equal(d->cand[0].cloud, "");
	assert_true(sky_res_fits(&d->cand[0], west, false));
	assert_false(sky_res_fits(&d->cand[0], east, false));
	d = doc("resources:\n  infra: GCP/us-central1/us-central1-a\n");
	assert_string_equal(d->cand[0].cloud, "gcp");
	assert_false(sky_res_fits(&d->cand[0], zoned, false));  /* the offer's own zone is -b */
	d = doc("resources:\n  infra: gcp/us-central1/us-central1-b\n");
	assert_true(sky_res_fits(&d->cand[0], zoned, false));
	d = doc("resources:\n  infra: aws/us-east\n");           /* whole names, not prefixes */
	assert_false(sky_res_fits(&d->cand[0], east, false));
	d = doc("resources:\n  infra: k8s/my/ctx\n");
	assert_true(d->cand[0].k8s);
	assert_string_equal(d->cand[0].cloud, "kubernetes");
	assert_string_equal(d->cand[0].region, "my/ctx");
	assert_false(sky_res_fits(&d->cand[0], east, false));
	d = doc("resources:\n  infra: kubernetes\n");
	assert_true(d->cand[0].k8s && !d->cand[0].region[0]);
	/* the older keys */
	d = doc("resources:\n  cloud: AWS\n  region: us-east-1\n  zone: us-east-1b\n");
	assert_string_equal(d->cand[0].cloud, "aws");
	assert_true(sky_res_fits(&d->cand[0], east, false));
	d = doc("resources:\n  zone: us-central1-b\n");
	assert_true(sky_res_fits(&d->cand[0], zoned, false));
	zoned->zone = (struct cat_str){"us-central1-c", 13};
	assert_false(sky_res_fits(&d->cand[0], zoned, false));
}

/* do is DigitalOcean: whole cloud names, never a substring (cudo) */
static void test_cloud_names_whole(void **s)
{
	const struct sky_doc *d = doc("resources:\n  infra: do\n");
	struct offer *cudo, *dig, *own;

	(void)s;
	set.n = 0;
	cudo = offer("cudo", "us", "H100", 8);
	dig = offer("do", "nyc2", "H100", 8);
	own = offer("DigitalOcean", "nyc2", "H100", 8);
	assert_false(sky_res_fits(&d->cand[0], cudo, false));
	assert_true(sky_res_fits(&d->cand[0], dig, false));
	assert_true(sky_res_fits(&d->cand[0], own, false));
	d = doc("resources:\n  infra: vast\n");
	assert_true(sky_res_fits(&d->cand[0], offer("Vast.ai", "US", "H100", 8), false));
	d = doc("resources:\n  cloud: aws\n");
	assert_false(sky_res_fits(&d->cand[0], offer("aws-marketplace", "us-east-1", "H100", 8), false));
}

static void test_instance_type_and_spot(void **s)
{
	const struct sky_doc *d = doc("resources:\n  instance_type: p4d.24xlarge\n  use_spot: true\n");
	struct offer *p4d, *p4de;

	(void)s;
	set.n = 0;
	p4d = offer("aws", "us-east-1", "A100", 8);
	p4d->instance = (struct cat_str){"p4d.24xlarge", 12};
	p4de = offer("aws", "us-east-1", "A100-80GB", 8);
	p4de->instance = (struct cat_str){"p4de.24xlarge", 13};
	assert_true(sky_res_fits(&d->cand[0], p4d, false));
	assert_false(sky_res_fits(&d->cand[0], p4de, false));
	p4d->spot_price = 0;
	assert_false(sky_res_fits(&d->cand[0], p4d, false));
	assert_true(sky_res_fits(&d->cand[0], p4d, true));
}

/* run:/setup: of any length, keys skipped at any nesting, notes */
static void test_long_values_and_notes(void **s)
{
	char *y = malloc(20000);
	const struct sky_doc *d;

	(void)s;
	assert_non_null(y);
	strcpy(y, "run: |\n");
	for (int i = 0; i < 300; i++)
		strcat(y, "  echo a fairly long line of a real run script here\n");
	strcat(y, "pool:\n  workers: 3\nexecution: parallel\nservice:\n  replicas: 2\nvolumes: {a: b}\n"
		  "config: {kubernetes: {pod_config: {spec: {containers: [{a: [1, [2, {b: 3}]]}]}}}}\n"
		  "resources:\n  image_id: docker:x\n  labels: {a: b}\n  network_tier: best\n"
		  "  accelerator_args: {tpu_vm: true}\n  ports: [8080, 10022-10040]\n"
		  "  autostop: {idle_minutes: 30, down: true}\n  job_recovery: {strategy: FAILOVER, max_restarts_on_errors: 3}\n"
		  "  disk_tier: Best\n");
	assert_true(strlen(y) > 512 * 20);
	d = doc(y);
	free(y);
	assert_true(d->has_run);
	assert_int_equal(d->notes, SKY_NOTE_POOL | SKY_NOTE_EXECUTION | SKY_NOTE_SERVICE | SKY_NOTE_VOLUMES |
				   SKY_NOTE_IMAGE);
	assert_int_equal(d->cand[0].nports, 20);
	assert_true(d->cand[0].autostop_given && d->cand[0].autostop_idle_min == 30 && d->cand[0].autostop_down);
	assert_string_equal(d->cand[0].job_recovery, "FAILOVER");
	assert_string_equal(d->cand[0].disk_tier, "best");
	d = doc("resources:\n  autostop: 2h\n  spot_recovery: EAGER_NEXT_REGION\n");
	assert_true(d->cand[0].autostop_idle_min == 120);
	assert_string_equal(d->cand[0].job_recovery, "EAGER_NEXT_REGION");
	d = doc("resources:\n  autostop: true\n");
	assert_true(d->cand[0].autostop_idle_min == 5 && !d->cand[0].autostop_off);
	d = doc("resources:\n  autostop: false\n");
	assert_true(d->cand[0].autostop_off);
	d = doc("resources:\n  autostop: 10\n");
	assert_true(d->cand[0].autostop_idle_min == 10);
}

struct bad_case {
	const char *yaml;
	const char *expect;   /* substring of the one-line error */
};

static void test_errors(void **s)
{
	static const struct bad_case cases[] = {
		/* duplicate keys at every level read */
		{"name: a\nrun: x\nname: b\n", "task.yaml:3: name: duplicate key (first given on line 1)"},
		{"resources:\n  cloud: aws\n  cloud: gcp\n", "task.yaml:3: resources: duplicate key 'cloud' (first given on line 2)"},
		{"resources:\n  any_of:\n    - {infra: aws, infra: gcp}\n",
		 "task.yaml:3: resources.any_of[1]: duplicate key 'infra'"},
		{"envs: {A: 1, A: 2}\n", "task.yaml:1: envs: duplicate key 'A'"},
		{"resources:\n  accelerators: {A100: 1, A100: 2}\n", "resources.accelerators: duplicate key 'A100'"},
		/* bounds */
		{"num_nodes: 0\n", "task.yaml:1: num_nodes: expected a whole number from 1 to 100000, got '0'"},
		{"num_nodes: 99999999999999999999\n", "task.yaml:1: num_nodes: expected a whole number from 1 to 100000"},
		{"resources:\n  accelerators: A100:inf\n", "task.yaml:2: resources.accelerators: expected NAME:COUNT with a COUNT from 0.001 to 1024"},
		{"resources:\n  accelerators: A100:2000\n", "resources.accelerators: expected NAME:COUNT"},
		{"resources:\n  accelerators: {A100: 0x8}\n", "resources.accelerators: expected NAME:COUNT"},
		{"resources:\n  accelerators: A100:-0\n", "resources.accelerators: expected NAME:COUNT"},
		{"resources:\n  accelerators: {A100: *x}\n", "task.yaml:2: resources.accelerators: expected a count"},
		{"resources:\n  accelerators: {H100: [8]}\n", "task.yaml:2: resources.accelerators: expected a count"},
		{"resources:\n  accelerators: [A100, [8]]\n", "task.yaml:2: resources.accelerators: expected NAME:COUNT entries, got a list"},
		{"resources:\n  accelerators: *a\n", "task.yaml:2: resources.accelerators: expected a value, got an alias"},
		{"resources:\n  cpus: *a\n", "task.yaml:2: resources.cpus: expected a value, got an alias"},
		{"resources:\n  cpus: inf\n", "task.yaml:2: resources.cpus: expected a number from 0.001 to 1000000 or a minimum such as 8+, got 'inf'"},
		{"resources:\n  cpus: 1e-320\n", "resources.cpus: expected a number"},
		{"resources:\n  memory: infinity\n", "task.yaml:2: resources.memory: expected a size above 0 and at most 1000000000 GB"},
		{"resources:\n  memory: 64GiB\n", "resources.memory: expected a size"},
		{"resources:\n  memory: 2000000000TB\n", "resources.memory: expected a size"},
		{"resources:\n  disk_size: nan\n", "task.yaml:2: resources.disk_size: expected a size"},
		{"resources:\n  disk_size: 256+\n", "resources.disk_size: expected a size"},
		{"resources:\n  disk_size: 10MB\n", "resources.disk_size: expected at least 1 GB"},
		{"resources:\n  disk_tier: fast\n", "resources.disk_tier: expected low, medium, high, ultra or best, got 'fast'"},
		{"resources:\n  use_spot: maybe\n", "resources.use_spot: expected true or false"},
		{"resources:\n  autostop: 5s\n", "resources.autostop: expected idle minutes"},
		{"resources:\n  ports: 70000\n", "resources.ports: expected a port from 1 to 65535"},
		{"resources:\n  infra: aws//us-east-1a\n", "resources.infra: expected no empty part"},
		{"resources:\n  infra: aws/a/b/c\n", "resources.infra: expected cloud, cloud/region or cloud/region/zone"},
		{"resources:\n  infra: aws\n  cloud: aws\n", "resources: infra and cloud/region/zone: give one of them"},
		{"resources:\n  any_of: [{infra: aws}]\n  ordered: [{infra: gcp}]\n", "resources: any_of and ordered: give one"},
		{"resources:\n  any_of: [aws]\n", "task.yaml:2: resources.any_of[1]: expected a mapping of resources keys, got a value"},
		{"resources:\n  any_of: []\n", "resources.any_of: expected a list of resources mappings, got an empty list"},
		{"resources:\n  any_of:\n    - any_of: [{infra: aws}]\n", "any_of and ordered do not nest"},
		{"resources: [a]\n", "task.yaml:1: resources: expected a mapping of resources keys, got a list"},
		{"envs: {A: [1]}\n", "task.yaml:1: envs.A: expected a text value or nothing, got a list"},
		{"name: [a]\n", "task.yaml:1: name: expected a name, got a list"},
		{"resources:\n  region: \"0123456789012345678901234567890123456789012345678901234567890123456789\"\n",
		 "task.yaml:2: resources.region: longer than 63 characters"},
		/* SKY_MAX_CANDIDATES: 9 x 8 */
		{"resources:\n  any_of:\n"
		 "    - accelerators: [a:1, b:1, c:1, d:1, e:1, f:1, g:1, h:1]\n"
		 "    - accelerators: [a:1, b:1, c:1, d:1, e:1, f:1, g:1, h:1]\n"
		 "    - accelerators: [a:1, b:1, c:1, d:1, e:1, f:1, g:1, h:1]\n"
		 "    - accelerators: [a:1, b:1, c:1, d:1, e:1, f:1, g:1, h:1]\n"
		 "    - accelerators: [a:1, b:1, c:1, d:1, e:1, f:1, g:1, h:1]\n"
		 "    - accelerators: [a:1, b:1, c:1, d:1, e:1, f:1, g:1, h:1]\n"
		 "    - accelerators: [a:1, b:1, c:1, d:1, e:1, f:1, g:1, h:1]\n"
		 "    - accelerators: [a:1, b:1, c:1, d:1, e:1, f:1, g:1, h:1]\n"
		 "    - accelerators: [a:1, b:1, c:1, d:1, e:1, f:1, g:1, h:1]\n",
		 "at most 64 candidate resources"},
		/* structure */
		{"- a\n", "task.yaml:1: expected a mapping of key: value, got a list"},
		{"just text\n", "task.yaml:1: expected a mapping of key: value, got a plain value"},
		{"run: [x\n", "YAML syntax error"},
		/* the input's bytes are escaped */
		{"resources:\n  cpus: \"4\\e[31m\"\n", "got '4\\x1b[31m'"},
		/* not a task: what it looks like */
		{"admin_policy: a.B\n", "task.yaml:1: looks like a SkyPilot admin policy, not a SkyPilot task"},
		{"apiVersion: v1\nkind: Pod\nmetadata: {}\n", "looks like a Kubernetes manifest"},
		{"version: '3'\nservices: {a: {}}\n", "looks like a Docker Compose file"},
		{"name: ci\n\"on\": [push]\njobs: {}\n", "looks like a GitHub Actions workflow"},
		{"base_model: x\nlr: 1\n", "looks like a tool's configuration"},
		{"", "looks like an empty file"},
	};

	(void)s;
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		if (parse(cases[i].yaml) != -1)
			fail_msg("case %zu parsed: %s", i, cases[i].yaml);
		if (!strstr(err, cases[i].expect))
			fail_msg("case %zu: got '%s', expected '%s'", i, err, cases[i].expect);
		assert_null(strchr(err, '\n'));
	}
	assert_int_equal(parse("admin_policy: a.B\n"), -1);
	assert_non_null(t.not_a_task);
	assert_int_equal(parse("resources:\n  cpus: x\n"), -1);
	assert_null(t.not_a_task);
}

/* the deep-nesting bound ends a million '[' at once */
static void test_deep(void **s)
{
	static const char head[] = "run: x\nconfig: ";
	size_t n = 1000000, hl = strlen(head);
	char *y = malloc(hl + n + 32);

	(void)s;
	assert_non_null(y);
	memcpy(y, head, hl);
	memset(y + hl, '[', n);
	memcpy(y + hl + n, "\n", 2);
	assert_int_equal(parse(y), -1);
	assert_string_equal(err, "task.yaml:2: config: nesting deeper than 64 levels");
	memcpy(y, "resources:\n  any_of: ", 21);
	memset(y + 21, '[', n);
	y[21 + n] = '\0';
	assert_int_equal(parse(y), -1);
	assert_non_null(strstr(err, "nesting deeper than 64 levels"));
	free(y);
}

static void test_task_keys(void **s)
{
	(void)s;
	assert_true(sky_task_key("resources") && sky_task_key("run") && sky_task_key("pool"));
	assert_true(sky_task_key("num_nodes") && sky_task_key("execution") && sky_task_key("secrets"));
	assert_false(sky_task_key("model") || sky_task_key("tokens") || sky_task_key("accelerators"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_a100_is_one_40gb),
		cmocka_unit_test(test_fraction_is_a_slice),
		cmocka_unit_test(test_accelerator_forms),
		cmocka_unit_test(test_any_of_merges_outer_keys),
		cmocka_unit_test(test_documents),
		cmocka_unit_test(test_units),
		cmocka_unit_test(test_infra),
		cmocka_unit_test(test_cloud_names_whole),
		cmocka_unit_test(test_instance_type_and_spot),
		cmocka_unit_test(test_long_values_and_notes),
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_deep),
		cmocka_unit_test(test_task_keys),
	};
	return cmocka_run_group_tests_name("skytask", tests, tu_setup, teardown);
}
