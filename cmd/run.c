/* taskenv run: a one-off container of a service, recorded in the ledger. */
#include "cmd/cmd.h"
#include "services/lifecycle/ops.h"
#include "common/mem.h"

#include <signal.h>
#include <stdio.h>
#include <string.h>

struct run_args {
	const char *task;
	struct svc_run_opts ro;
	char **env;	  /* owned */
	char **env_files; /* owned */
	char **allow;	  /* owned */
};

const struct cmd_option cmd_run_options[] = {
    CMD_OPT_TASK(struct run_args, task),
    CMD_OPT_FLAG(0, "rm", struct run_args, ro.rm, "remove the container when it exits"),
    CMD_OPT_KV('e', "env", struct run_args, env, "set a variable (repeatable)"),
    CMD_OPT_STRING('u', "user", "USER", struct run_args, ro.user, "run as USER"),
    CMD_OPT_STRING('w', "workdir", "DIR", struct run_args, ro.workdir,
		   "working directory inside the container"),
    CMD_OPT_LIST(0, "env-file", "FILE", struct run_args, env_files,
		 "variables to read the task's Compose files with, instead of the\n"
		 ".env (repeatable; as given to 'taskenv up')"),
    CMD_OPT_CSV(0, "allow", "NAME", struct run_args, allow,
		"grant a policy exception for this run, besides those of the task's\n"
		"latest up (repeatable, comma-separated; docs/security.md)"),
    CMD_OPT_END,
};

const char cmd_run_about[] = "Run a one-off container of SERVICE (docker compose run): the service's image,\n"
			     "environment, volumes and networks, no published ports, label\n"
			     "com.docker.compose.oneoff=True, named <task>-<service>-run-<hex> and recorded\n"
			     "in the ledger before it is created (so `down` removes it). Its output is\n"
			     "streamed and its exit status is ours. The task must be up.\n";

static volatile sig_atomic_t interrupted;

static void on_signal(int sig)
{
	interrupted = sig;
}

/* Ctrl-C or SIGTERM stops the one-off container (and --rm still removes
 * it) instead of leaving it running behind us. */
static void catch_signals(void)
{
	struct sigaction sa = {0};

	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
}

static int out_line(void *ctx, int stream, const char *line, size_t n)
{
	FILE *f = stream == 2 ? stderr : stdout;

	fprintf(f, "%.*s\n", (int)n, line);
	return fflush(f) == 0 ? 0 : -1;
}

int cmd_run(struct te_ctx *ctx, int argc, char **argv)
{
	struct run_args a = {0};
	struct te_err err = {0};
	te_autofree char *task = NULL;
	te_autofree char *name = NULL;
	int code = -1, rc = -1, i = cmd_parse(ctx, argc, argv, &a, &code);

	if (i < 0) {
		te_strv_free(a.env);
		te_strv_free(a.env_files);
		te_strv_free(a.allow);
		return code;
	}
	a.ro.service = argv[i++];
	if (i < argc && strcmp(argv[i], "--") == 0)
		i++;
	a.ro.cmd = i < argc ? argv + i : NULL;
	a.ro.env = a.env;
	a.ro.env_files = a.env_files;
	a.ro.allow = a.allow;
	a.ro.output = out_line;
	a.ro.cancel = &interrupted;
	signal(SIGPIPE, SIG_IGN);
	catch_signals();
	if (cmd_task_engine(ctx, a.task, &task, &err))
		rc = svc_run(ctx->engine, ctx->ledger, task, &a.ro, &code, &name, &err);
	te_strv_free(a.env);
	te_strv_free(a.env_files);
	te_strv_free(a.allow);
	if (rc < 0)
		return cmd_fail("run", &err);
	if (interrupted)
		return 128 + interrupted; /* as a shell reports a command killed by the signal */
	return code < 0 ? EXIT_FAIL : code;
}
