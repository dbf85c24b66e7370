/* The contract as Markdown, rendered from its JSON only (so the two can
 * never disagree). */
#include "services/contract/contract.h"
#include "services/contract/snapshot.h"
#include "common/buf.h"
#include "common/mem.h"

#define TE_WITH_CJSON
#include "common/cleanup.h"

#include <string.h>

#define MD_MAX (16u * 1024u * 1024u)

static const cJSON *get(const cJSON *o, const char *k)
{
	return cJSON_GetObjectItemCaseSensitive(o, k);
}

static const char *s_or(const cJSON *o, const char *k, const char *dflt)
{
	const char *v = cJSON_GetStringValue(get(o, k));

	return v ? v : dflt;
}

static char *joined(const cJSON *arr)
{
	te_autobuf struct te_buf b = TE_BUF_INIT(MD_MAX);
	const cJSON *it;

	cJSON_ArrayForEach (it, arr)
		te_buf_addf(&b, "%s%s", b.len ? ", " : "", cJSON_IsString(it) ? it->valuestring : "?");
	return b.len ? te_buf_detach(&b) : xstrdup("none");
}

static void source_md(struct te_buf *b, const cJSON *s)
{
	const cJSON *dirty = get(s, "dirty_files");

	te_buf_addf(b, "## Source\n\n| | |\n|---|---|\n");
	te_buf_addf(b, "| repository | `%s` |\n", s_or(s, "repository", "not a git repository"));
	te_buf_addf(b, "| worktree | `%s` |\n", s_or(s, "worktree_path", "none recorded"));
	te_buf_addf(b, "| base commit | `%s` |\n", s_or(s, "base_commit", "unknown"));
	te_buf_addf(b, "| HEAD | `%s` |\n", s_or(s, "head_commit", "unknown"));
	if (cJSON_IsNumber(dirty))
		te_buf_addf(b, "| dirty files | %d |\n", dirty->valueint);
	te_buf_addf(b, "\nEvidence: %s.\n\n", s_or(s, "evidence", ""));
}

static void filesystem_md(struct te_buf *b, const cJSON *f)
{
	const cJSON *m;

	te_buf_addf(b, "## Filesystem\n\nProject directory: `%s`\n\n", s_or(f, "project_dir", "?"));
	te_buf_addf(b, "| container | type | source | target | mode | inside project | declared |\n"
		       "|---|---|---|---|---|---|---|\n");
	cJSON_ArrayForEach (m, get(f, "mounts"))
		te_buf_addf(b, "| %s | %s | `%s` | `%s` | %s | %s | %s%s |\n", s_or(m, "container", ""),
			    s_or(m, "type", ""), s_or(m, "source", ""), s_or(m, "target", ""),
			    s_or(m, "mode", ""), cJSON_IsTrue(get(m, "inside_project")) ? "yes" : "no",
			    cJSON_IsTrue(get(m, "declared")) ? "yes" : "NO",
			    cJSON_IsTrue(get(m, "git_worktree")) ? " (git worktree)" : "");
	te_buf_addf(b, "\nAbsent (never given to the task):\n\n");
	cJSON_ArrayForEach (m, get(f, "absent")) {
		te_autofree char *by = joined(get(m, "exposed_to"));

		te_buf_addf(b, "- `%s`: %s%s\n", s_or(m, "path", ""),
			    cJSON_IsTrue(get(m, "absent")) ? "absent" : "EXPOSED to ",
			    cJSON_IsTrue(get(m, "absent")) ? "" : by);
	}
	te_buf_addf(b, "\nEvidence: %s.\n\n", s_or(f, "evidence", ""));
}

static void process_md(struct te_buf *b, const cJSON *p)
{
	const cJSON *c, *own = get(p, "cleanup_owner");

	te_buf_addf(b, "## Process\n\n| container | id | service | ledger | live |\n|---|---|---|---|---|\n");
	cJSON_ArrayForEach (c, get(p, "containers"))
		te_buf_addf(b, "| %s | `%.12s` | %s | %s | %s |\n", s_or(c, "name", ""), s_or(c, "id", ""),
			    s_or(c, "service", ""), s_or(c, "ledger_state", ""), s_or(c, "live", ""));
	te_buf_addf(b, "\n| port (host) | container | ledger port |\n|---|---|---|\n");
	cJSON_ArrayForEach (c, get(p, "ports"))
		te_buf_addf(b, "| %s:%d | %s %d/%s | %d |\n", s_or(c, "host_ip", ""),
			    get(c, "host_port")->valueint, s_or(c, "container", ""),
			    get(c, "container_port")->valueint, s_or(c, "proto", ""),
			    get(c, "ledger_host_port")->valueint);
	te_buf_addf(b, "\n| network | subnets | internal |\n|---|---|---|\n");
	cJSON_ArrayForEach (c, get(p, "networks")) {
		te_autofree char *sn = joined(get(c, "subnets"));

		te_buf_addf(b, "| %s | %s | %s |\n", s_or(c, "name", ""), sn,
			    cJSON_IsTrue(get(c, "internal")) ? "yes" : "no");
	}
	te_buf_addf(b, "\nVolumes:");
	cJSON_ArrayForEach (c, get(p, "volumes"))
		te_buf_addf(b, " `%s` (%s)", s_or(c, "name", ""), s_or(c, "live", ""));
	te_buf_addf(b, "\n\nCleanup owner: ledger `%s` (`%s`): %s.\n\n", s_or(own, "ledger_id", ""),
		    s_or(own, "ledger_path", ""), s_or(own, "how", ""));
}

