/* taskenv's own settings, every one in one table (services/settings.c):
 * its name, its key in the config file, its environment variable, its
 * default and the parser that checks it. Values come from the default,
 * then the config file ($TASKENV_CONFIG, else
 * $XDG_CONFIG_HOME/taskenv/config.yaml, else ~/.config/taskenv/config.yaml;
 * a missing file is fine), then the variable (the environment wins). Each
 * value remembers where it came from, for `taskenv settings`. Nothing else
 * in taskenv reads a setting from the environment: cmd/ loads them once
 * (cmd_get_settings) and hands the values on.
 *
 * The file is YAML (libyaml), a mapping; dotted names nest:
 *   port_range: 21000-21999
 *   subnet_pool: 10.200.0.0/16
 *   engine: unix:///run/user/1000/podman/podman.sock
 *   limits: {cpus: "2", memory: 512m, pids: "512"}
 *   allow: [engine-socket]               # list settings take a sequence
 *   projects:                            # per-project settings, by absolute directory
 *     /home/me/src/app: {allow: [host-network]}
 * Unknown keys, a list or mapping where one value belongs, a setting that
 * cannot be per project under projects:, a duplicate key and a value its
 * parser refuses are errors (TE_E_USAGE, "FILE:LINE:COL: ..."), so a typo
 * never silently does nothing. A bad variable is an error naming it.
 *
 * A new setting (docs/internals/EXTENDING.md): an id below and its row in
 * the table, with a parser; read it with svc_settings_at(). */
#ifndef TASKENV_SERVICES_SETTINGS_H
#define TASKENV_SERVICES_SETTINGS_H

#include <stdbool.h>
#include <stddef.h>

struct te_err;

enum svc_setting_id {
	SVC_SET_PORT_RANGE,	   /* num..num2: host ports up may publish */
	SVC_SET_SUBNET_POOL,	   /* text: CIDR task networks take subnets from ("" = built-in) */
	SVC_SET_SUBNET_PREFIX,	   /* num: prefix length of each task network */
	SVC_SET_ENGINE,		   /* text: unix://PATH used when nothing more explicit chose */
	SVC_SET_STATE,		   /* text: the ledger file ("" = $XDG_STATE_HOME/taskenv/state.db) */
	SVC_SET_TASK,		   /* text: default task name (environment only) */
	SVC_SET_WORKTREE_PREFIX,   /* text: branch prefix of task worktrees */
	SVC_SET_LIMIT_CPUS,	   /* real: default cpus per container, 0 = none */
	SVC_SET_LIMIT_MEMORY,	   /* num: default memory per container in bytes, 0 = none */
	SVC_SET_LIMIT_PIDS,	   /* num: default pids limit per container, 0 = none */
	SVC_SET_NO_NEW_PRIVILEGES, /* num 0/1: add no-new-privileges:true unless the file says */
	SVC_SET_WAIT_TIMEOUT,	   /* num: seconds each health/completion wait may take */
	SVC_SET_ALLOW,		   /* list: policy exceptions granted everywhere (also per project) */
	SVC_SET_COMPOSE_MAX_BYTES, /* num: largest Compose file the loader reads, bytes */
	SVC_SET_COMPOSE_MAX_DEPTH, /* num: deepest nesting of mappings and lists in one */
	SVC_SET_COMPOSE_MAX_NODES, /* num: most YAML nodes of one load (aliases as what they repeat) */
	SVC_SET_POOL_SIZE,	   /* num: spare databases per built Postgres template, 0 = no pool */
	SVC_SET_TEMPLATE_GC_AGE,   /* num: seconds a built template may go unused before gc removes it */
	/* text: the image of each driver's server container ("" = taskenv's
	 * own, drivers/driver.h drv_shared.image); never from a Compose file */
	SVC_SET_SHARED_IMAGE_POSTGRES,
	SVC_SET_SHARED_IMAGE_RABBITMQ,
	SVC_SET_SHARED_IMAGE_S3,
	SVC_SET_BROKER_DIR, /* text: where brokers' sockets live ("" = $XDG_RUNTIME_DIR/taskenv, ...) */
	SVC_SETTINGS_N
};

