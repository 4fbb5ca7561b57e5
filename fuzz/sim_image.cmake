# Simulator image files (strata_sim_image_load).
strata_fuzz(sim_image SOURCES fuzz_sim_image.c COVERS src/sim/image.c DICT sim_image.dict
            MUTATIONS 300)
list(APPEND STRATA_FUZZ_SEED_SOURCES seeds_sim.c)
