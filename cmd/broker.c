/* taskenv broker start|stop|status: the task's Engine API broker
 * (docs/broker.md), and the hidden --broker-serve the detached broker runs as. */
#include "cmd/cmd.h"
#include "services/lifecycle/broker.h"
#include "services/settings.h"
#include "state/ledger.h"
#include "state/owner.h"
#include "common/mem.h"

#define TE_WITH_CJSON
#include "common/cleanup.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct broker_opts {
	const char *task;
	bool json;
};

const struct cmd_option cmd_broker_start_options[] = {
    CMD_OPT_TASK(struct broker_opts, task),
    CMD_OPT_END,
};
const struct cmd_option cmd_broker_stop_options[] = {
    CMD_OPT_TASK(struct broker_opts, task),
    CMD_OPT_END,
};
const struct cmd_option cmd_broker_status_options[] = {
    CMD_OPT_TASK(struct broker_opts, task),
    CMD_OPT_JSON(struct broker_opts, json),
    CMD_OPT_END,
};

const char cmd_broker_about[] =
    "The task's Engine API broker: a UNIX socket of the task's own that speaks\n"
    "enough of the Docker Engine API for the docker CLI (DOCKER_HOST=unix://...)\n"
    "and lets through only the task's operations on the task's containers\n"
    "(docs/broker.md). `env` prints TASKENV_DOCKER_HOST while it runs; `down`\n"
    "stops it, `gc` clears a dead one's row.\n";
const char cmd_broker_start_about[] =
    "Start the task's broker (a detached process recorded in the ledger), or keep\n"
    "the one that runs; print its socket.\n";
const char cmd_broker_stop_about[] = "Stop the task's broker and remove its socket.\n";
const char cmd_broker_status_about[] = "Print whether the task's broker runs, its pid and its socket.\n";

/* The directory brokers live under: the broker.dir setting, else the
 * runtime directory's. Owned, or NULL with *err set. */
static char *broker_base(struct te_ctx *ctx, struct te_err *err)
{
	const struct svc_settings *s = cmd_get_settings(ctx, err);
	const char *dir;

	if (!s)
		return NULL;
	dir = svc_settings_at(s, SVC_SET_BROKER_DIR)->text;
	if (dir && *dir)
		return xstrdup(dir);
	/* XDG_RUNTIME_DIR is the session's, not a taskenv setting. */
	return svc_broker_base(getenv("XDG_RUNTIME_DIR"));
}

int cmd_broker_start_task(struct te_ctx *ctx, struct engine *e, const char *task, FILE *out,
			  struct te_err *err)
{
	te_autofree char *base = broker_base(ctx, err);
	struct svc_broker_info info;
	int lock = -1, rc;

	if (!base || state_task_lock(ctx->ledger, task, true, &lock, err) < 0)
		return -1;
	rc = svc_broker_start(ctx->ledger, e, task, base, &info, err);
	state_task_unlock(lock);
	if (rc == 0)
		fprintf(out, "task '%s': broker (pid %lld) at unix://%s\n", task, info.pid, info.socket);
	return rc;
}

int cmd_broker_start(struct te_ctx *ctx, int argc, char **argv)
{
	struct broker_opts o = {0};
	struct te_err err = {0};
	te_autofree char *task = NULL;
	struct engine *e;
	int code, i = cmd_parse(ctx, argc, argv, &o, &code);

	if (i < 0)
		return code;
	e = cmd_task_engine(ctx, o.task, &task, &err);
	if (!e || cmd_broker_start_task(ctx, e, task, stdout, &err) < 0)
		return cmd_fail("broker start", &err);
	return EXIT_OK;
}

int cmd_broker_stop(struct te_ctx *ctx, int argc, char **argv)
{
	struct broker_opts o = {0};
	struct te_err err = {0};
	te_autofree char *task = NULL;
	int code, stopped = 0, lock = -1, rc, i = cmd_parse(ctx, argc, argv, &o, &code);

	if (i < 0)
		return code;
	task = cmd_task_name(ctx, o.task, &err);
	if (!task || state_task_lock(ctx->ledger, task, true, &lock, &err) < 0)
		return cmd_fail("broker stop", &err);
	rc = svc_broker_stop(ctx->ledger, task, &stopped, &err);
	state_task_unlock(lock);
	if (rc < 0)
		return cmd_fail("broker stop", &err);
	printf(stopped ? "task '%s': broker stopped\n" : "task '%s': no broker was running\n", task);
	return EXIT_OK;
}

int cmd_broker_status(struct te_ctx *ctx, int argc, char **argv)
{
	struct broker_opts o = {0};
	struct te_err err = {0};
	te_autofree char *task = NULL;
	struct svc_broker_info info;
	int code, i = cmd_parse(ctx, argc, argv, &o, &code);

	if (i < 0)
		return code;
	task = cmd_task_name(ctx, o.task, &err);
	if (!task || svc_broker_status(ctx->ledger, task, &info, &err) < 0)
		return cmd_fail("broker status", &err);
	if (o.json) {
		cJSON *d = cJSON_CreateObject();

		cJSON_AddNumberToObject(d, "schema_version", CMD_JSON_SCHEMA_VERSION);
		cJSON_AddStringToObject(d, "task", task);
		cJSON_AddBoolToObject(d, "running", info.running);
		if (info.pid)
			cJSON_AddNumberToObject(d, "pid", (double)info.pid);
		if (info.socket[0])
			cJSON_AddStringToObject(d, "socket", info.socket);
		cmd_print_json(d);
		cJSON_Delete(d);
	} else if (info.running) {
		printf("task '%s': broker running (pid %lld) at unix://%s\n", task, info.pid, info.socket);
	} else {
		printf("task '%s': no broker running\n", task);
	}
	return info.running ? EXIT_OK : EXIT_FAIL;
}

static volatile sig_atomic_t stop_serving;

int cmd_broker_serve(struct te_ctx *ctx, const char *task)
{
	struct te_err err = {0};
	const struct svc_settings *s = cmd_get_settings(ctx, &err);
	struct engine *e;
	int rc;

	if (!s)
		return cmd_fail("--broker-serve", &err);
	ctx->ledger = state_open(cmd_state_path(ctx, s), &err);
	if (!ctx->ledger)
		return cmd_fail("--broker-serve", &err);
	state_set_verb(ctx->ledger, "broker");
	e = cmd_engine(ctx, NULL, &err);
	if (!e)
		return cmd_fail("--broker-serve", &err);
	rc = svc_broker_serve(ctx->ledger, e, task, &stop_serving, &err);
	return rc < 0 ? cmd_fail("--broker-serve", &err) : EXIT_OK;
}
