/* taskenv: global options and the command table (git.c + builtin/,
 * crun.c). Each verb's options live in its own file (cmd/opt.h); this
 * table names them with the verb's usage arguments and summary, and is the
 * one list --help, --list-verbs, the man page and the completions read. */
#include "cmd/cmd.h"
#include "engine/engine.h"
#include "services/settings.h"
#include "state/ledger.h"
#include "common/mem.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define VERB(name, v, flags, args, summary)                                                                  \
	{                                                                                                    \
		name, cmd_##v, flags, cmd_##v##_options, args, summary, cmd_##v##_about, NULL                \
	}

static const struct cmd_verb worktree_subs[] = {
    {"worktree add", cmd_worktree_add, CMD_NEED_LEDGER, cmd_worktree_add_options, "TASK",
     "make the task's worktree and branch", cmd_worktree_add_about, NULL},
    {"worktree remove", cmd_worktree_remove, CMD_NEED_LEDGER, cmd_worktree_remove_options, "TASK",
     "remove the task's worktree", cmd_worktree_remove_about, NULL},
    {NULL, NULL, 0, NULL, NULL, NULL, NULL, NULL},
};

static const struct cmd_verb broker_subs[] = {
    {"broker start", cmd_broker_start, CMD_NEED_LEDGER, cmd_broker_start_options, NULL,
     "start the task's broker (or keep the running one)", cmd_broker_start_about, NULL},
    {"broker stop", cmd_broker_stop, CMD_NEED_LEDGER, cmd_broker_stop_options, NULL, "stop the task's broker",
     cmd_broker_stop_about, NULL},
    {"broker status", cmd_broker_status, CMD_NEED_LEDGER, cmd_broker_status_options, NULL,
     "whether the task's broker runs, and its socket", cmd_broker_status_about, NULL},
    {NULL, NULL, 0, NULL, NULL, NULL, NULL, NULL},
};

static const struct cmd_verb commands[] = {
    VERB("up", up, CMD_NEED_LEDGER, "[SERVICE...]",
	 "create and start the task's containers, networks and volumes"),
    VERB("ps", ps, CMD_NEED_LEDGER, NULL, "list tasks, or one task's resources with their live state"),
    VERB("down", down, CMD_NEED_LEDGER, NULL, "stop and remove exactly what the ledger says the task owns"),
    VERB("config", config, 0, NULL, "print the resolved Compose model with the names taskenv will create"),
    VERB("check", check, 0, NULL, "print what the policy refuses in the Compose file (exit 1 if anything)"),
    VERB("env", env, CMD_NEED_LEDGER, NULL, "print the task's variables (ports): shell, dotenv or json"),
    VERB("logs", logs, CMD_NEED_LEDGER, "[SERVICE...]",
	 "show (and follow) the logs of the task's containers"),
    VERB("exec", exec, CMD_NEED_LEDGER | CMD_ARGS_FIRST, "SERVICE [--] CMD [ARG...]",
	 "run a command in a service's container; its exit status is ours"),
    VERB("run", run, CMD_NEED_LEDGER | CMD_ARGS_FIRST, "SERVICE [CMD [ARG...]]",
	 "run a one-off container of a service (recorded in the ledger)"),
    VERB("with", with, CMD_NEED_LEDGER | CMD_ARGS_FIRST, "[--] CMD [ARG...]",
	 "run a host command with the task's variables (--as: a service's own)"),
    VERB("shell", shell, CMD_NEED_LEDGER, NULL, "an interactive host shell with the task's variables"),
    VERB("stop", stop, CMD_NEED_LEDGER, "[SERVICE...]",
	 "stop the task's containers, keeping ports and volumes"),
    VERB("start", start, CMD_NEED_LEDGER, "[SERVICE...]", "start the task's stopped containers again"),
    VERB("restart", restart, CMD_NEED_LEDGER, "[SERVICE...]", "restart the task's containers"),
    VERB("top", top, CMD_NEED_LEDGER, "[SERVICE...]", "show the processes in the task's containers"),
    VERB("ls", ls, CMD_NEED_LEDGER, NULL, "list the tasks (as ps without -t)"),
    VERB("version", version, 0, NULL, "show taskenv, engine and Engine API versions"),
    VERB("settings", settings, 0, NULL, "show taskenv's settings and where each comes from"),
    VERB("agents-md", agents_md, 0, NULL, "print the AGENTS.md isolation section for this machine"),
    {"worktree", NULL, 0, NULL, NULL, "add or remove the task's git worktree (source boundary)",
     cmd_worktree_about, worktree_subs},
    VERB("contract", contract, CMD_NEED_LEDGER, NULL,
	 "what the task was given, at six boundaries, with evidence"),
    VERB("verify", verify, CMD_NEED_LEDGER, NULL, "probe that the contract holds, from the host and inside"),
    VERB("events", events, CMD_NEED_LEDGER, NULL, "the task's audit trail: every ledger change"),
    VERB("evidence", evidence, CMD_NEED_LEDGER, NULL, "write the promotion package a reviewer opens"),
    VERB("retain", retain, CMD_NEED_LEDGER, NULL, "keep a task stopped for inspection until a deadline"),
    VERB("gc", gc, CMD_NEED_LEDGER, NULL, "remove expired tasks and orphaned objects of this ledger"),
    VERB("reset", reset, CMD_NEED_LEDGER, "RESOURCE",
	 "empty a task's Postgres schema or database back to its start"),
    VERB("mcp", mcp, CMD_NEED_LEDGER, NULL, "serve the Model Context Protocol on stdio, scoped to the task"),
    {"broker", NULL, 0, NULL, NULL, "the task's Engine API broker: start, stop, status", cmd_broker_about,
     broker_subs},
    {NULL, NULL, 0, NULL, NULL, NULL, NULL, NULL},
};

