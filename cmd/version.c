/* taskenv version: taskenv's version, the engine's flavor and version and
 * the API version we negotiated with it. */
#include "cmd/cmd.h"
#include "engine/engine.h"

#define TE_WITH_CJSON
#include "common/cleanup.h"

#include <stdio.h>

struct version_opts {
	bool json;
};

const struct cmd_option cmd_version_options[] = {
    CMD_OPT_FLAG(0, "json", struct version_opts, json,
		 "{\"schema_version\":1,\"taskenv\":{\"version\"},\"engine\":{\"flavor\",\n"
		 "\"version\",\"api_version\",\"socket\"} or null, \"engine_error\" when null}"),
    CMD_OPT_END,
};

const char cmd_version_about[] =
    "Print taskenv's version and, when an engine answers, its flavor (docker or\n"
    "podman), version, socket and the Engine API version in use (at most " ENGINE_API_MAX ").\n"
    "Exit 3 when no engine answers (taskenv's own version is still printed).\n";

static cJSON *doc_of(struct engine *e, const struct te_err *err)
{
	cJSON *d = cJSON_CreateObject();
	cJSON *t, *en;

	cJSON_AddNumberToObject(d, "schema_version", CMD_JSON_SCHEMA_VERSION);
	t = cJSON_AddObjectToObject(d, "taskenv");
	cJSON_AddStringToObject(t, "version", TASKENV_VERSION);
	if (!e) {
		cJSON_AddNullToObject(d, "engine");
		cJSON_AddStringToObject(d, "engine_error", err->msg);
		return d;
	}
	en = cJSON_AddObjectToObject(d, "engine");
	cJSON_AddStringToObject(en, "flavor", engine_flavor(e));
	cJSON_AddStringToObject(en, "version", engine_version(e));
	cJSON_AddStringToObject(en, "api_version", engine_api_version(e));
	cJSON_AddStringToObject(en, "socket", engine_socket(e));
	return d;
}

int cmd_version(struct te_ctx *ctx, int argc, char **argv)
{
	struct version_opts o = {0};
	struct te_err err = {0};
	struct engine *e;
	te_autojson cJSON *d = NULL;
	int code, i = cmd_parse(ctx, argc, argv, &o, &code);

	if (i < 0)
		return code;
	e = cmd_engine(ctx, NULL, &err);
	d = doc_of(e, &err);
	if (o.json) {
		cmd_print_json(d);
	} else {
		printf("taskenv %s\n", TASKENV_VERSION);
		if (e)
			printf("engine  %s %s at unix://%s (API %s)\n", engine_flavor(e), engine_version(e),
			       engine_socket(e), engine_api_version(e));
	}
	if (!e)
		return o.json ? (err.code == TE_E_UNREACHABLE ? EXIT_UNREACHABLE : EXIT_FAIL)
			      : cmd_fail("version", &err);
	return EXIT_OK;
}
