/* Build contexts: the .dockerignore matcher (Docker's own examples and
 * moby/patternmatcher cases) and the tar libarchive writes. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "common/err.h"
#include "common/mem.h"
#include "services/lifecycle/context.h"

#include <archive.h>
#include <archive_entry.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

struct pm_case {
	const char *pattern;
	const char *path;
	bool match;
};

static void test_pattern_match(void **state)
{
	static const struct pm_case cases[] = {
	    /* docs.docker.com/build/concepts/context/#dockerignore-files */
	    {"*/temp*", "somedir/temporary.txt", true},
	    {"*/temp*", "somedir/temp", true},
	    {"*/temp*", "temp", false},
	    {"*/*/temp*", "somedir/subdir/temporary.txt", true},
	    {"*/*/temp*", "somedir/temporary.txt", false},
	    {"temp?", "tempa", true},
	    {"temp?", "temp", false},
	    {"temp?", "temp/", false},
	    {"**/*.go", "main.go", true},
	    {"**/*.go", "a/b/c.go", true},
	    {"**/*.go", "a/b/c.goo", false},
	    /* moby/patternmatcher */
	    {"**", "file", true},
	    {"**", "dir/file", true},
	    {"**/**", "file", true},
	    {"dir/**", "dir/file", true},
	    {"dir/**", "dir/dir2/file", true},
	    {"**/dir", "dir", true},
	    {"**/dir", "a/b/dir", true},
	    {"**/dir", "dir/file", false},
	    {"**/dir2/*", "dir/dir2/file", true},
	    {"**/dir2/*", "dir/dir2/g/file", false},
	    {"**/file", "dir/dir/file", true},
	    {"**/file*", "dir/dir/file", true},
	    {"**/file*txt", "dir/dir/file.txt", true},
	    {"**/**/*.txt", "dir/dir/file.txt", true},
	    {"abc.def", "abcdef", false},
	    {"abc?def", "abcxdef", true},
	    {"abc?def", "abcdef", false},
	    {"abc*", "abc/def", false},
	    {"*.go", "dir/x.go", false},
	    {"[abc]", "b", true},
	    {"[abc]", "d", false},
	    {"[^abc]", "d", true},
	    {"[^abc]", "a", false},
	    {"[a-c]x", "bx", true},
	    {"[a-c]x", "dx", false},
	    {"a\\*b", "a*b", true},
	    {"a\\*b", "axb", false},
	    {"[", "[", false},
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		bool got = svc_ignore_pattern_match(cases[i].pattern, cases[i].path);

		if (got != cases[i].match)
			fail_msg("'%s' vs '%s': got %d, want %d", cases[i].pattern, cases[i].path, got,
				 cases[i].match);
	}
}

struct ex_case {
	const char *file;
	const char *path;
	bool excluded;
};

static void test_excluded(void **state)
{
	static const struct ex_case cases[] = {
	    /* Docker's docs: the last matching line wins. */
	    {"*.md\n!README.md\n", "README.md", false},
	    {"*.md\n!README.md\n", "CHANGES.md", true},
	    {"*.md\n!README*.md\nREADME-secret.md\n", "README-secret.md", true},
	    {"*.md\n!README*.md\nREADME-secret.md\n", "README-x.md", false},
	    {"*.md\nREADME-secret.md\n!README*.md\n", "README-secret.md", false},
	    /* A parent directory matching excludes what is below it. */
	    {"docs\n", "docs/a/b.txt", true},
	    {"docs\n!docs/keep.txt\n", "docs/keep.txt", false},
	    {"docs\n!docs/keep.txt\n", "docs/other.txt", true},
	    /* Cleaning: leading '/', "./", trailing '/', "a/../b". */
	    {"/docs/\n", "docs/x", true},
	    {"./docs\n", "docs", true},
	    {"x/../docs\n", "docs", true},
	    /* Comments, blank lines and white space. */
	    {"# docs\n\n   \n", "docs", false},
	    {"  docs  \r\n", "docs", true},
	    {"", "anything", false},
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct svc_ignore *ig = svc_ignore_parse(cases[i].file);
		bool got = svc_ignore_excluded(ig, cases[i].path);

		svc_ignore_free(ig);
		if (got != cases[i].excluded)
			fail_msg("case %zu: '%s' for %s: got %d, want %d", i, cases[i].path, cases[i].file,
				 got, cases[i].excluded);
	}
}

