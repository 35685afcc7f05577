//! Unit tests of [`Layout`]: packed, distinct (and its proof), spans and overflow.

use super::*;
use crate::tensor::calc_buffer_tensor_size;

const CTX: Ctx = Ctx {
    op: "TEST",
    tensor: "T",
};

fn layout(sizes: &[u32], strides: Option<&[u32]>) -> Result<Layout> {
    let desc = match strides {
        Some(st) => TensorDesc::with_strides(DataType::Float32, sizes, st),
        None => TensorDesc::new(DataType::Float32, sizes),
    };
    Layout::validate(&desc, DataType::Float32, CTX, u64::from(u32::MAX))
}

fn ok(sizes: &[u32], strides: Option<&[u32]>) -> Layout {
    layout(sizes, strides).unwrap_or_else(|e| panic!("{sizes:?} {strides:?}: {e}"))
}

#[test]
fn packed_layouts() {
    let l = ok(&[2, 3, 4], None);
    assert!(l.packed);
    assert_eq!(&l.strides[..3], &[12, 4, 1]);
    assert_eq!((l.elements, l.total_bytes), (24, 96));
    // Given strides that are the packed ones, and any stride on a dimension of size 1.
    assert!(ok(&[2, 3, 4], Some(&[12, 4, 1])).packed);
    assert!(ok(&[2, 1, 4], Some(&[4, 999, 1])).packed);
    assert!(ok(&[1, 1], Some(&[0, 0])).packed);
    // Padding, a transpose and a broadcast are not packed.
    assert!(!ok(&[2, 3], Some(&[4, 1])).packed);
    assert!(!ok(&[2, 3], Some(&[1, 2])).packed);
    assert!(!ok(&[2, 3], Some(&[0, 1])).packed);
}

#[test]
fn distinct_layouts_and_their_proof() {
    let cases: [(&[u32], &[u32], bool); 10] = [
        (&[2, 3], &[3, 1], true),
        (&[2, 3], &[4, 1], true),
        (&[2, 3], &[1, 2], true),
        (&[2, 3, 4], &[1, 2, 6], true),
        (&[5, 1], &[1, 0], true),
        (&[2, 3], &[0, 1], false),
        (&[2, 3], &[1, 0], false),
        (&[2, 2], &[1, 1], false),
        // Rows of 3 two apart: row 1 starts on row 0's last element.
        (&[2, 3], &[2, 1], false),
        // The condition is sufficient, not necessary: offsets {0, 2, 4, 3, 5, 7} are distinct.
        (&[3, 2], &[2, 3], false),
    ];
    for (sizes, strides, want) in cases {
        let l = ok(sizes, Some(strides));
        assert_eq!(l.distinct, want, "{sizes:?} {strides:?}");
        assert_eq!(l.disjoint().is_some(), want, "{sizes:?} {strides:?}");
        if let Some(proof) = l.disjoint() {
            assert!(core::ptr::eq(proof.layout(), &l));
        }
    }
    // Every packed layout is distinct.
    assert!(ok(&[7, 1, 9], None).disjoint().is_some());
}

/// Brute force on small shapes: whenever the layout claims distinct offsets, they are.
#[test]
fn distinct_is_never_wrong() {
    let mut checked = 0;
    for s0 in 1..4u32 {
        for s1 in 1..4u32 {
            for t0 in 0..7u32 {
                for t1 in 0..7u32 {
                    let l = ok(&[s0, s1], Some(&[t0, t1]));
                    let mut offs: Vec<u32> = (0..s0)
                        .flat_map(|i| (0..s1).map(move |j| i * t0 + j * t1))
                        .collect();
                    offs.sort_unstable();
                    offs.dedup();
                    let really = offs.len() == (s0 * s1) as usize;
                    assert!(!l.distinct || really, "{s0}x{s1} strides {t0},{t1}");
                    checked += usize::from(l.distinct);
                }
            }
        }
    }
    assert!(checked > 100, "only {checked} distinct layouts checked");
}

#[test]
fn spans() {
    assert_eq!(span_elements(&[2, 3], [3, 1]), 6);
    assert_eq!(span_elements(&[2, 3], [4, 1]), 7);
    assert_eq!(span_elements(&[2, 3], [0, 0]), 1);
    assert_eq!(span_elements(&[2, 0], [3, 1]), 0);
    assert_eq!(
        span_elements(&[u32::MAX; 8], [u64::MAX; 8]),
        8 * u128::from(u32::MAX - 1) * u128::from(u64::MAX) + 1
    );
    // A binding must cover the span, rounded up to 4 bytes.
    assert_eq!(ok(&[2, 3], Some(&[4, 1])).total_bytes, 28);
    assert_eq!(
        calc_buffer_tensor_size(DataType::UInt8, &[2, 3], Some(&[4, 1])),
        Some(8)
    );
    assert_eq!(
        calc_buffer_tensor_size(DataType::UInt8, &[3], None),
        Some(4)
    );
    let short = TensorDesc::with_strides(DataType::Float32, &[2, 3], &[4, 1]).total_size(24);
    let err = Layout::validate(&short, DataType::Float32, CTX, u64::from(u32::MAX)).unwrap_err();
    assert_eq!(
        err.to_string(),
        "TEST: T TotalTensorSizeInBytes is 24, less than the 28 bytes its sizes and strides need; \
         set it to at least 28 (DMLCalcBufferTensorSize)"
    );
}

