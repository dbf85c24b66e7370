/* POST /build (ImageBuild) and DELETE /images/{name} (ImageDelete): the
 * image calls that stream or that up/down need beyond engine.h. A separate
 * file because a build uploads a body from a file and streams progress,
 * which engine.c's JSON calls do not. Same error codes as engine.h. */
#ifndef TASKENV_ENGINE_BUILD_H
#define TASKENV_ENGINE_BUILD_H

#include <stdbool.h>
#include <stdio.h>

struct te_err;
struct engine;

/* One line of build output (the "stream" text of a JSON message, without
 * its newline). LINE is borrowed for the call. */
typedef void (*engine_build_line_fn)(void *ctx, const char *line);

/* POST /v<api>/build?QUERY (QUERY already escaped: t=, dockerfile=,
 * buildargs=, target=, labels=, networkmode=, shmsize=, extrahosts=,
 * cachefrom=, pull=, rm=1, forcerm=1 ...) with the tar in TAR (borrowed,
 * read from its start to EOF; Content-Type application/x-tar). The answer
 * is a stream of JSON objects: {"stream": text} lines go to ON_LINE (may be
 * NULL); {"error"/"errorDetail"} ends the build with TE_E_ENGINE
 * (http_status 200) and a message holding the error, the step that failed
 * ("Step N/M : RUN ...", or the "STEP N/M:" of Podman) and the last lines
 * of its output. A stalled stream (nothing for 600 s) fails with TE_E_FAIL. */
int engine_build(struct engine *e, const char *query, FILE *tar, engine_build_line_fn on_line, void *ctx,
		 struct te_err *err);

/* DELETE /images/{name}?force=FORCE&noprune=0 */
int engine_image_remove(struct engine *e, const char *name, bool force, struct te_err *err);

#endif
