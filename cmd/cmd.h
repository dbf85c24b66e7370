/* Shared between the verbs: the context main() sets up, and helpers that
 * turn library errors into messages and exit codes. Only cmd/ prints. */
#ifndef TASKENV_CMD_CMD_H
#define TASKENV_CMD_CMD_H

#include <stdbool.h>
#include <stdio.h>

#include "cmd/opt.h"
#include "common/err.h"

struct engine;
struct ledger;
struct cJSON;
struct svc_settings;
struct te_ctx;

/* Documented exit codes (taskenv --help, README). */
enum {
	EXIT_OK = 0,
	EXIT_FAIL = 1,	      /* the work failed, or owned resources remain */
	EXIT_USAGE = 2,	      /* bad flags, task name or Compose file */
	EXIT_UNREACHABLE = 3, /* no engine answers on the socket */
};

/* exec, run, with and shell return the command's own status; their own
 * failures follow Docker's CLI (docs/agents.md, "Exit codes"). */
enum {
	EXIT_CMD_FAILED = 125,	    /* taskenv or the engine failed: the command did not run */
	EXIT_CMD_CANNOT_EXEC = 126, /* the command was found but cannot be executed */
	EXIT_CMD_NOT_FOUND = 127,   /* the command was not found */
};

enum {
	CMD_NEED_LEDGER = 1 << 0, /* cmd_parse opens the ledger, after the options */
	CMD_ARGS_FIRST = 1 << 1,  /* options end at the first argument (exec SERVICE CMD -x) */
};

/* One verb of the command table (cmd/main.c): everything --help, the man
 * page, the completions and --list-verbs say about it comes from here. */
struct cmd_verb {
	const char *name; /* "up"; a subcommand's is the full "worktree add" */
	int (*fn)(struct te_ctx *ctx, int argc, char **argv);
	unsigned flags;			  /* CMD_* */
	const struct cmd_option *options; /* the verb's table (cmd/opt.h), or NULL */
	const char *args;	     /* its arguments in the usage line ("SERVICE [CMD [ARG...]]"), or NULL */
	const char *summary;	     /* one line, for `taskenv --help` */
	const char *about;	     /* paragraphs for --help and the man page ('\n'-ended) */
	const struct cmd_verb *subs; /* subcommands, ended by an entry with name NULL; or NULL */
};

/* The command table, ended by an entry with name NULL, and the pseudo-verb
 * "taskenv" itself (its options are the global ones). */
const struct cmd_verb *cmd_verbs(void);
extern const struct cmd_verb cmd_global;

struct te_ctx {
	const char *host;	       /* --host, borrowed from argv, or NULL */
	const char *state_path;	       /* --state, or NULL */
	bool verbose;		       /* -v */
	const char *progress;	       /* --progress auto|tty|plain, or NULL (auto) */
	bool version, list_verbs;      /* --version, --list-verbs */
	const char *gen;	       /* hidden --gen man|bash|zsh|options */
	char **pool_refill;	       /* hidden --pool-refill TEMPLATE,... (owned) */
	const char *broker_serve;      /* hidden --broker-serve TASK (borrowed) */
	const struct cmd_verb *verb;   /* the verb being run, set by main */
	struct svc_settings *settings; /* loaded on demand by cmd_get_settings(), owned */
	struct ledger *ledger;	       /* opened by cmd_parse when the verb needs it */
	struct engine *engine;	       /* opened on demand by cmd_engine() */
	char *engine_socket;	       /* socket of ctx->engine, owned */
	struct engine **others;	       /* engines of other sockets opened for `ps`, owned */
	char **other_sockets;
};

/* Parse the verb's options (CTX->verb's table) into OPTS, the verb's own
 * struct with its defaults filled in. Answers -h/--help (help on stdout,
 * *CODE = 0); a bad flag prints "taskenv VERB: <what>" and the verb's usage
 * line on stderr (*CODE = 2), and so do too few or too many arguments for
 * the verb's ARGS (cmd_args_count). Then, and only then, the preconditions:
 * --host must be unix://, the ledger is opened for CMD_NEED_LEDGER verbs.
 * Returns the index in ARGV of the first argument, or -1 (return *CODE). */
int cmd_parse(struct te_ctx *ctx, int argc, char **argv, void *opts, int *code);

/* `taskenv VERB --help` on F: usage line(s), about, options. */
void cmd_help(const struct cmd_verb *v, FILE *f);
/* "usage: taskenv VERB ..." (a line per subcommand), wrapped at 100 columns. */
void cmd_synopsis(const struct cmd_verb *v, FILE *f);
void cmd_options_help(const struct cmd_option *table, FILE *f);

/* The settings (services/settings.h), loaded once; borrowed, or NULL with
 * *err set (a bad config file or variable: TE_E_USAGE naming it). */
const struct svc_settings *cmd_get_settings(struct te_ctx *ctx, struct te_err *err);

