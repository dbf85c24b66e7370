/* Inside the broker (broker.h): broker_proc.c (the process, its directory
 * and socket), broker.c (the HTTP server: routes, ownership, the process's
 * loop), broker_fwd.c (answers, forwarding, hijacked connections) and
 * broker_create.c (a container created through the broker: docker run).
 * Nothing outside these files includes this one. */
#ifndef TASKENV_SERVICES_LIFECYCLE_BROKER_INT_H
#define TASKENV_SERVICES_LIFECYCLE_BROKER_INT_H

#include <microhttpd.h>
#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>

#include "common/buf.h"

struct cJSON;
struct engine;
struct ledger;
struct te_err;

#define BRK_BODY_MAX (1024u * 1024u)	       /* a JSON request body */
#define BRK_ARCHIVE_MAX (256u * 1024u * 1024u) /* PUT archive: a tar */
#define BRK_ANSWER_MAX (64u * 1024u * 1024u)   /* a buffered answer */
#define BRK_POOL_MAX 32

struct brk {
	struct engine *proto; /* negotiated once; never used for requests (threads clone it) */
	struct ledger *l;
	pthread_mutex_t mu; /* the ledger handle and the pool */
	struct engine *pool[BRK_POOL_MAX];
	size_t npool;
	const char *task;
	const char *ledger_id;
};

/* One request's state across MHD's calls. */
struct rq {
	struct te_buf body;
	bool too_big;
	struct brk *b;
};

/* An engine handle of this thread's own (from the pool or a clone of
 * PROTO) with the policy gate installed on it, narrowed to the task with
 * the exceptions its latest `up` recorded (svc_guard_task) when CHANGES:
 * every request the broker forwards that is not GET or HEAD is judged by
 * that gate (engine/forward.h), as taskenv's own are. */
struct engine *brk_take_engine(struct brk *b, bool changes, struct te_err *err);
/* Back to the pool (or freed when it is full). E may be NULL. */
void brk_give_engine(struct brk *b, struct engine *e);

/* Is container ID (full) one of the task's: in its ledger, and OBJ (a
 * list entry or an inspect answer) carries its labels? */
bool brk_owned(struct brk *b, const struct cJSON *obj, const char *id);

/* ---- answers and forwarding (broker_fwd.c) ---- */

enum MHD_Result brk_queue(struct MHD_Connection *c, unsigned status, const char *ctype, const char *p,
			  size_t n);
enum MHD_Result brk_queue_json(struct MHD_Connection *c, unsigned status, const struct cJSON *j);
/* {"message": "..."}, as the engine answers errors. */
enum MHD_Result brk_refuse(struct MHD_Connection *c, unsigned status, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* ERR as the engine's error answer: its HTTP status (403 for the gate's
 * refusal, 502 when no answer came) and message. */
enum MHD_Result brk_engine_failed(struct MHD_Connection *c, const struct te_err *err);
/* An engine's answer, buffered. */
struct brk_answer {
	long status;
	char ctype[128];
	struct te_buf body; /* capped at BRK_ANSWER_MAX */
};
/* METHOD PATH (unversioned, query included) with BODY[0..LEN) of CTYPE
 * (NULL: JSON) into *A (always initialised: te_buf_release it, or queue
 * it). -1 when the engine could not be reached or the gate refused. */
int brk_call(struct engine *e, const char *method, const char *path, const char *body, size_t len,
	     const char *ctype, struct brk_answer *a, struct te_err *err);
/* Pass *A on to the client as the engine gave it; releases its body. */
enum MHD_Result brk_queue_answer(struct MHD_Connection *c, struct brk_answer *a);
/* brk_call, then brk_queue_answer (or the failure). */
enum MHD_Result brk_forward_buffered(struct MHD_Connection *c, struct engine *e, const char *method,
				     const char *path, const char *body, size_t len, const char *ctype);
/* The same, streamed as the engine sends it (logs -f, stats); E is taken
 * (the stream's thread gives it back to B). */
enum MHD_Result brk_forward_stream(struct MHD_Connection *c, struct brk *b, struct engine *e,
				   const char *method, const char *path, struct rq *q, const char *ctype);
/* A hijacked connection (attach, exec start with Upgrade: tcp). */
enum MHD_Result brk_hijack(struct MHD_Connection *c, struct engine *e, const char *path, struct rq *q);

/* ---- POST /containers/create (broker_create.c) ---- */

/* The client's create body, with the task's labels, network and a name of
 * the task's forced, recorded in the ledger (intended) before the engine
 * sees it; the gate judges it on the way (as every body). */
enum MHD_Result brk_create(struct MHD_Connection *c, struct brk *b, struct engine *e, const char *name,
			   struct rq *q);

/* ---- the process (broker_proc.c) ---- */

/* Listen on SOCKET: its directory made 0700 (or checked: ours, not a
 * symlink, no access for group or others), a stale socket file (nobody
 * answers on it) removed, a live one refused (TE_E_CONFLICT). Returns the
 * listening fd or -1. */
int svc_broker_listen(const char *socket, struct te_err *err);
/* Remove SOCKET (only if it is a socket) and its directory. */
void svc_broker_unlink(const char *socket);

#endif