struct svc_setting;

enum {
	SVC_SETTING_LIST = 1 << 0,    /* a sequence in the file (or "a,b"), "a,b" in the variable */
	SVC_SETTING_PROJECT = 1 << 1, /* may also be set under projects: {DIR: {...}} */
};

/* One row of the table (static). */
struct svc_setting_def {
	const char *name;  /* "limits.memory": shown by `taskenv settings`, taken by svc_settings_get */
	const char *key;   /* its path in the file ("limits.memory" is limits: {memory: ...}); NULL: none */
	const char *env;   /* its variable; NULL: none */
	const char *alias; /* an older variable still honoured when ENV is unset; NULL: none */
	const char *def;   /* default text, parsed like any value ("" = unset) */
	/* Check TEXT and fill OUT's num/num2/real/list; -1 with WHY (N bytes)
	 * saying what is expected. */
	int (*parse)(const char *text, struct svc_setting *out, char *why, size_t n);
	unsigned flags; /* SVC_SETTING_* */
	const char *help;
};

struct svc_setting {
	const struct svc_setting_def *def; /* static */
	char *text;			   /* owned: the value as given; "" when unset */
	long long num, num2;		   /* parsed (see the ids); num2: a range's upper end */
	double real;			   /* parsed (cpus) */
	char **list;			   /* parsed list: owned, NULL-terminated; NULL when empty */
	const char *source;		   /* "default", "config file" or "environment"; NULL: not set here */
	const char *var;		   /* the variable it came from (static), when from the environment */
};

/* The per-project settings of one projects: entry. */
struct svc_settings_project {
	char *dir;  /* owned: as written (absolute) */
	char *real; /* owned: realpath of DIR, or DIR when it does not resolve */
	struct svc_setting items[SVC_SETTINGS_N]; /* only SVC_SETTING_PROJECT ones, source NULL when unset */
};

struct svc_settings {
	char *file;	  /* owned: the config file path consulted */
	bool file_exists; /* whether it was there and read */
	struct svc_setting items[SVC_SETTINGS_N];
	struct svc_settings_project *projects; /* owned, N_PROJECTS of them */
	size_t n_projects;
};

/* The table row of ID (static). */
const struct svc_setting_def *svc_setting_def(enum svc_setting_id id);

/* Fill S (caller-owned, released with svc_settings_release even on
 * failure). Errors: TE_E_USAGE (bad file content or value, naming the file
 * position or the variable), TE_E_IO (file unreadable). */
int svc_settings_load(struct svc_settings *s, struct te_err *err);
void svc_settings_release(struct svc_settings *s);

/* The global value of ID (borrowed). */
const struct svc_setting *svc_settings_at(const struct svc_settings *s, enum svc_setting_id id);
/* Borrowed text of the setting named NAME ("" when unset); NULL for an unknown name. */
const char *svc_settings_get(const struct svc_settings *s, const char *name);
/* Source of NAME's value, as above; NULL for an unknown name. */
const char *svc_settings_source(const struct svc_settings *s, const char *name);

/* The value of list setting ID for a project: the global list, then the
 * entries of the projects: key that names PROJECT_DIR (compared after
 * realpath of both), without repeats. Owned NULL-terminated array
 * (te_strv_free), NULL when empty. */
char **svc_settings_list_for(const struct svc_settings *s, enum svc_setting_id id, const char *project_dir);
/* The policy exceptions the trusted config grants PROJECT_DIR (allow:,
 * globally and under projects:), as above. The names are checked by the
 * policy that grants them, not here. */
char **svc_settings_allow_for(const struct svc_settings *s, const char *project_dir);

#endif
