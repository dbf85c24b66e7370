/* Host paths resolved as the kernel will see them (every symlink followed). */
#ifndef TASKENV_COMMON_PATH_H
#define TASKENV_COMMON_PATH_H

#include <stdbool.h>

/* realpath of the longest existing prefix of the absolute PATH, the
 * missing rest appended lexically ("..", "." and empty segments folded).
 * Owned. */
char *te_path_resolve(const char *path);
/* PATH is DIR or below it (both resolved, no trailing slash). */
bool te_path_within(const char *path, const char *dir);

#endif
