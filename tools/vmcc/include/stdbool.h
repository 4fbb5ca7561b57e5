/* strata-vmcc parse-only header (see stddef.h). */
#ifndef VMCC_STDBOOL_H
#define VMCC_STDBOOL_H
#define bool _Bool
#define true 1
#define false 0
#endif
