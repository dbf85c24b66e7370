/* Compose's units: durations and byte sizes (load.h). */
#include "services/model/load.h"

#include <stdlib.h>
#include <string.h>

/* Compose durations ("1m30s", "1.5s", "500ms", "10" = seconds) in ns. */
bool svc_parse_duration(const char *s, long long *ns)
{
	static const struct {
		const char *unit;
		double ns;
	} units[] = {{"ns", 1}, {"us", 1e3}, {"ms", 1e6}, {"s", 1e9}, {"m", 60e9}, {"h", 3600e9}};
	double total = 0;
	char *end;

	if (!*s)
		return false;
	while (*s) {
		double v = strtod(s, &end);
		size_t best = 0, len = 0;

		if (end == s || v < 0)
			return false;
		for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
			size_t n = strlen(units[i].unit);

			if (strncmp(end, units[i].unit, n) == 0 && n > len && !(n == 1 && end[1] == 's'))
				best = i, len = n;
		}
		if (!len && *end)
			return false;
		total += v * (len ? units[best].ns : 1e9);
		s = end + len;
	}
	if (total > 9e18)
		return false;
	*ns = (long long)total;
	return true;
}

/* "2g", "512m", "1gb", "100k", "1024" (bytes). */
bool svc_parse_bytes(const char *s, long long *out)
{
	static const char units[] = "bkmgt";
	char *end;
	double v = strtod(s, &end), mult = 1;
	const char *u;

	if (end == s || v < 0 || !*s)
		return false;
	if (*end) {
		u = strchr(units, end[0] | 0x20);
		if (!u)
			return false;
		for (const char *k = units; k < u; k++)
			mult *= 1024;
		end++;
		if ((*end | 0x20) == 'b' && u != units)
			end++;
		if (*end)
			return false;
	}
	if (v * mult > 9e18)
		return false;
	*out = (long long)(v * mult);
	return true;
}
