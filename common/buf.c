#include "common/buf.h"
#include "common/mem.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void te_buf_init(struct te_buf *b, size_t max_bytes)
{
	b->data = NULL;
	b->len = 0;
	b->cap = 0;
	b->max = max_bytes;
}

int te_buf_add(struct te_buf *b, const void *p, size_t n)
{
	size_t need;

	if (b->max && (n > b->max || b->len > b->max - n))
		return -1;
	need = b->len + n + 1;
	if (need > b->cap) {
		size_t cap = b->cap ? b->cap : 256;

		while (cap < need)
			cap *= 2;
		b->data = xrealloc(b->data, cap);
		b->cap = cap;
	}
	if (n)
		memcpy(b->data + b->len, p, n);
	b->len += n;
	b->data[b->len] = '\0';
	return 0;
}

int te_buf_adds(struct te_buf *b, const char *s)
{
	return te_buf_add(b, s, strlen(s));
}

int te_buf_addf(struct te_buf *b, const char *fmt, ...)
{
	va_list ap;
	te_autofree char *s = NULL;

	va_start(ap, fmt);
	s = xvasprintf(fmt, ap);
	va_end(ap);
	return te_buf_adds(b, s);
}

void te_buf_reset(struct te_buf *b)
{
	b->len = 0;
	if (b->data)
		b->data[0] = '\0';
}

void te_buf_release(struct te_buf *b)
{
	free(b->data);
	b->data = NULL;
	b->len = 0;
	b->cap = 0;
}

char *te_buf_detach(struct te_buf *b)
{
	char *p = b->data ? b->data : xstrdup("");

	b->data = NULL;
	b->len = 0;
	b->cap = 0;
	return p;
}
