/*
 * directml_subset/error.hpp: errors, a part of directml_subset.hpp (include that).
 *
 * Every failure of the C++ layer throws dmls::error, which carries the HRESULT and the library's
 * message (dmls_get_last_error_message); check() throws it for a failed HRESULT.
 */
#ifndef DIRECTML_SUBSET_ERROR_HPP
#define DIRECTML_SUBSET_ERROR_HPP

#include "../directml_subset.h"

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace dmls {

/// The name of an HRESULT this library returns ("E_INVALIDARG", ...), or "HRESULT" for others.
inline const char *hresult_name(HRESULT hr) noexcept {
    switch (static_cast<std::uint32_t>(hr)) {
    case 0x00000000u: return "S_OK";
    case 0x80070057u: return "E_INVALIDARG";
    case 0x80004003u: return "E_POINTER";
    case 0x8007000Eu: return "E_OUTOFMEMORY";
    case 0x80004001u: return "E_NOTIMPL";
    case 0x80004005u: return "E_FAIL";
    case 0x887A0004u: return "DXGI_ERROR_UNSUPPORTED";
    default: return "HRESULT";
    }
}

/// The calling thread's last error message ("" when its last dmls_ call succeeded).
inline std::string last_error_message() {
    const std::size_t length = dmls_get_last_error_message(nullptr, 0);
    if (length == 0) {
        return std::string();
    }
    std::vector<char> buffer(length + 1, '\0');
    dmls_get_last_error_message(buffer.data(), buffer.size());
    return std::string(buffer.data());
}

/// A failed call: the HRESULT and the library's message.
class error : public std::runtime_error {
public:
    error(HRESULT code, std::string message)
        : std::runtime_error(describe(code, message)), code_(code), message_(std::move(message)) {}

    /// The HRESULT the library returned.
    HRESULT code() const noexcept { return code_; }

    /// The library's message (what dmls_get_last_error_message gave), without the code.
    const std::string &message() const noexcept { return message_; }

private:
    static std::string describe(HRESULT code, const std::string &message) {
        char hex[32];
        std::snprintf(hex, sizeof hex, "0x%08X", static_cast<unsigned>(code));
        std::string s = std::string(hresult_name(code)) + " (" + hex + ")";
        if (!message.empty()) {
            s += ": " + message;
        }
        return s;
    }

    HRESULT code_;
    std::string message_;
};

/// Throws dmls::error, with the calling thread's message, when `hr` is a failure.
inline void check(HRESULT hr) {
    if (FAILED(hr)) {
        throw error(hr, last_error_message());
    }
}

/// The library's version, "MAJOR.MINOR.PATCH".
inline const char *version() noexcept { return dmls_version(); }

} // namespace dmls

#endif /* DIRECTML_SUBSET_ERROR_HPP */
