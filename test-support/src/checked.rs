//! The reference runners: operators executed through the C API on guarded buffers, every output
//! byte compared with `directml_subset::reference`.

use directml_subset::dml::*;
use directml_subset::ffi::{dmls_device, dmls_operator};
use directml_subset::{reference, DataType, TensorDesc};

use crate::capi::{
    assert_has, bind, create_nonzero, execute_raw, last_error, Operator, NONE_BINDING,
};
use crate::guarded::Buffer;

/// The three tensors of a NONZERO_COORDINATES operator.
#[derive(Clone, Copy, Debug)]
pub struct NonZeroTensors {
    pub input: TensorDesc,
    pub count: TensorDesc,
    pub coords: TensorDesc,
}

impl NonZeroTensors {
    /// A packed input of `t` and `sizes`, a UINT32 count `{1}` and UINT32 coordinates `{M, D}`
    /// (M elements, D dimensions).
    pub fn packed(t: DataType, sizes: &[u32]) -> NonZeroTensors {
        let m: u32 = sizes.iter().product();
        NonZeroTensors {
            input: TensorDesc::new(t, sizes),
            count: TensorDesc::new(DataType::UInt32, &[1]),
            coords: TensorDesc::new(DataType::UInt32, &[m, sizes.len() as u32]),
        }
    }

    /// Creates the operator through the C API on `device` (a live handle).
    pub fn create(&self, device: *mut dmls_device) -> Result<Operator, (HRESULT, String)> {
        create_nonzero(device, &self.input, &self.count, &self.coords).map(Operator)
    }

    /// Asserts that `device` refuses the tensors with E_INVALIDARG and a message holding every
    /// one of `parts`; returns the message.
    pub fn rejected(&self, device: *mut dmls_device, parts: &[&str]) -> String {
        let Err((hr, msg)) = self.create(device) else {
            panic!("created, but should be refused with {parts:?}");
        };
        assert_eq!(hr, E_INVALIDARG, "{msg}");
        assert_has(&msg, parts);
        msg
    }

    /// [`run_nonzero_checked`] on these tensors.
    pub fn run_checked(&self, op: *mut dmls_operator, data: &[u8], fill: u8) -> (Buffer, Buffer) {
        run_nonzero_checked(op, &self.input, data, &self.count, &self.coords, fill)
    }
}

/// Executes a NONZERO_COORDINATES operator (a raw handle) with the three buffers bound whole:
/// the input, the count and the coordinates. Checks nothing: the runners below do, and so do
/// the tests of failures.
pub fn execute_nonzero(
    op: *mut dmls_operator,
    input: &mut Buffer,
    count: &mut Buffer,
    coords: &mut Buffer,
) -> HRESULT {
    let (bi, bc, bk) = (input.binding(), count.binding(), coords.binding());
    execute_raw(op, &[bind(&bi)], &[bind(&bc), bind(&bk)])
}

/// [`execute_nonzero`] on guarded buffers holding elements of plain types (`u64` words for
/// 64-bit outputs, say): the input holds `input`, the count and coordinates start as `count`
/// and `coords`. Asserts intact guards; returns the HRESULT and both outputs afterwards.
pub fn execute_nonzero_as<I: bytemuck::NoUninit, T: bytemuck::Pod>(
    op: *mut dmls_operator,
    input: &[I],
    count: &[T],
    coords: &[T],
) -> (HRESULT, Vec<T>, Vec<T>) {
    let mut ib = Buffer::with_bytes(bytemuck::cast_slice(input));
    let mut cb = Buffer::with_bytes(bytemuck::cast_slice(count));
    let mut kb = Buffer::with_bytes(bytemuck::cast_slice(coords));
    let hr = execute_nonzero(op, &mut ib, &mut cb, &mut kb);
    assert!(ib.guards_intact() && cb.guards_intact() && kb.guards_intact());
    (
        hr,
        // The tensor bytes start 64-byte aligned and hold whole elements, as given.
        bytemuck::cast_slice(cb.bytes()).to_vec(),
        bytemuck::cast_slice(kb.bytes()).to_vec(),
    )
}

/// The one reference runner: executes a NONZERO_COORDINATES operator (a raw handle) on `data`,
/// with both outputs in fresh guarded buffers starting as `fill`; asserts success, intact guards
/// and every output byte (the `fill` bytes past the rows included) equal to the reference.
/// Returns the count and coordinate buffers.
pub fn run_nonzero_checked(
    op: *mut dmls_operator,
    input: &TensorDesc,
    data: &[u8],
    count: &TensorDesc,
    coords: &TensorDesc,
    fill: u8,
) -> (Buffer, Buffer) {
    let mut ib = Buffer::with_bytes(data);
    let mut cb = Buffer::filled(count.total_size, fill);
    let mut kb = Buffer::filled(coords.total_size, fill);
    let hr = execute_nonzero(op, &mut ib, &mut cb, &mut kb);
    assert_eq!(hr, S_OK, "execute: {}", last_error());
    assert!(ib.guards_intact() && cb.guards_intact() && kb.guards_intact());
    let mut want_c = vec![fill; count.total_size as usize];
    let mut want_k = vec![fill; coords.total_size as usize];
    reference::nonzero_coordinates(input, data, count, coords, &mut want_c, &mut want_k);
    assert!(
        cb.bytes() == &want_c[..],
        "count differs from the reference"
    );
    assert!(
        kb.bytes() == &want_k[..],
        "coordinates differ from the reference"
    );
    (cb, kb)
}

/// The same for DIAGONAL_MATRIX1 (`input` is the tensor and its bytes, or `None`); returns the
/// output buffer.
pub fn run_diag1_checked(
    op: *mut dmls_operator,
    input: Option<(&TensorDesc, &[u8])>,
    output: &TensorDesc,
    (value, begin, end): ([u8; 8], i32, i32),
    fill: u8,
) -> Buffer {
    let mut ib = input.map(|(_, d)| Buffer::with_bytes(d));
    let mut ob = Buffer::filled(output.total_size, fill);
    let bi = ib.as_mut().map(|b| b.binding());
    let bo = ob.binding();
    let hr = execute_raw(op, &[bi.as_ref().map_or(NONE_BINDING, bind)], &[bind(&bo)]);
    assert_eq!(hr, S_OK, "execute: {}", last_error());
    assert!(ob.guards_intact() && ib.as_ref().is_none_or(Buffer::guards_intact));
    let mut want = vec![fill; output.total_size as usize];
    reference::diagonal_matrix1(input, output, &mut want, value, begin, end);
    assert!(
        ob.bytes() == &want[..],
        "DIAGONAL_MATRIX1 output differs from the reference: input {:?}, output {output:?}, \
         value {value:?}, begin {begin}, end {end}",
        input.map(|(t, _)| t)
    );
    ob
}

/// The fewest coordinate columns N that NONZERO_COORDINATES accepts for an input of these sizes:
/// its effective rank (the dimension count without leading dimensions of size 1), at least 1.
/// The one copy of the rule in the Rust tests (the fuzz harness's model has its own, written
/// independently).
pub fn min_columns(sizes: &[u32]) -> usize {
    let lead = sizes.iter().take_while(|&&s| s == 1).count();
    (sizes.len() - lead).max(1)
}
