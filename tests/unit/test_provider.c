/*
 * test_provider.c - core/market/provider.c's table holds together: names
 * sorted and unique, presets unique and paired, billing profiles in
 * data/billing.csv, releasing presets in data/release_leftovers.csv and every
 * preset in docs/guard.md, so that a new provider's row cannot half-fit.
 */
#include "testutil.h"

#include <strings.h>

#include "core/box/release.h"
#include "core/market/billing.h"
#include "core/market/provider.h"
#include "core/task/skytask.h"
#include "core/text/names.h"

/* The presets of row p: stop, release (.name NULL: none). */
static const struct provider_preset *preset_of(const struct provider *p, int k)
{
	return k ? &p->release : &p->stop;
}

/* Each '|'-separated item of list into out (n bytes), by index; false past the last. */
static bool item(const char *list, size_t idx, char *out, size_t n)
{
	for (size_t i = 0; list && *list; i++) {
		size_t l = strcspn(list, "|");
		if (i == idx) {
			snprintf(out, n, "%.*s", (int)l, list);
			return true;
		}
		list += l + (list[l] == '|');
	}
	return false;
}

static void test_names(void **state)
{
	char a[128], b[128];

	(void)state;
	assert_true(providers_n > 0);
	for (size_t i = 0; i < providers_n; i++) {
		const struct provider *p = &providers[i];
		assert_non_null(p->name);
		if (i && strcmp(providers[i - 1].name, p->name) >= 0)
			fail_msg("providers[]: %s after %s: keep it sorted, names unique", p->name,
				 providers[i - 1].name);
		for (const char *c = p->name; *c; c++)
			if (!((*c >= 'a' && *c <= 'z') || (*c >= '0' && *c <= '9') || *c == '-'))
				fail_msg("%s: a provider's name is lowercase-with-dashes", p->name);
		/* a catalog name means one provider only */
		for (size_t k = 0; item(p->names, k, a, sizeof(a)); k++) {
			assert_true(a[0]);
			if (provider_by_name(a) != p)
				fail_msg("%s: name '%s' is %s's too", p->name, a, provider_by_name(a)->name);
		}
		/* an offer's name starts with one prefix at most */
		for (size_t k = 0; item(p->prefixes, k, a, sizeof(a)); k++)
			for (size_t j = 0; j < providers_n; j++)
				for (size_t m = 0; item(providers[j].prefixes, m, b, sizeof(b)); m++)
					if ((j != i || m != k) && !strncasecmp(a, b, strlen(b)))
						fail_msg("%s: prefix '%s' starts with %s's '%s'", p->name, a,
							 providers[j].name, b);
		if (p->prefixes && !p->stop.name && !p->release.name)
			fail_msg("%s: prefixes name the provider for its presets, and it has none", p->name);
	}
}

static void test_sky(void **state)
{
	(void)state;
	for (size_t i = 0; i < providers_n; i++) {
		const struct provider *p = &providers[i];
		struct cat_str c;
		if (!p->sky_cloud) {
			if (p->quirks & PROV_GPUINFO_TOTAL)
				fail_msg("%s: a SkyPilot catalog quirk without a SkyPilot cloud", p->name);
			continue;
		}
		if (provider_by_sky_cloud(p->sky_cloud, true) != p)
			fail_msg("%s: SkyPilot cloud %s twice", p->name, p->sky_cloud);
		/* a catalog named after the cloud is that cloud */
		if (provider_by_name(p->sky_cloud) != p)
			fail_msg("%s: names must hold its SkyPilot cloud %s", p->name, p->sky_cloud);
		c = (struct cat_str){.p = p->sky_cloud, .len = (uint32_t)strlen(p->sky_cloud)};
		assert_string_equal(sky_cloud_of(&c), p->sky_cloud);
		if (p->supply != SUPPLY_HYPERSCALER && p->supply != SUPPLY_AI_CLOUD &&
		    p->supply != SUPPLY_MARKETPLACE)
			fail_msg("%s: a SkyPilot cloud is a hyperscaler, an AI cloud or a marketplace", p->name);
	}
}

