/* What taskenv allowed a container when it created it: the HostConfig
 * fields the gate judges, taken from the Engine body it sent, kept in the
 * container's ledger row (detail "allowed") so `verify` can compare the
 * live container with it (services/contract/verify.c, "hostconfig"). */
#ifndef TASKENV_SERVICES_LIFECYCLE_ALLOWED_H
#define TASKENV_SERVICES_LIFECYCLE_ALLOWED_H

struct cJSON;

/* {"NetworkMode","PidMode","IpcMode","UTSMode","UsernsMode","CgroupnsMode"
 * (strings, "" when BODY sets none), "Privileged" (bool), "CapAdd",
 * "SecurityOpt", "Devices" (PathOnHost) (string arrays), "binds":
 * [{"source": as sent, "real": realpath now, or the source when it does
 * not resolve}], "Networks": the networks it joins (EndpointsConfig's
 * names and a NetworkMode that names one)} of the POST /containers/create
 * BODY (borrowed). Owned. */
struct cJSON *svc_allowed_of(const struct cJSON *body);

/* Add NETWORKS (NULL-terminated, may be NULL: the ones taskenv connects
 * after the create) to ALLOWED's "Networks". */
void svc_allowed_add_networks(struct cJSON *allowed, char *const *networks);

/* The namespace fields of svc_allowed_of, NULL-terminated (static). */
extern const char *const svc_allowed_ns[];

#endif
