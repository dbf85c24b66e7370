/* Task names: the rule, where the name comes from, and resource names. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "common/err.h"
#include "common/mem.h"
#include "services/model/task.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define NO_TASK_MSG "no task name: pass -t NAME, set TASKENV_TASK, or run inside a git branch"

static char tmpdir[PATH_MAX];

static int setup(void **state)
{
	char tmpl[] = "/tmp/te-task-XXXXXX";

	assert_non_null(mkdtemp(tmpl));
	snprintf(tmpdir, sizeof(tmpdir), "%s", tmpl);
	/* Whatever the runner has set must not leak into the cases. */
	unsetenv("TASKENV_TASK");
	unsetenv("GIT_DIR");
	unsetenv("GIT_WORK_TREE");
	setenv("GIT_CEILING_DIRECTORIES", "/tmp", 1);
	return 0;
}

static int teardown(void **state)
{
	char cmd[PATH_MAX + 16];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpdir);
	return system(cmd) == 0 ? 0 : -1;
}

struct name_case {
	const char *name;
	bool ok;
};

static const struct name_case name_cases[] = {
    {"a", true},
    {"0", true},
    {"auth-refactor", true},
    {"a_b-c9", true},
    {"9lives", true},
    {"abcdefghijklmnopqrstuvwxyz0123456789abcdefghijklmnopqrstuvwxyz0", true},	 /* 63 */
    {"abcdefghijklmnopqrstuvwxyz0123456789abcdefghijklmnopqrstuvwxyz01", false}, /* 64 */
    {"", false},
    {"-a", false},
    {"_a", false},
    {"A", false},
    {"aB", false},
    {"My.Task", false},
    {"a.b", false},
    {"a b", false},
    {"a/b", false},
    {"caf\xc3\xa9", false},
};

static void test_name_check(void **state)
{
	for (size_t i = 0; i < sizeof(name_cases) / sizeof(name_cases[0]); i++) {
		struct te_err err = {0};
		int rc = svc_task_name_check(name_cases[i].name, &err);

		print_message("case %zu: '%s'\n", i, name_cases[i].name);
		assert_int_equal(rc, name_cases[i].ok ? 0 : -1);
		assert_int_equal(err.code, name_cases[i].ok ? TE_OK : TE_E_TASKNAME);
	}
}

static void test_name_check_message(void **state)
{
	struct te_err err = {0};

	assert_int_equal(svc_task_name_check("My.Task", &err), -1);
	assert_string_equal(err.msg, "invalid task name 'My.Task': must match [a-z0-9][a-z0-9_-]{0,62} "
				     "(lowercase letters, digits, '_' and '-', at most 63 characters)");
}

static void test_resolve_precedence(void **state)
{
	struct te_err err = {0};
	char *name;

	name = svc_task_resolve("from-flag", "from-env", tmpdir, &err);
	assert_string_equal(name, "from-flag");
	free(name);
	name = svc_task_resolve(NULL, "from-env", tmpdir, &err);
	assert_string_equal(name, "from-env");
	free(name);

	/* The flag is checked, never rewritten, even when the variable is fine. */
	assert_null(svc_task_resolve("Bad", "from-env", tmpdir, &err));
	assert_int_equal(err.code, TE_E_TASKNAME);
	assert_non_null(strstr(err.msg, "invalid task name 'Bad'"));

	assert_null(svc_task_resolve(NULL, "Env.Bad", tmpdir, &err));
	assert_int_equal(err.code, TE_E_TASKNAME);
	assert_non_null(strstr(err.msg, "TASKENV_TASK: invalid task name 'Env.Bad'"));

	/* Empty means unset: falls through to git, and tmpdir is no repository. */
	assert_null(svc_task_resolve(NULL, "", tmpdir, &err));
	assert_int_equal(err.code, TE_E_TASKNAME);
	assert_string_equal(err.msg, NO_TASK_MSG);
	/* The variable itself is no longer read here (it is a setting). */
	setenv("TASKENV_TASK", "from-env", 1);
	assert_null(svc_task_resolve(NULL, NULL, tmpdir, &err));
	assert_string_equal(err.msg, NO_TASK_MSG);
	unsetenv("TASKENV_TASK");
}

static bool have_git(void)
{
	return system("git --version >/dev/null 2>&1") == 0;
}

/* A fresh repository in tmpdir/NAME whose HEAD is BRANCH (unborn is fine:
 * symbolic-ref reads HEAD, no commit needed). Returns the owned dir. */
static char *git_repo(const char *name, const char *branch)
{
	char *dir = xasprintf("%s/%s", tmpdir, name);
	te_autofree char *cmd = xasprintf("git init -q -b '%s' '%s' >/dev/null 2>&1", branch, dir);

	assert_int_equal(system(cmd), 0);
	return dir;
}

