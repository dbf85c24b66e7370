/* taskenv config: the resolved model with the names taskenv will create. */
#include "cmd/cmd.h"
#include "services/model/compose.h"
#include "services/model/config.h"
#include "services/model/policy.h"
#include "common/mem.h"

#define TE_WITH_CJSON
#include "common/cleanup.h"

#include <stdio.h>
#include <string.h>

struct config_opts {
	struct cmd_compose compose;
	const char *task;
	const char *format;
	bool json;
	bool show_settings;
};

const struct cmd_option cmd_config_options[] = {
    CMD_OPT_COMPOSE_FILE(struct config_opts),
    CMD_OPT_TASK(struct config_opts, task),
    CMD_OPT_COMPOSE_PROFILE(struct config_opts),
    CMD_OPT_COMPOSE_ENV_FILE(struct config_opts),
    CMD_OPT_CHOICE(0, "format", "yaml|json", struct config_opts, format, "output format (default yaml)"),
    CMD_OPT_FLAG(0, "json", struct config_opts, json, "the same as --format json"),
    CMD_OPT_FLAG(0, "show-settings", struct config_opts, show_settings,
		 "print taskenv's own settings instead (as 'taskenv settings')"),
    CMD_OPT_END,
};

const char cmd_config_about[] = "Print the Compose model as taskenv will run it: files merged, variables\n"
				"interpolated, profiles applied, default limits filled in, and every name\n"
				"scoped to the task (containers <task>-<service>-1, networks and volumes\n"
				"<task>_<key>; a fixed name: kept in the io.taskenv.original-name label; a\n"
				"container_name becomes a network alias). Host ports are allocated at 'up':\n"
				"the file's port is shown as x-published-hint.\n";

static int run(struct te_ctx *ctx, struct config_opts *o, struct te_err *err)

{
	te_autofree char *task = cmd_task_name(ctx, o->task, err);
	te_autofree char *text = NULL;
	te_autojson cJSON *json = NULL;
	struct svc_policy_defaults d;
	struct svc_project *p;

	if (!task || cmd_policy_defaults(ctx, &d, err) < 0)
		return -1;
	p = cmd_compose_load(ctx, &o->compose, "config", task, err);
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
	int code, i = cmd_parse(ctx, argc, argv, &o, &code);

	if (o.format && strcmp(o.format, "json") == 0)
		o.json = true;
	if (i >= 0 && o.show_settings)
		code = cmd_settings_show(ctx, o.json);
	else if (i >= 0)
		code = run(ctx, &o, &err) < 0 ? cmd_fail("config", &err) : EXIT_OK;
	cmd_compose_release(&o.compose);
	return code;
}
