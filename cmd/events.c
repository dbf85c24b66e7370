/* taskenv events: the task's audit trail (every ledger change). */
#include "cmd/cmd.h"
#include "services/contract/contract.h"
#include "common/mem.h"

#define TE_WITH_CJSON
#include "common/cleanup.h"

#include <getopt.h>
#include <stdio.h>
#include <time.h>

static void events_help(void)
{
	printf("usage: taskenv events [-t TASK] [--json]\n\n"
	       "Every ledger change (time, task, verb, resource, outcome), oldest first; all\n"
	       "tasks without -t. Events outlive the task: they stay after down.\n");
}

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
	static const struct option opts[] = {{"task", required_argument, NULL, 't'},
					     {"json", no_argument, NULL, 'j'},
					     {"help", no_argument, NULL, 'h'},
					     {NULL, 0, NULL, 0}};
	const char *task = NULL;
	bool json = false;
	te_autojson cJSON *a = NULL;
	struct te_err err = {0};
	int c;

	while ((c = getopt_long(argc, argv, "t:h", opts, NULL)) != -1) {
		if (c == 't')
			task = optarg;
		else if (c == 'j')
			json = true;
		else if (c == 'h')
			return events_help(), EXIT_OK;
		else
			return cmd_usage("events", "bad arguments");
	}
	if (svc_events_json(ctx->ledger, task, &a, &err) < 0)
		return cmd_fail("events", &err);
	if (json) {
		te_autofree char *t = cJSON_Print(a);

		printf("%s\n", t);
	} else {
		print_text(a);
	}
	return EXIT_OK;
}
