/*
 * provider.c - the providers gpurent knows (provider.h), one row each: the
 * one place their names, SkyPilot clouds, billing profiles, presets and
 * catalog quirks are written down. No I/O.
 */
#include "core/market/provider.h"

#include <string.h>
#include <strings.h>

#include "core/text/names.h"
#include "base/util.h"

/* the columns every row states, in this order; then .stop and .release */
#define ROW(n, nm, pf, sky, sup, bill, q) \
	.name = n, .names = nm, .prefixes = pf, .sky_cloud = sky, .supply = sup, .billing = bill, .quirks = q
#define H SUPPLY_HYPERSCALER
#define AI SUPPLY_AI_CLOUD
#define MK SUPPLY_MARKETPLACE

/*
 * MUST stay sorted by name; tests/unit/test_provider.c checks the rest
 * (unique names and presets, profiles in data/billing.csv). ROW() states
 * name, names, prefixes, sky_cloud, supply, billing and quirks (provider.h).
 * SkyPilot's clouds are the sky/clouds/ modules (`sky check`), their names
 * those of SkyPilot's catalog folders and of data/offers.csv; the presets
 * are described in docs/guard.md, and docs/release.md cites each CLI (the
 * release presets delete the instance and its disks).
 */
const struct provider providers[] = {
	{ROW("autodl", "autodl", "autodl", NULL, AI, "autodl", 0),
	 .stop = {"autodl", "/usr/bin/shutdown", {NULL},
	  "AutoDL: `shutdown` inside the instance powers it off and stops billing", REL_STOPS}},
	{ROW("aws", "aws|Amazon|Amazon Web Services", "aws", "aws", H, "aws", 0),
	 .release = {"aws-release", "aws ec2 terminate-instances --instance-ids \"$GPURENT_INSTANCE_ID\"",
	  {"GPURENT_INSTANCE_ID", NULL},
	  "AWS EC2: terminate the instance; volumes with DeleteOnTermination (the root volume by default) go with it",
	  REL_RELEASES}},
	{ROW("azure", "azure|Microsoft Azure", "azure", "azure", H, "azure", 0),
	 .release = {"azure-release",
	  "ids=$(az vm show -g \"$GPURENT_RESOURCE_GROUP\" -n \"$GPURENT_INSTANCE_NAME\" --query "
	  "\"[storageProfile.osDisk.managedDisk.id, storageProfile.dataDisks[].managedDisk.id][]\" -o tsv) && "
	  "az vm delete -g \"$GPURENT_RESOURCE_GROUP\" -n \"$GPURENT_INSTANCE_NAME\" --yes && "
	  "az disk delete --ids $ids --yes",
	  {"GPURENT_RESOURCE_GROUP", "GPURENT_INSTANCE_NAME", NULL},
	  "Azure: delete the VM, then its OS and data disks (az vm delete keeps them unless created with delete-option Delete)",
	  REL_RELEASES}},
	/* a campus cluster on Slurm: scancel ends the job, the home stays */
	{ROW("campus-hpc", NULL, NULL, NULL, SUPPLY_CAMPUS_HPC, "campus-hpc", 0),
	 .stop = {"slurm", "scancel \"$SLURM_JOB_ID\"", {"SLURM_JOB_ID", NULL},
	  "Slurm (campus HPC): cancel this job's allocation", REL_ENDS_JOB}},
	{ROW("cudo", "cudo|Cudo Compute", NULL, "cudo", AI, "cudo", 0)},
	{ROW("do", "do|DigitalOcean", NULL, "do", AI, NULL, 0)},
	{ROW("fluidstack", "fluidstack", NULL, "fluidstack", AI, NULL, 0)},
	{ROW("gcp", "gcp|Google Cloud|Google Cloud Platform", "gcp|google", "gcp", H, "gcp", 0),
	 .release = {"gcp-release",
	  "gcloud compute instances delete \"$GPURENT_INSTANCE_NAME\" --zone \"$GPURENT_ZONE\" --delete-disks=all --quiet",
	  {"GPURENT_INSTANCE_NAME", "GPURENT_ZONE", NULL},
	  "Google Compute Engine: delete the instance and all its disks", REL_RELEASES}},
	{ROW("hyperbolic", "hyperbolic", NULL, "hyperbolic", AI, NULL, 0)},
	{ROW("hyperstack", "hyperstack", NULL, "hyperstack", AI, NULL, 0)},
	{ROW("ibm", "ibm|IBM Cloud", NULL, "ibm", H, NULL, 0)},
	{ROW("kubernetes", "kubernetes|k8s", NULL, "kubernetes", AI, NULL, 0)},
	{ROW("lambda", "lambda|Lambda|Lambda Cloud|Lambda Labs", NULL, "lambda", AI, "lambda", 0)},
	{ROW("nebius", "nebius", NULL, "nebius", AI, NULL, 0)},
	{ROW("oci", "oci|Oracle|Oracle Cloud", NULL, "oci", H, NULL, 0)},
	{ROW("paperspace", "paperspace", NULL, "paperspace", AI, NULL, 0)},
	/* GpuInfo: Count x the total in TotalGpuMemoryInMiB, the total in SizeInMiB */
	{ROW("primeintellect", "primeintellect|Prime Intellect", NULL, "primeintellect", AI, "primeintellect",
	 PROV_GPUINFO_TOTAL)},
	{ROW("runpod", "runpod", "runpod", "runpod", AI, "runpod", 0),
	 .stop = {"runpod", "runpodctl stop pod \"$RUNPOD_POD_ID\"", {"RUNPOD_POD_ID", NULL},
	  "RunPod: stop this pod (runpodctl and RUNPOD_API_KEY are present in RunPod pods); the volume is kept",
	  REL_STOPS},
	 .release = {"runpod-release", "runpodctl remove pod \"$RUNPOD_POD_ID\"", {"RUNPOD_POD_ID", NULL},
	  "RunPod: remove (terminate) this pod and its volume disk; billing ends", REL_RELEASES}},
	{ROW("scp", "scp|Samsung Cloud Platform", NULL, "scp", AI, NULL, 0)},
	{ROW("seeweb", "seeweb", NULL, "seeweb", AI, NULL, 0)},
	{ROW("shadeform", "shadeform", NULL, "shadeform", AI, "shadeform", 0)},
	{ROW("together", "together|Together AI", NULL, "together", AI, NULL, 0)},
	{ROW("vast", "vast|Vast.ai", "vast", "vast", MK, "vast", PROV_GPUINFO_TOTAL),
	 .stop = {"vastai", "vastai stop instance \"$CONTAINER_ID\"", {"CONTAINER_ID", NULL},
	  "Vast.ai: stop this instance (the vastai CLI with an API key set by 'vastai set api-key')", REL_STOPS},
	 .release = {"vastai-release", "echo y | vastai destroy instance \"$CONTAINER_ID\"", {"CONTAINER_ID", NULL},
	  "Vast.ai: destroy this instance and its data (irreversible); the 'y' answers newer CLIs' prompt",
	  REL_RELEASES}},
	/* any VM: no provider's own command */
	{ROW("vm", NULL, NULL, NULL, SUPPLY_UNKNOWN, NULL, 0),
	 .stop = {"shutdown", "shutdown -h now || sudo -n shutdown -h now", {NULL},
	  "any VM: power off (root or passwordless sudo); EC2/GCE/Azure then stop billing for compute", REL_STOPS}},
	{ROW("vsphere", "vsphere", NULL, "vsphere", AI, NULL, 0)},
};

