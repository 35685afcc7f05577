# CMake toolchain file: 64-bit Windows programs built on Linux with MinGW-w64 (Debian's
# gcc-mingw-w64-x86-64 and g++-mingw-w64-x86-64), in its POSIX-threads variant (C++'s
# std::thread). scripts/dist.sh builds the Windows package with it, and scripts/check_windows.sh
# builds consumer/ against that package with it:
#
#   cmake -S consumer -B build-win --toolchain <this file> -DCMAKE_PREFIX_PATH=<unzipped package>
set(CMAKE_SYSTEM_NAME Windows)
set(CMAKE_SYSTEM_PROCESSOR AMD64)
set(CMAKE_C_COMPILER x86_64-w64-mingw32-gcc-posix)
set(CMAKE_CXX_COMPILER x86_64-w64-mingw32-g++-posix)
set(CMAKE_RC_COMPILER x86_64-w64-mingw32-windres)
# Programs (compilers, tools) from this machine; libraries, headers and packages from the
# target's root and from CMAKE_PREFIX_PATH.
set(CMAKE_FIND_ROOT_PATH /usr/x86_64-w64-mingw32)
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE BOTH)
