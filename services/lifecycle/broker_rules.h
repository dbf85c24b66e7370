/* What the broker lets through (docs/broker.md): the request path
 * normalised (percent-decoding, "//", "." and "..", the /vX.Y prefix) and
 * judged against one allow-list of Engine API endpoints, before anything
 * reaches the engine. Pure: no engine, no ledger, unit-tested. */
#ifndef TASKENV_SERVICES_LIFECYCLE_BROKER_RULES_H
#define TASKENV_SERVICES_LIFECYCLE_BROKER_RULES_H

#include <stdbool.h>

struct te_err;

enum svc_brk_action {
	SVC_BRK_DENY,	   /* 403 (400 for a path that does not normalise) */
	SVC_BRK_PING,	   /* answered by the broker itself */
	SVC_BRK_FORWARD,   /* read-only, nothing of another task in it (version, images/json) */
	SVC_BRK_INFO,	   /* GET /info, redacted */
	SVC_BRK_LIST,	   /* GET /containers/json, filtered by the broker */
	SVC_BRK_CONTAINER, /* /containers/{REF}/{OP}: REF must be the task's */
	SVC_BRK_EXEC,	   /* /exec/{ID}/{OP}: the exec's container must be the task's */
	SVC_BRK_CREATE,	   /* POST /containers/create: the task's labels, network, name forced */
};

struct svc_brk_route {
	enum svc_brk_action action;
	char path[512]; /* the normalised path, without the /vX.Y prefix */
	char ref[256];	/* CONTAINER / EXEC: the name, ID or ID prefix as given (decoded) */
	char op[32];	/* CONTAINER / EXEC: "logs", "start", ... */
	bool stream;	/* the answer may go on for long (logs, stats, wait, archive) */
	bool hijack;	/* the client may ask for the connection (attach, exec start) */
	int status;	/* DENY: 403 or 400 */
	char rule[200]; /* DENY: the rule, for the JSON message */
};

/* Normalise RAW (the request target's path, query cut off, as received:
 * still percent-encoded) into OUT[0..N): decoded, "//" collapsed, "." and
 * ".." resolved (".." above the root is an error), a leading /vX.Y
 * dropped. A NUL, a control byte or a bad %XX in it is an error. -1 with
 * TE_E_USAGE naming the problem. */
int svc_brk_normalize(const char *raw, char *out, size_t n, struct te_err *err);

/* Judge METHOD RAW_PATH: fills *R (always: DENY with the rule when it is
 * not allowed or does not normalise). */
void svc_brk_route(const char *method, const char *raw_path, struct svc_brk_route *r);

/* Is S a container/exec reference the broker passes on (a name or an ID
 * or ID prefix: [A-Za-z0-9][A-Za-z0-9_.-]*, at most 255 bytes)? */
bool svc_brk_ref_ok(const char *s);

/* Is the query string Q (after '?', as received) safe to pass on: only the
 * bytes of RFC 3986 query characters and '%'? NULL or "" is. */
bool svc_brk_query_ok(const char *q);

#endif
