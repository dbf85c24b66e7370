/* taskenv version: taskenv's version, the engine's flavor and version and
 * the API version we negotiated with it. */
#include "cmd/cmd.h"
#include "engine/engine.h"

#define TE_WITH_CJSON
#include "common/cleanup.h"

#include <getopt.h>
#include <stdio.h>

static void version_help(void)
{
	printf(
	    "usage: taskenv version [--json]\n\n"
	    "Print taskenv's version and, when an engine answers, its flavor (docker or\n"
	    "podman), version, socket and the Engine API version in use (at most " ENGINE_API_MAX ").\n"
	    "Exit 3 when no engine answers (taskenv's own version is still printed).\n\n"
	    "      --json   {\"schema_version\":1,\"taskenv\":{\"version\"},\"engine\":{\"flavor\",\n"
	    "               \"version\",\"api_version\",\"socket\"} or null, \"engine_error\" when null}\n");
}

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
	static const struct option opts[] = {
	    {"json", no_argument, NULL, 'j'}, {"help", no_argument, NULL, 'h'}, {NULL, 0, NULL, 0}};
	struct te_err err = {0};
	struct engine *e;
	bool json = false;
	te_autojson cJSON *d = NULL;
	int c;

	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		if (c == 'j')
			json = true;
		else if (c == 'h')
			return version_help(), EXIT_OK;
		else
			return cmd_usage("version", "bad arguments");
	}
	e = cmd_engine(ctx, NULL, &err);
	d = doc_of(e, &err);
	if (json) {
		cmd_print_json(d);
	} else {
		printf("taskenv %s\n", TASKENV_VERSION);
		if (e)
			printf("engine  %s %s at unix://%s (API %s)\n", engine_flavor(e), engine_version(e),
			       engine_socket(e), engine_api_version(e));
	}
	if (!e)
		return json ? (err.code == TE_E_UNREACHABLE ? EXIT_UNREACHABLE : EXIT_FAIL)
			    : cmd_fail("version", &err);
	return EXIT_OK;
}
