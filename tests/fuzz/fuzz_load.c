/* Fuzz harness over the Compose loader, interpolation, merge, policy and
 * the config printer: the input is written to a temporary compose.yaml,
 * loaded (with the .env beside it absent), checked, printed, freed.
 *
 * Built with clang -fsanitize=fuzzer (TASKENV_FUZZ=ON, scripts/fuzz.sh) it
 * is a libFuzzer target. Built without it (FUZZ_REPLAY) it is a corpus
 * replayer: `fuzz_load_replay FILE|DIR...` runs every file given, and every
 * compose*.yaml / *.yml below a directory, once (ctest label fuzz). */
#include "services/model/compose.h"
#include "services/model/config.h"
#include "services/model/load.h"
#include "services/model/policy.h"
#include "services/model/plan.h"
#include "services/gate/gate.h"
#include "services/lifecycle/guard.h"
#include "common/err.h"
#include "common/mem.h"

#include "tests/fuzz/harness.h"

#include <cjson/cJSON.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The gate on the plan's bodies, as `taskenv check` judges them. */
static void judge(struct svc_project *p)
{
	struct te_err err = {0};
	struct svc_plan *plan = svc_plan_build(p, "fuzz", "fuzz", &err);
	struct gate g = {0};

	gate_exceptions_validate(p->allow, "x-taskenv.allow", &err);
	if (!plan)
		return;
	g.task = xstrdup("fuzz");
	g.ledger_id = xstrdup("fuzz");
	g.boundary = gate_project_boundary(p);
	svc_guard_plan(&g, NULL, plan);
	for (size_t i = 0; i < g.n; i++)
		free(gate_finding_format(&g.v[i]));
	gate_release(&g);
	svc_plan_free(plan);
}

static void exercise(struct svc_project *p)
{
	struct svc_policy_defaults d = {1 << 30, 1, 100, true};
	struct te_err err = {0};
	cJSON *json;

	judge(p);
	svc_policy_apply_defaults(p, &d);
	json = svc_config_json(p, "fuzz", &err);
	if (json) {
		free(svc_config_yaml(json, &err));
		cJSON_Delete(json);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *files[] = {(char *)fuzz_write_input("compose.yaml", data, size), NULL};
	struct te_err err = {0};
	struct svc_project *p = svc_load(files, &err);

	if (p) {
		exercise(p);
		svc_project_free(p);
	}
	return 0;
}

#ifdef FUZZ_REPLAY
static bool yaml_name(const char *name)
{
	size_t n = strlen(name);

	return (n > 5 && strcmp(name + n - 5, ".yaml") == 0) || (n > 4 && strcmp(name + n - 4, ".yml") == 0);
}

int main(int argc, char **argv)
{
	return fuzz_replay_main(argc, argv, yaml_name);
}
#endif
