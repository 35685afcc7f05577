// Must NOT compile: binding::of with an element type that has no DML_TENSOR_DATA_TYPE is
// rejected at compile time by a static_assert (registered with ctest, which expects the
// static_assert's message). With -DDMLS_CONTROL the same program binds float and compiles, so
// the test also proves the file is otherwise valid.
#include "directml_subset.hpp"

int main() {
#ifdef DMLS_CONTROL
    float storage[4] = {};
#else
    long double storage[4] = {};
#endif
    dmls::binding b = dmls::binding::of(storage);
    return b.type() == DML_BINDING_TYPE_BUFFER ? 0 : 1;
}
