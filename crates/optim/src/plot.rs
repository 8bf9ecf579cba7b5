//! Plots (in progress).
