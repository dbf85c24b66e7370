/* Progress of long work (pulls, creating and removing objects): one line
 * per object, rewritten in place on a terminal (ANSI cursor movement), plain
 * lines when stderr is not a terminal, with --progress plain, or with -v
 * (whose trace lines would break the in-place block). Colour only on a
 * terminal and never when NO_COLOR is set (https://no-color.org). And the
 * -v trace of Engine API calls, which the engine reports through a callback. */
#include "cmd/cmd.h"

#define TE_WITH_CJSON
#include "common/cleanup.h"
#include "engine/engine.h"
#include "common/mem.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct line {
	char *kind;
	char *name;
	char *what;
};

static struct {
	bool in_place;
	bool color;
	struct line *lines;
	size_t n;
	size_t drawn; /* lines of the block currently on the screen */
} pg;

/* NO_COLOR (no-color.org) and TERM are the terminal's conventions, not
 * taskenv settings. */
bool cmd_color_on(FILE *f)
{
	const char *nc = getenv("NO_COLOR");
	const char *term = getenv("TERM");

	if (nc && *nc)
		return false;
	if (term && strcmp(term, "dumb") == 0)
		return false;
	return isatty(fileno(f));
}

int cmd_progress_setup(const char *mode, bool verbose)
{
	bool tty = isatty(STDERR_FILENO);
	const char *term = getenv("TERM");

	if (mode && strcmp(mode, "plain") != 0 && strcmp(mode, "auto") != 0 && strcmp(mode, "tty") != 0)
		return -1;
	pg.in_place = tty && !(term && strcmp(term, "dumb") == 0);
	if (mode && strcmp(mode, "plain") == 0)
		pg.in_place = false;
	if (mode && strcmp(mode, "tty") == 0)
		pg.in_place = true;
	if (verbose)
		pg.in_place = false;
	pg.color = cmd_color_on(stderr);
	return 0;
}

/* Green for done, yellow for waiting or left as is, red for failures. */
static const char *color_of(const char *what)
{
	if (strncmp(what, "failed", 6) == 0 || strncmp(what, "not ours", 8) == 0)
		return "\033[31m";
	if (strstr(what, "ing") || strcmp(what, "kept") == 0 || strcmp(what, "already gone") == 0)
		return "\033[33m";
	return "\033[32m";
}

static void print_line(const char *kind, const char *name, const char *what)
{
	if (pg.color)
		fprintf(stderr, " %-17s %-32s %s%s\033[0m\n", kind, name, color_of(what), what);
	else
		fprintf(stderr, " %-17s %-32s %s\n", kind, name, what);
}

static struct line *find_or_add(const char *kind, const char *name)
{
	for (size_t i = 0; i < pg.n; i++)
		if (strcmp(pg.lines[i].kind, kind) == 0 && strcmp(pg.lines[i].name, name) == 0)
			return &pg.lines[i];
	pg.lines = xrealloc(pg.lines, (pg.n + 1) * sizeof(*pg.lines));
	pg.lines[pg.n] = (struct line){xstrdup(kind), xstrdup(name), NULL};
	return &pg.lines[pg.n++];
}

static void redraw(void)
{
	if (pg.drawn)
		fprintf(stderr, "\033[%zuA", pg.drawn); /* cursor up to the block's first line */
	for (size_t i = 0; i < pg.n; i++) {
		fputs("\r\033[2K", stderr); /* erase the old text of this line */
		print_line(pg.lines[i].kind, pg.lines[i].name, pg.lines[i].what);
	}
	pg.drawn = pg.n;
	fflush(stderr);
}

void cmd_progress(void *ctx, const char *kind, const char *name, const char *what)
{
	struct line *l;

	if (!pg.in_place) {
		print_line(kind, name, what);
		return;
	}
	l = find_or_add(kind, name);
	free(l->what);
	l->what = xstrdup(what);
	redraw();
}

void cmd_progress_release(void)
{
	for (size_t i = 0; i < pg.n; i++) {
		free(pg.lines[i].kind);
		free(pg.lines[i].name);
		free(pg.lines[i].what);
	}
	free(pg.lines);
	memset(&pg, 0, sizeof(pg));
}

/* Written as each call ends, so a hung call is the one not yet shown. */
static void trace(void *ctx, const char *method, const char *path, long status, const char *error, long ms)
{
	if (error)
		fprintf(stderr, "engine: %s %s → %s (%ld ms)\n", method, path, error, ms);
	else
		fprintf(stderr, "engine: %s %s → %ld (%ld ms)\n", method, path, status, ms);
}

void cmd_trace_install(const struct te_ctx *ctx, struct engine *e)
{
	engine_set_trace(e, ctx->verbose ? trace : NULL, NULL);
}

void cmd_progress_collect(void *ctx, const char *kind, const char *name, const char *what)
{
	cJSON *j = cJSON_CreateObject();

	cmd_progress(NULL, kind, name, what);
	cJSON_AddStringToObject(j, "kind", kind);
	cJSON_AddStringToObject(j, "name", name);
	cJSON_AddStringToObject(j, "outcome", what);
	cJSON_AddItemToArray(ctx, j);
}

void cmd_progress_outcome(void *ctx, const char *kind, const char *name, const char *what)
{
	cJSON *it;

	cmd_progress(NULL, kind, name, what);
	cJSON_ArrayForEach (it, (cJSON *)ctx) {
		const char *k = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(it, "kind"));
		const char *n = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(it, "name"));

		if (k && n && strcmp(k, kind) == 0 && strcmp(n, name) == 0) {
			cJSON_ReplaceItemInObjectCaseSensitive(it, "outcome", cJSON_CreateString(what));
			return;
		}
	}
	it = cJSON_CreateObject();
	cJSON_AddStringToObject(it, "kind", kind);
	cJSON_AddStringToObject(it, "name", name);
	cJSON_AddStringToObject(it, "outcome", what);
	cJSON_AddItemToArray(ctx, it);
}
