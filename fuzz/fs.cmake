# strata_fs: damaged images (fuzz_fs.c) and operation sequences with power cuts (fuzz_fs_ops.c).
strata_fuzz(fs SOURCES fuzz_fs.c fs_glue.c COVERS src/fs DICT fs.dict MUTATIONS 300)
strata_fuzz(fs_ops SOURCES fuzz_fs_ops.c fs_glue.c fs_model.c COVERS src/fs MUTATIONS 60)
list(APPEND STRATA_FUZZ_SEED_SOURCES seeds_fs.c fs_glue.c fs_model.c)
