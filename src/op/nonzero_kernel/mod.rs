//! The NONZERO_COORDINATES kernel (validation is in `nonzero.rs`).
//!
//! Two halves meet in [`schedule::drive`]: a [`source::Source`] turns a range of input elements
//! into bitmask words (a SIMD compare for a packed input, a gather for a strided one, tiles for a
//! transposed one), and a [`rows::Writer`] walks the set bits of those words and writes coordinate
//! rows. Coordinates advance line by line: a line is the run of elements along the innermost
//! dimension larger than 1, so within a line only one column changes and the others come from a
//! template row. How a chunk is walked depends on its density: sparse chunks find their nonzero
//! words from a summary word, dense ones (AVX2, packed UINT32 output) expand eight elements at a
//! time, the rest walk the set bits eight at a time.
//!
//! Small inputs run serially with their bitmask on the stack. Large ones run in parts on the
//! workers, in one trip: each part counts its nonzero elements (keeping its bitmask), adds up the
//! counts of the parts before it (a look-back over their published counts) for its first row, and
//! writes its rows while its input is still in the cache (in one pass, or from the bitmask where
//! the writer has no one pass). Up to half of a CPU's share of L2 (at least 512 KiB) of input per
//! thread, the parts are dealt out in a slot of consecutive parts per thread ([`slots`]), which the
//! thread counts and then writes, the same parts every execution; larger inputs claim their parts
//! in order.
//!
//! The modules, by job: this one picks the types (dispatch); [`schedule`] runs the serial path or
//! the parallel parts, [`slots`] deals them out in slots; [`source`] masks the input (packed,
//! strided or tiled); [`cursor`] tracks the coordinates of the current line; [`rows`] writes the
//! rows through an [`out_view::OutView`]; [`expand`] is the AVX2 expansion of dense words and
//! [`compress`] the AVX-512 one (any density above sparse, packed output of any type and column
//! count); [`one_pass`] masks and writes a packed input's rows in one pass with AVX-512.

#[cfg(target_arch = "x86_64")]
mod compress;
mod cursor;
#[cfg(target_arch = "x86_64")]
mod expand;
#[cfg(target_arch = "x86_64")]
mod one_pass;
mod out_view;
mod rows;
mod schedule;
pub(crate) use schedule::force_slots_max;
mod slots;
mod source;

use cursor::{Coord, Geometry};
use out_view::OutView;
use rows::{Rows, Sharing, Writer};
use schedule::drive;
use source::Source;

use super::nonzero::NonZeroPlan;
use super::simd::{Isa, Word};
use crate::error::Result;
use crate::pool::Workers;

/// Runs the operator. `input` holds the input tensor's bytes, `count` and `coords` the outputs';
/// all are at least their tensor's `TotalTensorSizeInBytes` long and aligned to the element size.
pub(crate) fn execute(
    plan: &NonZeroPlan,
    input: &[u8],
    count: &mut [u8],
    coords: &mut [u8],
    workers: Workers<'_>,
) -> Result<()> {
    let total = match plan.coords.dtype.size() {
        4 => with_output::<u32>(plan, input, coords, workers)?,
        _ => with_output::<u64>(plan, input, coords, workers)?,
    };
    match plan.coords.dtype.size() {
        4 => count[..4].copy_from_slice(&(total as u32).to_ne_bytes()),
        _ => count[..8].copy_from_slice(&total.to_ne_bytes()),
    }
    Ok(())
}
/// Picks the output view: shared across the workers when the coordinates layout is proven
/// disjoint, else this thread's alone.
fn with_output<O: Coord>(
    plan: &NonZeroPlan,
    input: &[u8],
    coords: &mut [u8],
    workers: Workers<'_>,
) -> Result<u64> {
    let len = coords.len() / size_of::<O>();
    let out: &mut [O] = bytemuck::cast_slice_mut(&mut coords[..len * size_of::<O>()]);
    match plan.coords.disjoint() {
        Some(proof) => with_view(plan, input, OutView::shared(out, proof), workers),
        None => with_view(plan, input, OutView::exclusive(out), workers),
    }
}

/// Picks the row writer for the output's columns and strides.
fn with_view<O: Coord, S: Sharing>(
    plan: &NonZeroPlan,
    input: &[u8],
    out: OutView<'_, O, S>,
    workers: Workers<'_>,
) -> Result<u64> {
    let k = plan.coords.dims;
    let n = plan.columns;
    let m = plan.input.elements;
    // Strides that never matter are normalised, so that more layouts count as packed.
    let rs = if m == 1 {
        n
    } else {
        plan.coords.strides[k - 2] as usize
    };
    let cs = if n == 1 {
        1
    } else {
        plan.coords.strides[k - 1] as usize
    };
    let out = (out, rs, cs, Geometry::new(&plan.input, n));
    match n {
        1 => with_rows::<O, 1, S>(plan, input, out, workers),
        2 => with_rows::<O, 2, S>(plan, input, out, workers),
        3 => with_rows::<O, 3, S>(plan, input, out, workers),
        4 => with_rows::<O, 4, S>(plan, input, out, workers),
        5 => with_rows::<O, 5, S>(plan, input, out, workers),
        6 => with_rows::<O, 6, S>(plan, input, out, workers),
        7 => with_rows::<O, 7, S>(plan, input, out, workers),
        _ => with_rows::<O, 8, S>(plan, input, out, workers),
    }
}

/// The view, row and column strides and geometry of the coordinates output.
type Output<'a, O, S> = (OutView<'a, O, S>, usize, usize, Geometry);

/// Picks the row writer for N columns, packed or strided.
fn with_rows<O: Coord, const N: usize, S: Sharing>(
    plan: &NonZeroPlan,
    input: &[u8],
    (out, rs, cs, geo): Output<'_, O, S>,
    workers: Workers<'_>,
) -> Result<u64> {
    let isa = Isa::detect();
    if rs == N && cs == 1 {
        let rows = Rows::<O, N, true, S>::new(out, rs, cs, geo, isa);
        go(plan, input, S::writer(&rows), workers)
    } else {
        let rows = Rows::<O, N, false, S>::new(out, rs, cs, geo, isa);
        go(plan, input, S::writer(&rows), workers)
    }
}

/// Picks the bitmask source for the input type: floats are masked without their sign bit, so
/// -0.0 counts as zero.
fn go(plan: &NonZeroPlan, input: &[u8], rows: Writer<'_>, workers: Workers<'_>) -> Result<u64> {
    match plan.input.dtype.size() {
        1 => go_with::<u8>(plan, input, rows, workers, 0xFF, 0xFF),
        2 => go_with::<u16>(plan, input, rows, workers, 0x7FFF, u16::MAX),
        4 => go_with::<u32>(plan, input, rows, workers, 0x7FFF_FFFF, u32::MAX),
        _ => go_with::<u64>(plan, input, rows, workers, u64::MAX >> 1, u64::MAX),
    }
}

fn go_with<U: Word>(
    plan: &NonZeroPlan,
    input: &[u8],
    rows: Writer<'_>,
    workers: Workers<'_>,
    float_mask: U,
    int_mask: U,
) -> Result<u64> {
    let mask = if plan.input.dtype.is_float() {
        float_mask
    } else {
        int_mask
    };
    let src = Source::<U>::new(input, &plan.input, mask, Isa::detect());
    drive(&src, rows, plan, workers)
}