/* The ledger path: --state, else the state setting (TASKENV_STATE); NULL
 * means state_default_path(). Borrowed. */
const char *cmd_state_path(const struct te_ctx *ctx, const struct svc_settings *s);

/* The task name: FLAG (-t), else the TASKENV_TASK setting, else the git
 * branch of the current directory. Owned, or NULL with *err set. */
char *cmd_task_name(struct te_ctx *ctx, const char *flag, struct te_err *err);

/* Open (once) the engine: --host / DOCKER_HOST / CONTAINER_HOST first, else
 * RECORDED (the socket a task was created on, may be NULL), else discovery.
 * Borrowed result; NULL with *err set. */
struct engine *cmd_engine(struct te_ctx *ctx, const char *recorded, struct te_err *err);

/* True when --host, DOCKER_HOST or CONTAINER_HOST chose the engine. */
bool cmd_engine_explicit(const struct te_ctx *ctx);

/* Print "taskenv: <verb>: <message>" (plus a hint where one helps) and
 * return the exit code for ERR's code. */
int cmd_fail(const char *verb, const struct te_err *err);

/* For exec, run, with, shell: print ERR as cmd_fail does and return
 * EXIT_CMD_NOT_FOUND or EXIT_CMD_CANNOT_EXEC when the runtime's message
 * says so, else EXIT_CMD_FAILED. */
int cmd_fail_command(const char *verb, const struct te_err *err);
/* The runtime's message S (output, or an error) names a command it could
 * not find (127) or not execute (126); 0 when it says neither. */
int cmd_command_status(const char *s, size_t n);

/* A usage problem of CTX's verb (the global options when none): print
 * "taskenv VERB: <message>" and the verb's usage line on stderr; returns
 * EXIT_USAGE. */
