/* The policy gate: one judge of every Engine API request taskenv sends
 * that creates or changes something (docs/security.md, the trust model;
 * docs/internals/ARCHITECTURE.md, "Where the gate sits").
 *
 * The judge is an allow-list: a table of every Engine field taskenv may
 * send in POST /containers/create (Config, HostConfig, NetworkingConfig),
 * /networks/create, /volumes/create, /build (query), /containers/{id}/exec
 * and /networks/{id}/connect, each with its rule (fields.c), and a table of
 * routes (routes.c): a route or a field not in them is refused. Exceptions
 * come only from the trusted side (the command line, the user config file)
 * as the GRANTED names; a Compose file never grants one.
 *
 * Pure given its inputs (the body, the task, the granted set, the project
 * boundary, the host's file system for realpath): the facts only an engine
 * knows (whose labels a joined container or an external network carries)
 * come through the LOOKUP callback, which lifecycle gives (an inspect) and
 * `check` does not (those rules are then left to `up`). */
#ifndef TASKENV_SERVICES_GATE_GATE_H
#define TASKENV_SERVICES_GATE_GATE_H

#include <stdbool.h>
#include <stddef.h>

#include "services/model/compose.h"

struct cJSON;
struct te_err;
struct svc_plan;

/* One refusal. ALLOW NULL: refused outright (no exception opens it). */
struct gate_finding {
	struct svc_loc loc; /* where the plan says the field came from; line 0 = unknown */
	char *service;	    /* owned: the service, network or volume key, or the object */
	char *key;	    /* owned: the Compose key ("cap_add"), else the Engine field */
	char *reason;	    /* owned */
	char *allow;	    /* owned: the exception that opens it, or NULL */
};

/* GET the engine object KIND ("container", "network", "volume", "image",
 * "exec") named or numbered REF: *out owned (the inspect answer; for an
 * exec, the inspect of its container). -1 with err->code TE_E_NOTFOUND when
 * there is none. */
typedef int (*gate_lookup_fn)(void *ctx, const char *kind, const char *ref, struct cJSON **out,
			      struct te_err *err);

struct gate {
	char *task;	      /* owned; NULL: a verb of the whole ledger (gc, ps) */
	char *ledger_id;      /* owned; the io.taskenv.ledger of everything this ledger made */
	char **granted;	      /* owned, NULL-terminated or NULL: exceptions the trusted side gave */
	char *boundary;	      /* owned realpath of the project boundary, or NULL (no project) */
	char **sockets;	      /* owned: engine sockets taskenv knows of (besides the default paths) */
	char **shared_images; /* owned: the trusted image table of the shared servers */
	char **own_dirs;      /* owned: directories taskenv itself writes for the task (secret files) */
	/* owned or NULL: the task's broker directory (taskenv made it; its
	 * socket serves this task only): a bind of exactly it is no engine
	 * socket (x-taskenv.engine: broker) */
	char *broker_dir;
	const struct svc_plan *plan; /* borrowed or NULL: where each field came from */
	gate_lookup_fn lookup;	     /* NULL: no engine (check): rules needing one are left to up */
	void *lookup_ctx;
	const char *bridge; /* while judging a network body: the bridge name taskenv gives it */
	/* The findings of the last judgment (owned; gate_findings_clear). */
	struct gate_finding *v;
	size_t n;
};

/* Exception names (docs/security.md has what each opens). NAME is a fixed
 * name, "cap:CAP", "template:NAME" or "path:/DIR". */
bool gate_exception_known(const char *name);
/* Each of NAMES (NULL-terminated or NULL) known; else TE_E_USAGE naming
 * the first unknown one and where it came from (WHERE: "--allow"). */
int gate_exceptions_validate(char *const *names, const char *where, struct te_err *err);
/* NAME is in G's granted set. */
bool gate_granted(const struct gate *g, const char *name);

/* Release what G owns and zero it. */
void gate_release(struct gate *g);
void gate_findings_clear(struct gate *g);
/* In file order (file, line, column), the same place in the order found. */
void gate_findings_sort(struct gate *g);

/* The engine hook (engine_judge_fn): judge METHOD PATH ?QUERY BODY for G.
 * 0 lets it go; -1 with TE_E_POLICY ("refused: FINDING", and "(N findings)"
 * when more) and G's findings set. */
int gate_judge(void *g, const char *method, const char *path, const char *query, const struct cJSON *body,
	       struct te_err *err);

/* The same judgment without an engine, adding to G's findings (kept
 * across calls until gate_findings_clear): for `check` and for `up` before
 * it creates anything. 0 when nothing was refused. */
int gate_judge_add(struct gate *g, const char *method, const char *path, const char *query,
		   const struct cJSON *body);

/* Host paths the engine never sees but taskenv reads or sends for the
 * file (env_file, secret and config files, build contexts and
 * Dockerfiles): each resolved and judged as a bind source. Adds to G's
 * findings; 0 when nothing was refused. */
int gate_judge_project(struct gate *g, const struct svc_project *p);

/* The first io.taskenv. label IMAGE (an image's inspect answer) carries
 * that LABELS (the container's own, which replace the image's) does not
 * set, or NULL: a container would inherit it and pose as a shared server
 * or another task's. Owned. */
char *gate_image_label_claim(const struct cJSON *image, const struct cJSON *labels);

/* The exceptions P's x-taskenv.allow names that G has not granted: a
 * finding each, naming the --allow and the config line that grant it. */
int gate_judge_needed(struct gate *g, const struct svc_project *p);

/* Published ports P writes on a host address other than loopback: bound
 * to 127.0.0.1 unless public-port is granted. One warning each
 * ("FILE:LINE:COL: SERVICE: ports: ..."), owned strv or NULL. */
char **gate_public_port_warnings(const struct gate *g, const struct svc_project *p);

/* "FILE:LINE:COL: SERVICE: KEY: REASON (needs --allow NAME)", or
 * "... (refused)" when no exception opens it. Owned. */
char *gate_finding_format(const struct gate_finding *f);

/* The realpath of P's project boundary: the nearest ancestor of the first
 * Compose file's directory that holds .git, else that directory. Owned. */
char *gate_project_boundary(const struct svc_project *p);

#endif