const struct cmd_verb *cmd_verbs(void)
{
	return commands;
}

static const struct cmd_option global_options[] = {
    CMD_OPT_STRING('H', "host", "unix://PATH", struct te_ctx, host,
		   "engine socket (else DOCKER_HOST, CONTAINER_HOST, the task's recorded\n"
		   "engine, the engine setting, then the default sockets)"),
    CMD_OPT_STRING(0, "state", "FILE", struct te_ctx, state_path,
		   "ledger (else TASKENV_STATE, $XDG_STATE_HOME/taskenv/state.db)"),
    CMD_OPT_CHOICE(0, "progress", "auto|tty|plain", struct te_ctx, progress,
		   "auto (in place on a terminal), tty (always in place) or plain lines"),
    CMD_OPT_FLAG('v', "verbose", struct te_ctx, verbose, "show each Engine API call with status and time"),
    CMD_OPT_FLAG(0, "version", struct te_ctx, version, "print the version"),
    CMD_OPT_FLAG(0, "list-verbs", struct te_ctx, list_verbs, "print the verbs, one per line"),
    {"gen", 0, "KIND", "print the man page, a completion script or the option list (build and tests)",
     cmd_opt_choice, CMD_FIELD(struct te_ctx, gen, const char *), "man|bash|zsh|options", CMD_OPT_HIDDEN},
    {"pool-refill", 0, "TEMPLATE,...",
     "refill the pools of these Postgres templates (started by up and reset)", cmd_opt_csv,
     CMD_FIELD(struct te_ctx, pool_refill, char **), NULL, CMD_OPT_HIDDEN | CMD_OPT_REPEAT},
    {"broker-serve", 0, "TASK", "serve the task's broker (started by broker start and up --broker)",
     cmd_opt_string, CMD_FIELD(struct te_ctx, broker_serve, const char *), NULL, CMD_OPT_HIDDEN},
    CMD_OPT_END,
};

const struct cmd_verb cmd_global = {
    "",
    NULL,
    CMD_ARGS_FIRST,
    global_options,
    "VERB [ARG...]",
    "task-scoped Compose environments",
    "Each task gets its own room: containers, networks, volumes and host ports\n"
    "scoped to the task, recorded in a ledger before they are created.\n",
    NULL};

