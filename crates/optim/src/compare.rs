//! Comparison (in progress).
