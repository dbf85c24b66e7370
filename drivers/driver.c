#include "drivers/driver.h"
#include "drivers/postgres.h"
#include "drivers/rabbitmq.h"
#include "drivers/s3.h"
#include "common/err.h"
#include "common/fault.h"
#include "common/mem.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/random.h>

static const struct drv_ops *const drivers[] = {
    &drv_postgres,
    &drv_rabbitmq,
    &drv_s3,
};

_Static_assert(sizeof(drivers) / sizeof(drivers[0]) == DRV_COUNT, "DRV_COUNT must match the driver table");

const struct drv_ops *drv_at(size_t i)
{
	return i < DRV_COUNT ? drivers[i] : NULL;
}

const struct drv_ops *drv_find(const char *name)
{
	for (size_t i = 0; name && i < DRV_COUNT; i++)
		if (strcmp(drivers[i]->name, name) == 0)
			return drivers[i];
	return NULL;
}

const struct drv_ops *drv_for_kind(const char *kind)
{
	for (size_t i = 0; kind && i < DRV_COUNT; i++)
		for (const char *const *k = drivers[i]->kinds; *k; k++)
			if (strcmp(*k, kind) == 0)
				return drivers[i];
	return NULL;
}

int drv_record(const struct drv_recorder *rec, const char *kind, const char *name, const char *detail,
	       drv_create_fn create, void *ctx, struct te_err *err)
{
	long long row;
	int rc;

	if (rec->intend(rec->ctx, kind, name, detail, &row, err) < 0)
		return -1;
	te_fault_point("before-create", kind, name);
	rc = create(ctx, name, err);
	if (rc < 0)
		return -1;
	if (rc == 1 && rec->found)
		rec->found(rec->ctx, row);
	te_fault_point("after-create", kind, name);
	return rec->created(rec->ctx, row, name, err);
}

void drv_release_all(void)
{
	for (size_t i = 0; i < sizeof(drivers) / sizeof(drivers[0]); i++)
		if (drivers[i]->release)
			drivers[i]->release();
}

const char *drv_names(void)
{
	return "postgres, rabbitmq, s3";
}

char *drv_secret_server(const char *key)
{
	return xasprintf("server:%s", key);
}

char *drv_secret_password(const char *key)
{
	return xasprintf("password:%s", key);
}

char *drv_random_password(struct te_err *err)
{
	unsigned char raw[16];
	size_t got = 0;
	char *out = xmalloc(sizeof(raw) * 2 + 1);

	while (got < sizeof(raw)) {
		ssize_t r = getrandom(raw + got, sizeof(raw) - got, 0);

		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			free(out);
			te_err_set(err, TE_E_IO, "getrandom: %s", strerror(errno));
			return NULL;
		}
		got += (size_t)r;
	}
	for (size_t i = 0; i < sizeof(raw); i++)
		snprintf(out + 2 * i, 3, "%02x", raw[i]);
	return out;
}

int drv_task_password(const struct drv_recorder *rec, const char *key, char **out, struct te_err *err)
{
	te_autofree char *name = drv_secret_password(key);

	if (rec->secret_get(rec->ctx, name, out, err) < 0)
		return -1;
	if (*out)
		return 0;
	*out = drv_random_password(err);
	if (!*out)
		return -1;
	return rec->secret_put(rec->ctx, name, *out, err);
}

static uint32_t fnv1a(const char *s)
{
	uint32_t h = 2166136261u;

	for (; *s; s++) {
		h ^= (unsigned char)*s;
		h *= 16777619u;
	}
	return h;
}

char *drv_plain_name(const char *prefix, const char *ledger_id, const char *task, const char *key, size_t max)
{
	te_autofree char *seed = xasprintf("%s/%s/%s", ledger_id, task, key);
	te_autofree char *base = xasprintf("%s%s_%s", prefix, task, key);
	size_t n = strlen(base);

	for (char *c = base; *c; c++)
		if (!((*c >= 'a' && *c <= 'z') || (*c >= '0' && *c <= '9')))
			*c = '_';
	if (n > max - 9)
		n = max - 9;
	return xasprintf("%.*s_%08x", (int)n, base, fnv1a(seed));
}

char *drv_object_name(const char *prefix, const char *task, const char *key, size_t max)
{
	char *full = xasprintf("%s%s_%s", prefix, task, key);
	char *out;

	if (strlen(full) <= max)
		return full;
	out = xasprintf("%.*s_%08x", (int)(max - 9), full, fnv1a(full));
	free(full);
	return out;
}
