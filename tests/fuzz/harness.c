/* What the fuzz harnesses share (harness.h). */
#include "tests/fuzz/harness.h"

#include "common/mem.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char input_dir[] = "/tmp/taskenv-fuzz-XXXXXX";
static char *input_file;

static void remove_input(void)
{
	unlink(input_file);
	rmdir(input_dir);
	free(input_file);
}

const char *fuzz_write_input(const char *name, const uint8_t *data, size_t size)
{
	FILE *f;

	if (!input_file) {
		if (!mkdtemp(input_dir))
			abort();
		input_file = xasprintf("%s/%s", input_dir, name);
		atexit(remove_input);
	}
	f = fopen(input_file, "wb");
	if (!f || (size && fwrite(data, 1, size, f) != size))
		abort();
	fclose(f);
	return input_file;
}

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
