//! [`Field`]: one field of the manifest's `#[derive(Deserialize)]` structs, read as what it
//! should hold or kept as the JSON found instead, so the validation pass can say what was
//! expected, what was found and where.

use serde::de::DeserializeOwned;
use serde::{Deserialize, Deserializer};
use serde_json::Value;

/// A manifest field: absent, read as a `T`, or something else (kept for the message).
///
/// Reading never fails: a field holding the wrong kind of JSON is kept as [`Field::Other`] and
/// rejected by the validation pass, in the manifest's order of checks and with its path. A
/// struct read as a `Field` is an object only: the manifest's structs collect their unknown
/// keys (`#[serde(flatten)]`), which makes serde read them from maps and never from arrays.
#[derive(Debug, Default)]
pub(super) enum Field<T> {
    /// The key is absent.
    #[default]
    Missing,
    /// The value, read.
    Read(T),
    /// Not a `T`: the JSON found (`null` included).
    Other(Value),
}

impl<'de, T: DeserializeOwned> Deserialize<'de> for Field<T> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let v = Value::deserialize(d)?;
        Ok(match T::deserialize(&v) {
            Ok(t) => Field::Read(t),
            Err(_) => Field::Other(v),
        })
    }
}

impl<T> Field<T> {
    /// `None` if absent; else the value read, or the JSON found instead.
    pub fn found(self) -> Option<Result<T, Value>> {
        match self {
            Field::Missing => None,
            Field::Read(t) => Some(Ok(t)),
            Field::Other(v) => Some(Err(v)),
        }
    }

    /// The value read, or the JSON found instead (`null` if absent: a list's entries are
    /// never absent).
    pub fn read(self) -> Result<T, Value> {
        self.found().unwrap_or(Err(Value::Null))
    }
}
