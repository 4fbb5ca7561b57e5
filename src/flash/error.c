/* Error descriptions. A table indexed by -code keeps this to one lookup and little ROM. */
#include "strata/error.h"

static const char *const descriptions[] = {
    "ok",
    "invalid argument",
    "device I/O error",
    "corrupt storage",
    "no space left",
    "not found",
    "already exists",
    "power lost",
    "flash rule violated",
    "device lacks a needed capability",
    "bad handle",
    "name too long",
    "busy",
    "buffer or table too small",
    "not formatted",
    "unsupported format version",
    "bad block",
    "uncorrectable bit errors",
};

const char *strata_strerror(int err)
{
    unsigned idx = err <= 0 ? 0u - (unsigned)err : ~0u; /* no overflow at INT_MIN */
    if (idx >= sizeof descriptions / sizeof descriptions[0])
        return "unknown error";
    return descriptions[idx];
}
