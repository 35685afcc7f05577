//! Helpers for the library's unit tests.

/// The next value of a xorshift64 generator (`state` must not be 0). Deterministic, so a
/// failing unit test fails the same way every run.
pub(crate) fn xorshift(state: &mut u64) -> u64 {
    *state ^= *state << 13;
    *state ^= *state >> 7;
    *state ^= *state << 17;
    *state
}
