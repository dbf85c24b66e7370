/* Run one step of a lifecycle for several objects at once (the containers
 * of one dependency level): each object on a thread of its own with its
 * own engine handle (engine_clone), all of them under one lock that is let
 * go only while a thread waits on the Engine (engine_set_wait_hooks). So the
 * ledger, the progress callbacks and the caller's structures are touched by
 * one thread at a time, as in a sequential run, and each object keeps its
 * straight-line protocol (intent row, create, record, start) while the
 * Engine calls of the level overlap. docs/up.md "Concurrency" says why
 * threads rather than libcurl's multi interface. */
#ifndef TASKENV_SERVICES_LIFECYCLE_PAR_H
#define TASKENV_SERVICES_LIFECYCLE_PAR_H

#include <stddef.h>

struct engine;
struct te_err;

/* One object's step: ITEM is the index given to svc_par_run, E the
 * thread's engine handle (borrowed for the call). 0, or -1 with *err. */
typedef int (*svc_par_fn)(void *ctx, size_t item, struct engine *e, struct te_err *err);

/* FN(CTX, ITEMS[k], e_k, &err_k) for k in [0, N), concurrently when N > 1
 * (one thread each, at most SVC_PAR_MAX at a time); with N == 1 it runs on
 * the calling thread with E itself. Every item runs to its end whatever the
 * others do: one failure does not stop or lose the others. Returns 0 when
 * all succeeded, else -1 with *err the first failure in ITEMS order and,
 * when more failed, "(and N more failed)" added. Call it from one thread
 * only (the lifecycle's), never from inside FN. */
#define SVC_PAR_MAX 32
int svc_par_run(struct engine *e, const size_t *items, size_t n, svc_par_fn fn, void *ctx,
		struct te_err *err);

#endif
