/* taskenv with / shell: a host command with the task's variables, and a
 * service's own variable names mapped to values a host process can use. */
#include "cmd/cmd.h"
#include "services/lifecycle/hostenv.h"
#include "state/ledger.h"
#include "common/mem.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct with_opts {
	const char *task;
	const char *as;
	char **env_files; /* owned */
};

#define WITH_OPTIONS(type)                                                                                   \
	CMD_OPT_TASK(type, task),                                                                            \
	    CMD_OPT_STRING(0, "as", "SERVICE", type, as,                                                     \
			   "also the service's own variables (its environment: and\n"                        \
			   "x-taskenv.env), with values that reach the task from the host\n"                 \
			   "(DATABASE_URL at 127.0.0.1:<port>)"),                                            \
	    CMD_OPT_LIST(0, "env-file", "FILE", type, env_files,                                             \
			 "variables to read the task's Compose files with, instead of the\n"                 \
			 ".env (repeatable; as given to 'taskenv up'; with --as)")

const struct cmd_option cmd_with_options[] = {
    WITH_OPTIONS(struct with_opts),
    CMD_OPT_END,
};

const char cmd_with_about[] =
    "Run CMD on the host with the task's variables (those of `taskenv env`) and,\n"
    "with --as SERVICE, that service's own variable names with host-reachable\n"
    "values: a test suite run on the host reads the same DATABASE_URL the service\n"
    "does, pointing at 127.0.0.1:<port>. The exit status is CMD's own; 125 when\n"
    "taskenv failed (no such task or service), 126 when CMD cannot be executed, 127\n"
    "when it is not found.\n";

const struct cmd_option cmd_shell_options[] = {
    WITH_OPTIONS(struct with_opts),
    CMD_OPT_END,
};

const char cmd_shell_about[] = "An interactive shell ($SHELL, else /bin/sh) on the host with the variables\n"
			       "`taskenv with` gives a command. Its exit status is the shell's.\n";

/* Replace this process with ARGV under the task's variables: the status
 * is the command's own, with nothing of taskenv left to interfere. */
static int run_host(struct te_ctx *ctx, const char *verb, struct with_opts *o, char **argv)
{
	struct te_err err = {0};
	te_autofree char *task = cmd_task_name(ctx, o->task, &err);
	te_autostrv char **lines = NULL;

	if (task)
		lines = svc_task_host_env(ctx->ledger, task, o->as, o->env_files, &err);
	te_strv_free(o->env_files);
	if (!lines)
		return cmd_fail_command(verb, &err);
	for (size_t i = 0; lines[i]; i++) {
		char *eq = strchr(lines[i], '=');

		*eq = '\0';
		setenv(lines[i], eq + 1, 1);
	}
	/* Nothing of ours leaks into the command (the ledger's descriptor). */
	state_close(ctx->ledger);
	ctx->ledger = NULL;
	fflush(NULL);
	execvp(argv[0], argv);
	fprintf(stderr, "taskenv %s: %s: %s\n", verb, argv[0], strerror(errno));
	return errno == ENOENT || errno == ENOTDIR ? EXIT_CMD_NOT_FOUND : EXIT_CMD_CANNOT_EXEC;
}

int cmd_with(struct te_ctx *ctx, int argc, char **argv)
{
	struct with_opts o = {0};
	int code, i = cmd_parse(ctx, argc, argv, &o, &code);

	if (i < 0) {
		te_strv_free(o.env_files);
		return code == EXIT_OK ? code : EXIT_CMD_FAILED;
	}
	if (i < argc && strcmp(argv[i], "--") == 0)
		i++;
	if (i >= argc) {
		te_strv_free(o.env_files);
		cmd_usage(ctx, "expected a command");
		return EXIT_CMD_FAILED;
	}
	return run_host(ctx, "with", &o, argv + i);
}

int cmd_shell(struct te_ctx *ctx, int argc, char **argv)
{
	struct with_opts o = {0};
	const char *sh = getenv("SHELL");
	char *shell_argv[] = {(char *)(sh && *sh ? sh : "/bin/sh"), NULL};
	int code, i = cmd_parse(ctx, argc, argv, &o, &code);

	if (i < 0) {
		te_strv_free(o.env_files);
		return code == EXIT_OK ? code : EXIT_CMD_FAILED;
	}
	return run_host(ctx, "shell", &o, shell_argv);
}
