/* Host paths resolved as the kernel will see them. */
#include "common/path.h"
#include "common/buf.h"
#include "common/mem.h"

#include <stdlib.h>
#include <string.h>

/* Fold "..", "." and empty segments of TAIL (missing segments, in reverse
 * order, each "/seg") onto REAL. */
static char *append_tail(char *real, struct te_buf *tail)
{
	for (;;) {
		char *seg = tail->data ? strrchr(tail->data, '/') : NULL;

		if (!seg)
			return real;
		if (strcmp(seg + 1, "..") == 0) {
			char *up = strrchr(real, '/');

			if (up && up != real)
				*up = '\0';
			else
				real[1] = '\0';
		} else if (seg[1] && strcmp(seg + 1, ".") != 0) {
			char *next = xasprintf("%s%s%s", real, strcmp(real, "/") == 0 ? "" : "/", seg + 1);

			free(real);
			real = next;
		}
		*seg = '\0';
		tail->len = (size_t)(seg - tail->data);
	}
}

char *te_path_resolve(const char *path)
{
	te_autofree char *head = xstrdup(path);
	te_autobuf struct te_buf tail = TE_BUF_INIT(0);
	char *real = NULL;

	for (;;) {
		char *slash;

		real = realpath(head, NULL);
		if (real || strcmp(head, "/") == 0 || !*head)
			break;
		slash = strrchr(head, '/');
		if (!slash)
			break;
		te_buf_addf(&tail, "/%s", slash + 1);
		*slash = '\0';
		if (!*head)
			head[0] = '/', head[1] = '\0';
	}
	if (!real)
		real = xstrdup("/");
	return append_tail(real, &tail);
}

bool te_path_within(const char *path, const char *dir)
{
	size_t n = strlen(dir);

	if (strcmp(dir, "/") == 0)
		return true;
	return strncmp(path, dir, n) == 0 && (path[n] == '\0' || path[n] == '/');
}
