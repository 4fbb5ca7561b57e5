/* strata-vmcc parse-only header (see stddef.h): the limits stay names, so the real compiler
 * gives them the target's values. */
#ifndef VMCC_LIMITS_H
#define VMCC_LIMITS_H
#define CHAR_BIT __CHAR_BIT__
#define SCHAR_MIN (-__SCHAR_MAX__ - 1)
#define SCHAR_MAX __SCHAR_MAX__
#define UCHAR_MAX (__SCHAR_MAX__ * 2 + 1)
/* plain char's signedness differs between targets (unsigned on ARM) and -undef hides
 * __CHAR_UNSIGNED__, so CHAR_MIN/CHAR_MAX are constant expressions (not usable in #if) */
#define CHAR_MIN ((char)-1 < 0 ? -__SCHAR_MAX__ - 1 : 0)
#define CHAR_MAX ((char)-1 < 0 ? __SCHAR_MAX__ : __SCHAR_MAX__ * 2 + 1)
#define SHRT_MIN (-__SHRT_MAX__ - 1)
#define SHRT_MAX __SHRT_MAX__
#define USHRT_MAX (__SHRT_MAX__ * 2 + 1)
#define INT_MIN (-__INT_MAX__ - 1)
#define INT_MAX __INT_MAX__
#define UINT_MAX (__INT_MAX__ * 2U + 1U)
#define LONG_MIN (-__LONG_MAX__ - 1L)
#define LONG_MAX __LONG_MAX__
#define ULONG_MAX (__LONG_MAX__ * 2UL + 1UL)
#define LLONG_MIN (-__LONG_LONG_MAX__ - 1LL)
#define LLONG_MAX __LONG_LONG_MAX__
#define ULLONG_MAX (__LONG_LONG_MAX__ * 2ULL + 1ULL)
#endif
