#include "services/lifecycle/context.h"

#include "common/buf.h"
#include "common/err.h"
#include "common/mem.h"

#include <archive.h>
#include <archive_entry.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* The name an inline or out-of-context Dockerfile gets in the tar. */
#define INLINE_DOCKERFILE ".dockerfile.taskenv"
/* Cap on a Dockerfile read to be added under another name. */
#define DOCKERFILE_MAX (4u * 1024u * 1024u)

struct ignore_pat {
	char *pat;
	bool exception;
};

struct svc_ignore {
	struct ignore_pat *v;
	size_t n;
};

/* ---- patterns ---- */

/* Go's filepath.Clean on a '/'-separated path, then no leading '/'. */
static char *clean(const char *path)
{
	te_autofree char *copy = xstrdup(path);
	te_autofree char **seg = xcalloc(strlen(path) / 2 + 2, sizeof(*seg));
	te_autobuf struct te_buf out = TE_BUF_INIT(0);
	size_t nseg = 0, keep_dotdot = 0;
	char *p = copy;

	for (;;) {
		char *slash = strchr(p, '/');

		if (slash)
			*slash = '\0';
		if (strcmp(p, "..") == 0 && nseg > keep_dotdot)
			nseg--;
		else if (strcmp(p, "..") == 0)
			seg[nseg++] = p, keep_dotdot = nseg;
		else if (*p && strcmp(p, ".") != 0)
			seg[nseg++] = p;
		if (!slash)
			break;
		p = slash + 1;
	}
	for (size_t i = 0; i < nseg; i++)
		te_buf_addf(&out, "%s%s", i ? "/" : "", seg[i]);
	return out.len ? te_buf_detach(&out) : xstrdup(".");
}

/* [...] at P (just past '['): does C match? *END gets the char after ']'. */
static bool class_match(const char *p, char c, const char **end, bool *ok)
{
	bool neg = false, hit = false;

	*ok = false;
	if (*p == '^') {
		neg = true;
		p++;
	}
	for (bool first = true; *p && (first || *p != ']'); first = false) {
		char lo = *p, hi;

		if (lo == '\\' && p[1])
			lo = *++p;
		hi = lo;
		p++;
		if (*p == '-' && p[1] && p[1] != ']') {
			hi = p[1] == '\\' && p[2] ? p[2] : p[1];
			p += p[1] == '\\' ? 3 : 2;
		}
		if (c >= lo && c <= hi)
			hit = true;
	}
	if (*p != ']')
		return false;
	*end = p + 1;
	*ok = true;
	return hit != neg;
}

static bool match_from(const char *p, const char *s);

static bool match_stars(const char *p, const char *s)
{
	if (p[1] == '*') {
		p += 2;
		if (*p == '/') {
			/* "**" + "/": zero or more whole segments. */
			if (match_from(p + 1, s))
				return true;
			for (const char *q = s; *q; q++)
				if (*q == '/' && match_from(p + 1, q + 1))
					return true;
			return false;
		}
		for (const char *q = s;; q++) {
			if (match_from(p, q))
				return true;
			if (!*q)
				return false;
		}
	}
	for (const char *q = s;; q++) {
		if (match_from(p + 1, q))
			return true;
		if (!*q || *q == '/')
			return false;
	}
}

static bool match_from(const char *p, const char *s)
{
	while (*p) {
		if (*p == '*')
			return match_stars(p, s);
		if (*p == '?' || *p == '[') {
			const char *end = p + 1;
			bool ok = true;

			if (!*s || *s == '/')
				return false;
			if (*p == '[' && !class_match(p + 1, *s, &end, &ok))
				return false;
			if (!ok)
				return false;
			p = end;
			s++;
			continue;
		}
		if (*p == '\\' && p[1])
			p++;
		if (*p != *s)
			return false;
		p++;
		s++;
	}
	return *s == '\0';
}

bool svc_ignore_pattern_match(const char *pattern, const char *path)
{
	return match_from(pattern, path);
}

