# Compile-only build of the library for the MSP430 (16-bit int and pointers) with
# clang --target=msp430: Debian has no msp430 gcc or libc, so the library is compiled
# freestanding against clang's own headers plus the few libc declarations in
# targets/msp430/include (string.h). Nothing is linked or run.
set(CMAKE_SYSTEM_NAME Generic)
set(CMAKE_SYSTEM_PROCESSOR msp430)
set(CMAKE_C_COMPILER clang)
set(CMAKE_C_COMPILER_TARGET msp430)
set(CMAKE_AR llvm-ar CACHE FILEPATH "")
set(CMAKE_RANLIB llvm-ranlib CACHE FILEPATH "")
set(CMAKE_TRY_COMPILE_TARGET_TYPE STATIC_LIBRARY)
set(CMAKE_C_FLAGS_INIT
    "-Os -ffreestanding -nostdlibinc -isystem ${CMAKE_CURRENT_LIST_DIR}/../targets/msp430/include")
