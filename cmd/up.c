/* taskenv up: load the Compose file, check the policy, then create and
 * start the task. */
#include "cmd/cmd.h"
#include "services/lifecycle/apply.h"
#include "services/model/compose.h"
#include "services/model/load.h"
#include "services/model/policy.h"
#include "services/model/task.h"
#include "services/contract/worktree.h"
#include "state/ledger.h"
#include "common/duration.h"
#include "common/mem.h"

#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct up_opts {
	struct cmd_compose compose;
	const char *task; /* borrowed from argv */
	bool wait;
	long long lease;  /* seconds, 0: none */
	long long retain; /* --retain-on-failure seconds, 0: off */
	long long owner_pid;
	bool build;
	char **scale; /* owned "SERVICE=N", --scale */
};

static void up_help(void)
{
	printf("usage: taskenv up [-f FILE]... [-t TASK] [--profile NAME]... [--allow NAME]... [--wait]\n"
	       "                  [--lease DURATION] [--owner-pid PID] [--retain-on-failure DURATION]\n"
	       "                  [--build] [--scale SERVICE=N]... [--env-file FILE]...\n\n"
	       "Check the Compose file against the policy (as 'taskenv check' does) and refuse\n"
	       "before creating anything when it finds something; then create the task's\n"
	       "network(s), volumes and containers (in depends_on order, waiting for\n"
	       "service_healthy / service_completed_successfully conditions) and start them.\n"
	       "Every name is scoped to the task; every published port is bound to 127.0.0.1\n"
	       "on a host port taken from the ledger (TASKENV_PORT_RANGE, default\n"
	       "20000-29999), the port in the file being only a hint. Running it again reuses\n"
	       "what exists.\n\n"
	       "  -f, --file FILE     Compose file (repeatable: later files merge into earlier\n"
	       "                      ones; default: compose.yaml, compose.yml,\n"
	       "                      docker-compose.yaml, docker-compose.yml in the current directory)\n"
	       "  -t, --task TASK     task name (default: $TASKENV_TASK, else the git branch name\n"
	       "                      after its last '/'); must match " SVC_TASK_NAME_RULE "\n"
	       "  --profile NAME      enable services of this profile (repeatable; else\n"
	       "                      $COMPOSE_PROFILES)\n"
	       "  --allow NAME        grant a policy exception (repeatable, comma-separated;\n"
	       "                      see 'taskenv check --help'); recorded in the ledger\n"
	       "  --wait              return only when every service with a healthcheck is healthy\n"
	       "  --lease DURATION    'taskenv gc' may remove the task DURATION from now (30s, 5m,\n"
	       "                      2h, 1d) once its owner no longer runs\n"
	       "  --owner-pid PID     the process that owns the task (default: this taskenv);\n"
	       "                      while it runs, gc never removes the task\n"
	       "  --retain-on-failure DURATION  when up fails, stop the containers but keep\n"
	       "                      everything for inspection; gc removes it after DURATION\n"
	       "  --build             build every service with build: first (else a service's\n"
	       "                      image is built only when missing, or with pull_policy: build;\n"
	       "                      built images are \"<task>-<service>\" unless image: names them)\n"
	       "  --scale SERVICE=N   run N containers of SERVICE (<task>-<service>-1..N), over\n"
	       "                      scale: / deploy.replicas; with fewer than run, the highest\n"
	       "                      numbers are removed (repeatable)\n"
	       "  --env-file FILE     variables for interpolation instead of the .env (repeatable,\n"
	       "                      later wins; the process environment wins over them)\n\n"
	       "Limits applied when the file is silent: TASKENV_DEFAULT_MEMORY (2g),\n"
	       "TASKENV_DEFAULT_CPUS (2), TASKENV_DEFAULT_PIDS (1024), no-new-privileges:true\n"
	       "(TASKENV_NO_NEW_PRIVILEGES=0 turns it off); 0 turns a limit off. Waits are\n"
	       "bounded by TASKENV_WAIT_TIMEOUT seconds (120).\n");
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
	    {"profile", required_argument, NULL, 'P'},
	    {"allow", required_argument, NULL, 'A'},
	    {"wait", no_argument, NULL, 'w'},
	    {"lease", required_argument, NULL, 'L'},
	    {"owner-pid", required_argument, NULL, 'O'},
	    {"retain-on-failure", required_argument, NULL, 'R'},
	    {"build", no_argument, NULL, 'B'},
	    {"scale", required_argument, NULL, 'S'},
	    {"env-file", required_argument, NULL, 'E'},
	    {"help", no_argument, NULL, 'h'},
	    {NULL, 0, NULL, 0},
	};
	int c;

	while ((c = getopt_long(argc, argv, "f:t:h", opts, NULL)) != -1) {
		if (cmd_compose_opt(&o->compose, c, optarg))
			continue;
		switch (c) {
		case 't': o->task = optarg; break;
		case 'w': o->wait = true; break;
		case 'L':
		case 'R':
			if (te_duration_parse(optarg, c == 'L' ? &o->lease : &o->retain, &err) < 0) {
				fprintf(stderr, "taskenv up: %s\n", err.msg);
				return -1;
			}
			break;
		case 'O':
			if (parse_pid(optarg, &o->owner_pid) < 0)
				return -1;
			break;
		case 'B': o->build = true; break;
		case 'S':
			if (!strchr(optarg, '=') || strchr(optarg, '=') == optarg) {
				fprintf(stderr, "taskenv up: --scale %s: expected SERVICE=N\n", optarg);
				return -1;
			}
			o->scale = te_strv_push(o->scale, xstrdup(optarg));
			break;
		case 'h': up_help(); return 1;
		default: return -1;
		}
	}
	if (optind < argc)
		return -1;
	return 0;
}

