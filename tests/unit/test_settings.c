/* services/settings.c: the table, defaults, the config file, TASKENV_*
 * variables (and their older names), lists and per-project values, and
 * errors that name file:line:col or the variable. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/err.h"
#include "common/mem.h"
#include "services/settings.h"

static char path[64];

static int setup(void **state)
{
	int fd;

	snprintf(path, sizeof(path), "/tmp/te-settings-XXXXXX");
	fd = mkstemp(path);
	if (fd < 0)
		return -1;
	close(fd);
	setenv("TASKENV_CONFIG", path, 1);
	/* Whatever the runner has set must not leak into the cases. */
	for (int i = 0; i < SVC_SETTINGS_N; i++) {
		if (svc_setting_def(i)->env)
			unsetenv(svc_setting_def(i)->env);
		if (svc_setting_def(i)->alias)
			unsetenv(svc_setting_def(i)->alias);
	}
	return 0;
}

static int teardown(void **state)
{
	unlink(path);
	unsetenv("TASKENV_CONFIG");
	return 0;
}

static void write_file(const char *text)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static void test_defaults_file_env(void **state)
{
	struct svc_settings s;
	struct te_err err = {0};

	write_file("port_range: 21000-21010\nlimits:\n  memory: 512m\n");
	setenv("TASKENV_LIMIT_PIDS", "100", 1);
	assert_int_equal(svc_settings_load(&s, &err), 0);
	assert_true(s.file_exists);
	assert_string_equal(svc_settings_get(&s, "port_range"), "21000-21010");
	assert_string_equal(svc_settings_source(&s, "port_range"), "config file");
	assert_string_equal(svc_settings_get(&s, "limits.memory"), "512m");
	assert_string_equal(svc_settings_get(&s, "limits.pids"), "100");
	assert_string_equal(svc_settings_source(&s, "limits.pids"), "environment");
	assert_string_equal(svc_settings_get(&s, "engine"), "");
	assert_string_equal(svc_settings_source(&s, "engine"), "default");
	assert_null(svc_settings_get(&s, "nope"));
	svc_settings_release(&s);
	setenv("TASKENV_PORT_RANGE", "1000-2000", 1);
	assert_int_equal(svc_settings_load(&s, &err), 0);
	assert_string_equal(svc_settings_get(&s, "port_range"), "1000-2000");
	svc_settings_release(&s);
	unsetenv("TASKENV_PORT_RANGE");
	unsetenv("TASKENV_LIMIT_PIDS");
}

static void test_missing_file(void **state)
{
	struct svc_settings s;
	struct te_err err = {0};

	unlink(path);
	assert_int_equal(svc_settings_load(&s, &err), 0);
	assert_false(s.file_exists);
	assert_string_equal(svc_settings_get(&s, "port_range"), "20000-29999");
	svc_settings_release(&s);
}