static void add_pattern(struct svc_ignore *ig, const char *line, size_t n)
{
	te_autofree char *raw = NULL;
	bool exception = false;
	char *pat;

	while (n && (*line == ' ' || *line == '\t'))
		line++, n--;
	while (n && (line[n - 1] == ' ' || line[n - 1] == '\t' || line[n - 1] == '\r'))
		n--;
	if (!n || *line == '#')
		return;
	if (*line == '!') {
		exception = true;
		line++, n--;
		while (n && (*line == ' ' || *line == '\t'))
			line++, n--;
		if (!n)
			return;
	}
	raw = xstrndup(line, n);
	pat = clean(raw);
	ig->v = xrealloc(ig->v, (ig->n + 1) * sizeof(*ig->v));
	ig->v[ig->n++] = (struct ignore_pat){pat, exception};
}

struct svc_ignore *svc_ignore_parse(const char *text)
{
	struct svc_ignore *ig = xcalloc(1, sizeof(*ig));

	while (text && *text) {
		const char *nl = strchr(text, '\n');
		size_t n = nl ? (size_t)(nl - text) : strlen(text);

		add_pattern(ig, text, n);
		text += n + (nl ? 1 : 0);
	}
	return ig;
}

void svc_ignore_free(struct svc_ignore *ig)
{
	if (!ig)
		return;
	for (size_t i = 0; i < ig->n; i++)
		free(ig->v[i].pat);
	free(ig->v);
	free(ig);
}

/* The pattern matches PATH or one of its parent directories. */
static bool matches_or_parent(const char *pat, const char *path)
{
	te_autofree char *copy = NULL;

	if (match_from(pat, path))
		return true;
	copy = xstrdup(path);
	for (char *slash = strchr(copy, '/'); slash; slash = strchr(slash + 1, '/')) {
		*slash = '\0';
		if (match_from(pat, copy))
			return true;
		*slash = '/';
	}
	return false;
}

bool svc_ignore_excluded(const struct svc_ignore *ig, const char *path)
{
	bool excluded = false;

	for (size_t i = 0; ig && i < ig->n; i++)
		if (matches_or_parent(ig->v[i].pat, path))
			excluded = !ig->v[i].exception;
	return excluded;
}

bool svc_ignore_may_reinclude(const struct svc_ignore *ig, const char *dir)
{
	te_autofree char *dslash = xasprintf("%s/", dir);

	for (size_t i = 0; ig && i < ig->n; i++) {
		te_autofree char *pslash = NULL;

		if (!ig->v[i].exception)
			continue;
		pslash = xasprintf("%s/", ig->v[i].pat);
		if (strncmp(pslash, dslash, strlen(dslash)) == 0)
			return true;
	}
	return false;
}

/* ---- the tar ---- */

struct pack {
	struct archive *a;
	const struct svc_ignore *ig;
	int root; /* fd of the context directory */
	struct te_err *err;
};

static int arch_err(struct pack *pk, const char *what, const char *path)
{
	return te_err_set(pk->err, TE_E_IO, "build context: %s '%s': %s", what, path,
			  archive_error_string(pk->a) ? archive_error_string(pk->a) : "libarchive error");
}

static void entry_from_stat(struct archive_entry *en, const char *rel, const struct stat *st)
{
	archive_entry_set_pathname(en, rel);
	archive_entry_set_mode(en, st->st_mode);
	archive_entry_set_mtime(en, st->st_mtime, 0);
	archive_entry_set_uid(en, 0);
	archive_entry_set_gid(en, 0);
	archive_entry_set_size(en, S_ISREG(st->st_mode) ? st->st_size : 0);
}

static int write_data_fd(struct pack *pk, int fd, const char *rel)
{
	char buf[65536];
	ssize_t n;

	while ((n = read(fd, buf, sizeof(buf))) != 0) {
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return te_err_set(pk->err, TE_E_IO, "build context: read '%s': %s", rel,
					  strerror(errno));
		if (archive_write_data(pk->a, buf, (size_t)n) < 0)
			return arch_err(pk, "write", rel);
	}
	return 0;
}

