#include "services/contract/worktree.h"
#include "services/lifecycle/reskind.h"
#include "services/model/compose.h"
#include "services/contract/git.h"
#include "services/model/boundary.h"
#include "engine/engine.h"
#include "state/ledger.h"
#include "common/buf.h"
#include "common/err.h"
#include "common/mem.h"

#define TE_WITH_CJSON
#include "common/cleanup.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char *default_path(const char *top, const char *task)
{
	return xasprintf("%s-%s", top, task);
}

static int fill_repo(const char *cwd, const char *base, struct state_worktree *w, char **top,
		     struct te_err *err)
{
	const char *common[] = {"rev-parse", "--path-format=absolute", "--git-common-dir", NULL};
	te_autofree char *rev = xasprintf("%s^{commit}", base ? base : "HEAD");
	const char *commit[] = {"rev-parse", "--verify", "--quiet", rev, NULL};

	w->repo = svc_git_line(cwd, common, err);
	if (!w->repo)
		return te_err_prefix(err, "'%s' is not in a git repository: ", cwd);
	/* The top by looking, not by asking git: core.worktree in the
	 * repository's config (untrusted) would move --show-toplevel to "/". */
	*top = svc_project_boundary(cwd);
	if (!*top)
		return te_err_set(err, TE_E_IO, "'%s': %s", cwd, strerror(errno));
	w->base = svc_git_line(cwd, commit, err);
	if (!w->base || !*w->base)
		return te_err_set(err, TE_E_USAGE, "base '%s' is not a commit of '%s'", base ? base : "HEAD",
				  w->repo);
	return 0;
}

static int git_add(const char *cwd, const struct state_worktree *w, struct te_err *err)
{
	const char *args[] = {"worktree", "add", "--quiet", "-b", w->branch, w->path, w->base, NULL};
	te_autofree char *out = svc_git_line(cwd, args, err);

	return out ? 0 : -1;
}

static int make(const char *cwd, const char *task, const char *prefix, const char *base, const char *path,
		struct state_worktree *w, struct te_err *err)
{
	const char *status[] = {"status", "--porcelain", NULL};
	te_autofree char *top = NULL;
	char real[PATH_MAX];

	w->task = xstrdup(task);
	if (fill_repo(cwd, base, w, &top, err) < 0)
		return -1;
	w->branch = xasprintf("%s/%s", prefix, task);
	w->path = path ? xstrdup(path) : default_path(top, task);
	if (git_add(cwd, w, err) < 0)
		return -1;
	if (realpath(w->path, real)) {
		free(w->path);
		w->path = xstrdup(real);
	}
	w->initial_status = svc_git_line(w->path, status, err);
	return w->initial_status ? 0 : -1;
}

int svc_worktree_add(struct ledger *l, const char *cwd, const char *task, const char *prefix,
		     const char *base, const char *path, struct state_worktree *out, struct te_err *err)
{
	struct state_worktree w = {0}, old;
	int rc = -1;

	if (state_worktree_get(l, task, &old, err) == 0) {
		te_err_set(err, TE_E_CONFLICT, "task '%s' already has a worktree at '%s'", task, old.path);
		state_worktree_release(&old);
		return -1;
	}
	te_err_clear(err);
	if (make(cwd, task, prefix, base, path, &w, err) == 0)
		rc = state_worktree_add(l, &w, err);
	if (rc == 0 && out)
		*out = w;
	else
		state_worktree_release(&w);
	return rc;
}

static int append_status(const char *dir, const char *title, const char *const *args, struct te_buf *b,
			 struct te_err *err)
{
	te_autofree char *s = svc_git_line(dir, args, err);

	if (!s)
		return -1;
	te_buf_addf(b, "%s:\n%s%s", title, *s ? s : "  (nothing)", "\n");
	return 0;
}

char *svc_worktree_inventory(const struct state_worktree *w, struct te_err *err)
{
	const char *all[] = {"status", "--short", "--untracked-files=all", NULL};
	const char *ign[] = {"status", "--short", "--ignored", NULL};
	te_autobuf struct te_buf b = TE_BUF_INIT(SVC_GIT_OUTPUT_MAX);

	te_buf_addf(&b, "worktree %s (branch %s, base %.12s)\n", w->path, w->branch, w->base);
	if (append_status(w->path, "git status --short --untracked-files=all", all, &b, err) < 0 ||
	    append_status(w->path, "git status --short --ignored (ignored files '!!' are deleted too)", ign,
			  &b, err) < 0)
		return NULL;
	return te_buf_detach(&b);
}

