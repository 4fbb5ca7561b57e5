strata_fuzz(btree ${CMAKE_CURRENT_LIST_DIR}/fuzz_btree.c)
# the seed corpus generator (run by hand after a format change: btree_seeds fuzz/corpus/btree)
add_executable(btree_seeds ${CMAKE_CURRENT_LIST_DIR}/btree_seeds.c)
target_link_libraries(btree_seeds PRIVATE strata_host strata_sim strata)
