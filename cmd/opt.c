/* Option tables -> getopt_long, help and usage lines (cmd/opt.h). */
#include "cmd/cmd.h"
#include "cmd/opt.h"
#include "common/buf.h"
#include "common/duration.h"
#include "common/err.h"
#include "common/mem.h"

#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Every verb answers -h/--help; the parser adds it to each table. */
const struct cmd_option cmd_help_option = {"help", 'h', NULL, "show this help", NULL, 0, NULL, 0};

/* getopt_long values: table index + OPT_VAL_BASE, so long-only options
 * never collide with a letter. */
#define OPT_VAL_BASE 256

size_t cmd_opt_count(const struct cmd_option *t)
{
	size_t n = 0;

	while (t && t[n].name)
		n++;
	return n;
}

static void *field(void *opts, const struct cmd_option *o)
{
	return (char *)opts + o->offset;
}

/* ---- setters ---- */

int cmd_opt_flag(const struct cmd_option *o, const char *arg, void *dst, struct te_err *err)
{
	*(bool *)dst = true;
	return 0;
}

int cmd_opt_string(const struct cmd_option *o, const char *arg, void *dst, struct te_err *err)
{
	*(const char **)dst = arg;
	return 0;
}

int cmd_opt_list(const struct cmd_option *o, const char *arg, void *dst, struct te_err *err)
{
	char ***v = dst;

	*v = te_strv_push(*v, xstrdup(arg));
	return 0;
}

int cmd_opt_csv(const struct cmd_option *o, const char *arg, void *dst, struct te_err *err)
{
	char ***v = dst;

	for (const char *p = arg; *p;) {
		size_t n = strcspn(p, ",");

		if (n)
			*v = te_strv_push(*v, xstrndup(p, n));
		p += n + (p[n] == ',');
	}
	return 0;
}

int cmd_opt_kv(const struct cmd_option *o, const char *arg, void *dst, struct te_err *err)
{
	if (!strchr(arg, '=') || arg[0] == '=')
		return te_err_set(err, TE_E_USAGE, "'%s' is not K=V", arg);
	return cmd_opt_list(o, arg, dst, err);
}

static int whole(const char *arg, long long lo, long long hi, long long *out)
{
	char *end;

	errno = 0;
	*out = strtoll(arg, &end, 10);
	return errno || end == arg || *end || *out < lo || *out > hi ? -1 : 0;
}

int cmd_opt_seconds(const struct cmd_option *o, const char *arg, void *dst, struct te_err *err)
{
	long long v;

	if (whole(arg, 0, INT_MAX, &v) < 0)
		return te_err_set(err, TE_E_USAGE, "'%s' is not a whole number of seconds (0 or more)", arg);
	*(int *)dst = (int)v;
	return 0;
}

int cmd_opt_duration(const struct cmd_option *o, const char *arg, void *dst, struct te_err *err)
{
	return te_duration_parse(arg, dst, err);
}

int cmd_opt_pid(const struct cmd_option *o, const char *arg, void *dst, struct te_err *err)
{
	if (whole(arg, 1, LLONG_MAX, dst) < 0)
		return te_err_set(err, TE_E_USAGE, "'%s' is not a process id (a number above 0)", arg);
	return 0;
}

static bool is_choice(const char *choices, const char *arg)
{
	size_t n = strlen(arg);

	for (const char *p = choices; *p;) {
		size_t len = strcspn(p, "|");

		if (len == n && strncmp(p, arg, n) == 0)
			return true;
		p += len + (p[len] == '|');
	}
	return false;
}

int cmd_opt_choice(const struct cmd_option *o, const char *arg, void *dst, struct te_err *err)
{
	if (!is_choice(o->choices, arg))
		return te_err_set(err, TE_E_USAGE, "'%s' is not one of %s", arg, o->choices);
	*(const char **)dst = arg;
	return 0;
}

/* ---- parsing ---- */

/* Optimal string alignment distance, for "did you mean" on a mistyped
 * long option; capped work (option names are short). */
static size_t distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b), d[32][32];

	if (la > 30 || lb > 30)
		return 99;
	for (size_t i = 0; i <= la; i++)
		for (size_t j = 0; j <= lb; j++) {
			size_t best = i == 0 ? j : j == 0 ? i : d[i - 1][j - 1] + (a[i - 1] != b[j - 1]);

			if (i && j && d[i - 1][j] + 1 < best)
				best = d[i - 1][j] + 1;
			if (i && j && d[i][j - 1] + 1 < best)
				best = d[i][j - 1] + 1;
			if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] &&
			    d[i - 2][j - 2] + 1 < best)
				best = d[i - 2][j - 2] + 1;
			d[i][j] = best;
		}
	return d[la][lb];
}