static void test_presets(void **state)
{
	size_t n = 0, campus = 0;
	char want[64];

	(void)state;
	for (size_t i = 0; i < providers_n; i++) {
		const struct provider *p = &providers[i];
		for (int k = 0; k < 2; k++) {
			const struct provider_preset *s = preset_of(p, k);
			size_t v = 0;
			if (!s->name)
				continue;
			n++;
			if (provider_preset_find(s->name) != s || provider_of_preset(s) != p)
				fail_msg("%s: preset %s twice", p->name, s->name);
			assert_true(s->shell && *s->shell && s->what && *s->what);
			while (v < ARRAY_SIZE(s->vars) && s->vars[v])
				v++;
			if (v == ARRAY_SIZE(s->vars))
				fail_msg("preset %s: vars must end with NULL", s->name);
			if (k ? s->effect != REL_RELEASES : s->effect == REL_RELEASES)
				fail_msg("preset %s: .stop stops or ends a job, .release releases", s->name);
		}
		/* gpurent run --release --preset X runs X-release */
		if (p->stop.name && p->release.name) {
			snprintf(want, sizeof(want), "%s-release", p->stop.name);
			if (strcmp(p->release.name, want))
				fail_msg("%s: release preset %s, expected %s", p->name, p->release.name, want);
		}
		if (p->supply == SUPPLY_CAMPUS_HPC) {
			campus++;
			assert_non_null(p->stop.name);
			assert_string_equal(release_preset_for("", 0, true), p->stop.name);
		}
	}
	assert_int_equal(campus, 1);
	/* provider_preset_at() lists each once, by name */
	for (size_t i = 0; i < n; i++) {
		assert_non_null(provider_preset_at(i));
		if (i)
			assert_true(strcmp(provider_preset_at(i - 1)->name, provider_preset_at(i)->name) < 0);
	}
	assert_null(provider_preset_at(n));
	assert_null(provider_preset_find("nosuch"));
	assert_null(provider_of_preset(NULL));
}

/* The files that must know each provider's profile and presets. */
static void test_files(void **state)
{
	struct billing_db db = {0};
	struct rel_leftovers lo = {0};
	size_t len, glen;
	char err[512], line[128], *buf = tu_read("data/billing.csv", &len), *guard;

	(void)state;
	assert_non_null(buf);
	if (billing_db_load(&db, buf, len, "data/billing.csv", err, sizeof(err)))
		fail_msg("%s", err);
	free(buf);
	assert_non_null(buf = tu_read("data/release_leftovers.csv", &len));
	if (release_leftovers_load(buf, len, "data/release_leftovers.csv", &lo, err, sizeof(err)))
		fail_msg("%s", err);
	assert_non_null(guard = tu_read("docs/guard.md", &glen));
	for (size_t i = 0; i < providers_n; i++) {
		const struct provider *p = &providers[i];
		if (p->billing && !billing_find(&db, p->billing))
			fail_msg("%s: billing profile %s is not in data/billing.csv", p->name, p->billing);
		for (int k = 0; k < 2; k++) {
			const struct provider_preset *s = preset_of(p, k);
			bool listed = false;
			if (!s->name)
				continue;
			snprintf(line, sizeof(line), "\n| `%s` |", s->name);
			if (!strstr(guard, line))
				fail_msg("docs/guard.md: no row | `%s` | for the preset", s->name);
			for (size_t j = 0; j < lo.n; j++)
				listed |= !strcmp(lo.v[j].preset, s->name);
			if (s->effect == REL_RELEASES && !listed)
				fail_msg("data/release_leftovers.csv: no row for %s (what it leaves billing)", s->name);
		}
	}
	free(guard);
	release_leftovers_free(&lo);
	free(buf);
	billing_db_free(&db);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_names),
		cmocka_unit_test(test_sky),
		cmocka_unit_test(test_presets),
		cmocka_unit_test(test_files),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
