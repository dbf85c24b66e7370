/* A faithful client of the Docker Engine API (dockerd, or Podman's
 * Docker-compatible service) over a UNIX socket, with libcurl
 * (CURLOPT_UNIX_SOCKET_PATH) and cJSON. No task logic lives here.
 *
 * Every call returns 0 on success or -1 with *err filled:
 *   TE_E_UNREACHABLE  nothing answers on the socket (message names the path)
 *   TE_E_NOTFOUND     HTTP 404 (err->http_status = 404)
 *   TE_E_CONFLICT     HTTP 409
 *   TE_E_ENGINE       any other HTTP >= 400, message = the engine's own "message"
 *   TE_E_FAIL         response over the size cap, malformed JSON
 * Returned cJSON trees and strings are owned by the caller. */
#ifndef TASKENV_ENGINE_ENGINE_H
#define TASKENV_ENGINE_ENGINE_H

#include <stdbool.h>
#include <stddef.h>

struct te_err;
struct te_buf;
struct cJSON;
struct engine;

/* Cap on a single JSON response, in bytes. */
#define ENGINE_RESPONSE_MAX (64u * 1024u * 1024u)

/* Resolve which socket to talk to, without connecting.
 * Order: HOST (from --host) if non-NULL, then $DOCKER_HOST, then $CONTAINER_HOST
 * (each must be unix://PATH; any other scheme is refused with TE_E_USAGE and
 * a message saying the control plane stays on this host), then the first
 * existing socket among /var/run/docker.sock, $XDG_RUNTIME_DIR/podman/podman.sock,
 * /run/podman/podman.sock. When none exists, fails with TE_E_UNREACHABLE and a
 * message listing every path tried and how to start an engine.
 * *path_out is owned by the caller. */
int engine_resolve_socket(const char *host, char **path_out, struct te_err *err);

/* Connect to the socket at PATH (as resolved above), GET /_ping and
 * negotiate the API version from its "API-Version" response header:
 * min(engine's API version, ENGINE_API_MAX); requests then go to
 * /v<version>/... . The flavor comes from the same answer (Podman adds a
 * "Libpod-API-Version" header, dockerd does not). GET /version (slow on
 * Podman) is asked only when the ping has no usable API-Version or one
 * above ENGINE_API_MAX: then its ApiVersion, MinAPIVersion and Components
 * decide, and an engine whose MinAPIVersion is above what we speak is
 * refused (TE_E_ENGINE, message names DOCKER_MIN_API_VERSION).
 * TE_E_UNREACHABLE names PATH and says how to start an engine.
 * Returns an owned handle (engine_free) or NULL. */
struct engine *engine_open(const char *path, struct te_err *err);
void engine_free(struct engine *e);
/* A handle of its own on E's engine, for another thread (a handle is not
 * shared between threads): the same socket, negotiated version, flavor,
 * cap and trace, without asking the engine again. Not the gate's judge:
 * its context is one handle's (the findings of its last judgment), so the
 * clone refuses every change until a judge of its own is installed
 * (the broker: services/lifecycle/broker.c). Owned (engine_free), or NULL
 * with *err set. */
struct engine *engine_clone(const struct engine *e, struct te_err *err);
/* Call LEAVE(CTX) before and ENTER(CTX) after each blocking transfer on E
 * (NULL: none): the lifecycle's parallel runner releases its lock there, so
 * only the waits on the engine overlap (services/lifecycle/par.h). The trace
 * callback runs after ENTER. */
void engine_set_wait_hooks(struct engine *e, void (*leave)(void *ctx), void (*enter)(void *ctx), void *ctx);

/* Highest API version we speak. */
#define ENGINE_API_MAX "1.41"

const char *engine_socket(const struct engine *e);	/* borrowed */
const char *engine_api_version(const struct engine *e); /* borrowed, e.g. "1.41" */
/* "docker" or "podman" (from /_ping's Libpod-API-Version header, else
 * /version Components / Platform.Name), borrowed. */
const char *engine_flavor(const struct engine *e);
/* Engine's own version string ("Version" of GET /version, asked on the
 * first call and kept), borrowed; "unknown" when that call fails or the
 * engine does not say. */
const char *engine_version(struct engine *e);

