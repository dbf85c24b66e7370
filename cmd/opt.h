/* The verbs' option tables (git's parse-options.h): each verb declares its
 * options once, in a static array next to its code, naming the field of
 * the verb's own options struct each one fills. From that one declaration
 * come the getopt_long parsing (cmd_parse), `taskenv VERB --help`, the
 * usage line of every bad-flag message, the man page and the bash and zsh
 * completions (cmd/gen.c). docs/internals/EXTENDING.md: "A new flag".
 *
 *   struct ps_opts { const char *task; bool json; };
 *   const struct cmd_option cmd_ps_options[] = {
 *       CMD_OPT_TASK(struct ps_opts, task),
 *       CMD_OPT_JSON(struct ps_opts, json),
 *       CMD_OPT_END,
 *   };
 *
 * -h/--help is added to every table by the parser. The completions pick an
 * argument's completer from its name: TASK (task names), FILE and PATH
 * (files), DIR (directories), SERVICE (service names of the task), and an
 * option with choices offers them. */
#ifndef TASKENV_CMD_OPT_H
#define TASKENV_CMD_OPT_H

#include <stdbool.h>
#include <stddef.h>

struct te_err;
struct cmd_option;

/* Store one occurrence of option O: ARG is its argument (NULL when it takes
 * none), DST the field at O->offset. Returns 0, or -1 with ERR saying what
 * the value should be (the caller names the option and prints the usage). */
typedef int (*cmd_opt_fn)(const struct cmd_option *o, const char *arg, void *dst, struct te_err *err);

enum {
	CMD_OPT_REPEAT = 1 << 0,   /* may be given more than once ("[-f FILE]...") */
	CMD_OPT_HIDDEN = 1 << 1,   /* parsed, but in no help, man page or completion */
	CMD_OPT_REQUIRED = 1 << 2, /* must be given ("-t TASK" without brackets) */
};

struct cmd_option {
	const char *name;    /* long name without "--"; NULL ends a table */
	int letter;	     /* short option, or 0 */
	const char *arg;     /* argument name ("TASK"), or NULL: the option takes none */
	const char *help;    /* what it does; '\n' starts a new line in --help */
	cmd_opt_fn set;	     /* stores the value */
	size_t offset;	     /* of the value in the verb's options struct */
	const char *choices; /* "local|all": the values cmd_opt_choice accepts, else NULL */
	unsigned flags;	     /* CMD_OPT_* */
};

/* The setters behind the macros below. Lists are owned by the verb's
 * struct (te_strv_free); strings are borrowed from argv. */
int cmd_opt_flag(const struct cmd_option *o, const char *arg, void *dst, struct te_err *err);
int cmd_opt_string(const struct cmd_option *o, const char *arg, void *dst, struct te_err *err);
int cmd_opt_list(const struct cmd_option *o, const char *arg, void *dst, struct te_err *err);
int cmd_opt_csv(const struct cmd_option *o, const char *arg, void *dst, struct te_err *err);
int cmd_opt_kv(const struct cmd_option *o, const char *arg, void *dst, struct te_err *err);
int cmd_opt_seconds(const struct cmd_option *o, const char *arg, void *dst, struct te_err *err);
int cmd_opt_duration(const struct cmd_option *o, const char *arg, void *dst, struct te_err *err);
int cmd_opt_pid(const struct cmd_option *o, const char *arg, void *dst, struct te_err *err);
int cmd_opt_choice(const struct cmd_option *o, const char *arg, void *dst, struct te_err *err);

/* offsetof(TYPE, FIELD), and a compile error unless FIELD has type CTYPE:
 * a table cannot store a bool into a string. */
#define CMD_FIELD(type, field, ctype)                                                                        \
	(offsetof(type, field) +                                                                             \
	 0 * sizeof(char[__builtin_types_compatible_p(__typeof__(((type *)0)->field), ctype) ? 1 : -1]))

/* --NAME (and -L): sets a bool. */
#define CMD_OPT_FLAG(l, name, type, field, help)                                                             \
	{                                                                                                    \
		name, l, NULL, help, cmd_opt_flag, CMD_FIELD(type, field, bool), NULL, 0                     \
	}
/* --NAME ARG: a const char * borrowed from argv; the last one wins. */
#define CMD_OPT_STRING(l, name, arg, type, field, help)                                                      \
	{                                                                                                    \
		name, l, arg, help, cmd_opt_string, CMD_FIELD(type, field, const char *), NULL, 0            \
	}
/* The same, and the option must be given. */
#define CMD_OPT_REQUIRED_STRING(l, name, arg, type, field, help)                                             \
	{                                                                                                    \
		name, l, arg, help, cmd_opt_string, CMD_FIELD(type, field, const char *), NULL,              \
		    CMD_OPT_REQUIRED                                                                         \
	}
