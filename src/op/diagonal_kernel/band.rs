//! What a packed output's rows hold: the band of Value ([`Band`]), a row's segments
//! ([`Segments`]) and where the other elements come from ([`Other`]).

/// One row's segments: `value_outside` false means Value on `[lo, hi)` and the other source
/// elsewhere; true means the other source on `[lo, hi)` and Value elsewhere.
#[derive(Clone, Copy)]
pub(super) struct Segments {
    pub lo: usize,
    pub hi: usize,
    pub value_outside: bool,
}

#[inline(always)]
pub(super) fn segments(y: u64, width: u64, begin: i64, end: i64) -> Segments {
    let y = y as i64;
    let w = width as i64;
    let clip = |v: i64| v.clamp(0, w) as usize;
    if end >= begin {
        Segments {
            lo: clip(y + begin),
            hi: clip(y + end),
            value_outside: false,
        }
    } else {
        Segments {
            lo: clip(y + end),
            hi: clip(y + begin),
            value_outside: true,
        }
    }
}

/// Where elements that are not Value come from.
#[derive(Clone, Copy)]
pub(super) enum Other<'a, U> {
    Zero,
    Keep,
    From(&'a [U]),
}

/// What the rows of a packed output hold: `w` elements per row and `h` rows per matrix, Value
/// where the segments of DiagonalFillBegin/End (`begin`, `end`) put it, `other` elsewhere.
#[derive(Clone, Copy)]
pub(super) struct Band<'a, U> {
    pub w: usize,
    pub h: u64,
    pub begin: i64,
    pub end: i64,
    pub value: U,
    pub other: Other<'a, U>,
}

impl<U> Band<'_, U> {
    /// The segments of a row that is row `y` of its matrix.
    #[inline(always)]
    pub fn segments(&self, y: u64) -> Segments {
        segments(y, self.w as u64, self.begin, self.end)
    }
}
