/* Loading Compose files with libyaml into the model of compose.h. */
#ifndef TASKENV_SERVICES_LOAD_H
#define TASKENV_SERVICES_LOAD_H

struct te_err;
struct svc_project;

/* Find the Compose file in DIR by Compose's order: compose.yaml, compose.yml,
 * docker-compose.yaml, docker-compose.yml. Owned absolute path, or NULL with
 * TE_E_USAGE naming DIR and the names tried. */
char *svc_find_compose_file(const char *dir, struct te_err *err);

/* Load FILES (NULL-terminated, at least one) with the .env beside the
 * first file; later files are merged into earlier ones as Compose merges
 * (services by name; mappings key by key; ports appended, volumes by
 * target, depends_on and networks by key, lists of options appended
 * without duplicates; scalars replaced). Relative paths resolve against
 * the first file's directory. Every value is interpolated. Services with
 * `profiles:` are dropped unless one of them is active ($COMPOSE_PROFILES,
 * comma-separated; svc_load_profiles takes the list). Keys taskenv does
 * not know or does not act on are not errors: each gives a line in
 * project->warnings. Errors are
 * TE_E_COMPOSE with "FILE:LINE:COL: message" (YAML syntax errors from
 * libyaml's problem_mark, schema errors from the node's start_mark,
 * interpolation errors from the scalar's mark). Also TE_E_IO when a file
 * cannot be read. Returns an owned project or NULL. */
struct svc_project *svc_load(char *const *files, struct te_err *err);
/* Same, with the active PROFILES (NULL-terminated, may be NULL) instead of $COMPOSE_PROFILES. */
struct svc_project *svc_load_profiles(char *const *files, char *const *profiles, struct te_err *err);

/* Split a command string as a POSIX shell would split words (quotes and
 * backslashes, no expansion), as Compose does for `command: "a b"`.
 * Owned NULL-terminated argv, or NULL with TE_E_COMPOSE on an unterminated quote. */
char **svc_shell_split(const char *s, struct te_err *err);

/* Compose durations ("1m30s", "1.5s", "500ms"; a bare number is seconds)
 * to nanoseconds, and byte sizes ("512m", "2g", "1gb", "100k", "1024") to
 * bytes. False when S is not one. */
#include <stdbool.h>
bool svc_parse_duration(const char *s, long long *ns);
bool svc_parse_bytes(const char *s, long long *out);

#endif
