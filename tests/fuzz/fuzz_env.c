/* Fuzz harness over the .env parser and Compose interpolation
 * (services/model/env.c, interp.c): the input is written to a temporary
 * .env and loaded (svc_env_load, which interpolates each unquoted or
 * double-quoted value); then each line of the input, and each value the
 * file defined, is interpolated again with the loaded variables
 * (svc_interp), as the loader does with every scalar of a Compose file.
 *
 * Built with clang -fsanitize=fuzzer (TASKENV_FUZZ=ON, scripts/fuzz.sh) it
 * is a libFuzzer target; built with FUZZ_REPLAY it replays every file given
 * or below a directory given (tests/fuzz/corpus-env; ctest label fuzz). */
#include "services/model/interp.h"
#include "common/err.h"
#include "common/mem.h"

#include "tests/fuzz/harness.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Lines interpolated per input: the parser is linear, more lines only slow
 * the fuzzer down. */
#define MAX_LINES 64

static void interp_one(const char *s, struct svc_env *env)
{
	struct te_err err = {0};
	char *out = NULL;

	if (svc_interp(s, svc_env_lookup, env, &out, &err) == 0)
		free(out);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct te_err err = {0};
	struct svc_env *env = svc_env_load(fuzz_write_input(".env", data, size), &err);
	char *text = xstrndup((const char *)data, size);
	char *line = text;

	for (int i = 0; line && i < MAX_LINES; i++) {
		char *nl = strchr(line, '\n');

		if (nl)
			*nl = '\0';
		interp_one(line, env);
		line = nl ? nl + 1 : NULL;
	}
	for (size_t i = 0; i < svc_env_size(env); i++) {
		const char *k, *v;

		svc_env_at(env, i, &k, &v);
		interp_one(v, env);
	}
	svc_env_free(env);
	free(text);
	return 0;
}

#ifdef FUZZ_REPLAY
int main(int argc, char **argv)
{
	return fuzz_replay_main(argc, argv, NULL);
}
#endif
