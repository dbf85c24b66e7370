#include "services/lifecycle/files.h"
#include "services/model/compose.h"
#include "services/model/plan.h"
#include "state/ledger.h"

#include "common/err.h"
#include "common/mem.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define DEFAULT_MODE 0444

char *svc_files_dir(const struct ledger *l, const char *task)
{
	const char *path = state_path(l);
	const char *slash = strrchr(path, '/');

	if (!slash)
		return xasprintf("files/%s", task);
	return xasprintf("%.*s/files/%s", (int)(slash - path), path, task);
}

static int mkdir_0700(const char *path, struct te_err *err)
{
	if (mkdir(path, 0700) < 0 && errno != EEXIST)
		return te_err_set(err, TE_E_IO, "create directory '%s': %s", path, strerror(errno));
	return 0;
}

static int ensure_dir(const char *dir, struct te_err *err)
{
	te_autofree char *parent = xstrdup(dir);
	char *slash = strrchr(parent, '/');

	if (slash) {
		*slash = '\0';
		if (mkdir_0700(parent, err) < 0)
			return -1;
	}
	return mkdir_0700(dir, err);
}

static int write_value(const char *path, const char *value, int mode, struct te_err *err)
{
	te_autofree char *tmp = xasprintf("%s.tmp", path);
	size_t n = strlen(value), off = 0;
	int fd;

	unlink(tmp);
	fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0600);
	if (fd < 0)
		return te_err_set(err, TE_E_IO, "create '%s': %s", tmp, strerror(errno));
	while (off < n) {
		ssize_t w = write(fd, value + off, n - off);

		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0) {
			close(fd);
			unlink(tmp);
			return te_err_set(err, TE_E_IO, "write '%s': %s", tmp, strerror(errno));
		}
		off += (size_t)w;
	}
	if (fchmod(fd, (mode_t)mode) < 0 || close(fd) < 0 || rename(tmp, path) < 0) {
		unlink(tmp);
		return te_err_set(err, TE_E_IO, "write '%s': %s", path, strerror(errno));
	}
	return 0;
}

/* The mode the first reference to KEY asks for, else the default. */
static int ref_mode(const struct svc_project *p, bool secret, const char *key)
{
	for (size_t i = 0; i < p->n_services; i++) {
		const struct svc_service *s = &p->services[i];
		const struct svc_file_ref *r = secret ? s->secrets : s->configs;
		size_t n = secret ? s->n_secrets : s->n_configs;

		for (size_t j = 0; j < n; j++)
			if (strcmp(r[j].source, key) == 0 && r[j].mode >= 0)
				return r[j].mode;
	}
	return DEFAULT_MODE;
}

static bool used(const struct svc_project *p, bool secret, const char *key)
{
	for (size_t i = 0; i < p->n_services; i++) {
		const struct svc_service *s = &p->services[i];
		const struct svc_file_ref *r = secret ? s->secrets : s->configs;
		size_t n = secret ? s->n_secrets : s->n_configs;

		for (size_t j = 0; j < n; j++)
			if (strcmp(r[j].source, key) == 0)
				return true;
	}
	return false;
}

static int one_decl(const struct svc_plan *plan, bool secret, const struct svc_file_decl *d,
		    struct te_err *err)
{
	const char *what = secret ? "secret" : "config";
	te_autofree char *path = NULL;
	const char *value;
	struct stat st;

	if (d->kind == SVC_FILE_FILE) {
		if (stat(d->file, &st) < 0 || !S_ISREG(st.st_mode))
			return te_err_set(err, TE_E_IO, "%s '%s': file '%s' %s", what, d->key, d->file,
					  errno == ENOENT ? "not found" : "is not a regular file");
		return 0;
	}
	/* Compose's `environment:` source of a secret or config: the user's
	 * variable the file names, not a taskenv setting. */
	value = d->kind == SVC_FILE_CONTENT ? d->content : getenv(d->env);
	if (!value)
		return te_err_set(err, TE_E_USAGE, "%s '%s': environment variable '%s' is not set", what,
				  d->key, d->env ? d->env : "");
	if (ensure_dir(plan->files_dir, err) < 0)
		return -1;
	path = svc_plan_file_source(plan, secret, d->key);
	return write_value(path, value, ref_mode(plan->project, secret, d->key), err);
}

int svc_files_write(const struct svc_plan *plan, struct te_err *err)
{
	const struct svc_project *p = plan->project;

	for (int sec = 1; sec >= 0; sec--) {
		const struct svc_file_decl *d = sec ? p->secrets : p->configs;
		size_t n = sec ? p->n_secrets : p->n_configs;

		for (size_t i = 0; i < n; i++)
			if (used(p, sec, d[i].key) && one_decl(plan, sec, &d[i], err) < 0)
				return -1;
	}
	return 0;
}

int svc_files_remove(const char *dir, struct te_err *err)
{
	DIR *d = opendir(dir);
	struct dirent *de;

	if (!d)
		return errno == ENOENT ? 0 : te_err_set(err, TE_E_IO, "open '%s': %s", dir, strerror(errno));
	while ((de = readdir(d)) != NULL) {
		if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
			continue;
		if (unlinkat(dirfd(d), de->d_name, 0) < 0 && errno != ENOENT) {
			te_err_set(err, TE_E_IO, "remove '%s/%s': %s", dir, de->d_name, strerror(errno));
			closedir(d);
			return -1;
		}
	}
	closedir(d);
	if (rmdir(dir) < 0 && errno != ENOENT)
		return te_err_set(err, TE_E_IO, "remove '%s': %s", dir, strerror(errno));
	return 0;
}
