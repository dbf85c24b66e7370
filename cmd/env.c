/* taskenv env: the task's variables as shell-evaluable lines. */
#include "cmd/cmd.h"
#include "services/lifecycle/status.h"
#include "services/model/task.h"
#include "common/mem.h"

#define TE_WITH_CJSON
#include "common/cleanup.h"

#include <getopt.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static void env_help(void)
{
	printf("usage: taskenv env [-t TASK] [--format shell|dotenv|json] [--json]\n\n"
	       "Print the task's variables: TASKENV_TASK, TASKENV_HOST and one\n"
	       "TASKENV_PORT_<SERVICE>_<PORT>=<host port> per published port.\n\n"
	       "  -t, --task TASK    task name (default: $TASKENV_TASK, else the git branch)\n"
	       "      --format FMT   shell (default): KEY=value quoted for `eval \"$(taskenv env)\"`;\n"
	       "                     dotenv: KEY=value, double-quoted when needed (a .env file);\n"
	       "                     json: {\"schema_version\":1,\"task\",\"variables\":{KEY: value}}\n"
	       "      --json         the same as --format json\n");
}

/* Values are quoted for the shell unless they are plainly safe. */
static void print_line(const char *line)
{
	const char *eq = strchr(line, '=');
	const char *v = eq + 1;

	if (strspn(v, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-./:@") == strlen(v)) {
		printf("%s\n", line);
		return;
	}
	printf("%.*s='", (int)(eq - line), line);
	for (; *v; v++) {
		if (*v == '\'')
			fputs("'\\''", stdout);
		else
			putchar(*v);
	}
	printf("'\n");
}

/* dotenv: double quotes with \\ \" \\n escaped, as Compose's .env reader expects. */
static void print_dotenv(const char *line)
{
	const char *eq = strchr(line, '=');
	const char *v = eq + 1;

	if (strspn(v, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-./:@") == strlen(v)) {
		printf("%s\n", line);
		return;
	}
	printf("%.*s=\"", (int)(eq - line), line);
	for (; *v; v++) {
		if (*v == '"' || *v == '\\' || *v == '$')
			printf("\\%c", *v);
		else if (*v == '\n')
			fputs("\\n", stdout);
		else
			putchar(*v);
	}
	printf("\"\n");
}

static void print_json(const char *task, char **lines)
{
	te_autojson cJSON *d = cJSON_CreateObject();
	cJSON *vars;

	cJSON_AddNumberToObject(d, "schema_version", CMD_JSON_SCHEMA_VERSION);
	cJSON_AddStringToObject(d, "task", task);
	vars = cJSON_AddObjectToObject(d, "variables");
	for (size_t i = 0; lines[i]; i++) {
		te_autofree char *k = xstrndup(lines[i], strcspn(lines[i], "="));

		cJSON_AddStringToObject(vars, k, strchr(lines[i], '=') + 1);
	}
	cmd_print_json(d);
}

int cmd_env(struct te_ctx *ctx, int argc, char **argv)
{
	static const struct option opts[] = {{"task", required_argument, NULL, 't'},
					     {"format", required_argument, NULL, 'F'},
					     {"json", no_argument, NULL, 'j'},
					     {"help", no_argument, NULL, 'h'},
					     {NULL, 0, NULL, 0}};
	const char *format = "shell";
	struct te_err err = {0};
	const char *flag = NULL;
	te_autofree char *cwd = getcwd(NULL, 0);
	te_autofree char *task = NULL;
	te_autostrv char **lines = NULL;
	int c;

	while ((c = getopt_long(argc, argv, "t:h", opts, NULL)) != -1) {
		if (c == 't')
			flag = optarg;
		else if (c == 'F')
			format = optarg;
		else if (c == 'j')
			format = "json";
		else if (c == 'h')
			return env_help(), EXIT_OK;
		else
			return cmd_usage("env", "bad arguments");
	}
	if (strcmp(format, "shell") != 0 && strcmp(format, "dotenv") != 0 && strcmp(format, "json") != 0)
		return cmd_usage("env", "unknown --format '%s' (shell, dotenv or json)", format);
	task = svc_task_resolve(flag, cwd ? cwd : ".", &err);
	if (!task)
		return cmd_fail("env", &err);
	lines = svc_task_env(ctx->ledger, task, &err);
	if (!lines)
		return cmd_fail("env", &err);
	if (strcmp(format, "json") == 0)
		print_json(task, lines);
	for (size_t i = 0; strcmp(format, "json") != 0 && lines[i]; i++) {
		if (strcmp(format, "dotenv") == 0)
			print_dotenv(lines[i]);
		else
			print_line(lines[i]);
	}
	return EXIT_OK;
}
