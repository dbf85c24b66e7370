/* Functions we never call (git banned.h): each has a bounded or checked
 * replacement. Included by every translation unit via the build flags. */
#ifndef TASKENV_COMMON_BANNED_H
#define TASKENV_COMMON_BANNED_H

/* glibc's headers define inline bodies for some of these at -O; pull them
 * in before the macros so only our own uses are rejected. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TE_BANNED(func) sorry_##func##_is_banned

#undef strcpy
#define strcpy(x, y) TE_BANNED(strcpy)
#undef strcat
#define strcat(x, y) TE_BANNED(strcat)
#undef sprintf
#define sprintf(...) TE_BANNED(sprintf)
#undef vsprintf
#define vsprintf(...) TE_BANNED(vsprintf)
#undef strtok
#define strtok(x, y) TE_BANNED(strtok)
#undef atoi
#define atoi(x) TE_BANNED(atoi)
#undef atol
#define atol(x) TE_BANNED(atol)
#undef gets
#define gets(x) TE_BANNED(gets)

#endif
