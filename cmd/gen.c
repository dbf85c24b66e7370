/* taskenv --gen man|bash|zsh: the man page and the completion scripts,
 * made from the command table, the option tables and the settings table,
 * so they cannot fall behind the code (the build runs this; CMakeLists.txt
 * installs the output). Only the prose around the tables is written here. */
#include "cmd/cmd.h"
#include "services/settings.h"
#include "common/buf.h"
#include "common/mem.h"

#include <stdio.h>
#include <string.h>

/* ---- man ---- */

/* Text for troff: backslashes and hyphens escaped, no line starting with
 * a control character. */
static void roff(FILE *f, const char *s, size_t n, bool line_start)
{
	for (size_t i = 0; i < n; i++) {
		if (line_start && (s[i] == '.' || s[i] == '\''))
			fputs("\\&", f);
		line_start = s[i] == '\n';
		if (s[i] == '\\')
			fputs("\\e", f);
		else if (s[i] == '-')
			fputs("\\-", f);
		else
			fputc(s[i], f);
	}
}

static void roffs(FILE *f, const char *s)
{
	roff(f, s, strlen(s), false);
}

/* ABOUT's paragraphs (blank-line separated): filled text, or kept as
 * written (.nf) when a line of it is indented, as the tables in
 * `check --help` are. */
static void man_about(FILE *f, const char *about)
{
	for (const char *p = about; p && *p;) {
		const char *end = strstr(p, "\n\n");
		size_t n = end ? (size_t)(end - p) + 1 : strlen(p);
		te_autofree char *par = xstrndup(p, n);
		bool pre = strncmp(par, "  ", 2) == 0 || strstr(par, "\n  ");

		fputs(pre ? ".PP\n.nf\n" : ".PP\n", f);
		roff(f, par, n, true);
		if (n && par[n - 1] != '\n')
			fputc('\n', f);
		if (pre)
			fputs(".fi\n", f);
		p += n;
		while (*p == '\n')
			p++;
	}
}

static void man_option(FILE *f, const struct cmd_option *o)
{
	fputs(".TP\n", f);
	if (o->letter)
		fprintf(f, "\\fB\\-%c\\fR, ", o->letter);
	fputs("\\fB\\-\\-", f);
	roffs(f, o->name);
	fputs("\\fR", f);
	if (o->arg) {
		fputs(" \\fI", f);
		roffs(f, o->arg);
		fputs("\\fR", f);
	}
	fputc('\n', f);
	for (const char *h = o->help; *h;) {
		size_t n = strcspn(h, "\n");

		roff(f, h, n, true);
		fputc('\n', f);
		h += n + (h[n] == '\n');
	}
}

static void man_options(FILE *f, const struct cmd_option *t)
{
	for (const struct cmd_option *o = t; o && o->name; o++)
		if (!(o->flags & CMD_OPT_HIDDEN))
			man_option(f, o);
}

static void man_synopsis(FILE *f, const struct cmd_verb *v)
{
	fprintf(f, ".PP\n.B taskenv%s", *v->name ? " " : "");
	roffs(f, v->name);
	fputc('\n', f);
	for (const struct cmd_option *o = v->options; o && o->name; o++) {
		te_autofree char *item = NULL;

		if (o->flags & CMD_OPT_HIDDEN)
			continue;
		item = cmd_opt_synopsis_item(o);
		roffs(f, item);
		fputc('\n', f);
	}
	if (v->args) {
		roffs(f, v->args);
		fputc('\n', f);
	}
}

static void man_verb(FILE *f, const struct cmd_verb *v)
{
	fputs(".SS \"", f);
	roffs(f, v->name);
	fputs("\"\n", f);
	if (v->subs) {
		man_about(f, v->about);
		for (const struct cmd_verb *s = v->subs; s->name; s++)
			man_verb(f, s);
		return;
	}
	man_synopsis(f, v);
	man_about(f, v->about);
	man_options(f, v->options);
}

