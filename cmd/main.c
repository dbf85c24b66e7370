/* taskenv: global options, the command table, and what each verb needs
 * set up before it runs (git.c + builtin/, crun.c). */
#include "cmd/cmd.h"
#include "engine/engine.h"
#include "state/ledger.h"
#include "common/mem.h"

#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { NEED_LEDGER = 1 << 0, HIDDEN = 1 << 1 };

struct command {
	const char *name;
	int (*fn)(struct te_ctx *, int, char **);
	int flags;
	const char *summary;
};

static const struct command commands[] = {
    {"up", cmd_up, NEED_LEDGER, "create and start the task's containers, networks and volumes"},
    {"ps", cmd_ps, NEED_LEDGER, "list tasks, or one task's resources with their live state"},
    {"down", cmd_down, NEED_LEDGER, "stop and remove exactly what the ledger says the task owns"},
    {"config", cmd_config, 0, "print the resolved Compose model with the names taskenv will create"},
    {"check", cmd_check, 0, "print what the policy refuses in the Compose file (exit 1 if anything)"},
    {"env", cmd_env, NEED_LEDGER, "print the task's variables (ports): shell, dotenv or json"},
    {"logs", cmd_logs, NEED_LEDGER, "show (and follow) the logs of the task's containers"},
    {"exec", cmd_exec, NEED_LEDGER, "run a command in a service's container; its exit status is ours"},
    {"run", cmd_run, NEED_LEDGER, "run a one-off container of a service (recorded in the ledger)"},
    {"stop", cmd_stop, NEED_LEDGER, "stop the task's containers, keeping ports and volumes"},
    {"start", cmd_start, NEED_LEDGER, "start the task's stopped containers again"},
    {"restart", cmd_restart, NEED_LEDGER, "restart the task's containers"},
    {"top", cmd_top, NEED_LEDGER, "show the processes in the task's containers"},
    {"ls", cmd_ls, NEED_LEDGER, "list the tasks (as ps without -t)"},
    {"version", cmd_version, 0, "show taskenv, engine and Engine API versions"},
    {"settings", cmd_settings, 0, "show taskenv's settings and where each comes from"},
    {"agents-md", cmd_agents_md, 0, "print the AGENTS.md isolation section for this machine"},
    {"worktree", cmd_worktree, NEED_LEDGER, "add or remove the task's git worktree (source boundary)"},
    {"contract", cmd_contract, NEED_LEDGER, "what the task was given, at six boundaries, with evidence"},
    {"verify", cmd_verify, NEED_LEDGER, "probe that the contract holds, from the host and inside"},
    {"events", cmd_events, NEED_LEDGER, "the task's audit trail: every ledger change"},
    {"evidence", cmd_evidence, NEED_LEDGER, "write the promotion package a reviewer opens"},
    {"retain", cmd_retain, NEED_LEDGER, "keep a task stopped for inspection until a deadline"},
    {"gc", cmd_gc, NEED_LEDGER, "remove expired tasks and orphaned objects of this ledger"},
    {"reset", cmd_reset, NEED_LEDGER, "empty a task's Postgres schema or database back to its start"},
    {"_pool-refill", cmd_pool_refill, NEED_LEDGER | HIDDEN, "(internal) refill the template pools"},
};

static void usage(FILE *f)
{
	fprintf(
	    f, "usage: taskenv [--host unix://PATH] [--state FILE] [--progress MODE] [-v] <verb> [<args>]\n\n"
	       "Each task gets its own room: containers, networks, volumes and host ports\n"
	       "scoped to the task, recorded in a ledger before they are created.\n\nverbs:\n");
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		if (!(commands[i].flags & HIDDEN))
			fprintf(f, "  %-10s %s\n", commands[i].name, commands[i].summary);
	fprintf(f, "\nglobal options:\n"
		   "  -H, --host unix://PATH  engine socket (else DOCKER_HOST, CONTAINER_HOST,\n"
		   "                          the task's recorded engine, then the default sockets)\n"
		   "  --state FILE            ledger (else TASKENV_STATE, $XDG_STATE_HOME/taskenv/state.db)\n"
		   "  --progress MODE         auto (in place on a terminal), tty, or plain lines\n"
		   "  -v, --verbose           show each Engine API call with status and time\n"
		   "  --version               print the version\n\n"
		   "exit codes: 0 ok, 1 failure (or owned resources remain after down),\n"
		   "            2 usage (bad flags, task name or Compose file), 3 engine unreachable\n\n"
		   "'taskenv <verb> --help' describes a verb.\n");
}

