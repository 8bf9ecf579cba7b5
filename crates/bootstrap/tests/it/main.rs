//! The crate's integration tests as one binary (one build and one link, not one a file);
//! each file a module named as the file.

mod bootstrap;
mod gate_stub;
