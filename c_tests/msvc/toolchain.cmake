# CMake toolchain file for c_tests/msvc: 64-bit Windows programs built on Linux the way MSVC
# builds them, with LLVM's clang-cl and lld-link (their command lines are cl's and link.exe's),
# without the Windows SDK or an MSVC C library. scripts/check_windows.sh passes
#   -DDMLS_CLANG_CL=<clang under the name clang-cl> -DDMLS_LLD_LINK=<lld-link>
#   -DDMLS_LLVM_LIB=<llvm-lib> -DDMLS_LLVM_RC=<llvm-rc> -DDMLS_LLVM_MT=<llvm-mt>
set(CMAKE_SYSTEM_NAME Windows)
set(CMAKE_SYSTEM_PROCESSOR AMD64)
set(CMAKE_C_COMPILER "${DMLS_CLANG_CL}")
set(CMAKE_C_COMPILER_TARGET x86_64-pc-windows-msvc)
set(CMAKE_LINKER "${DMLS_LLD_LINK}")
set(CMAKE_AR "${DMLS_LLVM_LIB}")
set(CMAKE_RC_COMPILER "${DMLS_LLVM_RC}")
set(CMAKE_MT "${DMLS_LLVM_MT}")
# No C library to link a test program with: CMake's compiler checks only compile.
set(CMAKE_TRY_COMPILE_TARGET_TYPE STATIC_LIBRARY)
# Nor the Windows SDK's import libraries (kernel32.lib, user32.lib, ...) that CMake links by
# default: CMakeLists.txt makes the one it needs.
set(CMAKE_C_STANDARD_LIBRARIES "" CACHE STRING "" FORCE)
