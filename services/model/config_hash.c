/* The configuration hash (config_hash.h). */
#include "services/model/config_hash.h"
#include "common/buf.h"
#include "common/err.h"
#include "common/mem.h"

#define TE_WITH_CJSON
#include "common/cleanup.h"

#include <openssl/evp.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

/* Engine body fields by the word `up` names when they change; a field not
 * listed is named after itself, lowercased. */
static const struct {
	const char *field; /* "Env", or "HostConfig.PortBindings" */
	const char *word;
} words[] = {
    {"Image", "image"},
    {"x-image-id", "image"},
    {"Cmd", "command"},
    {"Entrypoint", "entrypoint"},
    {"Env", "env"},
    {"ExposedPorts", "ports"},
    {"HostConfig.PortBindings", "ports"},
    {"Volumes", "volumes"},
    {"HostConfig.Binds", "volumes"},
    {"HostConfig.Mounts", "volumes"},
    {"HostConfig.Tmpfs", "volumes"},
    {"HostConfig.VolumesFrom", "volumes_from"},
    {"NetworkingConfig", "networks"},
    {"HostConfig.NetworkMode", "networks"},
    {"x-networks", "networks"},
    {"Labels", "labels"},
    {"Healthcheck", "healthcheck"},
    {"WorkingDir", "working_dir"},
    {"User", "user"},
};

#define MAX_PARTS 64

struct part {
	char word[48];
	EVP_MD_CTX *md;
};

static const char *word_of(const char *field, char *buf, size_t n)
{
	const char *dot;

	for (size_t i = 0; i < sizeof(words) / sizeof(words[0]); i++)
		if (strcmp(words[i].field, field) == 0)
			return words[i].word;
	dot = strrchr(field, '.');
	snprintf(buf, n, "%s", dot ? dot + 1 : field);
	for (char *p = buf; *p; p++)
		if (*p >= 'A' && *p <= 'Z')
			*p = (char)(*p - 'A' + 'a');
	return buf;
}

static EVP_MD_CTX *md_new(void)
{
	EVP_MD_CTX *md = EVP_MD_CTX_new();

	if (!md || EVP_DigestInit_ex(md, EVP_sha256(), NULL) != 1)
		TE_BUG("EVP sha256 unavailable");
	return md;
}

static void md_hex(EVP_MD_CTX *md, char *out, size_t hexchars)
{
	unsigned char d[EVP_MAX_MD_SIZE];
	unsigned dn = 0;

	EVP_DigestFinal_ex(md, d, &dn);
	EVP_MD_CTX_free(md);
	for (size_t i = 0; i < dn && 2 * i < hexchars; i++)
		snprintf(out + 2 * i, 3, "%02x", d[i]);
}

/* false, "", {}, [] and null say what leaving the field out says: a file
 * that spells out a default is not a change. */
static bool empty(const cJSON *v)
{
	return cJSON_IsNull(v) || cJSON_IsFalse(v) ||
	       ((cJSON_IsObject(v) || cJSON_IsArray(v)) && !v->child) ||
	       (cJSON_IsString(v) && !*v->valuestring);
}

/* FIELD = VALUE goes into the whole hash and into its part's. */
static void feed(EVP_MD_CTX *all, struct part *parts, size_t *n, const char *field, const cJSON *value)
{
	te_autofree char *text = NULL;
	char buf[48];
	const char *w = word_of(field, buf, sizeof(buf));
	size_t k;

	if (empty(value))
		return;
	text = cJSON_PrintUnformatted(value);
	for (k = 0; k < *n && strcmp(parts[k].word, w) != 0; k++)
		;
	if (k == *n) {
		if (*n == MAX_PARTS)
			TE_BUG("more configuration parts than MAX_PARTS");
		snprintf(parts[k].word, sizeof(parts[k].word), "%s", w);
		parts[k].md = md_new();
		(*n)++;
	}
	/* Field name and value, each with its NUL: no two inputs run together. */
	EVP_DigestUpdate(all, field, strlen(field) + 1);
	EVP_DigestUpdate(all, text, strlen(text) + 1);
	EVP_DigestUpdate(parts[k].md, field, strlen(field) + 1);
	EVP_DigestUpdate(parts[k].md, text, strlen(text) + 1);
}

/* The labels the file wrote; the ones taskenv and Compose write say who
 * and where, not what runs. */