static void test_resolve_git_branch(void **state)
{
	struct te_err err = {0};
	te_autofree char *repo = NULL;
	te_autofree char *name = NULL;
	te_autofree char *plain = NULL;
	te_autofree char *sub = NULL;
	te_autofree char *name2 = NULL;
	te_autofree char *name3 = NULL;
	te_autofree char *name4 = NULL;
	te_autofree char *other = NULL;

	if (!have_git())
		skip();
	repo = git_repo("r1", "agent/auth-refactor");
	name = svc_task_resolve(NULL, NULL, repo, &err);
	if (!name)
		fail_msg("resolve: %s", err.msg);
	/* The branch after its last '/', then six hex digits of the work tree. */
	assert_int_equal(strlen(name), strlen("auth-refactor-") + 6);
	assert_memory_equal(name, "auth-refactor-", strlen("auth-refactor-"));

	/* From a subdirectory of the work tree, and a branch without '/'. */
	plain = git_repo("r2", "main");
	sub = xasprintf("%s/deep", plain);
	assert_int_equal(mkdir(sub, 0700), 0);
	name2 = svc_task_resolve(NULL, NULL, sub, &err);
	if (!name2)
		fail_msg("resolve: %s", err.msg);
	assert_memory_equal(name2, "main-", 5);
	assert_int_equal(strlen(name2), 11);
	/* The same checkout from its top: the same task. */
	name3 = svc_task_resolve(NULL, NULL, plain, &err);
	assert_non_null(name3);
	assert_string_equal(name3, name2);
	/* Another checkout on the same branch: another task. */
	other = git_repo("r2b", "main");
	name4 = svc_task_resolve(NULL, NULL, other, &err);
	assert_non_null(name4);
	assert_string_not_equal(name4, name2);

	/* TASKENV_TASK still beats the branch. */
	free(name2);
	name2 = svc_task_resolve(NULL, "env-wins", repo, &err);
	assert_string_equal(name2, "env-wins");
}

/* "Feature/Foo" gives "Foo", which is refused with the rule, not lowercased. */
static void test_resolve_git_branch_refused(void **state)
{
	struct te_err err = {0};
	te_autofree char *repo = NULL;

	if (!have_git())
		skip();
	repo = git_repo("r3", "Feature/Foo");
	assert_null(svc_task_resolve(NULL, NULL, repo, &err));
	assert_int_equal(err.code, TE_E_TASKNAME);
	assert_memory_equal(err.msg, "task name from git branch 'Feature/Foo': invalid task name 'Foo-", 64);
	assert_string_equal(err.msg + 70,
			    "': "
			    "must match [a-z0-9][a-z0-9_-]{0,62} (lowercase letters, digits, '_' "
			    "and '-', at most 63 characters)");
}

/* A detached HEAD names no branch. */
static void test_resolve_git_detached(void **state)
{
	struct te_err err = {0};
	te_autofree char *repo = NULL;
	te_autofree char *cmd = NULL;

	if (!have_git())
		skip();
	repo = git_repo("r4", "work");
	cmd = xasprintf("cd '%s' && git -c user.name=t -c user.email=t@example.com commit -q "
			"--allow-empty -m init && git checkout -q --detach >/dev/null 2>&1",
			repo);
	assert_int_equal(system(cmd), 0);
	assert_null(svc_task_resolve(NULL, NULL, repo, &err));
	assert_int_equal(err.code, TE_E_TASKNAME);
	assert_string_equal(err.msg, NO_TASK_MSG);
}

static void test_resolve_missing_dir(void **state)
{
	struct te_err err = {0};
	te_autofree char *dir = xasprintf("%s/does-not-exist", tmpdir);

	assert_null(svc_task_resolve(NULL, NULL, dir, &err));
	assert_int_equal(err.code, TE_E_TASKNAME);
	assert_string_equal(err.msg, NO_TASK_MSG);
}

static void test_names(void **state)
{
	te_autofree char *c = svc_name_container("auth-refactor", "web", 1);
	te_autofree char *c2 = svc_name_container("t1", "db", 12);
	te_autofree char *n = svc_name_network("t1", "default");
	te_autofree char *v = svc_name_volume("t1", "pgdata");

	assert_string_equal(c, "auth-refactor-web-1");
	assert_string_equal(c2, "t1-db-12");
	assert_string_equal(n, "t1_default");
	assert_string_equal(v, "t1_pgdata");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_name_check),
	    cmocka_unit_test(test_name_check_message),
	    cmocka_unit_test(test_resolve_precedence),
	    cmocka_unit_test(test_resolve_git_branch),
	    cmocka_unit_test(test_resolve_git_branch_refused),
	    cmocka_unit_test(test_resolve_git_detached),
	    cmocka_unit_test(test_resolve_missing_dir),
	    cmocka_unit_test(test_names),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
