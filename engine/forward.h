/* Forwarding requests the broker accepted (services/lifecycle/broker.h) to
 * the engine: any method and body, the answer streamed back as it comes
 * (followed logs, stats), and the hijacked connections of attach and exec
 * start. Both go through this engine client, never a socket of the
 * broker's own: every non-GET request the client sends is the one place
 * the policy gate's judge sits (docs/internals/ARCHITECTURE.md). Errors
 * as in engine.h. */
#ifndef TASKENV_ENGINE_FORWARD_H
#define TASKENV_ENGINE_FORWARD_H

#include <stddef.h>

struct engine;
struct te_buf;
struct te_err;

struct engine_fwd {
	const char *method;
	const char *path;	  /* unversioned (/vX is added), query included and escaped */
	const char *body;	  /* borrowed, or NULL */
	size_t body_len;	  /* bytes of BODY */
	const char *content_type; /* of BODY, or NULL (application/json) */
	long timeout_s;		  /* whole-call limit; 0: none (a stream that stalls 10 min ends) */
	/* The answer's head, once, before any byte of its body: the HTTP
	 * STATUS and its Content-Type (borrowed, may be NULL). -1 abandons. */
	int (*head)(void *ctx, long status, const char *content_type);
	/* Body bytes as they come (P borrowed for the call); -1 abandons. */
	int (*data)(void *ctx, const char *p, size_t n);
	void *ctx;
};

/* Send F's request and hand its answer to F's callbacks, whatever its
 * status (an engine's 404 or 409 is forwarded, not an error here).
 * Returns 0 when the engine answered, -1 when it could not be reached or
 * a callback abandoned (then *err says why). */
int engine_forward(struct engine *e, const struct engine_fwd *f, struct te_err *err);

/* A hijacked connection (POST /containers/{id}/attach, POST
 * /exec/{id}/start with "Upgrade: tcp"): after the engine's 101 (or 200)
 * the socket carries the process's stdin one way and its output the other. */
struct engine_conn;
/* Send METHOD PATH (unversioned) with BODY[0..LEN) (JSON), judged by E's
 * gate first as every request, on a connection of its own asking for the
 * upgrade; *status is the engine's answer. The bytes
 * that came after the answer's head (the first output, or an error's body)
 * are appended to REST. *out owned (engine_conn_free), also for an answer
 * >= 400 (so its body can still be read from the fd). */
int engine_hijack(struct engine *e, const char *method, const char *path, const char *body, size_t len,
		  struct engine_conn **out, long *status, struct te_buf *rest, struct te_err *err);
/* The connection's socket, for poll/read/write/shutdown (owned by C). */
int engine_conn_fd(const struct engine_conn *c);
void engine_conn_free(struct engine_conn *c);

#endif
