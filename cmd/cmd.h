/* Shared between the verbs: the context main() sets up, and helpers that
 * turn library errors into messages and exit codes. Only cmd/ prints. */
#ifndef TASKENV_CMD_CMD_H
#define TASKENV_CMD_CMD_H

#include <stdbool.h>
#include <stdio.h>

#include "common/err.h"

struct engine;
struct ledger;
struct cJSON;

/* Documented exit codes (taskenv --help, README). */
enum {
	EXIT_OK = 0,
	EXIT_FAIL = 1,	      /* the work failed, or owned resources remain */
	EXIT_USAGE = 2,	      /* bad flags, task name or Compose file */
	EXIT_UNREACHABLE = 3, /* no engine answers on the socket */
};

struct te_ctx {
	const char *host;	/* --host, borrowed from argv, or NULL */
	const char *state_path; /* --state, or NULL */
	bool verbose;		/* -v */
	const char *progress;	/* --progress auto|tty|plain, or NULL (auto) */
	struct ledger *ledger;	/* opened by main when the verb needs it */
	struct engine *engine;	/* opened on demand by cmd_engine() */
	char *engine_socket;	/* socket of ctx->engine, owned */
	struct engine **others; /* engines of other sockets opened for `ps`, owned */
	char **other_sockets;
};

/* Open (once) the engine: --host / DOCKER_HOST / CONTAINER_HOST first, else
 * RECORDED (the socket a task was created on, may be NULL), else discovery.
 * Borrowed result; NULL with *err set. */
struct engine *cmd_engine(struct te_ctx *ctx, const char *recorded, struct te_err *err);

/* True when --host, DOCKER_HOST or CONTAINER_HOST chose the engine. */
bool cmd_engine_explicit(const struct te_ctx *ctx);

/* Print "taskenv: <verb>: <message>" (plus a hint where one helps) and
 * return the exit code for ERR's code. */
int cmd_fail(const char *verb, const struct te_err *err);

/* Print usage problem "taskenv <verb>: <message>" + "try 'taskenv <verb> --help'"; returns EXIT_USAGE. */
int cmd_usage(const char *verb, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Progress (cmd/progress.c). Setup from --progress MODE (NULL = auto;
 * "auto", "tty", "plain") and -v; returns -1 for an unknown MODE. The
 * callback renders one step: plain " <kind> <name> <what>" lines, or a
 * block of such lines rewritten in place on a terminal. */
int cmd_progress_setup(const char *mode, bool verbose);
void cmd_progress(void *ctx, const char *kind, const char *name, const char *what);
void cmd_progress_release(void);
/* Colour on F: a terminal, TERM is not "dumb" and NO_COLOR is unset/empty. */
bool cmd_color_on(FILE *f);

/* Resolve the task (FLAG, $TASKENV_TASK, git branch), check the ledger
 * knows it and open the engine it lives on. *task_out owned. Borrowed
 * engine, or NULL with *err set. */
struct engine *cmd_task_engine(struct te_ctx *ctx, const char *flag, char **task_out, struct te_err *err);
/* The same, but when MISSING is non-NULL a task the ledger does not know
 * is no error: NULL with *missing = true, *task_out set and ERR clear (for
 * `down`, which has nothing to do then). */
struct engine *cmd_task_engine_or_missing(struct te_ctx *ctx, const char *flag, char **task_out,
					  bool *missing, struct te_err *err);

/* Print a cJSON document (borrowed) on stdout, indented, with a newline. */
void cmd_print_json(const struct cJSON *doc);

/* Every --json object carries this (README: "JSON output"). */
#define CMD_JSON_SCHEMA_VERSION 1

/* What up, config and check share: the Compose files (-f, repeatable;
 * default by Compose's file names in the current directory), --profile
 * (repeatable, comma-separated) and --allow (repeatable, comma-separated). */
struct svc_project;
struct cmd_compose {
	char **files;	 /* owned */
	char **profiles; /* owned */
	char **allow;	 /* owned */
};
/* Take OPT (a getopt value) with OPTARG if it is one of 'f', 'P' (--profile),
 * 'A' (--allow). Returns true when taken. */
bool cmd_compose_opt(struct cmd_compose *c, int opt, const char *arg);
void cmd_compose_release(struct cmd_compose *c);
/* Load the project (defaults, COMPOSE_PROFILES when no --profile), print
 * the loader's warnings on stderr ("taskenv VERB: warning: ..."). Owned or NULL. */
struct svc_project *cmd_compose_load(struct cmd_compose *c, const char *verb, struct te_err *err);

int cmd_up(struct te_ctx *ctx, int argc, char **argv);
int cmd_config(struct te_ctx *ctx, int argc, char **argv);
int cmd_check(struct te_ctx *ctx, int argc, char **argv);
int cmd_ps(struct te_ctx *ctx, int argc, char **argv);
int cmd_down(struct te_ctx *ctx, int argc, char **argv);
int cmd_env(struct te_ctx *ctx, int argc, char **argv);
int cmd_logs(struct te_ctx *ctx, int argc, char **argv);
int cmd_exec(struct te_ctx *ctx, int argc, char **argv);
int cmd_run(struct te_ctx *ctx, int argc, char **argv);
int cmd_stop(struct te_ctx *ctx, int argc, char **argv);
int cmd_start(struct te_ctx *ctx, int argc, char **argv);
int cmd_restart(struct te_ctx *ctx, int argc, char **argv);
int cmd_top(struct te_ctx *ctx, int argc, char **argv);
int cmd_ls(struct te_ctx *ctx, int argc, char **argv);
int cmd_version(struct te_ctx *ctx, int argc, char **argv);
/* `taskenv settings` and `taskenv config --show-settings`. */
int cmd_settings(struct te_ctx *ctx, int argc, char **argv);
int cmd_settings_show(struct te_ctx *ctx, bool json);
int cmd_agents_md(struct te_ctx *ctx, int argc, char **argv);
int cmd_worktree(struct te_ctx *ctx, int argc, char **argv);
int cmd_contract(struct te_ctx *ctx, int argc, char **argv);
int cmd_verify(struct te_ctx *ctx, int argc, char **argv);
int cmd_events(struct te_ctx *ctx, int argc, char **argv);
int cmd_evidence(struct te_ctx *ctx, int argc, char **argv);
int cmd_retain(struct te_ctx *ctx, int argc, char **argv);
int cmd_gc(struct te_ctx *ctx, int argc, char **argv);
int cmd_reset(struct te_ctx *ctx, int argc, char **argv);
int cmd_pool_refill(struct te_ctx *ctx, int argc, char **argv);

#endif
