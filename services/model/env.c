#include "services/model/interp.h"

#include "common/buf.h"
#include "common/err.h"
#include "common/mem.h"

#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A .env file is a handful of lines; the cap only stops a wrong path
 * (a log, a device) from being slurped whole. */
#define ENV_FILE_MAX (4u << 20)

struct svc_env {
	char **keys;   /* owned */
	char **values; /* owned, parallel to keys */
	size_t n;
	char **fixed; /* owned "NAME=VALUE" set by taskenv itself: wins over everything */
};

/* The cursor of one .env parse. */
struct envp {
	const char *path;
	const char *s;
	size_t pos;
	size_t len;
	int line; /* 1-based line of s[pos] */
	struct svc_env *env;
	struct te_err *err;
};

static const char *file_value(const struct svc_env *env, const char *name)
{
	for (size_t i = 0; env && i < env->n; i++)
		if (strcmp(env->keys[i], name) == 0)
			return env->values[i];
	return NULL;
}

/* Compose interpolation: the process environment, then .env. These are the
 * project's variables, not taskenv settings (services/settings.c). */
const char *svc_env_lookup(const char *name, void *ctx)
{
	const struct svc_env *env = ctx;
	size_t n = strlen(name);
	const char *v;

	for (size_t i = 0; env && env->fixed && env->fixed[i]; i++)
		if (strncmp(env->fixed[i], name, n) == 0 && env->fixed[i][n] == '=')
			return env->fixed[i] + n + 1;
	v = getenv(name);

	if (v)
		return v;
	return file_value(ctx, name);
}

/* Later lines win over earlier ones for the same key, as in Compose. */
static void env_set(struct svc_env *env, const char *key, char *owned_value)
{
	for (size_t i = 0; i < env->n; i++) {
		if (strcmp(env->keys[i], key) == 0) {
			free(env->values[i]);
			env->values[i] = owned_value;
			return;
		}
	}
	env->keys = xrealloc(env->keys, (env->n + 1) * sizeof(*env->keys));
	env->values = xrealloc(env->values, (env->n + 1) * sizeof(*env->values));
	env->keys[env->n] = xstrdup(key);
	env->values[env->n] = owned_value;
	env->n++;
}

void svc_env_free(struct svc_env *env)
{
	if (!env)
		return;
	for (size_t i = 0; i < env->n; i++) {
		free(env->keys[i]);
		free(env->values[i]);
	}
	free(env->keys);
	free(env->values);
	te_strv_free(env->fixed);
	free(env);
}

struct svc_env *svc_env_new(void)
{
	return xcalloc(1, sizeof(struct svc_env));
}

void svc_env_fix(struct svc_env *env, const char *name, const char *value)
{
	env->fixed = te_strv_push(env->fixed, xasprintf("%s=%s", name, value));
}

void svc_env_overlay(struct svc_env *dst, const struct svc_env *src)
{
	for (size_t i = 0; src && i < src->n; i++)
		env_set(dst, src->keys[i], xstrdup(src->values[i]));
	for (size_t i = 0; src && src->fixed && src->fixed[i]; i++)
		dst->fixed = te_strv_push(dst->fixed, xstrdup(src->fixed[i]));
}