/* The -v trace, as a callback (nothing below cmd/ prints): one call per
 * Engine API request as it ends, so a hung request is the one missing.
 * METHOD and PATH as sent (PATH with its /vX prefix and query; borrowed for
 * the call), STATUS the HTTP status or 0 when no answer came (ERROR then
 * says why, else NULL), MS the milliseconds it took. */
typedef void (*engine_trace_fn)(void *ctx, const char *method, const char *path, long status,
				const char *error, long ms);
/* Install FN (NULL: none) for every later request on E. */
void engine_set_trace(struct engine *e, engine_trace_fn fn, void *ctx);
/* Report one request to E's trace, if any: for the engine/ files that make
 * their own requests (streams, the hijacked exec attach). */
void engine_trace(const struct engine *e, const char *method, const char *path, long status,
		  const char *error, long ms);

/* The policy gate's hook (docs/internals/ARCHITECTURE.md, "Where the gate
 * sits"). Every request but GET and HEAD is passed to the judge first:
 * METHOD ("POST", "DELETE", ...), PATH without the /vX prefix and without
 * the query ("/containers/create"), QUERY after the '?' ("" when none) and
 * BODY, the JSON text about to be sent parsed back (NULL when there is no
 * JSON body: a build's tar, an empty POST). All borrowed for the call. The
 * judge returns 0 to let the request go, or -1 with *err set (TE_E_POLICY)
 * and nothing is sent. Without a judge every such request is refused: a
 * path nobody thought of is refused, not passed. */
typedef int (*engine_judge_fn)(void *ctx, const char *method, const char *path, const char *query,
			       const struct cJSON *body, struct te_err *err);
/* Install FN with CTX (borrowed; must outlive E or the next call) for every
 * later request on E; NULL removes it (and so refuses every change). */
void engine_set_judge(struct engine *e, engine_judge_fn fn, void *ctx);
/* E's judge context when FN is the judge installed, else NULL. Borrowed. */
void *engine_judge_ctx(const struct engine *e, engine_judge_fn fn);
/* Hand the judge's context to E: RELEASE(ctx) when E is freed or another
 * judge is installed. */
void engine_own_judge_ctx(struct engine *e, void (*release)(void *ctx));
/* Judge DST's requests by SRC's judge and context (borrowed: SRC keeps
 * owning it and must outlive DST). Only for clones whose requests are
 * judged one at a time with SRC's, as svc_par_run's are (its one lock
 * is held while a judge runs: services/lifecycle/par.h). */
void engine_share_judge(struct engine *dst, const struct engine *src);

/* Cap each later response body at BYTES (0 restores ENGINE_RESPONSE_MAX);
 * a bigger response fails with TE_E_FAIL. For tests of the cap. */
void engine_set_response_cap(struct engine *e, size_t bytes);

/* Low level: METHOD PATH (path without /vX prefix, query already escaped),
 * optional JSON BODY (borrowed). On HTTP < 400 returns 0 and, if OUT is
 * non-NULL, the parsed JSON (NULL for an empty body). *status gets the HTTP
 * status when STATUS is non-NULL. */
int engine_call(struct engine *e, const char *method, const char *path, const struct cJSON *body,
		long *status, struct cJSON **out, struct te_err *err);

/* Low level, for streams that are not JSON (exec output): METHOD PATH with
 * optional JSON BODY; the raw response body is appended to OUT (its cap
 * applies; over it: TE_E_FAIL). HTTP >= 400 fails as above. */
int engine_call_raw(struct engine *e, const char *method, const char *path, const struct cJSON *body,
		    struct te_buf *out, struct te_err *err);
/* Strip the 8-byte stream frames ([stream, 0, 0, 0, size BE32]) the engine
 * puts around a non-TTY attach/logs/exec stream, appending the payload to
 * OUT; a body that does not start with a frame is kept whole. -1 over OUT's cap. */
int engine_stream_demux(const char *data, size_t n, struct te_buf *out);

/* URL-escape S for a path segment or query value. Owned result. */
char *engine_escape(struct engine *e, const char *s);

/* GET /images/{name}/json */
/* GET /info: the engine's system information (dockerd: "ID", "Name",
 * "DockerRootDir"; Podman's compatible answer has "Name" and
 * "DockerRootDir" but may leave "ID" empty). Owned object. */