static bool is_running(struct engine *e, const char *id)
{
	te_autojson cJSON *obj = NULL;
	struct te_err ignored;

	if (engine_container_inspect(e, id, &obj, &ignored) < 0)
		return ignored.code != TE_E_NOTFOUND;
	return cJSON_IsTrue(cJSON_GetObjectItem(cJSON_GetObjectItem(obj, "State"), "Running"));
}

int svc_worktree_running(struct engine *e, struct ledger *l, const char *task, int *running,
			 struct te_err *err)
{
	struct state_resource *rows = NULL;
	size_t n = 0;

	*running = 0;
	if (state_resource_list(l, task, false, &rows, &n, err) < 0)
		return -1;
	for (size_t i = 0; i < n; i++) {
		if (svc_res_kind_of(rows[i].kind) != SVC_RES_CONTAINER)
			continue;
		if (!e || is_running(e, rows[i].engine_id ? rows[i].engine_id : rows[i].name))
			(*running)++;
	}
	state_resources_free(rows, n);
	return 0;
}

static int check_clean(const struct state_worktree *w, int running, struct te_err *err)
{
	const char *tracked[] = {"status", "--porcelain", "--untracked-files=no", NULL};
	te_autofree char *s = NULL;

	if (running > 0)
		return te_err_set(err, TE_E_CONFLICT,
				  "task '%s' has %d running container(s); run 'taskenv down -t %s' first "
				  "(or --force)",
				  w->task, running, w->task);
	s = svc_git_line(w->path, tracked, err);
	if (!s)
		return -1;
	if (*s)
		return te_err_set(err, TE_E_CONFLICT,
				  "worktree '%s' has uncommitted changes to tracked files; commit them "
				  "(or --force to lose them)",
				  w->path);
	return 0;
}

int svc_worktree_remove(struct ledger *l, const struct state_worktree *w, int running,
			const struct svc_worktree_remove_opts *opts, struct te_err *err)
{
	const char *rm[] = {"worktree", "remove", opts->force ? "--force" : w->path,
			    opts->force ? w->path : NULL, NULL};
	const char *br[] = {"branch", "-D", w->branch, NULL};
	te_autofree char *a = NULL;
	te_autofree char *b = NULL;

	if (!opts->force && check_clean(w, running, err) < 0)
		return -1;
	a = svc_git_line(w->repo, rm, err);
	if (!a)
		return -1;
	if (opts->delete_branch) {
		b = svc_git_line(w->repo, br, err);
		if (!b)
			return -1;
	}
	return state_worktree_delete(l, w->task, err);
}

int svc_worktree_is_linked(const char *dir, char **gitdir)
{
	te_autofree char *p = xasprintf("%s/.git", dir);
	char line[PATH_MAX + 16];
	FILE *f = fopen(p, "r");
	int linked = 0;

	if (!f)
		return 0;
	if (fgets(line, sizeof(line), f) && strncmp(line, "gitdir: ", 8) == 0) {
		line[strcspn(line, "\r\n")] = '\0';
		linked = 1;
		if (gitdir)
			*gitdir = xstrdup(line + 8);
	}
	fclose(f);
	return linked;
}

/* GITDIR is "<common dir>/worktrees/<name>": mounting the common dir
 * read-only at its own path makes git work inside, and is what we offer. */
static char *worktree_warning(const char *service, const struct svc_mount *m, const char *gitdir)
{
	te_autofree char *common = xstrdup(gitdir);
	char *cut = strstr(common, "/worktrees/");

	if (cut)
		*cut = '\0';
	return xasprintf(
	    "service '%s' bind-mounts the git worktree '%s' at '%s': its .git file points at "
	    "the host path '%s', so git does not work inside the container (the contract records "
	    "this); to let git work, also mount '%s:%s:ro'",
	    service, m->source, m->target, gitdir, common, common);
}

char **svc_worktree_mount_warnings(const struct svc_project *p)
{
	char **w = NULL;

	for (size_t i = 0; i < p->n_services; i++) {
		const struct svc_service *s = &p->services[i];

		for (size_t j = 0; j < s->n_mounts; j++) {
			te_autofree char *gitdir = NULL;
			const struct svc_mount *m = &s->mounts[j];

			if (m->type != SVC_MOUNT_BIND || !m->source ||
			    !svc_worktree_is_linked(m->source, &gitdir))
				continue;
			w = te_strv_push(w, worktree_warning(s->name, m, gitdir));
		}
	}
	return w;
}
