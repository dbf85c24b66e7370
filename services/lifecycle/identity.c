#include "services/lifecycle/identity.h"
#include "engine/engine.h"
#include "state/ledger.h"
#include "common/err.h"
#include "common/mem.h"

#define TE_WITH_CJSON
#include "common/cleanup.h"

#include <stdbool.h>
#include <string.h>

int svc_engine_identity(struct engine *e, char **id_out, struct te_err *err)
{
	te_autojson cJSON *info = NULL;
	const char *id, *name, *root;

	*id_out = NULL;
	if (engine_info(e, &info, err) < 0)
		return te_err_prefix(err, "engine identity: ");
	id = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(info, "ID"));
	name = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(info, "Name"));
	root = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(info, "DockerRootDir"));
	if (strcmp(engine_flavor(e), "podman") != 0 && id && *id) {
		*id_out = xasprintf("docker:%s", id);
		return 0;
	}
	if (!root || !*root)
		return te_err_set(err, TE_E_ENGINE,
				  "engine at '%s': GET /info names neither ID nor DockerRootDir",
				  engine_socket(e));
	*id_out = xasprintf("%s:%s:%s", engine_flavor(e), name ? name : "", root);
	return 0;
}

static int wrong_engine(struct engine *e, const struct state_task *t, const char *have, struct te_err *err)
{
	return te_err_set(err, TE_E_WRONG_ENGINE,
			  "task '%s' lives on the engine at unix://%s (%s), but unix://%s is another engine "
			  "(%s): nothing was touched; point DOCKER_HOST at unix://%s (or unset it)",
			  t->name, t->engine ? t->engine : "?", t->engine_id, engine_socket(e), have,
			  t->engine ? t->engine : "?");
}

int svc_engine_check(struct engine *e, struct ledger *l, const char *task, struct te_err *err)
{
	te_autofree char *have = NULL;
	struct state_task t;
	int rc = 0;

	if (state_task_get(l, task, &t, err) < 0)
		return -1;
	if (t.engine_id && *t.engine_id) {
		rc = svc_engine_identity(e, &have, err);
		if (rc == 0 && strcmp(have, t.engine_id) != 0)
			rc = wrong_engine(e, &t, have, err);
	}
	state_task_release(&t);
	return rc;
}

/* Does TASK still own anything (a row not removed)? */
static int owns_any(struct ledger *l, const char *task, bool *any, struct te_err *err)
{
	struct state_resource *rows = NULL;
	size_t n = 0;

	if (state_resource_list(l, task, false, &rows, &n, err) < 0)
		return -1;
	state_resources_free(rows, n);
	*any = n > 0;
	return 0;
}

int svc_engine_claim(struct engine *e, struct ledger *l, const char *task, char **id_out, struct te_err *err)
{
	te_autofree char *have = NULL;
	struct state_task t;
	bool any = false;
	int rc = 0;

	*id_out = NULL;
	if (svc_engine_identity(e, &have, err) < 0)
		return -1;
	if (state_task_get(l, task, &t, err) < 0) {
		if (err->code != TE_E_NOTFOUND)
			return -1;
		te_err_clear(err);
		*id_out = TE_STEAL(have);
		return 0;
	}
	if (t.engine_id && *t.engine_id && strcmp(t.engine_id, have) != 0) {
		rc = owns_any(l, task, &any, err);
		if (rc == 0 && any)
			rc = wrong_engine(e, &t, have, err);
	}
	state_task_release(&t);
	if (rc == 0)
		*id_out = TE_STEAL(have);
	return rc;
}
