//! Weights as source code an engine can paste: Rust constants ([`rust_source`]) or a C header
//! ([`c_source`]).
//!
//! Both are printed from one [`Layout`]: the list of named arrays and scalars (their names,
//! shapes, values and comments) built once from a model and its weights, so the two languages
//! cannot drift apart: the same names (`MATERIAL_MG`, `PST_MG[piece][square]`,
//! `MOBILITY_KNIGHT_MG[count]`, `PAWNS_PASSED_EG[rank]`, ...), in the same order, with the
//! same values. Centipawn weights are rounded to integers; the dimensionless shape constants
//! (the phase weights and `king_safety.quadratic`) stay floating point.
//!
//! ```
//! use eval::emit::{source, Lang};
//! use eval::{Model, ModelKind};
//!
//! let model = Model::new(ModelKind::Psqt);
//! let w = model.default_weights();
//! let c = source(&model, &w, Lang::C);
//! assert!(c.contains("static const int MATERIAL_MG[5] = {100, 300, 300, 500, 900};"));
//! assert!(c.contains("static const int PST_EG[6][64] = {"));
//! let rust = source(&model, &w, Lang::Rust);
//! assert!(rust.contains("pub const MATERIAL_MG: [i32; 5] = [100, 300, 300, 500, 900];"));
//! ```

use std::collections::BTreeMap;
use std::fmt::{self, Write};
use std::path::Path;
use std::str::FromStr;

use shakmaty::Square;

use crate::display::{is_fractional, weight};
use crate::error::ParamError;
use crate::kind::ModelKind;
use crate::model::Model;
use crate::param_info::{PHASE_NAMES, ROLE_NAMES};

/// A language weights can be emitted in.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Lang {
    /// Rust constants (`pub const MATERIAL_MG: [i32; 5] = ...`), `weights.rs`.
    Rust,
    /// A C header (`static const int MATERIAL_MG[5] = ...`), `weights.h`; valid C99 and C++.
    C,
}

impl Lang {
    /// Every language, in the order `--help` lists them.
    pub const ALL: [Lang; 2] = [Lang::C, Lang::Rust];

    /// `c` or `rust`.
    pub fn name(self) -> &'static str {
        match self {
            Lang::Rust => "rust",
            Lang::C => "c",
        }
    }

    /// The file name a run writes: `weights.rs` or `weights.h`.
    pub fn file_name(self) -> &'static str {
        match self {
            Lang::Rust => "weights.rs",
            Lang::C => "weights.h",
        }
    }

    /// The language a file name asks for: `.h` (also `.hpp`, `.hh`, `.c`, `.cpp`) is C, `.rs`
    /// Rust; `None` for anything else.
    ///
    /// ```
    /// use eval::emit::Lang;
    /// assert_eq!(Lang::from_path("out/weights.h".as_ref()), Some(Lang::C));
    /// assert_eq!(Lang::from_path("weights.rs".as_ref()), Some(Lang::Rust));
    /// assert_eq!(Lang::from_path("weights.txt".as_ref()), None);
    /// ```
    pub fn from_path(path: &Path) -> Option<Lang> {
        let ext = path.extension()?.to_str()?.to_ascii_lowercase();
        match ext.as_str() {
            "h" | "hpp" | "hh" | "c" | "cpp" | "cc" => Some(Lang::C),
            "rs" => Some(Lang::Rust),
            _ => None,
        }
    }
}

impl fmt::Display for Lang {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Lang {
    type Err = String;

    /// `c` (also `h`) or `rust` (also `rs`), any case.
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s.to_ascii_lowercase().as_str() {
            "c" | "h" => Ok(Lang::C),
            "rust" | "rs" => Ok(Lang::Rust),
            _ => Err(format!("unknown language `{s}` (valid: c, rust)")),
        }
    }
}

