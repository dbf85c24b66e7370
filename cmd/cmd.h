/* Shared between the verbs: the context main() sets up, and helpers that
 * turn library errors into messages and exit codes. Only cmd/ prints. */
#ifndef TASKENV_CMD_CMD_H
#define TASKENV_CMD_CMD_H

#include <stdbool.h>

#include "common/err.h"

struct engine;
struct ledger;

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

/* The progress callback every verb uses: "  <kind> <name>: <what>" on stderr. */
void cmd_progress(void *ctx, const char *kind, const char *name, const char *what);

int cmd_up(struct te_ctx *ctx, int argc, char **argv);
int cmd_ps(struct te_ctx *ctx, int argc, char **argv);
int cmd_down(struct te_ctx *ctx, int argc, char **argv);
int cmd_env(struct te_ctx *ctx, int argc, char **argv);
int cmd_retain(struct te_ctx *ctx, int argc, char **argv);
int cmd_gc(struct te_ctx *ctx, int argc, char **argv);

#endif
