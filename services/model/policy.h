/* The limits taskenv applies when the file is silent. What a file may ask
 * for is no longer judged here: the policy gate (services/gate/gate.h)
 * judges the Engine requests the plan makes (docs/security.md). */
#ifndef TASKENV_SERVICES_POLICY_H
#define TASKENV_SERVICES_POLICY_H

#include <stdbool.h>
#include <stddef.h>

#include "services/model/compose.h"

/* Limits applied when the file is silent: the limits.* and
 * no_new_privileges settings (services/settings.h), which cmd/ reads. */
struct svc_policy_defaults {
	long long memory;	/* bytes; 0 = none */
	double cpus;		/* 0 = none */
	long long pids;		/* 0 = none */
	bool no_new_privileges; /* add no-new-privileges:true unless written */
};

/* Fill what each service leaves unset: mem_limit, cpus, pids_limit, and
 * security_opt no-new-privileges:true unless a no-new-privileges entry is
 * written. */
void svc_policy_apply_defaults(struct svc_project *p, const struct svc_policy_defaults *d);

#endif
