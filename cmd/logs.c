/* taskenv logs: the task's container logs, Compose style ("app-1  | line"),
 * several containers at once, optionally followed. */
#include "cmd/cmd.h"
#include "engine/stream.h"
#include "services/lifecycle/ops.h"
#include "common/mem.h"

#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void logs_help(void)
{
	printf("usage: taskenv logs [-t TASK] [SERVICE...] [-f] [--tail N] [--timestamps] [--no-color]\n\n"
	       "Print the logs of the task's containers (all services, or those named), each\n"
	       "line prefixed with its container (\"app-1  | ...\"), as docker compose does.\n\n"
	       "  -t, --task TASK   task name (default: $TASKENV_TASK, else the git branch)\n"
	       "  -f, --follow      keep following until the containers stop (Ctrl-C ends it)\n"
	       "  -n, --tail N      only the last N lines of each container (default: all)\n"
	       "      --timestamps  prefix each line with its RFC 3339 time\n"
	       "      --no-color    no colours (also when NO_COLOR is set or stdout is no terminal)\n"
	       "      --no-log-prefix  print the lines without the container prefix\n");
}

struct logs_args {
	const char *task;
	struct engine_logs_opts lo;
	bool no_color;
	bool no_prefix;
	char **services; /* borrowed argv tail, NULL-terminated by argv */
};

static int parse(struct logs_args *a, int argc, char **argv)
{
	static const struct option opts[] = {
	    {"task", required_argument, NULL, 't'}, {"follow", no_argument, NULL, 'f'},
	    {"tail", required_argument, NULL, 'n'}, {"timestamps", no_argument, NULL, 'T'},
	    {"no-color", no_argument, NULL, 'C'},   {"no-log-prefix", no_argument, NULL, 'P'},
	    {"help", no_argument, NULL, 'h'},	    {NULL, 0, NULL, 0},
	};
	char *end;
	int c;

	a->lo.tail = -1;
	while ((c = getopt_long(argc, argv, "t:fn:h", opts, NULL)) != -1) {
		switch (c) {
		case 't': a->task = optarg; break;
		case 'f': a->lo.follow = true; break;
		case 'n':
			errno = 0;
			a->lo.tail = strcmp(optarg, "all") == 0 ? -1 : (int)strtol(optarg, &end, 10);
			if (strcmp(optarg, "all") != 0 && (errno || *end || a->lo.tail < 0))
				return -1;
			break;
		case 'T': a->lo.timestamps = true; break;
		case 'C': a->no_color = true; break;
		case 'P': a->no_prefix = true; break;
		case 'h': logs_help(); return 1;
		default: return -1;
		}
	}
	a->services = optind < argc ? argv + optind : NULL;
	return 0;
}

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
	struct logs_args a = {0};
	struct te_err err = {0};
	int p = parse(&a, argc, argv);

	if (p != 0)
		return p > 0 ? EXIT_OK : cmd_usage("logs", "bad arguments");
	return show(ctx, &a, &err) < 0 ? cmd_fail("logs", &err) : EXIT_OK;
}
