/* Unit tests for the pure parts of the contract: which mount exposes which
 * host path, the absent list, worktree detection, and the Markdown render. */
#define TE_WITH_CJSON
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/cleanup.h"
#include "common/mem.h"
#include "services/contract/contract.h"
#include "services/contract/worktree.h"

static void test_path_exposes(void **state)
{
	static const struct {
		const char *source, *path;
		int want;
	} cases[] = {
	    {"/", "/root/.ssh", 1},
	    {"/root", "/root/.ssh", 1},
	    {"/root/.ssh", "/root/.ssh", 1},
	    {"/root/.ssh/id", "/root/.ssh", 0},
	    {"/ro", "/root", 0},
	    {"/var/run", "/var/run/docker.sock", 1},
	    {"/var/run/docker.sock", "/var/run/docker.sock", 1},
	    {"/srv/app", "/root", 0},
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		assert_int_equal(svc_path_exposes(cases[i].source, cases[i].path), cases[i].want);
}

static void test_absent_paths(void **state)
{
	te_autofree char *saved = xstrdup(getenv("HOME"));
	te_autostrv char **v = NULL;
	size_t n;

	setenv("HOME", "/home/agent", 1);
	v = svc_contract_absent_paths("/tmp/e/docker.sock");
	if (saved)
		setenv("HOME", saved, 1);
	n = te_strv_len(v);
	assert_string_equal(v[0], "/tmp/e/docker.sock");
	assert_true(n >= 12);
	assert_string_equal(v[n - 1], "/home/agent/.git-credentials");
	for (size_t i = 0; i < n; i++)
		if (strcmp(v[i], "/home/agent") == 0)
			return;
	fail_msg("$HOME is not in the absent list");
}

static void test_worktree_is_linked(void **state)
{
	char dir[] = "/tmp/te-wt-XXXXXX";
	te_autofree char *git = NULL;
	te_autofree char *gitdir = NULL;
	FILE *f;

	assert_non_null(mkdtemp(dir));
	assert_int_equal(svc_worktree_is_linked(dir, NULL), 0);
	git = xasprintf("%s/.git", dir);
	f = fopen(git, "w");
	assert_non_null(f);
	fputs("gitdir: /repo/.git/worktrees/t1\n", f);
	fclose(f);
	assert_int_equal(svc_worktree_is_linked(dir, &gitdir), 1);
	assert_string_equal(gitdir, "/repo/.git/worktrees/t1");
	unlink(git);
	rmdir(dir);
}

static void test_markdown(void **state)
{
	static const char json[] =
	    "{\"schema_version\":1,\"task\":\"t1\",\"status\":\"up\",\"engine\":{\"flavor\":\"docker\"},"
	    "\"source\":{\"repository\":\"/r/.git\",\"base_commit\":\"abc\",\"dirty_files\":2},"
	    "\"filesystem\":{\"mounts\":[{\"container\":\"t1-web-1\",\"type\":\"bind\",\"source\":\"/etc\","
	    "\"target\":\"/e\",\"mode\":\"ro\",\"declared\":false}],\"absent\":[{\"path\":\"/root/.ssh\","
	    "\"absent\":false,\"exposed_to\":[\"t1-web-1\"]}]},"
	    "\"process\":{\"ports\":[{\"host_ip\":\"127.0.0.1\",\"host_port\":20001,\"container\":\"t1-web-"
	    "1\","
	    "\"container_port\":80,\"proto\":\"tcp\",\"ledger_host_port\":20001}]},"
	    "\"environment\":{\"limits\":[{\"container\":\"t1-web-1\",\"memory_bytes\":1048576,"
	    "\"nano_cpus\":0,\"pids_limit\":100}],\"services\":[]},"
	    "\"identity\":{\"credentials\":[],\"policy_exceptions\":[]},"
	    "\"promotion\":{\"branch\":\"task/t1\",\"statement\":\"taskenv neither merges nor deploys\"},"
	    "\"warnings\":[\"w1\"]}";
	te_autojson cJSON *c = cJSON_Parse(json);
	te_autofree char *md = NULL;

	assert_non_null(c);
	md = svc_contract_markdown(c);
	assert_non_null(strstr(md, "# Contract of task `t1` (schema 1)"));
	assert_non_null(strstr(md, "> warning: w1"));
	assert_non_null(strstr(md, "| dirty files | 2 |"));
	assert_non_null(strstr(md, "| t1-web-1 | bind | `/etc` | `/e` | ro | no | NO |"));
	assert_non_null(strstr(md, "- `/root/.ssh`: EXPOSED to t1-web-1"));
	assert_non_null(strstr(md, "| 127.0.0.1:20001 | t1-web-1 80/tcp | 20001 |"));
	assert_non_null(strstr(md, "| t1-web-1 | 1048576 | 0 | 100 |"));
	assert_non_null(strstr(md, "Branch `task/t1`"));
	assert_non_null(strstr(md, "taskenv neither merges nor deploys."));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_path_exposes),
	    cmocka_unit_test(test_absent_paths),
	    cmocka_unit_test(test_worktree_is_linked),
	    cmocka_unit_test(test_markdown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
