//! [`Target`]: what a row's model output should be. A leaf: it imports nothing of the crate.

/// A row's targets: what the model's output should be, through the link (`value`), and an
/// optional second target the objective can blend in (`score`, on the scale of the model's
/// output); `group` is the id rows are split and clustered by.
///
/// Packed to 4-byte alignment: 20 bytes, not 24 (a set holds one a row: 40 MB less at 10 M
/// rows). Read its fields by value; a reference to `value` does not compile.
#[derive(Clone, Copy, Debug, PartialEq)]
#[repr(C, packed(4))]
pub struct Target {
    /// The target in `0..=1` (through the link's sigmoid).
    pub value: f64,
    /// An optional second target on the scale of the model's output (before the link), if the
    /// data carries one; the objective blends `sigma(score)` into `value`.
    pub score: Option<f32>,
    /// The group the row belongs to (any id; `0` for all when unknown). Rows of one group are
    /// correlated, so the statistics that judge validation losses count a group, not a row, as
    /// one sample, and splits keep a group whole.
    pub group: u32,
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_target_takes_20_bytes() {
        assert_eq!(std::mem::size_of::<super::Target>(), 20);
    }
}
