strata_fuzz(kv ${CMAKE_CURRENT_LIST_DIR}/fuzz_kv.c)
