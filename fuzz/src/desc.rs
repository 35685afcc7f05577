//! The case's tensor descs built as C structs (arrays against inaccessible pages), and
//! `dmls_calc_buffer_tensor_size` on each of them against the model.

use std::ptr;

use directml_subset::dml::*;
use directml_subset::ffi::dmls_calc_buffer_tensor_size;
use test_support::guarded::{or_null, GuardedArray};

use crate::case::TensorSpec;
use crate::model;

/// A C tensor desc built from a spec; the arrays sit against inaccessible pages.
pub(crate) struct BuiltTensor {
    /// The values the library is given.
    pub rust: model::Tensor,
    pub sizes: GuardedArray,
    pub strides: GuardedArray,
    buf: Box<DML_BUFFER_TENSOR_DESC>,
    desc: Box<DML_TENSOR_DESC>,
}

impl BuiltTensor {
    pub fn new(spec: &TensorSpec, usual_type: u32) -> BuiltTensor {
        let n = spec.array_len();
        let sizes_v = TensorSpec::padded(&spec.sizes, n);
        let strides_v = TensorSpec::padded(&spec.strides, n);
        let sizes = GuardedArray::new(&sizes_v);
        let strides = GuardedArray::new(&strides_v);
        let data_type = spec.data_type(usual_type);
        let has_strides = spec.has_strides & 1 == 1;
        let implied = if (1..=8).contains(&spec.dims) {
            model::calc_size(data_type.0, &sizes_v, has_strides.then_some(&strides_v[..]))
        } else {
            0
        };
        let total = match spec.total_mode % 5 {
            0 => implied,
            1 => implied.saturating_add(spec.total_k.saturating_mul(4)),
            2 => implied.saturating_sub(spec.total_k),
            3 => spec.total_k,
            _ => implied.saturating_add(spec.total_k),
        };
        let buf = Box::new(DML_BUFFER_TENSOR_DESC {
            DataType: data_type,
            Flags: DML_TENSOR_FLAGS(spec.flags),
            DimensionCount: spec.dims,
            Sizes: or_null(spec.sizes_null == 1, sizes.ptr()),
            Strides: or_null(!has_strides, strides.ptr()),
            TotalTensorSizeInBytes: total,
            GuaranteedBaseOffsetAlignment: spec.alignment,
        });
        let desc = Box::new(DML_TENSOR_DESC {
            Type: DML_TENSOR_TYPE(spec.ty ^ 1),
            Desc: or_null(
                spec.desc_null == 1,
                (&*buf as *const DML_BUFFER_TENSOR_DESC).cast(),
            ),
        });
        BuiltTensor {
            rust: model::Tensor {
                null: spec.null == 1,
                ty: spec.ty ^ 1,
                desc_null: spec.desc_null == 1,
                data_type: data_type.0,
                flags: spec.flags,
                dims: spec.dims,
                sizes: sizes_v,
                sizes_null: spec.sizes_null == 1,
                strides: has_strides.then_some(strides_v),
                total,
                alignment: spec.alignment,
            },
            sizes,
            strides,
            buf,
            desc,
        }
    }

    pub fn ptr(&self) -> *const DML_TENSOR_DESC {
        or_null(self.rust.null, &*self.desc)
    }

    /// Overwrites everything the library was given.
    pub fn poison(&mut self) {
        self.sizes.poison();
        self.strides.poison();
        // SAFETY: plain C structs; every bit pattern of their integer fields is valid, and the
        // pointers are only compared by the library, never followed after creation.
        unsafe {
            ptr::write_bytes(&mut *self.buf as *mut DML_BUFFER_TENSOR_DESC, 0xA5, 1);
            ptr::write_bytes(&mut *self.desc as *mut DML_TENSOR_DESC, 0xA5, 1);
        }
    }
}

/// The three slots' usual data types for each operator.
pub(crate) fn usual_types(op: DML_OPERATOR_TYPE) -> [u32; 3] {
    match op.0 {
        133 => [1, 3, 3],
        _ => [1, 1, 1],
    }
}

/// `dmls_calc_buffer_tensor_size` against the model (64-bit DirectMLX with no wrap).
pub(crate) fn check_calc_size(t: &model::Tensor, sizes: &GuardedArray, strides: &GuardedArray) {
    let sizes_ptr = or_null(t.sizes_null, sizes.ptr());
    let strides_ptr = or_null(t.strides.is_none(), strides.ptr());
    // The dimension count must match what the arrays hold when it is 1 to 8; above 8 the
    // arrays hold fewer and the function must not read them.
    // SAFETY: the arrays hold `dims` entries when dims is 1 to 8.
    let got = unsafe {
        dmls_calc_buffer_tensor_size(
            DML_TENSOR_DATA_TYPE(t.data_type),
            t.dims,
            sizes_ptr,
            strides_ptr,
        )
    };
    let want = if t.sizes_null || !(1..=8).contains(&t.dims) {
        0
    } else {
        model::calc_size(t.data_type, &t.sizes, t.strides.as_deref())
    };
    assert_eq!(
        got, want,
        "dmls_calc_buffer_tensor_size(type {}, sizes {:?}, strides {:?})",
        t.data_type, t.sizes, t.strides
    );
}
