/* Combining the models of several Compose files, and the checks that can
 * only run once every file is in. Internal to services/ (load.c). */
#ifndef TASKENV_SERVICES_MERGE_H
#define TASKENV_SERVICES_MERGE_H

struct te_err;
struct svc_project;

/* Merge SRC (a later -f file) into DST as Compose merges: services by
 * name, each key of a service by its rule in the key table (keys.h,
 * svc_service_merge); top-level volumes and networks by key (a later
 * declaration's fields replace the earlier ones, labels and driver_opts
 * merged), secrets, configs and x-taskenv resources by key (replaced
 * whole), x-taskenv.allow appended. Moves what it takes out of SRC; SRC
 * must still be freed. Never fails. */
void svc_project_merge(struct svc_project *dst, struct svc_project *src);

/* After the merge: drop services whose profiles are all inactive (PROFILES
 * NULL-terminated or NULL; "*" enables all), then check what refers across
 * files: every service has an image, depends_on names a service (one of an
 * inactive profile is an error when required, dropped when not), networks
 * and named volumes are declared; fills svc_service.depends_on and
 * .networks. TE_E_COMPOSE with "FILE:LINE:COL: ..." of the reference. */
int svc_project_finalize(struct svc_project *p, char *const *profiles, struct te_err *err);

#endif
