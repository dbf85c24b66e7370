/* The operations behind each kind of service key (enum svc_kind, keys.h):
 * how a value of that kind is read, released, merged and printed. keys.c
 * runs them over the table; the simple kinds live there, each compound kind
 * in its own file beside its loader (key_ports.c, key_mounts.c,
 * key_build.c, key_service.c, key_files.c). Internal to services/model/. */
#ifndef TASKENV_SERVICES_MODEL_KINDS_H
#define TASKENV_SERVICES_MODEL_KINDS_H

#include <stdbool.h>
#include <stddef.h>

#include "services/model/compose.h"
#include "services/model/keys.h"
#include "services/model/yaml.h"

struct cJSON;
struct svc_plan_container;

struct svc_kind_ops {
	/* Read N, the value of key K, into S (for a kind without a member:
	 * into the members it fills); PATH is "services.NAME.KEY". */
	int (*load)(struct svc_yaml *y, struct svc_service *s, const struct svc_key_desc *k, yaml_node_t *n,
		    const char *path);
	/* Free what the member owns; keys.c zeroes (re-inits) it afterwards. NULL: owns nothing. */
	void (*release)(struct svc_service *s, const struct svc_key_desc *k);
	/* Unwritten state other than all-zero (TRI: SVC_UNSET). NULL: zero. */
	void (*init)(struct svc_service *s, const struct svc_key_desc *k);
	/* Does S hold a value (REPLACE / OVERRIDE take SRC's member only then)? */
	bool (*is_set)(const struct svc_service *s, const struct svc_key_desc *k);
	/* The kind's own rule (MERGE below): SRC's member into DST's, SRC's emptied. */
	void (*merge)(struct svc_service *dst, struct svc_service *src, const struct svc_key_desc *k);
	enum svc_merge rule; /* what merge implements, SVC_MERGE_NONE without */
	/* Remove entry NAME from S's member (a `!reset` on a mapping's entry);
	 * NULL: the kind has no named entries (a tag there is refused). */
	void (*drop)(struct svc_service *s, const struct svc_key_desc *k, const char *name);
	/* Add key K of S to the `config` object O (nothing when unset); C is
	 * S's planned container (names, image, aliases). NULL: prints nothing. */
	void (*emit)(struct cJSON *o, const struct svc_key_desc *k, const struct svc_service *s,
		     const struct svc_plan_container *c);
};

extern const struct svc_kind_ops svc_kind_ports;
extern const struct svc_kind_ops svc_kind_mounts;
extern const struct svc_kind_ops svc_kind_build;
extern const struct svc_kind_ops svc_kind_deps;
extern const struct svc_kind_ops svc_kind_nets;
extern const struct svc_kind_ops svc_kind_health;
extern const struct svc_kind_ops svc_kind_deploy;
extern const struct svc_kind_ops svc_kind_scale;
extern const struct svc_kind_ops svc_kind_refs;
extern const struct svc_kind_ops svc_kind_env_file;
extern const struct svc_kind_ops svc_kind_ulimits;
extern const struct svc_kind_ops svc_kind_extends;

/* Read key K of service S from value N, by its kind (load_service.c). */
int svc_key_load(struct svc_yaml *y, struct svc_service *s, const struct svc_key_desc *k, yaml_node_t *n,
		 const char *path);
/* Does K's kind have named entries a `!reset` can drop? */
bool svc_key_drops(const struct svc_key_desc *k);

/* The member of row K in S, and its count (counted kinds only). */
#define SVC_MEMBER(s, k, type) ((type *)((char *)(s) + (k)->off))
#define SVC_COUNT(s, k) ((size_t *)((char *)(s) + (k)->n_off))

/* ---- merge helpers, for the kinds and merge.c: SRC is emptied ---- */

/* REPLACE for one string: SRC's when set. */
void svc_merge_str(char **dst, char **src);
/* MAPPING for a key/value list: by key, a later value in the earlier's place. */
void svc_merge_kv(struct svc_kv **dst, size_t *nd, struct svc_kv **src, size_t *ns);
/* SEQUENCE for a string list: SRC's entries DST lacks, appended. */
void svc_merge_strv(char ***dst, char ***src);
/* Drop KEY from a key/value list (nothing when absent). */
void svc_kv_drop(struct svc_kv *kv, size_t *n, const char *key);

/* ---- `config` output helpers (cJSON), for the kinds and config.c ---- */

/* Each adds KEY to O only when there is something to print. */
void svc_json_add_str(struct cJSON *o, const char *key, const char *v);
void svc_json_add_strv(struct cJSON *o, const char *key, char *const *v);
void svc_json_add_kv(struct cJSON *o, const char *key, const struct svc_kv *v, size_t n);
void svc_json_add_tri(struct cJSON *o, const char *key, int v);
void svc_json_add_num(struct cJSON *o, const char *key, double v);
/* A duration as Go's time.Duration prints it ("1m30s"), as Compose shows it. */
void svc_json_add_dur(struct cJSON *o, const char *key, long long ns);
/* A string array (possibly empty) and a KEY: VALUE object; owned cJSON. */
struct cJSON *svc_json_strv(char *const *v);
struct cJSON *svc_json_kv(const struct svc_kv *v, size_t n);

#endif
