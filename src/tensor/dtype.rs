//! The element types ([`DataType`]): DirectML's values, sizes and names.

use crate::dml::DML_TENSOR_DATA_TYPE;

/// The element types this library supports (DirectML's 11 types of 8 to 64 bits).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum DataType {
    /// IEEE binary32.
    Float32,
    /// IEEE binary16.
    Float16,
    /// `uint32_t`.
    UInt32,
    /// `uint16_t`.
    UInt16,
    /// `uint8_t`.
    UInt8,
    /// `int32_t`.
    Int32,
    /// `int16_t`.
    Int16,
    /// `int8_t`.
    Int8,
    /// IEEE binary64.
    Float64,
    /// `uint64_t`.
    UInt64,
    /// `int64_t`.
    Int64,
}

impl DataType {
    /// All supported types, in DirectML's numeric order.
    pub const ALL: [DataType; 11] = [
        DataType::Float32,
        DataType::Float16,
        DataType::UInt32,
        DataType::UInt16,
        DataType::UInt8,
        DataType::Int32,
        DataType::Int16,
        DataType::Int8,
        DataType::Float64,
        DataType::UInt64,
        DataType::Int64,
    ];

    /// The supported type with this DirectML value, if any.
    pub fn from_raw(raw: DML_TENSOR_DATA_TYPE) -> Option<DataType> {
        match raw.0 {
            1..=11 => Some(Self::ALL[raw.0 as usize - 1]),
            _ => None,
        }
    }

    /// DirectML's value for this type.
    pub fn raw(self) -> DML_TENSOR_DATA_TYPE {
        DML_TENSOR_DATA_TYPE(Self::ALL.iter().position(|&t| t == self).unwrap_or(0) as u32 + 1)
    }

    /// The element size in bytes.
    pub fn size(self) -> usize {
        match self {
            DataType::UInt8 | DataType::Int8 => 1,
            DataType::Float16 | DataType::UInt16 | DataType::Int16 => 2,
            DataType::Float32 | DataType::UInt32 | DataType::Int32 => 4,
            DataType::Float64 | DataType::UInt64 | DataType::Int64 => 8,
        }
    }

    /// True for FLOAT16, FLOAT32 and FLOAT64.
    pub fn is_float(self) -> bool {
        matches!(
            self,
            DataType::Float16 | DataType::Float32 | DataType::Float64
        )
    }

    /// DirectML's name without the `DML_TENSOR_DATA_TYPE_` prefix.
    pub fn name(self) -> &'static str {
        match self {
            DataType::Float32 => "FLOAT32",
            DataType::Float16 => "FLOAT16",
            DataType::UInt32 => "UINT32",
            DataType::UInt16 => "UINT16",
            DataType::UInt8 => "UINT8",
            DataType::Int32 => "INT32",
            DataType::Int16 => "INT16",
            DataType::Int8 => "INT8",
            DataType::Float64 => "FLOAT64",
            DataType::UInt64 => "UINT64",
            DataType::Int64 => "INT64",
        }
    }
}

impl From<DataType> for DML_TENSOR_DATA_TYPE {
    fn from(t: DataType) -> Self {
        t.raw()
    }
}

/// A name for a raw data-type value, for messages: `FLOAT32 (1)`, `UINT4 (12)`, `99`.
pub(crate) fn raw_type_name(raw: DML_TENSOR_DATA_TYPE) -> String {
    match DataType::from_raw(raw) {
        Some(t) => format!("{} ({})", t.name(), raw.0),
        None => match raw.0 {
            0 => "UNKNOWN (0)".to_string(),
            12 => "UINT4 (12)".to_string(),
            13 => "INT4 (13)".to_string(),
            v => format!("{v}"),
        },
    }
}
