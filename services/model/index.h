/* A hash index over an array of structs by a name member, so that finding
 * an entry by name stays constant time as the loader fills large lists
 * (labels, services, a mapping's keys). The array is the caller's; the
 * index holds positions only. Internal to services/model/. */
#ifndef TASKENV_SERVICES_MODEL_INDEX_H
#define TASKENV_SERVICES_MODEL_INDEX_H

#include <stddef.h>
#include <stdint.h>

struct svc_index {
	size_t *slot; /* position + 1, 0 empty; CAP a power of two */
	size_t cap;
	size_t size; /* bytes of one entry */
	size_t off;  /* offsetof its `char *` name */
};

/* SVC_INDEX(struct svc_service, name): the index of that array's members. */
#define SVC_INDEX(type, member)                                                                              \
	{                                                                                                    \
		NULL, 0, sizeof(type), offsetof(type, member)                                                \
	}

/* Index the N entries of ARR (X's size and off set). */
void svc_index_build(struct svc_index *x, const void *arr, size_t n);
/* The position of NAME in ARR (indexed with N entries), or SIZE_MAX. */
size_t svc_index_find(const struct svc_index *x, const void *arr, const char *name);
/* Entry N - 1 of ARR (which may have moved) was just appended: index it. */
void svc_index_added(struct svc_index *x, const void *arr, size_t n);
void svc_index_release(struct svc_index *x);
/* FNV-1a of S. */
uint64_t svc_hash(const char *s);

#endif
