//! optim crate (under construction).
