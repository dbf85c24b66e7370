/* taskenv check: the policy verdict on a Compose file, without an engine. */
#include "cmd/cmd.h"
#include "services/model/compose.h"
#include "services/model/policy.h"
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
    "What 'taskenv up' would refuse, one finding per line:\n"
    "  FILE:LINE:COL: SERVICE: KEY: REASON (allow with 'NAME')\n"
    "An exception is granted by the file (x-taskenv: {allow: [NAME, ...]}), by\n"
    "--allow NAME, or by the config file's allow setting (globally, or for this\n"
    "project's directory under projects:; 'taskenv settings'). Names:\n"
    "  engine-socket         docker.sock / podman.sock / containerd.sock, or a directory above one\n"
    "  privileged            privileged: true\n"
    "  host-network host-pid host-ipc host-userns host-uts\n"
    "                        network_mode / pid / ipc / userns_mode / uts: host\n"
    "  devices               devices:\n"
    "  cap:SYS_ADMIN cap:SYS_PTRACE cap:NET_ADMIN cap:SYS_MODULE cap:ALL\n"
    "  seccomp-unconfined apparmor-unconfined label-disable   security_opt\n"
    "  bind-system           bind of /, /etc, /var, /run, /proc, /sys, /dev, /root\n"
    "  bind-home             bind of $HOME itself\n"
    "  bind-credentials      bind of ~/.ssh ~/.aws ~/.config/gcloud ~/.kube ~/.docker\n"
    "                        ~/.gnupg ~/.netrc ~/.git-credentials\n"
    "  bind-outside-project  another bind source outside the project directory\n"
    "  public-port           a port published on a host ip other than loopback\n"
    "  host-sysctl           a sysctl not namespaced per container (host kernel)\n"
    "  mac-address           mac_address: (the same MAC in every task)\n"
    "Bind sources (also secret and config file: sources) are judged after resolving\n"
    "symlinks and '..'.\n\n"
    "exit codes: 0 nothing refused, 1 findings, 2 the file cannot be read or is invalid\n";

static void print_json(const struct svc_finding *f, size_t n)
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
		cJSON_AddStringToObject(o, "allow", f[i].allow);
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

static int run(struct te_ctx *ctx, struct check_opts *o, struct te_err *err)
{
	te_autofree char *task = quiet_task(ctx);
	struct svc_project *p = cmd_compose_load(ctx, &o->compose, "check", task, err);
	struct svc_finding *f = NULL;
	size_t n = 0;

	if (!p)
		return -1;
	if (cmd_compose_allow(ctx, &o->compose, p, err) < 0 ||
	    svc_policy_validate(p, o->compose.allow, err) < 0) {
		svc_project_free(p);
		return -1;
	}
	svc_policy_check(p, o->compose.allow, &f, &n);
	if (o->json)
		print_json(f, n);
	for (size_t i = 0; !o->json && i < n; i++) {
		te_autofree char *line = svc_finding_format(&f[i]);

		printf("%s\n", line);
	}
	svc_findings_free(f, n);
	svc_project_free(p);
	return n ? 1 : 0;
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
