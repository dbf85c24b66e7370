/* The Model Context Protocol server's protocol (docs/mcp.md): JSON-RPC 2.0
 * messages, one per line (MCP's stdio transport), answered from a table of
 * tools the caller gives (cmd/mcp.c: status, env, logs, exec, restart, up,
 * contract). This file knows MCP, not taskenv: initialize, ping,
 * tools/list (each tool's name, description and input schema),
 * tools/call; a tool's failure is an MCP tool error (a result with
 * isError), never a protocol error and never a crash. */
#ifndef TASKENV_SERVICES_CONTRACT_MCP_H
#define TASKENV_SERVICES_CONTRACT_MCP_H

#include <stddef.h>

struct cJSON;
struct te_err;

/* The MCP revision we implement (and answer when a client asks for it or
 * for one we do not know). */
#define SVC_MCP_PROTOCOL "2024-11-05"

struct svc_mcp_tool {
	const char *name;
	const char *description;
	const char *input_schema; /* JSON Schema text of the arguments object */
	/* Run with ARGS (an object, borrowed; checked against the schema's
	 * required keys and types first). 0 with *text (owned) the result, or -1
	 * with *err: a tool error whose message the client sees. */
	int (*call)(void *ctx, const struct cJSON *args, char **text, struct te_err *err);
};

struct svc_mcp_server {
	const char *name, *version; /* serverInfo */
	const struct svc_mcp_tool *tools;
	size_t n_tools;
	void *ctx; /* handed to every call */
};

/* Answer one message LINE (N bytes): *reply the owned JSON text of the
 * response (no newline), or NULL for a notification (no answer is due). */
void svc_mcp_handle(const struct svc_mcp_server *s, const char *line, size_t n, char **reply);

#endif
