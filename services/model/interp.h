/* Compose variable interpolation: $VAR, ${VAR}, ${VAR:-default},
 * ${VAR-default}, ${VAR:?message}, ${VAR?message}, ${VAR:+alt}, ${VAR+alt},
 * and $$ for a literal '$'. Defaults may themselves contain interpolation.
 * A '$' that starts none of these ("$1", "$(cmd)") is kept as written. */
#ifndef TASKENV_SERVICES_INTERP_H
#define TASKENV_SERVICES_INTERP_H

struct te_err;

/* Variable source: returns the value (borrowed) or NULL when unset. */
typedef const char *(*svc_lookup_fn)(const char *name, void *ctx);

/* Interpolate IN into an owned *out. On error (missing required variable,
 * unterminated "${", invalid name) returns -1 with TE_E_COMPOSE and a message
 * without location (the loader prefixes file:line:col); for ${X:?need X}
 * the message is "required variable X is missing a value: need X". */
int svc_interp(const char *in, svc_lookup_fn lookup, void *ctx, char **out, struct te_err *err);

/* Called with the variable's name when $NAME or ${NAME} (no default, no
 * condition) meets an unset variable and becomes "", for the warning
 * Compose gives ("the \"NAME\" variable is not set, defaulting to a blank
 * string"); CTX is svc_interp_warn's. Once per occurrence: callers dedup. */
typedef void (*svc_unset_fn)(const char *name, void *ctx);
/* svc_interp, telling UNSET (may be NULL) of each blank substitution. */
int svc_interp_warn(const char *in, svc_lookup_fn lookup, svc_unset_fn unset, void *ctx, char **out,
		    struct te_err *err);

/* A variable environment: the process environment over a .env file. */
struct svc_env;

/* Load PATH as a .env file (KEY=VALUE lines, '#' comments, optional
 * "export ", single/double quotes; double quotes honour \n escapes) under
 * the process environment (the process wins). A missing file is not an
 * error. Syntax errors give TE_E_COMPOSE with "PATH:LINE: ...". Owned result. */
struct svc_env *svc_env_load(const char *path, struct te_err *err);
void svc_env_free(struct svc_env *env);
/* An empty environment (the process environment only). Owned. */
struct svc_env *svc_env_new(void);
/* Read PATH's variables into ENV, over the ones already there (several
 * --env-file, later wins; a value may refer to earlier ones). RAW: the
 * `format: raw` of env_file (KEY=VALUE as written). A missing file adds
 * nothing; errors as svc_env_load. */
#include <stdbool.h>
int svc_env_add_file(struct svc_env *env, const char *path, bool raw, struct te_err *err);
/* NAME is VALUE whatever the process environment or the files say
 * (COMPOSE_PROJECT_NAME: the task name). */
void svc_env_fix(struct svc_env *env, const char *name, const char *value);
/* SRC's variables copied over DST's (an include: the including project's
 * variables win over the included project's env_file). */
void svc_env_overlay(struct svc_env *dst, const struct svc_env *src);
/* The variables the files themselves define, in file order (not the
 * process environment, not fixed ones): entry I as borrowed KEY and VALUE. */
#include <stddef.h>
size_t svc_env_size(const struct svc_env *env);
void svc_env_at(const struct svc_env *env, size_t i, const char **key, const char **value);
/* Lookup function for svc_interp; CTX is a struct svc_env * (may be NULL):
 * fixed variables, then the process environment, then the files. */
const char *svc_env_lookup(const char *name, void *ctx);

#endif
