/* Loading Compose files with libyaml into the model of compose.h. */
#ifndef TASKENV_SERVICES_LOAD_H
#define TASKENV_SERVICES_LOAD_H

#include <stdbool.h>

struct te_err;
struct svc_project;

/* Find the Compose file in DIR by Compose's order: compose.yaml, compose.yml,
 * docker-compose.yaml, docker-compose.yml. Owned absolute path, or NULL with
 * TE_E_USAGE naming DIR and the names tried. */
char *svc_find_compose_file(const char *dir, struct te_err *err);

/* What to load. (Phase 2 of the model adds env files, the project name
 * and the default override file here.) */
struct svc_load_opts {
	char *const *files;    /* NULL-terminated, at least one; borrowed */
	char *const *profiles; /* active profiles, NULL-terminated; NULL = $COMPOSE_PROFILES
				* (comma-separated); "*" enables all */
};

/* Load O->files with the .env beside the first file; later files are
 * merged into earlier ones key by key, each by its rule in the key table
 * (keys.h: scalars replaced, mappings by key, sequences appended without
 * duplicates, ports/volumes/secrets/configs unique by their key, command
 * and entrypoint replaced whole). Relative paths resolve against the first
 * file's directory. Every value is interpolated. Services with `profiles:`
 * are dropped unless one of them is active.
 *
 * Strict as Compose v2 is: an unknown key is an error naming it with
 * "did you mean" when a known key is close; a key taskenv does not
 * implement is an error when ignoring it could change what runs. Errors are
 * TE_E_COMPOSE with "FILE:LINE:COL: message" (YAML syntax errors from
 * libyaml's problem_mark, schema errors from the node's start_mark,
 * interpolation errors from the scalar's mark), or TE_E_IO when a file
 * cannot be read.
 *
 * *WARNINGS receives, also when loading fails, every warning as
 * "FILE:LINE:COL: message" (owned, NULL-terminated, or NULL when none): the
 * obsolete version:, an unset variable without a default (once per
 * variable), and the keys taskenv ignores because they cannot change what
 * runs. The project's own ->warnings stays NULL. Returns an owned project
 * or NULL. */
struct svc_project *svc_load_project(const struct svc_load_opts *o, char ***warnings, struct te_err *err);

/* svc_load_project with $COMPOSE_PROFILES, the warnings in project->warnings
 * (lost when loading fails). */
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
