# Cross build of the library for Cortex-M (used by `make size`). STRATA_CPU picks the core.
set(CMAKE_SYSTEM_NAME Generic)
set(CMAKE_SYSTEM_PROCESSOR arm)
set(CMAKE_C_COMPILER arm-none-eabi-gcc)
set(CMAKE_TRY_COMPILE_TARGET_TYPE STATIC_LIBRARY)
if(NOT STRATA_CPU)
  set(STRATA_CPU cortex-m0plus)
endif()
set(CMAKE_C_FLAGS_INIT "-mcpu=${STRATA_CPU} -mthumb -Os -ffunction-sections -fdata-sections -fstack-usage -fcallgraph-info=su")