static void man_settings(FILE *f)
{
	for (int i = 0; i < SVC_SETTINGS_N; i++) {
		const struct svc_setting_def *d = svc_setting_def(i);

		fputs(".TP\n.B ", f);
		roffs(f, d->key ? d->key : d->name);
		if (d->env || d->alias) {
			fputs(" \\fR(", f);
			roffs(f, d->env ? d->env : "");
			if (d->alias) {
				fputs(d->env ? ", also " : "", f);
				roffs(f, d->alias);
			}
			fputs(")\\fR", f);
		}
		fputc('\n', f);
		roffs(f, d->help);
		if (*d->def) {
			fputs("; default \\fB", f);
			roffs(f, d->def);
			fputs("\\fR", f);
		}
		fputs(d->key ? ".\n" : ". Environment only.\n", f);
		if (d->flags & SVC_SETTING_LIST)
			fprintf(f, "A list: a YAML sequence in the file%s.\n",
				d->env ? ", comma\\-separated in the variable" : "");
		if (d->flags & SVC_SETTING_PROJECT)
			fputs("Also per project, under \\fBprojects:\\fR \\fIDIR\\fR\\fB:\\fR.\n", f);
	}
}

static const char man_head[] =
    ".SH DESCRIPTION\n"
    ".B taskenv\n"
    "turns the Compose file a project already has into a task\\-scoped environment on a\n"
    "Docker Engine (dockerd, or Podman's Docker\\-compatible service) reached over a UNIX\n"
    "socket on this host.\n"
    "Every container, network, volume and host port is scoped to the task and recorded in a\n"
    "sqlite ledger\n"
    ".I before\n"
    "it is created, so\n"
    ".B taskenv down\n"
    "removes exactly what the task owns, even after a crash, and nothing else.\n"
    ".PP\n"
    "The task name is the Compose project name:\n"
    ".BR \\-t \" NAME,\"\n"
    "else\n"
    ".BR $TASKENV_TASK ,\n"
    "else the current git branch after its last\n"
    ".RB \\(aq / \\(aq,\n"
    "a dash and six hex digits of the checkout's path.\n"
    "It must match\n"
    ".BR [a\\-z0\\-9][a\\-z0\\-9_\\-]{0,62} .\n"
    "Containers are named\n"
    ".IR task \\- service \\-1,\n"
    "networks and volumes\n"
    ".IR task _ key .\n"
    "Every published port is bound to 127.0.0.1 on a host port from the configured range.\n";

