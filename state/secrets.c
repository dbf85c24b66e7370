#include "state/secrets.h"
#include "state/ledger.h"
#include "common/buf.h"
#include "common/err.h"
#include "common/mem.h"

#define TE_WITH_CJSON
#include "common/cleanup.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#define SECRETS_MAX (1 << 20)

static void closep(int *fd)
{
	if (*fd >= 0)
		close(*fd);
}
#define autofd __attribute__((cleanup(closep)))

static char *dir_path(struct ledger *l)
{
	return xasprintf("%s.secrets", state_path(l));
}

/* Open (creating 0700) and lock the directory; the lock goes with the fd. */
static int lock_dir(const char *dir, int *fd, struct te_err *err)
{
	if (mkdir(dir, 0700) < 0 && errno != EEXIST)
		return te_err_set(err, TE_E_IO, "create '%s': %s", dir, strerror(errno));
	*fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (*fd < 0)
		return te_err_set(err, TE_E_IO, "open '%s': %s", dir, strerror(errno));
	if (flock(*fd, LOCK_EX) < 0)
		return te_err_set(err, TE_E_IO, "lock '%s': %s", dir, strerror(errno));
	return 0;
}

/* The task's object, or an empty one when there is no file. */
static int read_all(const char *file, cJSON **out, struct te_err *err)
{
	te_autobuf struct te_buf b = TE_BUF_INIT(SECRETS_MAX);
	FILE *f = fopen(file, "re");
	char chunk[4096];
	size_t n;

	if (!f && errno == ENOENT) {
		*out = cJSON_CreateObject();
		return 0;
	}
	if (!f)
		return te_err_set(err, TE_E_IO, "read '%s': %s", file, strerror(errno));
	while ((n = fread(chunk, 1, sizeof(chunk), f)) > 0)
		if (te_buf_add(&b, chunk, n) < 0)
			break;
	fclose(f);
	*out = cJSON_Parse(b.data ? b.data : "");
	if (!cJSON_IsObject(*out)) {
		cJSON_Delete(*out);
		*out = NULL;
		return te_err_set(err, TE_E_IO, "read '%s': not a taskenv secrets file", file);
	}
	return 0;
}

static int write_all(const char *file, const cJSON *o, struct te_err *err)
{
	te_autofree char *tmp = xasprintf("%s.tmp", file);
	te_autofree char *text = cJSON_PrintUnformatted(o);
	autofd int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	size_t len = strlen(text), off = 0;

	if (fd < 0)
		return te_err_set(err, TE_E_IO, "create '%s': %s", tmp, strerror(errno));
	while (off < len) {
		ssize_t w = write(fd, text + off, len - off);

		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0)
			return te_err_set(err, TE_E_IO, "write '%s': %s", tmp, strerror(errno));
		off += (size_t)w;
	}
	if (fsync(fd) < 0 || rename(tmp, file) < 0)
		return te_err_set(err, TE_E_IO, "write '%s': %s", file, strerror(errno));
	return 0;
}

int state_secret_get(struct ledger *l, const char *task, const char *name, char **out, struct te_err *err)
{
	te_autofree char *dir = dir_path(l);
	te_autofree char *file = xasprintf("%s/%s.json", dir, task);
	te_autojson cJSON *o = NULL;
	autofd int fd = -1;

	*out = NULL;
	if (lock_dir(dir, &fd, err) < 0 || read_all(file, &o, err) < 0)
		return -1;
	*out = xstrdup(cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(o, name)));
	return 0;
}

int state_secret_put(struct ledger *l, const char *task, const char *name, const char *value,
		     struct te_err *err)
{
	te_autofree char *dir = dir_path(l);
	te_autofree char *file = xasprintf("%s/%s.json", dir, task);
	te_autojson cJSON *o = NULL;
	autofd int fd = -1;

	if (lock_dir(dir, &fd, err) < 0 || read_all(file, &o, err) < 0)
		return -1;
	cJSON_DeleteItemFromObjectCaseSensitive(o, name);
	cJSON_AddStringToObject(o, name, value);
	return write_all(file, o, err);
}

int state_secret_get_or_put(struct ledger *l, const char *task, const char *name, const char *value,
			    char **out, struct te_err *err)
{
	te_autofree char *dir = dir_path(l);
	te_autofree char *file = xasprintf("%s/%s.json", dir, task);
	te_autojson cJSON *o = NULL;
	autofd int fd = -1;
	const char *old;

	*out = NULL;
	if (lock_dir(dir, &fd, err) < 0 || read_all(file, &o, err) < 0)
		return -1;
	old = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(o, name));
	if (old) {
		*out = xstrdup(old);
		return 0;
	}
	cJSON_AddStringToObject(o, name, value);
	if (write_all(file, o, err) < 0)
		return -1;
	*out = xstrdup(value);
	return 0;
}

int state_secrets_drop(struct ledger *l, const char *task, struct te_err *err)
{
	te_autofree char *dir = dir_path(l);
	te_autofree char *file = xasprintf("%s/%s.json", dir, task);
	autofd int fd = -1;

	if (access(dir, F_OK) < 0 && errno == ENOENT)
		return 0;
	if (lock_dir(dir, &fd, err) < 0)
		return -1;
	if (unlink(file) < 0 && errno != ENOENT)
		return te_err_set(err, TE_E_IO, "remove '%s': %s", file, strerror(errno));
	return 0;
}
