/* Inside the gate: what its files share. Nothing outside services/gate/
 * includes this file. */
#ifndef TASKENV_SERVICES_GATE_GATE_INT_H
#define TASKENV_SERVICES_GATE_GATE_INT_H

#include <stdbool.h>
#include <stddef.h>

#include "services/gate/gate.h"

struct cJSON;

/* Where a finding points: the Compose service (or network / volume key)
 * the body came from, and the loc of the field in it. */
struct gate_at {
	const struct svc_service *svc; /* borrowed or NULL */
	const char *subject;	       /* service / key / object name for the message */
	struct svc_loc loc;	       /* line 0 = unknown */
};

/* Add a finding at AT for KEY: ALLOW NULL refuses outright; a granted ALLOW
 * adds nothing. REASON is owned (taken). */
void gate_add(struct gate *g, const struct gate_at *at, const char *key, const char *allow, char *reason);

/* Who owns an engine object, from its inspect answer's labels. */
enum gate_owner {
	GATE_OWN_NONE,	 /* no io.taskenv labels: not taskenv's */
	GATE_OWN_TASK,	 /* this task of this ledger (or, with no task, this ledger) */
	GATE_OWN_OTHER,	 /* another task (of this or another ledger) */
	GATE_OWN_SHARED, /* this ledger's shared server (io.taskenv.shared) */
};
enum gate_owner gate_owner_of(const struct gate *g, const struct cJSON *obj);
/* Look REF of KIND up and judge its owner; *obj (may be NULL) owned.
 * -1 when there is no lookup (check) or it failed; NOTFOUND sets *missing. */
int gate_lookup_owner(struct gate *g, const char *kind, const char *ref, enum gate_owner *out,
		      struct cJSON **obj, bool *missing);

/* One host path reaching the engine (a bind source, a volume's device, a
 * file taskenv reads for the task): AS_WRITTEN, resolved with every
 * symlink followed, must lie inside the boundary or a trusted path:, not
 * be an engine socket or a directory above one. READ_ONLY: the mount is
 * read-only (/etc/localtime and /etc/timezone are allowed as written
 * then). Returns 0 when allowed. */
int gate_host_path(struct gate *g, const struct gate_at *at, const char *key, const char *as_written,
		   bool read_only);
/* realpath of the longest existing prefix of the absolute PATH, the rest
 * appended lexically. Owned. */
char *gate_resolve(const char *path);
/* PATH is DIR or below it. */
bool gate_within(const char *path, const char *dir);

/* The host variable NAME (its first N bytes) looks like a credential
 * (*_TOKEN, *_KEY, *SECRET*, *PASSWORD*, AWS_*, SSH_AUTH_SOCK, ...). */
bool gate_credential_name(const char *name, size_t n);

/* The request judges (fields.c, objects.c). Each adds findings. */
void gate_container_create(struct gate *g, const struct cJSON *body);
void gate_network_create(struct gate *g, const struct cJSON *body);
void gate_volume_create(struct gate *g, const struct cJSON *body);
void gate_build(struct gate *g, const char *query);
void gate_exec_create(struct gate *g, const char *container, const struct cJSON *body);
void gate_network_connect(struct gate *g, const char *network, const struct cJSON *body);
/* A start or restart of a container: its live binds judged again. */
void gate_container_start(struct gate *g, const struct cJSON *inspect);
/* io.taskenv.* labels of LABELS: only the ones taskenv sets, with this
 * task's values (SHARED: a shared server's). */
/* The host credential variable whose value VALUE carries, or NULL
 * (owned); gate_credentials finds one in any string of V. */
char *gate_credential_in(const char *value);
void gate_credentials(struct gate *g, const struct gate_at *at, const char *key, const struct cJSON *v);
void gate_labels(struct gate *g, const struct gate_at *at, const struct cJSON *labels, bool shared);
/* The io.taskenv. labels BODY's image carries that BODY does not replace
 * (an engine lookup; nothing without one). */
void gate_image_labels(struct gate *g, const struct gate_at *at, const struct cJSON *body);
/* The network NAME as a container's NetworkMode / endpoint / connect
 * target: this task's, or an external one granted. */
void gate_network_use(struct gate *g, const struct gate_at *at, const char *key, const char *name);
/* The same for a named volume of Binds. */
void gate_volume_use(struct gate *g, const struct gate_at *at, const char *key, const char *name);

/* NAME is a container of this task: by its labels when it exists, else
 * one the plan makes. */
bool gate_task_container(struct gate *g, const char *name);

/* Fields of one Engine object: NAME and its rule. A field of the body not
 * in the table is refused. */
struct gate_field {
	const char *name;
	const char *compose_key; /* for the finding's KEY; NULL: the Engine name */
	int svc_key;		 /* enum svc_key for the loc, -1 none */
	void (*rule)(struct gate *g, const struct gate_at *at, const struct gate_field *f,
		     const struct cJSON *v); /* NULL: any value */
};
/* Judge every member of OBJ against TABLE (N rows). */
void gate_fields(struct gate *g, const struct gate_at *at, const struct gate_field *table, size_t n,
		 const char *where, const struct cJSON *obj);
/* AT for field F of the service in AT (its key_loc). */
struct gate_at gate_at_field(const struct gate_at *at, const struct gate_field *f);

#endif
