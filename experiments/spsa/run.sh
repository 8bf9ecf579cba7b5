#!/bin/sh
# The SPSA runs of experiments/spsa.md. Each is resumable: rerun the same line and it
# continues from its state.json; Ctrl-C keeps the last finished iteration.
#   sh experiments/spsa/run.sh gen16      # psqt from data/bootstrap-defaults-gen16.json
#   sh experiments/spsa/run.sh full       # full from data/bootstrap-full-step.json
#   sh experiments/spsa/run.sh fixture    # the C fixture engine through its spin options
set -e
cd "$(dirname "$0")/../.."
cargo build --release -p tune
tune=target/release/tune
case "$1" in
gen16)
    $tune spsa data/bootstrap-defaults-gen16.json --out experiments/spsa/gen16 \
        --iterations 2000 --pairs 8 --nodes 10000 --seed 1 --check-openings 600 ;;
full)
    $tune spsa data/bootstrap-full-step.json --out experiments/spsa/full \
        --iterations 2000 --pairs 8 --nodes 10000 --seed 1 --check-openings 600 ;;
fixture)
    mkdir -p target/spsa-fixture
    cc -O2 -std=c99 -o target/spsa-fixture/fixture fixtures/trace-engine/fixture.c
    printf 'manifest\nquit\n' | target/spsa-fixture/fixture | sed -n 's/^manifest //p' \
        > target/spsa-fixture/manifest.json
    $tune spsa uci:target/spsa-fixture/fixture --manifest target/spsa-fixture/manifest.json \
        --out experiments/spsa/fixture --basis tables \
        --iterations 600 --pairs 8 --nodes 2000 --seed 1 --check-openings 600 ;;
*)
    echo "usage: sh experiments/spsa/run.sh gen16|full|fixture" >&2; exit 2 ;;
esac
