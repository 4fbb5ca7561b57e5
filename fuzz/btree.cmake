# strata_btree: damaged page images (fuzz_btree.c).
strata_fuzz(btree SOURCES fuzz_btree.c COVERS src/btree DICT btree.dict)
# strata_btree: operation sequences with power cuts on every variant and medium (INPLACE on
# sd-spi, at45db161 or a RAM page store; VMTREE on raw NAND with the default faults and on NOR;
# VMTREE-OW) against a model of the entries (fuzz_btree_ops.c).
strata_fuzz(btree_ops SOURCES fuzz_btree_ops.c btree_model.c btree_store.c COVERS src/btree
            MUTATIONS 100)
list(APPEND STRATA_FUZZ_SEED_SOURCES seeds_btree.c)
# the seed corpus generator (run by hand after a format change: btree_seeds fuzz/corpus/btree);
# it needs the host library, which fuzz builds leave out
if(TARGET strata_host)
  add_executable(btree_seeds ${CMAKE_CURRENT_LIST_DIR}/btree_seeds.c)
  target_link_libraries(btree_seeds PRIVATE strata_host strata_sim strata)
endif()
