/* taskenv mcp -t TASK: a Model Context Protocol server over stdio, scoped
 * to one task (docs/mcp.md). The protocol is services/contract/mcp.c; the
 * tools are here, each a thin call into the library a verb makes too. */
#include "cmd/cmd.h"
#include "services/contract/contract.h"
#include "services/contract/mcp.h"
#include "services/lifecycle/ops.h"
#include "services/lifecycle/status.h"
#include "engine/engine.h"
#include "engine/forward.h"
#include "engine/stream.h"
#include "common/buf.h"
#include "common/duration.h"
#include "common/err.h"
#include "common/mem.h"

#define TE_WITH_CJSON
#include "common/cleanup.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define OUTPUT_MAX (64u * 1024u) /* a tool's text: logs and exec output keep their last bytes */
#define LINE_MAX_BYTES (4u * 1024u * 1024u)

struct mcp_opts {
	const char *task;
};

const struct cmd_option cmd_mcp_options[] = {
    CMD_OPT_TASK(struct mcp_opts, task),
    CMD_OPT_END,
};

const char cmd_mcp_about[] =
    "Serve the Model Context Protocol on stdin/stdout (JSON-RPC 2.0, one message a\n"
    "line) for an agent, scoped to the task: tools status, env, logs, exec, restart,\n"
    "up and contract, each with its input schema (tools/list). A tool that fails\n"
    "answers an MCP tool error; a service of another task is an error that touches\n"
    "nothing. Register it in the agent's MCP server list as the command\n"
    "`taskenv mcp -t TASK` (docs/mcp.md).\n";

struct mcp {
	struct te_ctx *ctx;
	struct engine *e;
	const char *task;
};

static const char *str_arg(const cJSON *args, const char *key)
{
	return cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(args, key));
}

static long long int_arg(const cJSON *args, const char *key, long long dflt)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(args, key);

	return cJSON_IsNumber(v) ? (long long)v->valuedouble : dflt;
}

/* The task's container of SERVICE (the first replica): the ledger's,
 * so a service of another task is an error naming this task's services. */
static char *service_container(struct mcp *m, const char *service, struct te_err *err)
{
	char *svc[] = {(char *)service, NULL};
	struct svc_container_ref *v = NULL;
	size_t n = 0;
	char *id;

	if (svc_task_containers(m->ctx->ledger, m->task, svc, false, &v, &n, err) < 0)
		return NULL;
	id = n ? xstrdup(v[0].id) : NULL;
	svc_container_refs_free(v, n);
	if (!id)
		te_err_set(err, TE_E_USAGE, "service '%s' of task '%s' has no container", service, m->task);
	return id;
}

static int tool_status(void *ctx, const cJSON *args, char **text, struct te_err *err)
{
	struct mcp *m = ctx;
	te_autojson cJSON *out = NULL;

	if (svc_status_task(m->ctx->ledger, m->e, m->task, &out, err) < 0)
		return -1;
	*text = cJSON_Print(out);
	return 0;
}

static int tool_env(void *ctx, const cJSON *args, char **text, struct te_err *err)
{
	struct mcp *m = ctx;
	te_autostrv char **lines = svc_task_env(m->ctx->ledger, m->task, err);
	struct te_buf b = TE_BUF_INIT(0);

	if (!lines)
		return -1;
	for (size_t i = 0; lines[i]; i++)
		te_buf_addf(&b, "%s\n", lines[i]);
	*text = te_buf_detach(&b);
	return 0;
}

static int tool_contract(void *ctx, const cJSON *args, char **text, struct te_err *err)
{
	struct mcp *m = ctx;
	te_autojson cJSON *c = NULL;

	if (svc_contract(m->e, m->ctx->ledger, m->task, &c, err) < 0)
		return -1;
	*text = cJSON_Print(c);
	return 0;
}

static int tool_restart(void *ctx, const cJSON *args, char **text, struct te_err *err)
{
	struct mcp *m = ctx;
	char *svc[] = {(char *)str_arg(args, "service"), NULL};
	te_autofree char *id = service_container(m, svc[0], err);

	if (!id || svc_lifecycle(m->e, m->ctx->ledger, m->task, svc, SVC_RESTART, 10, NULL, NULL, err) < 0)
		return -1;
	*text = xasprintf("service '%s' of task '%s' restarted", svc[0], m->task);
	return 0;
}

static int tool_up(void *ctx, const cJSON *args, char **text, struct te_err *err)
{
	struct mcp *m = ctx;

	if (cmd_up_recorded(m->ctx, m->task, err) < 0)
		return -1;
	*text = xasprintf("task '%s' is up (reconciled from its recorded Compose files)", m->task);
	return 0;
}

