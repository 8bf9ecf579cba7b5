//! [`Arena`]: variable-length `u16` records, one a position, end to end in one vector with
//! 32-bit offsets: the layout both head stores ([`super::Headed`], [`super::ScalarHead`])
//! keep their rows in. A leaf: it names only [`Reason`].

use super::reason::Reason;

/// Records end to end; `offsets[i]..offsets[i + 1]` is record `i`. A default arena has no
/// offsets at all (an empty store, as for an unusable split); [`new`](Self::new) starts them.
#[derive(Clone, Debug, Default)]
pub(crate) struct Arena {
    /// Start of each record in `data` (`len() + 1` entries, or none).
    offsets: Vec<u32>,
    data: Vec<u16>,
}

impl Arena {
    /// An empty arena, ready for records.
    pub(crate) fn new() -> Arena {
        Arena {
            offsets: vec![0],
            data: Vec::new(),
        }
    }

    /// Number of records.
    pub(crate) fn len(&self) -> usize {
        self.offsets.len().saturating_sub(1)
    }

    /// Bytes of heap memory held.
    pub(crate) fn heap_bytes(&self) -> usize {
        self.offsets.capacity() * 4 + self.data.capacity() * 2
    }

    /// Releases spare capacity.
    pub(crate) fn shrink(&mut self) {
        self.offsets.shrink_to_fit();
        self.data.shrink_to_fit();
    }

    /// Record `i`.
    #[inline(always)]
    pub(crate) fn record(&self, i: usize) -> &[u16] {
        let (a, b) = (self.offsets[i] as usize, self.offsets[i + 1] as usize);
        &self.data[a..b]
    }

    /// Appends the record `write` writes at the end of the data; if the data would outgrow
    /// 32-bit offsets, takes it back and says so ([`Reason::StoreFull`]).
    pub(crate) fn push_with(&mut self, write: impl FnOnce(&mut Vec<u16>)) -> Result<(), Reason> {
        let start = self.data.len();
        write(&mut self.data);
        if self.data.len() > u32::MAX as usize {
            self.data.truncate(start);
            return Err(Reason::StoreFull);
        }
        self.offsets.push(self.data.len() as u32);
        Ok(())
    }

    /// Appends record `i` of `other`.
    pub(crate) fn push_from(&mut self, other: &Arena, i: usize) {
        self.data.extend_from_slice(other.record(i));
        self.offsets.push(self.data.len() as u32);
    }

    /// Appends every record of `other`; `false` (and nothing appended) if the data would
    /// outgrow 32-bit offsets.
    pub(crate) fn append(&mut self, other: &Arena) -> bool {
        let base = self.data.len();
        if base + other.data.len() > u32::MAX as usize {
            return false;
        }
        self.data.extend_from_slice(&other.data);
        // (A default arena has no offsets at all.)
        let ends = other.offsets.iter().skip(1);
        self.offsets.extend(ends.map(|&o| o + base as u32));
        true
    }
}
