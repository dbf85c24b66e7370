/* Building a service's image: build: of the model -> the tar of its
 * context (services/context.h) and the POST /build query -> engine_build. */
#ifndef TASKENV_SERVICES_BUILD_H
#define TASKENV_SERVICES_BUILD_H

#include "services/progress.h"

struct te_err;
struct engine;
struct svc_plan;
struct svc_plan_container;

/* The query string of POST /build for C (escaped with E): t=<c->image>,
 * dockerfile=DOCKERFILE, buildargs= (JSON), target=, labels= (JSON: the
 * file's build.labels, then the task's labels, which win), networkmode=,
 * shmsize=, extrahosts= (one parameter per host for dockerd, a JSON array for
 * Podman), cachefrom= (JSON), pull=1 when
 * build.pull is true, rm=1, forcerm=1. Owned. */
char *svc_build_query(struct engine *e, const struct svc_plan *plan, const struct svc_plan_container *c,
		      const char *dockerfile);

/* Pack the context of C's service into a temporary file and build it,
 * each output line reported as PROGRESS(ctx, "build", <service>, line).
 * Errors: TE_E_IO (context), TE_E_ENGINE "service 'S': build failed: ...
 * at Step N/M : RUN ... output: ..." and the engine's other codes. */
int svc_build_image(struct engine *e, const struct svc_plan *plan, const struct svc_plan_container *c,
		    svc_progress_fn progress, void *progress_ctx, struct te_err *err);

#endif
