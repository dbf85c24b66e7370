/* Scaling down (scale.h). */
#include "services/lifecycle/scale.h"
#include "services/lifecycle/teardown.h"
#include "services/model/compose.h"
#include "services/model/plan.h"
#include "state/ledger.h"
#include "common/err.h"
#include "common/mem.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* The replica number of container NAME of SERVICE in TASK
 * ("<task>-<service>-<n>"), or 0 when NAME is not one (a one-off). */
static int replica_of(const char *task, const char *service, const char *name)
{
	size_t t = strlen(task), s = strlen(service);
	const char *num;
	char *end;
	long n;

	if (strncmp(name, task, t) != 0 || name[t] != '-' || strncmp(name + t + 1, service, s) != 0 ||
	    name[t + 1 + s] != '-')
		return 0;
	num = name + t + s + 2;
	errno = 0;
	n = strtol(num, &end, 10);
	return errno || end == num || *end || n < 1 || n > 1000000 ? 0 : (int)n;
}

struct surplus {
	const struct state_resource *row;
	const struct svc_service *svc;
	int number;
};

static int by_number_desc(const void *a, const void *b)
{
	return ((const struct surplus *)b)->number - ((const struct surplus *)a)->number;
}

int svc_scale_down(struct engine *e, struct ledger *l, const struct svc_plan *plan, svc_progress_fn progress,
		   void *progress_ctx, struct te_err *err)
{
	const struct svc_project *p = plan->project;
	struct state_resource *rows = NULL;
	struct surplus *v;
	size_t n = 0, k = 0;
	int rc = 0;

	if (state_resource_list(l, plan->task, false, &rows, &n, err) < 0)
		return -1;
	v = xcalloc(n + 1, sizeof(*v));
	for (size_t i = 0; i < n; i++) {
		const struct svc_service *s =
		    rows[i].service ? svc_project_service(p, rows[i].service) : NULL;
		int num = s && strcmp(rows[i].kind, "container") == 0
			      ? replica_of(plan->task, s->name, rows[i].name)
			      : 0;

		if (s && num > svc_service_replicas(s))
			v[k++] = (struct surplus){&rows[i], s, num};
	}
	qsort(v, k, sizeof(*v), by_number_desc);
	for (size_t i = 0; i < k; i++) {
		const struct state_resource *r = v[i].row;
		long long grace = v[i].svc->stop_grace_ns;
		int stop_s = grace ? (int)((grace + 999999999) / 1000000000) : 10;
		struct te_err one = {0};

		if (svc_down_container(e, l, plan->task, r, stop_s, progress, progress_ctx, &one) < 0 ||
		    state_port_release_replica(l, plan->task, r->service, v[i].number, &one) < 0) {
			if (rc == 0)
				*err = one;
			rc = -1;
		}
	}
	free(v);
	state_resources_free(rows, n);
	return rc;
}
