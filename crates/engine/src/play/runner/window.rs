//! [`Window`]: the positions read and not yet written, in input order (a leaf of `runner`).
//! The engines answer in any order; the output is written in the input's, so an answer
//! waits here until every position before it is written. The window holds at most its
//! capacity: the run reads (and hands the engines) no position past it, which bounds the
//! memory of a run whatever the number of positions, and how far one slow position lets the
//! others run ahead.

use std::collections::VecDeque;

use data::Sample;

/// One position in the window.
#[derive(Debug, PartialEq)]
pub(super) enum Slot<A> {
    /// Handed to an engine, not answered yet.
    Asked(Sample),
    /// Answered (`None`: skipped after a failure).
    Answered(Sample, Option<A>),
    /// Answered by an earlier run: the answer is in the progress file.
    Resumed(Sample),
}

/// The positions from the next one to write, in order, at most `capacity` of them.
#[derive(Debug)]
pub(super) struct Window<A> {
    /// The index of the first slot.
    first: usize,
    slots: VecDeque<Slot<A>>,
    capacity: usize,
}

impl<A> Window<A> {
    /// An empty window starting at position 0, holding at most `capacity` (at least 1).
    pub(super) fn new(capacity: usize) -> Self {
        Window {
            first: 0,
            slots: VecDeque::new(),
            capacity: capacity.max(1),
        }
    }

    /// Whether another position may be read.
    pub(super) fn has_room(&self) -> bool {
        self.slots.len() < self.capacity
    }

    /// The index the next position read gets.
    pub(super) fn next_index(&self) -> usize {
        self.first + self.slots.len()
    }

    /// Whether no position is waiting.
    pub(super) fn is_empty(&self) -> bool {
        self.slots.is_empty()
    }

    /// Appends the next position read ([`next_index`](Self::next_index)); refused (`false`)
    /// when the window is full.
    pub(super) fn push(&mut self, slot: Slot<A>) -> bool {
        if !self.has_room() {
            return false;
        }
        self.slots.push_back(slot);
        true
    }

    /// Records the answer to the asked position `index` (`None`: skipped); `false` if `index`
    /// is not an asked position of the window.
    pub(super) fn answer(&mut self, index: usize, answer: Option<A>) -> bool {
        let Some(k) = index.checked_sub(self.first) else {
            return false;
        };
        let Some(slot) = self.slots.get_mut(k) else {
            return false;
        };
        let Slot::Asked(sample) = slot else {
            return false;
        };
        *slot = Slot::Answered(*sample, answer);
        true
    }

    /// Whether the first position waits for an engine.
    pub(super) fn waits(&self) -> bool {
        matches!(self.slots.front(), Some(Slot::Asked(_)))
    }

    /// The first position and its slot, if it is ready to write (answered, skipped or
    /// resumed).
    pub(super) fn pop_ready(&mut self) -> Option<(usize, Slot<A>)> {
        if self.slots.is_empty() || self.waits() {
            return None;
        }
        let slot = self.slots.pop_front()?;
        self.first += 1;
        Some((self.first - 1, slot))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample(game: u32) -> Sample {
        Sample::from_position(&shakmaty::Chess::default(), 0.5, None, game)
    }

    /// Answers out of order come out in order; the window never holds more than its
    /// capacity, and has room again only as its first positions are written.
    #[test]
    fn answers_leave_in_order_and_the_capacity_holds() {
        let mut w: Window<u32> = Window::new(3);
        for i in 0..3 {
            assert_eq!(w.next_index(), i);
            assert!(w.push(Slot::Asked(sample(i as u32))));
        }
        assert!(!w.has_room());
        assert!(!w.push(Slot::Asked(sample(9))), "a full window refuses");
        assert_eq!(w.next_index(), 3);
        // The last two answered: nothing leaves while the first waits.
        assert!(w.answer(2, Some(20)));
        assert!(w.answer(1, None));
        assert!(w.waits());
        assert_eq!(w.pop_ready(), None);
        assert!(!w.has_room());
        // Answering the first lets all three leave, in order.
        assert!(w.answer(0, Some(0)));
        let out: Vec<(usize, Slot<u32>)> = std::iter::from_fn(|| w.pop_ready()).collect();
        assert_eq!(
            out,
            [
                (0, Slot::Answered(sample(0), Some(0))),
                (1, Slot::Answered(sample(1), None)),
                (2, Slot::Answered(sample(2), Some(20))),
            ]
        );
        assert!(w.is_empty() && w.has_room());
        assert_eq!(w.next_index(), 3);
        // A resumed position is ready at once; answers outside the window are refused.
        assert!(w.push(Slot::Resumed(sample(3))));
        assert!(!w.answer(3, Some(3)), "not an asked position");
        assert!(!w.answer(2, Some(2)), "already written");
        assert!(!w.answer(7, Some(7)), "not read yet");
        assert_eq!(w.pop_ready(), Some((3, Slot::Resumed(sample(3)))));
    }
}
