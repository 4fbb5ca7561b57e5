strata_fuzz(sim_image ${CMAKE_CURRENT_LIST_DIR}/fuzz_sim_image.c)
