/* taskenv run: a one-off container of a service, recorded in the ledger. */
#include "cmd/cmd.h"
#include "services/lifecycle/journal.h"
#include "services/lifecycle/ops.h"
#include "services/model/load.h"
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
	const char *entrypoint;
	struct svc_tail out; /* the end of the output, for the journal */
};

const struct cmd_option cmd_run_options[] = {
    CMD_OPT_TASK(struct run_args, task),
    CMD_OPT_FLAG(0, "rm", struct run_args, ro.rm, "remove the container when it exits"),
    CMD_OPT_KV('e', "env", struct run_args, env, "set a variable (repeatable)"),
    CMD_OPT_STRING('u', "user", "USER", struct run_args, ro.user, "run as USER"),
    CMD_OPT_STRING('w', "workdir", "DIR", struct run_args, ro.workdir,
		   "working directory inside the container"),
    CMD_OPT_STRING(0, "entrypoint", "CMD", struct run_args, entrypoint,
		   "override the image's entrypoint (split into words as a shell\n"
		   "would, without expansion; the service's command is dropped)"),
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
			     "streamed and its exit status is ours (125 when taskenv or the engine\n"
			     "failed, 126 when CMD cannot be executed, 127 when it is not found). The\n"
			     "task must be up. Each run is journalled in the task's events.\n";

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
	struct run_args *a = ctx;

	svc_tail_add(&a->out, line, n);
	svc_tail_add(&a->out, "\n", 1);
	fprintf(f, "%.*s\n", (int)n, line);
	return fflush(f) == 0 ? 0 : -1;
}

static void journal(struct te_ctx *ctx, struct run_args *a, const char *task, const char *name, int code,
		    const struct te_err *failed)
{
	struct svc_journal_entry j = {
	    "run", a->ro.service, name, a->ro.cmd, code, failed ? failed->msg : NULL, &a->out};
	struct te_err err = {0};

	if (task && ctx->ledger && svc_journal_add(ctx->ledger, task, &j, &err) < 0)
		fprintf(stderr, "taskenv run: warning: not journalled: %s\n", err.msg);
}

int cmd_run(struct te_ctx *ctx, int argc, char **argv)
{
	struct run_args a = {0};
	struct te_err err = {0};
	te_autofree char *task = NULL;
	te_autofree char *name = NULL;
	te_autostrv char **entrypoint = NULL;
	int code = -1, rc = -1, i = cmd_parse(ctx, argc, argv, &a, &code);

	if (i < 0) {
		te_strv_free(a.env);
		te_strv_free(a.env_files);
		te_strv_free(a.allow);
		/* A bad flag is ours, not the command's exit 2. */
		return code == EXIT_OK ? code : EXIT_CMD_FAILED;
	}
	a.ro.service = argv[i++];
	if (i < argc && strcmp(argv[i], "--") == 0)
		i++;
	a.ro.cmd = i < argc ? argv + i : NULL;
	a.ro.env = a.env;
	a.ro.env_files = a.env_files;
	a.ro.allow = a.allow;
	a.ro.output = out_line;
	a.ro.output_ctx = &a;
	a.ro.cancel = &interrupted;
	if (a.entrypoint && !(entrypoint = svc_shell_split(a.entrypoint, &err))) {
		te_strv_free(a.env);
		te_strv_free(a.env_files);
		te_strv_free(a.allow);
		return cmd_fail_command("run", &err);
	}
	a.ro.entrypoint = entrypoint;
	signal(SIGPIPE, SIG_IGN);
	catch_signals();
	if (cmd_task_engine(ctx, a.task, &task, &err))
		rc = svc_run(ctx->engine, ctx->ledger, task, &a.ro, &code, &name, &err);
	journal(ctx, &a, task, name, rc < 0 ? -1 : code, rc < 0 ? &err : NULL);
	te_strv_free(a.env);
	te_strv_free(a.env_files);
	te_strv_free(a.allow);
	if (rc < 0)
		return cmd_fail_command("run", &err);
	if (interrupted)
		return 128 + interrupted; /* as a shell reports a command killed by the signal */
	return code < 0 ? EXIT_CMD_FAILED : code;
}
