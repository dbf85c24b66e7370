/* `gc --orphans`: engine objects labelled with a ledger id that is not this
 * ledger's (a deleted or replaced ledger file leaves them: nobody's ledger
 * will ever take them down). Listed grouped by that id; removed one group
 * at a time, on request, only when no ledger file in the state directory
 * holds the id. This ledger's own orphans are plain `gc`'s (gc.h). */
#ifndef TASKENV_SERVICES_LIFECYCLE_ORPHANS_H
#define TASKENV_SERVICES_LIFECYCLE_ORPHANS_H

#include <stddef.h>

#include "services/progress.h"

struct engine;
struct ledger;
struct te_err;

struct svc_orphan_group {
	char *ledger_id;   /* owned */
	char **tasks;	   /* io.taskenv.task values, distinct, NULL-terminated, owned */
	size_t containers; /* objects of each kind */
	size_t networks;
	size_t volumes;
	long long oldest; /* creation time of the oldest / newest object, unix seconds; 0 unknown */
	long long newest;
	char *ledger_file; /* a ledger file under the state directory that holds the id, or NULL */
};

/* Every group on engine E (one list call per kind: containers, networks,
 * volumes, label io.taskenv.ledger), sorted by ledger id. *out owned
 * (svc_orphan_groups_free). Only GET requests. */
int svc_orphans_list(struct engine *e, struct ledger *l, struct svc_orphan_group **out, size_t *n,
		     struct te_err *err);
void svc_orphan_groups_free(struct svc_orphan_group *v, size_t n);

/* Remove the group LEDGER_ID: refused with TE_E_USAGE when it is L's own
 * id, TE_E_CONFLICT when a ledger file under L's directory holds it (its
 * tasks are taken down through that ledger). Containers (stopped at once),
 * then networks, then volumes, each through svc_res_before_remove (a
 * network or volume a container outside the group uses is kept).
 * *removed / *remaining count the objects; -1 with TE_E_REMAINS when
 * something remains. */
int svc_orphans_remove(struct engine *e, struct ledger *l, const char *ledger_id, svc_progress_fn progress,
		       void *progress_ctx, size_t *removed, size_t *remaining, struct te_err *err);

#endif
