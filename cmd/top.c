/* taskenv top: the processes in each of the task's containers. */
#include "cmd/cmd.h"
#include "engine/stream.h"
#include "services/lifecycle/ops.h"
#include "common/mem.h"

#define TE_WITH_CJSON
#include "common/cleanup.h"

#include <stdio.h>

struct top_opts {
	const char *task;
	bool json;
};

const struct cmd_option cmd_top_options[] = {
    CMD_OPT_TASK(struct top_opts, task),
    CMD_OPT_FLAG(0, "json", struct top_opts, json,
		 "{\"schema_version\":1,\"task\",\"containers\":[{\"name\",\"service\",\n"
		 "\"titles\":[...],\"processes\":[[...],...]}]}"),
    CMD_OPT_END,
};

const char cmd_top_about[] =
    "Show the processes running in the task's containers (GET /containers/{id}/top).\n";

static void print_table(const char *name, const cJSON *top)
{
	const cJSON *row, *cell;

	printf("%s\n", name);
	cJSON_ArrayForEach (cell, cJSON_GetObjectItemCaseSensitive(top, "Titles"))
		printf("%s%s", cell->valuestring ? cell->valuestring : "", cell->next ? "\t" : "\n");
	cJSON_ArrayForEach (row, cJSON_GetObjectItemCaseSensitive(top, "Processes"))
		cJSON_ArrayForEach (cell, row)
			printf("%s%s", cJSON_IsString(cell) ? cell->valuestring : "",
			       cell->next ? "\t" : "\n");
	printf("\n");
}

static cJSON *entry(const struct svc_container_ref *c, cJSON *top)
{
	cJSON *o = cJSON_CreateObject();

	cJSON_AddStringToObject(o, "name", c->name);
	cJSON_AddStringToObject(o, "service", c->service);
	cJSON_AddItemToObject(o, "titles", cJSON_DetachItemFromObjectCaseSensitive(top, "Titles"));
	cJSON_AddItemToObject(o, "processes", cJSON_DetachItemFromObjectCaseSensitive(top, "Processes"));
	return o;
}

static int top(struct te_ctx *ctx, const char *flag, char **services, bool json, struct te_err *err)
{
	te_autofree char *task = NULL;
	struct engine *e = cmd_task_engine(ctx, flag, &task, err);
	struct svc_container_ref *v = NULL;
	size_t n = 0;
	te_autojson cJSON *doc = cJSON_CreateObject();
	cJSON *arr;
	int rc = 0;

	if (!e || svc_task_containers(ctx->ledger, task, services, true, &v, &n, err) < 0)
		return -1;
	cJSON_AddNumberToObject(doc, "schema_version", CMD_JSON_SCHEMA_VERSION);
	cJSON_AddStringToObject(doc, "task", task);
	arr = cJSON_AddArrayToObject(doc, "containers");
	for (size_t i = 0; i < n && rc == 0; i++) {
		te_autojson cJSON *t = NULL;

		/* A stopped container has no processes: skip it as compose does. */
		if (engine_container_top(e, v[i].id, &t, err) < 0) {
			rc = err->code == TE_E_CONFLICT || err->code == TE_E_ENGINE ? 0 : -1;
			continue;
		}
		if (json)
			cJSON_AddItemToArray(arr, entry(&v[i], t));
		else
			print_table(v[i].name, t);
	}
	svc_container_refs_free(v, n);
	if (rc == 0 && json)
		cmd_print_json(doc);
	return rc;
}

int cmd_top(struct te_ctx *ctx, int argc, char **argv)
{
	struct top_opts o = {0};
	struct te_err err = {0};
	int code, i = cmd_parse(ctx, argc, argv, &o, &code);

	if (i < 0)
		return code;
	if (top(ctx, o.task, i < argc ? argv + i : NULL, o.json, &err) < 0)
		return cmd_fail("top", &err);
	return EXIT_OK;
}
