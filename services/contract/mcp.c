/* MCP's JSON-RPC 2.0 side (mcp.h). */
#define TE_WITH_CJSON
#include "services/contract/mcp.h"
#include "common/cleanup.h"
#include "common/err.h"
#include "common/mem.h"

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

/* JSON-RPC 2.0's codes. */
enum { PARSE_ERROR = -32700, INVALID_REQUEST = -32600, NO_METHOD = -32601, INVALID_PARAMS = -32602 };

static char *answer(const cJSON *id, cJSON *result, int code, const char *msg)
{
	te_autojson cJSON *r = cJSON_CreateObject();

	cJSON_AddStringToObject(r, "jsonrpc", "2.0");
	cJSON_AddItemToObject(r, "id", id ? cJSON_Duplicate(id, true) : cJSON_CreateNull());
	if (msg) {
		cJSON *e = cJSON_AddObjectToObject(r, "error");

		cJSON_AddNumberToObject(e, "code", code);
		cJSON_AddStringToObject(e, "message", msg);
		cJSON_Delete(result);
	} else {
		cJSON_AddItemToObject(r, "result", result ? result : cJSON_CreateObject());
	}
	return cJSON_PrintUnformatted(r);
}

static cJSON *initialize(const struct svc_mcp_server *s, const cJSON *params)
{
	cJSON *r = cJSON_CreateObject();
	cJSON *info;

	/* One revision spoken: the client's own when it is ours, else ours
	 * (the client then decides whether it can go on). */
	(void)params;
	cJSON_AddStringToObject(r, "protocolVersion", SVC_MCP_PROTOCOL);
	cJSON_AddObjectToObject(cJSON_AddObjectToObject(r, "capabilities"), "tools");
	info = cJSON_AddObjectToObject(r, "serverInfo");
	cJSON_AddStringToObject(info, "name", s->name);
	cJSON_AddStringToObject(info, "version", s->version);
	return r;
}

static cJSON *tools_list(const struct svc_mcp_server *s)
{
	cJSON *r = cJSON_CreateObject();
	cJSON *a = cJSON_AddArrayToObject(r, "tools");

	for (size_t i = 0; i < s->n_tools; i++) {
		cJSON *t = cJSON_CreateObject();
		cJSON *schema = cJSON_Parse(s->tools[i].input_schema);

		if (!schema)
			TE_BUG("an MCP tool's input schema is not JSON");
		cJSON_AddStringToObject(t, "name", s->tools[i].name);
		cJSON_AddStringToObject(t, "description", s->tools[i].description);
		cJSON_AddItemToObject(t, "inputSchema", schema);
		cJSON_AddItemToArray(a, t);
	}
	return r;
}

static cJSON *tool_result(const char *text, bool is_error)
{
	cJSON *r = cJSON_CreateObject();
	cJSON *c = cJSON_CreateObject();

	cJSON_AddStringToObject(c, "type", "text");
	cJSON_AddStringToObject(c, "text", text);
	cJSON_AddItemToArray(cJSON_AddArrayToObject(r, "content"), c);
	cJSON_AddBoolToObject(r, "isError", is_error);
	return r;
}

static bool type_ok(const cJSON *v, const char *type)
{
	if (strcmp(type, "string") == 0)
		return cJSON_IsString(v);
	if (strcmp(type, "integer") == 0)
		return cJSON_IsNumber(v) && v->valuedouble == (double)(long long)v->valuedouble;
	if (strcmp(type, "number") == 0)
		return cJSON_IsNumber(v);
	if (strcmp(type, "boolean") == 0)
		return cJSON_IsBool(v);
	if (strcmp(type, "array") == 0)
		return cJSON_IsArray(v);
	if (strcmp(type, "object") == 0)
		return cJSON_IsObject(v);
	return true;
}

/* ARGS against the schema's properties (types, string items of arrays),
 * required keys and additionalProperties: false. */
