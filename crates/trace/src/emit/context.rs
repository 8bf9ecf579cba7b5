//! The values templates see: each [`Table`] as a minijinja map (see the module documentation of
//! `emit` for its keys), integers rounded, every value checked.

use minijinja::{context, Value};

use super::error::EmitError;
use super::names::{self, Lang};
use super::table::Table;

/// The largest magnitude `S(mg, eg)` packs: each half is a 16-bit two's complement number.
const PACKED_MAX: i64 = 32767;

/// How one table is checked and named for one language.
#[derive(Clone, Copy)]
pub(super) struct Target {
    /// The built-in language (names checked and escaped), or `None` for a user template.
    pub lang: Option<Lang>,
}

impl Target {
    /// Whether tapered integers are packed by `S(mg, eg)` (C and C++).
    fn packs(self) -> bool {
        matches!(self.lang, Some(Lang::C | Lang::Cpp))
    }
}

/// The name of element `flat` (row-major) of `table`, with its phase: `pst[2][35].mg`.
fn element_name(table: &Table, flat: usize, phase: Option<&str>) -> String {
    let mut index = vec![0; table.shape.len()];
    let mut rest = flat;
    for (i, &d) in table.shape.iter().enumerate().rev() {
        if d > 0 {
            index[i] = rest % d;
            rest /= d;
        }
    }
    let mut name = table.name.clone();
    for i in index {
        name.push_str(&format!("[{i}]"));
    }
    if let Some(p) = phase {
        name.push('.');
        name.push_str(p);
    }
    name
}

/// One weight as a template value: rounded half away from zero to an integer for integer
/// tables (which must fit an `i32`, or 16 bits where `S` packs it), else the float itself.
fn number(
    table: &Table,
    flat: usize,
    phase: Option<&str>,
    target: Target,
    v: f64,
) -> Result<Value, EmitError> {
    let weight = || element_name(table, flat, phase);
    if !v.is_finite() {
        return Err(EmitError::NotFinite {
            weight: weight(),
            value: v,
        });
    }
    if !table.integer {
        return Ok(Value::from(v));
    }
    let r = v.round();
    let max = if table.tapered && target.packs() {
        PACKED_MAX
    } else {
        i64::from(i32::MAX)
    };
    if r.abs() > max as f64 {
        return Err(EmitError::Range {
            weight: weight(),
            value: v,
            max,
        });
    }
    Ok(Value::from(r as i64))
}

/// `leaves` (row-major) nested as lists along `shape`; a scalar is its one leaf.
fn nest(leaves: &[Value], shape: &[usize]) -> Value {
    match shape.split_first() {
        None => leaves.first().cloned().unwrap_or(Value::UNDEFINED),
        Some((&n, inner)) => {
            let size: usize = inner.iter().product();
            let rows = (0..n).map(|i| {
                let start = (i * size).min(leaves.len());
                let end = ((i + 1) * size).min(leaves.len());
                nest(&leaves[start..end], inner)
            });
            Value::from(rows.collect::<Vec<_>>())
        }
    }
}

/// `table` as the map templates see.
pub(super) fn table(table: &Table, target: Target) -> Result<Value, EmitError> {
    let ident = match target.lang {
        Some(lang) => names::identifier(&table.name, lang).map_err(|why| EmitError::Name {
            name: table.name.clone(),
            language: lang.label().to_string(),
            why,
        })?,
        None => table.name.clone(),
    };
    let len: usize = table.shape.iter().product();
    let per = if table.tapered { 2 } else { 1 };
    if table.values.len() != len * per {
        return Err(EmitError::Values {
            name: table.name.clone(),
            expected: len * per,
            got: table.values.len(),
        });
    }
    let (mut mg, mut eg, mut pairs) = (Vec::new(), Vec::new(), Vec::new());
    for i in 0..len {
        if table.tapered {
            let m = number(table, i, Some("mg"), target, table.values[2 * i])?;
            let e = number(table, i, Some("eg"), target, table.values[2 * i + 1])?;
            pairs.push(Value::from(vec![m.clone(), e.clone()]));
            mg.push(m);
            eg.push(e);
        } else {
            let v = number(table, i, None, target, table.values[i])?;
            pairs.push(v.clone());
            mg.push(v.clone());
            eg.push(v);
        }
    }
    Ok(context! {
        name => table.name.clone(),
        ident,
        shape => table.shape.clone(),
        dims => table.shape.len(),
        len,
        tapered => table.tapered,
        integer => table.integer,
        scalar => table.shape.is_empty(),
        values => nest(&pairs, &table.shape),
        mg => nest(&mg, &table.shape),
        eg => nest(&eg, &table.shape),
        flat => pairs,
    })
}

