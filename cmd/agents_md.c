/* taskenv agents-md: the isolation section a project pastes into its
 * AGENTS.md, filled with what taskenv on this machine actually provides,
 * so an agent's instructions match the room it gets. */
#include "cmd/cmd.h"
#include "drivers/driver.h"
#include "engine/engine.h"
#include "services/settings.h"
#include "state/ledger.h"
#include "common/mem.h"

#include <getopt.h>
#include <stdio.h>

static void agents_md_help(void)
{
	printf("usage: taskenv agents-md\n\n"
	       "Print a Markdown section for AGENTS.md describing the isolation taskenv gives on\n"
	       "this machine (engine reachable or not, flavor and version, port range and\n"
	       "loopback-only binding, ledger, drivers, limits) and the rule: if the required\n"
	       "boundary is unavailable, stop and report.\n");
}

static const char *or_unset(const struct svc_settings *s, const char *key)
{
	const char *v = svc_settings_get(s, key);

	return v && *v ? v : "not set";
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
	       svc_settings_get(s, "port_range"));
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
	printf("- **Limits** per container: cpus %s, memory %s, pids %s.\n", or_unset(s, "limits.cpus"),
	       or_unset(s, "limits.memory"), or_unset(s, "limits.pids"));
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
	static const struct option opts[] = {{"help", no_argument, NULL, 'h'}, {NULL, 0, NULL, 0}};
	struct te_err err = {0}, serr = {0};
	struct svc_settings s;
	te_autofree char *ledger = ctx->state_path ? xstrdup(ctx->state_path) : state_default_path();
	struct engine *e;
	int c;

	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1)
		return c == 'h' ? (agents_md_help(), EXIT_OK) : cmd_usage("agents-md", "bad arguments");
	if (svc_settings_load(&s, &serr) < 0) {
		svc_settings_release(&s);
		return cmd_fail("agents-md", &serr);
	}
	e = cmd_engine(ctx, NULL, &err);
	printf("## Isolation (taskenv %s)\n\n"
	       "Services of this project run in a task-scoped environment made by taskenv, not on the "
	       "host. What this machine provides:\n\n",
	       TASKENV_VERSION);
	print_engine(e, &err);
	print_facts(&s, ledger ? ledger : "(no home directory)");
	print_rules();
	svc_settings_release(&s);
	return EXIT_OK;
}
