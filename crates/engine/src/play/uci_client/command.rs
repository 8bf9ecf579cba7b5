//! Splitting an engine's command line into words, as a POSIX shell would.

/// Splits a command line into words as a POSIX shell would, without expanding anything:
/// blanks separate words; `'...'` is literal; `"..."` is literal except `\"`, `\\`, `\$` and
/// `` \` ``; outside quotes `\` escapes the next character.
///
/// ```
/// use engine::play::uci_client::split_command;
/// assert_eq!(split_command("stockfish").unwrap(), ["stockfish"]);
/// assert_eq!(
///     split_command(r#"./my engine --weights "a b.json" 'it''s' x\ y"#).unwrap(),
///     ["./my", "engine", "--weights", "a b.json", "its", "x y"]
/// );
/// assert!(split_command("engine 'unclosed").is_err());
/// ```
pub fn split_command(line: &str) -> Result<Vec<String>, String> {
    let mut words = Vec::new();
    let mut word = String::new();
    let mut in_word = false;
    let mut chars = line.chars();
    while let Some(c) = chars.next() {
        match c {
            c if c.is_whitespace() => {
                if in_word {
                    words.push(std::mem::take(&mut word));
                    in_word = false;
                }
            }
            '\'' => {
                in_word = true;
                loop {
                    match chars.next() {
                        Some('\'') => break,
                        Some(c) => word.push(c),
                        None => return Err("unclosed single quote".to_string()),
                    }
                }
            }
            '"' => {
                in_word = true;
                loop {
                    match chars.next() {
                        Some('"') => break,
                        Some('\\') => match chars.next() {
                            Some(c @ ('"' | '\\' | '$' | '`')) => word.push(c),
                            Some(c) => {
                                word.push('\\');
                                word.push(c);
                            }
                            None => return Err("unclosed double quote".to_string()),
                        },
                        Some(c) => word.push(c),
                        None => return Err("unclosed double quote".to_string()),
                    }
                }
            }
            '\\' => {
                in_word = true;
                match chars.next() {
                    Some(c) => word.push(c),
                    None => return Err("a trailing backslash".to_string()),
                }
            }
            c => {
                in_word = true;
                word.push(c);
            }
        }
    }
    if in_word {
        words.push(word);
    }
    if words.is_empty() {
        return Err("empty command".to_string());
    }
    Ok(words)
}
