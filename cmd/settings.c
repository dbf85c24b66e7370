/* taskenv settings: what taskenv's settings are and where each value came
 * from (default, config file, TASKENV_* variable). `taskenv config
 * --show-settings` prints the same through cmd_settings_show. */
#include "cmd/cmd.h"
#include "services/settings.h"
#include "common/mem.h"

#define TE_WITH_CJSON
#include "common/cleanup.h"

#include <stdio.h>

struct settings_opts {
	bool json;
};

const struct cmd_option cmd_settings_options[] = {
    CMD_OPT_FLAG(0, "json", struct settings_opts, json,
		 "{\"schema_version\":1,\"config_file\",\"config_file_exists\",\n"
		 "\"settings\":[{\"key\",\"value\",\"source\",\"env\",\"file_key\",\"list\",\n"
		 "\"project\"}]}"),
    CMD_OPT_END,
};

const char cmd_settings_about[] =
    "Show taskenv's settings with their values and sources. They come from built-in\n"
    "defaults, then the config file ($TASKENV_CONFIG, else\n"
    "$XDG_CONFIG_HOME/taskenv/config.yaml, else ~/.config/taskenv/config.yaml), then\n"
    "the TASKENV_* variables, the later winning. A per-project value (projects:\n"
    "{DIR: {...}} in the file) is shown as projects.DIR.KEY. The man page lists\n"
    "every setting with its key, variable and default.\n";

static cJSON *item_json(const struct svc_setting *it, const char *project)
{
	const struct svc_setting_def *d = it->def;
	te_autofree char *key = project ? xasprintf("projects.%s.%s", project, d->name) : xstrdup(d->name);
	cJSON *o = cJSON_CreateObject();

	cJSON_AddStringToObject(o, "key", key);
	if (project)
		cJSON_AddStringToObject(o, "project", project);
	cJSON_AddStringToObject(o, "value", it->text);
	cJSON_AddStringToObject(o, "source", it->source);
	cJSON_AddStringToObject(o, "env", d->env ? d->env : "");
	cJSON_AddStringToObject(o, "file_key", d->key ? d->key : "");
	if (d->flags & SVC_SETTING_LIST) {
		cJSON *l = cJSON_AddArrayToObject(o, "list");

		for (size_t i = 0; it->list && it->list[i]; i++)
			cJSON_AddItemToArray(l, cJSON_CreateString(it->list[i]));
	}
	return o;
}

static cJSON *doc_of(const struct svc_settings *s)
{
	cJSON *d = cJSON_CreateObject();
	cJSON *arr;

	cJSON_AddNumberToObject(d, "schema_version", CMD_JSON_SCHEMA_VERSION);
	cJSON_AddStringToObject(d, "config_file", s->file);
	cJSON_AddBoolToObject(d, "config_file_exists", s->file_exists);
	arr = cJSON_AddArrayToObject(d, "settings");
	for (int i = 0; i < SVC_SETTINGS_N; i++)
		cJSON_AddItemToArray(arr, item_json(svc_settings_at(s, i), NULL));
	for (size_t p = 0; p < s->n_projects; p++)
		for (int i = 0; i < SVC_SETTINGS_N; i++)
			if (s->projects[p].items[i].source)
				cJSON_AddItemToArray(arr,
						     item_json(&s->projects[p].items[i], s->projects[p].dir));
	return d;
}

static void print_item(const struct svc_setting *it, const char *project)
{
	te_autofree char *key = project ? xasprintf("projects.%s.%s", project, it->def->name) : NULL;
	const char *var = it->var ? it->var : it->def->env ? it->def->env : "";

	printf("%-18s %-24s %-12s %s\n", key ? key : it->def->name, *it->text ? it->text : "(unset)",
	       it->source, var);
}

int cmd_settings_show(struct te_ctx *ctx, bool json)
{
	struct te_err err = {0};
	const struct svc_settings *s = cmd_get_settings(ctx, &err);
	te_autojson cJSON *d = NULL;

	if (!s)
		return cmd_fail(ctx->verb->name, &err);
	if (json) {
		d = doc_of(s);
		cmd_print_json(d);
		return EXIT_OK;
	}
	printf("# config file: %s (%s)\n", s->file, s->file_exists ? "read" : "absent");
	for (int i = 0; i < SVC_SETTINGS_N; i++)
		print_item(svc_settings_at(s, i), NULL);
	for (size_t p = 0; p < s->n_projects; p++)
		for (int i = 0; i < SVC_SETTINGS_N; i++)
			if (s->projects[p].items[i].source)
				print_item(&s->projects[p].items[i], s->projects[p].dir);
	return EXIT_OK;
}

int cmd_settings(struct te_ctx *ctx, int argc, char **argv)
{
	struct settings_opts o = {0};
	int code, i = cmd_parse(ctx, argc, argv, &o, &code);

	if (i < 0)
		return code;
	return cmd_settings_show(ctx, o.json);
}
