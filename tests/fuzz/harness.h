/* What the fuzz harnesses share: the file each input is written to, and
 * the corpus replayer of FUZZ_REPLAY builds (each file given, and every
 * file below a directory that WANT accepts, fed to LLVMFuzzerTestOneInput
 * once, as a ctest test, label fuzz). */
#ifndef TASKENV_TESTS_FUZZ_HARNESS_H
#define TASKENV_TESTS_FUZZ_HARNESS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Write DATA to NAME in a directory of its own under /tmp, made on the
 * first call and removed when the process exits; the path, borrowed. */
const char *fuzz_write_input(const char *name, const uint8_t *data, size_t size);

/* Replay ARGV[1..ARGC) (files or directories; below a directory, the files
 * whose name WANT accepts, WANT NULL: all). Prints the count; exit status 0,
 * or 1 when a path could not be read or nothing was replayed. */
int fuzz_replay_main(int argc, char **argv, bool (*want)(const char *name));

#endif
