/*
 * fuzz_sshd.c - secscan_sshd_passwords() (src/core/box/secscan.h) on the input
 * as an sshd_config, secscan_jupyter_auth() on it as Jupyter's config, and
 * secscan_cred_facts() on it as each kind of credential file.
 */
#include <string.h>

#include "core/box/secscan.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *s = (const char *)data;
	const char *argv[] = {"jupyter-lab"};
	enum sec_tri t;
	char err[256] = "";
	int rc = secscan_sshd_passwords(s, size, "sshd_config", true, &t, err, sizeof(err));
	enum sec_auth a;

	FUZZ_CHECK(rc == 0 || rc == -1);
	if (rc)
		FUZZ_CHECK(!strncmp(err, "sshd_config:", 12) && strstr(err, "PasswordAuthentication: expected"));
	else
		FUZZ_CHECK(t == SEC_YES || t == SEC_NO);   /* default_yes: never unknown */
	a = secscan_jupyter_auth(argv, 1, s, size);
	FUZZ_CHECK(a >= SEC_AUTH_DEFAULT_TOKEN && a <= SEC_AUTH_NONE);
	for (int c = 0; c < SEC_CRED_COUNT; c++) {
		long n;
		bool tmp;
		secscan_cred_facts((enum sec_cred)c, s, size, &n, &tmp);
		FUZZ_CHECK(n >= 0);
		FUZZ_CHECK(!tmp || c == SEC_CRED_AWS);
	}
	return 0;
}
