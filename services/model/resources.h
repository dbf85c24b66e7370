/* x-taskenv: task-scoped server resources (top level) and what a service
 * gets injected from them (per service); resources.c has the shapes. */
#ifndef TASKENV_SERVICES_MODEL_RESOURCES_H
#define TASKENV_SERVICES_MODEL_RESOURCES_H

#include <yaml.h>

struct svc_yaml;
struct svc_project;
struct svc_service;

/* x-taskenv.resources (N its value) into P->resources. */
int svc_resources_load(struct svc_yaml *y, struct svc_project *p, yaml_node_t *n);
/* A service's x-taskenv (N its value, PATH naming it) into S->inject; the
 * references are checked against P's resources, so those load first. */
/* Every x-taskenv.env entry of S names a resource of P (all files merged)
 * and a field its driver describes: TE_E_COMPOSE at the entry's value. */
struct te_err;
int svc_resources_check_inject(const struct svc_project *p, const struct svc_service *s, struct te_err *err);
int svc_resources_load_service(struct svc_yaml *y, const struct svc_project *p, struct svc_service *s,
			       yaml_node_t *n, const char *path);

#endif
