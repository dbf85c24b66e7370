/* `up`: each service's image present, pulled or built (apply_int.h). */
#include "services/lifecycle/apply.h"
#include "services/lifecycle/reskind.h"
#include "services/lifecycle/apply_int.h"
#include "services/model/compose.h"
#include "services/model/plan.h"
#include "services/lifecycle/build.h"
#include "services/gate/gate.h"
#include "engine/build.h"
#include "common/fault.h"
#include "engine/engine.h"
#include "state/ledger.h"
#include "common/err.h"
#include "common/mem.h"

#define TE_WITH_CJSON
#include "common/cleanup.h"

#include <string.h>
#include <time.h>

/* Engines and Compose spell some architectures differently. */
static const char *arch_alias(const char *a)
{
	if (strcmp(a, "x86_64") == 0 || strcmp(a, "x86-64") == 0)
		return "amd64";
	if (strcmp(a, "aarch64") == 0)
		return "arm64";
	return a;
}

/* platform: "os/arch[/variant]" must be what the engine runs: taskenv does
 * not set up emulation. */
static int check_platform(struct up *u, const struct svc_service *s, struct te_err *err)
{
	te_autojson cJSON *ver = NULL;
	te_autofree char *want = NULL;
	const char *os, *arch;
	char *slash, *arch_w;

	if (!s->platform)
		return 0;
	if (engine_call(u->e, "GET", "/version", NULL, NULL, &ver, err) < 0)
		return te_err_prefix(err, "service '%s': platform: ", s->name);
	os = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(ver, "Os"));
	arch = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(ver, "Arch"));
	want = xstrdup(s->platform);
	slash = strchr(want, '/');
	arch_w = slash ? slash + 1 : NULL;
	if (slash)
		*slash = '\0';
	if (arch_w && strchr(arch_w, '/'))
		*strchr(arch_w, '/') = '\0';
	if (os && arch && strcmp(want, os) == 0 &&
	    (!arch_w || strcmp(arch_alias(arch_w), arch_alias(arch)) == 0))
		return 0;
	return te_err_set(
	    err, TE_E_USAGE,
	    "service '%s': platform '%s' cannot run on this engine, which runs %s/%s (taskenv does "
	    "not set up emulation); remove platform: or use an engine of that platform",
	    s->name, s->platform, os ? os : "?", arch ? arch : "?");
}

/* Is the image older than EVERY_NS (pull_policy daily / weekly / every_X)?
 * Its last tag time when the engine says (a pull tags it), else its
 * creation time; an age it cannot tell counts as old. */
static bool image_stale(const cJSON *img, long long every_ns)
{
	const char *t = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(
	    cJSON_GetObjectItemCaseSensitive(img, "Metadata"), "LastTagTime"));
	struct tm tm = {0};

	if (!t || strncmp(t, "0001-", 5) == 0)
		t = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(img, "Created"));
	if (!t || !strptime(t, "%Y-%m-%dT%H:%M:%S", &tm))
		return true;
	return (long long)(time(NULL) - timegm(&tm)) * 1000000000LL > every_ns;
}

/* WHY: "is not present and " or "" (pulled by pull_policy). */
static int pull(struct up *u, const struct svc_plan_container *c, const char *why, struct te_err *err)
{
	up_step(u, "image", c->image, "pulling");
	if (engine_image_pull(u->e, c->image, err) < 0)
		return te_err_prefix(err, "service '%s': image '%s' %scould not be pulled: ", c->svc->name,
				     c->image, why);
	up_step(u, "image", c->image, "pulled");
	return 0;
}

/* A build replaces the tag it writes: only one this task's earlier build
 * left (its labels name this task and ledger), never one that carries
 * another task's label or none, as with container names. */
