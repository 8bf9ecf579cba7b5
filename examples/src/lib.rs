//! Examples live in `examples/` as binaries; see the README.
