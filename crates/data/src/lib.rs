//! data crate (under construction).