static const struct cmd_option *by_index(const struct cmd_option *t, size_t n, int i)
{
	return i >= 0 && (size_t)i < n ? &t[i] : i == (int)n ? &cmd_help_option : NULL;
}

static const struct cmd_option *by_val(const struct cmd_option *t, size_t n, int val)
{
	if (val >= OPT_VAL_BASE)
		return by_index(t, n, val - OPT_VAL_BASE);
	if (val == 0)
		return NULL;
	for (size_t i = 0; i < n; i++)
		if (t[i].letter == val)
			return &t[i];
	return val == 'h' ? &cmd_help_option : NULL;
}

/* What was wrong with "--TEXT" that getopt refused (unknown, ambiguous, or
 * a value given to an option that takes none). */
static int long_error(const struct cmd_option *t, size_t n, const char *text, struct te_err *err)
{
	const char *name = text + 2;
	size_t len = strcspn(name, "=");
	te_autofree char *want = xstrndup(name, len);
	te_autobuf struct te_buf alts = TE_BUF_INIT(0);
	const struct cmd_option *hit = NULL, *near = NULL;
	size_t hits = 0;

	for (size_t i = 0; i <= n; i++) {
		const struct cmd_option *o = by_index(t, n, (int)i);

		if (o->flags & CMD_OPT_HIDDEN)
			continue;
		if (strncmp(o->name, name, len) == 0) {
			te_buf_addf(&alts, "%s--%s", hits ? ", " : "", o->name);
			hit = o;
			hits++;
		} else if (!near && distance(want, o->name) <= 2) {
			near = o;
		}
	}
	if (hits > 1)
		return te_err_set(err, TE_E_USAGE, "ambiguous option '--%.*s' (%s)", (int)len, name,
				  alts.data);
	if (hits == 1 && name[len] == '=')
		return te_err_set(err, TE_E_USAGE, "option '--%s' takes no value", hit->name);
	if (near)
		return te_err_set(err, TE_E_USAGE, "unknown option '--%.*s'; did you mean '--%s'?", (int)len,
				  name, near->name);
	return te_err_set(err, TE_E_USAGE, "unknown option '--%.*s'", (int)len, name);
}

static char *optstring_of(const struct cmd_option *t, size_t n, bool args_first)
{
	te_autobuf struct te_buf s = TE_BUF_INIT(0);

	/* '+': stop at the first argument; ':': report a missing value as ':'. */
	te_buf_adds(&s, args_first ? "+:" : ":");
	for (size_t i = 0; i <= n; i++) {
		const struct cmd_option *o = by_index(t, n, (int)i);

		if (o->letter)
			te_buf_addf(&s, "%c%s", o->letter, o->arg ? ":" : "");
	}
	return te_buf_detach(&s);
}

int cmd_opt_parse(const struct cmd_option *t, bool args_first, int argc, char **argv, void *opts, bool *help,
		  struct te_err *err)
{
	size_t n = cmd_opt_count(t);
	te_autofree struct option *longs = xcalloc(n + 2, sizeof(*longs));
	te_autofree char *shorts = optstring_of(t, n, args_first);
	te_autofree bool *seen = xcalloc(n + 1, sizeof(*seen));
	int c;

	for (size_t i = 0; i <= n; i++) {
		const struct cmd_option *o = by_index(t, n, (int)i);

		longs[i] = (struct option){o->name, o->arg ? required_argument : no_argument, NULL,
					   OPT_VAL_BASE + (int)i};
	}
	*help = false;
	optind = 0; /* GNU: a full reset, also of a previous parse's state */
	opterr = 0;
	while ((c = getopt_long(argc, argv, shorts, longs, NULL)) != -1) {
		const struct cmd_option *o = by_val(t, n, c == '?' || c == ':' ? optopt : c);

		if (c == ':')
			return te_err_set(err, TE_E_USAGE, "option '--%s' needs a value (%s)", o->name,
					  o->arg);
		/* GNU getopt: optopt is 0 for an unknown long option and the
		 * option's value for one given a value it does not take; a long
		 * option always moves optind past its word. */
		if (c == '?' && (optopt == 0 || optopt >= OPT_VAL_BASE))
			return long_error(t, n, argv[optind - 1], err);
		if (c == '?')
			return te_err_set(err, TE_E_USAGE, "unknown option '-%c'", optopt);
		if (o == &cmd_help_option) {
			*help = true;
			return optind;
		}
		if (o->set(o, optarg, field(opts, o), err) < 0)
			return te_err_prefix(err, "--%s: ", o->name);
		seen[o - t] = true;
	}
	for (size_t i = 0; i < n; i++)
		if ((t[i].flags & CMD_OPT_REQUIRED) && !seen[i])
			return te_err_set(err, TE_E_USAGE, "missing --%s%s%s", t[i].name, t[i].arg ? " " : "",
					  t[i].arg ? t[i].arg : "");
	return optind;
}

