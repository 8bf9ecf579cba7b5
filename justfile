# gradtune tasks. `just --list` shows them; each is a plain cargo command too.

# Build everything in release mode.
build:
    cargo build --release --workspace

# Run every test (the same command CI runs).
test:
    cargo test --workspace

# Criterion benchmarks of the tape and the evaluation.
bench:
    cargo bench -p tape
    cargo bench -p eval

# The main job: L-BFGS on the embedded default data.
tune *ARGS:
    cargo run --release -p tune -- lbfgs {{ARGS}}

# Throughput and convergence figures as JSON.
tune-bench *ARGS:
    cargo run --release -p tune -- bench {{ARGS}}

# Check formatting and lints.
lint:
    cargo fmt --all -- --check
    cargo clippy --workspace --all-targets -- -D warnings
