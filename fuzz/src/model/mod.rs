//! An independent model of the rules, written from DirectML's documentation of the three
//! operators and the contract the header documents, rather than from the library's code (the
//! project's notes on both are kept outside this repository): it predicts whether a call succeeds and, when
//! it fails, which codes the documents allow. Where the documents leave the order of checks
//! open (a NULL pointer and a broken rule in one call), every code that could come first is
//! allowed.
//!
//! By job: this module holds the device, feature-query and buffer-size rules; [`Tensor`] the
//! layout rules every buffer tensor obeys (`tensor.rs`); [`create`] the operator rules
//! (`create.rs`); [`execute`] the binding rules (`execute.rs`); `codes.rs` the codes a failing call may
//! return.

use directml_subset::dml::*;
use directml_subset::ffi::dmls_device_desc;

mod codes;
mod create;
mod execute;
mod tensor;

use codes::codes;
pub use codes::Codes;
pub use create::{create, Op, Plan};
pub use execute::{execute, Binding};
pub use tensor::Tensor;

/// Every DirectML feature level, oldest first.
pub const KNOWN_LEVELS: [u32; 15] = [
    0x1000, 0x2000, 0x2100, 0x3000, 0x3100, 0x4000, 0x4100, 0x5000, 0x5100, 0x5200, 0x6000, 0x6100,
    0x6200, 0x6300, 0x6400,
];

/// A well-formed level above 6_4 (`0xMm00`): one a newer DirectML may define.
fn newer_level(l: u32) -> bool {
    l > 0x6400 && l <= 0xFFFF && l & 0xFF == 0
}

/// `dmls_device_create`.
pub fn device(d: &dmls_device_desc) -> Result<(), Codes> {
    let l = d.feature_level.0;
    let unsupported = newer_level(l);
    let bad_level = !(l == 0 || KNOWN_LEVELS.contains(&l) || unsupported);
    let invalid = bad_level || d.flags & !1 != 0 || d.thread_count > 1024;
    if !invalid && !unsupported {
        return Ok(());
    }
    let mut c = codes(false, invalid, unsupported);
    // Not enough threads or memory is always possible.
    c.push(E_OUTOFMEMORY);
    Err(c)
}

/// `dmls_device_check_feature_support`; the answer's 32 bits on success.
#[allow(clippy::too_many_arguments)]
pub fn query(
    device_level: DML_FEATURE_LEVEL,
    feature: DML_FEATURE,
    query_null: bool,
    support_null: bool,
    query_size: u32,
    support_size: u32,
    data_type: u32,
    levels: &[u32],
    levels_null: bool,
) -> Result<u32, Codes> {
    let unknown = feature.0 > 1;
    let pointer = query_null || support_null;
    let (want_q, want_s) = if feature.0 == 1 { (16, 4) } else { (4, 4) };
    let sizes = !unknown && (query_size != want_q || support_size != want_s);
    if unknown || pointer || sizes {
        return Err(codes(pointer, sizes, unknown));
    }
    if feature.0 == 0 {
        return Ok(u32::from((1..=11).contains(&data_type)));
    }
    if levels.is_empty() {
        return Err(codes(false, true, false));
    }
    if levels_null {
        return Err(codes(true, false, false));
    }
    // A newer level is above every device's (and so filtered out below).
    if levels
        .iter()
        .any(|&l| !KNOWN_LEVELS.contains(&l) && !newer_level(l))
    {
        return Err(codes(false, true, false));
    }
    levels
        .iter()
        .copied()
        .filter(|&l| l <= device_level.0)
        .max()
        .ok_or_else(|| codes(false, false, true))
}

/// `dmls_calc_buffer_tensor_size` for 1 to 8 dimensions: DirectMLX's formula without wrapping;
/// 0 for an unknown type, a size of 0, or more than 2^64 − 1 bytes.
pub fn calc_size(data_type: u32, sizes: &[u32], strides: Option<&[u32]>) -> u64 {
    let bits: u128 = match data_type {
        12 | 13 => 4,
        5 | 8 => 8,
        2 | 4 | 7 => 16,
        1 | 3 | 6 => 32,
        9..=11 => 64,
        _ => return 0,
    };
    if sizes.contains(&0) {
        return 0;
    }
    let elements: u128 = match strides {
        None => sizes
            .iter()
            .try_fold(1u128, |a, &s| a.checked_mul(u128::from(s)))
            .unwrap_or(u128::MAX),
        Some(st) => {
            1 + sizes
                .iter()
                .zip(st)
                .map(|(&s, &t)| u128::from(s - 1) * u128::from(t))
                .sum::<u128>()
        }
    };
    let bytes = elements
        .checked_mul(bits)
        .map(|b| b.div_ceil(8).div_ceil(4) * 4);
    match bytes {
        Some(b) if b <= u128::from(u64::MAX) => b as u64,
        _ => 0,
    }
}
