/* TEST STAND-IN, not Microsoft's header: the scalar types and HRESULT values of
   microsoft/DirectX-Headers' Linux (WSL) build, as far as directml_subset's tests need them. */
#ifndef DMLS_STANDIN_WINADAPTER_H
#define DMLS_STANDIN_WINADAPTER_H
#include <stdint.h>

typedef uint8_t BYTE;
typedef int8_t INT8;
typedef uint8_t UINT8;
typedef int16_t INT16;
typedef uint16_t UINT16;
typedef int32_t INT32;
typedef uint32_t UINT32;
typedef int64_t INT64;
typedef uint64_t UINT64;
typedef int32_t INT;
typedef uint32_t UINT;
typedef int32_t LONG;
typedef float FLOAT;
typedef double DOUBLE;
typedef uint32_t BOOL; /* unsigned in the WSL build (int on Windows) */
typedef LONG HRESULT;

#define TRUE 1
#define FALSE 0
#define S_OK ((HRESULT)0L)
#define E_INVALIDARG ((HRESULT)0x80070057L)
#define E_POINTER ((HRESULT)0x80004003L)
#define E_OUTOFMEMORY ((HRESULT)0x8007000EL)
#define E_NOTIMPL ((HRESULT)0x80004001L)
#define E_FAIL ((HRESULT)0x80004005L)
#define DXGI_ERROR_UNSUPPORTED ((HRESULT)0x887A0004L)
#define SUCCEEDED(hr) (((HRESULT)(hr)) >= 0)
#define FAILED(hr) (((HRESULT)(hr)) < 0)

#define interface struct
#define WINAPI_FAMILY_PARTITION(partitions) 1
#endif
