//! `NAME=VALUE`, the form of every `--uci-option` flag.

/// Splits `o` at its first `=` into a trimmed option name and value; `flag` names the flag in
/// the error.
pub fn split<'a>(flag: &str, o: &'a str) -> anyhow::Result<(&'a str, &'a str)> {
    match o.split_once('=') {
        Some((name, value)) if !name.trim().is_empty() => Ok((name.trim(), value.trim())),
        _ => anyhow::bail!("{flag} takes NAME=VALUE, not `{o}`"),
    }
}

#[cfg(test)]
mod tests {
    use super::split;

    #[test]
    fn splits_at_the_first_equals_sign_and_trims() {
        assert_eq!(split("--uci-option", " Hash = 16").unwrap(), ("Hash", "16"));
        assert_eq!(
            split("--uci-option", "SyzygyPath=a=b").unwrap(),
            ("SyzygyPath", "a=b")
        );
        assert_eq!(
            split("--uci-option", "Normalize=").unwrap(),
            ("Normalize", "")
        );
    }

    #[test]
    fn refuses_a_missing_equals_sign_or_name_naming_the_flag() {
        let e = split("--option", "Hash16").unwrap_err().to_string();
        assert_eq!(e, "--option takes NAME=VALUE, not `Hash16`");
        assert!(split("--uci-option", "=16").is_err());
    }
}