int engine_info(struct engine *e, struct cJSON **out, struct te_err *err);
int engine_image_inspect(struct engine *e, const char *name, struct cJSON **out, struct te_err *err);
/* POST /images/create?fromImage=NAME&tag=TAG — pulls as Compose does; reads the
 * progress stream to the end and fails with the stream's errorDetail message
 * (naming the image; TE_E_ENGINE, http_status 200) when the pull fails even
 * though HTTP said 200. */
int engine_image_pull(struct engine *e, const char *image, struct te_err *err);

/* POST /containers/create?name=NAME with CONFIG (borrowed, the full
 * ContainerCreate body incl. HostConfig and NetworkingConfig). *id_out owned. */
int engine_container_create(struct engine *e, const char *name, const struct cJSON *config, char **id_out,
			    struct te_err *err);
/* POST /containers/{id}/start (304 "already started" counts as success). */
int engine_container_start(struct engine *e, const char *id, struct te_err *err);
/* POST /containers/{id}/rename?name=NAME (TE_E_NOTFOUND: no such container;
 * TE_E_CONFLICT / TE_E_ENGINE: the name is taken). */
int engine_container_rename(struct engine *e, const char *id, const char *name, struct te_err *err);
/* POST /containers/{id}/stop?t=TIMEOUT_S (304 counts as success). */
int engine_container_stop(struct engine *e, const char *id, int timeout_s, struct te_err *err);
/* DELETE /containers/{id}?v=1&force=FORCE (anonymous volumes go with it:
 * on Podman every anonymous volume it mounts, see svc_container_remove). */
int engine_container_remove(struct engine *e, const char *id, bool force, struct te_err *err);
/* DELETE /containers/{id}?v=0&force=FORCE: its volumes stay. */
int engine_container_remove_keep_volumes(struct engine *e, const char *id, bool force, struct te_err *err);
/* GET /containers/{id}/json */
int engine_container_inspect(struct engine *e, const char *id, struct cJSON **out, struct te_err *err);
/* GET /containers/json?all=1&filters={"label":[LABEL]} — LABEL like
 * "io.taskenv.task=t1" or "io.taskenv.task"; NULL lists everything. Array out. */
int engine_container_list(struct engine *e, const char *label, struct cJSON **out, struct te_err *err);
/* GET /containers/{id}/logs?stdout=1&stderr=1&tail=TAIL (TAIL<0: all),
 * demultiplexed from the 8-byte stream frames when the container has no TTY,
 * appended to OUT (its cap applies). */
int engine_container_logs(struct engine *e, const char *id, int tail, struct te_buf *out, struct te_err *err);

/* POST /networks/create with BODY (borrowed; Name, Labels, Driver, ...). *id_out owned. */
int engine_network_create(struct engine *e, const struct cJSON *body, char **id_out, struct te_err *err);
/* DELETE /networks/{id} */
int engine_network_remove(struct engine *e, const char *id, struct te_err *err);
/* GET /networks/{id} */
int engine_network_inspect(struct engine *e, const char *id, struct cJSON **out, struct te_err *err);
/* GET /networks?filters={"label":[LABEL]} — array out. */
int engine_network_list(struct engine *e, const char *label, struct cJSON **out, struct te_err *err);

/* POST /volumes/create with BODY (borrowed; Name, Labels, Driver, DriverOpts). */
int engine_volume_create(struct engine *e, const struct cJSON *body, struct te_err *err);
/* DELETE /volumes/{name} */
int engine_volume_remove(struct engine *e, const char *name, bool force, struct te_err *err);
/* GET /volumes/{name} */
int engine_volume_inspect(struct engine *e, const char *name, struct cJSON **out, struct te_err *err);
/* GET /volumes?filters={"label":[LABEL]} — the "Volumes" array out (never NULL on success). */
int engine_volume_list(struct engine *e, const char *label, struct cJSON **out, struct te_err *err);
/* Podman only: GET /libpod/volumes/{name}/json, Podman's own API under the
 * same /vX prefix (Podman 4 takes any): unlike the compat answer, its
 * "CreatedAt" is to the nanosecond and it says "Anonymous". */
int engine_libpod_volume_inspect(struct engine *e, const char *name, struct cJSON **out, struct te_err *err);

#endif
