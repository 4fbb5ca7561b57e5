# The shared NAND layer: damaged pages through ECC, erased-page detection and bad blocks.
strata_fuzz(nand SOURCES fuzz_nand.c COVERS src/nand MUTATIONS 200)
list(APPEND STRATA_FUZZ_SEED_SOURCES seeds_nand.c)
