#define TE_WITH_CJSON
#include "engine/exec_probe.h"
#include "engine/engine.h"

#include "common/buf.h"
#include "common/cleanup.h"
#include "common/err.h"
#include "common/mem.h"

#include <string.h>

static cJSON *create_body(char *const *argv)
{
	cJSON *b = cJSON_CreateObject(), *cmd = cJSON_AddArrayToObject(b, "Cmd");

	cJSON_AddBoolToObject(b, "AttachStdout", 1);
	cJSON_AddBoolToObject(b, "AttachStderr", 1);
	cJSON_AddBoolToObject(b, "Tty", 0);
	for (size_t i = 0; argv[i]; i++)
		cJSON_AddItemToArray(cmd, cJSON_CreateString(argv[i]));
	return b;
}

static char *exec_create(struct engine *e, const char *container, char *const *argv, struct te_err *err)
{
	te_autojson cJSON *body = create_body(argv);
	te_autojson cJSON *resp = NULL;
	te_autofree char *c = engine_escape(e, container);
	te_autofree char *path = xasprintf("/containers/%s/exec", c);
	const char *id;

	if (engine_call(e, "POST", path, body, NULL, &resp, err) < 0)
		return NULL;
	id = cJSON_GetStringValue(cJSON_GetObjectItem(resp, "Id"));
	if (!id)
		te_err_set(err, TE_E_FAIL, "exec in '%s': the engine gave no exec id", container);
	return id ? xstrdup(id) : NULL;
}

int engine_exec_probe(struct engine *e, const char *container, char *const *argv, int *exit_code,
		      struct te_buf *out, struct te_err *err)
{
	te_autobuf struct te_buf raw = TE_BUF_INIT(ENGINE_PROBE_OUTPUT_MAX);
	te_autojson cJSON *start = cJSON_CreateObject();
	te_autojson cJSON *info = NULL;
	te_autofree char *id = exec_create(e, container, argv, err);
	te_autofree char *path = NULL;
	const cJSON *code;

	if (!id)
		return -1;
	cJSON_AddBoolToObject(start, "Detach", 0);
	cJSON_AddBoolToObject(start, "Tty", 0);
	path = xasprintf("/exec/%s/start", id);
	if (engine_call_raw(e, "POST", path, start, &raw, err) < 0)
		return -1;
	if (raw.len && engine_stream_demux(raw.data, raw.len, out) < 0)
		return te_err_set(err, TE_E_FAIL, "probe output in '%s' exceeds %zu bytes", container,
				  out->max);
	free(path);
	path = xasprintf("/exec/%s/json", id);
	if (engine_call(e, "GET", path, NULL, NULL, &info, err) < 0)
		return -1;
	code = cJSON_GetObjectItem(info, "ExitCode");
	*exit_code = cJSON_IsNumber(code) ? code->valueint : -1;
	return 0;
}