static void environment_md(struct te_buf *b, const cJSON *e)
{
	const cJSON *c;

	te_buf_addf(b, "## Environment\n\n| container | image | id | digests |\n|---|---|---|---|\n");
	cJSON_ArrayForEach (c, get(e, "images")) {
		te_autofree char *d = joined(get(c, "digests"));

		te_buf_addf(b, "| %s | %s | `%.19s` | %s |\n", s_or(c, "container", ""), s_or(c, "image", ""),
			    s_or(c, "id", ""), d);
	}
	te_buf_addf(b, "\n| container | memory (bytes) | nano cpus | pids |\n|---|---|---|---|\n");
	cJSON_ArrayForEach (c, get(e, "limits"))
		te_buf_addf(b, "| %s | %.0f | %.0f | %.0f |\n", s_or(c, "container", ""),
			    get(c, "memory_bytes")->valuedouble, get(c, "nano_cpus")->valuedouble,
			    get(c, "pids_limit")->valuedouble);
	te_buf_addf(b, "\n(0 means unlimited.) Egress:");
	cJSON_ArrayForEach (c, get(e, "egress"))
		te_buf_addf(b, " %s %s;", s_or(c, "network", ""),
			    cJSON_IsTrue(get(c, "egress_allowed")) ? "allowed" : "denied");
	te_buf_addf(b, "\nTask-scoped services: %d. Build cache: %s.\n\n",
		    cJSON_GetArraySize(get(e, "services")),
		    cJSON_GetStringValue(get(e, "build_cache")) ?: "?");
}

static void identity_md(struct te_buf *b, const cJSON *i)
{
	const cJSON *c;

	te_buf_addf(b, "## Identity\n\n| container | user | cap add | cap drop | privileged | "
		       "no-new-privileges |\n|---|---|---|---|---|---|\n");
	cJSON_ArrayForEach (c, get(i, "users")) {
		te_autofree char *add = joined(get(c, "cap_add"));
		te_autofree char *drop = joined(get(c, "cap_drop"));

		te_buf_addf(b, "| %s | %s | %s | %s | %s | %s |\n", s_or(c, "container", ""),
			    s_or(c, "user", ""), add, drop, cJSON_IsTrue(get(c, "privileged")) ? "yes" : "no",
			    cJSON_IsTrue(get(c, "no_new_privileges")) ? "yes" : "no");
	}
	te_buf_adds(b, "\nEngine access:");
	cJSON_ArrayForEach (c, get(i, "users"))
		te_buf_addf(b, " %s %s;", s_or(c, "container", ""), s_or(c, "engine_access", "none"));
	te_buf_addf(b, "\nCredentials: %d. Policy exceptions: %d.\n\n",
		    cJSON_GetArraySize(get(i, "credentials")),
		    cJSON_GetArraySize(get(i, "policy_exceptions")));
}

static void promotion_md(struct te_buf *b, const cJSON *p)
{
	te_buf_addf(b, "## Promotion\n\nBranch `%s`, base `%s`.\n\n", s_or(p, "branch", "none"),
		    s_or(p, "base_commit", "unknown"));
	if (cJSON_IsString(get(p, "diff_stat")))
		te_buf_addf(b, "```\n%s\n```\n\n", s_or(p, "diff_stat", ""));
	te_buf_addf(b, "%s.\n", s_or(p, "statement", ""));
}

char *svc_contract_markdown(const cJSON *c)
{
	te_autobuf struct te_buf b = TE_BUF_INIT(MD_MAX);
	const cJSON *w, *eng = get(c, "engine");

	te_buf_addf(&b, "# Contract of task `%s` (schema %d)\n\nEngine: %s %s at `%s`; status %s.\n\n",
		    s_or(c, "task", ""), get(c, "schema_version")->valueint, s_or(eng, "flavor", ""),
		    s_or(eng, "version", ""), s_or(eng, "socket", ""), s_or(c, "status", ""));
	cJSON_ArrayForEach (w, get(c, "warnings"))
		te_buf_addf(&b, "> warning: %s\n\n", w->valuestring);
	source_md(&b, get(c, "source"));
	filesystem_md(&b, get(c, "filesystem"));
	process_md(&b, get(c, "process"));
	environment_md(&b, get(c, "environment"));
	identity_md(&b, get(c, "identity"));
	promotion_md(&b, get(c, "promotion"));
	return te_buf_detach(&b);
}