static void test_errors(void **state)
{
	static const struct {
		const char *text, *msg;
	} cases[] = {
	    {"port_rnage: 1-2\n", ":1:1: unknown setting 'port_rnage'"},
	    {"limits:\n  disk: 1g\n", ":2:3: unknown setting 'limits.disk'"},
	    {"port_range: [1, 2]\n", ":1:13: setting 'port_range' must be a single value"},
	    {"- a\n", ":1:1: expected a mapping"},
	    {"port_range: [\n", ":2:1: "},
	    {"limits: 2g\n", ":1:1: unknown setting 'limits'"},
	    {"limits:\n  memory: lots\n", ":2:11: invalid limits.memory 'lots': expected a size like 512m"},
	    {"port_range: 30000-20000\n", ":1:13: invalid port_range '30000-20000': expected LO-HI"},
	    {"port_range: 1-2\nport_range: 3-4\n", ":2:13: setting 'port_range' is given twice"},
	    {"engine: tcp://1.2.3.4:2375\n", "invalid engine 'tcp://1.2.3.4:2375': expected unix:///"},
	    {"no_new_privileges: maybe\n", "expected true or false"},
	    {"wait_timeout: 0\n", "invalid wait_timeout '0': expected seconds from 1 to 65535"},
	    {"worktree_prefix: -x\n", "invalid worktree_prefix '-x'"},
	    {"task: t1\n", ":1:1: unknown setting 'task'"}, /* environment only */
	    {"allow: [a, {b: c}]\n", ":1:12: setting 'allow' takes a list of names"},
	    {"allow: [\"a b\"]\n", "invalid allow 'a b': expected names"},
	    {"projects: [a]\n", ":1:11: projects: expected a mapping"},
	    {"projects:\n  rel/dir: {allow: [x]}\n",
	     ":2:3: projects: 'rel/dir' is not an absolute directory"},
	    {"projects:\n  /p: {port_range: 1-2}\n", ":2:8: setting 'port_range' cannot be set per project"},
	    {"projects:\n  /p: {alow: [x]}\n", ":2:8: unknown setting 'alow'"},
	    {"subnet_pool: 10.9.0.0/28\n", "invalid subnet pool '10.9.0.0/28' with prefix /26"},
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct svc_settings s;
		struct te_err err = {0};

		write_file(cases[i].text);
		assert_int_equal(svc_settings_load(&s, &err), -1);
		assert_int_equal(err.code, TE_E_USAGE);
		if (!strstr(err.msg, cases[i].msg))
			fail_msg("case %zu: '%s' lacks '%s'", i, err.msg, cases[i].msg);
		svc_settings_release(&s);
	}
}

/* Every row is complete, its names unique, its default parses (load
 * aborts otherwise) and its variable is a TASKENV_ one. */
static void test_table(void **state)
{
	struct svc_settings s;
	struct te_err err = {0};

	for (int i = 0; i < SVC_SETTINGS_N; i++) {
		const struct svc_setting_def *d = svc_setting_def(i);

		assert_non_null(d->name);
		assert_non_null(d->help);
		assert_non_null(d->parse);
		assert_non_null(d->def);
		assert_true(d->key || d->env);
		if (d->env)
			assert_int_equal(strncmp(d->env, "TASKENV_", 8), 0);
		for (int j = 0; j < i; j++) {
			assert_string_not_equal(d->name, svc_setting_def(j)->name);
			if (d->key && svc_setting_def(j)->key)
				assert_string_not_equal(d->key, svc_setting_def(j)->key);
			if (d->env && svc_setting_def(j)->env)
				assert_string_not_equal(d->env, svc_setting_def(j)->env);
		}
	}
	assert_null(svc_setting_def(SVC_SETTINGS_N));
	unlink(path);
	assert_int_equal(svc_settings_load(&s, &err), 0);
	for (int i = 0; i < SVC_SETTINGS_N; i++)
		assert_string_equal(svc_settings_at(&s, i)->source, "default");
	/* the values up, config and agents-md get when nothing is set */
	assert_int_equal(svc_settings_at(&s, SVC_SET_PORT_RANGE)->num, 20000);
	assert_int_equal(svc_settings_at(&s, SVC_SET_PORT_RANGE)->num2, 29999);
	assert_int_equal(svc_settings_at(&s, SVC_SET_LIMIT_MEMORY)->num, 2LL << 30);
	assert_true(svc_settings_at(&s, SVC_SET_LIMIT_CPUS)->real == 2);
	assert_int_equal(svc_settings_at(&s, SVC_SET_LIMIT_PIDS)->num, 1024);
	assert_int_equal(svc_settings_at(&s, SVC_SET_NO_NEW_PRIVILEGES)->num, 1);
	assert_int_equal(svc_settings_at(&s, SVC_SET_WAIT_TIMEOUT)->num, 120);
	assert_int_equal(svc_settings_at(&s, SVC_SET_SUBNET_PREFIX)->num, 26);
	assert_string_equal(svc_settings_at(&s, SVC_SET_WORKTREE_PREFIX)->text, "task");
	assert_null(svc_settings_at(&s, SVC_SET_ALLOW)->list);
	svc_settings_release(&s);
}

