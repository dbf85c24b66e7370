/* Reading services: each key of a service by its row of the key table
 * (keys.h), every other key checked against the Compose Specification's
 * list (an error for a typo or for a key taskenv does not implement that
 * changes what runs, a warning for the few that cannot). Used by load.c for
 * `services:`; extends (issue 19) reads the service it extends with it. */
#ifndef TASKENV_SERVICES_MODEL_LOAD_SERVICE_H
#define TASKENV_SERVICES_MODEL_LOAD_SERVICE_H

#include <stdbool.h>
#include <yaml.h>

struct svc_yaml;
struct svc_yaml_pair;
struct svc_project;
struct svc_service;

/* Compose's schema pattern for service, volume and network names: [a-zA-Z0-9._-]+. */
bool svc_valid_name(const char *name);

/* Service SP (its name and value) into S, which must be zeroed; S owns
 * what it holds also on error. P gives x-taskenv's resources (loaded first). */
int svc_load_service(struct svc_yaml *y, const struct svc_project *p, struct svc_service *s,
		     const struct svc_yaml_pair *sp);

/* `services:` (N its value, KEY its key: "no services defined" points
 * there) into P->services; keys starting with "x-" are skipped. */
int svc_load_services(struct svc_yaml *y, struct svc_project *p, const yaml_node_t *key, yaml_node_t *n);

/* The names of every service key the loader knows (loaded, accepted,
 * ignored or refused), NULL-terminated, borrowed: what the docs' key table
 * and its test compare with the Compose Specification. */
const char *const *svc_service_key_names(void);
/* The same keys with what the loader does with each (SVC_USE_*), ended by
 * a NULL name; and the top level's (load.c). Borrowed. */
struct svc_yaml_key;
const struct svc_yaml_key *svc_service_key_table(void);
const struct svc_yaml_key *svc_top_key_table(void);

#endif
