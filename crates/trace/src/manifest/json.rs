//! Reading JSON values with their path, for errors that say where (`params[2].shape`).

use serde_json::{Map, Value};

use crate::TraceError;

/// The manifest being read: its origin, for errors.
pub(super) struct Doc<'a> {
    pub origin: &'a str,
}

/// The JSON type of a value, for messages.
pub(super) fn kind(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

impl Doc<'_> {
    pub fn err(&self, path: &str, message: impl Into<String>) -> TraceError {
        TraceError::Manifest {
            origin: self.origin.to_string(),
            path: path.to_string(),
            message: message.into(),
        }
    }

    pub fn object<'v>(
        &self,
        v: &'v Value,
        path: &str,
    ) -> Result<&'v Map<String, Value>, TraceError> {
        v.as_object()
            .ok_or_else(|| self.err(path, format!("expected an object, found {}", kind(v))))
    }

    pub fn array<'v>(&self, v: &'v Value, path: &str) -> Result<&'v Vec<Value>, TraceError> {
        v.as_array()
            .ok_or_else(|| self.err(path, format!("expected an array, found {}", kind(v))))
    }

    /// Rejects keys not in `known` (keys starting with `_` and `comment` are allowed anywhere).
    pub fn known_keys(
        &self,
        obj: &Map<String, Value>,
        known: &[&str],
        path: &str,
    ) -> Result<(), TraceError> {
        for k in obj.keys() {
            if !known.contains(&k.as_str()) && !k.starts_with('_') && k != "comment" {
                return Err(self.err(
                    &join(path, k),
                    format!("unknown key `{k}` (known here: {})", known.join(", ")),
                ));
            }
        }
        Ok(())
    }

    pub fn string<'v>(
        &self,
        obj: &'v Map<String, Value>,
        key: &str,
        path: &str,
    ) -> Result<Option<&'v str>, TraceError> {
        match obj.get(key) {
            None => Ok(None),
            Some(Value::String(s)) => Ok(Some(s)),
            Some(v) => Err(self.err(
                &join(path, key),
                format!("expected a string, found {}", kind(v)),
            )),
        }
    }

    pub fn required_string<'v>(
        &self,
        obj: &'v Map<String, Value>,
        key: &str,
        path: &str,
    ) -> Result<&'v str, TraceError> {
        self.string(obj, key, path)?
            .ok_or_else(|| self.err(path, format!("missing `{key}`")))
    }

    pub fn boolean(
        &self,
        obj: &Map<String, Value>,
        key: &str,
        default: bool,
        path: &str,
    ) -> Result<bool, TraceError> {
        match obj.get(key) {
            None => Ok(default),
            Some(Value::Bool(b)) => Ok(*b),
            Some(v) => Err(self.err(
                &join(path, key),
                format!("expected true or false, found {}", kind(v)),
            )),
        }
    }

    /// A finite number.
    pub fn number(&self, v: &Value, path: &str) -> Result<f64, TraceError> {
        v.as_f64()
            .filter(|x| x.is_finite())
            .ok_or_else(|| self.err(path, format!("expected a number, found {}", kind(v))))
    }

    /// A whole number in `lo..=hi`.
    pub fn whole(&self, v: &Value, lo: u64, hi: u64, path: &str) -> Result<u64, TraceError> {
        match v.as_u64() {
            Some(n) if (lo..=hi).contains(&n) => Ok(n),
            _ => Err(self.err(
                path,
                format!("expected a whole number from {lo} to {hi}, found {v}"),
            )),
        }
    }
}

/// `path.key` (or `key` at the top).
pub(super) fn join(path: &str, key: &str) -> String {
    if path.is_empty() || path == "$" {
        key.to_string()
    } else {
        format!("{path}.{key}")
    }
}

/// `path[i]`.
pub(super) fn at(path: &str, i: usize) -> String {
    format!("{path}[{i}]")
}

/// Whether a name is an identifier: `[A-Za-z_][A-Za-z0-9_]*`.
pub(super) fn is_identifier(s: &str) -> bool {
    let mut c = s.chars();
    c.next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && c.all(|c| c.is_ascii_alphanumeric() || c == '_')
}
