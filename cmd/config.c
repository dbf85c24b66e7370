/* taskenv config: the resolved model with the names taskenv will create. */
#include "cmd/cmd.h"
#include "services/model/compose.h"
#include "services/model/config.h"
#include "services/model/policy.h"
#include "services/model/task.h"
#include "common/mem.h"

#define TE_WITH_CJSON
#include "common/cleanup.h"

#include <getopt.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

struct config_opts {
	struct cmd_compose compose;
	const char *task;
	bool json;
	bool show_settings;
};

static void config_help(void)
{
	printf("usage: taskenv config [-f FILE]... [-t TASK] [--profile NAME]... [--env-file FILE]...\n"
	       "                      [--format yaml|json] [--json]\n"
	       "       taskenv config --show-settings [--json]\n\n"
	       "Print the Compose model as taskenv will run it: files merged, variables\n"
	       "interpolated, profiles applied, default limits filled in, and every name\n"
	       "scoped to the task (containers <task>-<service>-1, networks and volumes\n"
	       "<task>_<key>; a fixed name: kept in the io.taskenv.original-name label; a\n"
	       "container_name becomes a network alias). Host ports are allocated at 'up':\n"
	       "the file's port is shown as x-published-hint. Default format: yaml.\n"
	       "--show-settings prints taskenv's own settings instead (as 'taskenv settings').\n"
	       "Without -f: COMPOSE_FILE (the environment, else the .env), else compose.yaml\n"
	       "(compose.yml, docker-compose.yml, docker-compose.yaml) and its override file\n"
	       "(compose.override.yml, ...). --env-file FILE (repeatable, later wins) replaces the\n"
	       ".env; the process environment wins over both. ${COMPOSE_PROJECT_NAME} is the task.\n");
}

static int parse(struct config_opts *o, int argc, char **argv)
{
	static const struct option opts[] = {
	    {"file", required_argument, NULL, 'f'},
	    {"task", required_argument, NULL, 't'},
	    {"profile", required_argument, NULL, 'P'},
	    {"format", required_argument, NULL, 'F'},
	    {"env-file", required_argument, NULL, 'E'},
	    {"json", no_argument, NULL, 'j'},
	    {"show-settings", no_argument, NULL, 'S'},
	    {"help", no_argument, NULL, 'h'},
	    {NULL, 0, NULL, 0},
	};
	int c;

	while ((c = getopt_long(argc, argv, "f:t:h", opts, NULL)) != -1) {
		if (c != 'A' && cmd_compose_opt(&o->compose, c, optarg))
			continue;
		if (c == 't') {
			o->task = optarg;
		} else if (c == 'F' && (strcmp(optarg, "json") == 0 || strcmp(optarg, "yaml") == 0)) {
			o->json = strcmp(optarg, "json") == 0;
		} else if (c == 'j') {
			o->json = true;
		} else if (c == 'S') {
			o->show_settings = true;
		} else if (c == 'h') {
			config_help();
			return 1;
		} else {
			return -1;
		}
	}
	return optind < argc ? -1 : 0;
}

static int run(struct config_opts *o, struct te_err *err)
{
	te_autofree char *cwd = getcwd(NULL, 0);
	te_autofree char *task = svc_task_resolve(o->task, cwd ? cwd : ".", err);
	te_autofree char *text = NULL;
	te_autojson cJSON *json = NULL;
	struct svc_policy_defaults d;
	struct svc_project *p;

	if (!task || svc_policy_defaults_init(&d, err) < 0)
		return -1;
	p = cmd_compose_load(&o->compose, "config", task, err);
	if (!p)
		return -1;
	svc_policy_apply_defaults(p, &d);
	json = svc_config_json(p, task, err);
	svc_project_free(p);
	if (!json)
		return -1;
	text = o->json ? cJSON_Print(json) : svc_config_yaml(json, err);
	if (!text)
		return -1;
	fputs(text, stdout);
	if (o->json)
		putchar('\n');
	return 0;
}

int cmd_config(struct te_ctx *ctx, int argc, char **argv)
{
	struct config_opts o = {0};
	struct te_err err = {0};
	int p = parse(&o, argc, argv), rc;

	if (p != 0) {
		cmd_compose_release(&o.compose);
		return p > 0 ? EXIT_OK : cmd_usage("config", "bad arguments");
	}
	if (o.show_settings) {
		cmd_compose_release(&o.compose);
		return cmd_settings_show(ctx, o.json);
	}
	rc = run(&o, &err) < 0 ? cmd_fail("config", &err) : EXIT_OK;
	cmd_compose_release(&o.compose);
	return rc;
}
