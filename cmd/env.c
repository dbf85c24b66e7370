/* taskenv env: the task's variables as shell-evaluable lines. */
#include "cmd/cmd.h"
#include "services/status.h"
#include "services/task.h"
#include "common/mem.h"

#include <getopt.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static void env_help(void)
{
	printf("usage: taskenv env [-t TASK]\n\n"
	       "Print KEY=value lines for `eval \"$(taskenv env -t TASK)\"`: TASKENV_TASK,\n"
	       "TASKENV_HOST and one TASKENV_PORT_<SERVICE>_<PORT>=<host port> per published port.\n");
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

int cmd_env(struct te_ctx *ctx, int argc, char **argv)
{
	static const struct option opts[] = {
	    {"task", required_argument, NULL, 't'}, {"help", no_argument, NULL, 'h'}, {NULL, 0, NULL, 0}};
	struct te_err err = {0};
	const char *flag = NULL;
	te_autofree char *cwd = getcwd(NULL, 0);
	te_autofree char *task = NULL;
	te_autostrv char **lines = NULL;
	int c;

	while ((c = getopt_long(argc, argv, "t:h", opts, NULL)) != -1) {
		if (c == 't')
			flag = optarg;
		else if (c == 'h')
			return env_help(), EXIT_OK;
		else
			return cmd_usage("env", "bad arguments");
	}
	task = svc_task_resolve(flag, cwd ? cwd : ".", &err);
	if (!task)
		return cmd_fail("env", &err);
	lines = svc_task_env(ctx->ledger, task, &err);
	if (!lines)
		return cmd_fail("env", &err);
	for (size_t i = 0; lines[i]; i++)
		print_line(lines[i]);
	return EXIT_OK;
}
