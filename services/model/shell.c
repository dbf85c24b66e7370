/* Shell words for command: / entrypoint: strings (load.h). */
#include "services/model/load.h"

#include "common/buf.h"
#include "common/err.h"
#include "common/mem.h"

#include <stdbool.h>
#include <stddef.h>

/* Inside double quotes a backslash escapes only these (POSIX 2.2.3). */
static bool dq_escapable(char c)
{
	return c == '$' || c == '`' || c == '"' || c == '\\' || c == '\n';
}

/* One quoted or escaped piece starting at S[*i]; appends to W. */
static const char *shell_piece(const char *s, size_t *i, struct te_buf *w)
{
	char q = s[*i];
	size_t j = *i + 1;

	if (q == '\\') {
		if (!s[j])
			return "trailing backslash";
		if (s[j] != '\n')
			te_buf_add(w, &s[j], 1);
		*i = j + 1;
		return NULL;
	}
	for (; s[j] && s[j] != q; j++) {
		if (q == '"' && s[j] == '\\' && dq_escapable(s[j + 1])) {
			j++;
			if (s[j] == '\n')
				continue;
		}
		te_buf_add(w, &s[j], 1);
	}
	if (!s[j])
		return q == '\'' ? "unterminated single quote" : "unterminated double quote";
	*i = j + 1;
	return NULL;
}

char **svc_shell_split(const char *s, struct te_err *err)
{
	te_autostrv char **argv = xcalloc(1, sizeof(*argv));
	te_autobuf struct te_buf w = TE_BUF_INIT(0);
	bool in_word = false;
	size_t i = 0;

	if (!s)
		s = "";
	while (s[i]) {
		const char *why;

		if (s[i] == ' ' || s[i] == '\t' || s[i] == '\n') {
			if (in_word)
				argv = te_strv_push(argv, te_buf_detach(&w));
			in_word = false;
			i++;
			continue;
		}
		in_word = true;
		if (s[i] != '\'' && s[i] != '"' && s[i] != '\\') {
			te_buf_add(&w, &s[i++], 1);
			continue;
		}
		why = shell_piece(s, &i, &w);
		if (why) {
			te_err_set(err, TE_E_COMPOSE, "%s in \"%s\"", why, s);
			return NULL;
		}
	}
	if (in_word)
		argv = te_strv_push(argv, te_buf_detach(&w));
	return TE_STEAL(argv);
}
