# cmake -DOBJDUMP=... -DDLLTOOL=... -DDLL=<directml_subset.dll> -DDEF=<out .def> -DLIB=<out .lib>
#       -P windows_import_lib.cmake
#
# The MSVC import library of the Windows DLL: the DLL's export table (read with MinGW-w64's
# objdump) written as a module-definition file, then made into an import library by LLVM's
# llvm-dlltool, in the short import format that Microsoft's lib.exe writes (MinGW-w64's own
# import library, libdirectml_subset.dll.a, is GNU's long format). An MSVC program (cl or
# clang-cl, linked by link.exe or lld-link) links directml_subset.dll through it.
foreach(var OBJDUMP DLLTOOL DLL DEF LIB)
  if(NOT ${var})
    message(FATAL_ERROR "windows_import_lib.cmake: ${var} is not set")
  endif()
endforeach()
execute_process(COMMAND "${OBJDUMP}" -p "${DLL}" OUTPUT_VARIABLE dump RESULT_VARIABLE status)
if(status)
  message(FATAL_ERROR "${OBJDUMP} -p ${DLL} failed (${status})")
endif()
# objdump lists the exported names under "[Ordinal/Name Pointer] Table", one per line:
#   	[   0] dmls_calc_buffer_tensor_size
string(REGEX MATCH "\\[Ordinal/Name Pointer\\] Table\n([^\n]+\n)+" table "${dump}")
string(REGEX MATCHALL "\\[ *[0-9]+\\] [A-Za-z_][A-Za-z0-9_]*" entries "${table}")
set(exports "")
foreach(entry IN LISTS entries)
  string(REGEX REPLACE "^\\[ *[0-9]+\\] " "" name "${entry}")
  string(APPEND exports "    ${name}\n")
endforeach()
if(exports STREQUAL "")
  message(FATAL_ERROR "${DLL}: no exported names found in `${OBJDUMP} -p`")
endif()
get_filename_component(dll_name "${DLL}" NAME)
file(WRITE "${DEF}" "LIBRARY ${dll_name}\nEXPORTS\n${exports}")
execute_process(COMMAND "${DLLTOOL}" -m i386:x86-64 -d "${DEF}" -D "${dll_name}" -l "${LIB}"
                RESULT_VARIABLE status)
if(status)
  message(FATAL_ERROR "${DLLTOOL} could not make ${LIB} from ${DEF} (${status})")
endif()
