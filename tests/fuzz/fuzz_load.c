/* Fuzz harness over the Compose loader, interpolation, merge, policy and
 * the config printer: the input is written to a temporary compose.yaml,
 * loaded (with the .env beside it absent), checked, printed, freed.
 *
 * Built with clang -fsanitize=fuzzer (TASKENV_FUZZ=ON, scripts/fuzz.sh) it
 * is a libFuzzer target. Built without it (FUZZ_REPLAY) it is a corpus
 * replayer: `fuzz_load_replay FILE|DIR...` runs every file given, and every
 * compose*.yaml / *.yml below a directory, once (ctest label fuzz). */
#include "services/model/compose.h"
#include "services/model/config.h"
#include "services/model/load.h"
#include "services/model/policy.h"
#include "common/err.h"
#include "common/mem.h"

#include <cjson/cJSON.h>
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char *input_path(void)
{
	static char *path;
	char tmpl[] = "/tmp/taskenv-fuzz-XXXXXX";

	if (path)
		return path;
	if (!mkdtemp(tmpl))
		abort();
	path = xasprintf("%s/compose.yaml", tmpl);
	return path;
}

static void exercise(struct svc_project *p)
{
	struct svc_finding *f = NULL;
	struct svc_policy_defaults d = {1 << 30, 1, 100, true};
	struct te_err err = {0};
	size_t n = 0;
	cJSON *json;

	svc_policy_validate(p, NULL, &err);
	svc_policy_check(p, NULL, &f, &n);
	for (size_t i = 0; i < n; i++)
		free(svc_finding_format(&f[i]));
	svc_findings_free(f, n);
	svc_policy_apply_defaults(p, &d);
	json = svc_config_json(p, "fuzz", &err);
	if (json) {
		free(svc_config_yaml(json, &err));
		cJSON_Delete(json);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *path = input_path();
	char *files[] = {path, NULL};
	struct te_err err = {0};
	struct svc_project *p;
	FILE *f = fopen(path, "wb");

	if (!f)
		abort();
	if (size && fwrite(data, 1, size, f) != size)
		abort();
	fclose(f);
	p = svc_load(files, &err);
	if (p) {
		exercise(p);
		svc_project_free(p);
	}
	return 0;
}

#ifdef FUZZ_REPLAY
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

static bool yaml_name(const char *name)
{
	size_t n = strlen(name);

	return (n > 5 && strcmp(name + n - 5, ".yaml") == 0) || (n > 4 && strcmp(name + n - 4, ".yml") == 0);
}

static int replay(const char *path, int *count)
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
		    (S_ISDIR(cs.st_mode) || yaml_name(ents[i]->d_name)) && replay(child, count) < 0)
			rc = -1;
		free(child);
		free(ents[i]);
	}
	free(ents);
	return rc;
}

int main(int argc, char **argv)
{
	int count = 0, rc = 0;

	for (int i = 1; i < argc; i++)
		if (replay(argv[i], &count) < 0)
			rc = 1;
	printf("replayed %d inputs\n", count);
	if (count == 0)
		return 1;
	return rc;
}
#endif
