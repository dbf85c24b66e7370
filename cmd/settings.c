/* taskenv settings: what taskenv's settings are and where each value came
 * from (default, config file, TASKENV_* variable). `taskenv config
 * --show-settings` prints the same through cmd_settings_show. */
#include "cmd/cmd.h"
#include "services/settings.h"

#define TE_WITH_CJSON
#include "common/cleanup.h"

#include <getopt.h>
#include <stdio.h>

static void settings_help(void)
{
	printf("usage: taskenv settings [--json]\n\n"
	       "Show taskenv's settings with their values and sources. They come from built-in\n"
	       "defaults, then the config file ($TASKENV_CONFIG, else\n"
	       "$XDG_CONFIG_HOME/taskenv/config.yaml, else ~/.config/taskenv/config.yaml), then\n"
	       "the TASKENV_* variables, the later winning. Keys: port_range, subnet_pool,\n"
	       "engine, worktree_prefix, limits: {cpus, memory, pids}.\n\n"
	       "      --json   {\"schema_version\":1,\"config_file\",\"config_file_exists\",\n"
	       "               \"settings\":[{\"key\",\"value\",\"source\",\"env\"}]}\n");
}

static cJSON *doc_of(const struct svc_settings *s)
{
	cJSON *d = cJSON_CreateObject();
	cJSON *arr;

	cJSON_AddNumberToObject(d, "schema_version", CMD_JSON_SCHEMA_VERSION);
	cJSON_AddStringToObject(d, "config_file", s->file);
	cJSON_AddBoolToObject(d, "config_file_exists", s->file_exists);
	arr = cJSON_AddArrayToObject(d, "settings");
	for (size_t i = 0; i < SVC_SETTINGS_N; i++) {
		cJSON *o = cJSON_CreateObject();

		cJSON_AddStringToObject(o, "key", s->items[i].key);
		cJSON_AddStringToObject(o, "value", s->items[i].value);
		cJSON_AddStringToObject(o, "source", s->items[i].source);
		cJSON_AddStringToObject(o, "env", s->items[i].env);
		cJSON_AddItemToArray(arr, o);
	}
	return d;
}

int cmd_settings_show(struct te_ctx *ctx, bool json)
{
	struct svc_settings s;
	struct te_err err = {0};
	te_autojson cJSON *d = NULL;

	if (svc_settings_load(&s, &err) < 0) {
		svc_settings_release(&s);
		return cmd_fail("settings", &err);
	}
	if (json) {
		d = doc_of(&s);
		cmd_print_json(d);
	} else {
		printf("# config file: %s (%s)\n", s.file, s.file_exists ? "read" : "absent");
		for (size_t i = 0; i < SVC_SETTINGS_N; i++)
			printf("%-16s %-24s %-12s %s\n", s.items[i].key,
			       *s.items[i].value ? s.items[i].value : "(unset)", s.items[i].source,
			       s.items[i].env);
	}
	svc_settings_release(&s);
	return EXIT_OK;
}

int cmd_settings(struct te_ctx *ctx, int argc, char **argv)
{
	static const struct option opts[] = {
	    {"json", no_argument, NULL, 'j'}, {"help", no_argument, NULL, 'h'}, {NULL, 0, NULL, 0}};
	bool json = false;
	int c;

	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		if (c == 'j')
			json = true;
		else if (c == 'h')
			return settings_help(), EXIT_OK;
		else
			return cmd_usage("settings", "bad arguments");
	}
	return cmd_settings_show(ctx, json);
}