/// The `literal` filter: a number as a source literal every built-in language reads: an
/// integer as itself, a float with the shortest digits that read back to it, always with a
/// `.` or an exponent (`1.0`, `0.1`, `1e-7`), so it stays a float in Rust and C#.
pub(super) fn literal(v: Value) -> Result<String, minijinja::Error> {
    if let (true, Some(i)) = (v.is_integer(), v.as_i64()) {
        return Ok(i.to_string());
    }
    match f64::try_from(v.clone()) {
        Ok(f) if f.is_finite() => Ok(format!("{f:?}")),
        _ => Err(minijinja::Error::new(
            minijinja::ErrorKind::InvalidOperation,
            format!("literal: {v} is not a finite number"),
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn t(shape: Vec<usize>, tapered: bool, integer: bool, values: Vec<f64>) -> Table {
        Table {
            name: "x".into(),
            shape,
            tapered,
            integer,
            values,
        }
    }

    #[test]
    fn integers_round_half_away_from_zero() {
        let target = Target {
            lang: Some(Lang::C),
        };
        let v = table(
            &t(vec![4], false, true, vec![0.5, -0.5, 1.49, -2.5]),
            target,
        )
        .unwrap();
        assert_eq!(v.get_attr("values").unwrap().to_string(), "[1, -1, 1, -3]");
    }

    #[test]
    fn tables_nest_along_their_shape() {
        let target = Target { lang: None };
        let v = table(
            &t(vec![2, 3], false, true, (0..6).map(f64::from).collect()),
            target,
        )
        .unwrap();
        assert_eq!(
            v.get_attr("values").unwrap().to_string(),
            "[[0, 1, 2], [3, 4, 5]]"
        );
        let v = table(&t(vec![2], true, true, vec![1.0, 2.0, 3.0, 4.0]), target).unwrap();
        assert_eq!(
            v.get_attr("values").unwrap().to_string(),
            "[[1, 2], [3, 4]]"
        );
        assert_eq!(v.get_attr("eg").unwrap().to_string(), "[2, 4]");
        let v = table(&t(vec![], true, false, vec![0.5, -1.25]), target).unwrap();
        assert_eq!(v.get_attr("values").unwrap().to_string(), "[0.5, -1.25]");
    }

    #[test]
    fn bad_values_are_named() {
        let c = Target {
            lang: Some(Lang::C),
        };
        let e = table(
            &t(
                vec![2, 2],
                true,
                true,
                vec![0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 40000.0, 0.0],
            ),
            c,
        );
        assert!(e.unwrap_err().to_string().contains("x[1][1].mg"));
        let rust = Target {
            lang: Some(Lang::Rust),
        };
        assert!(table(
            &t(
                vec![2, 2],
                true,
                true,
                vec![0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 40000.0, 0.0]
            ),
            rust
        )
        .is_ok());
        let e = table(&t(vec![2], false, false, vec![1.0, f64::NAN]), rust).unwrap_err();
        assert!(e.to_string().contains("x[1]"), "{e}");
        let e = table(&t(vec![2], false, false, vec![1.0]), rust).unwrap_err();
        assert!(e.to_string().contains("2 values"), "{e}");
    }

    #[test]
    fn literals_read_back() {
        assert_eq!(literal(Value::from(-3)).unwrap(), "-3");
        assert_eq!(literal(Value::from(1.0)).unwrap(), "1.0");
        assert_eq!(literal(Value::from(0.1)).unwrap(), "0.1");
        assert_eq!(literal(Value::from(1e-7)).unwrap(), "1e-7");
        assert!(literal(Value::from("a")).is_err());
    }
}
