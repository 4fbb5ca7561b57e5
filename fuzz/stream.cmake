# strata_stream: operation sequences with power cuts on raw NAND under the simulator's default
# faults, against a model of the readings (fuzz_stream_ops.c).
strata_fuzz(stream_ops SOURCES fuzz_stream_ops.c COVERS src/stream MUTATIONS 60)
list(APPEND STRATA_FUZZ_SEED_SOURCES seeds_stream.c)
