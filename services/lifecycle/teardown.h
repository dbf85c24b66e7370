/* `down`: driven by the ledger alone, so it works after the Compose file
 * or the whole project directory is gone. */
#ifndef TASKENV_SERVICES_TEARDOWN_H
#define TASKENV_SERVICES_TEARDOWN_H

#include <stdbool.h>
#include <stddef.h>

#include "services/progress.h"

struct te_err;
struct engine;
struct ledger;

/* down --rmi, as Compose: LOCAL removes the images built for the task
 * without a custom image: name ("<task>-<service>"), ALL every image the
 * task built. Images the task only pulled are never removed: the ledger
 * does not own them (other tasks may use them). */
enum svc_rmi { SVC_RMI_NONE, SVC_RMI_LOCAL, SVC_RMI_ALL };

struct svc_down_opts {
	bool volumes;		  /* also remove named volumes (else they are kept) */
	enum svc_rmi rmi;	  /* built images to remove; the others are kept */
	int stop_timeout;	  /* seconds given to each container to stop; SVC_STOP_OWN (inuse.h):
				     each one's own StopTimeout and StopSignal */
	svc_progress_fn progress; /* may be NULL; what: "removed", "already gone", "kept",
				     "not ours, left alone", "failed: <reason>" */
	void *progress_ctx;
};

struct svc_down_result {
	size_t removed;	    /* removed now */
	size_t gone;	    /* recorded but already absent from the engine */
	size_t kept;	    /* volumes kept without --volumes */
	size_t kept_images; /* built images kept (see rmi) */
	size_t refused;	    /* engine object by that name carries another owner's labels */
	size_t remaining;   /* owned and still present after a failed removal (pending) */
	size_t swept;	    /* of removed: found by the label sweep, not in the ledger */
};

/* Remove what the ledger says TASK owns on engine E: containers (stop,
 * then DELETE ?v=1), then networks, then volumes when OPTS->volumes.
 * Containers go level by level (the dependency level `up` recorded), the
 * deepest first, the containers of one level at once; so do the networks,
 * images and volumes of the task, each kind at once.
 * Each object's io.taskenv.task and io.taskenv.ledger labels are checked
 * first; an object that belongs to anything else is never touched. Then a
 * label sweep (one list call per kind): objects labelled with TASK and this
 * ledger's id that no active row names are removed too (counted in removed
 * and swept; a volume without OPTS->volumes is recorded and kept; a failed
 * removal is recorded as pending). A
 * failed removal is recorded as pending and the rest goes on. When nothing
 * the task owns remains, the task row and its port reservations are
 * dropped; kept volumes and images keep the task (status "down") and its ports, so the
 * next `up` finds the same data on the same ports.
 * An unknown task is not an error (result all zero). Holds the task's
 * lock (state/owner.h) throughout: waits for an `up` of the task to finish.
 * Returns 0, or -1 with TE_E_REMAINS when owned objects remain (counted in
 * *res), or another code when the engine or ledger fails outright. */
int svc_down(struct engine *e, struct ledger *l, const char *task, const struct svc_down_opts *opts,
	     struct svc_down_result *res, struct te_err *err);

/* One container row R of TASK removed as down removes it (labels checked,
 * stopped within STOP_TIMEOUT seconds, removed; the row marked removed, or
 * pending when the removal failed: then -1 with TE_E_REMAINS). For a
 * caller that holds TASK's lock (scaling down). */
struct state_resource;
int svc_down_container(struct engine *e, struct ledger *l, const char *task, const struct state_resource *r,
		       int stop_timeout, svc_progress_fn progress, void *progress_ctx, struct te_err *err);

/* svc_down for a caller that already holds TASK's lock (svc_gc). */
int svc_down_locked(struct engine *e, struct ledger *l, const char *task, const struct svc_down_opts *opts,
		    struct svc_down_result *res, struct te_err *err);

#endif