static int check_args(const struct svc_mcp_tool *t, const cJSON *args, struct te_err *err)
{
	te_autojson cJSON *schema = cJSON_Parse(t->input_schema);
	const cJSON *props = cJSON_GetObjectItemCaseSensitive(schema, "properties");
	const cJSON *req = cJSON_GetObjectItemCaseSensitive(schema, "required");
	const cJSON *it;

	cJSON_ArrayForEach (it, req) {
		if (!cJSON_GetObjectItemCaseSensitive(args, it->valuestring))
			return te_err_set(err, TE_E_USAGE, "%s: missing argument '%s'", t->name,
					  it->valuestring);
	}
	cJSON_ArrayForEach (it, args) {
		const cJSON *p = cJSON_GetObjectItemCaseSensitive(props, it->string);
		const char *type = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(p, "type"));
		const cJSON *items = cJSON_GetObjectItemCaseSensitive(p, "items");
		const cJSON *x;

		if (!p)
			return te_err_set(err, TE_E_USAGE, "%s: unknown argument '%s'", t->name, it->string);
		if (type && !type_ok(it, type))
			return te_err_set(err, TE_E_USAGE, "%s: argument '%s' must be of type %s", t->name,
					  it->string, type);
		const cJSON *arr = cJSON_IsArray(it) ? it : NULL;

		cJSON_ArrayForEach (x, arr) {
			const char *itype =
			    cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(items, "type"));

			if (itype && !type_ok(x, itype))
				return te_err_set(err, TE_E_USAGE,
						  "%s: every item of '%s' must be of type %s", t->name,
						  it->string, itype);
		}
	}
	return 0;
}

static cJSON *tools_call(const struct svc_mcp_server *s, const cJSON *params, const char **bad)
{
	const char *name = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(params, "name"));
	const cJSON *args = cJSON_GetObjectItemCaseSensitive(params, "arguments");
	te_autojson cJSON *empty = cJSON_CreateObject();
	struct te_err err = {0};
	char *text = NULL;
	cJSON *r;

	if (!name) {
		*bad = "tools/call needs params.name";
		return NULL;
	}
	if (args && !cJSON_IsObject(args)) {
		*bad = "tools/call: params.arguments must be an object";
		return NULL;
	}
	for (size_t i = 0; i < s->n_tools; i++) {
		const struct svc_mcp_tool *t = &s->tools[i];

		if (strcmp(t->name, name) != 0)
			continue;
		if (check_args(t, args ? args : empty, &err) < 0 ||
		    t->call(s->ctx, args ? args : empty, &text, &err) < 0)
			return tool_result(err.msg[0] ? err.msg : "failed", true);
		r = tool_result(text ? text : "", false);
		free(text);
		return r;
	}
	/* An unknown tool is a tool error too: the model asked for it. */
	te_err_set(&err, TE_E_USAGE, "no tool '%s' (tools/list lists them)", name);
	return tool_result(err.msg, true);
}

void svc_mcp_handle(const struct svc_mcp_server *s, const char *line, size_t n, char **reply)
{
	te_autojson cJSON *m = cJSON_ParseWithLength(line, n);
	const cJSON *id, *params;
	const char *method, *bad = NULL;
	cJSON *result = NULL;

	*reply = NULL;
	if (!m) {
		*reply = answer(NULL, NULL, PARSE_ERROR, "parse error: not JSON");
		return;
	}
	id = cJSON_GetObjectItemCaseSensitive(m, "id");
	method = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(m, "method"));
	params = cJSON_GetObjectItemCaseSensitive(m, "params");
	if (!cJSON_IsObject(m) || !method ||
	    strcmp(cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(m, "jsonrpc")) ?: "", "2.0") != 0 ||
	    (id && !cJSON_IsString(id) && !cJSON_IsNumber(id))) {
		/* A response from the client, or garbage: answered only when it has an id. */
		if (!method && cJSON_IsObject(m) &&
		    (cJSON_HasObjectItem(m, "result") || cJSON_HasObjectItem(m, "error")))
			return;
		*reply = answer(id, NULL, INVALID_REQUEST, "invalid request: not a JSON-RPC 2.0 request");
		return;
	}
	if (!id)
		return; /* a notification (notifications/initialized, cancelled): nothing to answer */
	if (strcmp(method, "initialize") == 0)
		result = initialize(s, params);
	else if (strcmp(method, "ping") == 0)
		result = cJSON_CreateObject();
	else if (strcmp(method, "tools/list") == 0)
		result = tools_list(s);
	else if (strcmp(method, "tools/call") == 0)
		result = tools_call(s, params, &bad);
	else {
		te_autofree char *msg = xasprintf("method not found: '%.100s'", method);

		*reply = answer(id, NULL, NO_METHOD, msg);
		return;
	}
	*reply = bad ? answer(id, NULL, INVALID_PARAMS, bad) : answer(id, result, 0, NULL);
}
