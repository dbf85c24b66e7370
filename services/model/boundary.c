/* The project boundary (boundary.h). */
#include "services/model/boundary.h"
#include "common/mem.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

bool svc_path_within(const char *path, const char *root)
{
	size_t n = strlen(root);

	return strcmp(root, "/") == 0 || (strncmp(path, root, n) == 0 && (path[n] == '\0' || path[n] == '/'));
}

char *svc_project_boundary(const char *dir)
{
	char *real = realpath(dir, NULL);
	char *d;

	if (!real)
		return NULL;
	d = xstrdup(real);
	for (;;) {
		te_autofree char *git = xasprintf("%s/.git", strcmp(d, "/") == 0 ? "" : d);
		struct stat st;
		char *slash;

		if (lstat(git, &st) == 0 && (S_ISDIR(st.st_mode) || S_ISREG(st.st_mode))) {
			free(real);
			return d;
		}
		slash = strrchr(d, '/');
		if (!slash || slash == d)
			break;
		*slash = '\0';
	}
	free(d);
	return real;
}
