//! The byte encoding of a fuzz input: [`Io`] visits a case's fields in one order, [`Reader`]
//! decodes (zeros past the end, so every byte string is a case) and [`Writer`] encodes.

/// Values with a one-byte short form: the boundaries a fuzzer should reach easily.
const SPECIAL32: [u32; 16] = [
    u32::MAX,
    u32::MAX - 1,
    0x8000_0000,
    0x7FFF_FFFF,
    0x1_0000,
    0xFFFF,
    0x1_0001,
    0x100_0000,
    0x4000_0000,
    0x2_0000,
    0x2_0001,
    1000,
    4096,
    0x8000,
    0x7FFF,
    0x8000_0001,
];

const SPECIAL64: [u64; 16] = [
    u64::MAX,
    u64::MAX - 3,
    u64::MAX - 15,
    1 << 63,
    (1 << 63) - 4,
    (1 << 63) + 16,
    1 << 32,
    (1 << 32) - 4,
    1 << 62,
    1 << 61,
    (1 << 61) + 4,
    u32::MAX as u64,
    1 << 40,
    0x7FFF_FFFF_FFFF_FFF0,
    1 << 20,
    4096,
];

/// Reads or writes the fields of a [`Case`] in one order, so decoding and encoding agree.
pub trait Io {
    /// One byte.
    fn u8(&mut self, v: &mut u8);
    /// A u32: one byte below 0xE0, a special value 0xE0–0xEF, else 0xFF and four bytes.
    fn u32(&mut self, v: &mut u32);
    /// A u64: as [`Io::u32`], with 0xFE and four bytes for a 32-bit value.
    fn u64(&mut self, v: &mut u64);
    /// Eight raw bytes.
    fn raw8(&mut self, v: &mut [u8; 8]);
    /// True when decoding.
    fn reading(&self) -> bool;

    /// A mode byte, then `raw` when the mode is above `last`: modes up to `last` name a value
    /// themselves, a larger one takes its value from `raw`.
    fn mode_u32(&mut self, mode: &mut u8, last: u8, raw: &mut u32) {
        self.u8(mode);
        if *mode > last {
            self.u32(raw);
        }
    }

    /// [`Io::mode_u32`] with a 64-bit `raw`.
    fn mode_u64(&mut self, mode: &mut u8, last: u8, raw: &mut u64) {
        self.u8(mode);
        if *mode > last {
            self.u64(raw);
        }
    }
}

/// Decodes bytes; past the end every read is 0.
pub struct Reader<'a> {
    data: &'a [u8],
    pos: usize,
}

impl<'a> Reader<'a> {
    /// A reader over `data`.
    pub fn new(data: &'a [u8]) -> Self {
        Reader { data, pos: 0 }
    }

    fn byte(&mut self) -> u8 {
        let b = self.data.get(self.pos).copied().unwrap_or(0);
        self.pos += 1;
        b
    }

    fn bytes<const N: usize>(&mut self) -> [u8; N] {
        let mut out = [0u8; N];
        for b in &mut out {
            *b = self.byte();
        }
        out
    }
}

impl Io for Reader<'_> {
    fn u8(&mut self, v: &mut u8) {
        *v = self.byte();
    }
    fn u32(&mut self, v: &mut u32) {
        let b = self.byte();
        *v = match b {
            0..=0xDF => u32::from(b),
            0xE0..=0xEF => SPECIAL32[usize::from(b - 0xE0)],
            _ => u32::from_le_bytes(self.bytes()),
        };
    }
    fn u64(&mut self, v: &mut u64) {
        let b = self.byte();
        *v = match b {
            0..=0xDF => u64::from(b),
            0xE0..=0xEF => SPECIAL64[usize::from(b - 0xE0)],
            0xF0..=0xFE => u64::from(u32::from_le_bytes(self.bytes())),
            0xFF => u64::from_le_bytes(self.bytes()),
        };
    }
    fn raw8(&mut self, v: &mut [u8; 8]) {
        *v = self.bytes();
    }
    fn reading(&self) -> bool {
        true
    }
}

/// Encodes a case (the inverse of [`Reader`] for every value).
#[derive(Default)]
pub struct Writer {
    /// The bytes so far.
    pub out: Vec<u8>,
}

impl Io for Writer {
    fn u8(&mut self, v: &mut u8) {
        self.out.push(*v);
    }
    fn u32(&mut self, v: &mut u32) {
        if *v < 0xE0 {
            self.out.push(*v as u8);
        } else if let Some(i) = SPECIAL32.iter().position(|s| s == v) {
            self.out.push(0xE0 + i as u8);
        } else {
            self.out.push(0xFF);
            self.out.extend_from_slice(&v.to_le_bytes());
        }
    }
    fn u64(&mut self, v: &mut u64) {
        if *v < 0xE0 {
            self.out.push(*v as u8);
        } else if let Some(i) = SPECIAL64.iter().position(|s| s == v) {
            self.out.push(0xE0 + i as u8);
        } else if *v <= u64::from(u32::MAX) {
            self.out.push(0xF0);
            self.out.extend_from_slice(&(*v as u32).to_le_bytes());
        } else {
            self.out.push(0xFF);
            self.out.extend_from_slice(&v.to_le_bytes());
        }
    }
    fn raw8(&mut self, v: &mut [u8; 8]) {
        self.out.extend_from_slice(v);
    }
    fn reading(&self) -> bool {
        false
    }
}

pub(crate) fn visit_vec<I: Io>(io: &mut I, v: &mut Vec<u32>, max: usize) {
    let mut n = v.len().min(max) as u8;
    io.u8(&mut n);
    let n = usize::from(n) % (max + 1);
    if io.reading() {
        v.clear();
        v.resize(n, 0);
    }
    for x in v.iter_mut().take(n) {
        io.u32(x);
    }
}
