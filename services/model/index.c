#include "services/model/index.h"

#include "common/mem.h"

#include <stdlib.h>
#include <string.h>

uint64_t svc_hash(const char *s)
{
	uint64_t h = 1469598103934665603ull;

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ull;
	return h;
}

static const char *name_at(const struct svc_index *x, const void *arr, size_t i)
{
	return *(char *const *)((const char *)arr + i * x->size + x->off);
}

/* Open addressing: the slot NAME is in, or the empty one it would take. */
static size_t slot_of(const struct svc_index *x, const void *arr, const char *name)
{
	size_t i = (size_t)(svc_hash(name) & (x->cap - 1));

	while (x->slot[i] && strcmp(name_at(x, arr, x->slot[i] - 1), name) != 0)
		i = (i + 1) & (x->cap - 1);
	return i;
}

void svc_index_build(struct svc_index *x, const void *arr, size_t n)
{
	size_t cap = 16;

	while (n * 2 >= cap)
		cap *= 2;
	free(x->slot);
	x->slot = xcalloc(cap, sizeof(*x->slot));
	x->cap = cap;
	/* The first of two entries of one name is the one found. */
	for (size_t i = 0; i < n; i++) {
		size_t s = slot_of(x, arr, name_at(x, arr, i));

		if (!x->slot[s])
			x->slot[s] = i + 1;
	}
}

size_t svc_index_find(const struct svc_index *x, const void *arr, const char *name)
{
	size_t s;

	if (!x->cap)
		return SIZE_MAX;
	s = slot_of(x, arr, name);
	return x->slot[s] ? x->slot[s] - 1 : SIZE_MAX;
}

void svc_index_added(struct svc_index *x, const void *arr, size_t n)
{
	size_t s;

	if (n * 2 >= x->cap) {
		svc_index_build(x, arr, n);
		return;
	}
	s = slot_of(x, arr, name_at(x, arr, n - 1));
	if (!x->slot[s])
		x->slot[s] = n;
}

void svc_index_release(struct svc_index *x)
{
	free(x->slot);
	x->slot = NULL;
	x->cap = 0;
}