#[test]
fn overflow() {
    // 2^64 bytes and more: rejected, not wrapped.
    let huge = TensorDesc::raw(
        DataType::Float32.raw(),
        &[u32::MAX, 3],
        Some(&[u32::MAX, u32::MAX]),
        !3u64,
    );
    let err = Layout::validate(&huge, DataType::Float32, CTX, u64::MAX).unwrap_err();
    assert!(
        err.to_string().contains("span more than 2^64 bytes"),
        "{err}"
    );
    assert_eq!(
        calc_buffer_tensor_size(DataType::Float64, &[u32::MAX, u32::MAX, 2], None),
        None
    );
    assert_eq!(
        calc_buffer_tensor_size(DataType::UInt8, &[u32::MAX; 2], Some(&[u32::MAX; 2])),
        None
    );
    let span = u128::from(u32::MAX - 1) * u128::from(u32::MAX) + u128::from(u32::MAX - 1) + 1;
    assert_eq!(
        calc_buffer_tensor_size(DataType::UInt8, &[u32::MAX; 2], Some(&[u32::MAX, 1])),
        u64::try_from((span + 3) & !3).ok()
    );
    // More elements than a tensor may hold.
    let big = TensorDesc::new(DataType::UInt8, &[1 << 16, 1 << 16]);
    let err = Layout::validate(&big, DataType::UInt8, CTX, u64::from(u32::MAX)).unwrap_err();
    assert!(
        err.to_string().contains("more than the 4294967295"),
        "{err}"
    );
}

#[test]
fn strides_are_one_per_size() {
    // Fewer or more strides than sizes: refused, not padded with zeros (a silent broadcast).
    for strides in [&[4u32][..], &[], &[4, 1, 1]] {
        let err = layout(&[2, 4], Some(strides)).unwrap_err();
        assert!(
            err.to_string().contains(&format!(
                "has {} Strides for DimensionCount 2; one stride per size is needed",
                strides.len()
            )),
            "{err}"
        );
        let desc = TensorDesc::with_strides(DataType::Float32, &[2, 4], strides);
        assert_eq!(desc.implied_size(), 0);
        assert_eq!(
            calc_buffer_tensor_size(DataType::Float32, &[2, 4], Some(strides)),
            None
        );
    }
    assert!(ok(&[2, 4], Some(&[4, 1])).packed);
    // As dmls_calc_buffer_tensor_size: 0 or more than 8 sizes have no size.
    assert_eq!(calc_buffer_tensor_size(DataType::Float32, &[], None), None);
    assert_eq!(
        calc_buffer_tensor_size(DataType::Float32, &[1; 9], None),
        None
    );
    assert_eq!(
        calc_buffer_tensor_size(DataType::Float32, &[1; 8], None),
        Some(4)
    );
}

#[test]
fn a_total_size_near_the_top_of_u64_is_refused_with_a_message() {
    for total in [u64::MAX, u64::MAX - 1, u64::MAX - 2] {
        let desc = TensorDesc::new(DataType::Float32, &[3, 3]).total_size(total);
        let err = Layout::validate(&desc, DataType::Float32, CTX, u64::MAX).unwrap_err();
        assert!(
            err.to_string()
                .contains("must be a multiple of 4 (and at most"),
            "{total}: {err}"
        );
    }
}

#[test]
fn same_elements_ignores_what_was_proven_and_bytes_past_the_elements() {
    // Interleaved rows: an output passes the exact search, an input only the quick test.
    let input = ok(&[2, 3], Some(&[3, 2]));
    let mut output = input;
    output
        .check_output_disjoint(Ctx {
            op: "DIAGONAL_MATRIX1",
            tensor: "OutputTensor",
        })
        .unwrap();
    assert!(output.disjoint().is_some() && input.disjoint().is_none());
    assert!(input.same_elements(&output));
    // More bytes, another alignment: the same elements.
    let mut wider = input;
    wider.total_bytes += 64;
    wider.alignment = 16;
    assert!(wider.same_elements(&output));
    // Another stride of a dimension of size 1 places no element elsewhere.
    assert!(ok(&[1, 2, 3], Some(&[0, 3, 1])).same_elements(&ok(&[1, 2, 3], None)));
    assert!(ok(&[2, 1], Some(&[1, 7])).same_elements(&ok(&[2, 1], None)));
    // Other strides, sizes or type: not.
    assert!(!ok(&[1, 2, 3], Some(&[0, 1, 2])).same_elements(&ok(&[1, 2, 3], None)));
    assert!(!ok(&[2, 3], Some(&[3, 1])).same_elements(&output));
    assert!(!ok(&[3, 2], Some(&[2, 3])).same_elements(&output));
    let mut other_type = input;
    other_type.dtype = DataType::Int32;
    assert!(!other_type.same_elements(&output));
}