/* Output kept to its last OUTPUT_MAX bytes: what ends a log or a failing
 * command is what an agent needs. */
struct tail {
	struct te_buf b;
	size_t dropped;
};

static void tail_add(struct tail *t, const char *p, size_t n)
{
	if (n >= OUTPUT_MAX) {
		t->dropped += t->b.len + (n - OUTPUT_MAX);
		te_buf_reset(&t->b);
		te_buf_add(&t->b, p + (n - OUTPUT_MAX), OUTPUT_MAX);
		return;
	}
	if (t->b.len + n > OUTPUT_MAX) {
		size_t cut = t->b.len + n - OUTPUT_MAX;

		memmove(t->b.data, t->b.data + cut, t->b.len - cut);
		t->b.len -= cut;
		t->b.data[t->b.len] = '\0';
		t->dropped += cut;
	}
	te_buf_add(&t->b, p, n);
}

static char *tail_text(struct tail *t, const char *trailer)
{
	char *s = xasprintf("%s%s%s", t->dropped ? "[earlier output cut]\n" : "", t->b.data ? t->b.data : "",
			    trailer ? trailer : "");

	te_buf_release(&t->b);
	return s;
}

static int tail_chunk(void *ctx, int stream, const char *p, size_t n)
{
	tail_add(ctx, p, n);
	return 0;
}

static int tool_logs(void *ctx, const cJSON *args, char **text, struct te_err *err)
{
	struct mcp *m = ctx;
	const char *since = str_arg(args, "since");
	te_autofree char *id = service_container(m, str_arg(args, "service"), err);
	te_autofree char *q = NULL, *path = NULL;
	te_autobuf struct te_buf raw = TE_BUF_INIT(ENGINE_RESPONSE_MAX);
	struct tail t = {.b = TE_BUF_INIT(0)};
	struct engine_demux dx;

	if (!id)
		return -1;
	if (since && !*since)
		since = NULL;
	if (since && strspn(since, "0123456789") != strlen(since)) {
		/* A duration ago, as docker logs --since turns it into a time. */
		long long secs;

		if (te_duration_parse(since, &secs, err) < 0)
			return te_err_prefix(err, "logs: since: ");
		q = xasprintf("%lld", (long long)time(NULL) - secs);
	} else {
		q = since ? xstrdup(since) : xstrdup("");
	}
	path = xasprintf("/containers/%s/logs?stdout=1&stderr=1&tail=%lld%s%s", id,
			 int_arg(args, "tail", 100), since ? "&since=" : "", q);
	if (engine_call_raw(m->e, "GET", path, NULL, &raw, err) < 0)
		return -1;
	engine_demux_init(&dx, tail_chunk, &t);
	engine_demux_feed(&dx, raw.data ? raw.data : "", raw.len);
	*text = tail_text(&t, NULL);
	return 0;
}

struct exec_out {
	struct engine_demux dx;
	struct tail t;
};

static int exec_head(void *ctx, long status, const char *ctype)
{
	return 0;
}

static int exec_data(void *ctx, const char *p, size_t n)
{
	struct exec_out *o = ctx;

	return engine_demux_feed(&o->dx, p, n);
}

static int tool_exec(void *ctx, const cJSON *args, char **text, struct te_err *err)
{
	struct mcp *m = ctx;
	const cJSON *argv = cJSON_GetObjectItemCaseSensitive(args, "argv");
	te_autofree char *id = service_container(m, str_arg(args, "service"), err);
	te_autofree char *exec_id = NULL, *path = NULL, *trailer = NULL;
	te_autostrv char **cmd = NULL;
	long long timeout = int_arg(args, "timeout", 30);
	struct engine_exec_opts eo = {0};
	struct exec_out o = {.t = {.b = TE_BUF_INIT(0)}};
	static const char start[] = "{\"Detach\":false,\"Tty\":false}";
	struct engine_fwd f = {.method = "POST",
			       .body = start,
			       .body_len = sizeof(start) - 1,
			       .head = exec_head,
			       .data = exec_data,
			       .ctx = &o};
	const cJSON *a;
	int code = -1;

	if (!id)
		return -1;
	cJSON_ArrayForEach (a, argv)
		cmd = te_strv_push(cmd, xstrdup(a->valuestring));
	if (!cmd)
		return te_err_set(err, TE_E_USAGE, "exec: argv must name a command");
	if (timeout < 1 || timeout > 3600)
		return te_err_set(err, TE_E_USAGE, "exec: timeout must be 1..3600 seconds");
	eo.cmd = cmd;
	if (engine_exec_create(m->e, id, &eo, &exec_id, err) < 0)
		return -1;
	engine_demux_init(&o.dx, tail_chunk, &o.t);
	path = xasprintf("/exec/%s/start", exec_id);
	f.path = path;
	f.timeout_s = (long)timeout;
	if (engine_forward(m->e, &f, err) < 0) {
		char why[sizeof(err->msg)];

		snprintf(why, sizeof(why), "%s", err->msg);
		te_err_set(err, TE_E_FAIL, "exec: no end within %llds (the command may still run): %s",
			   timeout, why);
		te_buf_release(&o.t.b);
		return -1;
	}
	if (engine_exec_exit_code(m->e, exec_id, &code, err) < 0) {
		te_buf_release(&o.t.b);
		return -1;
	}
	trailer =
	    xasprintf("%s[exit code %d]", o.t.b.len && o.t.b.data[o.t.b.len - 1] != '\n' ? "\n" : "", code);
	*text = tail_text(&o.t, trailer);
	return 0;
}

