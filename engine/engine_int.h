/* The request core of engine.c that the object calls (objects.c) are built
 * on. Internal to engine/: nothing outside it includes this file. */
#ifndef TASKENV_ENGINE_ENGINE_INT_H
#define TASKENV_ENGINE_ENGINE_INT_H

#include <stddef.h>

struct cJSON;
struct engine;
struct te_buf;
struct te_err;

/* Whole-call limit for ordinary calls; generous because removing a big
 * container or a busy volume can take a while on a loaded host. */
#define ENGINE_CALL_TIMEOUT_S 600L

/* One request's response. Error bodies (HTTP >= 400) always land in BODY so
 * the engine's message can be reported; other bodies go to STREAM when set. */
struct xfer {
	void *curl; /* CURL * (libcurl: typedef void CURL), set by engine_send */
	struct te_buf *body;
	size_t overflow;				   /* the cap that was exceeded, 0 if none */
	int (*stream)(void *ctx, const char *p, size_t n); /* -1: over STREAM_MAX */
	void *stream_ctx;
	size_t stream_max;
	/* Called once with STREAM_CTX when the final answer's head has come,
	 * before any byte of its body (the broker passes a wait's 200 on at
	 * once: the docker CLI starts the container only after it). NULL:
	 * not asked; -1 abandons. */
	int (*headed)(void *ctx);
};

struct request {
	const char *method;
	const char *path; /* as sent, including any /vX prefix and the query */
	const char *body; /* JSON text or NULL */
	long timeout_s;	  /* whole-call limit; 0 means none */
	/* A body that is not NUL-terminated JSON (the broker's forwarded
	 * bodies: a tar for PUT archive): its length (0: strlen(body)) and
	 * its Content-Type (NULL: application/json). */
	size_t body_len;
	const char *content_type;
};

/* Ask E's judge (engine_set_judge) about METHOD FULL_PATH (with or without
 * the /vX prefix, with its query) and BODY_TEXT (JSON or NULL; a body that
 * is not JSON is passed as NULL). GET and HEAD pass; anything else without
 * a judge is refused (TE_E_POLICY). Every request engine/ sends goes
 * through here: engine_send, and the streams that make their own. */
int engine_judge_request(struct engine *e, const char *method, const char *full_path, const char *body_text,
			 struct te_err *err);
/* Send RQ (full path already built) and collect the answer into X; HTTP >=
 * 400 becomes an error (engine.h). *status (may be NULL) gets the status. */
int engine_send(struct engine *e, const struct request *rq, struct xfer *x, long *status, struct te_err *err);
/* METHOD PATH (unversioned: /vX is added) with JSON BODY (borrowed, may be
 * NULL) within TIMEOUT_S; *out (may be NULL) owned, NULL for an empty body. */
int engine_call_v(struct engine *e, const char *method, const char *path, const struct cJSON *body,
		  long timeout_s, struct cJSON **out, struct te_err *err);
/* GET PATH and insist on a JSON value of TYPE (cJSON_Object / cJSON_Array). */
int engine_get_typed(struct engine *e, const char *path, int type, struct cJSON **out, struct te_err *err);
/* Object names and image references go into the path as the docker CLI
 * puts them: "/" ":" "@" stay (dockerd routes /images/{name:.*}/json).
 * Owned. */
char *engine_seg(const char *s);
/* "" for no label, else SEP + filters={"label":[LABEL]} escaped. Owned. */
char *engine_label_filter(const char *label, char sep);
/* The response cap (engine_set_response_cap). */
size_t engine_response_max(const struct engine *e);

#endif
