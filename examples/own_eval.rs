//! An engine author's own evaluation, tuned through gradtune's library API without the CLI.
//!
//! Run: `cargo run --release -p examples --example own_eval [POSITIONS]`.
//! The evaluation and the tuning code are in `examples/src/own_eval.rs`.

use examples::own_eval::{demo, HIDDEN};

fn main() {
    let n: usize = std::env::args()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(20_000);
    match demo(n.max(100), 1) {
        Ok((out, params, k)) => {
            println!(
                "K = {k:.4}; {} iterations, {:.1} passes, {:.2} s",
                out.spent.iterations, out.spent.passes, out.spent.seconds
            );
            println!(
                "loss train {:.6} -> {:.6}",
                out.train_loss.0, out.train_loss.1
            );
            if let Some((a, b)) = out.valid_loss {
                println!("loss valid {a:.6} -> {b:.6}");
            }
            println!("{:<16} {:>9} {:>9}", "parameter", "tuned", "hidden");
            for (i, p) in params.iter().enumerate() {
                println!("{:<16} {:>9.1} {:>9.1}", p.name, out.weights[i], HIDDEN[i]);
            }
        }
        Err(e) => {
            eprintln!("error: {e}");
            std::process::exit(1);
        }
    }
}
