/* Task identity and the one place that computes resource names. */
#ifndef TASKENV_SERVICES_TASK_H
#define TASKENV_SERVICES_TASK_H

#include <stdbool.h>
#include <stddef.h>

struct te_err;

#define SVC_TASK_NAME_RULE "[a-z0-9][a-z0-9_-]{0,62}"

/* 0 if NAME matches SVC_TASK_NAME_RULE, else -1 with TE_E_TASKNAME and a
 * message quoting NAME and the rule. Never rewrites the name. */
int svc_task_name_check(const char *name, struct te_err *err);

/* The task name from FLAG (-t), else ENV (the TASKENV_TASK setting; NULL
 * or "" is unset), else the current git branch of DIR with everything up
 * to the last '/' dropped, a '-' and six hex digits of a hash (FNV-1a) of
 * the work tree's top directory ("agent/auth-refactor" ->
 * "auth-refactor-3f9a0c"): two checkouts on one branch are two tasks. The
 * result is checked with svc_task_name_check. Owned result or NULL. */
char *svc_task_resolve(const char *flag, const char *env, const char *dir, struct te_err *err);

/* Names, all owned: "<task>-<service>-<n>", "<task>_<key>". */
char *svc_name_container(const char *task, const char *service, int n);
char *svc_name_network(const char *task, const char *key);
char *svc_name_volume(const char *task, const char *key);
/* The image built for SERVICE when it has no image: "<task>-<service>",
 * lower-cased (an image reference has no upper case), as Compose names it. */
char *svc_name_image(const char *task, const char *service);

#endif