static const struct command *find_command(const char *name)
{
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		if (strcmp(commands[i].name, name) == 0)
			return &commands[i];
	return NULL;
}

/* Returns the index of the verb in argv, or -1 after printing. */
static int parse_global(struct te_ctx *ctx, int argc, char **argv, int *code)
{
	static const struct option opts[] = {
	    {"host", required_argument, NULL, 'H'},
	    {"state", required_argument, NULL, 's'},
	    {"verbose", no_argument, NULL, 'v'},
	    {"help", no_argument, NULL, 'h'},
	    {"version", no_argument, NULL, 'V'},
	    {"progress", required_argument, NULL, 'p'},
	    {NULL, 0, NULL, 0},
	};
	int c;

	while ((c = getopt_long(argc, argv, "+H:vh", opts, NULL)) != -1) {
		switch (c) {
		case 'H': ctx->host = optarg; break;
		case 's': ctx->state_path = optarg; break;
		case 'v': ctx->verbose = true; break;
		case 'p': ctx->progress = optarg; break;
		case 'h':
			usage(stdout);
			*code = EXIT_OK;
			return -1;
		case 'V':
			printf("taskenv %s\n", TASKENV_VERSION);
			*code = EXIT_OK;
			return -1;
		default:
			usage(stderr);
			*code = EXIT_USAGE;
			return -1;
		}
	}
	if (optind >= argc) {
		usage(stderr);
		*code = EXIT_USAGE;
		return -1;
	}
	return optind;
}

static void ctx_release(struct te_ctx *ctx)
{
	for (size_t i = 0; ctx->others && ctx->others[i]; i++)
		engine_free(ctx->others[i]);
	free(ctx->others);
	te_strv_free(ctx->other_sockets);
	engine_free(ctx->engine);
	free(ctx->engine_socket);
	state_close(ctx->ledger);
	cmd_progress_release();
}

/* A --host (or DOCKER_HOST) that is not unix:// is a usage error for every
 * verb, also for those that may answer from the ledger without an engine
 * (ps, down of an unknown task): a typo must not pass unnoticed. That no
 * socket exists yet is left to the verbs that need one. */
static int check_host(struct te_ctx *ctx, struct te_err *err)
{
	te_autofree char *path = NULL;

	if (engine_resolve_socket(ctx->host, &path, err) == 0 || err->code != TE_E_USAGE) {
		te_err_clear(err);
		return 0;
	}
	return -1;
}

int main(int argc, char **argv)
{
	struct te_ctx ctx = {0};
	struct te_err err = {0};
	const struct command *cmd;
	int code = EXIT_OK, verb;

	verb = parse_global(&ctx, argc, argv, &code);
	if (verb < 0)
		return code;
	cmd = find_command(argv[verb]);
	if (!cmd)
		return cmd_usage("", "unknown verb '%s'", argv[verb]);
	if (cmd_progress_setup(ctx.progress, ctx.verbose) < 0)
		return cmd_usage("", "unknown --progress '%s' (auto, tty or plain)", ctx.progress);
	if (check_host(&ctx, &err) < 0)
		return cmd_fail(cmd->name, &err);
	if (!ctx.state_path)
		ctx.state_path = getenv("TASKENV_STATE");
	if (cmd->flags & NEED_LEDGER) {
		ctx.ledger = state_open(ctx.state_path, &err);
		if (!ctx.ledger)
			return cmd_fail(cmd->name, &err);
		state_set_verb(ctx.ledger, cmd->name);
	}
	optind = 0;
	code = cmd->fn(&ctx, argc - verb, argv + verb);
	ctx_release(&ctx);
	return code;
}
