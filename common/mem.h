/* Allocation wrappers that abort on OOM (crun xmalloc, git wrapper.c),
 * cleanup attributes for locals, and explicit ownership transfer. */
#ifndef TASKENV_COMMON_MEM_H
#define TASKENV_COMMON_MEM_H

#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>

void *xmalloc(size_t n);
void *xcalloc(size_t nmemb, size_t size);
void *xrealloc(void *p, size_t n);
/* Returns an owned copy; NULL in gives NULL out. */
char *xstrdup(const char *s);
char *xstrndup(const char *s, size_t n);
/* Owned, printf-formatted string. */
char *xasprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
char *xvasprintf(const char *fmt, va_list ap) __attribute__((format(printf, 1, 0)));

/* Free a NULL-terminated array of owned strings, and the array. */
void te_strv_free(char **v);
/* Number of entries in a NULL-terminated string array (NULL -> 0). */
size_t te_strv_len(char *const *v);
/* Append an owned string to a NULL-terminated array; returns the new array. */
char **te_strv_push(char **v, char *owned);
/* Deep copy; NULL in gives NULL out. */
char **te_strv_dup(char *const *v);

static inline void te_freep(void *p)
{
	void **pp = p;

	free(*pp);
}
static inline void te_strv_freep(char ***p)
{
	te_strv_free(*p);
}

#define te_autofree __attribute__((cleanup(te_freep)))
#define te_autostrv __attribute__((cleanup(te_strv_freep)))

/* Hand ownership on: returns the pointer and NULLs the variable so the
 * cleanup attribute does not free it. */
#define TE_STEAL(p) te_steal_ptr((void *)&(p))
static inline void *te_steal_ptr(void *pp)
{
	void **q = pp;
	void *r = *q;
	*q = NULL;
	return r;
}

#endif
