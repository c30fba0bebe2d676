/*
 * test_secscan.c - the security findings' parsers and verdicts
 * (src/core/box/secscan.c): /proc/net/tcp and tcp6 lines, what a process is,
 * Jupyter's token, sshd's PasswordAuthentication, key headers, the counts
 * of credential files, and the judge (issue 16).
 */
#include "testutil.h"
#include "core/box/secscan.h"

#define TCP_HDR "  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode\n"

static void test_tcp4(void **state)
{
	const char buf[] = TCP_HDR
		"   0: 00000000:1F90 00000000:0000 0A 00000000:00000000 00:00000000 00000000  1000        0 4242 1 0 100 0 0 10 0\n"
		"   1: 0100007F:0CEA 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 17 1 0\n"
		"   2: 0500000A:0016 0600000A:D431 01 00000000:00000000 00:00000000 00000000     0        0 18 1 0\n";
	struct sec_sock *v;
	size_t n;
	char err[256];

	(void)state;
	assert_int_equal(secscan_parse_tcp(buf, sizeof(buf) - 1, "tcp", false, &v, &n, err, sizeof(err)), 0);
	assert_int_equal(n, 3);
	assert_string_equal(v[0].addr, "0.0.0.0");
	assert_int_equal(v[0].port, 8080);
	assert_int_equal(v[0].bind, SEC_BIND_ANY);
	assert_int_equal(v[0].state, 0x0A);
	assert_int_equal(v[0].uid, 1000);
	assert_true(v[0].inode == 4242);
	assert_string_equal(v[1].addr, "127.0.0.1");
	assert_int_equal(v[1].port, 3306);
	assert_int_equal(v[1].bind, SEC_BIND_LOOPBACK);
	assert_string_equal(v[2].addr, "10.0.0.5");
	assert_int_equal(v[2].bind, SEC_BIND_ADDR);
	assert_int_equal(v[2].state, 1);
	free(v);
}

static void test_tcp6(void **state)
{
	const char buf[] = TCP_HDR
		"   0: 00000000000000000000000000000000:1F90 00000000000000000000000000000000:0000 0A 0:0 00:0 0 1000 0 11 1\n"
		"   1: 00000000000000000000000001000000:0050 00000000000000000000000000000000:0000 0A 0:0 00:0 0 1000 0 12 1\n"
		"   2: 0000000000000000FFFF00000100007F:0050 00000000000000000000000000000000:0000 0A 0:0 00:0 0 1000 0 13 1\n";
	struct sec_sock *v;
	size_t n;
	char err[256];

	(void)state;
	assert_int_equal(secscan_parse_tcp(buf, sizeof(buf) - 1, "tcp6", true, &v, &n, err, sizeof(err)), 0);
	assert_int_equal(n, 3);
	assert_string_equal(v[0].addr, "::");
	assert_int_equal(v[0].bind, SEC_BIND_ANY);
	assert_string_equal(v[1].addr, "::1");
	assert_int_equal(v[1].bind, SEC_BIND_LOOPBACK);
	assert_string_equal(v[2].addr, "::ffff:127.0.0.1");
	assert_int_equal(v[2].bind, SEC_BIND_LOOPBACK);
	free(v);
}

static void test_tcp_bad(void **state)
{
	static const struct {
		const char *text, *want;
	} cases[] = {
		{"   0: 0100007F:ZZZZ 00000000:0000 0A 0 0 0 1000 0 123\n", "tcp:1: local_address: expected 8 hex digits"},
		{TCP_HDR "   0: 0100007F:0050 00000000:0000 0A 0 0 0\n", "tcp:2: inode: expected 10 fields"},
		{TCP_HDR "   0: 0100007F:0050 00000000:0000 XYZ 0 0 0 1000 0 1\n", "tcp:2: st: expected 2 hex digits"},
		{TCP_HDR "   0: 0100007F:0050 00000000:0000 0A 0 0 0 uid 0 1\n", "tcp:2: uid: expected a number"},
		{TCP_HDR "   0  0100007F:0050 00000000:0000 0A 0 0 0 1000 0 1\n", "tcp:2: sl: expected"},
	};
	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		struct sec_sock *v = (void *)1;
		size_t n = 9;
		char err[256] = "";
		assert_int_equal(secscan_parse_tcp(cases[i].text, strlen(cases[i].text), "tcp", false, &v, &n,
						   err, sizeof(err)), -1);
		assert_null(v);
		assert_int_equal(n, 0);
		if (!strstr(err, cases[i].want))
			fail_msg("case %zu: '%s' lacks '%s'", i, err, cases[i].want);
	}
}

