//! Parameter names as identifiers of the built-in languages: the engine's own names are kept
//! as they are; a name that is a keyword is escaped where the language can (`r#type` in Rust,
//! `@params` in C#) and refused where it cannot (C, C++).

/// C99/C11 keywords, and `S`, the packing macro the C and C++ headers define.
const C_KEYWORDS: &str = "\
    auto break case char const continue default do double else enum extern float for goto if \
    inline int long register restrict return short signed sizeof static struct switch \
    typedef union unsigned void volatile while _Alignas _Alignof _Atomic _Bool _Complex \
    _Generic _Imaginary _Noreturn _Static_assert _Thread_local S";

/// C++17 keywords beyond C's (and the alternative operator spellings).
const CPP_KEYWORDS: &str = "\
    alignas alignof and and_eq asm bitand bitor bool catch char16_t char32_t class compl \
    constexpr const_cast decltype delete dynamic_cast explicit export false friend mutable \
    namespace new noexcept not not_eq nullptr operator or or_eq private protected public \
    reinterpret_cast static_assert static_cast template this thread_local throw true try \
    typeid typename using virtual wchar_t xor xor_eq";

/// Rust keywords (strict and reserved) that a raw identifier `r#name` escapes.
const RUST_KEYWORDS: &str = "\
    as break const continue else enum extern false fn for if impl in let loop match mod move \
    mut pub ref return static struct trait true type unsafe use where while async await dyn \
    abstract become box do final macro override priv typeof unsized virtual yield try gen";

/// Rust keywords no raw identifier can escape.
const RUST_UNESCAPABLE: &str = "\
    self Self super crate _";

/// C# keywords, which `@name` escapes.
const CSHARP_KEYWORDS: &str = "\
    abstract as base bool break byte case catch char checked class const continue decimal \
    default delegate do double else enum event explicit extern false finally fixed float for \
    foreach goto if implicit in int interface internal is lock long namespace new null \
    object operator out override params private protected public readonly ref return sbyte \
    sealed short sizeof stackalloc static string struct switch this throw true try typeof \
    uint ulong unchecked unsafe ushort using virtual void volatile while";

/// The built-in languages, as far as names are concerned.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Lang {
    C,
    Cpp,
    Rust,
    CSharp,
}

impl Lang {
    /// The language's name in messages: `C`, `C++`, `Rust`, `C#`.
    pub(super) fn label(self) -> &'static str {
        match self {
            Lang::C => "C",
            Lang::Cpp => "C++",
            Lang::Rust => "Rust",
            Lang::CSharp => "C#",
        }
    }
}

/// Whether `name` is one of the space-separated `words`.
fn is_in(words: &str, name: &str) -> bool {
    words.split_whitespace().any(|w| w == name)
}

/// Whether `name` is an ASCII identifier: a letter or `_`, then letters, digits and `_`.
fn is_identifier(name: &str) -> bool {
    let mut chars = name.chars();
    matches!(chars.next(), Some(c) if c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// `name` as an identifier of `lang`, or why it cannot be one.
pub(super) fn identifier(name: &str, lang: Lang) -> Result<String, String> {
    if !is_identifier(name) {
        return Err(
            "not an identifier (letters, digits and `_`, not starting with a digit)".into(),
        );
    }
    let refused = |what: &str| {
        Err(format!(
            "a {what} keyword (or the `S` macro), which it cannot escape"
        ))
    };
    match lang {
        Lang::C if is_in(C_KEYWORDS, name) => refused("C"),
        Lang::Cpp if is_in(C_KEYWORDS, name) || is_in(CPP_KEYWORDS, name) => refused("C++"),
        Lang::Rust if is_in(RUST_UNESCAPABLE, name) => {
            Err("a Rust path keyword, which no raw identifier escapes".into())
        }
        Lang::Rust if is_in(RUST_KEYWORDS, name) => Ok(format!("r#{name}")),
        Lang::CSharp if name == "Weights" => {
            Err("the name of the class that holds the weights".into())
        }
        Lang::CSharp if is_in(CSHARP_KEYWORDS, name) => Ok(format!("@{name}")),
        _ => Ok(name.to_string()),
    }
}

/// `text` made into an identifier: every character but ASCII letters, digits and `_` becomes
/// `_`, and a leading digit (or nothing) gets a `_` in front. For include guards and the like.
pub(super) fn sanitize(text: &str) -> String {
    let mut out: String = text
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' {
                c
            } else {
                '_'
            }
        })
        .collect();
    if !out.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_') {
        out.insert(0, '_');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_kept_escaped_or_refused() {
        assert_eq!(identifier("pst", Lang::C).unwrap(), "pst");
        assert!(identifier("default", Lang::C).is_err());
        assert!(identifier("S", Lang::Cpp).is_err());
        assert!(identifier("class", Lang::Cpp).is_err());
        assert_eq!(identifier("class", Lang::C).unwrap(), "class");
        assert_eq!(identifier("type", Lang::Rust).unwrap(), "r#type");
        assert!(identifier("self", Lang::Rust).is_err());
        assert_eq!(identifier("params", Lang::CSharp).unwrap(), "@params");
        assert!(identifier("Weights", Lang::CSharp).is_err());
        assert!(identifier("2nd", Lang::Rust).is_err());
        assert!(identifier("king-safety", Lang::C).is_err());
        assert!(identifier("", Lang::C).is_err());
        assert_eq!(sanitize("my-engine 2"), "my_engine_2");
        assert_eq!(sanitize("4ku"), "_4ku");
    }
}
