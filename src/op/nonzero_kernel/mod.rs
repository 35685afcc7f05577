//! The NONZERO_COORDINATES kernel (validation is in `nonzero.rs`).
//!
//! Two halves meet in [`schedule::drive`]: a [`source::Source`] turns a range of input elements into bitmask
//! words (a SIMD compare for a packed input, a gather for a strided one, tiles for a
//! transposed one), and a [`rows::Writer`] walks the set bits of those words and writes coordinate
//! rows. Coordinates advance line by line: a line is the run of elements along the innermost
//! dimension larger than 1, so within a line only one column changes and the others come from
//! a template row. How a chunk is walked depends on its density: sparse chunks find their
//! nonzero words from a summary word, dense ones (AVX2, packed UINT32 output) expand eight
//! elements at a time, the rest walk the set bits eight at a time.
//!
//! Small inputs run serially with their bitmask on the stack. Large ones run in rounds of
//! chunks on the workers: each trip through the pool writes the rows of the previous round's
//! chunks (a prefix sum of their counts gives each its first row) and masks the next round's.
//! The input is read once; the scratch is two bitmasks per task.
//!
//! The modules, by job: this one picks the types (dispatch); [`schedule`] runs the serial path
//! or the parallel rounds; [`source`] masks the input (packed, strided or tiled);
//! [`cursor`] tracks the coordinates of the current line; [`rows`] writes the rows through an
//! [`out_view::OutView`]; [`expand`] is the AVX2 expansion of dense words.

mod cursor;
#[cfg(target_arch = "x86_64")]
mod expand;
mod out_view;
mod rows;
mod schedule;
mod source;

use cursor::{Coord, Geometry};
use out_view::OutView;
use rows::{Rows, Sharing, Writer};
use schedule::drive;
use source::Source;

use super::nonzero::NonZeroPlan;
use super::simd::Isa;
use super::Workers;
use crate::error::Result;

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
    let geo = Geometry::new(&plan.input, n);
    let isa = Isa::detect();
    macro_rules! emit {
        ($n:literal) => {
            if rs == $n && cs == 1 {
                let rows = Rows::<O, $n, true, S> {
                    out,
                    rs,
                    cs,
                    geo,
                    isa,
                };
                go(plan, input, S::writer(&rows), workers)
            } else {
                let rows = Rows::<O, $n, false, S> {
                    out,
                    rs,
                    cs,
                    geo,
                    isa,
                };
                go(plan, input, S::writer(&rows), workers)
            }
        };
    }
    match n {
        1 => emit!(1),
        2 => emit!(2),
        3 => emit!(3),
        4 => emit!(4),
        5 => emit!(5),
        6 => emit!(6),
        7 => emit!(7),
        _ => emit!(8),
    }
}

/// Picks the bitmask source for the input type.
fn go(plan: &NonZeroPlan, input: &[u8], rows: Writer<'_>, workers: Workers<'_>) -> Result<u64> {
    let is_float = plan.input.dtype.is_float();
    let isa = Isa::detect();
    match plan.input.dtype.size() {
        1 => drive(
            &Source::<u8>::new(input, &plan.input, 0xFF, isa),
            rows,
            plan,
            workers,
        ),
        2 => {
            let mask = if is_float { 0x7FFF } else { u16::MAX };
            drive(
                &Source::<u16>::new(input, &plan.input, mask, isa),
                rows,
                plan,
                workers,
            )
        }
        4 => {
            let mask = if is_float { 0x7FFF_FFFF } else { u32::MAX };
            drive(
                &Source::<u32>::new(input, &plan.input, mask, isa),
                rows,
                plan,
                workers,
            )
        }
        _ => {
            let mask = if is_float { u64::MAX >> 1 } else { u64::MAX };
            drive(
                &Source::<u64>::new(input, &plan.input, mask, isa),
                rows,
                plan,
                workers,
            )
        }
    }
}
