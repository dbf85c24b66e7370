#include "common/err.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int te_err_set(struct te_err *err, int code, const char *fmt, ...)
{
	va_list ap;

	if (!err)
		return -1;
	err->code = code;
	err->http_status = 0;
	va_start(ap, fmt);
	vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
	va_end(ap);
	return -1;
}

int te_err_prefix(struct te_err *err, const char *fmt, ...)
{
	char old[sizeof(err->msg)];
	size_t n;
	va_list ap;

	if (!err)
		return -1;
	memcpy(old, err->msg, sizeof(old));
	va_start(ap, fmt);
	vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
	va_end(ap);
	n = strlen(err->msg);
	snprintf(err->msg + n, sizeof(err->msg) - n, "%s", old);
	return -1;
}

void te_err_clear(struct te_err *err)
{
	if (!err)
		return;
	err->code = TE_OK;
	err->http_status = 0;
	err->msg[0] = '\0';
}

static te_last_words_fn last_words;

void te_set_last_words(te_last_words_fn fn)
{
	last_words = fn;
}

void te_last_words(const char *fmt, ...)
{
	char line[1024];
	va_list ap;

	if (!last_words)
		return;
	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	last_words(line);
}

void te_bug(const char *file, int line, const char *msg)
{
	te_last_words("taskenv: BUG at %s:%d: %s", file, line, msg);
	abort();
}