static int perr(struct envp *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int perr(struct envp *p, const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	return te_err_set(p->err, TE_E_COMPOSE, "%s:%d: %s", p->path, p->line, msg);
}

static bool at_end(const struct envp *p)
{
	return p->pos >= p->len;
}

static char cur(const struct envp *p)
{
	return at_end(p) ? '\0' : p->s[p->pos];
}

static void skip_blanks(struct envp *p)
{
	while (cur(p) == ' ' || cur(p) == '\t')
		p->pos++;
}

/* Consume the rest of the line, including its newline. */
static void skip_line(struct envp *p)
{
	while (!at_end(p) && cur(p) != '\n')
		p->pos++;
	if (!at_end(p)) {
		p->pos++;
		p->line++;
	}
}

static bool eol(const struct envp *p)
{
	return at_end(p) || cur(p) == '\n' ||
	       (cur(p) == '\r' && p->pos + 1 < p->len && p->s[p->pos + 1] == '\n');
}

/* Compose accepts letters, digits, '_', '.' and '-' in .env keys. */
static bool key_char(char c)
{
	return c == '_' || c == '.' || c == '-' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	       (c >= '0' && c <= '9');
}

/* "export" followed by a blank is the shell keyword, not a key. */
static void skip_export(struct envp *p)
{
	size_t n = strlen("export");

	if (p->len - p->pos > n && strncmp(p->s + p->pos, "export", n) == 0 &&
	    (p->s[p->pos + n] == ' ' || p->s[p->pos + n] == '\t')) {
		p->pos += n;
		skip_blanks(p);
	}
}

/* After a closing quote only blanks and a comment may follow. */
static int after_quote(struct envp *p, const char *key)
{
	skip_blanks(p);
	if (!eol(p) && cur(p) != '#')
		return perr(p, "unexpected characters after the quoted value of '%s'", key);
	skip_line(p);
	return 0;
}

static int single_quoted(struct envp *p, const char *key, struct te_buf *raw)
{
	int start_line = p->line;

	p->pos++;
	while (!at_end(p) && cur(p) != '\'') {
		if (cur(p) == '\n')
			p->line++;
		te_buf_add(raw, p->s + p->pos, 1);
		p->pos++;
	}
	if (at_end(p)) {
		p->line = start_line;
		return perr(p, "unterminated single-quoted value for '%s'", key);
	}
	p->pos++;
	return after_quote(p, key);
}

/* Escapes Compose honours in double quotes. "\$" becomes "$$" so the
 * interpolation pass that follows turns it into a literal '$'. */
static void add_escape(struct te_buf *out, char c)
{
	static const char from[] = "nrt\\\"";
	static const char to[] = "\n\r\t\\\"";
	const char *hit = c ? strchr(from, c) : NULL;

	if (hit) {
		te_buf_add(out, &to[hit - from], 1);
	} else if (c == '$') {
		te_buf_adds(out, "$$");
	} else {
		te_buf_add(out, "\\", 1);
		te_buf_add(out, &c, 1);
	}
}

static int double_quoted(struct envp *p, const char *key, struct te_buf *out)
{
	int start_line = p->line;

	p->pos++;
	while (!at_end(p) && cur(p) != '"') {
		char c = cur(p);

		p->pos++;
		if (c == '\\' && !at_end(p)) {
			add_escape(out, cur(p));
			c = cur(p);
			p->pos++;
		} else {
			te_buf_add(out, &c, 1);
		}
		if (c == '\n')
			p->line++;
	}
	if (at_end(p)) {
		p->line = start_line;
		return perr(p, "unterminated double-quoted value for '%s'", key);
	}
	p->pos++;
	return after_quote(p, key);
}

/* Unquoted: to the end of the line, a '#' after a blank starts a comment,
 * surrounding blanks are dropped. */
static void unquoted(struct envp *p, struct te_buf *out)
{
	size_t start = p->pos, end;

	while (!eol(p)) {
		if (cur(p) == '#' && p->pos > 0 && (p->s[p->pos - 1] == ' ' || p->s[p->pos - 1] == '\t'))
			break;
		p->pos++;
	}
	end = p->pos;
	while (end > start && (p->s[end - 1] == ' ' || p->s[end - 1] == '\t'))
		end--;
	te_buf_add(out, p->s + start, end - start);
	skip_line(p);
}

/* Values see the process environment first, then earlier keys of the file. */
static const char *parse_lookup(const char *name, void *ctx)
{
	return svc_env_lookup(name, ctx);
}

static int parse_value(struct envp *p, const char *key)
{
	te_autobuf struct te_buf raw = TE_BUF_INIT(0);
	char quote = cur(p);
	int line = p->line;
	char *value = NULL;
	int rc = 0;

	if (quote == '\'')
		rc = single_quoted(p, key, &raw);
	else if (quote == '"')
		rc = double_quoted(p, key, &raw);
	else
		unquoted(p, &raw);
	if (rc < 0)
		return -1;
	if (quote == '\'') {
		env_set(p->env, key, te_buf_detach(&raw));
		return 0;
	}
	if (svc_interp(raw.data ? raw.data : "", parse_lookup, p->env, &value, p->err) < 0) {
		p->line = line;
		return te_err_prefix(p->err, "%s:%d: ", p->path, line);
	}
	env_set(p->env, key, value);
	return 0;
}

static int parse_line(struct envp *p)
{
	te_autofree char *key = NULL;
	size_t start;

	skip_blanks(p);
	if (eol(p) || cur(p) == '#') {
		skip_line(p);
		return 0;
	}
	skip_export(p);
	start = p->pos;
	while (!at_end(p) && key_char(cur(p)))
		p->pos++;
	key = xstrndup(p->s + start, p->pos - start);
	skip_blanks(p);
	/* A bare KEY means "from the environment": lookups already fall back
	 * to the process, so there is nothing to record. */
	if (*key && eol(p)) {
		skip_line(p);
		return 0;
	}
	if (!*key && eol(p))
		return perr(p, "missing variable name");
	if (!*key)
		return perr(p, "expected a variable name, found '%c'", cur(p));
	if (cur(p) != '=' && cur(p) != ':')
		return perr(p, "unexpected character '%c' in variable name '%s'", cur(p), key);
	p->pos++;
	skip_blanks(p);
	return parse_value(p, key);
}

static int read_all(const char *path, struct te_buf *b, bool *missing, struct te_err *err)
{
	FILE *f = fopen(path, "r");
	char chunk[4096];
	size_t n;
	int rc = 0;

	*missing = false;
	if (!f) {
		*missing = errno == ENOENT;
		return *missing ? 0 : te_err_set(err, TE_E_IO, "read '%s': %s", path, strerror(errno));
	}
	for (;;) {
		n = fread(chunk, 1, sizeof(chunk), f);
		if (n == 0)
			break;
		if (te_buf_add(b, chunk, n) < 0) {
			rc = te_err_set(err, TE_E_IO, "read '%s': larger than %u bytes", path, ENV_FILE_MAX);
			break;
		}
	}
	if (rc == 0 && ferror(f))
		rc = te_err_set(err, TE_E_IO, "read '%s': %s", path, strerror(errno));
	fclose(f);
	return rc;
}

/* format: raw (docker compose's): KEY=VALUE lines taken as written, no
 * quotes, escapes, comments after the value or interpolation; blank lines
 * and lines starting with '#' are skipped. */
static int parse_raw_line(struct envp *p)
{
	size_t start, end, eq;
	te_autofree char *key = NULL;

	skip_blanks(p);
	start = p->pos;
	while (!eol(p))
		p->pos++;
	end = p->pos;
	while (end > start && (p->s[end - 1] == ' ' || p->s[end - 1] == '\t' || p->s[end - 1] == '\r'))
		end--;
	if (end == start || p->s[start] == '#') {
		skip_line(p);
		return 0;
	}
	for (eq = start; eq < end && p->s[eq] != '='; eq++)
		;
	if (eq == end || eq == start)
		return perr(p, "expected KEY=VALUE (format: raw)");
	key = xstrndup(p->s + start, eq - start);
	while (key[0] && (key[strlen(key) - 1] == ' ' || key[strlen(key) - 1] == '\t'))
		key[strlen(key) - 1] = '\0';
	env_set(p->env, key, xstrndup(p->s + eq + 1, end - eq - 1));
	skip_line(p);
	return 0;
}

int svc_env_add_file(struct svc_env *env, const char *path, bool raw, struct te_err *err)
{
	te_autobuf struct te_buf text = TE_BUF_INIT(ENV_FILE_MAX);
	struct envp p = {path, NULL, 0, 0, 1, env, err};
	bool missing;

	if (read_all(path, &text, &missing, err) < 0)
		return -1;
	if (missing)
		return 0;
	p.s = text.data ? text.data : "";
	p.len = text.len;
	while (!at_end(&p))
		if ((raw ? parse_raw_line(&p) : parse_line(&p)) < 0)
			return -1;
	return 0;
}

struct svc_env *svc_env_load(const char *path, struct te_err *err)
{
	struct svc_env *env = svc_env_new();

	if (svc_env_add_file(env, path, false, err) == 0)
		return env;
	svc_env_free(env);
	return NULL;
}

size_t svc_env_size(const struct svc_env *env)
{
	return env ? env->n : 0;
}

void svc_env_at(const struct svc_env *env, size_t i, const char **key, const char **value)
{
	*key = env->keys[i];
	*value = env->values[i];
}
