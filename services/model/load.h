/* Loading Compose files with libyaml into the model of compose.h. */
#ifndef TASKENV_SERVICES_LOAD_H
#define TASKENV_SERVICES_LOAD_H

#include <stdbool.h>

struct te_err;
struct svc_project;

/* Find the Compose file in DIR by Compose's order: compose.yaml, compose.yml,
 * docker-compose.yml, docker-compose.yaml. Owned absolute path, or NULL with
 * TE_E_USAGE naming DIR and the names tried. */
char *svc_find_compose_file(const char *dir, struct te_err *err);
/* The default override file beside it (compose.override.yml,
 * compose.override.yaml, docker-compose.override.yml,
 * docker-compose.override.yaml, the first found), owned, or NULL. */
char *svc_find_override_file(const char *dir);

/* Set the replicas of service NAME to N (up --scale NAME=N): TE_E_USAGE
 * when P has no such service or N is outside 0..SVC_MAX_REPLICAS. */
int svc_project_scale(struct svc_project *p, const char *name, long long n, struct te_err *err);

/* The caps of one load: each, passed, is an error naming the cap and its
 * setting. Below them the loader is linear in its input. */
struct svc_load_limits {
	long long max_bytes; /* per file (compose.max_bytes, TASKENV_COMPOSE_MAX_BYTES) */
	long long max_depth; /* mappings and lists nested (compose.max_depth, TASKENV_COMPOSE_MAX_DEPTH) */
	long long max_nodes; /* YAML nodes of all files together, an alias counting as the
			      * nodes it repeats (compose.max_nodes, TASKENV_COMPOSE_MAX_NODES) */
};
#define SVC_LOAD_MAX_BYTES (32LL << 20)
#define SVC_LOAD_MAX_DEPTH 100LL
#define SVC_LOAD_MAX_NODES 4000000LL

/* What to load. */
struct svc_load_opts {
	/* -f files, NULL-terminated; NULL: COMPOSE_FILE (the environment, else
	 * the .env, split on COMPOSE_PATH_SEPARATOR, default ':'; from the .env
	 * they must lie inside DIR), else Compose's default file in DIR and
	 * its default override file (compose.override.yml, ...). Borrowed. */
	char *const *files;
	char *const *profiles; /* active profiles, NULL-terminated; NULL = COMPOSE_PROFILES (the
				* environment, else the .env; comma-separated); "*" enables all */
	/* --env-file, NULL-terminated, later ones winning; NULL: the .env of
	 * the first -f file's directory (DIR without -f), skipped when it is
	 * not a regular file. The process environment wins over them. */
	char *const *env_files;
	/* ${COMPOSE_PROJECT_NAME}: the task name, whatever the environment or
	 * a .env says (NULL: left to them). */
	const char *project_name;
	const char *dir;	       /* where to look without -f; NULL: the current directory */
	struct svc_load_limits limits; /* zeros: SVC_LOAD_MAX_* */
};

/* Load the files (O->files, or as described there) with their variables:
 * later files are merged into earlier ones key by key, each by its rule in
 * the key table (keys.h: scalars replaced, mappings by key, sequences
 * appended without duplicates, ports/volumes/secrets/configs unique by
 * their key, command and entrypoint replaced whole; `!reset` and
 * `!override` as the merge document says). Relative paths resolve against
 * the first file's directory, the project directory. `extends` and
 * `include` are followed (their files must lie inside the project
 * directory; cycles refused). Every value is interpolated. Services with
 * `profiles:` are dropped unless one of them is active.
 *
 * Strict as Compose v2 is: an unknown key is an error naming it with
 * "did you mean" when a known key is close; a key taskenv does not
 * implement is an error when ignoring it could change what runs. Errors are
 * TE_E_COMPOSE with "FILE:LINE:COL: message" (YAML syntax errors from
 * libyaml's problem_mark, schema errors from the node's start_mark,
 * interpolation errors from the scalar's mark), TE_E_USAGE when no file is
 * found, or TE_E_IO when a file cannot be read.
 *
 * *WARNINGS receives, also when loading fails, every warning as
 * "FILE:LINE:COL: message" (owned, NULL-terminated, or NULL when none): the
 * obsolete version:, an unset variable without a default (once per
 * variable), and the keys taskenv ignores because they cannot change what
 * runs. The project's own ->warnings stays NULL. Returns an owned project
 * or NULL. */
struct svc_project *svc_load_project(const struct svc_load_opts *o, char ***warnings, struct te_err *err);

/* svc_load_project of FILES with COMPOSE_PROFILES, the warnings in
 * project->warnings (lost when loading fails). */
struct svc_project *svc_load(char *const *files, struct te_err *err);
/* Same, with the active PROFILES (NULL-terminated, may be NULL: none). */
struct svc_project *svc_load_profiles(char *const *files, char *const *profiles, struct te_err *err);

/* Split a command string as a POSIX shell would split words (quotes and
 * backslashes, no expansion), as Compose does for `command: "a b"`.
 * Owned NULL-terminated argv, or NULL with TE_E_COMPOSE on an unterminated quote. */
char **svc_shell_split(const char *s, struct te_err *err);

/* Compose durations ("1m30s", "1.5s", "500ms"; a bare number is seconds)
 * to nanoseconds, and byte sizes ("512m", "2g", "1gb", "100k", "1024") to
 * bytes. False when S is not one. */
bool svc_parse_duration(const char *s, long long *ns);
bool svc_parse_bytes(const char *s, long long *out);

#endif
