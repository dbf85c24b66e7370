/* extends: a service built on another one, of the same file or of another
 * file inside the project. Internal to services/model/ (load_service.c). */
#ifndef TASKENV_SERVICES_MODEL_EXTENDS_H
#define TASKENV_SERVICES_MODEL_EXTENDS_H

struct svc_yaml;
struct svc_yaml_pair;
struct svc_project;
struct svc_service;

/* EXT (the `extends` key of service S, at PATH "services.NAME"): the base
 * service loaded into S, itself resolved first (its own extends, its keys
 * relative to its own file's directory, with the same variables), under
 * S's name and location. `extends: NAME` or `{service: NAME, file: F}`;
 * F relative to Y's directory and inside the project directory. A cycle
 * or a chain longer than SVC_EXTENDS_MAX is an error naming the chain. */
int svc_extends_load(struct svc_yaml *y, const struct svc_project *p, struct svc_service *s,
		     const struct svc_yaml_pair *ext, const char *path);

#endif