static void usage(FILE *f)
{
	cmd_synopsis(&cmd_global, f);
	fprintf(f, "\n%s\nverbs:\n", cmd_global.about);
	for (const struct cmd_verb *v = commands; v->name; v++)
		fprintf(f, "  %-10s %s\n", v->name, v->summary);
	fprintf(f, "\nglobal options:\n");
	cmd_options_help(global_options, f);
	fprintf(f, "\nexit codes: 0 ok, 1 failure (or owned resources remain after down),\n"
		   "            2 usage (bad flags, task name or Compose file), 3 engine unreachable\n"
		   "            (or another engine than the task's); exec, run, with and shell: the\n"
		   "            command's own, 125 taskenv failed, 126 cannot execute, 127 not found\n\n"
		   "'taskenv VERB --help' describes a verb.\n");
}

static const struct cmd_verb *find(const struct cmd_verb *table, const char *name)
{
	for (const struct cmd_verb *v = table; v->name; v++) {
		const char *last = strrchr(v->name, ' ');

		if (strcmp(last ? last + 1 : v->name, name) == 0)
			return v;
	}
	return NULL;
}

/* "worktree add ...": the subcommand, with ARGV moved past the parent's
 * word; NULL after answering (help, or a usage error in *code). */
static const struct cmd_verb *subcommand(struct te_ctx *ctx, const struct cmd_verb *v, int *argc,
					 char ***argv, int *code)
{
	const struct cmd_verb *sub;

	if (*argc < 2 || strcmp((*argv)[1], "-h") == 0 || strcmp((*argv)[1], "--help") == 0) {
		cmd_help(v, *argc < 2 ? stderr : stdout);
		*code = *argc < 2 ? EXIT_USAGE : EXIT_OK;
		return NULL;
	}
	sub = find(v->subs, (*argv)[1]);
	if (!sub) {
		ctx->verb = v;
		*code = cmd_usage(ctx, "unknown subcommand '%s'", (*argv)[1]);
		return NULL;
	}
	(*argc)--;
	(*argv)++;
	return sub;
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
	te_strv_free(ctx->pool_refill);
	if (ctx->settings)
		svc_settings_release(ctx->settings);
	free(ctx->settings);
	cmd_progress_release();
}

/* Answers the global options that are whole commands; -1 to go on. */
static int global_only(struct te_ctx *ctx, bool help)
{
	if (help)
		return usage(stdout), EXIT_OK;
	if (ctx->version)
		return printf("taskenv %s\n", TASKENV_VERSION), EXIT_OK;
	if (ctx->list_verbs) {
		for (const struct cmd_verb *v = commands; v->name; v++)
			printf("%s\n", v->name);
		return EXIT_OK;
	}
	if (ctx->gen)
		return cmd_gen(ctx->gen);
	if (ctx->pool_refill)
		return cmd_pool_refill(ctx, ctx->pool_refill);
	if (ctx->broker_serve)
		return cmd_broker_serve(ctx, ctx->broker_serve);
	return -1;
}

/* The library's last words before an abort or a fault-injection kill. */
static void last_words(const char *line)
{
	fprintf(stderr, "%s\n", line);
	fflush(stderr);
}

int main(int argc, char **argv)
{
	struct te_ctx ctx = {0};
	struct te_err err = {0};
	const struct cmd_verb *cmd;
	bool help;
	int code, verb;

	te_set_last_words(last_words);
	verb = cmd_opt_parse(global_options, true, argc, argv, &ctx, &help, &err);
	if (verb < 0)
		return cmd_usage(&ctx, "%s", err.msg);
	code = global_only(&ctx, help);
	if (code >= 0) {
		ctx_release(&ctx); /* the long-lived ones (--broker-serve) exit through here */
		return code;
	}
	if (verb >= argc)
		return usage(stderr), EXIT_USAGE;
	cmd = find(commands, argv[verb]);
	if (!cmd)
		return cmd_usage(&ctx, "unknown verb '%s' ('taskenv --list-verbs' lists them)", argv[verb]);
	argc -= verb;
	argv += verb;
	if (cmd->subs && !(cmd = subcommand(&ctx, cmd, &argc, &argv, &code)))
		return code;
	if (cmd_progress_setup(ctx.progress, ctx.verbose) < 0)
		TE_BUG("--progress passed its choices but not cmd_progress_setup");
	ctx.verb = cmd;
	code = cmd->fn(&ctx, argc, argv);
	ctx_release(&ctx);
	return code;
}