static void print_ports(struct te_ctx *ctx, const char *task)
{
	struct te_err err = {0};
	struct state_port *p = NULL;
	size_t n = 0;

	if (state_port_list(ctx->ledger, task, &p, &n, &err) < 0)
		return;
	/* A service's first replica as the service, the others as SERVICE-N. */
	for (size_t i = 0; i < n; i++) {
		char rep[16] = "";

		if (p[i].replica > 1)
			snprintf(rep, sizeof(rep), "-%d", p[i].replica);
		printf("%s%s\t%s:%d->%d/%s\n", p[i].service, rep, p[i].host_ip, p[i].host_port,
		       p[i].container_port, p[i].proto);
	}
	state_ports_free(p, n);
}

static void print_warnings(const struct svc_project *project)
{
	te_autostrv char **w = svc_worktree_mount_warnings(project);

	for (size_t i = 0; w && w[i]; i++)
		fprintf(stderr, "taskenv up: warning: %s\n", w[i]);
}

static const char *recorded_engine(struct te_ctx *ctx, const char *task, struct state_task *t)
{
	struct te_err ignored;

	if (state_task_get(ctx->ledger, task, t, &ignored) < 0)
		return NULL;
	return t->engine;
}

/* Every finding on stderr, before the one-line refusal svc_up gives. */
static void print_findings(const struct svc_project *p, char *const *allow)
{
	struct svc_finding *f = NULL;
	size_t n = 0;

	svc_policy_check(p, allow, &f, &n);
	for (size_t i = 0; i < n; i++) {
		te_autofree char *line = svc_finding_format(&f[i]);

		fprintf(stderr, "%s\n", line);
	}
	svc_findings_free(f, n);
}

static int prepare(struct up_opts *o, struct svc_project *project, struct svc_up_opts *uo, struct te_err *err)
{
	struct svc_policy_defaults d;

	if (svc_policy_defaults_init(&d, err) < 0)
		return -1;
	svc_policy_apply_defaults(project, &d);
	uo->progress = cmd_progress;
	uo->allow = o->compose.allow;
	uo->wait = o->wait;
	uo->lease = o->lease;
	uo->retain_on_failure = o->retain;
	uo->owner_pid = o->owner_pid;
	uo->build = o->build;
	return 0;
}

/* --scale SERVICE=N over the file's replicas. */
static int apply_scale(struct svc_project *p, char *const *scale, struct te_err *err)
{
	for (size_t i = 0; scale && scale[i]; i++) {
		te_autofree char *name = xstrndup(scale[i], strcspn(scale[i], "="));
		const char *n = strchr(scale[i], '=') + 1;
		char *end;
		long long v;

		errno = 0;
		v = strtoll(n, &end, 10);
		if (errno || end == n || *end)
			return te_err_set(err, TE_E_USAGE, "--scale %s: N must be a number", scale[i]);
		if (svc_project_scale(p, name, v, err) < 0)
			return -1;
	}
	return 0;
}

/* Inside a worktree made by `taskenv worktree add`, the ledger names the
 * task (whatever the branch prefix); elsewhere -t, TASKENV_TASK, the branch. */
static char *resolve_task(struct te_ctx *ctx, const char *flag, const char *cwd, struct te_err *err)
{
	const char *env = getenv("TASKENV_TASK");
	struct state_worktree w;
	char real[PATH_MAX];
	char *task;

	if (flag || (env && *env) || !cwd || !realpath(cwd, real) ||
	    state_worktree_find_path(ctx->ledger, real, &w, err) < 0) {
		te_err_clear(err);
		return svc_task_resolve(flag, cwd ? cwd : ".", err);
	}
	task = TE_STEAL(w.task);
	state_worktree_release(&w);
	return task;
}

static int run(struct te_ctx *ctx, struct up_opts *o, struct te_err *err)
{
	te_autofree char *cwd = getcwd(NULL, 0);
	te_autofree char *task = resolve_task(ctx, o->task, cwd, err);
	struct svc_project *project = NULL;
	struct svc_up_opts uo;
	struct state_task t = {0};
	int rc = -1;

	if (!task || svc_up_opts_init(&uo, err) < 0)
		return -1;
	project = cmd_compose_load(&o->compose, "up", task, err);
	if (!project || apply_scale(project, o->scale, err) < 0) {
		svc_project_free(project);
		return -1;
	}
	print_warnings(project);
	if (prepare(o, project, &uo, err) == 0 && cmd_engine(ctx, recorded_engine(ctx, task, &t), err)) {
		fprintf(stderr, "taskenv up: task '%s' from %s\n", task, project->files[0]);
		rc = svc_up(ctx->engine, ctx->ledger, project, task, &uo, err);
		if (rc < 0 && err->code == TE_E_POLICY)
			print_findings(project, o->compose.allow);
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
		cmd_compose_release(&o.compose);
		te_strv_free(o.scale);
		return p > 0 ? EXIT_OK : cmd_usage("up", "bad arguments");
	}
	rc = run(ctx, &o, &err) < 0 ? cmd_fail("up", &err) : EXIT_OK;
	cmd_compose_release(&o.compose);
	te_strv_free(o.scale);
	return rc;
}
