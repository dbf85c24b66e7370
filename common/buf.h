/* A growable byte buffer with a hard cap (curl dynbuf): network reads go
 * here so a misbehaving peer cannot make us allocate without bound. */
#ifndef TASKENV_COMMON_BUF_H
#define TASKENV_COMMON_BUF_H

#include <stddef.h>

struct te_buf {
	char *data; /* owned; always NUL-terminated when non-NULL */
	size_t len; /* bytes used, excluding the NUL */
	size_t cap; /* bytes allocated */
	size_t max; /* hard cap on len in bytes; 0 means unlimited */
};

#define TE_BUF_INIT(max_bytes)                                                                               \
	{                                                                                                    \
		NULL, 0, 0, (max_bytes)                                                                      \
	}

void te_buf_init(struct te_buf *b, size_t max_bytes);
/* Append N bytes. Returns 0, or -1 (buffer unchanged) when the cap would be exceeded. */
int te_buf_add(struct te_buf *b, const void *p, size_t n);
int te_buf_adds(struct te_buf *b, const char *s);
int te_buf_addf(struct te_buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Empty the buffer, keeping its allocation. */
void te_buf_reset(struct te_buf *b);
/* Free the data; the struct may be reused after te_buf_init. */
void te_buf_release(struct te_buf *b);
/* Give the data to the caller (owned, NUL-terminated, never NULL) and reset. */
char *te_buf_detach(struct te_buf *b);

static inline void te_buf_releasep(struct te_buf *b)
{
	te_buf_release(b);
}
#define te_autobuf __attribute__((cleanup(te_buf_releasep)))

#endif
