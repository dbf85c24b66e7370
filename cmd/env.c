/* taskenv env: the task's variables as shell-evaluable lines. */
#include "cmd/cmd.h"
#include "services/lifecycle/status.h"
#include "common/mem.h"

#define TE_WITH_CJSON
#include "common/cleanup.h"

#include <stdio.h>
#include <string.h>

struct env_opts {
	const char *task;
	const char *format;
	bool json;
};

const struct cmd_option cmd_env_options[] = {
    CMD_OPT_TASK(struct env_opts, task),
    CMD_OPT_CHOICE(0, "format", "shell|dotenv|json", struct env_opts, format,
		   "shell (default): KEY=value quoted for `eval \"$(taskenv env)\"`;\n"
		   "dotenv: KEY=value, double-quoted when needed (a .env file);\n"
		   "json: {\"schema_version\":1,\"task\",\"variables\":{KEY: value}}"),
    CMD_OPT_FLAG(0, "json", struct env_opts, json, "the same as --format json"),
    CMD_OPT_END,
};

const char cmd_env_about[] = "Print the task's variables: TASKENV_TASK, TASKENV_HOST and one\n"
			     "TASKENV_PORT_<SERVICE>_<PORT>=<host port> per published port.\n";

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
	struct env_opts o = {.format = "shell"};
	struct te_err err = {0};
	te_autofree char *task = NULL;
	te_autostrv char **lines = NULL;
	int code, i = cmd_parse(ctx, argc, argv, &o, &code);

	if (i < 0)
		return code;
	if (o.json)
		o.format = "json";
	task = cmd_task_name(ctx, o.task, &err);
	if (!task)
		return cmd_fail("env", &err);
	lines = svc_task_env(ctx->ledger, task, &err);
	if (!lines)
		return cmd_fail("env", &err);
	if (strcmp(o.format, "json") == 0)
		print_json(task, lines);
	for (size_t k = 0; strcmp(o.format, "json") != 0 && lines[k]; k++) {
		if (strcmp(o.format, "dotenv") == 0)
			print_dotenv(lines[k]);
		else
			print_line(lines[k]);
	}
	return EXIT_OK;
}
