//! [`EngineSpec`]: how to start an external engine (a leaf of `uci_client`; starting it is
//! [`EngineSpec::start`]'s, in `process.rs`'s terms).

use std::time::Duration;

/// How to start an external engine.
///
/// ```
/// use std::time::Duration;
/// use engine::play::uci_client::EngineSpec;
/// let spec = EngineSpec::new("stockfish")
///     .option("Threads", "1")
///     .option("Hash", "16")
///     .timeout(Duration::from_secs(5));
/// assert_eq!(spec.command(), "stockfish");
/// ```
#[derive(Clone, Debug)]
pub struct EngineSpec {
    pub(super) command: String,
    pub(super) options: Vec<(String, String)>,
    pub(super) required: Vec<String>,
    pub(super) timeout: Duration,
    pub(super) handshake: bool,
}

impl EngineSpec {
    /// An engine started by the command line `command` (split by [`split_command`](super::split_command)), with
    /// no options and 10 s to answer `uci` and `isready`.
    pub fn new(command: impl Into<String>) -> EngineSpec {
        EngineSpec {
            command: command.into(),
            options: Vec::new(),
            required: Vec::new(),
            timeout: Duration::from_secs(10),
            handshake: true,
        }
    }

    /// Whether [`start`](Self::start) does the UCI handshake (`uci` / `uciok`, the options,
    /// `isready` / `readyok`; the default). Without it the process is only spawned, for
    /// engines spoken to in another line protocol (the trace protocol's `position` / `trace`),
    /// and the options are sent right after the spawn as `setoption` lines (no answer awaited).
    pub fn handshake(mut self, handshake: bool) -> EngineSpec {
        self.handshake = handshake;
        self
    }

    /// Sets a UCI option after the handshake (`setoption name NAME value VALUE`).
    pub fn option(mut self, name: impl Into<String>, value: impl Into<String>) -> EngineSpec {
        self.options.push((name.into(), value.into()));
        self
    }

    /// Requires the engine to declare the option `name` in the handshake: [`start`](Self::start)
    /// fails with [`UciError::MissingOptions`](super::UciError::MissingOptions) otherwise (checked before any option is set).
    pub fn require(mut self, name: impl Into<String>) -> EngineSpec {
        self.required.push(name.into());
        self
    }

    /// How long the engine may take to answer `uci` and `isready`.
    pub fn timeout(mut self, timeout: Duration) -> EngineSpec {
        self.timeout = timeout;
        self
    }

    /// The command line as given.
    pub fn command(&self) -> &str {
        &self.command
    }
}