#define NO_ARGS "{\"type\":\"object\",\"properties\":{},\"additionalProperties\":false}"
#define SERVICE_PROP "\"service\":{\"type\":\"string\",\"description\":\"a Compose service of the task\"}"

static const struct svc_mcp_tool tools[] = {
    {"status", "The task's resources with their live state (taskenv ps -t TASK --json).", NO_ARGS,
     tool_status},
    {"env", "The task's variables: TASKENV_TASK, TASKENV_HOST, host ports, the broker socket.", NO_ARGS,
     tool_env},
    {"logs", "The last lines of a service's log (stdout and stderr), at most 64 KiB.",
     "{\"type\":\"object\",\"properties\":{" SERVICE_PROP
     ",\"tail\":{\"type\":\"integer\",\"minimum\":0,\"description\":\"lines from the end (default 100)\"},"
     "\"since\":{\"type\":\"string\",\"description\":\"only lines after this: unix seconds or a "
     "duration like 10m, as docker logs --since\"}},"
     "\"required\":[\"service\"],\"additionalProperties\":false}",
     tool_logs},
    {"exec", "Run a command in a service's container; its output (last 64 KiB) and exit code.",
     "{\"type\":\"object\",\"properties\":{" SERVICE_PROP
     ",\"argv\":{\"type\":\"array\",\"items\":{\"type\":\"string\"},\"minItems\":1,"
     "\"description\":\"the command and its arguments, no shell\"},"
     "\"timeout\":{\"type\":\"integer\",\"minimum\":1,\"maximum\":3600,\"description\":\"seconds (default "
     "30)\"}},\"required\":[\"service\",\"argv\"],\"additionalProperties\":false}",
     tool_exec},
    {"restart", "Restart a service's containers (ports and volumes kept).",
     "{\"type\":\"object\",\"properties\":{" SERVICE_PROP "},\"required\":[\"service\"],"
     "\"additionalProperties\":false}",
     tool_restart},
    {"up", "Reconcile the task from the Compose files it was brought up from: what changed is recreated.",
     NO_ARGS, tool_up},
    {"contract", "What the task was given, at six boundaries, with evidence (taskenv contract --json).",
     NO_ARGS, tool_contract},
};

int cmd_mcp(struct te_ctx *ctx, int argc, char **argv)
{
	struct mcp_opts o = {0};
	struct te_err err = {0};
	te_autofree char *task = NULL;
	te_autofree char *line = NULL;
	size_t cap = 0;
	ssize_t n;
	struct mcp m = {.ctx = ctx};
	struct svc_mcp_server s = {"taskenv", TASKENV_VERSION, tools, sizeof(tools) / sizeof(tools[0]), &m};
	FILE *out;
	int code, i = cmd_parse(ctx, argc, argv, &o, &code);

	if (i < 0)
		return code;
	m.e = cmd_task_engine(ctx, o.task, &task, &err);
	if (!m.e)
		return cmd_fail("mcp", &err);
	m.task = task;
	/* stdout is the protocol's: anything else that prints (a verb's own
	 * lines, progress) goes to stderr. */
	out = fdopen(dup(STDOUT_FILENO), "w");
	if (!out || dup2(STDERR_FILENO, STDOUT_FILENO) < 0)
		return te_err_set(&err, TE_E_IO, "stdout: cannot keep it for the protocol"),
		       cmd_fail("mcp", &err);
	while ((n = getline(&line, &cap, stdin)) >= 0) {
		te_autofree char *reply = NULL;

		if ((size_t)n > LINE_MAX_BYTES)
			svc_mcp_handle(&s, "", 0, &reply); /* a parse error, not a read of it */
		else if (strspn(line, " \t\r\n") == (size_t)n)
			continue;
		else
			svc_mcp_handle(&s, line, (size_t)n, &reply);
		if (reply) {
			fprintf(out, "%s\n", reply);
			fflush(out);
		}
	}
	fclose(out);
	return EXIT_OK;
}
