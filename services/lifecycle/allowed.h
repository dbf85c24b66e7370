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
 * not resolve}]} of the POST /containers/create BODY (borrowed). Owned. */
struct cJSON *svc_allowed_of(const struct cJSON *body);

/* The namespace fields of svc_allowed_of, NULL-terminated (static). */
extern const char *const svc_allowed_ns[];

#endif
