# strata_ftl: operation sequences with power cuts and NAND faults against a model of the
# guarantee (fuzz_ftl_ops.c); vm_ops runs strata_vm on the same FTL configurations.
strata_fuzz(ftl_ops SOURCES fuzz_ftl_ops.c ftl_glue.c COVERS src/ftl MUTATIONS 40)
list(APPEND STRATA_FUZZ_SEED_SOURCES seeds_ftl.c ftl_glue.c)
strata_fuzz(vm_ops SOURCES fuzz_vm_ops.c ftl_glue.c COVERS src/vm MUTATIONS 40)
