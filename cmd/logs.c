/* taskenv logs: the task's container logs, Compose style ("app-1  | line"),
 * several containers at once, optionally followed. */
#include "cmd/cmd.h"
#include "engine/stream.h"
#include "services/lifecycle/ops.h"
#include "common/mem.h"

#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct logs_args {
	const char *task;
	struct engine_logs_opts lo;
	bool no_color;
	bool no_prefix;
	char **services; /* borrowed argv tail, NULL-terminated by argv */
};

/* --tail N or all. */
static int set_tail(const struct cmd_option *o, const char *arg, void *dst, struct te_err *err)
{
	char *end;
	long n;

	errno = 0;
	n = strcmp(arg, "all") == 0 ? -1 : strtol(arg, &end, 10);
	if (strcmp(arg, "all") != 0 && (errno || end == arg || *end || n < 0 || n > INT_MAX))
		return te_err_set(err, TE_E_USAGE, "'%s' is not a number of lines or 'all'", arg);
	*(int *)dst = (int)n;
	return 0;
}

const struct cmd_option cmd_logs_options[] = {
    CMD_OPT_TASK(struct logs_args, task),
    CMD_OPT_FLAG('f', "follow", struct logs_args, lo.follow,
		 "keep following until the containers stop (Ctrl-C ends it)"),
    CMD_OPT_CALLBACK('n', "tail", "N", set_tail, struct logs_args, lo.tail, int,
		     "only the last N lines of each container (default: all)"),
    CMD_OPT_FLAG(0, "timestamps", struct logs_args, lo.timestamps, "prefix each line with its RFC 3339 time"),
    CMD_OPT_FLAG(0, "no-color", struct logs_args, no_color,
		 "no colours (also when NO_COLOR is set or stdout is no terminal)"),
    CMD_OPT_FLAG(0, "no-log-prefix", struct logs_args, no_prefix,
		 "print the lines without the container prefix"),
    CMD_OPT_END,
};

const char cmd_logs_about[] =
    "Print the logs of the task's containers (all services, or those named), each\n"
    "line prefixed with its container (\"app-1  | ...\"), as docker compose does.\n";

struct printer {
	char **labels; /* per container: "app-1" */
	size_t width;
	bool color;
	bool no_prefix;
};

static int print_line(void *ctx, size_t src, int stream, const char *line, size_t n)
{
	static const char *const palette[] = {"36", "33", "32", "35", "34", "96", "93", "92", "95", "94"};
	const struct printer *p = ctx;

	if (p->no_prefix)
		fprintf(stdout, "%.*s\n", (int)n, line);
	else if (p->color)
		fprintf(stdout, "\033[%sm%-*s |\033[0m %.*s\n", palette[src % 10], (int)p->width,
			p->labels[src], (int)n, line);
	else
		fprintf(stdout, "%-*s | %.*s\n", (int)p->width, p->labels[src], (int)n, line);
	/* A closed pipe (`| head`) ends the whole transfer. */
	return ferror(stdout) || (fflush(stdout) != 0) ? -1 : 0;
}

/* "app-1": the container name without the task prefix, as Compose shows it. */
static char *label_of(const char *task, const char *name)
{
	size_t n = strlen(task);

	if (strncmp(name, task, n) == 0 && name[n] == '-')
		return xstrdup(name + n + 1);
	return xstrdup(name);
}

static int show(struct te_ctx *ctx, struct logs_args *a, struct te_err *err)
{
	te_autofree char *task = NULL;
	struct engine *e = cmd_task_engine(ctx, a->task, &task, err);
	struct svc_container_ref *v = NULL;
	size_t n = 0;
	te_autostrv char **ids = NULL;
	struct printer p = {.color = !a->no_color && cmd_color_on(stdout), .no_prefix = a->no_prefix};
	int rc;

	if (!e || svc_task_containers(ctx->ledger, task, a->services, false, &v, &n, err) < 0)
		return -1;
	for (size_t i = 0; i < n; i++) {
		char *l = label_of(task, v[i].name);

		ids = te_strv_push(ids, xstrdup(v[i].id));
		p.labels = te_strv_push(p.labels, l);
		if (strlen(l) > p.width)
			p.width = strlen(l);
	}
	svc_container_refs_free(v, n);
	signal(SIGPIPE, SIG_IGN);
	rc = n ? engine_logs(e, ids, &a->lo, print_line, &p, err) : 0;
	te_strv_free(p.labels);
	return rc;
}

int cmd_logs(struct te_ctx *ctx, int argc, char **argv)
{
	struct logs_args a = {.lo.tail = -1};
	struct te_err err = {0};
	int code, i = cmd_parse(ctx, argc, argv, &a, &code);

	if (i < 0)
		return code;
	a.services = i < argc ? argv + i : NULL;
	return show(ctx, &a, &err) < 0 ? cmd_fail("logs", &err) : EXIT_OK;
}
