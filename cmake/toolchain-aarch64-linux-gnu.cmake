# Cross build for linux-aarch64-gnu with Debian's gcc-aarch64-linux-gnu and
# the arm64 -dev packages installed through multiarch
# (scripts/deps.sh --arch arm64; scripts/build-cross.sh arm64 uses this file).
#
# The one program the build runs, pyrt_pins_embed, must run on the build
# machine: scripts/build-cross.sh builds it natively first and passes
# -DPYRT_HOST_PINS_EMBED=<path> (see CMakeLists.txt).
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR aarch64)
set(PYRT_CROSS_TRIPLET aarch64-linux-gnu)

set(CMAKE_C_COMPILER ${PYRT_CROSS_TRIPLET}-gcc)
# Debian's cross gcc already searches /usr/lib/aarch64-linux-gnu and
# /usr/include/aarch64-linux-gnu (multiarch); CMake must look for libraries
# and headers there and for programs on the build machine only.
set(CMAKE_LIBRARY_ARCHITECTURE ${PYRT_CROSS_TRIPLET})
set(CMAKE_FIND_ROOT_PATH /usr/${PYRT_CROSS_TRIPLET})
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY BOTH)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE BOTH)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE BOTH)

# pkg-config must see the arm64 .pc files only (multiarch puts them in
# /usr/lib/aarch64-linux-gnu/pkgconfig), never the build machine's.
set(ENV{PKG_CONFIG_LIBDIR}
    /usr/lib/${PYRT_CROSS_TRIPLET}/pkgconfig:/usr/share/pkgconfig)
set(ENV{PKG_CONFIG_PATH} "")

# Nothing the build makes is run at build time but the host tools
# (pyrt_pins_embed, and the host's pyrt for the completions); tests of an arm64 build run under qemu (tests/e2e_cross.sh).
find_program(PYRT_QEMU_AARCH64 qemu-aarch64-static)
if(PYRT_QEMU_AARCH64)
  set(CMAKE_CROSSCOMPILING_EMULATOR ${PYRT_QEMU_AARCH64})
endif()
