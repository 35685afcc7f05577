//! DirectML feature levels: which exist, which this library emulates, and their names.

use crate::dml::*;
use crate::error::{Error, Result};

/// Every feature level DirectML defines, oldest first.
pub(crate) const KNOWN_LEVELS: [DML_FEATURE_LEVEL; 15] = [
    DML_FEATURE_LEVEL_1_0,
    DML_FEATURE_LEVEL_2_0,
    DML_FEATURE_LEVEL_2_1,
    DML_FEATURE_LEVEL_3_0,
    DML_FEATURE_LEVEL_3_1,
    DML_FEATURE_LEVEL_4_0,
    DML_FEATURE_LEVEL_4_1,
    DML_FEATURE_LEVEL_5_0,
    DML_FEATURE_LEVEL_5_1,
    DML_FEATURE_LEVEL_5_2,
    DML_FEATURE_LEVEL_6_0,
    DML_FEATURE_LEVEL_6_1,
    DML_FEATURE_LEVEL_6_2,
    DML_FEATURE_LEVEL_6_3,
    DML_FEATURE_LEVEL_6_4,
];

/// The newest level this library emulates, used when a device asks for level 0.
pub(crate) const NEWEST: DML_FEATURE_LEVEL = DML_FEATURE_LEVEL_6_4;

/// `6_4` for 0x6400.
pub(crate) fn name(level: DML_FEATURE_LEVEL) -> String {
    format!("{}_{}", level.0 >> 12, (level.0 >> 8) & 0xF)
}

/// True for a value DirectML defines.
pub(crate) fn is_known(level: DML_FEATURE_LEVEL) -> bool {
    KNOWN_LEVELS.contains(&level)
}

/// True for a well-formed level above 6_4 (`0xMm00`): one a newer DirectML may define, which
/// this library does not emulate.
pub(crate) fn is_newer(level: DML_FEATURE_LEVEL) -> bool {
    level > NEWEST && level.0 <= 0xFFFF && level.0 & 0xFF == 0
}

/// Resolves a device's requested level: 0 is the newest; a defined level is itself; a
/// well-formed level above 6_4 (`0xMm00`) is `Unsupported`; anything else is `InvalidArg`.
pub(crate) fn resolve(raw: DML_FEATURE_LEVEL) -> Result<DML_FEATURE_LEVEL> {
    if raw.0 == 0 {
        return Ok(NEWEST);
    }
    if is_known(raw) {
        return Ok(raw);
    }
    if is_newer(raw) {
        return Err(Error::Unsupported(format!(
            "feature_level DML_FEATURE_LEVEL_{} ({:#x}) is newer than 6_4, the \
             newest this library emulates",
            name(raw),
            raw.0
        )));
    }
    Err(Error::InvalidArg(format!(
        "feature_level {:#x} is not a DML_FEATURE_LEVEL value (use 0 for the \
         newest, or one of 0x1000 to 0x6400)",
        raw.0
    )))
}
