/*
 * directml_subset.hpp: C++17 RAII wrappers over the C API of directml_subset.h.
 *
 *   dmls::device device;                                         // feature level 6_4
 *   dmls::tensor_desc input(DML_TENSOR_DATA_TYPE_FLOAT32, {2, 4});
 *   dmls::op nonzero = device.create_operator(dmls::nonzero_coordinates(input));
 *   std::vector<float> x = {1, 0, 0, 2, -0.0f, 3.5f, 0, -5.2f};
 *   uint32_t count = 0;
 *   std::vector<uint32_t> coords(8 * 2);
 *   nonzero.execute({dmls::binding::of(x)},
 *                   {dmls::binding::of(&count, 1), dmls::binding::of(coords)});
 *
 * Every failure throws dmls::error, which carries the HRESULT and the library's message.
 * Header-only; link the library as for directml_subset.h.
 *
 * Include this header. It includes the parts in directml_subset/, one job each, in order:
 *   error.hpp          dmls::error, check, hresult_name, last_error_message, version
 *   data_type.hpp      element_size, data_type_of, has_data_type, data_type_name, scalar
 *   tensor_desc.hpp    tensor_desc (owns its sizes and strides), calc_buffer_tensor_size
 *   operator_desc.hpp  nonzero_coordinates, diagonal_matrix1, diagonal_matrix and their descs
 *   binding.hpp        binding (host memory for an operator's slot, typed by element)
 *   device.hpp         device and op (move-only owners of the C handles), slot_types
 */
#ifndef DIRECTML_SUBSET_HPP
#define DIRECTML_SUBSET_HPP

#include "directml_subset/error.hpp"
#include "directml_subset/data_type.hpp"
#include "directml_subset/tensor_desc.hpp"
#include "directml_subset/operator_desc.hpp"
#include "directml_subset/binding.hpp"
#include "directml_subset/device.hpp"

#endif /* DIRECTML_SUBSET_HPP */
