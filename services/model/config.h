/* `taskenv config`: the loaded, interpolated, merged model with the names
 * taskenv will create, in the shape `docker compose config` prints. */
#ifndef TASKENV_SERVICES_CONFIG_H
#define TASKENV_SERVICES_CONFIG_H

struct te_err;
struct cJSON;
struct svc_project;

/* PROJECT (borrowed) as TASK: {"name", "services": {NAME: {...}},
 * "networks": {KEY: {"name": "<task>_<key>" or the external name, ...}},
 * "volumes": {...}, "x-taskenv": {"allow": [...]}}. Services carry
 * "container_name": "<task>-<service>-1" and the file's container_name as a
 * network alias; durations are Go-style strings ("1m30s"), sizes bytes.
 * Owned cJSON, or NULL with TE_E_COMPOSE (a depends_on cycle). */
struct cJSON *svc_config_json(const struct svc_project *project, const char *task, struct te_err *err);

/* JSON (cJSON, borrowed) as a YAML document through libyaml's emitter.
 * Strings a YAML reader would take for another type are quoted. Owned text. */
char *svc_config_yaml(const struct cJSON *json, struct te_err *err);

#endif
