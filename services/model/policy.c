/* The limits taskenv applies when the file is silent. */
#include "services/model/policy.h"
#include "common/mem.h"

#include <string.h>

static bool has_nnp(const struct svc_service *s)
{
	for (size_t i = 0; s->security_opt && s->security_opt[i]; i++)
		if (strncmp(s->security_opt[i], "no-new-privileges", 17) == 0)
			return true;
	return false;
}

void svc_policy_apply_defaults(struct svc_project *p, const struct svc_policy_defaults *d)
{
	for (size_t i = 0; i < p->n_services; i++) {
		struct svc_service *s = &p->services[i];

		if (!s->mem_limit && d->memory)
			s->mem_limit = d->memory;
		if (s->cpus <= 0 && d->cpus > 0)
			s->cpus = d->cpus;
		if (!s->pids_limit && d->pids)
			s->pids_limit = d->pids;
		if (d->no_new_privileges && !has_nnp(s))
			s->security_opt = te_strv_push(s->security_opt, xstrdup("no-new-privileges:true"));
	}
}
