/* taskenv agents-md: the isolation section a project pastes into its
 * AGENTS.md, filled with what taskenv on this machine actually provides,
 * so an agent's instructions match the room it gets. */
#include "cmd/cmd.h"
#include "drivers/driver.h"
#include "engine/engine.h"
#include "services/settings.h"
#include "state/ledger.h"
#include "common/mem.h"

#include <stdio.h>

const struct cmd_option cmd_agents_md_options[] = {CMD_OPT_END};

const char cmd_agents_md_about[] =
    "Print a Markdown section for AGENTS.md describing the isolation taskenv gives on\n"
    "this machine (engine reachable or not, flavor and version, port range and\n"
    "loopback-only binding, ledger, drivers, limits), the variables to export\n"
    "(DOCKER_HOST, TASKENV_STATE), the lifecycle (worktree, lease, with/shell,\n"
    "evidence before down, retain, gc) and the rule: if the required boundary is\n"
    "unavailable, stop and report. The values are the settings the other verbs use\n"
    "('taskenv settings').\n";

/* A limit as containers get it: "0" and "none" are no limit. */
static const char *limit(const struct svc_settings *s, enum svc_setting_id id)
{
	const struct svc_setting *it = svc_settings_at(s, id);

	return it->num || it->real > 0 ? it->text : "none";
}

static void print_engine(struct engine *e, const struct te_err *err)
{
	if (e)
		printf("- **Engine**: %s %s (Engine API %s) at `unix://%s`, reachable when this was "
		       "generated.\n",
		       engine_flavor(e), engine_version(e), engine_api_version(e), engine_socket(e));
	else
		printf("- **Engine**: NOT reachable when this was generated (%s). Until one answers, no "
		       "task environment can be made.\n",
		       err->msg);
}

static void print_facts(const struct svc_settings *s, const char *ledger)
{
	printf("- **Ports**: every published port is bound to `127.0.0.1` only, on a host port taskenv "
	       "picks from `%s`; the port written in the Compose file is only a hint. Read the real "
	       "ones with `eval \"$(taskenv env -t <task>)\"` (`TASKENV_PORT_<SERVICE>_<PORT>`).\n",
	       svc_settings_at(s, SVC_SET_PORT_RANGE)->text);
	printf("- **Names**: containers `<task>-<service>-1`, networks and volumes `<task>_<key>`; "
	       "`container_name` becomes a network alias, never a global name.\n");
	printf("- **Ledger**: `%s` records every object before it is created; `taskenv down -t "
	       "<task> --volumes` removes exactly what the task owns and nothing else.\n",
	       ledger);
	printf("- **Drivers** (`x-taskenv.resources` in the Compose file): %s. Each gives the task "
	       "its own Postgres schema or database, RabbitMQ vhost or S3 buckets, with credentials "
	       "that reach nothing else; read them with `taskenv env -t <task>` "
	       "(`TASKENV_<KEY>_URL`, ...), never use the server's admin credentials.\n",
	       drv_names());
	printf("- **Limits** per container whose service sets none: cpus %s, memory %s (%lld bytes), pids "
	       "%s%s.\n",
	       limit(s, SVC_SET_LIMIT_CPUS), limit(s, SVC_SET_LIMIT_MEMORY),
	       svc_settings_at(s, SVC_SET_LIMIT_MEMORY)->num, limit(s, SVC_SET_LIMIT_PIDS),
	       svc_settings_at(s, SVC_SET_NO_NEW_PRIVILEGES)->num ? "; no-new-privileges" : "");
}

/* The variables every agent's shell must export: without them its
 * taskenv finds another engine or a ledger of its own (and its own shared
 * servers), and the tasks of one machine stop seeing each other. */
static void print_exports(struct engine *e, const char *ledger)
{
	printf("\n### Export these first\n\n"
	       "Every command below assumes both, exported in the shell that runs taskenv (and in the "
	       "agent's own tool environment):\n\n"
	       "```sh\n"
	       "export DOCKER_HOST=unix://%s\n"
	       "export TASKENV_STATE=%s\n"
	       "```\n\n"
	       "Without `TASKENV_STATE` taskenv uses a ledger of its own per user/home (a second set of "
	       "shared servers, tasks that cannot see each other); without `DOCKER_HOST` it may reach "
	       "another engine, and every verb on a task made elsewhere refuses with exit 3.\n",
	       e ? engine_socket(e) : "<the engine's socket>", ledger);
}

static void print_lifecycle(void)
{
	printf("\n### Lifecycle\n\n"
	       "- **Worktree**: one git worktree per task, `taskenv worktree add <task>`; work and run "
	       "`taskenv up` from inside it (the task is named by it).\n"
	       "- **Lease**: `taskenv up -t <task> --lease 2h`; `taskenv gc` may remove the task "
	       "once the lease passed and your process is gone.\n"
	       "- **Host commands**: `taskenv with -t <task> --as <service> -- <cmd>` runs a host "
	       "command with the service's own variables pointing at `127.0.0.1` (`taskenv shell` "
	       "for a shell); `taskenv exec`/`run` inside containers. Their exit status is the "
	       "command's; 125 means taskenv failed, 126 cannot execute, 127 not found.\n"
	       "- **Evidence before down**: `taskenv down -t <task> --evidence <dir>` writes the "
	       "bundle (diff, new files, every exec/run with its exit code, logs, verify) and then "
	       "removes the task; `taskenv evidence -t <task> -o <dir>` writes it without removing.\n"
	       "- **Retain** a failed task for review instead of removing it: `taskenv retain -t "
	       "<task> --for 1d --reason '...'` (or `up --retain-on-failure 1d`).\n"
	       "- **gc**: `taskenv gc` removes expired tasks and orphans of this ledger; never "
	       "remove containers, networks or volumes by hand or with `docker ... prune`.\n");
}

static void print_rules(void)
{
	printf("\n### Rules\n\n"
	       "1. Work inside your task: `taskenv up -t <task>`, then `taskenv env`, `taskenv logs`, "
	       "`taskenv exec`, `taskenv run --rm`, `taskenv with`; finish with `taskenv down -t "
	       "<task> --volumes --evidence <dir>`.\n"
	       "2. Do not start project services on the host, publish ports on other addresses, or "
	       "use another task's containers, networks, volumes or ports.\n"
	       "3. **If the required boundary is unavailable, stop and report.** When the engine does "
	       "not answer, `taskenv up` fails, or a service you need is not in the task, do not fall "
	       "back to shared or host resources: stop and report what is missing and the exact "
	       "error.\n");
}

int cmd_agents_md(struct te_ctx *ctx, int argc, char **argv)
{
	struct te_err err = {0}, serr = {0};
	const struct svc_settings *s;
	te_autofree char *ledger = NULL;
	struct engine *e;
	int code, i = cmd_parse(ctx, argc, argv, NULL, &code);

	if (i < 0)
		return code;
	s = cmd_get_settings(ctx, &serr);
	if (!s)
		return cmd_fail("agents-md", &serr);
	ledger = cmd_state_path(ctx, s) ? xstrdup(cmd_state_path(ctx, s)) : state_default_path();
	e = cmd_engine(ctx, NULL, &err);
	printf("## Isolation (taskenv %s)\n\n"
	       "Services of this project run in a task-scoped environment made by taskenv, not on the "
	       "host. What this machine provides:\n\n",
	       TASKENV_VERSION);
	print_engine(e, &err);
	print_facts(s, ledger ? ledger : "(no home directory)");
	print_exports(e, ledger ? ledger : "(no home directory)");
	print_lifecycle();
	print_rules();
	return EXIT_OK;
}
