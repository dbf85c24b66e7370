/* taskenv up: load the Compose file, then create and start the task. */
#include "cmd/cmd.h"
#include "services/apply.h"
#include "services/compose.h"
#include "services/load.h"
#include "services/task.h"
#include "state/ledger.h"
#include "common/duration.h"
#include "common/mem.h"

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct up_opts {
	char **files;	  /* owned */
	const char *task; /* borrowed from argv */
	long long lease;  /* seconds, 0: none */
	long long retain; /* --retain-on-failure seconds, 0: off */
	long long owner_pid;
};

static void up_help(void)
{
	printf("usage: taskenv up [-f FILE]... [-t TASK] [--lease DURATION] [--owner-pid PID]\n"
	       "                  [--retain-on-failure DURATION]\n\n"
	       "Create the task's network(s), volumes and containers (in depends_on order) and\n"
	       "start them. Every name is scoped to the task; every published port is bound to\n"
	       "127.0.0.1 on a host port taken from the ledger (TASKENV_PORT_RANGE, default\n"
	       "20000-29999), the port in the file being only a hint. Running it again reuses\n"
	       "what exists.\n\n"
	       "  -f, --file FILE  Compose file (repeatable; default: compose.yaml, compose.yml,\n"
	       "                   docker-compose.yaml, docker-compose.yml in the current directory)\n"
	       "  -t, --task TASK  task name (default: $TASKENV_TASK, else the git branch name\n"
	       "                   after its last '/'); must match " SVC_TASK_NAME_RULE "\n"
	       "  --lease DURATION  'taskenv gc' may remove the task DURATION from now (30s, 5m,\n"
	       "                   2h, 1d) once its owner no longer runs\n"
	       "  --owner-pid PID  the process that owns the task (default: this taskenv); while\n"
	       "                   it runs, gc never removes the task\n"
	       "  --retain-on-failure DURATION  when up fails, stop the containers but keep\n"
	       "                   everything for inspection; gc removes it after DURATION\n");
}

static int parse_pid(const char *s, long long *out)
{
	char *end;

	errno = 0;
	*out = strtoll(s, &end, 10);
	return errno || *end || *out <= 0 ? -1 : 0;
}

/* 0 ok, 1 --help shown, -1 bad arguments (message printed when it helps). */
static int parse(struct up_opts *o, int argc, char **argv)
{
	struct te_err err = {0};
	static const struct option opts[] = {
	    {"file", required_argument, NULL, 'f'},
	    {"task", required_argument, NULL, 't'},
	    {"lease", required_argument, NULL, 'L'},
	    {"owner-pid", required_argument, NULL, 'P'},
	    {"retain-on-failure", required_argument, NULL, 'R'},
	    {"help", no_argument, NULL, 'h'},
	    {NULL, 0, NULL, 0},
	};
	int c;

	while ((c = getopt_long(argc, argv, "f:t:h", opts, NULL)) != -1) {
		switch (c) {
		case 'f': o->files = te_strv_push(o->files, xstrdup(optarg)); break;
		case 't': o->task = optarg; break;
		case 'L':
		case 'R':
			if (te_duration_parse(optarg, c == 'L' ? &o->lease : &o->retain, &err) < 0) {
				fprintf(stderr, "taskenv up: %s\n", err.msg);
				return -1;
			}
			break;
		case 'P':
			if (parse_pid(optarg, &o->owner_pid) < 0)
				return -1;
			break;
		case 'h': up_help(); return 1;
		default: return -1;
		}
	}
	if (optind < argc)
		return -1;
	return 0;
}

static int default_files(struct up_opts *o, struct te_err *err)
{
	te_autofree char *cwd = getcwd(NULL, 0);
	char *f;

	if (o->files)
		return 0;
	if (!cwd)
		return te_err_set(err, TE_E_IO, "cannot read the current directory");
	f = svc_find_compose_file(cwd, err);
	if (!f)
		return -1;
	o->files = te_strv_push(NULL, f);
	return 0;
}

static void print_ports(struct te_ctx *ctx, const char *task)
{
	struct te_err err = {0};
	struct state_port *p = NULL;
	size_t n = 0;

	if (state_port_list(ctx->ledger, task, &p, &n, &err) < 0)
		return;
	for (size_t i = 0; i < n; i++)
		printf("%s\t%s:%d->%d/%s\n", p[i].service, p[i].host_ip, p[i].host_port, p[i].container_port,
		       p[i].proto);
	state_ports_free(p, n);
}

static const char *recorded_engine(struct te_ctx *ctx, const char *task, struct state_task *t)
{
	struct te_err ignored;

	if (state_task_get(ctx->ledger, task, t, &ignored) < 0)
		return NULL;
	return t->engine;
}

static int run(struct te_ctx *ctx, struct up_opts *o, struct te_err *err)
{
	te_autofree char *cwd = getcwd(NULL, 0);
	te_autofree char *task = svc_task_resolve(o->task, cwd ? cwd : ".", err);
	struct svc_project *project = NULL;
	struct svc_up_opts uo;
	struct state_task t = {0};
	int rc = -1;

	if (!task || svc_up_opts_init(&uo, err) < 0 || default_files(o, err) < 0)
		return -1;
	project = svc_load(o->files, err);
	if (!project)
		return -1;
	uo.progress = cmd_progress;
	uo.lease = o->lease;
	uo.retain_on_failure = o->retain;
	uo.owner_pid = o->owner_pid;
	if (cmd_engine(ctx, recorded_engine(ctx, task, &t), err)) {
		fprintf(stderr, "taskenv up: task '%s' from %s\n", task, project->files[0]);
		rc = svc_up(ctx->engine, ctx->ledger, project, task, &uo, err);
	}
	if (rc == 0) {
		printf("task '%s' is up\n", task);
		print_ports(ctx, task);
	} else if (o->retain && ctx->engine) {
		fprintf(stderr,
			"taskenv up: task '%s' kept for inspection (stopped) for %llds; "
			"'taskenv gc' removes it after that, 'taskenv down -t %s --volumes' now\n",
			task, o->retain, task);
	}
	state_task_release(&t);
	svc_project_free(project);
	return rc;
}

int cmd_up(struct te_ctx *ctx, int argc, char **argv)
{
	struct up_opts o = {0};
	struct te_err err = {0};
	int p = parse(&o, argc, argv), rc;

	if (p != 0) {
		te_strv_free(o.files);
		return p > 0 ? EXIT_OK : cmd_usage("up", "bad arguments");
	}
	rc = run(ctx, &o, &err) < 0 ? cmd_fail("up", &err) : EXIT_OK;
	te_strv_free(o.files);
	return rc;
}