void cmd_args_count(const char *args, int *min, int *max)
{
	int depth = 0;

	*min = *max = 0;
	for (const char *p = args; p && *p;) {
		size_t n = strcspn(p, " ");
		size_t open = strspn(p, "[");
		bool dashes = strncmp(p + open, "--", 2) == 0 &&
			      (p[open + 2] == ']' || p[open + 2] == ' ' || !p[open + 2]);

		depth += (int)open;
		if (!dashes && depth == 0)
			(*min)++;
		if (!dashes && *max >= 0)
			(*max)++;
		if (memmem(p, n, "...", 3))
			*max = -1;
		for (size_t i = 0; i < n; i++)
			depth -= p[i] == ']';
		p += n + (p[n] == ' ');
	}
}

/* ---- help ---- */

#define WIDTH 100
#define HELP_COLUMN 26

static void add_item(struct te_buf *line, FILE *f, size_t indent, const char *item)
{
	if (line->len + 1 + strlen(item) > WIDTH && line->len > indent) {
		fprintf(f, "%s\n", line->data);
		te_buf_reset(line);
		te_buf_addf(line, "%*s", (int)indent, "");
	} else {
		te_buf_adds(line, " ");
	}
	te_buf_adds(line, item);
}

/* "[-t TASK]", "[--wait]", "[-f FILE]...", "-o DIR" when required */
char *cmd_opt_synopsis_item(const struct cmd_option *o)
{
	bool req = o->flags & CMD_OPT_REQUIRED;
	te_autofree char *flag = o->letter ? xasprintf("-%c", o->letter) : xasprintf("--%s", o->name);

	return xasprintf("%s%s%s%s%s%s", req ? "" : "[", flag, o->arg ? " " : "", o->arg ? o->arg : "",
			 req ? "" : "]", o->flags & CMD_OPT_REPEAT ? "..." : "");
}

static void synopsis_one(const struct cmd_verb *v, FILE *f, const char *lead)
{
	te_autobuf struct te_buf line = TE_BUF_INIT(0);
	size_t indent;

	te_buf_addf(&line, "%s taskenv%s%s", lead, *v->name ? " " : "", v->name);
	indent = line.len + 1;
	for (const struct cmd_option *o = v->options; o && o->name; o++) {
		te_autofree char *item = NULL;

		if (o->flags & CMD_OPT_HIDDEN)
			continue;
		item = cmd_opt_synopsis_item(o);
		add_item(&line, f, indent, item);
	}
	if (v->args)
		add_item(&line, f, indent, v->args);
	fprintf(f, "%s\n", line.data);
}

void cmd_synopsis(const struct cmd_verb *v, FILE *f)
{
	if (!v->subs) {
		synopsis_one(v, f, "usage:");
		return;
	}
	for (const struct cmd_verb *s = v->subs; s->name; s++)
		synopsis_one(s, f, s == v->subs ? "usage:" : "      ");
}

/* "  -t, --task TASK" */
char *cmd_opt_left(const struct cmd_option *o)
{
	char letter[8] = "    ";

	if (o->letter)
		snprintf(letter, sizeof(letter), "-%c, ", o->letter);
	return xasprintf("  %s--%s%s%s", letter, o->name, o->arg ? " " : "", o->arg ? o->arg : "");
}

static void option_help(const struct cmd_option *o, FILE *f)
{
	te_autofree char *left = cmd_opt_left(o);
	const char *h = o->help;
	bool first = true;

	if (strlen(left) + 2 > HELP_COLUMN) {
		fprintf(f, "%s\n", left);
		first = false;
	}
	do {
		size_t n = strcspn(h, "\n");

		fprintf(f, "%-*s%.*s\n", HELP_COLUMN, first ? left : "", (int)n, h);
		first = false;
		h += n + (h[n] == '\n');
	} while (*h);
}

void cmd_options_help(const struct cmd_option *t, FILE *f)
{
	for (const struct cmd_option *o = t; o && o->name; o++)
		if (!(o->flags & CMD_OPT_HIDDEN))
			option_help(o, f);
}

void cmd_help(const struct cmd_verb *v, FILE *f)
{
	cmd_synopsis(v, f);
	if (v->about)
		fprintf(f, "\n%s", v->about);
	for (const struct cmd_verb *s = v->subs; s && s->name; s++) {
		fprintf(f, "\n%s:\n%s", s->name, s->about ? s->about : "");
		cmd_options_help(s->options, f);
	}
	fprintf(f, "\n");
	cmd_options_help(v->options, f);
	option_help(&cmd_help_option, f);
}
