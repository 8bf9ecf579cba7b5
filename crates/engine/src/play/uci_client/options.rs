//! The options an engine declares in its handshake, `option name NAME type spin default D min
//! A max B` above all: OpenBench's and the testing frameworks' convention for tunables.

/// An integer option an engine declares (`type spin`): a tunable, for `tune spsa`.
///
/// ```
/// use engine::play::uci_client::SpinOption;
/// let o = SpinOption::parse("option name Knight Value type spin default 320 min 0 max 1000").unwrap();
/// assert_eq!((o.name.as_str(), o.default, o.min, o.max), ("Knight Value", 320, 0, 1000));
/// assert!(SpinOption::parse("option name Ponder type check default false").is_none());
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SpinOption {
    /// Its name (runs of white space in it become one space).
    pub name: String,
    /// Its default value.
    pub default: i64,
    /// Its smallest value.
    pub min: i64,
    /// Its largest value.
    pub max: i64,
}

impl SpinOption {
    /// The spin option of an `option` line: `None` for another type, or for a spin without
    /// a whole-number `default`, `min` and `max` with `min <= default <= max`.
    pub fn parse(line: &str) -> Option<SpinOption> {
        let mut words = line.split_whitespace();
        if words.next()? != "option" || words.next()? != "name" {
            return None;
        }
        let rest: Vec<&str> = words.collect();
        let type_at = rest.iter().position(|w| *w == "type")?;
        let name = rest[..type_at].join(" ");
        if name.is_empty() || rest.get(type_at + 1) != Some(&"spin") {
            return None;
        }
        let value = |key: &str| -> Option<i64> {
            let at = rest[type_at..].iter().position(|w| *w == key)? + type_at;
            rest.get(at + 1)?.parse().ok()
        };
        let (default, min, max) = (value("default")?, value("min")?, value("max")?);
        (min <= default && default <= max).then_some(SpinOption {
            name,
            default,
            min,
            max,
        })
    }
}