const size_t providers_n = ARRAY_SIZE(providers);

const struct provider_preset *provider_preset_find(const char *name)
{
	for (size_t i = 0; i < providers_n; i++) {
		if (providers[i].stop.name && !strcmp(providers[i].stop.name, name))
			return &providers[i].stop;
		if (providers[i].release.name && !strcmp(providers[i].release.name, name))
			return &providers[i].release;
	}
	return NULL;
}

/* How many presets are named before name. */
static size_t presets_before(const char *name)
{
	size_t k = 0;

	for (size_t i = 0; i < providers_n; i++) {
		k += providers[i].stop.name && strcmp(providers[i].stop.name, name) < 0;
		k += providers[i].release.name && strcmp(providers[i].release.name, name) < 0;
	}
	return k;
}

const struct provider_preset *provider_preset_at(size_t i)
{
	/* a few presets: rank each rather than keep a second, sorted table */
	for (size_t r = 0; r < providers_n; r++) {
		if (providers[r].stop.name && presets_before(providers[r].stop.name) == i)
			return &providers[r].stop;
		if (providers[r].release.name && presets_before(providers[r].release.name) == i)
			return &providers[r].release;
	}
	return NULL;
}

const struct provider *provider_of_preset(const struct provider_preset *p)
{
	for (size_t i = 0; i < providers_n; i++)
		if (p && (p == &providers[i].stop || p == &providers[i].release))
			return &providers[i];
	return NULL;
}

const struct provider *provider_by_prefix(const char *name, size_t len)
{
	for (size_t i = 0; i < providers_n; i++) {
		const char *s = providers[i].prefixes;
		while (s && *s) {
			size_t l = strcspn(s, "|");
			if (l && len >= l && !strncasecmp(name, s, l))
				return &providers[i];
			s += l;
			if (*s == '|')
				s++;
		}
	}
	return NULL;
}

const struct provider *provider_by_name(const char *name)
{
	for (size_t i = 0; i < providers_n; i++)
		if (providers[i].names && names_in_list(name, providers[i].names))
			return &providers[i];
	return NULL;
}

const struct provider *provider_by_sky_cloud(const char *cloud, bool icase)
{
	for (size_t i = 0; i < providers_n; i++) {
		const char *c = providers[i].sky_cloud;
		if (c && !(icase ? strcasecmp(c, cloud) : strcmp(c, cloud)))
			return &providers[i];
	}
	return NULL;
}

bool provider_has_quirk(const char *provider, unsigned q)
{
	for (size_t i = 0; provider && i < providers_n; i++) {
		size_t n = strlen(providers[i].name);
		if ((providers[i].quirks & q) && !strncmp(provider, providers[i].name, n) &&
		    (!provider[n] || provider[n] == '-'))
			return true;
	}
	return false;
}
