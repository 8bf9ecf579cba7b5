//! `gradtune-uci`: the gradtune search as a UCI engine.
//!
//! Usage: `gradtune-uci [weights.json]`; the weights can also be set with
//! `setoption name Weights value <path>`. Without weights it plays with material only.

use std::io::BufRead;
use std::path::Path;
use std::sync::{Arc, Mutex};

use engine::search::uci::UciSession;

fn main() {
    let out = Arc::new(Mutex::new(std::io::stdout()));
    let mut session = UciSession::new(out.clone());
    if let Some(path) = std::env::args_os().nth(1) {
        if let Err(e) = session.load_weights(Path::new(&path)) {
            println!("info string error: {e}");
        }
    }
    let stdin = std::io::stdin();
    for line in stdin.lock().lines() {
        let Ok(line) = line else { break };
        if !session.handle(&line) {
            return;
        }
    }
    // End of input: let a limited search finish, then leave.
    session.finish();
}