static int check_tag_owner(struct up *u, const struct svc_plan_container *c, struct te_err *err)
{
	te_autojson cJSON *img = NULL;
	const cJSON *cfg, *lab;
	const char *task, *led;

	if (engine_image_inspect(u->e, c->image, &img, err) < 0) {
		if (err->code != TE_E_NOTFOUND)
			return te_err_prefix(err, "service '%s': ", c->svc->name);
		te_err_clear(err);
		return 0;
	}
	if (up_owned(u->plan, img))
		return 0;
	cfg = cJSON_GetObjectItemCaseSensitive(img, "Config");
	lab = cJSON_GetObjectItemCaseSensitive(cfg, "Labels");
	if (!cJSON_IsObject(lab))
		lab = cJSON_GetObjectItemCaseSensitive(img, "Labels");
	task = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(lab, "io.taskenv.task"));
	led = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(lab, "io.taskenv.ledger"));
	if (task)
		return te_err_set(err, TE_E_CONFLICT,
				  "service '%s': image '%s' exists and belongs to task '%s'%s%s%s: a build "
				  "never replaces another task's tag; taskenv leaves it alone",
				  c->svc->name, c->image, task, led ? " (ledger " : "", led ? led : "",
				  led ? ")" : "");
	return te_err_set(
	    err, TE_E_CONFLICT,
	    "service '%s': image '%s' exists and carries no task's label: a build never replaces "
	    "a tag taskenv did not make; remove it yourself or pick another task name",
	    c->svc->name, c->image);
}

/* IMG (C's image) carries io.taskenv. labels its containers would inherit
 * (a LABEL in the Dockerfile, or a base image's): refused before anything
 * runs it. */
static int check_image_labels(struct up *u, const struct svc_plan_container *c, const cJSON *img,
			      struct te_err *err)
{
	te_autojson cJSON *labels = svc_plan_labels(u->plan, "container", c->svc->name);
	te_autofree char *claim = gate_image_label_claim(img, labels);
	const struct svc_loc *at = &c->svc->loc;

	if (!claim)
		return 0;
	return te_err_set(err, TE_E_POLICY,
			  "refused: %s:%d:%d: %s: image: image '%s' carries the label '%s': the io.taskenv. "
			  "prefix is taskenv's, and a container would inherit it (refused)",
			  at->file ? at->file : "?", at->line, at->col, c->svc->name, c->image, claim);
}

/* Build when asked (up --build, pull_policy: build) or when the image is
 * missing; pull as pull_policy says (missing: when absent, as Compose
 * does; always: every time; never: not at all; daily/weekly/every_X: when
 * older than that). */
static int check_image(struct up *u, size_t i, struct te_err *err)
{
	const struct svc_plan_container *c = &u->plan->containers[i];
	const struct svc_service *s = c->svc;
	te_autojson cJSON *img = NULL;
	enum svc_pull policy;
	long long every;
	bool forced;

	if (svc_pull_policy(s->pull_policy, &policy, &every) < 0)
		TE_BUG("pull_policy not checked by the loader");
	forced = c->build && (u->opts->build || policy == SVC_PULL_BUILD);
	if (check_platform(u, s, err) < 0 || (c->build && check_tag_owner(u, c, err) < 0))
		return -1;
	/* Podman's compat API takes Config.Domainname and drops it (4.3), and
	 * refuses the kernel.domainname sysctl: say so rather than be silent. */
	if (s->domainname && strcmp(engine_flavor(u->e), "podman") == 0)
		up_step(u, "service", s->name,
			"warning: domainname is not applied by Podman's Docker-compatible API");
	if (!forced) {
		te_fault_point("before-inspect", "image", c->image);
		if (engine_image_inspect(u->e, c->image, &img, err) == 0) {
			te_fault_point("after-inspect", "image", c->image);
			if (check_image_labels(u, c, img, err) < 0)
				return -1;
			if (!c->build && (policy == SVC_PULL_ALWAYS ||
					  (policy == SVC_PULL_REFRESH && image_stale(img, every))))
				return pull(u, c, "", err);
			return 0;
		}
	}
	if (!forced && err->code != TE_E_NOTFOUND)
		return te_err_prefix(err, "service '%s': ", s->name);
	if (c->build) {
		u->need_build[i] = true;
		return 0;
	}
	if (policy == SVC_PULL_NEVER)
		return te_err_set(err, TE_E_FAIL,
				  "service '%s': image '%s' is not present and pull_policy is never", s->name,
				  c->image);
	return pull(u, c, "is not present and ", err);
}

/* Once per service: its replicas run the same image. */
int up_check_images(struct up *u, struct te_err *err)
{
	u->need_build = xcalloc(u->plan->n_containers + 1, sizeof(bool));
	for (size_t i = 0; i < u->plan->n_containers; i++)
		if (u->plan->containers[i].number == 1 && check_image(u, i, err) < 0)
			return -1;
	return 0;
}

