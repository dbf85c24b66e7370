/* taskenv run: a one-off container of a service, recorded in the ledger. */
#include "cmd/cmd.h"
#include "services/lifecycle/ops.h"
#include "common/mem.h"

#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>

static void run_help(void)
{
	printf("usage: taskenv run [-t TASK] [--rm] [-e K=V]... [-u USER] [-w DIR] [--env-file FILE]...\n"
	       "                   SERVICE [CMD [ARG...]]\n\n"
	       "Run a one-off container of SERVICE (docker compose run): the service's image,\n"
	       "environment, volumes and networks, no published ports, label\n"
	       "com.docker.compose.oneoff=True, named <task>-<service>-run-<hex> and recorded\n"
	       "in the ledger before it is created (so `down` removes it). Its output is\n"
	       "streamed and its exit status is ours. The task must be up.\n\n"
	       "  -t, --task TASK     task name (default: $TASKENV_TASK, else the git branch)\n"
	       "      --rm            remove the container when it exits\n"
	       "  -e, --env K=V       set a variable (repeatable)\n"
	       "  -u, --user USER     run as USER\n"
	       "  -w, --workdir DIR   working directory inside the container\n"
	       "      --env-file FILE variables to read the task's Compose files with, instead of\n"
	       "                      the .env (repeatable; as given to 'taskenv up')\n");
}

struct run_args {
	const char *task;
	struct svc_run_opts ro;
	char **env;	  /* owned */
	char **env_files; /* owned */
};

static int parse(struct run_args *a, int argc, char **argv)
{
	static const struct option opts[] = {
	    {"task", required_argument, NULL, 't'},    {"rm", no_argument, NULL, 'r'},
	    {"env", required_argument, NULL, 'e'},     {"user", required_argument, NULL, 'u'},
	    {"workdir", required_argument, NULL, 'w'}, {"env-file", required_argument, NULL, 'E'},
	    {"help", no_argument, NULL, 'h'},	       {NULL, 0, NULL, 0},
	};
	int c;

	while ((c = getopt_long(argc, argv, "+t:e:u:w:h", opts, NULL)) != -1) {
		switch (c) {
		case 't': a->task = optarg; break;
		case 'r': a->ro.rm = true; break;
		case 'e':
			if (!strchr(optarg, '='))
				return -1;
			a->env = te_strv_push(a->env, xstrdup(optarg));
			break;
		case 'u': a->ro.user = optarg; break;
		case 'w': a->ro.workdir = optarg; break;
		case 'E': a->env_files = te_strv_push(a->env_files, xstrdup(optarg)); break;
		case 'h': run_help(); return 1;
		default: return -1;
		}
	}
	if (optind >= argc)
		return -1;
	a->ro.service = argv[optind++];
	if (optind < argc && strcmp(argv[optind], "--") == 0)
		optind++;
	a->ro.cmd = optind < argc ? argv + optind : NULL;
	a->ro.env = a->env;
	a->ro.env_files = a->env_files;
	return 0;
}

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
	int p = parse(&a, argc, argv), code = -1, rc = -1;

	if (p != 0) {
		te_strv_free(a.env);
		te_strv_free(a.env_files);
		return p > 0 ? EXIT_OK : cmd_usage("run", "expected SERVICE [CMD...]");
	}
	a.ro.output = out_line;
	a.ro.cancel = &interrupted;
	signal(SIGPIPE, SIG_IGN);
	catch_signals();
	if (cmd_task_engine(ctx, a.task, &task, &err))
		rc = svc_run(ctx->engine, ctx->ledger, task, &a.ro, &code, &name, &err);
	te_strv_free(a.env);
	te_strv_free(a.env_files);
	if (rc < 0)
		return cmd_fail("run", &err);
	if (interrupted)
		return 128 + interrupted; /* as a shell reports a command killed by the signal */
	return code < 0 ? EXIT_FAIL : code;
}
