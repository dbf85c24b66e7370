/* services/settings.c: defaults, the config file, TASKENV_* variables, and
 * errors that name file:line:col. */
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
	unsetenv("TASKENV_PORT_RANGE");
	unsetenv("TASKENV_LIMIT_PIDS");
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
	    {"port_rnage: 1-2\n", ":1:13: unknown setting 'port_rnage'"},
	    {"limits:\n  disk: 1g\n", ":2:9: unknown setting 'limits.disk'"},
	    {"port_range: [1, 2]\n", ":1:13: setting 'port_range' must be a single value"},
	    {"- a\n", ":1:1: expected a mapping"},
	    {"port_range: [\n", ":2:1: "},
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

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_defaults_file_env),
	    cmocka_unit_test(test_missing_file),
	    cmocka_unit_test(test_errors),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
