/* taskenv gc: remove expired tasks and orphaned objects of this ledger. */
#include "cmd/cmd.h"
#include "services/lifecycle/gc.h"
#include "state/ledger.h"

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>

static void gc_help(void)
{
	printf("usage: taskenv gc [--dry-run] [--timeout SECONDS]\n\n"
	       "Remove, by the ledger, every task whose lease (up --lease) or retention\n"
	       "(retain --for) has expired and whose owner process no longer runs; then remove\n"
	       "engine objects labelled io.taskenv.task and io.taskenv.ledger=<this ledger>\n"
	       "that the ledger does not hold (left by a process killed at the wrong moment).\n"
	       "Never touches an object without both labels, nor one of a live or locked task.\n"
	       "Then Postgres templates built from migrations: what a killed build or pool\n"
	       "refill left, and templates no task was cloned from, unused for template_gc_age\n"
	       "(TASKENV_TEMPLATE_GC_AGE, default 7d), with their spare databases.\n"
	       "Exit 1 when something could not be removed (it stays pending for the next gc).\n\n"
	       "  -n, --dry-run      say what would be removed, remove nothing\n"
	       "      --timeout SECS seconds each container gets to stop (default 10)\n");
}

static int parse(struct svc_gc_opts *o, int argc, char **argv)
{
	static const struct option opts[] = {
	    {"dry-run", no_argument, NULL, 'n'},
	    {"timeout", required_argument, NULL, 'T'},
	    {"help", no_argument, NULL, 'h'},
	    {NULL, 0, NULL, 0},
	};
	char *end;
	int c;

	while ((c = getopt_long(argc, argv, "nh", opts, NULL)) != -1) {
		switch (c) {
		case 'n': o->dry_run = true; break;
		case 'T':
			errno = 0;
			o->stop_timeout = (int)strtol(optarg, &end, 10);
			if (errno || *end || o->stop_timeout < 0)
				return -1;
			break;
		case 'h': gc_help(); return 1;
		default: return -1;
		}
	}
	return optind < argc ? -1 : 0;
}

int cmd_gc(struct te_ctx *ctx, int argc, char **argv)
{
	struct svc_gc_opts o = {.stop_timeout = 10, .progress = cmd_progress};
	struct svc_gc_result r = {0};
	struct te_err err = {0};
	int p = parse(&o, argc, argv), rc;

	if (p != 0)
		return p > 0 ? EXIT_OK : cmd_usage("gc", "bad arguments");
	if (!cmd_engine(ctx, NULL, &err))
		return cmd_fail("gc", &err);
	rc = svc_gc(ctx->engine, ctx->ledger, &o, &r, &err);
	printf("gc%s: %zu expired task(s)%s, %zu orphan object(s)%s, %zu kept (live), %zu postgres "
	       "template/pool database(s)%s, remaining %zu\n",
	       o.dry_run ? " (dry run)" : "", r.tasks, o.dry_run ? " would go" : " removed", r.orphans,
	       o.dry_run ? " would go" : " removed", r.live, r.templates,
	       o.dry_run ? " would go" : " removed", r.remaining);
	return rc < 0 ? cmd_fail("gc", &err) : EXIT_OK;
}
