/* taskenv events: the task's audit trail (every ledger change). */
#include "cmd/cmd.h"
#include "services/contract/contract.h"
#include "common/mem.h"

#define TE_WITH_CJSON
#include "common/cleanup.h"

#include <stdio.h>
#include <time.h>

struct events_opts {
	const char *task;
	bool json;
};

const struct cmd_option cmd_events_options[] = {
    CMD_OPT_STRING('t', "task", "TASK", struct events_opts, task, "only this task's events"),
    CMD_OPT_JSON(struct events_opts, json),
    CMD_OPT_END,
};

const char cmd_events_about[] =
    "Every ledger change (time, task, verb, resource, outcome), oldest first; all\n"
    "tasks without -t. Events outlive the task: they stay after down.\n";

static const char *s(const cJSON *o, const char *k)
{
	return cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(o, k)) ?: "-";
}

static void print_text(const cJSON *a)
{
	const cJSON *e;

	cJSON_ArrayForEach (e, a) {
		time_t ts = (time_t)cJSON_GetObjectItem(e, "time")->valuedouble;
		char when[32];
		struct tm tm;

		strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%SZ", gmtime_r(&ts, &tm));
		printf("%s %-12s %-9s %-44s %-10s %s\n", when, s(e, "task"), s(e, "verb"), s(e, "resource"),
		       s(e, "outcome"),
		       cJSON_IsString(cJSON_GetObjectItem(e, "message")) ? s(e, "message") : "");
	}
}

int cmd_events(struct te_ctx *ctx, int argc, char **argv)
{
	struct events_opts o = {0};
	te_autojson cJSON *a = NULL;
	struct te_err err = {0};
	int code, i = cmd_parse(ctx, argc, argv, &o, &code);

	if (i < 0)
		return code;
	if (svc_events_json(ctx->ledger, o.task, &a, &err) < 0)
		return cmd_fail("events", &err);
	if (o.json) {
		te_autofree char *t = cJSON_Print(a);

		printf("%s\n", t);
	} else {
		print_text(a);
	}
	return EXIT_OK;
}
