/* taskenv gc: remove expired tasks and orphaned objects of this ledger. */
#include "cmd/cmd.h"
#include "services/lifecycle/gc.h"
#include "services/settings.h"
#include "state/ledger.h"

#include <stdio.h>
#include <stdlib.h>

const struct cmd_option cmd_gc_options[] = {
    CMD_OPT_FLAG('n', "dry-run", struct svc_gc_opts, dry_run, "say what would be removed, remove nothing"),
    CMD_OPT_SECONDS(0, "timeout", struct svc_gc_opts, stop_timeout,
		    "seconds each container gets to stop (default 10)"),
    CMD_OPT_END,
};

const char cmd_gc_about[] =
    "Remove, by the ledger, every task whose lease (up --lease) or retention\n"
    "(retain --for) has expired and whose owner process no longer runs; then remove\n"
    "engine objects labelled io.taskenv.task and io.taskenv.ledger=<this ledger>\n"
    "that the ledger does not hold (left by a process killed at the wrong moment).\n"
    "Never touches an object without both labels, nor one of a live or locked task.\n"
    "Then Postgres templates built from migrations: what a killed build or pool\n"
    "refill left, and templates no task was cloned from, unused for template_gc_age\n"
    "(default 7d), with their spare databases. And the rows of task brokers that no\n"
    "longer run (killed, crashed), with the sockets they left.\n"
    "Exit 1 when something could not be removed (it stays pending for the next gc).\n";

int cmd_gc(struct te_ctx *ctx, int argc, char **argv)
{
	struct svc_gc_opts o = {.stop_timeout = 10, .progress = cmd_progress};
	struct svc_gc_result r = {0};
	struct te_err err = {0};
	const struct svc_settings *s;
	int rc, i = cmd_parse(ctx, argc, argv, &o, &rc);

	if (i < 0)
		return rc;
	s = cmd_get_settings(ctx, &err);
	if (!s || !cmd_engine(ctx, NULL, &err))
		return cmd_fail("gc", &err);
	o.template_gc_age = svc_settings_at(s, SVC_SET_TEMPLATE_GC_AGE)->num;
	rc = svc_gc(ctx->engine, ctx->ledger, &o, &r, &err);
	printf("gc%s: %zu expired task(s)%s, %zu orphan object(s)%s, %zu kept (live), %zu postgres "
	       "template/pool database(s)%s, remaining %zu\n",
	       o.dry_run ? " (dry run)" : "", r.tasks, o.dry_run ? " would go" : " removed", r.orphans,
	       o.dry_run ? " would go" : " removed", r.live, r.templates,
	       o.dry_run ? " would go" : " removed", r.remaining);
	if (r.processes)
		printf("gc%s: %zu broker(s) no longer running, their rows and sockets%s\n",
		       o.dry_run ? " (dry run)" : "", r.processes, o.dry_run ? " would go" : " cleared");
	return rc < 0 ? cmd_fail("gc", &err) : EXIT_OK;
}
