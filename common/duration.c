#include "common/duration.h"
#include "common/err.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define DURATION_MAX (10LL * 366 * 86400)

static long long unit_seconds(const char *u)
{
	static const struct {
		const char *name;
		long long secs;
	} units[] = {{"", 1}, {"s", 1}, {"m", 60}, {"h", 3600}, {"d", 86400}};

	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++)
		if (strcmp(u, units[i].name) == 0)
			return units[i].secs;
	return 0;
}

int te_duration_parse(const char *s, long long *secs, struct te_err *err)
{
	char *end;
	long long v, unit;

	errno = 0;
	v = s && *s >= '0' && *s <= '9' ? strtoll(s, &end, 10) : -1;
	if (v < 0 || errno)
		goto bad;
	unit = unit_seconds(end);
	if (!unit || v == 0 || v > DURATION_MAX / unit)
		goto bad;
	*secs = v * unit;
	return 0;
bad:
	return te_err_set(err, TE_E_USAGE,
			  "invalid duration '%s': expected a positive number with s, m, h or d "
			  "(30s, 5m, 2h, 1d), at most 10 years",
			  s ? s : "");
}