static void test_may_reinclude(void **state)
{
	struct svc_ignore *ig = svc_ignore_parse("docs\n!docs/keep.txt\nbuild\n");

	assert_true(svc_ignore_may_reinclude(ig, "docs"));
	assert_false(svc_ignore_may_reinclude(ig, "build"));
	assert_false(svc_ignore_may_reinclude(ig, "doc"));
	svc_ignore_free(ig);
}

static void write_file(const char *dir, const char *rel, const char *text)
{
	char path[PATH_MAX];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, rel);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

/* Names in the tar, "name" or "name -> target" for symlinks, one a line. */
static char *list_tar(FILE *f)
{
	struct archive *a = archive_read_new();
	struct archive_entry *en;
	char *out = xstrdup("");

	rewind(f);
	archive_read_support_format_tar(a);
	assert_int_equal(archive_read_open_FILE(a, f), ARCHIVE_OK);
	while (archive_read_next_header(a, &en) == ARCHIVE_OK) {
		const char *t = archive_entry_symlink(en);
		char *next =
		    xasprintf("%s%s%s%s\n", out, archive_entry_pathname(en), t ? " -> " : "", t ? t : "");

		assert_int_equal(archive_entry_uid(en), 0);
		free(out);
		out = next;
	}
	archive_read_free(a);
	return out;
}

static void test_pack(void **state)
{
	char tmpl[] = "/tmp/te-ctx-XXXXXX";
	char *dir = mkdtemp(tmpl);
	char sub[PATH_MAX], cmd[PATH_MAX + 16];
	char *df = NULL, *names;
	struct te_err err = {0};
	FILE *tar = tmpfile();

	assert_non_null(dir);
	snprintf(sub, sizeof(sub), "%s/docs", dir);
	assert_int_equal(mkdir(sub, 0755), 0);
	snprintf(sub, sizeof(sub), "%s/build", dir);
	assert_int_equal(mkdir(sub, 0755), 0);
	write_file(dir, "Dockerfile", "FROM scratch\n");
	write_file(dir, ".dockerignore", "docs\n!docs/keep.txt\nbuild\nDockerfile\n");
	write_file(dir, "app.txt", "app\n");
	write_file(dir, "docs/keep.txt", "keep\n");
	write_file(dir, "docs/drop.txt", "drop\n");
	write_file(dir, "build/out", "x\n");
	snprintf(sub, sizeof(sub), "%s/passwd-link", dir);
	assert_int_equal(symlink("/etc/passwd", sub), 0);
	assert_int_equal(svc_context_pack(dir, NULL, NULL, tar, &df, &err), 0);
	assert_string_equal(df, "Dockerfile");
	names = list_tar(tar);
	/* Sorted walk; Dockerfile and .dockerignore always sent; the symlink
	 * stays a symlink; excluded docs/ is not an entry but its kept file is. */
	assert_string_equal(
	    names, ".dockerignore\nDockerfile\napp.txt\ndocs/keep.txt\npasswd-link -> /etc/passwd\n");
	free(names);
	free(df);
	fclose(tar);

	/* Inline Dockerfile: added under a generated name. */
	tar = tmpfile();
	assert_int_equal(svc_context_pack(dir, NULL, "FROM x\n", tar, &df, &err), 0);
	assert_string_equal(df, ".dockerfile.taskenv");
	names = list_tar(tar);
	assert_non_null(strstr(names, ".dockerfile.taskenv\n"));
	free(names);
	free(df);
	fclose(tar);

	/* Missing context. */
	tar = tmpfile();
	assert_int_equal(svc_context_pack("/nonexistent-te", NULL, NULL, tar, &df, &err), -1);
	assert_int_equal(err.code, TE_E_IO);
	fclose(tar);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	assert_int_equal(system(cmd), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_pattern_match),
	    cmocka_unit_test(test_excluded),
	    cmocka_unit_test(test_may_reinclude),
	    cmocka_unit_test(test_pack),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
