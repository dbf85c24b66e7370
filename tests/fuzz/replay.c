/* The corpus replayer (replay.h). */
#include "tests/fuzz/replay.h"

#include "common/mem.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static int replay_file(const char *path)
{
	FILE *f = fopen(path, "rb");
	char *buf = NULL;
	size_t len = 0, cap = 0, n;
	char chunk[4096];

	if (!f) {
		perror(path);
		return -1;
	}
	while ((n = fread(chunk, 1, sizeof(chunk), f)) > 0) {
		if (len + n > cap) {
			cap = (len + n) * 2;
			buf = xrealloc(buf, cap);
		}
		memcpy(buf + len, chunk, n);
		len += n;
	}
	fclose(f);
	LLVMFuzzerTestOneInput((const uint8_t *)buf, len);
	free(buf);
	return 0;
}

static int replay(const char *path, bool (*want)(const char *name), int *count)
{
	struct stat st;
	struct dirent **ents = NULL;
	int n, rc = 0;

	if (stat(path, &st) < 0) {
		perror(path);
		return -1;
	}
	if (!S_ISDIR(st.st_mode)) {
		(*count)++;
		return replay_file(path);
	}
	n = scandir(path, &ents, NULL, alphasort);
	for (int i = 0; i < n; i++) {
		char *child = xasprintf("%s/%s", path, ents[i]->d_name);
		struct stat cs;

		if (ents[i]->d_name[0] != '.' && stat(child, &cs) == 0 &&
		    (S_ISDIR(cs.st_mode) || !want || want(ents[i]->d_name)) && replay(child, want, count) < 0)
			rc = -1;
		free(child);
		free(ents[i]);
	}
	free(ents);
	return rc;
}

int fuzz_replay_main(int argc, char **argv, bool (*want)(const char *name))
{
	int count = 0, rc = 0;

	for (int i = 1; i < argc; i++)
		if (replay(argv[i], want, &count) < 0)
			rc = 1;
	printf("replayed %d inputs\n", count);
	if (count == 0)
		return 1;
	return rc;
}
