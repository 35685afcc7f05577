/* NOT Microsoft's <windows.h>: a test stand-in for the MSVC build of c_tests/msvc, which has
   neither the Windows SDK nor an MSVC C library. It declares what directml_subset.h takes from
   <windows.h> (its scalar types, spelled as the Windows SDK spells them) and the three kernel32
   functions consumer.c calls, and, for the stand-in of DirectML.h, what that takes from the
   SDK. */
#ifndef DMLS_MSVC_STANDIN_WINDOWS_H
#define DMLS_MSVC_STANDIN_WINDOWS_H
/* DOUBLE, as the SDK's windows.h brings it (through ole2.h) without WIN32_LEAN_AND_MEAN. */
#include <wtypesbase.h>
typedef unsigned int UINT;
typedef int INT;
typedef signed char INT8;
typedef unsigned char UINT8;
typedef short INT16;
typedef unsigned short UINT16;
typedef int INT32;
typedef unsigned int UINT32;
typedef __int64 INT64;
typedef unsigned __int64 UINT64;
typedef long LONG;
typedef float FLOAT;
typedef int BOOL;
typedef unsigned char BYTE;
typedef long HRESULT;
typedef unsigned long DWORD;
typedef void *HANDLE;
/* combaseapi.h's and winapifamily.h's, for the stand-in DirectML.h (c_tests/directml_standin). */
#define interface struct
#define WINAPI_FAMILY_PARTITION(partitions) 1
#define STD_OUTPUT_HANDLE ((DWORD)-11)
__declspec(dllimport) HANDLE __stdcall GetStdHandle(DWORD std_handle);
__declspec(dllimport) BOOL __stdcall WriteFile(HANDLE file, const void *buffer, DWORD size,
                                               DWORD *written, void *overlapped);
__declspec(dllimport) __declspec(noreturn) void __stdcall ExitProcess(UINT exit_code);
#endif