static const char man_tail[] =
    ".SH JSON OUTPUT\n"
    "Every\n"
    ".B \\-\\-json\n"
    "output is one JSON document on stdout. Objects carry\n"
    ".B \\(dqschema_version\\(dq: 1\n"
    "(bumped only on an incompatible change; fields may be added within a version). The\n"
    ".B ps\n"
    "and\n"
    ".B ls\n"
    "task list is the documented version\\-1 array that predates the field.\n"
    ".SH ENVIRONMENT\n"
    "Each setting's variable is listed under\n"
    ".BR SETTINGS .\n"
    "Besides those:\n"
    ".TP\n"
    ".B TASKENV_CONFIG\n"
    "The config file (else\n"
    ".IR $XDG_CONFIG_HOME/taskenv/config.yaml ,\n"
    ".IR ~/.config/taskenv/config.yaml ).\n"
    ".TP\n"
    ".BR DOCKER_HOST \", \" CONTAINER_HOST\n"
    "Engine socket\n"
    ".RB ( unix:// \" only).\"\n"
    ".TP\n"
    ".B COMPOSE_PROFILES\n"
    "Profiles to enable when no\n"
    ".B \\-\\-profile\n"
    "is given, as in Compose.\n"
    ".TP\n"
    ".B NO_COLOR\n"
    "When set and not empty, no colour is used.\n"
    ".TP\n"
    ".B TASKENV_FAULT\n"
    "Crash injection for tests:\n"
    ".B after\\-create:container:t1\\-app\\-1\n"
    "makes taskenv SIGKILL itself there.\n"
    ".SH EXIT STATUS\n"
    ".TP\n"
    ".B 0\n"
    "Success.\n"
    ".TP\n"
    ".B 1\n"
    "Failure: the engine refused, an image could not be had, ports ran out, or owned resources\n"
    "remain after down.\n"
    ".TP\n"
    ".B 2\n"
    "Usage: bad flags (the message names the flag and shows the verb's usage), invalid task\n"
    "name, a mistake in the Compose file or in a setting.\n"
    ".TP\n"
    ".B 3\n"
    "No engine answers on the socket, or it is another engine than the one the task was\n"
    "created on (both sockets are named; nothing is touched).\n"
    ".PP\n"
    ".BR exec ,\n"
    ".BR run ,\n"
    ".B with\n"
    "and\n"
    ".B shell\n"
    "exit with the command's own status; 125 when taskenv or the engine failed, 126 when the\n"
    "command cannot be executed, 127 when it is not found.\n"
    ".SH EXAMPLES\n"
    ".nf\n"
    "taskenv up \\-t auth\\-refactor\n"
    "eval \"$(taskenv env \\-t auth\\-refactor)\"\n"
    "curl \"http://127.0.0.1:$TASKENV_PORT_APP_3000/\"\n"
    "taskenv logs \\-t auth\\-refactor \\-f app\n"
    "taskenv exec \\-t auth\\-refactor database psql \\-U postgres \\-c \\(aqselect 1\\(aq\n"
    "taskenv run \\-t auth\\-refactor \\-\\-rm app sh \\-c \\(aqecho one\\-off\\(aq\n"
    "taskenv down \\-t auth\\-refactor \\-\\-volumes\n"
    ".fi\n"
    ".SH FILES\n"
    ".TP\n"
    ".I ~/.local/state/taskenv/state.db\n"
    "The ledger (mode 0600).\n"
    ".TP\n"
    ".I ~/.config/taskenv/config.yaml\n"
    "Settings.\n"
    ".SH SEE ALSO\n"
    ".BR docker (1),\n"
    ".BR podman (1),\n"
    ".BR docker\\-compose (1)\n";

static void gen_man(FILE *f)
{
	fprintf(f,
		".\\\" Generated by `taskenv --gen man` from the command table; edit cmd/, not this.\n"
		".TH TASKENV 1 \"\" \"taskenv %s\" \"User Commands\"\n.SH NAME\n"
		"taskenv \\- a task\\-scoped room for each agent task, from the project's Compose file\n"
		".SH SYNOPSIS\n",
		TASKENV_VERSION);
	man_synopsis(f, &cmd_global);
	fputs(man_head, f);
	man_about(f, cmd_global.about);
	fputs(".SH GLOBAL OPTIONS\n", f);
	man_options(f, cmd_global.options);
	man_option(f, &cmd_help_option);
	fputs(".PP\nEvery verb also takes\n.BR \\-h \", \" \\-\\-help .\n", f);
	fputs(".SH VERBS\n", f);
	for (const struct cmd_verb *v = cmd_verbs(); v->name; v++)
		man_verb(f, v);
	fputs(".SH SETTINGS\n"
	      "Built\\-in defaults, then the YAML file\n.B $TASKENV_CONFIG\nor\n"
	      ".I $XDG_CONFIG_HOME/taskenv/config.yaml\n.RI ( ~/.config/taskenv/config.yaml ),\n"
	      "then the variables, the later winning. A dotted key nests in the file\n"
	      "(\\fBlimits: {memory: 512m}\\fR). Unknown keys and bad values are errors naming\n"
	      "file:line:column or the variable.\n",
	      f);
	man_settings(f);
	fputs(man_tail, f);
}

/* ---- completion: what each option's value is ---- */

