/* Reading Compose YAML with libyaml: the helpers every part of the loader
 * shares (load*.c, the key kinds key_*.c, the x-taskenv parser resources.c).
 *
 * A struct svc_yaml is one file being read: its libyaml document, the name
 * messages and locations carry, the directory relative paths hang off, the
 * variables interpolation reads, and where errors and warnings go. Every
 * int function returns 0, or -1 with TE_E_COMPOSE "FILE:LINE:COL: message"
 * in y->err (LINE:COL of the node the message is about, 1-based). Nodes are
 * borrowed from y->doc; PATH arguments name the value in messages
 * ("services.web.ports"). Scalars are interpolated when read, so every
 * value a caller gets is final. */
#ifndef TASKENV_SERVICES_MODEL_YAML_H
#define TASKENV_SERVICES_MODEL_YAML_H

#include <stdbool.h>
#include <stddef.h>
#include <yaml.h>

#include "services/model/compose.h"
#include "services/model/index.h"

struct te_err;
struct svc_env;

/* At most this many warnings are kept (then one saying how many more):
 * a hostile file must not grow them, or the time to dedup, without bound. */
#define SVC_YAML_MAX_WARNINGS 200

/* What one load tells its caller besides the model, across all its files. */
struct svc_yaml_log {
	char **warnings; /* "FILE:LINE:COL: message", owned, NULL-terminated or NULL */
	size_t n_warnings, n_dropped;
	char **unset; /* variables already warned about as unset, owned */
};

struct svc_load_ctx;

struct svc_yaml {
	yaml_document_t *doc; /* borrowed */
	const char *file;     /* borrowed; FILE in messages and in every svc_loc (must outlive the model) */
	const char *dir;      /* borrowed; relative paths (binds, build contexts, env files) */
	struct svc_env *env;  /* borrowed; interpolation variables */
	struct svc_yaml_log *log; /* borrowed; where warnings go */
	struct te_err *err;
	struct svc_load_ctx *ctx; /* borrowed; what one load shares across files (load_ctx.h), or NULL */
	/* Set by the service loader while it reads a key whose entries a merge
	 * tag may drop: the names of entries written !reset or !override are
	 * pushed here (owned by the setter). NULL: a tag on an entry is an error. */
	char ***entry_resets;
	/* Tagged nodes the loader has taken (the key's value, the entry's);
	 * the reading helpers refuse a merge tag on any other node. */
	const yaml_node_t *tag_ok[2];
};

/* ---- errors and nodes ---- */

