strata_fuzz(fs ${CMAKE_CURRENT_LIST_DIR}/fuzz_fs.c)
