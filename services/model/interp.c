#include "services/model/interp.h"

#include "common/buf.h"
#include "common/err.h"
#include "common/mem.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

/* Defaults nest (${A:-${B:-x}}) and each level recurses; a cap keeps a
 * hostile file from exhausting the stack. Real files nest one or two deep. */
#define INTERP_MAX_DEPTH 32

struct interp {
	svc_lookup_fn lookup;
	svc_unset_fn unset; /* or NULL */
	void *ctx;
	const char *whole; /* the top-level template, quoted in messages */
	struct te_err *err;
};

/* ASCII only, on purpose: the locale must not change what a name is. */
static bool name_start(char c)
{
	return c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

static bool name_char(char c)
{
	return name_start(c) || (c >= '0' && c <= '9');
}

static size_t name_len(const char *s, size_t n)
{
	size_t i = 0;

	if (n == 0 || !name_start(s[0]))
		return 0;
	while (i < n && name_char(s[i]))
		i++;
	return i;
}

static int invalid(struct interp *ip)
{
	return te_err_set(ip->err, TE_E_COMPOSE,
			  "invalid interpolation format for \"%s\": you may need to escape any $ "
			  "with another $",
			  ip->whole);
}

/* S points just past "${". Find the '}' that closes it, counting nested
 * "${" and skipping "$$" so "${A:-$${B}}" closes where Compose closes. */
static bool find_close(const char *s, size_t n, size_t *close)
{
	size_t depth = 1;

	for (size_t i = 0; i < n; i++) {
		if (s[i] == '$' && i + 1 < n && (s[i + 1] == '$' || s[i + 1] == '{')) {
			if (s[i + 1] == '{')
				depth++;
			i++;
			continue;
		}
		if (s[i] == '}' && --depth == 0) {
			*close = i;
			return true;
		}
	}
	return false;
}

static int expand(struct interp *ip, const char *s, size_t n, int depth, struct te_buf *out);

static int required_error(struct interp *ip, const char *name, const char *msg, size_t n, int depth)
{
	te_autobuf struct te_buf reason = TE_BUF_INIT(0);

	if (expand(ip, msg, n, depth, &reason) < 0)
		return -1;
	if (reason.len == 0)
		return te_err_set(ip->err, TE_E_COMPOSE, "required variable %s is missing a value", name);
	return te_err_set(ip->err, TE_E_COMPOSE, "required variable %s is missing a value: %s", name,
			  reason.data);
}

/* $NAME or ${NAME}, no default: an unset variable becomes "" and, as in
 * Compose, the caller hears of it. */
static int blank_or(struct interp *ip, const char *name, const char *value, struct te_buf *out)
{
	if (!value && ip->unset)
		ip->unset(name, ip->ctx);
	te_buf_adds(out, value ? value : "");
	return 0;
}

/* BODY is what lies between "${" and its '}'. */
static int braced(struct interp *ip, const char *body, size_t n, int depth, struct te_buf *out)
{
	size_t nl = name_len(body, n);
	te_autofree char *name = NULL;
	const char *value, *arg;
	bool colon, cond;
	size_t an;

	if (nl == 0)
		return invalid(ip);
	name = xstrndup(body, nl);
	value = ip->lookup(name, ip->ctx);
	if (nl == n)
		return blank_or(ip, name, value, out);
	colon = body[nl] == ':';
	if (nl + colon + 1 > n)
		return invalid(ip);
	arg = body + nl + colon + 1;
	an = n - nl - colon - 1;
	/* With ':' an empty value counts as unset, as in the shell. */
	cond = colon ? value && *value : value != NULL;
	switch (body[nl + colon]) {
	case '-':
		if (!cond)
			return expand(ip, arg, an, depth, out);
		break;
	case '+': return cond ? expand(ip, arg, an, depth, out) : 0;
	case '?':
		if (!cond)
			return required_error(ip, name, arg, an, depth);
		break;
	default: return invalid(ip);
	}
	te_buf_adds(out, value);
	return 0;
}

/* One '$' construct at S (S[0] == '$'); sets *used to the bytes consumed. */
static int dollar(struct interp *ip, const char *s, size_t n, int depth, struct te_buf *out, size_t *used)
{
	size_t nl, close;
	te_autofree char *name = NULL;
	const char *value;

	if (n >= 2 && s[1] == '$') {
		te_buf_add(out, "$", 1);
		*used = 2;
		return 0;
	}
	if (n >= 2 && s[1] == '{') {
		if (!find_close(s + 2, n - 2, &close))
			return invalid(ip);
		if (depth >= INTERP_MAX_DEPTH)
			return te_err_set(ip->err, TE_E_COMPOSE,
					  "interpolation nested more than %d deep in \"%s\"",
					  INTERP_MAX_DEPTH, ip->whole);
		*used = close + 3;
		return braced(ip, s + 2, close, depth + 1, out);
	}
	nl = name_len(s + 1, n - 1);
	/* A '$' that starts no name ("$(cmd)", "$1", "$2a$14$..." in a bcrypt
	 * hash, a '$' at the end) stays as written, as compose-go keeps it:
	 * its pattern matches only "$$", "$NAME" and "${...}". */
	if (nl == 0) {
		te_buf_add(out, "$", 1);
		*used = 1;
		return 0;
	}
	name = xstrndup(s + 1, nl);
	value = ip->lookup(name, ip->ctx);
	*used = nl + 1;
	return blank_or(ip, name, value, out);
}

static int expand(struct interp *ip, const char *s, size_t n, int depth, struct te_buf *out)
{
	size_t i = 0;

	while (i < n) {
		const char *d = memchr(s + i, '$', n - i);
		size_t used = 0; /* set by dollar() on success; gcc -O2 cannot see that */

		if (!d) {
			te_buf_add(out, s + i, n - i);
			break;
		}
		te_buf_add(out, s + i, (size_t)(d - (s + i)));
		i = (size_t)(d - s);
		if (dollar(ip, s + i, n - i, depth, out, &used) < 0)
			return -1;
		i += used;
	}
	return 0;
}

int svc_interp(const char *in, svc_lookup_fn lookup, void *ctx, char **out, struct te_err *err)
{
	return svc_interp_warn(in, lookup, NULL, ctx, out, err);
}

int svc_interp_warn(const char *in, svc_lookup_fn lookup, svc_unset_fn unset, void *ctx, char **out,
		    struct te_err *err)
{
	struct interp ip = {lookup, unset, ctx, in ? in : "", err};
	te_autobuf struct te_buf b = TE_BUF_INIT(0);

	*out = NULL;
	if (expand(&ip, ip.whole, strlen(ip.whole), 0, &b) < 0)
		return -1;
	*out = te_buf_detach(&b);
	return 0;
}
