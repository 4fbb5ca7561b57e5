/* The inline fast path built without its hit counter (test_vm_cache's no_fast_stats). */
#define STRATA_VM_NO_FAST_STATS
#include "strata/vm.h"

uint32_t vt_nostats_read(struct strata_vm *vm, struct strata_vm_lcb *lcb, strata_vaddr a);

uint32_t vt_nostats_read(struct strata_vm *vm, struct strata_vm_lcb *lcb, strata_vaddr a)
{
    return strata_vm_read_u32(vm, lcb, a);
}
