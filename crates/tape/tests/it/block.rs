//! Block replay (`Program::forward_block`, `backward_block`) against the per-position replay:
//! every lane's value and gradient equal `forward` and `backward` at its inputs bit for bit,
//! on a program using every operation, at points on the kinks (ties of `min`/`max`, zeros of
//! `abs`/`sign`) and away from them, with zero seeds in some lanes.

use proptest::prelude::*;
use tape::{BlockScratch, Lanes, Program, Scalar, Scratch, Tape, Var, LANES};

/// Every operation, shared subexpressions, and branches of `min`/`max`/`clamp`/`abs`/`sign`.
fn program() -> Program {
    Tape::new().record(|rec| {
        let x = rec.inputs(&[1.0; 6]);
        let shared = x[0] * x[1] + x[2] * 0.5;
        let t = (shared.tanh() * x[3]).exp() / (x[4] * x[4] + 1.0);
        let l = (x[0] * x[0] + 1.0).ln() + (x[1] * x[1] + 0.25).sqrt();
        let s = (shared - x[4]).sigmoid() * x[2].powi(3) + x[5].powi(2);
        let k = x[3].abs() + x[0].max(x[2]) - x[1].min(x[4])
            + shared.clamp(x[4] - 2.0, x[4] + 2.0)
            + x[5].sign() * x[0];
        let lin = Var::dot(&x, &[(0, 2.0), (3, -1.0), (4, 0.5), (5, 3.0)]);
        rec.compile((t + l * s - k) * lin / (shared * shared + 2.0) - shared * (x[0] - 30.0))
    })
}

/// Lane `l` of each input.
fn lanes(points: &[[f64; 6]]) -> Vec<Lanes> {
    (0..6)
        .map(|i| std::array::from_fn(|l| points[l % points.len()][i]))
        .collect()
}

fn check(points: &[[f64; 6]], seeds: &Lanes) {
    let p = program();
    let x = lanes(points);
    let mut block = BlockScratch::default();
    let v = p.forward_block(&x, &mut block);
    let mut g = vec![[0.0; LANES]; 6];
    p.backward_block(seeds, &mut block, &mut g);
    let mut scratch = Scratch::default();
    for l in 0..LANES {
        let xl: Vec<f64> = x.iter().map(|xi| xi[l]).collect();
        let want = p.forward(&xl, &mut scratch);
        assert_eq!(v[l].to_bits(), want.to_bits(), "lane {l}: {xl:?}");
        let mut gl = vec![0.0; 6];
        if seeds[l] != 0.0 {
            p.backward(seeds[l], &mut scratch, &mut gl);
        }
        for i in 0..6 {
            assert_eq!(g[i][l], gl[i], "lane {l}, input {i}: {xl:?}");
        }
    }
}

#[test]
fn on_the_kinks_each_lane_is_the_per_position_replay() {
    // x0 == x2 (max tie), x1 == x4 (min tie), x3 == 0 (abs), x5 == 0 (sign), 0 everywhere.
    let points = [
        [1.5, 2.0, 1.5, 0.0, 2.0, 0.0],
        [0.0; 6],
        [-1.0, 0.5, 3.0, -2.0, 0.25, -4.0],
        [31.0, -3.0, 2.0, 1.0, 5.0, 2.0],
    ];
    let seeds = [1.0, 0.0, -2.5, 1e-3, 0.0, 7.0, 1.0, -1.0];
    check(&points, &seeds);
}

proptest! {
    #[test]
    fn each_lane_is_the_per_position_replay(
        points in proptest::collection::vec(proptest::array::uniform6(-4.0f64..4.0), LANES),
        seeds in proptest::array::uniform8(-2.0f64..2.0),
    ) {
        check(&points, &seeds);
    }
}