/* One non-directory entry; REL relative to the context. */
static int add_leaf(struct pack *pk, const char *rel, const struct stat *st)
{
	struct archive_entry *en;
	char target[PATH_MAX];
	ssize_t tn = 0;
	int fd = -1, rc = 0;

	if (S_ISLNK(st->st_mode)) {
		tn = readlinkat(pk->root, rel, target, sizeof(target) - 1);
		if (tn < 0)
			return te_err_set(pk->err, TE_E_IO, "build context: readlink '%s': %s", rel,
					  strerror(errno));
		target[tn] = '\0';
	} else if (S_ISREG(st->st_mode)) {
		fd = openat(pk->root, rel, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
		if (fd < 0)
			return te_err_set(pk->err, TE_E_IO, "build context: open '%s': %s", rel,
					  strerror(errno));
	} else {
		return 0; /* sockets, FIFOs, devices: nothing a build can use */
	}
	en = archive_entry_new();
	entry_from_stat(en, rel, st);
	if (tn > 0)
		archive_entry_set_symlink(en, target);
	if (archive_write_header(pk->a, en) != ARCHIVE_OK)
		rc = arch_err(pk, "add", rel);
	else if (fd >= 0)
		rc = write_data_fd(pk, fd, rel);
	archive_entry_free(en);
	if (fd >= 0)
		close(fd);
	return rc;
}

static int add_dir_entry(struct pack *pk, const char *rel, const struct stat *st)
{
	struct archive_entry *en = archive_entry_new();
	int rc = 0;

	entry_from_stat(en, rel, st);
	if (archive_write_header(pk->a, en) != ARCHIVE_OK)
		rc = arch_err(pk, "add", rel);
	archive_entry_free(en);
	return rc;
}

static int walk(struct pack *pk, const char *dir);

static int walk_one(struct pack *pk, const char *rel)
{
	struct stat st;
	bool excluded = svc_ignore_excluded(pk->ig, rel);

	if (fstatat(pk->root, rel, &st, AT_SYMLINK_NOFOLLOW) < 0)
		return te_err_set(pk->err, TE_E_IO, "build context: stat '%s': %s", rel, strerror(errno));
	if (!S_ISDIR(st.st_mode))
		return excluded ? 0 : add_leaf(pk, rel, &st);
	if (excluded && !svc_ignore_may_reinclude(pk->ig, rel))
		return 0;
	if (!excluded && add_dir_entry(pk, rel, &st) < 0)
		return -1;
	return walk(pk, rel);
}

static int cmp_names(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* DIR relative to the context ("" for the context itself); entries in name
 * order so the same context gives the same tar. */
static int walk(struct pack *pk, const char *dir)
{
	int fd = openat(pk->root, *dir ? dir : ".", O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	te_autostrv char **names = NULL;
	size_t n = 0;
	DIR *d;
	struct dirent *de;

	if (fd < 0)
		return te_err_set(pk->err, TE_E_IO, "build context: open directory '%s': %s",
				  *dir ? dir : ".", strerror(errno));
	d = fdopendir(fd);
	if (!d) {
		close(fd);
		return te_err_set(pk->err, TE_E_IO, "build context: '%s': %s", dir, strerror(errno));
	}
	while ((de = readdir(d)) != NULL)
		if (strcmp(de->d_name, ".") != 0 && strcmp(de->d_name, "..") != 0)
			names = te_strv_push(names, *dir ? xasprintf("%s/%s", dir, de->d_name)
							 : xstrdup(de->d_name)),
			n++;
	closedir(d);
	if (n)
		qsort(names, n, sizeof(*names), cmp_names);
	for (size_t i = 0; i < n; i++)
		if (walk_one(pk, names[i]) < 0)
			return -1;
	return 0;
}

static int read_small(const char *path, size_t max, char **out, struct te_err *err)
{
	te_autobuf struct te_buf b = TE_BUF_INIT(max);
	char buf[8192];
	size_t n;
	FILE *f = fopen(path, "re");

	*out = NULL;
	if (!f)
		return errno == ENOENT ? 1 : te_err_set(err, TE_E_IO, "read '%s': %s", path, strerror(errno));
	while ((n = fread(buf, 1, sizeof(buf), f)) > 0)
		if (te_buf_add(&b, buf, n) < 0) {
			fclose(f);
			return te_err_set(err, TE_E_IO, "'%s' is larger than %zu bytes", path, max);
		}
	fclose(f);
	te_buf_add(&b, "", 1);
	*out = te_buf_detach(&b);
	return 0;
}

static int add_bytes(struct pack *pk, const char *name, const char *data)
{
	struct archive_entry *en = archive_entry_new();
	size_t n = strlen(data);
	int rc = 0;

	archive_entry_set_pathname(en, name);
	archive_entry_set_mode(en, S_IFREG | 0644);
	archive_entry_set_size(en, (la_int64_t)n);
	if (archive_write_header(pk->a, en) != ARCHIVE_OK || archive_write_data(pk->a, data, n) < 0)
		rc = arch_err(pk, "add", name);
	archive_entry_free(en);
	return rc;
}

/* Where the Dockerfile lives: *REL inside the context, or *TEXT read from
 * outside it (or given inline). */
static int locate_dockerfile(const char *context, const char *dockerfile, const char *inline_text, char **rel,
			     char **text, struct te_err *err)
{
	te_autofree char *abs = NULL;
	te_autofree char *c = NULL;
	int rc;

	*rel = *text = NULL;
	if (inline_text) {
		*text = xstrdup(inline_text);
		return 0;
	}
	if (!dockerfile)
		dockerfile = "Dockerfile";
	c = clean(dockerfile);
	if (dockerfile[0] != '/' && strncmp(c, "../", 3) != 0 && strcmp(c, "..") != 0) {
		*rel = TE_STEAL(c);
		return 0;
	}
	abs = dockerfile[0] == '/' ? xstrdup(dockerfile) : xasprintf("%s/%s", context, dockerfile);
	rc = read_small(abs, DOCKERFILE_MAX, text, err);
	if (rc > 0)
		return te_err_set(err, TE_E_IO, "Dockerfile '%s' not found", abs);
	return rc;
}

static int pack_run(struct pack *pk, const char *rel, const char *text)
{
	if (walk(pk, "") < 0)
		return -1;
	if (text && add_bytes(pk, INLINE_DOCKERFILE, text) < 0)
		return -1;
	(void)rel;
	return 0;
}

int svc_context_pack(const char *context, const char *dockerfile, const char *inline_text, FILE *out,
		     char **dockerfile_out, struct te_err *err)
{
	te_autofree char *ign_path = xasprintf("%s/.dockerignore", context);
	te_autofree char *ign = NULL, *rel = NULL, *text = NULL, *extra = NULL;
	struct pack pk = {NULL, NULL, -1, err};
	int rc;

	pk.root = open(context, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (pk.root < 0)
		return te_err_set(err, TE_E_IO, "build context '%s': %s", context, strerror(errno));
	if (read_small(ign_path, DOCKERFILE_MAX, &ign, err) < 0 ||
	    locate_dockerfile(context, dockerfile, inline_text, &rel, &text, err) < 0) {
		close(pk.root);
		return -1;
	}
	/* The docker CLI always sends these two, whatever .dockerignore says. */
	extra = xasprintf("%s\n!.dockerignore\n%s%s\n", ign ? ign : "", rel ? "!" : "#", rel ? rel : "");
	pk.ig = svc_ignore_parse(extra);
	pk.a = archive_write_new();
	archive_write_set_format_pax_restricted(pk.a);
	if (archive_write_open_FILE(pk.a, out) != ARCHIVE_OK)
		rc = arch_err(&pk, "open", context);
	else
		rc = pack_run(&pk, rel, text);
	if (archive_write_close(pk.a) != ARCHIVE_OK && rc == 0)
		rc = arch_err(&pk, "close", context);
	archive_write_free(pk.a);
	svc_ignore_free((struct svc_ignore *)pk.ig);
	close(pk.root);
	if (rc == 0)
		*dockerfile_out = text ? xstrdup(INLINE_DOCKERFILE) : TE_STEAL(rel);
	return rc;
}
