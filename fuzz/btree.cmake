# strata_btree: damaged page images (fuzz_btree.c).
strata_fuzz(btree SOURCES fuzz_btree.c COVERS src/btree)
# the seed corpus generator (run by hand after a format change: btree_seeds fuzz/corpus/btree);
# it needs the host library, which fuzz builds leave out
if(TARGET strata_host)
  add_executable(btree_seeds ${CMAKE_CURRENT_LIST_DIR}/btree_seeds.c)
  target_link_libraries(btree_seeds PRIVATE strata_host strata_sim strata)
endif()