/* "task", "file", "dir", "words a b c", or "" (free text). */
static char *value_kind(const struct cmd_option *o)
{
	te_autobuf struct te_buf b = TE_BUF_INIT(0);

	if (o->choices) {
		te_buf_adds(&b, "words");
		for (const char *p = o->choices; *p;) {
			size_t n = strcspn(p, "|");

			te_buf_addf(&b, " %.*s", (int)n, p);
			p += n + (p[n] == '|');
		}
		return te_buf_detach(&b);
	}
	if (strcmp(o->arg, "TASK") == 0)
		return xstrdup("task");
	if (strcmp(o->arg, "FILE") == 0 || strcmp(o->arg, "PATH") == 0)
		return xstrdup("file");
	if (strcmp(o->arg, "DIR") == 0)
		return xstrdup("dir");
	return xstrdup("");
}

static bool takes_services(const struct cmd_verb *v)
{
	return v->args && strstr(v->args, "SERVICE");
}

/* Each verb and subcommand, with the parent for a subcommand. */
typedef void (*verb_fn)(FILE *f, const struct cmd_verb *v, const char *word);

static void each_verb(FILE *f, verb_fn fn)
{
	for (const struct cmd_verb *v = cmd_verbs(); v->name; v++) {
		if (!v->subs)
			fn(f, v, v->name);
		for (const struct cmd_verb *s = v->subs; s && s->name; s++)
			fn(f, s, s->name);
	}
}

/* ---- bash ---- */

static void bash_flags(FILE *f, const struct cmd_verb *v, const char *word)
{
	fprintf(f, "\t\"%s\") echo \"", word);
	for (const struct cmd_option *o = v->options; o && o->name; o++) {
		if (o->flags & CMD_OPT_HIDDEN)
			continue;
		if (o->letter)
			fprintf(f, "-%c ", o->letter);
		fprintf(f, "--%s ", o->name);
	}
	fputs("-h --help\" ;;\n", f);
}

static void bash_values(FILE *f, const struct cmd_verb *v, const char *word)
{
	for (const struct cmd_option *o = v->options; o && o->name; o++) {
		te_autofree char *kind = NULL;

		if (!o->arg || (o->flags & CMD_OPT_HIDDEN))
			continue;
		kind = value_kind(o);
		if (o->letter)
			fprintf(f, "\t\"%s -%c\" | ", word, o->letter);
		else
			fputc('\t', f);
		fprintf(f, "\"%s --%s\") echo \"%s\" ;;\n", word, o->name, *kind ? kind : "none");
	}
}