static void test_classify(void **state)
{
	const char *jl[] = {"/opt/conda/bin/python3.11", "/opt/conda/bin/jupyter-lab", "--ip=0.0.0.0"};
	const char *jm[] = {"python", "-m", "jupyter", "lab"};
	const char *tb[] = {"/usr/bin/python3", "-u", "/usr/local/bin/tensorboard", "--logdir", "runs"};
	const char *vl[] = {"python3", "-m", "vllm.entrypoints.openai.api_server"};
	const char *ol[] = {"/usr/local/bin/ollama", "serve"};
	const char *sd[] = {"sshd: /usr/sbin/sshd -D [listener] 0 of 10-100 startups"};
	const char *sd2[] = {"/usr/sbin/sshd", "-D"};
	const char *nc[] = {"nc", "-l", "8000"};

	(void)state;
	assert_int_equal(secscan_classify(jl, 3), SEC_PROC_JUPYTER);
	assert_int_equal(secscan_classify(jm, 4), SEC_PROC_JUPYTER);
	assert_int_equal(secscan_classify(tb, 5), SEC_PROC_TENSORBOARD);
	assert_int_equal(secscan_classify(vl, 3), SEC_PROC_MODEL_SERVER);
	assert_int_equal(secscan_classify(ol, 2), SEC_PROC_MODEL_SERVER);
	assert_int_equal(secscan_classify(sd, 1), SEC_PROC_SSHD);
	assert_int_equal(secscan_classify(sd2, 2), SEC_PROC_SSHD);
	assert_int_equal(secscan_classify(nc, 3), SEC_PROC_OTHER);
	assert_int_equal(secscan_classify(NULL, 0), SEC_PROC_OTHER);
}

static void test_jupyter(void **state)
{
	const char *open1[] = {"jupyter-lab", "--ServerApp.token="};
	const char *open2[] = {"jupyter-notebook", "--NotebookApp.token", ""};
	const char *tok[] = {"jupyter-lab", "--ServerApp.token=abc"};
	const char *pw[] = {"jupyter-lab", "--ServerApp.token=", "--ServerApp.password=argon2:xyz"};
	const char *plain[] = {"jupyter-lab"};
	const char conf_open[] = "# c.ServerApp.token = 'x'\nc.ServerApp.token = ''\n";
	const char conf_json[] = "{\"ServerApp\": {\"token\": \"\"}}";
	const char conf_pw[] = "c.ServerApp.token = ''\nc.PasswordIdentityProvider.hashed_password = 'argon2:abc'\n";

	(void)state;
	assert_int_equal(secscan_jupyter_auth(open1, 2, NULL, 0), SEC_AUTH_NONE);
	assert_int_equal(secscan_jupyter_auth(open2, 3, NULL, 0), SEC_AUTH_NONE);
	assert_int_equal(secscan_jupyter_auth(tok, 2, NULL, 0), SEC_AUTH_TOKEN);
	assert_int_equal(secscan_jupyter_auth(pw, 3, NULL, 0), SEC_AUTH_PASSWORD);
	assert_int_equal(secscan_jupyter_auth(plain, 1, NULL, 0), SEC_AUTH_DEFAULT_TOKEN);
	assert_int_equal(secscan_jupyter_auth(plain, 1, conf_open, strlen(conf_open)), SEC_AUTH_NONE);
	assert_int_equal(secscan_jupyter_auth(plain, 1, conf_json, strlen(conf_json)), SEC_AUTH_NONE);
	assert_int_equal(secscan_jupyter_auth(plain, 1, conf_pw, strlen(conf_pw)), SEC_AUTH_PASSWORD);
	/* the command line wins over the config */
	assert_int_equal(secscan_jupyter_auth(tok, 2, conf_open, strlen(conf_open)), SEC_AUTH_TOKEN);
}

