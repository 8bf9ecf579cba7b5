//! The syntax tree of an expression ([`Node`]) and its parts, and the parse error: a leaf of
//! `expr`, shared by the parser and the evaluation.

use std::fmt;

/// A parse error: the 1-based column (in characters) of the offending token and what is wrong.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ExprError {
    /// 1-based column in the expression's text.
    pub column: usize,
    /// What is wrong.
    pub message: String,
}

impl fmt::Display for ExprError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "column {}: {}", self.column, self.message)
    }
}

impl std::error::Error for ExprError {}

/// A binary operator.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BinOp {
    /// `+`
    Add,
    /// `-`
    Sub,
    /// `*`
    Mul,
    /// `/`
    Div,
}

/// How an evaluation computes `trunc(x)` (see the module documentation).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Arithmetic {
    /// The engine's integer arithmetic: `trunc(x)` rounds towards zero (`trunc(-7 / 2)` is
    /// -3, as C's `-7 / 2`), a step function whose derivative is 0. `verify` and
    /// [`Manifest::evaluate`](crate::Manifest::evaluate) use it.
    #[default]
    Integer,
    /// Real numbers: `trunc(x)` is `x` (derivative 1), the real division a truncated one
    /// approximates, as Ethereal's own tuner computes. The tuning objective uses it
    /// ([`Manifest::evaluate_real`](crate::Manifest::evaluate_real),
    /// [`Manifest::head`](crate::Manifest::head)).
    Real,
}

/// A built-in function.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Func {
    /// `min(a, b)`: on a tie `a` (and its derivative).
    Min,
    /// `max(a, b)`: on a tie `a` (and its derivative).
    Max,
    /// `clamp(x, lo, hi)` = `max(min(x, hi), lo)`.
    Clamp,
    /// `abs(x)`: derivative 0 at 0.
    Abs,
    /// `sign(x)`: -1, 0 or 1; derivative 0.
    Sign,
    /// `sigmoid(x)` = `1 / (1 + e^-x)`.
    Sigmoid,
    /// `exp(x)`.
    Exp,
    /// `trunc(x)`: towards zero in [`Arithmetic::Integer`], `x` in [`Arithmetic::Real`].
    Trunc,
}

impl Func {
    /// The function of a name, with its number of arguments.
    pub fn from_name(name: &str) -> Option<(Func, usize)> {
        Some(match name {
            "min" => (Func::Min, 2),
            "max" => (Func::Max, 2),
            "clamp" => (Func::Clamp, 3),
            "abs" => (Func::Abs, 1),
            "sign" => (Func::Sign, 1),
            "sigmoid" => (Func::Sigmoid, 1),
            "exp" => (Func::Exp, 1),
            "trunc" => (Func::Trunc, 1),
            _ => return None,
        })
    }
}

/// Which phase component of a tapered parameter a name means: `name.mg`, `name.eg`, or
/// (plain `name`) the phase being evaluated.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Component {
    /// `.mg`
    Mg,
    /// `.eg`
    Eg,
}

/// A name as written: `ks_weight[king_attackers].mg` is the name `ks_weight`, one index
/// expression and the component `Mg`.
#[derive(Clone, Debug, PartialEq)]
pub struct Name {
    /// The identifier.
    pub name: String,
    /// Index expressions, one per `[...]`.
    pub index: Vec<Node<Name>>,
    /// `.mg` / `.eg`, if written.
    pub component: Option<Component>,
    /// 1-based column of the identifier.
    pub column: usize,
}

/// A syntax tree whose leaves are `L`: [`Name`] as parsed, a resolved reference in a manifest.
#[derive(Clone, Debug, PartialEq)]
pub enum Node<L> {
    /// A number literal.
    Num(f64),
    /// A name.
    Leaf(L),
    /// Unary minus.
    Neg(Box<Node<L>>),
    /// A binary operation.
    Bin(BinOp, Box<Node<L>>, Box<Node<L>>),
    /// `x ^ n`, `n` a non-negative integer literal.
    Pow(Box<Node<L>>, i32),
    /// A function call (the number of arguments is checked by the parser).
    Call(Func, Vec<Node<L>>),
}
