/*
 * A stand-in for Windows' bcryptprimitives.dll, for Wine versions that lack it (Wine 8.0,
 * Debian 12's): Rust's standard library for Windows imports ProcessPrng from it (Windows 10
 * and later have it), so no Rust program starts under such a Wine without one.
 * scripts/check_windows.sh builds it with MinGW-w64 and puts it on WINEPATH only when the
 * Wine prefix has no bcryptprimitives.dll of its own; it is never part of the library.
 *
 * ProcessPrng fills the buffer with random bytes from RtlGenRandom (advapi32's
 * SystemFunction036) and, as Windows' own, returns TRUE.
 */
#include <windows.h>

BOOLEAN WINAPI SystemFunction036(PVOID buffer, ULONG length);

__declspec(dllexport) BOOL WINAPI ProcessPrng(PBYTE data, SIZE_T length) {
    while (length > 0) {
        const ULONG n = length > 0x10000000u ? 0x10000000u : (ULONG)length;
        if (!SystemFunction036(data, n)) {
            return FALSE;
        }
        data += n;
        length -= n;
    }
    return TRUE;
}