static const char bash_main[] =
    "# Task names, from the JSON list (cJSON prints one \"task\": \"name\" per line).\n"
    "_taskenv_tasks() {\n"
    "\t\"${_taskenv_cmd[@]}\" ls --json 2>/dev/null |\n"
    "\t\tsed -n 's/^[[:space:]]*\"task\":[[:space:]]*\"\\([^\"]*\\)\".*/\\1/p'\n"
    "}\n\n"
    "_taskenv_services() {\n"
    "\t[ -n \"$1\" ] || return 0\n"
    "\t\"${_taskenv_cmd[@]}\" ps -t \"$1\" 2>/dev/null | awk '$1 == \"container\" && $3 != \"\" { print $3 "
    "}' | "
    "sort -u\n"
    "}\n\n"
    "_taskenv_reply() {\n"
    "\tmapfile -t COMPREPLY < <(compgen \"$@\" -- \"$cur\")\n"
    "}\n\n"
    "_taskenv() {\n"
    "\tlocal cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD - 1]}\n"
    "\tlocal i verb=\"\" task=${TASKENV_TASK:-} w kind\n"
    "\t_taskenv_cmd=(\"${COMP_WORDS[0]}\")\n"
    "\tCOMPREPLY=()\n"
    "\tfor ((i = 1; i < COMP_CWORD; i++)); do\n"
    "\t\tw=${COMP_WORDS[i]}\n"
    "\t\tif [ -z \"$verb\" ]; then\n"
    "\t\t\tcase $(_taskenv_value \"\" \"$w\") in\n"
    "\t\t\t\"\") [[ $w == -* ]] || verb=$w ;;\n"
    "\t\t\t*)\n"
    "\t\t\t\t_taskenv_cmd+=(\"$w\" \"${COMP_WORDS[i + 1]}\")\n"
    "\t\t\t\ti=$((i + 1))\n"
    "\t\t\t\t;;\n"
    "\t\t\tesac\n"
    "\t\telif [ -n \"$(_taskenv_subs \"$verb\")\" ] && [[ $verb != *\" \"* ]] && [[ $w != -* ]]; then\n"
    "\t\t\tverb=\"$verb $w\"\n"
    "\t\telif [ \"$w\" = -t ] || [ \"$w\" = --task ]; then\n"
    "\t\t\ttask=${COMP_WORDS[i + 1]}\n"
    "\t\tfi\n"
    "\tdone\n"
    "\tkind=$(_taskenv_value \"$verb\" \"$prev\")\n"
    "\tcase $kind in\n"
    "\ttask) _taskenv_reply -W \"$(_taskenv_tasks)\"; return 0 ;;\n"
    "\tfile) _taskenv_reply -f; return 0 ;;\n"
    "\tdir) _taskenv_reply -d; return 0 ;;\n"
    "\twords\\ *) _taskenv_reply -W \"${kind#words }\"; return 0 ;;\n"
    "\tnone) return 0 ;;\n"
    "\tesac\n"
    "\tif [ -z \"$verb\" ]; then\n"
    "\t\tif [[ $cur == -* ]]; then _taskenv_reply -W \"$(_taskenv_flags \"\")\"; else _taskenv_reply -W "
    "\"$_taskenv_verbs\"; fi\n"
    "\t\treturn 0\n"
    "\tfi\n"
    "\tif [ -n \"$(_taskenv_subs \"$verb\")\" ] && [[ $verb != *\" \"* ]]; then\n"
    "\t\t_taskenv_reply -W \"$(_taskenv_subs \"$verb\") -h --help\"\n"
    "\t\treturn 0\n"
    "\tfi\n"
    "\tif [[ $cur == -* ]]; then\n"
    "\t\t_taskenv_reply -W \"$(_taskenv_flags \"$verb\")\"\n"
    "\t\treturn 0\n"
    "\tfi\n"
    "\tcase \" $_taskenv_service_verbs \" in\n"
    "\t*\" $verb \"*) _taskenv_reply -W \"$(_taskenv_services \"$task\")\" ;;\n"
    "\tesac\n"
    "\treturn 0\n"
    "}\n\n"
    "complete -F _taskenv taskenv\n";

static void gen_bash(FILE *f)
{
	const struct cmd_verb g = {"", NULL, 0, cmd_global.options, NULL, NULL, NULL, NULL};

	fputs("# bash completion for taskenv: verbs, flags, task names (from `taskenv ls --json`)\n"
	      "# and service names (from `taskenv ps -t TASK`). Generated by `taskenv --gen bash`\n"
	      "# from the command table; edit cmd/, not this.\n"
	      "# shellcheck shell=bash\n\n_taskenv_verbs=\"",
	      f);
	for (const struct cmd_verb *v = cmd_verbs(); v->name; v++)
		fprintf(f, "%s%s", v == cmd_verbs() ? "" : " ", v->name);
	fputs("\"\n_taskenv_service_verbs=\"", f);
	for (const struct cmd_verb *v = cmd_verbs(); v->name; v++)
		if (takes_services(v))
			fprintf(f, "%s ", v->name);
	fputs("\"\n\n# The subcommands of VERB.\n_taskenv_subs() {\n\tcase $1 in\n", f);
	for (const struct cmd_verb *v = cmd_verbs(); v->name; v++) {
		if (!v->subs)
			continue;
		fprintf(f, "\t%s) echo \"", v->name);
		for (const struct cmd_verb *s = v->subs; s->name; s++)
			fprintf(f, "%s%s", s == v->subs ? "" : " ", strrchr(s->name, ' ') + 1);
		fputs("\" ;;\n", f);
	}
	fputs("\tesac\n}\n\n# The options of VERB (\"\" for the global ones).\n_taskenv_flags() {\n\tcase $1 "
	      "in\n",
	      f);
	bash_flags(f, &g, "");
	each_verb(f, bash_flags);
	fputs(
	    "\tesac\n}\n\n# What the value of VERB's option OPT is: task, file, dir, \"words W...\", none;\n"
	    "# nothing when OPT takes no value.\n_taskenv_value() {\n\tcase \"$1 $2\" in\n",
	    f);
	bash_values(f, &g, "");
	each_verb(f, bash_values);
	fputs("\tesac\n}\n\n", f);
	fputs(bash_main, f);
}

