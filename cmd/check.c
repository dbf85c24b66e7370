/* taskenv check: the policy verdict on a Compose file, without an engine. */
#include "cmd/cmd.h"
#include "services/model/compose.h"
#include "services/model/policy.h"
#include "services/model/task.h"
#include "common/mem.h"

#define TE_WITH_CJSON
#include "common/cleanup.h"

#include <getopt.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

struct check_opts {
	struct cmd_compose compose;
	bool json;
};

static void check_help(void)
{
	printf(
	    "usage: taskenv check [-f FILE]... [--profile NAME]... [--allow NAME]... [--env-file FILE]...\n"
	    "                     [--format text|json] [--json]\n\n"
	    "What 'taskenv up' would refuse, one finding per line:\n"
	    "  FILE:LINE:COL: SERVICE: KEY: REASON (allow with 'NAME')\n"
	    "An exception is granted by the file (x-taskenv: {allow: [NAME, ...]}) or by\n"
	    "--allow NAME. Names:\n"
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
	    "  other-container       volumes_from / network_mode / pid / ipc: container:NAME\n"
	    "Bind sources (also secret and config file: sources) are judged after resolving\n"
	    "symlinks and '..'.\n\n"
	    "exit codes: 0 nothing refused, 1 findings, 2 the file cannot be read or is invalid\n");
}

static int parse(struct check_opts *o, int argc, char **argv)
{
	static const struct option opts[] = {
	    {"file", required_argument, NULL, 'f'},   {"profile", required_argument, NULL, 'P'},
	    {"allow", required_argument, NULL, 'A'},  {"env-file", required_argument, NULL, 'E'},
	    {"format", required_argument, NULL, 'F'}, {"json", no_argument, NULL, 'j'},
	    {"help", no_argument, NULL, 'h'},	      {NULL, 0, NULL, 0},
	};
	int c;

	while ((c = getopt_long(argc, argv, "f:h", opts, NULL)) != -1) {
		if (cmd_compose_opt(&o->compose, c, optarg))
			continue;
		if (c == 'F' && (strcmp(optarg, "json") == 0 || strcmp(optarg, "text") == 0)) {
			o->json = strcmp(optarg, "json") == 0;
			continue;
		}
		if (c == 'j') {
			o->json = true;
			continue;
		}
		if (c == 'h') {
			check_help();
			return 1;
		}
		return -1;
	}
	return optind < argc ? -1 : 0;
}

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
 * -t (TASKENV_TASK, the git branch); else the variable is left as it is. */
static char *quiet_task(void)
{
	te_autofree char *cwd = getcwd(NULL, 0);
	struct te_err ignored = {0};

	return svc_task_resolve(NULL, cwd ? cwd : ".", &ignored);
}

static int run(struct check_opts *o, struct te_err *err)
{
	te_autofree char *task = quiet_task();
	struct svc_project *p = cmd_compose_load(&o->compose, "check", task, err);
	struct svc_finding *f = NULL;
	size_t n = 0;

	if (!p)
		return -1;
	if (svc_policy_validate(p, o->compose.allow, err) < 0) {
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
	int p = parse(&o, argc, argv), rc;

	if (p != 0) {
		cmd_compose_release(&o.compose);
		return p > 0 ? EXIT_OK : cmd_usage("check", "bad arguments");
	}
	rc = run(&o, &err);
	if (rc < 0) {
		cmd_fail("check", &err);
		rc = EXIT_USAGE; /* unreadable or invalid file: 2, whatever the cause */
	}
	cmd_compose_release(&o.compose);
	return rc;
}
