//! The operations after an EPD line's position (`c9 "1-0"; ce 35; game 12;`), split into
//! tokens in place: at white space and at `;` outside double quotes, a quoted string staying
//! one token with its quotes. What the opcodes mean is the reader's business (`data`'s EPD
//! labels, `trace`'s trace operations).
//!
//! ```
//! use fsutil::epd::{tokens, Token};
//!
//! let got: Vec<Token> = tokens(r#"c9 "1/2 - 1/2"; ce 35"#).collect();
//! assert_eq!(
//!     got,
//!     [
//!         Token::Word("c9"),
//!         Token::Word("\"1/2 - 1/2\""),
//!         Token::End,
//!         Token::Word("ce"),
//!         Token::Word("35"),
//!     ]
//! );
//! ```

/// One piece of the operations: a token, or the `;` that ends an operation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Token<'a> {
    /// A run of characters outside white space and `;` (a quoted string whole, with its
    /// quotes, white space and `;` in it).
    Word(&'a str),
    /// A `;` outside quotes.
    End,
}

/// The tokens of `rest` in order (see the [module](self) documentation). An unclosed quote
/// runs to the end of `rest`. Allocates nothing.
pub fn tokens(rest: &str) -> Tokens<'_> {
    Tokens {
        rest,
        at: 0,
        pending_end: false,
    }
}

/// The iterator of [`tokens`].
#[derive(Clone, Debug)]
pub struct Tokens<'a> {
    rest: &'a str,
    /// The byte the next token's search starts at (always a character boundary).
    at: usize,
    /// A `;` ended the last word: [`Token::End`] comes next.
    pending_end: bool,
}

impl<'a> Iterator for Tokens<'a> {
    type Item = Token<'a>;

    fn next(&mut self) -> Option<Token<'a>> {
        if std::mem::take(&mut self.pending_end) {
            return Some(Token::End);
        }
        let mut start: Option<usize> = None;
        let mut in_quote = false;
        let bytes = self.rest.as_bytes();
        // Byte by byte where a byte is a character (ASCII: every trace and EPD byte in
        // practice), a whole character where it is not (its white space is Unicode's).
        while let Some(&b) = bytes.get(self.at) {
            let i = self.at;
            let space = if b.is_ascii() {
                self.at += 1;
                // `char::is_whitespace` on ASCII: these five and the space.
                matches!(b, b' ' | b'\t' | b'\n' | b'\x0b' | b'\x0c' | b'\r')
            } else {
                let c = self.rest[i..].chars().next().unwrap_or(' ');
                self.at += c.len_utf8();
                c.is_whitespace()
            };
            match b {
                b'"' => {
                    start.get_or_insert(i);
                    in_quote = !in_quote;
                }
                b';' if !in_quote => match start {
                    Some(s) => {
                        self.pending_end = true;
                        return Some(Token::Word(&self.rest[s..i]));
                    }
                    None => return Some(Token::End),
                },
                _ if space && !in_quote => {
                    if let Some(s) = start {
                        return Some(Token::Word(&self.rest[s..i]));
                    }
                }
                _ => {
                    start.get_or_insert(i);
                }
            }
        }
        start.map(|s| Token::Word(&self.rest[s..]))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(s: &str) -> Vec<String> {
        tokens(s)
            .map(|t| match t {
                Token::Word(w) => w.to_string(),
                Token::End => ";".to_string(),
            })
            .collect()
    }

    #[test]
    fn splits_at_space_and_semicolon_outside_quotes() {
        assert_eq!(words(""), Vec::<String>::new());
        assert_eq!(words("  ;; "), [";", ";"]);
        assert_eq!(words("a;b ; c"), ["a", ";", "b", ";", "c"]);
        assert_eq!(words("id \"x; y\" ;"), ["id", "\"x; y\"", ";"]);
        assert_eq!(words("c1 ab\"c d\"e"), ["c1", "ab\"c d\"e"]);
        assert_eq!(words("open \"to the end; x"), ["open", "\"to the end; x"]);
        assert_eq!(words("é\tü;"), ["é", "ü", ";"]);
        // Unicode's white space outside ASCII splits too (a no-break space, an em space).
        assert_eq!(words("a\u{a0}b\u{2003}c;d"), ["a", "b", "c", ";", "d"]);
        assert_eq!(words("a\u{b}b\u{c}c\rd"), ["a", "b", "c", "d"]);
    }

    #[test]
    fn ascii_white_space_is_chars() {
        for b in 0u8..128 {
            let expected = char::from(b).is_whitespace();
            let got = words(&format!("x{}y", char::from(b))).len() == 2;
            if b != b'"' && b != b';' {
                assert_eq!(got, expected, "byte {b}");
            }
        }
    }
}