/* ---- zsh ---- */

/* An _arguments description: no quote, bracket or colon that would end it. */
static void zsh_text(FILE *f, const char *s)
{
	for (; *s && *s != '\n'; s++) {
		if (*s == '\'') { /* a quote would end the shell word: the typographic one */
			fputs("’", f);
			continue;
		}
		if (*s == '`' || *s == '"')
			continue;
		fputc(*s == '[' ? '(' : *s == ']' ? ')' : *s == ':' ? ' ' : *s == '\\' ? '/' : *s, f);
	}
}

static void zsh_option(FILE *f, const struct cmd_option *o)
{
	te_autofree char *kind = o->arg ? value_kind(o) : NULL;
	const char *rep = o->flags & CMD_OPT_REPEAT ? "*" : "";

	if (o->letter && *rep)
		fprintf(f, " \\\n\t\t'*'{-%c,--%s}'[", o->letter, o->name);
	else if (o->letter)
		fprintf(f, " \\\n\t\t'(-%c --%s)'{-%c,--%s}'[", o->letter, o->name, o->letter, o->name);
	else
		fprintf(f, " \\\n\t\t'%s--%s[", rep, o->name);
	zsh_text(f, o->help);
	fputc(']', f);
	if (kind) {
		fputc(':', f);
		zsh_text(f, o->arg);
		fputc(':', f);
		if (strcmp(kind, "task") == 0)
			fputs("_taskenv_tasks", f);
		else if (strcmp(kind, "file") == 0)
			fputs("_files", f);
		else if (strcmp(kind, "dir") == 0)
			fputs("_files -/", f);
		else if (strncmp(kind, "words ", 6) == 0)
			fprintf(f, "(%s)", kind + 6);
	}
	fputc('\'', f);
}

static void zsh_verb(FILE *f, const struct cmd_verb *v, const char *word)
{
	fprintf(f, "\t\"%s\") _arguments", word);
	for (const struct cmd_option *o = v->options; o && o->name; o++)
		if (!(o->flags & CMD_OPT_HIDDEN))
			zsh_option(f, o);
	fputs(" \\\n\t\t'(- *)'{-h,--help}'[show help]'", f);
	if (v->flags & CMD_ARGS_FIRST)
		fputs(" \\\n\t\t'1:service:_taskenv_services' '*::command:_normal'", f);
	else if (takes_services(v))
		fputs(" \\\n\t\t'*:service:_taskenv_services'", f);
	fputs(" && ret=0 ;;\n", f);
}

