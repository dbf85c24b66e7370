/* Build contexts: the .dockerignore matcher and the tar sent to POST /build.
 *
 * .dockerignore (Docker's rules, moby/patternmatcher): one pattern a line;
 * blank lines and lines starting with '#' are skipped; surrounding white
 * space is trimmed; a leading '!' makes an exception; patterns are cleaned
 * (Go filepath.Clean: "./a//b/../c" -> "a/c") and a leading '/' dropped.
 * '*' matches any run of characters but '/', '?' one character but '/',
 * '[...]' a class ('^' negates, 'a-z' ranges), '\\' escapes, and '**'
 * any number of path segments ("**" + "/" also zero). A path is excluded
 * when the last pattern matching it, or matching one of its parent
 * directories, is not an exception. */
#ifndef TASKENV_SERVICES_CONTEXT_H
#define TASKENV_SERVICES_CONTEXT_H

#include <stdbool.h>
#include <stdio.h>

struct te_err;
struct svc_ignore;

/* Parse .dockerignore TEXT (borrowed; NULL = no patterns). Owned result. */
struct svc_ignore *svc_ignore_parse(const char *text);
void svc_ignore_free(struct svc_ignore *ig);
/* Is PATH (relative to the context, '/'-separated, no leading "./") excluded? */
bool svc_ignore_excluded(const struct svc_ignore *ig, const char *path);
/* Could something below the excluded directory DIR be re-included by an
 * exception? (When not, the walk skips DIR entirely.) */
bool svc_ignore_may_reinclude(const struct svc_ignore *ig, const char *dir);
/* filepath.Match-like match of one cleaned PATTERN against PATH, with '**'. */
bool svc_ignore_pattern_match(const char *pattern, const char *path);

/* Pack the directory CONTEXT into a tar (pax, with libarchive) written to
 * OUT, honouring CONTEXT/.dockerignore. Symlinks are archived as symlinks,
 * never followed; sockets, FIFOs and devices are skipped; owners are 0:0
 * as the docker CLI sends them. The Dockerfile and .dockerignore are always
 * sent (Docker does the same). DOCKERFILE is the path as written in
 * build.dockerfile (NULL = "Dockerfile"), relative to CONTEXT or absolute;
 * INLINE is build.dockerfile_inline (or NULL). A Dockerfile outside the
 * context, or an inline one, is added under a generated name.
 * *DOCKERFILE_OUT (owned) gets the name to pass as dockerfile=.
 * Errors: TE_E_IO naming the path (a missing context or Dockerfile). */
int svc_context_pack(const char *context, const char *dockerfile, const char *inline_text, FILE *out,
		     char **dockerfile_out, struct te_err *err);

#endif
