# strata_kv: damaged store images (fuzz_kv.c) and operation sequences with power cuts against
# a reference store (fuzz_kv_ops.c).
strata_fuzz(kv SOURCES fuzz_kv.c kv_glue.c COVERS src/kv DICT kv.dict MUTATIONS 300)
strata_fuzz(kv_ops SOURCES fuzz_kv_ops.c kv_glue.c COVERS src/kv MUTATIONS 60)
list(APPEND STRATA_FUZZ_SEED_SOURCES seeds_kv.c kv_glue.c)
