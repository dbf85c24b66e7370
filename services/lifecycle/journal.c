#include "services/lifecycle/journal.h"
#include "state/ledger.h"
#include "common/err.h"
#include "common/mem.h"

#define TE_WITH_CJSON
#include "common/cleanup.h"

#include <stdio.h>
#include <string.h>
#include <time.h>

void svc_tail_add(struct svc_tail *t, const char *p, size_t n)
{
	t->total += n;
	if (n >= SVC_TAIL_BYTES) {
		memcpy(t->buf, p + n - SVC_TAIL_BYTES, SVC_TAIL_BYTES);
		t->len = SVC_TAIL_BYTES;
		return;
	}
	if (t->len + n > SVC_TAIL_BYTES) {
		size_t drop = t->len + n - SVC_TAIL_BYTES;

		memmove(t->buf, t->buf + drop, t->len - drop);
		t->len -= drop;
	}
	memcpy(t->buf + t->len, p, n);
	t->len += n;
}

int svc_tail_has(const struct svc_tail *t, const char *s)
{
	size_t k = strlen(s);

	for (size_t i = 0; k && i + k <= t->len; i++)
		if (memcmp(t->buf + i, s, k) == 0)
			return 1;
	return 0;
}

/* Length of the valid UTF-8 sequence at P (of N bytes), 0 when invalid. */
static size_t utf8_len(const unsigned char *p, size_t n)
{
	size_t k = p[0] < 0x80		   ? 1
		   : (p[0] & 0xe0) == 0xc0 ? 2
		   : (p[0] & 0xf0) == 0xe0 ? 3
		   : (p[0] & 0xf8) == 0xf0 ? 4
					   : 0;

	if (!k || k > n || (k == 2 && p[0] < 0xc2))
		return 0;
	for (size_t i = 1; i < k; i++)
		if ((p[i] & 0xc0) != 0x80)
			return 0;
	return k;
}

char *svc_tail_lines(const struct svc_tail *t, int max_lines)
{
	size_t start = t->len, end = t->len;
	int lines = 0;
	char *out;
	size_t o = 0;

	/* A trailing newline ends the last line; it does not start another. */
	if (end && t->buf[end - 1] == '\n')
		end--;
	start = end;
	while (start > 0 && lines < max_lines) {
		if (t->buf[start - 1] == '\n' && ++lines == max_lines)
			break;
		start--;
	}
	out = xmalloc(end - start + 1);
	for (size_t i = start; i < end;) {
		size_t k = utf8_len((const unsigned char *)t->buf + i, end - i);

		if (k == 0) {
			out[o++] = '?';
			i++;
			continue;
		}
		memcpy(out + o, t->buf + i, k);
		o += k;
		i += k;
	}
	out[o] = '\0';
	return out;
}

static cJSON *entry_json(const struct svc_journal_entry *e)
{
	cJSON *j = cJSON_CreateObject();
	cJSON *argv = cJSON_AddArrayToObject(j, "argv");

	cJSON_AddNumberToObject(j, "time", (double)time(NULL));
	cJSON_AddStringToObject(j, "verb", e->verb);
	cJSON_AddStringToObject(j, "service", e->service ? e->service : "");
	if (e->container)
		cJSON_AddStringToObject(j, "container", e->container);
	for (size_t i = 0; e->argv && e->argv[i]; i++)
		cJSON_AddItemToArray(argv, cJSON_CreateString(e->argv[i]));
	if (e->exit_code >= 0)
		cJSON_AddNumberToObject(j, "exit_code", e->exit_code);
	else
		cJSON_AddNullToObject(j, "exit_code");
	if (e->error)
		cJSON_AddStringToObject(j, "error", e->error);
	if (e->output) {
		te_autofree char *tail = svc_tail_lines(e->output, SVC_TAIL_LINES);

		cJSON_AddStringToObject(j, "output_tail", tail);
		cJSON_AddNumberToObject(j, "output_bytes", (double)e->output->total);
	}
	return j;
}

int svc_journal_add(struct ledger *l, const char *task, const struct svc_journal_entry *e, struct te_err *err)
{
	te_autojson cJSON *j = entry_json(e);
	te_autofree char *text = cJSON_PrintUnformatted(j);
	te_autofree char *resource = xasprintf("%s %s", e->verb, e->service ? e->service : "?");
	char outcome[32];

	if (e->exit_code >= 0)
		snprintf(outcome, sizeof(outcome), "exit %d", e->exit_code);
	else
		snprintf(outcome, sizeof(outcome), "failed");
	return state_event_journal(l, task, resource, outcome, text, err);
}

int svc_journal_list(struct ledger *l, const char *task, cJSON **out, struct te_err *err)
{
	struct state_event *v = NULL;
	size_t n = 0;

	*out = NULL;
	if (state_event_list(l, task, &v, &n, err) < 0)
		return -1;
	*out = cJSON_CreateArray();
	for (size_t i = 0; i < n; i++) {
		cJSON *j;

		/* A task name used again starts a new journal: the events of
		 * the earlier task end where its row was deleted. */
		if (v[i].resource && v[i].outcome && strcmp(v[i].resource, "task") == 0 &&
		    strcmp(v[i].outcome, "deleted") == 0) {
			cJSON_Delete(*out);
			*out = cJSON_CreateArray();
			continue;
		}
		if (!v[i].resource || !v[i].message ||
		    (strncmp(v[i].resource, "exec ", 5) != 0 && strncmp(v[i].resource, "run ", 4) != 0))
			continue;
		j = cJSON_Parse(v[i].message);
		if (cJSON_IsObject(j))
			cJSON_AddItemToArray(*out, j);
		else
			cJSON_Delete(j);
	}
	state_events_free(v, n);
	return 0;
}
