//! eval crate (under construction).