/* --NAME ARG, repeatable: each pushed onto an owned char ** (NULL-terminated). */
#define CMD_OPT_LIST(l, name, arg, type, field, help)                                                        \
	{                                                                                                    \
		name, l, arg, help, cmd_opt_list, CMD_FIELD(type, field, char **), NULL, CMD_OPT_REPEAT      \
	}
/* The same, each argument split at commas ("--allow a,b --allow c"). */
#define CMD_OPT_CSV(l, name, arg, type, field, help)                                                         \
	{                                                                                                    \
		name, l, arg, help, cmd_opt_csv, CMD_FIELD(type, field, char **), NULL, CMD_OPT_REPEAT       \
	}
/* --NAME K=V, repeatable, into an owned char **; an argument without '=' is refused. */
#define CMD_OPT_KV(l, name, type, field, help)                                                               \
	{                                                                                                    \
		name, l, "K=V", help, cmd_opt_kv, CMD_FIELD(type, field, char **), NULL, CMD_OPT_REPEAT      \
	}
/* --NAME SECONDS: a whole number >= 0 into an int. */
#define CMD_OPT_SECONDS(l, name, type, field, help)                                                          \
	{                                                                                                    \
		name, l, "SECONDS", help, cmd_opt_seconds, CMD_FIELD(type, field, int), NULL, 0              \
	}
/* --NAME DURATION (30s, 5m, 2h, 1d) into long long seconds. */
#define CMD_OPT_DURATION(l, name, type, field, help)                                                         \
	{                                                                                                    \
		name, l, "DURATION", help, cmd_opt_duration, CMD_FIELD(type, field, long long), NULL, 0      \
	}
#define CMD_OPT_REQUIRED_DURATION(l, name, type, field, help)                                                \
	{                                                                                                    \
		name, l, "DURATION", help, cmd_opt_duration, CMD_FIELD(type, field, long long), NULL,        \
		    CMD_OPT_REQUIRED                                                                         \
	}
/* --NAME PID: a process id > 0 into a long long. */
#define CMD_OPT_PID(l, name, type, field, help)                                                              \
	{                                                                                                    \
		name, l, "PID", help, cmd_opt_pid, CMD_FIELD(type, field, long long), NULL, 0                \
	}
/* --NAME one of CHOICES ("local|all"), a const char * borrowed from argv. */
#define CMD_OPT_CHOICE(l, name, choices, type, field, help)                                                  \
	{                                                                                                    \
		name, l, choices, help, cmd_opt_choice, CMD_FIELD(type, field, const char *), choices, 0     \
	}
/* Anything else: FN stores into a field of type CTYPE. */
#define CMD_OPT_CALLBACK(l, name, arg, fn, type, field, ctype, help)                                         \
	{                                                                                                    \
		name, l, arg, help, fn, CMD_FIELD(type, field, ctype), NULL, 0                               \
	}
#define CMD_OPT_END                                                                                          \
	{                                                                                                    \
		NULL, 0, NULL, NULL, NULL, 0, NULL, 0                                                        \
	}

/* What every task verb has, with the same words everywhere. */
#define CMD_TASK_HELP "task name (default: $TASKENV_TASK, else the git branch and a hash of the checkout)"
#define CMD_OPT_TASK(type, field) CMD_OPT_STRING('t', "task", "TASK", type, field, CMD_TASK_HELP)
#define CMD_OPT_JSON(type, field)                                                                            \
	CMD_OPT_FLAG(0, "json", type, field, "print JSON (the shapes: docs/json.md)")

/* -h/--help, which cmd_opt_parse adds to every table. */
extern const struct cmd_option cmd_help_option;

/* Number of entries of TABLE before CMD_OPT_END. */
size_t cmd_opt_count(const struct cmd_option *table);

/* getopt_long over ARGV (ARGV[0] is the verb) with TABLE plus -h/--help,
 * storing into OPTS (the verb's struct, defaults already in it). With
 * ARGS_FIRST the options end at the first argument (getopt's '+'), else
 * options and arguments may mix. Returns the index of the first argument;
 * *HELP true when -h/--help was given (parsing stops there). -1 with
 * TE_E_USAGE naming the flag: unknown (with "did you mean" for a near
 * miss), ambiguous, missing or unexpected value, what the setter refused,
 * or a CMD_OPT_REQUIRED option not given. */
int cmd_opt_parse(const struct cmd_option *table, bool args_first, int argc, char **argv, void *opts,
		  bool *help, struct te_err *err);

/* ARGS (a verb's usage arguments, "SERVICE [--] CMD [ARG...]") as counts:
 * the words outside brackets are required, "..." makes *MAX -1 (no limit);
 * "--" is not counted. */
void cmd_args_count(const char *args, int *min, int *max);

/* Rendering, shared by --help and cmd/gen.c. Owned strings:
 * "[-t TASK]" / "[--wait]" / "[-f FILE]..." and "  -t, --task TASK". */
char *cmd_opt_synopsis_item(const struct cmd_option *o);
char *cmd_opt_left(const struct cmd_option *o);

#endif
