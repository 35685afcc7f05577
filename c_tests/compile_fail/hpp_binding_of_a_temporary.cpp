// Must NOT compile: binding::of a temporary container, whose memory is gone before the binding
// is used (the overload is deleted). With -DDMLS_CONTROL the same program binds a named vector
// and compiles.
#include "directml_subset.hpp"

#include <vector>

int main() {
#ifdef DMLS_CONTROL
    std::vector<float> storage(4);
    dmls::binding b = dmls::binding::of(storage);
#else
    dmls::binding b = dmls::binding::of(std::vector<float>(4));
#endif
    return b.type() == DML_BINDING_TYPE_BUFFER ? 0 : 1;
}