/* "FILE:LINE:COL: message" at N into y->err; returns -1. */
int svc_yaml_err(struct svc_yaml *y, const yaml_node_t *n, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* The same for what the policy refuses in a file that parses (a server
 * image, a build network): TE_E_POLICY (exit 1, as the gate's refusals). */
int svc_yaml_refuse(struct svc_yaml *y, const yaml_node_t *n, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* Prefix the message already in y->err with N's "FILE:LINE:COL: "; returns -1. */
int svc_yaml_err_prefix(struct svc_yaml *y, const yaml_node_t *n);
/* A warning "FILE:LINE:COL: message" at N, appended to y->log (past
 * SVC_YAML_MAX_WARNINGS only counted: svc_yaml_log_finish says how many). */
void svc_yaml_warn(struct svc_yaml *y, const yaml_node_t *n, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* Append OWNED (a whole warning line) to LOG, within the cap. */
void svc_yaml_log_add(struct svc_yaml_log *log, char *owned);
/* The warnings of LOG, owned by the caller (with a last line for the ones
 * dropped); LOG is emptied. */
char **svc_yaml_log_finish(struct svc_yaml_log *log);
struct svc_loc svc_yaml_loc(const struct svc_yaml *y, const yaml_node_t *n);
/* Node INDEX of the document (libyaml's references); a missing one is a bug. */
yaml_node_t *svc_yaml_node(struct svc_yaml *y, int index);
/* Item I of sequence N (I < svc_yaml_len(N)). */
yaml_node_t *svc_yaml_item(struct svc_yaml *y, const yaml_node_t *n, size_t i);
/* Items of a sequence node, 0 for any other node. */
size_t svc_yaml_len(const yaml_node_t *n);
/* A scalar's text (borrowed, not interpolated). */
const char *svc_yaml_text(const yaml_node_t *n);
/* YAML's null: "~", "null" or nothing, unquoted, or an explicit !!null. */
bool svc_yaml_is_null(const yaml_node_t *n);
bool svc_has_prefix(const char *s, const char *prefix);

/* ---- merge tags: !reset and !override (Compose Specification, merge) ---- */

enum svc_tag { SVC_TAG_NONE, SVC_TAG_RESET, SVC_TAG_OVERRIDE };
/* The merge tag N is written with. */
enum svc_tag svc_yaml_tag(const yaml_node_t *n);
/* 0 when N carries no merge tag or is one the loader took (y->tag_ok);
 * else an error naming the tag and PATH: taskenv takes them on services,
 * service keys and entries of the mappings svc_yaml_entry reads, and never
 * ignores one. */
int svc_yaml_untagged(struct svc_yaml *y, const yaml_node_t *n, const char *path);
/* Entry NAME, of value V, of a service key's mapping: 1 when V is written
 * !reset (NAME recorded; nothing to read), 0 when it may be read (with
 * !override NAME is recorded too: the entry replaces the earlier one
 * whole), -1 when tagged where y->entry_resets is NULL. */
int svc_yaml_entry(struct svc_yaml *y, yaml_node_t *v, const char *name, const char *path);

/* ---- mappings and merge keys ---- */

/* One key of a mapping after merge keys ("<<") are applied. */
struct svc_yaml_pair {
	const char *name; /* the key's text, borrowed */
	yaml_node_t *key;
	yaml_node_t *val;
};

struct svc_yaml_map {
	struct svc_yaml_pair *v;
	size_t n;
	yaml_node_t **seen; /* mappings already merged in: aliases may repeat or cycle */
	size_t n_seen;
	struct svc_index idx; /* of v by name */
};
void svc_yaml_map_release(struct svc_yaml_map *m);
#define svc_automap __attribute__((cleanup(svc_yaml_map_release)))

/* The pairs of N, which must be a mapping ("PATH must be a mapping"):
 * keys written in N first, in file order, then merged ones N does not
 * have (YAML merge keys: own keys override merged ones; among several
 * merged mappings the first wins). A key written twice in N is an error,
 * as in Compose. Merge keys nest at most 64 deep. OUT is zeroed first and
 * must be released (svc_automap) also on error. */
int svc_yaml_map(struct svc_yaml *y, yaml_node_t *n, const char *path, struct svc_yaml_map *out);
/* The pair named NAME, borrowed, or NULL. */
struct svc_yaml_pair *svc_yaml_find(const struct svc_yaml_map *m, const char *name);

/* ---- strict keys ---- */

/* What taskenv does with a key it knows. */
enum svc_key_use {
	SVC_USE_LOAD,	/* loaded into the model */
	SVC_USE_NOOP,	/* accepted, no effect, exactly as in Compose outside Swarm */
	SVC_USE_WARN,	/* ignored with a warning: ignoring it cannot change what runs (WHY says why) */
	SVC_USE_REFUSE, /* an error: taskenv does not implement it and it changes what runs */
};

struct svc_yaml_key {
	const char *name;
	enum svc_key_use use;
	const char *why; /* WARN: why ignoring is harmless; REFUSE: an optional hint; else NULL */
};
#define SVC_KEY_LOAD(k)                                                                                      \
	{                                                                                                    \
		k, SVC_USE_LOAD, NULL                                                                        \
	}
#define SVC_KEY_NOOP(k)                                                                                      \
	{                                                                                                    \
		k, SVC_USE_NOOP, NULL                                                                        \
	}

/* Check every key of M against KEYS (ended by a NULL name): an unknown key
 * is an error "unknown key 'port' in PATH; did you mean 'ports'?" (the
 * suggestion when a known key is within Damerau-Levenshtein distance 2), a
 * REFUSE key an error naming PATH.KEY, a WARN key a warning. PATH NULL is
 * the top level. Keys starting with "x-" pass when X_OK (where the Compose
 * Specification allows extensions). Stops at the first error. */
int svc_yaml_check(struct svc_yaml *y, const struct svc_yaml_map *m, const char *path,
		   const struct svc_yaml_key *keys, bool x_ok);
/* The same for one key NAME written at node AT. */
int svc_yaml_check_key(struct svc_yaml *y, const char *name, const yaml_node_t *at, const char *path,
		       const struct svc_yaml_key *keys, bool x_ok);

/* ---- scalars ---- */

/* N's text interpolated into an owned *OUT (N must be a scalar). An unset
 * variable written without a default ($X, ${X}) warns once per load. */
int svc_yaml_interp(struct svc_yaml *y, const yaml_node_t *n, char **out);
/* A scalar, interpolated, owned; *OUT stays NULL for a YAML null. */
int svc_yaml_string(struct svc_yaml *y, const yaml_node_t *n, const char *path, char **out);
/* true/yes/on or false/no/off, any case; a null is an error. */
int svc_yaml_bool(struct svc_yaml *y, const yaml_node_t *n, const char *path, bool *out);
/* Numbers; *OUT is left alone for a YAML null. Durations in nanoseconds and
 * byte sizes in bytes, by svc_parse_duration / svc_parse_bytes (load.h). */
int svc_yaml_int(struct svc_yaml *y, const yaml_node_t *n, const char *path, long long *out);
int svc_yaml_double(struct svc_yaml *y, const yaml_node_t *n, const char *path, double *out);
int svc_yaml_bytes(struct svc_yaml *y, const yaml_node_t *n, const char *path, long long *out);
int svc_yaml_duration(struct svc_yaml *y, const yaml_node_t *n, const char *path, long long *out);

/* ---- key/value lists: environment and labels ---- */

/* How a key written without a value is read: SVC_KV_ENV takes it from the
 * variables (process, then .env, as Compose does) and drops it when unset;
 * SVC_KV_LABEL gives "". */
enum svc_kv_kind { SVC_KV_ENV, SVC_KV_LABEL };

/* A mapping KEY: VALUE or a list "KEY=VALUE" / "KEY" into *KV / *NKV: a key
 * already there gets the new value and location. Null adds nothing. */
int svc_yaml_kv(struct svc_yaml *y, enum svc_kv_kind kind, yaml_node_t *n, const char *path,
		struct svc_kv **kv, size_t *nkv);
/* Set KEY (owned) to VALUE (owned, may be NULL) in *KV, replacing its value
 * if KEY is there. Linear in *N: for a few entries (else svc_kv_set). */
void svc_kv_put(struct svc_kv **kv, size_t *n, char *key, char *value, struct svc_loc loc);

/* The same list with a hash index, so that adding many entries stays
 * linear (90,000 labels; a merge of two large lists). */
struct svc_kv_set {
	struct svc_kv **kv;
	size_t *n;
	struct svc_index idx;
};
void svc_kv_set_init(struct svc_kv_set *set, struct svc_kv **kv, size_t *n);
void svc_kv_set_put(struct svc_kv_set *set, char *key, char *value, struct svc_loc loc);
bool svc_kv_set_has(const struct svc_kv_set *set, const char *key);
void svc_kv_set_release(struct svc_kv_set *set);

/* ---- string lists ---- */

/* A sequence of strings: owned NULL-terminated *OUT (N must be a sequence). */
int svc_yaml_strings(struct svc_yaml *y, yaml_node_t *n, const char *path, char ***out);
/* A sequence, or "PATH must be a list". */
int svc_yaml_list(struct svc_yaml *y, yaml_node_t *n, const char *path, char ***out);
/* A string or a list of strings (dns, tmpfs, ...), appended to *OUT. */
int svc_yaml_strv_loose(struct svc_yaml *y, yaml_node_t *n, const char *path, char ***out);
/* command / entrypoint: a list, or a string split as the shell would. An
 * empty list or string gives an empty (non-NULL) argv, which overrides the
 * image's default just as it does in Compose; null leaves *OUT NULL. */
int svc_yaml_argv(struct svc_yaml *y, yaml_node_t *n, const char *path, char ***out);
/* The keys of a mapping or the items of a list (depends_on, networks):
 * owned *OUT, in owned *AT the node each came from (the mapping's key), in
 * owned *VALS its value in the mapping form (NULL in the list form). */
int svc_yaml_names(struct svc_yaml *y, yaml_node_t *n, const char *path, char ***out, yaml_node_t ***at,
		   yaml_node_t ***vals);
/* extra_hosts: a list of "HOST:IP" / "HOST=IP", or a mapping HOST: IP,
 * appended to *OUT as "HOST:IP". */
int svc_yaml_hosts(struct svc_yaml *y, yaml_node_t *n, const char *path, char ***out);

/* ---- paths ---- */

/* Lexically normalised absolute PATH ("." and empty segments dropped, ".."
 * eats the previous one, never above "/"); no symlinks resolved: the path
 * may not exist yet, and Compose does not resolve them either. Owned. */
char *svc_path_normalize(const char *path);
/* A bind source SRC made absolute: "~" is $HOME, relative paths hang off
 * DIR. Owned, or NULL with *WHY (static text) set. */
char *svc_path_bind_source(const char *dir, const char *src, const char **why);

#endif
