//! The validation pass's messages: what was expected and what was found, with the JSON path
//! (`params[2].shape`).

use serde_json::{Map, Value};

use super::field::Field;
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

    /// Rejects the keys an object had beyond its struct's (`unknown`), naming the `known`
    /// ones; keys starting with `_` and `comment` are allowed anywhere.
    pub fn known_keys(
        &self,
        unknown: &Map<String, Value>,
        known: &[&str],
        path: &str,
    ) -> Result<(), TraceError> {
        for k in unknown.keys() {
            if !k.starts_with('_') && k != "comment" {
                return Err(self.err(
                    &join(path, k),
                    format!("unknown key `{k}` (known here: {})", known.join(", ")),
                ));
            }
        }
        Ok(())
    }

    /// What was read, else `expected {what}, found {kind}` at `path`.
    pub fn expect<T>(
        &self,
        found: Result<T, Value>,
        path: &str,
        what: &str,
    ) -> Result<T, TraceError> {
        found.map_err(|v| self.err(path, format!("expected {what}, found {}", kind(&v))))
    }

    /// An optional field `key` of the object at `path`, expected to be `what`.
    pub fn optional<T>(
        &self,
        field: Field<T>,
        path: &str,
        key: &str,
        what: &str,
    ) -> Result<Option<T>, TraceError> {
        field
            .found()
            .map(|r| self.expect(r, &join(path, key), what))
            .transpose()
    }

    /// A required field `key` of the object at `path` (`missing` there if absent), expected
    /// to be `what`.
    pub fn required<T>(
        &self,
        field: Field<T>,
        path: &str,
        key: &str,
        what: &str,
    ) -> Result<T, TraceError> {
        self.optional(field, path, key, what)?
            .ok_or_else(|| self.err(path, format!("missing `{key}`")))
    }

    /// A string field.
    pub fn string(
        &self,
        field: Field<String>,
        path: &str,
        key: &str,
    ) -> Result<Option<String>, TraceError> {
        self.optional(field, path, key, "a string")
    }

    /// A required string field.
    pub fn required_string(
        &self,
        field: Field<String>,
        path: &str,
        key: &str,
    ) -> Result<String, TraceError> {
        self.required(field, path, key, "a string")
    }

    /// A boolean field, `default` if absent.
    pub fn boolean(
        &self,
        field: Field<bool>,
        default: bool,
        path: &str,
        key: &str,
    ) -> Result<bool, TraceError> {
        Ok(self
            .optional(field, path, key, "true or false")?
            .unwrap_or(default))
    }

    /// A finite number.
    pub fn number(&self, found: Result<f64, Value>, path: &str) -> Result<f64, TraceError> {
        match found {
            Ok(x) if x.is_finite() => Ok(x),
            Ok(_) => Err(self.err(path, "expected a number, found a number")),
            Err(v) => self.expect(Err(v), path, "a number"),
        }
    }

    /// A whole number in `lo..=hi`.
    pub fn whole(
        &self,
        found: Result<u64, Value>,
        lo: u64,
        hi: u64,
        path: &str,
    ) -> Result<u64, TraceError> {
        match found {
            Ok(n) if (lo..=hi).contains(&n) => Ok(n),
            _ => Err(self.err(
                path,
                format!(
                    "expected a whole number from {lo} to {hi}, found {}",
                    found.map_or_else(|v| v, Value::from)
                ),
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