/// The shape and values of one emitted item.
#[derive(Clone, Debug, PartialEq)]
pub enum Shape {
    /// An integer array, `NAME[len]`.
    Array(Vec<i32>),
    /// One 64-square table per piece (pawn .. king), `NAME[6][64]`, squares a1 = 0 .. h8 = 63.
    Boards(Vec<(&'static str, Vec<i32>)>),
    /// An integer scalar.
    Int(i32),
    /// A floating-point scalar (a shape constant, not centipawns).
    Float(f64),
}

/// One named item of a [`Layout`].
#[derive(Clone, Debug, PartialEq)]
pub struct Item {
    /// The upper-case identifier, e.g. `PST_MG`.
    pub name: String,
    /// A one-line comment printed above it, if any.
    pub doc: Option<String>,
    /// Its shape and values.
    pub shape: Shape,
}

/// What gets emitted, independent of the language: the header comment and the items in order.
#[derive(Clone, Debug, PartialEq)]
pub struct Layout {
    /// The model.
    pub model: ModelKind,
    /// Its number of parameters.
    pub params: usize,
    /// Lines of the header comment (model, units, piece and square order, how to blend).
    pub header: Vec<String>,
    /// Material, piece-square tables, then the indexed families (mobility by count, pawn terms
    /// by rank) in name order, then the scalars in parameter order.
    pub items: Vec<Item>,
}

/// The upper-case identifier for a dotted name.
fn const_name(name: &str) -> String {
    name.replace('.', "_").to_uppercase()
}

fn int(v: f64) -> i32 {
    // `as` saturates; NaN becomes 0.
    v.round() as i32
}

impl Layout {
    /// The layout of `model`'s weights `w`. Weights missing from `w` (a vector too short for
    /// the model) count as 0.
    pub fn new(model: &Model, w: &[f64]) -> Layout {
        let header = vec![
            format!(
                "Generated by gradtune: model `{}`, {} parameters.",
                model.kind(),
                model.len()
            ),
            "Centipawns. Piece order: pawn, knight, bishop, rook, queen, king.".to_string(),
            "Squares a1 = 0, b1 = 1, ..., h8 = 63, from White's view: for Black, use the square"
                .to_string(),
            "mirrored vertically (sq ^ 56) and subtract.".to_string(),
            "Blend: phase = sum of the phase weights of the pieces on the board (psqt: pawn 0,"
                .to_string(),
            "knight 1, bishop 1, rook 2, queen 4), at most its value at the start (total);"
                .to_string(),
            "eval = eg + (mg - eg) * phase / total. full's king safety: danger d = sum of the"
                .to_string(),
            "KING_SAFETY_* weights times their counts, middlegame penalty d + QUADRATIC * d|d| / 100."
                .to_string(),
            "full's THREATS_<SIDE>_<KIND>: per enemy piece under that threat of the side to move"
                .to_string(),
            "(TO_MOVE) or of the side waiting (WAITING); HANGING: attacked, not defended, no pawn."
                .to_string(),
            "full's PUSH_THREATS_<SIDE>: per enemy piece (no pawn, no king) a safe pawn push of"
                .to_string(),
            "that side would attack; OUTPOSTS_<PIECE>: per knight or bishop on ranks 4-6, pawn-"
                .to_string(),
            "defended, that no enemy pawn can attack (docs/architecture.md)."
                .to_string(),
        ];
        let mut items = Vec::new();
        for phase in PHASE_NAMES {
            let values = ROLE_NAMES[..5]
                .iter()
                .map(|r| int(weight(model, w, &format!("material.{r}.{phase}"))))
                .collect();
            items.push(Item {
                name: format!("MATERIAL_{}", phase.to_uppercase()),
                doc: None,
                shape: Shape::Array(values),
            });
        }
        for phase in PHASE_NAMES {
            let boards = ROLE_NAMES
                .iter()
                .map(|&role| {
                    let squares = (0..64)
                        .map(|sq| {
                            let sq = Square::new(sq);
                            int(weight(model, w, &format!("pst.{role}.{phase}.{sq}")))
                        })
                        .collect();
                    (role, squares)
                })
                .collect();
            items.push(Item {
                name: format!("PST_{}", phase.to_uppercase()),
                doc: None,
                shape: Shape::Boards(boards),
            });
        }

        // Families indexed by a number (mobility count, pawn rank) become arrays; the rest
        // scalars.
        let mut arrays: BTreeMap<String, Vec<(usize, f64)>> = BTreeMap::new();
        let mut scalars = Vec::new();
        for (p, &v) in model.params().iter().zip(w) {
            if p.group == "material" || p.group == "pst" {
                continue;
            }
            let parts: Vec<&str> = p.name.split('.').collect();
            let indexed = parts.iter().position(|s| {
                let digits = s.strip_prefix("rank").unwrap_or(s);
                !digits.is_empty() && digits.chars().all(|c| c.is_ascii_digit())
            });
            match indexed {
                Some(k) => {
                    let part = parts[k];
                    let is_rank = part.starts_with("rank");
                    let n: usize = part.trim_start_matches("rank").parse().unwrap_or(0);
                    // Ranks are 1-based in names and 0-based (relative rank) in arrays.
                    let n = if is_rank { n.saturating_sub(1) } else { n };
                    let mut key: Vec<&str> = parts.clone();
                    key.remove(k);
                    let key = format!(
                        "{}{}",
                        const_name(&key.join(".")),
                        if is_rank { "#rank" } else { "" }
                    );
                    arrays.entry(key).or_default().push((n, v));
                }
                None => scalars.push(Item {
                    name: const_name(&p.name),
                    doc: None,
                    shape: if is_fractional(p) {
                        Shape::Float(v)
                    } else {
                        Shape::Int(int(v))
                    },
                }),
            }
        }
        for (key, values) in arrays {
            let (name, is_rank) = match key.strip_suffix("#rank") {
                Some(n) => (n.to_string(), true),
                None => (key.clone(), false),
            };
            let len = if is_rank {
                8
            } else {
                values.iter().map(|(n, _)| n + 1).max().unwrap_or(0)
            };
            let mut dense = vec![0; len];
            for (n, v) in values {
                if n < len {
                    dense[n] = int(v);
                }
            }
            let what = if is_rank {
                "by relative rank (1st rank = 0 .. 8th rank = 7)".to_string()
            } else {
                format!("by move count 0 to {}", len.saturating_sub(1))
            };
            items.push(Item {
                name,
                doc: Some(format!("Indexed {what}.")),
                shape: Shape::Array(dense),
            });
        }
        items.extend(scalars);
        Layout {
            model: model.kind(),
            params: model.len(),
            header,
            items,
        }
    }

    /// The layout as source code in `lang`.
    pub fn render(&self, lang: Lang) -> String {
        match lang {
            Lang::Rust => self.rust(),
            Lang::C => self.c(),
        }
    }

    fn rust(&self) -> String {
        let mut out = String::new();
        for line in &self.header {
            let _ = writeln!(out, "// {line}");
        }
        for item in &self.items {
            if let Some(doc) = &item.doc {
                let _ = writeln!(out, "/// {doc}");
            }
            let name = &item.name;
            match &item.shape {
                Shape::Array(v) => {
                    let _ = writeln!(out, "pub const {name}: [i32; {}] = [{}];", v.len(), join(v));
                }
                Shape::Boards(boards) => {
                    let _ = writeln!(
                        out,
                        "#[rustfmt::skip]\npub const {name}: [[i32; 64]; {}] = [",
                        boards.len()
                    );
                    for (role, squares) in boards {
                        let _ = writeln!(out, "    // {role}\n    [");
                        board_rows(&mut out, squares, "//");
                        out.push_str("    ],\n");
                    }
                    out.push_str("];\n");
                }
                Shape::Int(v) => {
                    let _ = writeln!(out, "pub const {name}: i32 = {v};");
                }
                Shape::Float(v) => {
                    let _ = writeln!(out, "pub const {name}: f64 = {v:?};");
                }
            }
        }
        out
    }

    fn c(&self) -> String {
        let mut out = String::new();
        out.push_str("/*\n");
        for line in &self.header {
            let _ = writeln!(out, " * {line}");
        }
        out.push_str(" */\n");
        let guard = "GRADTUNE_WEIGHTS_H";
        let _ = writeln!(out, "#ifndef {guard}\n#define {guard}\n");
        for item in &self.items {
            if let Some(doc) = &item.doc {
                let _ = writeln!(out, "/* {doc} */");
            }
            let name = &item.name;
            match &item.shape {
                Shape::Array(v) => {
                    let _ = writeln!(
                        out,
                        "static const int {name}[{}] = {{{}}};",
                        v.len(),
                        join(v)
                    );
                }
                Shape::Boards(boards) => {
                    let _ = writeln!(out, "static const int {name}[{}][64] = {{", boards.len());
                    for (role, squares) in boards {
                        let _ = writeln!(out, "    /* {role} */\n    {{");
                        board_rows(&mut out, squares, "/*");
                        out.push_str("    },\n");
                    }
                    out.push_str("};\n");
                }
                Shape::Int(v) => {
                    let _ = writeln!(out, "static const int {name} = {v};");
                }
                Shape::Float(v) => {
                    // Rust's shortest round-trip form always has a `.` or an exponent, so it
                    // is a C double literal; a non-finite weight (never written by gradtune)
                    // would not be.
                    let v = if v.is_finite() { *v } else { 0.0 };
                    let _ = writeln!(out, "static const double {name} = {v:?};");
                }
            }
        }
        let _ = writeln!(out, "\n#endif /* {guard} */");
        out
    }
}

/// `1, 2, 3`.
fn join(v: &[i32]) -> String {
    v.iter().map(i32::to_string).collect::<Vec<_>>().join(", ")
}

/// A 64-square table as eight rows of eight, rank 1 first, each row followed by a `rank N`
/// comment opened by `comment` (`//` or `/*`, which is then closed).
fn board_rows(out: &mut String, squares: &[i32], comment: &str) {
    for rank in 0..8 {
        out.push_str("       ");
        for file in 0..8 {
            let v = squares.get(rank * 8 + file).copied().unwrap_or(0);
            let _ = write!(out, " {v:>5},");
        }
        let close = if comment == "/*" { " */" } else { "" };
        let _ = writeln!(out, " {comment} rank {}{close}", rank + 1);
    }
}

/// The weights as source code in `lang` (see the [module](self) documentation).
pub fn source(model: &Model, w: &[f64], lang: Lang) -> String {
    Layout::new(model, w).render(lang)
}

/// The weights as Rust source an engine can paste: integer-rounded centipawn constants
/// (`f64` for the phase weights and the king-safety shape), with the indexing documented in
/// comments.
///
/// Weights missing from `w` (a vector too short for the model) print as 0.
///
/// ```
/// use eval::{rust_source, Model, ModelKind};
///
/// let model = Model::new(ModelKind::Psqt);
/// let src = rust_source(&model, &model.default_weights());
/// assert!(src.contains("pub const MATERIAL_MG: [i32; 5] = [100, 300, 300, 500, 900];"));
/// assert!(src.contains("pub const PST_EG: [[i32; 64]; 6]"));
/// ```
pub fn rust_source(model: &Model, w: &[f64]) -> String {
    source(model, w, Lang::Rust)
}

/// The weights as a C header (`weights.h`): the same items as [`rust_source`], as
/// `static const int` arrays (`double` for the shape constants) behind an include guard.
///
/// ```
/// use eval::{c_source, Model, ModelKind};
///
/// let model = Model::new(ModelKind::Full);
/// let h = c_source(&model, &model.default_weights());
/// assert!(h.starts_with("/*\n * Generated by gradtune: model `full`"));
/// assert!(h.contains("#ifndef GRADTUNE_WEIGHTS_H"));
/// assert!(h.contains("static const int MOBILITY_QUEEN_MG[28] = {"));
/// assert!(h.contains("static const double PHASE_QUEEN = 4.0;"));
/// ```
pub fn c_source(model: &Model, w: &[f64]) -> String {
    source(model, w, Lang::C)
}

/// Writes the weights as source code in `lang` to `path`, atomically ([`fsutil::atomic`]); an
/// error names the file.
///
/// ```
/// use eval::emit::{save_source, Lang};
/// use eval::{Model, ModelKind};
///
/// let dir = tempfile::tempdir()?;
/// let path = dir.path().join("weights.h");
/// let model = Model::new(ModelKind::Psqt);
/// save_source(&path, &model, &model.default_weights(), Lang::C)?;
/// assert!(std::fs::read_to_string(&path)?.contains("PST_MG[6][64]"));
/// let err = save_source(&dir.path().join("no/dir/w.h"), &model, &[], Lang::C).unwrap_err();
/// assert!(err.to_string().starts_with("cannot write "), "{err}");
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn save_source(path: &Path, model: &Model, w: &[f64], lang: Lang) -> Result<(), ParamError> {
    fsutil::atomic::write(path, source(model, w, lang)).map_err(|error| ParamError::Io {
        action: "write",
        path: path.to_path_buf(),
        error,
    })
}
