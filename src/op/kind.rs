//! The operators this library implements, told apart by kind (never by name).

/// One of the three operators.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum OpKind {
    /// NONZERO_COORDINATES.
    NonZeroCoordinates,
    /// DIAGONAL_MATRIX1.
    DiagonalMatrix1,
    /// DIAGONAL_MATRIX.
    DiagonalMatrix,
}

impl OpKind {
    /// DirectML's name of the operator, for messages.
    pub const fn name(self) -> &'static str {
        match self {
            OpKind::NonZeroCoordinates => "NONZERO_COORDINATES",
            OpKind::DiagonalMatrix1 => "DIAGONAL_MATRIX1",
            OpKind::DiagonalMatrix => "DIAGONAL_MATRIX",
        }
    }

    /// The names of the input slots, in binding order.
    pub const fn input_names(self) -> &'static [&'static str] {
        match self {
            OpKind::NonZeroCoordinates | OpKind::DiagonalMatrix1 => &["InputTensor"],
            OpKind::DiagonalMatrix => &[],
        }
    }

    /// The names of the output slots, in binding order.
    pub const fn output_names(self) -> &'static [&'static str] {
        match self {
            OpKind::NonZeroCoordinates => &["OutputCountTensor", "OutputCoordinatesTensor"],
            OpKind::DiagonalMatrix1 | OpKind::DiagonalMatrix => &["OutputTensor"],
        }
    }

    /// True when the input may be the output's own memory (same address and layout).
    pub const fn runs_in_place(self) -> bool {
        matches!(self, OpKind::DiagonalMatrix1)
    }
}
