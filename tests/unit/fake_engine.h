/* A fake Engine API for unit tests: a thread serving HTTP/1.1 on a UNIX
 * socket in a fresh temporary directory, answering with canned responses
 * and recording every request (method, path, body), as curl's tests do.
 * For the error paths a real dockerd or Podman will not produce on demand
 * (a 500 on create, a connection dropped mid-answer); everything else is
 * tested on the real engines (tests/integration).
 *
 * Answers: first the queued ones, in order (fake_engine_queue*), one per
 * request; when the queue is empty, the first route whose method and path
 * match (fake_engine_route*); else 500 {"message":"fake engine: no canned
 * response"}. Routes match the path without its "/vX.Y" prefix, query
 * included, as a shell glob (fnmatch, '*' matches '/').
 *
 * Set up (queue, route) before fake_engine_start; fake_engine_routes_clear
 * and later fake_engine_route* calls may change the routes while it runs
 * (e.g. between an `up` and a `down`). Failures of the fake itself fail
 * the test (cmocka asserts). Link with Threads::Threads. */
#ifndef TASKENV_TESTS_UNIT_FAKE_ENGINE_H
#define TASKENV_TESTS_UNIT_FAKE_ENGINE_H

#include <stdbool.h>
#include <stddef.h>

struct engine;
struct fake_engine;

/* GET /version of a dockerd 24 (API 1.43): engine_open then speaks 1.41. */
extern const char fake_engine_docker_version[];

/* A new fake, not serving yet. Owned: fake_engine_free. */
struct fake_engine *fake_engine_new(void);
/* Stop serving, remove the socket and its directory, free F. */
void fake_engine_free(struct fake_engine *f);
/* Start serving (binds the socket). */
void fake_engine_start(struct fake_engine *f);
/* fake_engine_start, then engine_open on the socket (fails the test when
 * it fails). Owned: engine_free, before fake_engine_free. */
struct engine *fake_engine_open(struct fake_engine *f);

/* Queue STATUS with BODY (LEN bytes) and HEADERS (each "Name: value\r\n",
 * may be NULL); "Connection: close" closes the connection after it. */
void fake_engine_queue_raw(struct fake_engine *f, int status, const char *headers, const char *body,
			   size_t len);
/* Queue STATUS with the JSON text BODY. */
void fake_engine_queue(struct fake_engine *f, int status, const char *body);
/* Queue the two answers engine_open asks for from an engine whose /_ping
 * has no API-Version header: "OK", then VERSION_JSON for /version. */
void fake_engine_queue_open(struct fake_engine *f, const char *version_json);
/* The last queued answer goes out in two writes: headers and its first
 * BODY_BYTES bytes of body, a 50 ms pause, the rest. */
void fake_engine_split_last(struct fake_engine *f, size_t body_bytes);

/* Answer METHOD (e.g. "POST") PATH_GLOB (e.g. "/containers/create*") with
 * STATUS, HEADERS (may be NULL) and BODY (LEN bytes), every time it matches. */
void fake_engine_route_raw(struct fake_engine *f, const char *method, const char *path_glob, int status,
			   const char *headers, const char *body, size_t len);
/* The same with a JSON text BODY. */
void fake_engine_route(struct fake_engine *f, const char *method, const char *path_glob, int status,
		       const char *body);
/* Read a matching request, send the first half of STATUS with BODY (the
 * status line, a Content-Length for all of it, part of the body) and close
 * the connection: the engine went away mid-answer. */
void fake_engine_route_drop(struct fake_engine *f, const char *method, const char *path_glob, int status,
			    const char *body);
/* Answer GET /_ping as dockerd does (API-Version 1.41, no Libpod header),
 * so engine_open asks nothing else. */
void fake_engine_route_docker_ping(struct fake_engine *f);
/* Forget every route (the queue is kept). */
void fake_engine_routes_clear(struct fake_engine *f);

const char *fake_engine_socket(const struct fake_engine *f); /* borrowed */
const char *fake_engine_dir(const struct fake_engine *f);    /* borrowed; removed by fake_engine_free */
/* Requests recorded so far (at most 256; later ones are answered, not kept). */
size_t fake_engine_nreq(struct fake_engine *f);
/* Request I as "METHOD PATH" (path as sent, with /vX.Y and query), or
 * "(no request)". Owned. */
char *fake_engine_req(struct fake_engine *f, size_t i);
/* The body of request I ("" when none). Owned. */
char *fake_engine_body(struct fake_engine *f, size_t i);
/* How many requests matched "METHOD PATH_GLOB" (as routes match). */
size_t fake_engine_count(struct fake_engine *f, const char *method, const char *path_glob);
/* Connections accepted so far. */
int fake_engine_accepts(struct fake_engine *f);
/* Fails the test unless request I is WANT ("METHOD PATH"). */
void fake_engine_assert_req(struct fake_engine *f, size_t i, const char *want);

#endif
