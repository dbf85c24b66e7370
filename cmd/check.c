/* taskenv check: the policy verdict on a Compose file, without an engine. */
#include "cmd/cmd.h"
#include "services/model/compose.h"
#include "services/model/plan.h"
#include "services/gate/gate.h"
#include "services/lifecycle/guard.h"
#include "services/lifecycle/pgtpl.h"
#include "common/mem.h"

#define TE_WITH_CJSON
#include "common/cleanup.h"

#include <stdio.h>
#include <string.h>

struct check_opts {
	struct cmd_compose compose;
	const char *format;
	bool json;
};

const struct cmd_option cmd_check_options[] = {
    CMD_OPT_COMPOSE_FILE(struct check_opts),
    CMD_OPT_COMPOSE_PROFILE(struct check_opts),
    CMD_OPT_CSV(0, "allow", "NAME", struct check_opts, compose.allow,
		"grant an exception (repeatable, comma-separated; the names above)"),
    CMD_OPT_COMPOSE_ENV_FILE(struct check_opts),
    CMD_OPT_CHOICE(0, "format", "text|json", struct check_opts, format, "output format (default text)"),
    CMD_OPT_FLAG(0, "json", struct check_opts, json, "the same as --format json"),
    CMD_OPT_END,
};

const char cmd_check_about[] =
    "What 'taskenv up' would refuse, judged by the policy gate on the Engine\n"
    "requests the files make (no engine, no ledger), one finding per line:\n"
    "  FILE:LINE:COL: SERVICE: KEY: REASON (needs --allow NAME)\n"
    "  FILE:LINE:COL: SERVICE: KEY: REASON (refused)      no exception opens it\n"
    "Exceptions come only from the trusted side: --allow NAME, or the config\n"
    "file's allow setting (globally, or for this project's directory under\n"
    "projects:; 'taskenv settings'). x-taskenv.allow in a file only names the\n"
    "exceptions it needs. What each name opens: docs/security.md. Names:\n"
    "  engine-socket privileged host-network host-pid host-ipc host-userns host-uts\n"
    "  host-cgroupns devices cap:NAME seccomp-profile bind-system bind-home\n"
    "  bind-credentials\n"
    "  bind-outside-project public-port host-sysctl mac-address external-network\n"
    "  external-volume network-driver volume-driver runtime log-driver\n"
    "  host-credentials template:NAME path:/DIR\n"
    "Host paths (binds, env_file, secret and config files, build contexts) are\n"
    "judged after resolving every symlink, against the project (the nearest\n"
    "ancestor of the Compose file holding .git, else its directory). What only\n"
    "an engine knows (whose labels an external network carries) is left to up.\n\n"
    "exit codes: 0 nothing refused, 1 findings, 2 the file cannot be read or is invalid\n";

static void print_json(const struct gate_finding *f, size_t n)
{
	te_autojson cJSON *doc = cJSON_CreateObject();
	cJSON *a;
	te_autofree char *text = NULL;

	cJSON_AddNumberToObject(doc, "schema_version", 1);
	a = cJSON_AddArrayToObject(doc, "findings");

	for (size_t i = 0; i < n; i++) {
		cJSON *o = cJSON_CreateObject();

		cJSON_AddStringToObject(o, "file", f[i].loc.file ? f[i].loc.file : "");
		cJSON_AddNumberToObject(o, "line", f[i].loc.line);
		cJSON_AddNumberToObject(o, "col", f[i].loc.col);
		cJSON_AddStringToObject(o, "service", f[i].service);
		cJSON_AddStringToObject(o, "key", f[i].key);
		cJSON_AddStringToObject(o, "reason", f[i].reason);
		if (f[i].allow)
			cJSON_AddStringToObject(o, "allow", f[i].allow);
		else
			cJSON_AddNullToObject(o, "allow");
		cJSON_AddItemToArray(a, o);
	}
	text = cJSON_Print(doc);
	printf("%s\n", text);
}

/* The task's name for ${COMPOSE_PROJECT_NAME} when it can be had without
 * -t (the task setting, the git branch); else the variable is left as it is. */
static char *quiet_task(struct te_ctx *ctx)
{
	struct te_err ignored = {0};

	return cmd_task_name(ctx, NULL, &ignored);
}

/* A gate as up would have it, without an engine: the rules that need one
 * are left to up. Secret files taskenv writes at up go to a directory of
 * the ledger, which check has not: a stand-in, trusted as up trusts it. */
static void check_gate(struct gate *g, struct svc_plan *plan, char *const *allow)
{
	g->task = xstrdup(plan->task);
	g->ledger_id = xstrdup(plan->ledger_id);
	g->granted = te_strv_dup(allow);
	g->boundary = gate_project_boundary(plan->project);
	plan->files_dir = xstrdup("/nonexistent/taskenv-check-files");
	g->own_dirs = te_strv_push(NULL, xstrdup(plan->files_dir));
	plan->broker_dir = xstrdup("/nonexistent/taskenv-check-broker");
	g->broker_dir = xstrdup(plan->broker_dir);
	plan->public_ports = gate_granted(g, "public-port");
}

static int judge(struct svc_project *p, char *const *allow, const char *task, bool json, struct te_err *err)
{
	struct svc_plan *plan = svc_plan_build(p, task ? task : "check", "check", err);
	struct gate g = {0};
	te_autostrv char **w = NULL;
	int n;

	if (!plan)
		return -1;
	check_gate(&g, plan, allow);
	svc_guard_plan(&g, NULL, plan);
	w = gate_public_port_warnings(&g, p);
	for (size_t i = 0; w && w[i]; i++)
		fprintf(stderr, "taskenv check: warning: %s\n", w[i]);
	if (json)
		print_json(g.v, g.n);
	for (size_t i = 0; !json && i < g.n; i++) {
		te_autofree char *line = gate_finding_format(&g.v[i]);

		printf("%s\n", line);
	}
	n = (int)g.n;
	gate_release(&g);
	svc_plan_free(plan);
	return n ? 1 : 0;
}

static int run(struct te_ctx *ctx, struct check_opts *o, struct te_err *err)
{
	te_autofree char *task = quiet_task(ctx);
	struct svc_project *p = cmd_compose_load(ctx, &o->compose, "check", task, err);
	int rc = -1;

	if (!p)
		return -1;
	if (cmd_compose_allow(ctx, &o->compose, p, err) == 0 &&
	    gate_exceptions_validate(o->compose.allow, "--allow", err) == 0 &&
	    gate_exceptions_validate(p->allow, "x-taskenv.allow", err) == 0 &&
	    svc_resources_schemes(p, err) == 0)
		rc = judge(p, o->compose.allow, task, o->json, err);
	svc_project_free(p);
	return rc;
}

int cmd_check(struct te_ctx *ctx, int argc, char **argv)
{
	struct check_opts o = {0};
	struct te_err err = {0};
	int rc, i = cmd_parse(ctx, argc, argv, &o, &rc);

	if (o.format && strcmp(o.format, "json") == 0)
		o.json = true;
	if (i >= 0) {
		rc = run(ctx, &o, &err);
		if (rc < 0) {
			cmd_fail("check", &err);
			/* A refusal the loader makes (a server image, a build network
			 * or context): 1, as the policy's; else an unreadable or
			 * invalid file: 2, whatever the cause. */
			rc = err.code == TE_E_POLICY ? EXIT_FAIL : EXIT_USAGE;
		}
	}
	cmd_compose_release(&o.compose);
	return rc;
}