/* The bug of issue 12: the file's limits are the ones taken, parsed. */
static void test_limits_from_file(void **state)
{
	struct svc_settings s;
	struct te_err err = {0};

	write_file("limits:\n  memory: 512m\n  cpus: \"0.5\"\n  pids: 0\nno_new_privileges: false\n"
		   "wait_timeout: 30\n");
	assert_int_equal(svc_settings_load(&s, &err), 0);
	assert_int_equal(svc_settings_at(&s, SVC_SET_LIMIT_MEMORY)->num, 536870912);
	assert_string_equal(svc_settings_at(&s, SVC_SET_LIMIT_MEMORY)->source, "config file");
	assert_true(svc_settings_at(&s, SVC_SET_LIMIT_CPUS)->real == 0.5);
	assert_int_equal(svc_settings_at(&s, SVC_SET_LIMIT_PIDS)->num, 0);
	assert_int_equal(svc_settings_at(&s, SVC_SET_NO_NEW_PRIVILEGES)->num, 0);
	assert_int_equal(svc_settings_at(&s, SVC_SET_WAIT_TIMEOUT)->num, 30);
	svc_settings_release(&s);
	/* "none" and 0 are no limit */
	write_file("limits: {memory: none}\n");
	assert_int_equal(svc_settings_load(&s, &err), 0);
	assert_int_equal(svc_settings_at(&s, SVC_SET_LIMIT_MEMORY)->num, 0);
	svc_settings_release(&s);
}

/* TASKENV_DEFAULT_* (the names up read before) still work, the current
 * names win over them, and either wins over the file. */
static void test_env_alias(void **state)
{
	struct svc_settings s;
	struct te_err err = {0};

	write_file("limits: {memory: 1g}\n");
	setenv("TASKENV_DEFAULT_MEMORY", "300m", 1);
	assert_int_equal(svc_settings_load(&s, &err), 0);
	assert_int_equal(svc_settings_at(&s, SVC_SET_LIMIT_MEMORY)->num, 300LL << 20);
	assert_string_equal(svc_settings_at(&s, SVC_SET_LIMIT_MEMORY)->source, "environment");
	assert_string_equal(svc_settings_at(&s, SVC_SET_LIMIT_MEMORY)->var, "TASKENV_DEFAULT_MEMORY");
	svc_settings_release(&s);
	setenv("TASKENV_LIMIT_MEMORY", "400m", 1);
	assert_int_equal(svc_settings_load(&s, &err), 0);
	assert_int_equal(svc_settings_at(&s, SVC_SET_LIMIT_MEMORY)->num, 400LL << 20);
	assert_string_equal(svc_settings_at(&s, SVC_SET_LIMIT_MEMORY)->var, "TASKENV_LIMIT_MEMORY");
	svc_settings_release(&s);
	setenv("TASKENV_DEFAULT_MEMORY", "lots", 1); /* ignored: the current name is set */
	assert_int_equal(svc_settings_load(&s, &err), 0);
	svc_settings_release(&s);
	unsetenv("TASKENV_LIMIT_MEMORY");
	assert_int_equal(svc_settings_load(&s, &err), -1);
	assert_int_equal(err.code, TE_E_USAGE);
	assert_string_equal(err.msg,
			    "invalid limits.memory 'lots' (from TASKENV_DEFAULT_MEMORY): expected a size "
			    "like 512m or 2g, or 0 for none");
	svc_settings_release(&s);
	unsetenv("TASKENV_DEFAULT_MEMORY");
	setenv("TASKENV_NO_NEW_PRIVILEGES", "0", 1);
	setenv("TASKENV_WAIT_TIMEOUT", "x", 1);
	assert_int_equal(svc_settings_load(&s, &err), -1);
	assert_non_null(strstr(err.msg, "(from TASKENV_WAIT_TIMEOUT)"));
	svc_settings_release(&s);
	unsetenv("TASKENV_WAIT_TIMEOUT");
	assert_int_equal(svc_settings_load(&s, &err), 0);
	assert_int_equal(svc_settings_at(&s, SVC_SET_NO_NEW_PRIVILEGES)->num, 0);
	svc_settings_release(&s);
	unsetenv("TASKENV_NO_NEW_PRIVILEGES");
}

