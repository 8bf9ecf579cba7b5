//! engine crate (under construction).
