/*
 * test_secwords.c - the words of the security findings (src/cmd/box/secwords.c,
 * included whole): every code is worded, every warn and fail has a fix,
 * and the facts a sentence states are the finding's (issue 16).
 */
#include "testutil.h"
#include "cmd/box/secwords.h"

static void test_every_code(void **state)
{
	static struct sec_facts f;
	struct sec_report r;
	bool seen[SEC_F_COUNT] = {false};

	(void)state;
	memset(&f, 0, sizeof(f));
	f.nlisteners = 7;
	f.listeners[0] = (struct sec_listener){.sock = {.addr = "0.0.0.0", .port = 8888, .bind = SEC_BIND_ANY},
					       .pid = 10, .kind = SEC_PROC_JUPYTER, .auth = SEC_AUTH_NONE};
	f.listeners[1] = (struct sec_listener){.sock = {.addr = "::", .port = 6006, .bind = SEC_BIND_ANY},
					       .pid = 11, .kind = SEC_PROC_TENSORBOARD};
	f.listeners[2] = (struct sec_listener){.sock = {.addr = "0.0.0.0", .port = 22, .bind = SEC_BIND_ANY},
					       .pid = 1, .kind = SEC_PROC_SSHD, .sshd_passwords = SEC_YES,
					       .sshd_source = "sshd -T"};
	f.listeners[3] = (struct sec_listener){.sock = {.addr = "0.0.0.0", .port = 2222, .bind = SEC_BIND_ANY},
					       .pid = 2, .kind = SEC_PROC_SSHD, .sshd_passwords = SEC_NO,
					       .sshd_source = "/etc/ssh/sshd_config"};
	f.listeners[4] = (struct sec_listener){.sock = {.addr = "127.0.0.1", .port = 8000, .bind = SEC_BIND_LOOPBACK},
					       .pid = 12, .kind = SEC_PROC_MODEL_SERVER};
	f.listeners[5] = (struct sec_listener){.sock = {.addr = "10.0.0.5", .port = 80, .bind = SEC_BIND_ADDR},
					       .pid = 13, .proc = "nginx"};
	f.listeners[6] = (struct sec_listener){.sock = {.addr = "0.0.0.0", .port = 9, .bind = SEC_BIND_ANY}, .pid = -1};
	f.ncreds = 4;
	f.creds[0] = (struct sec_cred_file){.kind = SEC_CRED_HF, .path = "/h/.cache/huggingface/token", .count = 1,
					    .mode = 0644};
	f.creds[1] = (struct sec_cred_file){.kind = SEC_CRED_AWS, .path = "/h/.aws/credentials", .count = 1,
					    .temporary = true, .mode = 0600};
	f.creds[2] = (struct sec_cred_file){.kind = SEC_CRED_SSH_KEY, .path = "/h/.ssh/id_rsa", .count = 1,
					    .key = SEC_KEY_PLAIN, .mode = 0600};
	f.creds[3] = (struct sec_cred_file){.kind = SEC_CRED_SSH_KEY, .path = "/h/.ssh/id_ok", .count = 1,
					    .key = SEC_KEY_ENCRYPTED, .mode = 0600};
	f.nenvnames = 2;
	snprintf(f.envnames[0], sizeof(f.envnames[0]), "HF_TOKEN");
	snprintf(f.envnames[1], sizeof(f.envnames[1]), "WANDB_API_KEY");
	f.nleftovers = 1;
	f.leftovers[0] = (struct sec_leftover){.path = "/tmp/shard.bin", .size = 3u << 30};
	snprintf(f.tmp_roots, sizeof(f.tmp_roots), "/tmp /dev/shm");
	assert_int_equal(secscan_judge(&f, &r), 0);
	for (size_t i = 0; i < r.n; i++) {
		char what[640], fix[512];
		sec_word(&r.v[i], what, sizeof(what), fix, sizeof(fix));
		seen[r.v[i].code] = true;
		assert_true(what[0] != '\0');
		assert_null(strchr(what, '?'));
		if (r.v[i].level >= ENV_WARN && !fix[0])
			fail_msg("%s: no fix", secscan_code_name(r.v[i].code));
		if (r.v[i].level <= ENV_OK && fix[0])
			fail_msg("%s: a fix on an ok finding", secscan_code_name(r.v[i].code));
		switch (r.v[i].code) {
		case SEC_F_JUPYTER_OPEN:
			assert_non_null(strstr(what, "(pid 10) listens on all interfaces (0.0.0.0 port 8888) without a token"));
			assert_non_null(strstr(fix, "ssh -N -L 8888:127.0.0.1:8888"));
			break;
		case SEC_F_SSHD_PASSWORD:
			assert_non_null(strstr(what, "allows password login (sshd -T)"));
			break;
		case SEC_F_CRED_READABLE:
			assert_non_null(strstr(what, "(mode 0644)"));
			assert_string_equal(fix, "chmod 600 /h/.cache/huggingface/token");
			break;
		case SEC_F_ENV_SECRET:
			assert_non_null(strstr(what, "(values not shown): HF_TOKEN WANDB_API_KEY"));
			break;
		case SEC_F_TMP_LARGE:
			assert_non_null(strstr(what, "/tmp/shard.bin (3.0 GiB)"));
			break;
		default:
			break;
		}
	}
	secscan_report_free(&r);
	/* and the "none found" lines, and an unreadable /proc */
	memset(&f, 0, sizeof(f));
	assert_int_equal(secscan_judge(&f, &r), 0);
	for (size_t i = 0; i < r.n; i++) {
		char what[640], fix[512];
		sec_word(&r.v[i], what, sizeof(what), fix, sizeof(fix));
		seen[r.v[i].code] = true;
		assert_true(what[0] != '\0');
	}
	secscan_report_free(&r);
	f.net_read = true;
	assert_int_equal(secscan_judge(&f, &r), 0);
	seen[r.v[0].code] = true;
	secscan_report_free(&r);
	for (int c = 0; c < SEC_F_COUNT; c++)
		if (!seen[c] && c != SEC_F_CRED_FILE)
			fail_msg("code %s is never produced here", secscan_code_name((enum sec_code)c));
}

static void test_cred_words(void **state)
{
	(void)state;
	for (int k = 0; k < SEC_CRED_COUNT; k++) {
		struct sec_cred_file c = {.kind = (enum sec_cred)k, .path = "/p", .count = 2,
					  .key = SEC_KEY_PLAIN};
		struct sec_finding f = {.level = ENV_WARN, .code = k == SEC_CRED_SSH_KEY ? SEC_F_KEY_PLAIN
										 : SEC_F_CRED_FILE,
					.cred = &c};
		char what[640], fix[512];
		sec_word(&f, what, sizeof(what), fix, sizeof(fix));
		assert_non_null(strstr(what, "/p "));
		assert_non_null(strstr(fix, "gpurent release deletes it"));
	}
}

static void test_cut(void **state)
{
	struct sec_leftover l = {.path = "/tmp/a-long-name-that-will-not-fit", .size = 1u << 31};
	struct sec_finding f = {.level = ENV_WARN, .code = SEC_F_TMP_LARGE, .leftover = &l};
	char what[8], fix[4];

	(void)state;
	sec_word(&f, what, sizeof(what), fix, sizeof(fix));
	assert_int_equal(strlen(what), 7);
	assert_int_equal(strlen(fix), 3);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_every_code),
		cmocka_unit_test(test_cred_words),
		cmocka_unit_test(test_cut),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
