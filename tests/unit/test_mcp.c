/* The MCP protocol side (services/contract/mcp.h) with a table of fake
 * tools: every answer shape, tool errors versus protocol errors. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#define TE_WITH_CJSON
#include "services/contract/mcp.h"
#include "common/cleanup.h"
#include "common/err.h"
#include "common/mem.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

static int calls;

static int echo(void *ctx, const cJSON *args, char **text, struct te_err *err)
{
	calls++;
	*text = xstrdup(cJSON_GetStringValue(cJSON_GetObjectItem(args, "word")) ?: "none");
	return 0;
}

static int broken(void *ctx, const cJSON *args, char **text, struct te_err *err)
{
	calls++;
	return te_err_set(err, TE_E_USAGE, "service 'x' is not the task's");
}

static const struct svc_mcp_tool tools[] = {
    {"echo", "says the word",
     "{\"type\":\"object\",\"properties\":{\"word\":{\"type\":\"string\"},\"n\":{\"type\":\"integer\"},"
     "\"v\":{\"type\":\"array\",\"items\":{\"type\":\"string\"}}},\"required\":[\"word\"]}",
     echo},
    {"broken", "fails", "{\"type\":\"object\",\"properties\":{}}", broken},
};
static const struct svc_mcp_server server = {"t", "1", tools, 2, NULL};

/* The answer to LINE, parsed (owned), or NULL when none came. */
static cJSON *ask(const char *line)
{
	char *reply = NULL;
	cJSON *j;

	svc_mcp_handle(&server, line, strlen(line), &reply);
	if (!reply)
		return NULL;
	j = cJSON_Parse(reply);
	free(reply);
	assert_non_null(j);
	assert_string_equal(cJSON_GetStringValue(cJSON_GetObjectItem(j, "jsonrpc")), "2.0");
	return j;
}

static int error_code(const cJSON *j)
{
	return (int)cJSON_GetNumberValue(cJSON_GetObjectItem(cJSON_GetObjectItem(j, "error"), "code"));
}

/* isError and text of a tools/call answer. */
static bool tool_answer(const cJSON *j, const char **text)
{
	const cJSON *r = cJSON_GetObjectItem(j, "result");

	*text = cJSON_GetStringValue(
	    cJSON_GetObjectItem(cJSON_GetArrayItem(cJSON_GetObjectItem(r, "content"), 0), "text"));
	return cJSON_IsTrue(cJSON_GetObjectItem(r, "isError"));
}

static void test_initialize_and_list(void **state)
{
	te_autojson cJSON *init =
	    ask("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{}}");
	te_autojson cJSON *list = ask("{\"jsonrpc\":\"2.0\",\"id\":\"x\",\"method\":\"tools/list\"}");
	const cJSON *t;

	assert_string_equal(
	    cJSON_GetStringValue(cJSON_GetObjectItem(cJSON_GetObjectItem(init, "result"), "protocolVersion")),
	    SVC_MCP_PROTOCOL);
	assert_string_equal(cJSON_GetStringValue(cJSON_GetObjectItem(list, "id")), "x");
	t = cJSON_GetArrayItem(cJSON_GetObjectItem(cJSON_GetObjectItem(list, "result"), "tools"), 0);
	assert_string_equal(cJSON_GetStringValue(cJSON_GetObjectItem(t, "name")), "echo");
	assert_true(cJSON_IsObject(cJSON_GetObjectItem(t, "inputSchema")));
	assert_null(ask("{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}"));
	assert_null(ask("{\"jsonrpc\":\"2.0\",\"id\":5,\"result\":{}}")); /* a response of the client's */
}

static void test_calls(void **state)
{
	static const struct {
		const char *line;
		bool is_error;
		const char *text;
		int calls;
	} t[] = {
	    {"{\"name\":\"echo\",\"arguments\":{\"word\":\"hi\"}}", false, "hi", 1},
	    {"{\"name\":\"echo\",\"arguments\":{\"word\":\"hi\",\"n\":3,\"v\":[\"a\"]}}", false, "hi", 1},
	    {"{\"name\":\"echo\",\"arguments\":{}}", true, "echo: missing argument 'word'", 0},
	    {"{\"name\":\"echo\"}", true, "echo: missing argument 'word'", 0},
	    {"{\"name\":\"echo\",\"arguments\":{\"word\":1}}", true,
	     "echo: argument 'word' must be of type string", 0},
	    {"{\"name\":\"echo\",\"arguments\":{\"word\":\"a\",\"n\":1.5}}", true, "must be of type integer",
	     0},
	    {"{\"name\":\"echo\",\"arguments\":{\"word\":\"a\",\"v\":[1]}}", true, "every item of 'v'", 0},
	    {"{\"name\":\"echo\",\"arguments\":{\"word\":\"a\",\"zz\":1}}", true, "unknown argument 'zz'", 0},
	    {"{\"name\":\"broken\"}", true, "service 'x' is not the task's", 1},
	    {"{\"name\":\"nope\"}", true, "no tool 'nope'", 0},
	};

	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		te_autofree char *line = xasprintf(
		    "{\"jsonrpc\":\"2.0\",\"id\":%zu,\"method\":\"tools/call\",\"params\":%s}", i, t[i].line);
		te_autojson cJSON *j = NULL;
		const char *text;

		calls = 0;
		j = ask(line);
		assert_int_equal(tool_answer(j, &text), t[i].is_error);
		if (!strstr(text, t[i].text))
			fail_msg("%s: '%s'", t[i].line, text);
		assert_int_equal(calls, t[i].calls);
	}
}

static void test_protocol_errors(void **state)
{
	static const struct {
		const char *line;
		int code;
	} t[] = {
	    {"not json", -32700},
	    {"", -32700},
	    {"[1,2]", -32600},
	    {"{\"id\":1,\"method\":\"ping\"}", -32600},
	    {"{\"jsonrpc\":\"1.0\",\"id\":1,\"method\":\"ping\"}", -32600},
	    {"{\"jsonrpc\":\"2.0\",\"id\":{},\"method\":\"ping\"}", -32600},
	    {"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":7}", -32600},
	    {"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"resources/list\"}", -32601},
	    {"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{}}", -32602},
	    {"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/"
	     "call\",\"params\":{\"name\":\"echo\",\"arguments\":[]}}",
	     -32602},
	};

	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		te_autojson cJSON *j = ask(t[i].line);

		assert_non_null(j);
		if (error_code(j) != t[i].code)
			fail_msg("'%s': code %d, expected %d", t[i].line, error_code(j), t[i].code);
	}
	{
		te_autojson cJSON *j = ask("{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"ping\"}");

		assert_true(cJSON_IsObject(cJSON_GetObjectItem(j, "result")));
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_initialize_and_list),
	    cmocka_unit_test(test_calls),
	    cmocka_unit_test(test_protocol_errors),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