static void test_sshd(void **state)
{
	enum sec_tri t;
	char err[256];
	const char dump[] = "port 22\npasswordauthentication no\npermitrootlogin prohibit-password\n";
	const char first[] = "# comment\nPasswordAuthentication yes\nPasswordAuthentication no\n";
	const char match[] = "PasswordAuthentication no\nMatch User bob\n  PasswordAuthentication yes\n";
	const char eq[] = "PasswordAuthentication=no\n";
	const char none[] = "Port 2222\n";
	const char bad[] = "Port 22\nPasswordAuthentication maybe\n";

	(void)state;
	assert_int_equal(secscan_sshd_passwords(dump, strlen(dump), "sshd -T", false, &t, err, sizeof(err)), 0);
	assert_int_equal(t, SEC_NO);
	assert_int_equal(secscan_sshd_passwords(first, strlen(first), "c", true, &t, err, sizeof(err)), 0);
	assert_int_equal(t, SEC_YES);
	assert_int_equal(secscan_sshd_passwords(match, strlen(match), "c", true, &t, err, sizeof(err)), 0);
	assert_int_equal(t, SEC_NO);
	assert_int_equal(secscan_sshd_passwords(eq, strlen(eq), "c", true, &t, err, sizeof(err)), 0);
	assert_int_equal(t, SEC_NO);
	assert_int_equal(secscan_sshd_passwords(none, strlen(none), "c", true, &t, err, sizeof(err)), 0);
	assert_int_equal(t, SEC_YES);   /* OpenSSH's default */
	assert_int_equal(secscan_sshd_passwords(none, strlen(none), "c", false, &t, err, sizeof(err)), 0);
	assert_int_equal(t, SEC_UNKNOWN);
	assert_int_equal(secscan_sshd_passwords(bad, strlen(bad), "/etc/ssh/sshd_config", true, &t, err,
						sizeof(err)), -1);
	assert_string_equal(err, "/etc/ssh/sshd_config:2: PasswordAuthentication: expected yes or no");
	/* sshd_config(5): "whitespace or optional whitespace and exactly one
	 * '='", an argument in double quotes, a trailing comment */
	{
		const char *const forms_no[] = {"PasswordAuthentication = no\n", "PasswordAuthentication =no\n",
						"  PasswordAuthentication\t\"no\"\n",
						"PasswordAuthentication no # not here\n", "passwordauthentication= NO\n"};
		for (size_t i = 0; i < sizeof(forms_no) / sizeof(forms_no[0]); i++) {
			t = SEC_YES;
			if (secscan_sshd_passwords(forms_no[i], strlen(forms_no[i]), "c", true, &t, err, sizeof(err)))
				fail_msg("'%s' refused: %s", forms_no[i], err);
			if (t != SEC_NO)
				fail_msg("'%s' read as %d", forms_no[i], (int)t);
		}
		const char yes_eq[] = "PasswordAuthentication = \"yes\"\n";
		assert_int_equal(secscan_sshd_passwords(yes_eq, strlen(yes_eq), "c", false, &t, err, sizeof(err)), 0);
		assert_int_equal(t, SEC_YES);
	}
}

static void test_keys(void **state)
{
	/* base64 of "openssh-key-v1\0" "\0\0\0\4none" ... and of "...\0\0\0\naes256-ctr" */
	const char plain[] = "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAAB\n";
	const char enc[] = "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAACmFlczI1Ni1jdHIAAAAGYmNyeXB0\n";
	const char pem[] = "-----BEGIN RSA PRIVATE KEY-----\nMIIEpAIBAAKCAQEA\n";
	const char pem_enc[] = "-----BEGIN RSA PRIVATE KEY-----\nProc-Type: 4,ENCRYPTED\nDEK-Info: AES-128-CBC,00\n";
	const char p8[] = "-----BEGIN ENCRYPTED PRIVATE KEY-----\nMIIF\n";
	const char pub[] = "ssh-ed25519 AAAAC3 user@box\n";
	const char cert[] = "-----BEGIN CERTIFICATE-----\nMIIB\n";

	(void)state;
	assert_int_equal(secscan_key_kind(plain, strlen(plain)), SEC_KEY_PLAIN);
	assert_int_equal(secscan_key_kind(enc, strlen(enc)), SEC_KEY_ENCRYPTED);
	assert_int_equal(secscan_key_kind(pem, strlen(pem)), SEC_KEY_PLAIN);
	assert_int_equal(secscan_key_kind(pem_enc, strlen(pem_enc)), SEC_KEY_ENCRYPTED);
	assert_int_equal(secscan_key_kind(p8, strlen(p8)), SEC_KEY_ENCRYPTED);
	assert_int_equal(secscan_key_kind(pub, strlen(pub)), SEC_KEY_NOT_A_KEY);
	assert_int_equal(secscan_key_kind(cert, strlen(cert)), SEC_KEY_NOT_A_KEY);
	assert_int_equal(secscan_key_kind("-----BEGIN OPENSSH PRIVATE KEY-----\n!!", 38), SEC_KEY_UNKNOWN);
}