/* The task's active image row for NAME, if any. */
static long long image_row(struct up *u, const char *name, struct te_err *err)
{
	struct state_resource *rows = NULL;
	size_t n = 0;
	long long id = 0;

	if (state_resource_list(u->l, u->plan->task, false, &rows, &n, err) < 0)
		return -1;
	for (size_t i = 0; i < n && !id; i++)
		if (svc_res_kind_of(rows[i].kind) == SVC_RES_IMAGE && strcmp(rows[i].name, name) == 0)
			id = rows[i].id;
	state_resources_free(rows, n);
	return id;
}

/* The id C's tag points at before a rebuild, to replace what runs it. */
static void remember_old_image(struct up *u, const struct svc_plan_container *c)
{
	te_autojson cJSON *img = NULL;
	struct te_err ignored;
	const char *id;

	if (engine_image_inspect(u->e, c->image, &img, &ignored) < 0)
		return;
	id = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(img, "Id"));
	u->old_image[c - u->plan->containers] = id ? xstrdup(id) : NULL;
}

/* Record, build, record the image id. An image: name another task already
 * holds is built but not claimed (the tag is shared; its owner removes it). */
static int build_one(struct up *u, const struct svc_plan_container *c, struct te_err *err)
{
	long long row = image_row(u, c->image, err);
	bool fresh = row == 0;
	te_autojson cJSON *img = NULL;
	const char *id;

	if (row < 0)
		return -1;
	remember_old_image(u, c);
	if (fresh && state_resource_intend(u->l, u->plan->task, svc_res_kind_name(SVC_RES_IMAGE), c->image,
					   c->svc->name, &row, err) < 0) {
		if (err->code != TE_E_CONFLICT)
			return -1;
		row = 0;
		fresh = false;
	}
	up_step(u, "image", c->image, "building");
	if (svc_build_image(u->e, u->plan, c, u->opts->progress, u->opts->progress_ctx, err) < 0) {
		struct te_err ignored;

		if (fresh)
			state_resource_set_state(u->l, row, STATE_REMOVED, &ignored);
		return -1;
	}
	if (engine_image_inspect(u->e, c->image, &img, err) < 0)
		return te_err_prefix(err, "service '%s': built image '%s': ", c->svc->name, c->image);
	if (check_image_labels(u, c, img, err) < 0) {
		struct te_err ignored;

		/* nothing runs it: the image this build made goes, and its row */
		engine_image_remove(u->e, c->image, true, &ignored);
		if (fresh)
			state_resource_set_state(u->l, row, STATE_REMOVED, &ignored);
		return -1;
	}
	id = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(img, "Id"));
	up_step(u, "image", c->image, "built");
	if (id && u->old_image[c - u->plan->containers] &&
	    strcmp(id, u->old_image[c - u->plan->containers]) == 0) {
		free(u->old_image[c - u->plan->containers]); /* the same image: nothing replaced */
		u->old_image[c - u->plan->containers] = NULL;
	}
	return row ? state_resource_created(u->l, row, id ? id : c->image, err) : 0;
}

int up_build_all(struct up *u, struct te_err *err)
{
	u->old_image = xcalloc(u->plan->n_containers + 1, sizeof(char *));
	for (size_t i = 0; i < u->plan->n_containers; i++)
		if (u->need_build[i] && build_one(u, &u->plan->containers[i], err) < 0)
			return -1;
	return 0;
}

/* After a rebuild, the image it replaced is untagged: remove it when it is
 * ours and nothing uses it any more (a failure leaves it, harmlessly). */
void up_drop_old_images(struct up *u)
{
	for (size_t i = 0; u->old_image && i < u->plan->n_containers; i++) {
		te_autojson cJSON *img = NULL;
		const cJSON *tags;
		struct te_err ignored;

		if (!u->old_image[i] || engine_image_inspect(u->e, u->old_image[i], &img, &ignored) < 0)
			continue;
		tags = cJSON_GetObjectItemCaseSensitive(img, "RepoTags");
		if (!up_owned(u->plan, img) || cJSON_GetArraySize(tags) > 0)
			continue;
		if (engine_image_remove(u->e, u->old_image[i], false, &ignored) == 0)
			up_step(u, "image", u->old_image[i], "removed (replaced by a rebuild)");
	}
}
