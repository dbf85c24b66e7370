/* The project boundary: where the host paths a Compose file may name
 * (build contexts, Dockerfiles, ...) must resolve to. */
#ifndef TASKENV_SERVICES_MODEL_BOUNDARY_H
#define TASKENV_SERVICES_MODEL_BOUNDARY_H

#include <stdbool.h>

/* The boundary of a project whose (first) Compose file lies in DIR: the
 * nearest ancestor of realpath(DIR) (itself included) that holds a .git
 * entry (a directory, or the file of a linked worktree), else realpath(DIR).
 * Found by looking, never by asking git: `git rev-parse --show-toplevel`
 * reads the repository's config, and core.worktree there can point it at
 * "/". Owned; NULL when DIR does not resolve (errno set). */
char *svc_project_boundary(const char *dir);

/* PATH (resolved) is ROOT or lies below it. */
bool svc_path_within(const char *path, const char *root);

#endif