static void test_names_and_counts(void **state)
{
	const char aws[] = "[default]\naws_access_key_id = A\naws_secret_access_key = S\n[tmp]\n"
			   "aws_secret_access_key=S\naws_session_token = T\n";
	const char aws_tmp[] = "[tmp]\naws_secret_access_key=S\naws_session_token = T\n";
	const char netrc[] = "machine a login u password p\nmachine b\n  login u\n  password q\n# password x\n";
	const char docker[] = "{\"auths\": {\"a\": {\"auth\": \"eA==\"}, \"b\": {\"auth\": \"\"}, \"c\": {}}}";
	const char dotenv[] = "# c\nA=1\n\nexport B=2\nnot an assignment\n";
	long n;
	bool tmp;

	(void)state;
	assert_true(secscan_secret_name("HF_TOKEN=x"));
	assert_true(secscan_secret_name("openai_api_key"));
	assert_true(secscan_secret_name("DB_PASSWORD"));
	assert_true(secscan_secret_name("AWS_SECRET_ACCESS_KEY"));
	assert_false(secscan_secret_name("PATH"));
	assert_false(secscan_secret_name("HOME=/root"));
	secscan_cred_facts(SEC_CRED_AWS, aws, strlen(aws), &n, &tmp);
	assert_int_equal(n, 2);
	assert_false(tmp);
	secscan_cred_facts(SEC_CRED_AWS, aws_tmp, strlen(aws_tmp), &n, &tmp);
	assert_int_equal(n, 1);
	assert_true(tmp);
	secscan_cred_facts(SEC_CRED_NETRC, netrc, strlen(netrc), &n, &tmp);
	assert_int_equal(n, 2);
	secscan_cred_facts(SEC_CRED_DOCKER, docker, strlen(docker), &n, &tmp);
	assert_int_equal(n, 1);
	secscan_cred_facts(SEC_CRED_DOTENV, dotenv, strlen(dotenv), &n, &tmp);
	assert_int_equal(n, 2);
	secscan_cred_facts(SEC_CRED_HF, "", 0, &n, &tmp);
	assert_int_equal(n, 0);
}

static void test_judge(void **state)
{
	static struct sec_facts f;
	struct sec_report r;

	(void)state;
	memset(&f, 0, sizeof(f));
	f.net_read = true;
	assert_int_equal(secscan_judge(&f, &r), 0);
	/* a clean box: three ok lines */
	assert_int_equal(r.n, 3);
	assert_int_equal(r.v[0].code, SEC_F_NET_NONE);
	assert_int_equal(r.v[1].code, SEC_F_CREDS_NONE);
	assert_int_equal(r.v[2].code, SEC_F_TMP_NONE);
	assert_int_equal(r.worst, ENV_OK);
	secscan_report_free(&r);

	f.nlisteners = 4;
	f.listeners[0] = (struct sec_listener){.sock = {.bind = SEC_BIND_ANY, .port = 8888}, .pid = 10,
					       .kind = SEC_PROC_JUPYTER, .auth = SEC_AUTH_NONE};
	f.listeners[1] = (struct sec_listener){.sock = {.bind = SEC_BIND_ANY, .port = 8889}, .pid = 11,
					       .kind = SEC_PROC_JUPYTER, .auth = SEC_AUTH_DEFAULT_TOKEN};
	f.listeners[2] = (struct sec_listener){.sock = {.bind = SEC_BIND_ANY, .port = 22}, .pid = 1,
					       .kind = SEC_PROC_SSHD, .sshd_passwords = SEC_NO};
	f.listeners[3] = (struct sec_listener){.sock = {.bind = SEC_BIND_ANY, .port = 9}, .pid = -1};
	f.ncreds = 2;
	f.creds[0] = (struct sec_cred_file){.kind = SEC_CRED_AWS, .count = 1, .mode = 0644};
	f.creds[1] = (struct sec_cred_file){.kind = SEC_CRED_AWS, .count = 1, .temporary = true, .mode = 0600};
	f.nenvnames = 1;
	snprintf(f.envnames[0], sizeof(f.envnames[0]), "HF_TOKEN");
	assert_int_equal(secscan_judge(&f, &r), 0);
	assert_int_equal(r.v[0].code, SEC_F_JUPYTER_OPEN);
	assert_int_equal(r.v[0].level, ENV_FAIL);
	assert_int_equal(r.v[1].code, SEC_F_LISTEN_ANY);
	assert_int_equal(r.v[2].code, SEC_F_SSHD_KEYS);
	assert_int_equal(r.v[3].code, SEC_F_LISTEN_FOREIGN);
	assert_int_equal(r.v[4].code, SEC_F_CRED_FILE);
	assert_int_equal(r.v[5].code, SEC_F_CRED_READABLE);
	assert_int_equal(r.v[6].code, SEC_F_CRED_TEMPORARY);
	assert_int_equal(r.v[7].code, SEC_F_ENV_SECRET);
	assert_string_equal(r.v[7].names, "HF_TOKEN");
	assert_int_equal(r.v[8].code, SEC_F_TMP_NONE);
	assert_int_equal(r.n, 9);
	assert_int_equal(r.count[ENV_FAIL], 2);
	assert_int_equal(r.worst, ENV_FAIL);
	for (int c = 0; c < SEC_F_COUNT; c++)
		assert_string_not_equal(secscan_code_name((enum sec_code)c), "?");
	secscan_report_free(&r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_tcp4),
		cmocka_unit_test(test_tcp6),
		cmocka_unit_test(test_tcp_bad),
		cmocka_unit_test(test_classify),
		cmocka_unit_test(test_jupyter),
		cmocka_unit_test(test_sshd),
		cmocka_unit_test(test_keys),
		cmocka_unit_test(test_names_and_counts),
		cmocka_unit_test(test_judge),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
