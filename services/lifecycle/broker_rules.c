/* The broker's allow-list and path normalisation (broker_rules.h). */
#include "services/lifecycle/broker_rules.h"
#include "common/err.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

/* Operations on a container the task owns: method, operation, whether
 * the answer streams, whether the connection may be hijacked. Which
 * endpoints the broker serves is this table's; what a request that
 * changes something may carry is the policy gate's alone (every body is
 * judged by it on the way to the engine: `update` and `create` too);
 * rename, commit, export and everything else are refused here. */
static const struct op {
	const char *method;
	const char *op;
	bool stream, hijack;
} container_ops[] =
    {
	{"GET", "json", false, false},	   {"GET", "logs", true, false},
	{"GET", "top", false, false},	   {"GET", "stats", true, false},
	{"POST", "start", false, false},   {"POST", "stop", false, false},
	{"POST", "restart", false, false}, {"POST", "kill", false, false},
	{"POST", "wait", true, false},	   {"POST", "attach", true, true},
	{"POST", "exec", false, false},	   {"POST", "resize", false, false},
	{"GET", "archive", true, false},   {"HEAD", "archive", false, false},
	{"PUT", "archive", false, false},  {"POST", "update", false, false},
},
  exec_ops[] = {
      {"POST", "start", true, true},
      {"GET", "json", false, false},
      {"POST", "resize", false, false},
};

/* Whole paths with an action of their own. */
static const struct {
	const char *method;
	const char *path;
	enum svc_brk_action action;
} fixed[] = {
    {"GET", "/_ping", SVC_BRK_PING},
    {"HEAD", "/_ping", SVC_BRK_PING},
    {"GET", "/version", SVC_BRK_FORWARD},
    {"GET", "/info", SVC_BRK_INFO},
    {"GET", "/containers/json", SVC_BRK_LIST},
    {"GET", "/images/json", SVC_BRK_FORWARD},
    {"POST", "/containers/create", SVC_BRK_CREATE},
};

/* Why a known endpoint is refused, for the message (the rest: allow-list). */
static const struct {
	const char *prefix;
	const char *rule;
} reasons[] = {
    {"/containers/prune", "pruning reaches other tasks' containers"},
    {"/images/", "images are read-only through the broker (GET /images/json only)"},
    {"/build", "builds are not allowed through the broker"},
    {"/volumes", "volumes are not allowed through the broker"},
    {"/networks", "networks are not allowed through the broker"},
    {"/swarm", "swarm is not allowed through the broker"},
    {"/services", "swarm is not allowed through the broker"},
    {"/nodes", "swarm is not allowed through the broker"},
    {"/secrets", "swarm is not allowed through the broker"},
    {"/configs", "swarm is not allowed through the broker"},
    {"/plugins", "plugins are not allowed through the broker"},
    {"/system", "system endpoints are not allowed through the broker"},
    {"/events", "events show every task: not allowed through the broker"},
    {"/auth", "registry logins are not allowed through the broker"},
    {"/session", "build sessions are not allowed through the broker"},
    {"/distribution", "registry access is not allowed through the broker"},
    {"/libpod", "Podman's own API is not allowed through the broker"},
};