static const char zsh_head[] =
    "#compdef taskenv\n"
    "# zsh completion for taskenv: verbs, flags, task names (from `taskenv ls --json`)\n"
    "# and service names (from `taskenv ps -t TASK`). Generated by `taskenv --gen zsh`\n"
    "# from the command table; edit cmd/, not this.\n\n"
    "_taskenv_tasks() {\n"
    "\tlocal -a tasks\n"
    "\ttasks=(${(f)\"$(taskenv ls --json 2>/dev/null | sed -n 's/^[[:space:]]*\"task\":[[:space:]]*"
    "\"\\([^\"]*\\)\".*/\\1/p')\"})\n"
    "\t_describe -t tasks 'task' tasks\n"
    "}\n\n"
    "_taskenv_services() {\n"
    "\tlocal task=${opt_args[-t]:-${opt_args[--task]:-$TASKENV_TASK}}\n"
    "\tlocal -a svcs\n"
    "\t[[ -n $task ]] || return 1\n"
    "\tsvcs=(${(f)\"$(taskenv ps -t $task 2>/dev/null | awk '$1 == \"container\" && $3 != \"\" { print $3 }' "
    "| sort -u)\"})\n"
    "\t_describe -t services 'service' svcs\n"
    "}\n\n";

static void gen_zsh(FILE *f)
{
	fputs(zsh_head, f);
	fputs("_taskenv() {\n\tlocal curcontext=$curcontext state line ret=1\n\ttypeset -A opt_args\n"
	      "\tlocal -a verbs\n\tverbs=(\n",
	      f);
	for (const struct cmd_verb *v = cmd_verbs(); v->name; v++) {
		fprintf(f, "\t\t'%s:", v->name);
		zsh_text(f, v->summary);
		fputs("'\n", f);
	}
	fputs("\t)\n\t_arguments -C", f);
	for (const struct cmd_option *o = cmd_global.options; o->name; o++)
		if (!(o->flags & CMD_OPT_HIDDEN))
			zsh_option(f, o);
	fputs(" \\\n\t\t'(- *)'{-h,--help}'[show help]' \\\n\t\t'1:verb:->verb' \\\n\t\t'*::arg:->args' && "
	      "ret=0\n"
	      "\tcase $state in\n\tverb) _describe -t verbs 'taskenv verb' verbs && ret=0 ;;\n\targs)\n"
	      "\t\tlocal word=$line[1]\n",
	      f);
	for (const struct cmd_verb *v = cmd_verbs(); v->name; v++) {
		if (!v->subs)
			continue;
		fprintf(f,
			"\t\tif [[ $word == %s ]]; then\n\t\t\tif (( CURRENT == 2 )); then\n"
			"\t\t\t\t_values 'subcommand'",
			v->name);
		for (const struct cmd_verb *s = v->subs; s->name; s++)
			fprintf(f, " %s", strrchr(s->name, ' ') + 1);
		fprintf(f,
			" && return 0\n\t\t\tfi\n\t\t\tword=\"%s $line[2]\"\n\t\t\tshift words\n"
			"\t\t\t(( CURRENT-- ))\n\t\tfi\n",
			v->name);
	}
	fputs("\t\tcase $word in\n", f);
	each_verb(f, zsh_verb);
	fputs("\t\tesac\n\t\t;;\n\tesac\n\treturn ret\n}\n\n_taskenv \"$@\"\n", f);
}

/* "VERB --option" per line, straight from the tables (the global options
 * under "taskenv"): what tests/cli/cli_table.sh checks the others against. */
static void list_options(FILE *f, const struct cmd_verb *v, const char *word)
{
	for (const struct cmd_option *o = v->options; o && o->name; o++)
		if (!(o->flags & CMD_OPT_HIDDEN))
			fprintf(f, "%s\t--%s\n", word, o->name);
	fprintf(f, "%s\t--help\n", word);
}

int cmd_gen(const char *what)
{
	if (strcmp(what, "man") == 0)
		gen_man(stdout);
	else if (strcmp(what, "bash") == 0)
		gen_bash(stdout);
	else if (strcmp(what, "zsh") == 0)
		gen_zsh(stdout);
	else
		list_options(stdout, &cmd_global, "taskenv"), each_verb(stdout, list_options);
	return fflush(stdout) == 0 ? EXIT_OK : EXIT_FAIL;
}
