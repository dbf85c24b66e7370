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
    "loopback-only binding, ledger, drivers, limits) and the rule: if the required\n"
    "boundary is unavailable, stop and report. The values are the settings the\n"
    "other verbs use ('taskenv settings').\n";

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

static void print_rules(void)
{
	printf("\n### Rules\n\n"
	       "1. Work inside your task: `taskenv up -t <task>`, then `taskenv env`, `taskenv logs`, "
	       "`taskenv exec`, `taskenv run --rm`; finish with `taskenv down -t <task> --volumes`.\n"
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
	print_rules();
	return EXIT_OK;
}