int cmd_usage(const struct te_ctx *ctx, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* The hidden `taskenv --gen man|bash|zsh|options` (cmd/gen.c): the man
 * page, a completion script, or "VERB\t--option" lines, from the command
 * table, on stdout. */
int cmd_gen(const char *what);

/* Progress (cmd/progress.c). Setup from --progress MODE (NULL = auto;
 * "auto", "tty", "plain") and -v; returns -1 for an unknown MODE. The
 * callback renders one step: plain " <kind> <name> <what>" lines, or a
 * block of such lines rewritten in place on a terminal. */
int cmd_progress_setup(const char *mode, bool verbose);
void cmd_progress(void *ctx, const char *kind, const char *name, const char *what);
void cmd_progress_release(void);
/* For --json: renders the step as cmd_progress does (stderr) and appends
 * {"kind","name","outcome"} to CTX, a cJSON array. */
void cmd_progress_collect(void *ctx, const char *kind, const char *name, const char *what);
/* The same, one entry per object (KIND, NAME): a later step replaces its
 * outcome ("stopping", "stopped (3.1 s)", then "removed": "removed"). */
void cmd_progress_outcome(void *ctx, const char *kind, const char *name, const char *what);
/* -v: E reports each Engine API call on stderr ("engine: GET /v1.41/... -> 200 (3 ms)"). */
void cmd_trace_install(const struct te_ctx *ctx, struct engine *e);
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

/* Every --json object carries this (docs/json.md). */
#define CMD_JSON_SCHEMA_VERSION 1

/* What up, config and check share: the Compose files (-f, repeatable;
 * default COMPOSE_FILE, else Compose's file names in the current directory
 * and the override file), --profile (repeatable, comma-separated), --allow
 * (repeatable, comma-separated) and --env-file (repeatable). A verb's
 * struct embeds it as `compose` and its table lists the options. */
struct svc_project;
struct svc_policy_defaults;
struct cmd_compose {
	char **files;	  /* owned */
	char **profiles;  /* owned */
	char **allow;	  /* owned */
	char **env_files; /* owned */
	char **warnings;  /* the loader's warnings, kept by cmd_compose_load (owned) */
};
#define CMD_OPT_COMPOSE_FILE(type)                                                                           \
	CMD_OPT_LIST('f', "file", "FILE", type, compose.files,                                               \
		     "Compose file (repeatable: later files merge into earlier ones; default:\n"             \
		     "COMPOSE_FILE, else compose.yaml, compose.yml, docker-compose.yml,\n"                   \
		     "docker-compose.yaml here and its override file, compose.override.yml, ...)")
#define CMD_OPT_COMPOSE_ENV_FILE(type)                                                                       \
	CMD_OPT_LIST(0, "env-file", "FILE", type, compose.env_files,                                         \
		     "variables to read the Compose files with, instead of the .env\n"                       \
		     "(repeatable, later wins; the process environment wins over them)")
#define CMD_OPT_COMPOSE_PROFILE(type)                                                                        \
	CMD_OPT_CSV(0, "profile", "NAME", type, compose.profiles,                                            \
		    "enable services of this profile (repeatable; else $COMPOSE_PROFILES)")
#define CMD_OPT_COMPOSE_ALLOW(type)                                                                          \
	CMD_OPT_CSV(0, "allow", "NAME", type, compose.allow,                                                 \
		    "grant a policy exception (repeatable, comma-separated; the names:\n"                    \
		    "'taskenv check --help')")
void cmd_compose_release(struct cmd_compose *c);
/* Load the project (-f, else COMPOSE_FILE, else the default file and its
 * override file; COMPOSE_PROFILES when no --profile; --env-file, else the
 * .env), with the compose.max_* settings as the loader's caps; print the
 * loader's warnings on stderr ("taskenv VERB: warning: ..."). TASK, when
 * not NULL, is the project name ${COMPOSE_PROJECT_NAME} interpolates to,
 * as in Compose. Owned or NULL. */
struct svc_project *cmd_compose_load(struct te_ctx *ctx, struct cmd_compose *c, const char *verb,
				     const char *task, struct te_err *err);
/* Add to C->allow the exceptions the config file grants P's directory
 * (allow:, globally and under projects:; svc_settings_allow_for). */
int cmd_compose_allow(struct te_ctx *ctx, struct cmd_compose *c, const struct svc_project *p,
		      struct te_err *err);
/* The limits and no-new-privileges applied where the file is silent, from
 * the settings (limits.*, no_new_privileges). */
int cmd_policy_defaults(struct te_ctx *ctx, struct svc_policy_defaults *d, struct te_err *err);

/* Each verb (cmd/<verb>.c): its function, its option table and the text
 * --help and the man page show; main.c's command table names all three. */
#define CMD_VERB_DECL(v)                                                                                     \
	int cmd_##v(struct te_ctx *ctx, int argc, char **argv);                                              \
	extern const struct cmd_option cmd_##v##_options[];                                                  \
	extern const char cmd_##v##_about[]
CMD_VERB_DECL(up);
CMD_VERB_DECL(config);
CMD_VERB_DECL(check);
CMD_VERB_DECL(ps);
CMD_VERB_DECL(down);
CMD_VERB_DECL(env);
CMD_VERB_DECL(logs);
CMD_VERB_DECL(exec);
CMD_VERB_DECL(run);
CMD_VERB_DECL(with);
CMD_VERB_DECL(shell);
CMD_VERB_DECL(stop);
CMD_VERB_DECL(start);
CMD_VERB_DECL(restart);
CMD_VERB_DECL(top);
CMD_VERB_DECL(ls);
CMD_VERB_DECL(version);
CMD_VERB_DECL(settings);
CMD_VERB_DECL(agents_md);
CMD_VERB_DECL(worktree_add);
CMD_VERB_DECL(worktree_remove);
extern const char cmd_worktree_about[];
CMD_VERB_DECL(mcp);
/* up from the Compose files the ledger recorded for TASK (cmd/up.c; the
 * MCP server's up tool). Prints progress on stderr only. */
int cmd_up_recorded(struct te_ctx *ctx, const char *task, struct te_err *err);
CMD_VERB_DECL(broker_start);
CMD_VERB_DECL(broker_stop);
CMD_VERB_DECL(broker_status);
extern const char cmd_broker_about[];
/* The directory brokers live under: the broker.dir setting, else the
 * runtime directory's (svc_broker_base). Owned, or NULL with *err set. */
char *cmd_broker_base(struct te_ctx *ctx, struct te_err *err);
/* Start TASK's broker on E (under the task's lock) and print its socket
 * on OUT (cmd/broker.c; also up --broker, on stderr under --json). */
int cmd_broker_start_task(struct te_ctx *ctx, struct engine *e, const char *task, FILE *out,
			  struct te_err *err);
/* The hidden --broker-serve TASK: the detached broker process itself. */
int cmd_broker_serve(struct te_ctx *ctx, const char *task);
CMD_VERB_DECL(contract);
CMD_VERB_DECL(verify);
CMD_VERB_DECL(events);
CMD_VERB_DECL(evidence);
CMD_VERB_DECL(retain);
CMD_VERB_DECL(gc);
CMD_VERB_DECL(reset);

/* The hidden `taskenv --pool-refill TEMPLATE,...` (cmd/reset.c), the
 * process `up` and `reset` start detached to refill the pools of the
 * Postgres templates they used (services/lifecycle/pgtpl.h). */
int cmd_pool_refill(struct te_ctx *ctx, char *const *templates);

/* evidence --json's document (docs/json.md) for the bundle in DIR. */
void cmd_evidence_json(const char *task, const char *dir, int verify_failed);

/* The task list of `ps` and `ls`. */
int cmd_ps_tasks(struct te_ctx *ctx, bool json);
/* `taskenv settings` and `taskenv config --show-settings`. */
int cmd_settings_show(struct te_ctx *ctx, bool json);

#endif