static void assert_strv(char **v, const char *joined)
{
	char buf[256] = "";

	for (size_t i = 0; v && v[i]; i++)
		snprintf(buf + strlen(buf), sizeof(buf) - strlen(buf), "%s%s", i ? "," : "", v[i]);
	assert_string_equal(buf, joined);
	te_strv_free(v);
}

/* allow: globally and per project directory; the accessor the gate uses. */
static void test_allow_per_project(void **state)
{
	char dir[] = "/tmp/te-settings-proj-XXXXXX";
	te_autofree char *text = NULL;
	te_autofree char *link = NULL;
	te_autofree char *slash = NULL;
	struct svc_settings s;
	struct te_err err = {0};

	assert_non_null(mkdtemp(dir));
	link = xasprintf("%s-link", dir);
	slash = xasprintf("%s/", dir);
	assert_int_equal(symlink(dir, link), 0);
	text = xasprintf("allow: [engine-socket, cap:SYS_ADMIN]\n"
			 "projects:\n"
			 "  %s/:\n"
			 "    allow: [host-network, engine-socket]\n"
			 "  /nowhere/else: {allow: privileged}\n",
			 dir);
	write_file(text);
	if (svc_settings_load(&s, &err) < 0)
		fail_msg("%s", err.msg);
	assert_int_equal(s.n_projects, 2);
	assert_strv(svc_settings_allow_for(&s, NULL), "engine-socket,cap:SYS_ADMIN");
	assert_strv(svc_settings_allow_for(&s, "/some/other"), "engine-socket,cap:SYS_ADMIN");
	/* the same directory by another spelling, and through a symlink */
	assert_strv(svc_settings_allow_for(&s, dir), "engine-socket,cap:SYS_ADMIN,host-network");
	assert_strv(svc_settings_allow_for(&s, slash), "engine-socket,cap:SYS_ADMIN,host-network");
	assert_strv(svc_settings_allow_for(&s, link), "engine-socket,cap:SYS_ADMIN,host-network");
	/* a directory that does not exist (yet) is compared as written */
	assert_strv(svc_settings_allow_for(&s, "/nowhere/else/"), "engine-socket,cap:SYS_ADMIN,privileged");
	/* a subdirectory is another project */
	assert_strv(svc_settings_allow_for(&s, "/nowhere/else/sub"), "engine-socket,cap:SYS_ADMIN");
	assert_string_equal(svc_settings_at(&s, SVC_SET_ALLOW)->text, "engine-socket,cap:SYS_ADMIN");
	assert_string_equal(s.projects[0].items[SVC_SET_ALLOW].source, "config file");
	assert_null(s.projects[0].items[SVC_SET_PORT_RANGE].source);
	svc_settings_release(&s);
	/* nothing granted: NULL */
	write_file("port_range: 1-2\n");
	assert_int_equal(svc_settings_load(&s, &err), 0);
	assert_null(svc_settings_allow_for(&s, dir));
	svc_settings_release(&s);
	unlink(link);
	rmdir(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_defaults_file_env),
	    cmocka_unit_test(test_missing_file),
	    cmocka_unit_test(test_errors),
	    cmocka_unit_test(test_table),
	    cmocka_unit_test(test_limits_from_file),
	    cmocka_unit_test(test_env_alias),
	    cmocka_unit_test(test_allow_per_project),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
