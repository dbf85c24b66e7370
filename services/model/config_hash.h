/* The configuration hash `up` compares (docs/up.md): what a container was
 * created from, so `up` can tell an unchanged container from a changed one
 * without reading the engine's defaults back. Pure: no engine, no ledger. */
#ifndef TASKENV_SERVICES_MODEL_CONFIG_HASH_H
#define TASKENV_SERVICES_MODEL_CONFIG_HASH_H

struct cJSON;

/* Labels `up` writes on each container, network and volume it creates. */
#define SVC_LABEL_CONFIG_HASH "io.taskenv.config-hash"
/* Short hashes per part of the configuration ("command=1a2b3c4d,env=..."),
 * so `up` can say what changed. */
#define SVC_LABEL_CONFIG_PARTS "io.taskenv.config-parts"
/* Compose's label: the image the container was created from. */
#define SVC_LABEL_COMPOSE_IMAGE "com.docker.compose.image"

/* The hash of BODY (an Engine create body, borrowed: the plan's output
 * with everything a run adds, such as injected driver values), IMAGE_ID
 * (the engine's id of the image the container runs, borrowed, may be NULL
 * for networks and volumes) and EXTRA (more
 * networks the container is connected to after create, NULL-terminated,
 * may be NULL). Left out: the labels taskenv and Compose write themselves
 * (com.docker.compose.*, io.taskenv.*), which name the task, the ledger and
 * the files rather than what runs, and fields that are empty (false, "",
 * {}, [], null: as if not written). Returns the SHA-256 in hex (owned);
 * *PARTS (owned, may be NULL to skip) gets "WORD=HASH8,..." per part, the
 * words those of svc_config_changes. */
char *svc_config_hash(const struct cJSON *body, const char *image_id, char *const *extra, char **parts);

/* What differs between two PARTS strings, as words joined by ", "
 * ("env, command"), in the order of NEW_PARTS, then parts only OLD_PARTS had.
 * Owned; "configuration" when OLD_PARTS is NULL (a container created before
 * taskenv wrote the label), NULL when nothing differs. */
char *svc_config_changes(const char *old_parts, const char *new_parts);

#endif