static int hexval(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	c = tolower(c);
	return c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

/* Drop the last segment of OUT[0..*len). */
static int pop_segment(char *out, size_t *len)
{
	if (*len == 0)
		return -1;
	while (*len > 0 && out[*len - 1] != '/')
		(*len)--;
	if (*len > 0)
		(*len)--; /* the slash before it */
	return 0;
}

/* Append segment SEG[0..n) to OUT as "/SEG", resolving "." and "..". */
static int add_segment(char *out, size_t *len, size_t cap, const char *seg, size_t n, struct te_err *err)
{
	if (n == 0 || (n == 1 && seg[0] == '.'))
		return 0;
	if (n == 2 && seg[0] == '.' && seg[1] == '.') {
		if (pop_segment(out, len) < 0)
			return te_err_set(err, TE_E_USAGE, "'..' above the root");
		return 0;
	}
	if (*len + 1 + n >= cap)
		return te_err_set(err, TE_E_USAGE, "path too long");
	out[(*len)++] = '/';
	memcpy(out + *len, seg, n);
	*len += n;
	return 0;
}

/* "/v1.41": a version prefix is "v", digits, ".", digits. */
static bool is_version(const char *seg, size_t n)
{
	size_t i = 1, dots = 0;

	if (n < 2 || seg[0] != 'v')
		return false;
	for (; i < n; i++) {
		if (seg[i] == '.' && i > 1 && i + 1 < n)
			dots++;
		else if (!isdigit((unsigned char)seg[i]))
			return false;
	}
	return dots <= 1;
}

int svc_brk_normalize(const char *raw, char *out, size_t n, struct te_err *err)
{
	char dec[1024], seg[1024];
	size_t dl = 0, len = 0, sl = 0;
	bool first = true;

	if (!raw || raw[0] != '/')
		return te_err_set(err, TE_E_USAGE, "the path must start with '/'");
	for (const char *p = raw; *p; p++) {
		int c = (unsigned char)*p;

		if (c == '%') {
			int h = hexval(p[1]), l = h < 0 ? -1 : hexval(p[2]);

			if (h < 0 || l < 0)
				return te_err_set(err, TE_E_USAGE, "bad percent-encoding");
			c = h * 16 + l;
			p += 2;
		}
		if (c < 0x20 || c == 0x7f)
			return te_err_set(err, TE_E_USAGE, "a control byte in the path");
		if (dl + 1 >= sizeof(dec))
			return te_err_set(err, TE_E_USAGE, "path too long");
		dec[dl++] = (char)c;
	}
	dec[dl] = '\0';
	/* Segments are split after decoding: "%2F" is a slash like any other. */
	for (size_t i = 0; i <= dl; i++) {
		if (i < dl && dec[i] != '/') {
			seg[sl++] = dec[i];
			continue;
		}
		if (first && sl > 0 && is_version(seg, sl)) {
			first = false;
			sl = 0;
			continue;
		}
		if (sl > 0)
			first = false;
		if (add_segment(out, &len, n, seg, sl, err) < 0)
			return -1;
		sl = 0;
	}
	if (len == 0) {
		if (n < 2)
			return te_err_set(err, TE_E_USAGE, "path too long");
		out[len++] = '/';
	}
	out[len] = '\0';
	return 0;
}

bool svc_brk_ref_ok(const char *s)
{
	size_t n = strlen(s);

	if (n == 0 || n > 255 || !isalnum((unsigned char)s[0]))
		return false;
	for (size_t i = 0; i < n; i++)
		if (!isalnum((unsigned char)s[i]) && !strchr("_.-", s[i]))
			return false;
	return true;
}

bool svc_brk_query_ok(const char *q)
{
	for (; q && *q; q++)
		if (!isalnum((unsigned char)*q) && !strchr("-._~!$&'()*+,;=:@/?%", *q))
			return false;
	return true;
}

static void deny(struct svc_brk_route *r, int status, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void deny(struct svc_brk_route *r, int status, const char *fmt, ...)
{
	va_list ap;

	r->action = SVC_BRK_DENY;
	r->status = status;
	va_start(ap, fmt);
	vsnprintf(r->rule, sizeof(r->rule), fmt, ap);
	va_end(ap);
}

/* "/containers/REF/OP" or "/exec/ID/OP" against TABLE. */
static bool match_ops(const char *method, const char *path, const char *root, const struct op *t, size_t nt,
		      enum svc_brk_action action, struct svc_brk_route *r)
{
	size_t rl = strlen(root);
	const char *ref = path + rl, *slash;

	if (strncmp(path, root, rl) != 0)
		return false;
	slash = strchr(ref, '/');
	if (!slash || strchr(slash + 1, '/') || (size_t)(slash - ref) >= sizeof(r->ref) ||
	    strlen(slash + 1) >= sizeof(r->op))
		return false;
	memcpy(r->ref, ref, (size_t)(slash - ref));
	r->ref[slash - ref] = '\0';
	snprintf(r->op, sizeof(r->op), "%s", slash + 1);
	for (size_t i = 0; i < nt; i++) {
		if (strcmp(t[i].method, method) != 0 || strcmp(t[i].op, r->op) != 0)
			continue;
		if (!svc_brk_ref_ok(r->ref)) {
			deny(r, 400, "'%s' is not a container or exec reference", r->ref);
			return true;
		}
		r->action = action;
		r->stream = t[i].stream;
		r->hijack = t[i].hijack;
		return true;
	}
	return false;
}

void svc_brk_route(const char *method, const char *raw_path, struct svc_brk_route *r)
{
	struct te_err err = {0};

	memset(r, 0, sizeof(*r));
	if (svc_brk_normalize(raw_path, r->path, sizeof(r->path), &err) < 0) {
		deny(r, 400, "the path does not normalise: %s", err.msg);
		return;
	}
	for (size_t i = 0; i < sizeof(fixed) / sizeof(fixed[0]); i++)
		if (strcmp(fixed[i].method, method) == 0 && strcmp(fixed[i].path, r->path) == 0) {
			r->action = fixed[i].action;
			return;
		}
	if (match_ops(method, r->path, "/containers/", container_ops,
		      sizeof(container_ops) / sizeof(container_ops[0]), SVC_BRK_CONTAINER, r) ||
	    match_ops(method, r->path, "/exec/", exec_ops, sizeof(exec_ops) / sizeof(exec_ops[0]),
		      SVC_BRK_EXEC, r))
		return;
	r->ref[0] = r->op[0] = '\0';
	for (size_t i = 0; i < sizeof(reasons) / sizeof(reasons[0]); i++)
		if (strncmp(r->path, reasons[i].prefix, strlen(reasons[i].prefix)) == 0) {
			deny(r, 403, "%s (%s)", reasons[i].rule, "rule: allow-list");
			return;
		}
	deny(r, 403, "'%s %s' is not on the broker's allow-list (rule: allow-list)", method, r->path);
}
