/* What verify.c and verify_host.c share: the run's state and how a
 * check reports. Internal to services/contract/. */
#ifndef TASKENV_SERVICES_CONTRACT_VERIFY_INT_H
#define TASKENV_SERVICES_CONTRACT_VERIFY_INT_H

#include "services/contract/snapshot.h"

#include <cjson/cJSON.h>

struct engine;
struct ledger;

struct verify {
	struct engine *e;
	struct ledger *l;
	struct svc_snapshot s;
	cJSON *live;	/* [{"name","row" (index or -1),"inspect"}] every container of the task */
	cJSON *results; /* the output array */
	int failed;
};

/* Append one result (SVC_VERIFY_PASS/FAIL/...) to V->results; a FAIL counts. */
void svc_verify_result(struct verify *v, const char *check, const char *subject, const char *res,
		       const char *fmt, ...) __attribute__((format(printf, 5, 6)));

/* An inspect answer's Name without the leading '/' (borrowed from OBJ). */
const char *svc_verify_name_of(const cJSON *obj);

/* The hostconfig check of every live container (verify_host.c). */
void svc_verify_hostconfig(struct verify *v);

#endif
