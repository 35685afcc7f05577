# cmake -P: configures consumer/ from scratch against an installed copy (find_package with
# CMAKE_PREFIX_PATH), builds it and runs its tests.
# Arguments: SOURCE_DIR BINARY_DIR PREFIX GENERATOR C_COMPILER CXX_COMPILER, and for another
# CPU's copy (compilers for that CPU) SYSTEM_PROCESSOR and EMULATOR (the program that runs its
# programs here, e.g. qemu-aarch64 with QEMU_LD_PREFIX set); for Windows, TOOLCHAIN (a CMake
# toolchain file, cmake/mingw-w64-x86_64.cmake) and EMULATOR (wine).

file(REMOVE_RECURSE "${BINARY_DIR}")
set(cross "")
if(TOOLCHAIN)
  set(cross --toolchain "${TOOLCHAIN}" "-DCMAKE_CROSSCOMPILING_EMULATOR=${EMULATOR}")
elseif(SYSTEM_PROCESSOR)
  set(cross -DCMAKE_SYSTEM_NAME=Linux "-DCMAKE_SYSTEM_PROCESSOR=${SYSTEM_PROCESSOR}"
            "-DCMAKE_CROSSCOMPILING_EMULATOR=${EMULATOR}")
endif()
execute_process(
  COMMAND "${CMAKE_COMMAND}" -S "${SOURCE_DIR}" -B "${BINARY_DIR}" -G "${GENERATOR}"
          "-DCMAKE_PREFIX_PATH=${PREFIX}"
          "-DCMAKE_C_COMPILER=${C_COMPILER}"
          "-DCMAKE_CXX_COMPILER=${CXX_COMPILER}"
          -DCMAKE_BUILD_TYPE=Release
          # Only the installed copy may be found: no package registry, no system packages.
          -DCMAKE_FIND_USE_PACKAGE_REGISTRY=OFF
          -DCMAKE_FIND_USE_SYSTEM_PACKAGE_REGISTRY=OFF
          -DCMAKE_FIND_USE_CMAKE_SYSTEM_PATH=OFF
          ${cross}
  COMMAND_ERROR_IS_FATAL ANY)
execute_process(COMMAND "${CMAKE_COMMAND}" --build "${BINARY_DIR}" COMMAND_ERROR_IS_FATAL ANY)
execute_process(COMMAND "${CMAKE_CTEST_COMMAND}" --test-dir "${BINARY_DIR}" --output-on-failure
                COMMAND_ERROR_IS_FATAL ANY)
