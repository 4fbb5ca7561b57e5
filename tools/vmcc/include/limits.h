/* strata-vmcc parse-only header (see stddef.h): the limits stay names, so the real compiler
 * gives them the target's values. */
#ifndef VMCC_LIMITS_H
#define VMCC_LIMITS_H
#define CHAR_BIT __CHAR_BIT__
#define INT_MAX __INT_MAX__
#define INT_MIN (-__INT_MAX__ - 1)
#define UINT_MAX __vmcc_UINT_MAX
#define LONG_MAX __LONG_MAX__
#endif