static cJSON *user_labels(const cJSON *labels)
{
	cJSON *out = cJSON_CreateObject();
	const cJSON *l;

	cJSON_ArrayForEach (l, labels) {
		if (strncmp(l->string, "com.docker.compose.", 19) == 0 ||
		    strncmp(l->string, "io.taskenv.", 11) == 0)
			continue;
		cJSON_AddItemToObject(out, l->string, cJSON_Duplicate(l, true));
	}
	return out;
}

char *svc_config_hash(const cJSON *body, const char *image_id, char *const *extra, char **parts_out)
{
	struct part parts[MAX_PARTS];
	size_t n = 0;
	EVP_MD_CTX *all = md_new();
	char hex[65] = "";
	struct te_buf b;
	const cJSON *f;

	cJSON_ArrayForEach (f, body) {
		if (strcmp(f->string, "HostConfig") == 0 && cJSON_IsObject(f)) {
			const cJSON *h;

			cJSON_ArrayForEach (h, f) {
				te_autofree char *name = xasprintf("HostConfig.%s", h->string);

				feed(all, parts, &n, name, h);
			}
		} else if (strcmp(f->string, "Labels") == 0) {
			te_autojson cJSON *mine = user_labels(f);

			feed(all, parts, &n, "Labels", mine);
		} else {
			feed(all, parts, &n, f->string, f);
		}
	}
	/* The image as named and as the engine has it now: a re-pull or a
	 * rebuild under the same name is a change too. */
	if (image_id) {
		te_autojson cJSON *id = cJSON_CreateString(image_id);

		feed(all, parts, &n, "x-image-id", id);
	}
	if (extra && extra[0]) {
		te_autojson cJSON *a = cJSON_CreateArray();

		for (size_t i = 0; extra[i]; i++)
			cJSON_AddItemToArray(a, cJSON_CreateString(extra[i]));
		feed(all, parts, &n, "x-networks", a);
	}
	md_hex(all, hex, 64);
	te_buf_init(&b, 0);
	for (size_t k = 0; k < n; k++) {
		char h8[17] = "";

		md_hex(parts[k].md, h8, 8);
		te_buf_addf(&b, "%s%s=%.8s", k ? "," : "", parts[k].word, h8);
	}
	if (parts_out)
		*parts_out = te_buf_detach(&b);
	else
		te_buf_release(&b);
	return xstrdup(hex);
}

/* The hash of WORD in PARTS ("w=h,..."), copied into OUT; false if absent. */
static bool part_of(const char *parts, const char *word, char *out, size_t n)
{
	size_t wl = strlen(word);

	for (const char *p = parts; p && *p;) {
		const char *end = strchr(p, ',');
		size_t len = end ? (size_t)(end - p) : strlen(p);

		if (len > wl && strncmp(p, word, wl) == 0 && p[wl] == '=') {
			snprintf(out, n, "%.*s", (int)(len - wl - 1), p + wl + 1);
			return true;
		}
		p = end ? end + 1 : p + len;
	}
	return false;
}

/* Each WORD of FROM whose hash in OTHER differs (or is absent). */
static void diff_into(struct te_buf *b, const char *from, const char *other, bool only_absent)
{
	for (const char *p = from; p && *p;) {
		const char *end = strchr(p, ',');
		size_t len = end ? (size_t)(end - p) : strlen(p);
		const char *eq = memchr(p, '=', len);
		char word[48], mine[24], theirs[24];

		if (eq && (size_t)(eq - p) < sizeof(word)) {
			snprintf(word, sizeof(word), "%.*s", (int)(eq - p), p);
			part_of(from, word, mine, sizeof(mine));
			if (!part_of(other, word, theirs, sizeof(theirs)))
				te_buf_addf(b, "%s%s", b->len ? ", " : "", word);
			else if (!only_absent && strcmp(mine, theirs) != 0)
				te_buf_addf(b, "%s%s", b->len ? ", " : "", word);
		}
		p = end ? end + 1 : p + len;
	}
}

char *svc_config_changes(const char *old_parts, const char *new_parts)
{
	struct te_buf b;

	if (!old_parts)
		return xstrdup("configuration");
	te_buf_init(&b, 0);
	diff_into(&b, new_parts, old_parts, false);
	diff_into(&b, old_parts, new_parts, true);
	if (!b.len) {
		te_buf_release(&b);
		return NULL;
	}
	return te_buf_detach(&b);
}
