/* "Did you mean ...?" for misspelt keys: the edit distance Compose users
 * know from git and docker (a typo, a missing or extra letter, two letters
 * swapped each count one). */
#ifndef TASKENV_SERVICES_MODEL_SUGGEST_H
#define TASKENV_SERVICES_MODEL_SUGGEST_H

#include <stddef.h>

/* Longest word svc_suggest compares: keys are short, and the distance costs
 * len(a) * len(b), so a hostile file's megabyte key is never compared. */
#define SVC_SUGGEST_MAX_LEN 64

/* The Damerau-Levenshtein distance of A and B in its optimal string
 * alignment form (insertion, deletion, substitution, transposition of two
 * adjacent characters, each 1; no substring edited twice). Case-sensitive.
 * Words longer than SVC_SUGGEST_MAX_LEN give SIZE_MAX. */
size_t svc_edit_distance(const char *a, const char *b);

/* The candidate (CANDIDATES: N strings, NULL entries skipped) closest to
 * WORD at distance 1 or 2, the first one on a tie; NULL when none is that
 * close. Borrowed from CANDIDATES. */
const char *svc_suggest(const char *word, const char *const *candidates, size_t n);

#endif
