//! The expression language of declared non-linear terms (see `docs/trace-format.md`):
//! numbers, `+ - * /`, unary minus, `^` with a non-negative integer literal exponent,
//! parentheses, the functions `min max clamp abs sign sigmoid exp trunc`, and names
//! (variables, features, parameters, `name[i][j]` elements, `name.mg` / `name.eg` components).
//!
//! [`Expr::parse`] gives the syntax tree with names unresolved; the manifest resolves the
//! names ([`Node::resolve`]) and evaluates the tree over any [`tape::Scalar`] ([`Node::eval`]),
//! so the gradient of a term is exact.
//!
//! `trunc(x)` is the engine's integer arithmetic (C's `a / b` on integers is `trunc(a / b)`).
//! Its meaning depends on the [`Arithmetic`] an evaluation asks for: the engine's
//! ([`Arithmetic::Integer`], the default: `verify`, [`Manifest::evaluate`], index
//! expressions) truncates towards zero; the tuning objective's ([`Arithmetic::Real`]:
//! [`Manifest::evaluate_real`], [`Manifest::head`]) is the identity, so a truncated division
//! is tuned as the real division it approximates (value and gradient of one smooth function).
//!
//! [`Manifest::evaluate`]: crate::Manifest::evaluate
//! [`Manifest::evaluate_real`]: crate::Manifest::evaluate_real
//! [`Manifest::head`]: crate::Manifest::head
//!
//! ```
//! use trace::expr::Expr;
//!
//! let e = Expr::parse("-max(s, 0) ^ 2 / 720")?;
//! let v = e.eval_f64(&|name, _component, _index| (name == "s").then_some(60.0))?;
//! assert_eq!(v, -5.0);
//! let err = Expr::parse("max(s, ) * 2").unwrap_err();
//! assert_eq!(err.column, 8);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

mod parse;
mod tree;

pub use parse::MAX_LEN;
pub use tree::{Arithmetic, BinOp, Component, ExprError, Func, Name, Node};

use tape::Scalar;

use crate::EvalError;

/// What a leaf of a tree is worth, for [`Node::eval`].
pub trait Env<L, S> {
    /// The value of one leaf (an error for an index out of range, say).
    fn leaf(&self, leaf: &L) -> Result<S, EvalError>;

    /// How `trunc` computes: the engine's integer arithmetic unless the environment says
    /// otherwise.
    fn arithmetic(&self) -> Arithmetic {
        Arithmetic::Integer
    }
}

impl<L, S, F: Fn(&L) -> Result<S, EvalError>> Env<L, S> for F {
    fn leaf(&self, leaf: &L) -> Result<S, EvalError> {
        self(leaf)
    }
}

impl<L> Node<L> {
    /// The same tree with every leaf replaced by `f(leaf)` (the first error is returned).
    pub fn resolve<M, E>(&self, f: &mut impl FnMut(&L) -> Result<M, E>) -> Result<Node<M>, E> {
        Ok(match self {
            Node::Num(x) => Node::Num(*x),
            Node::Leaf(l) => Node::Leaf(f(l)?),
            Node::Neg(a) => Node::Neg(Box::new(a.resolve(f)?)),
            Node::Bin(op, a, b) => Node::Bin(*op, Box::new(a.resolve(f)?), Box::new(b.resolve(f)?)),
            Node::Pow(a, n) => Node::Pow(Box::new(a.resolve(f)?), *n),
            Node::Call(func, args) => Node::Call(
                *func,
                args.iter()
                    .map(|a| a.resolve(f))
                    .collect::<Result<_, _>>()?,
            ),
        })
    }

    /// Every leaf, depth first, left to right.
    pub fn leaves<'a>(&'a self, out: &mut Vec<&'a L>) {
        match self {
            Node::Num(_) => {}
            Node::Leaf(l) => out.push(l),
            Node::Neg(a) | Node::Pow(a, _) => a.leaves(out),
            Node::Bin(_, a, b) => {
                a.leaves(out);
                b.leaves(out);
            }
            Node::Call(_, args) => args.iter().for_each(|a| a.leaves(out)),
        }
    }

    /// Evaluates the tree over any scalar, leaves from `env`.
    pub fn eval<S: Scalar>(&self, env: &impl Env<L, S>) -> Result<S, EvalError> {
        Ok(match self {
            Node::Num(x) => S::constant(*x),
            Node::Leaf(l) => env.leaf(l)?,
            Node::Neg(a) => -a.eval(env)?,
            Node::Bin(op, a, b) => {
                let (a, b) = (a.eval(env)?, b.eval(env)?);
                match op {
                    BinOp::Add => a + b,
                    BinOp::Sub => a - b,
                    BinOp::Mul => a * b,
                    BinOp::Div => a / b,
                }
            }
            Node::Pow(a, n) => a.eval(env)?.powi(*n),
            Node::Call(func, args) => {
                let mut v = Vec::with_capacity(args.len());
                for a in args {
                    v.push(a.eval(env)?);
                }
                call(*func, &v, env.arithmetic())
            }
        })
    }
}

/// Applies a function to its (already counted) arguments.
fn call<S: Scalar>(func: Func, a: &[S], arithmetic: Arithmetic) -> S {
    match func {
        Func::Min => a[0].min(a[1]),
        Func::Max => a[0].max(a[1]),
        Func::Clamp => a[0].clamp(a[1], a[2]),
        Func::Abs => a[0].abs(),
        Func::Sign => a[0].sign(),
        Func::Sigmoid => a[0].sigmoid(),
        Func::Exp => a[0].exp(),
        Func::Trunc => match arithmetic {
            Arithmetic::Integer => S::constant(a[0].value().trunc()),
            Arithmetic::Real => a[0],
        },
    }
}

/// A name lookup for [`Expr::eval_f64`]: `(name, component, indices)` to a value.
pub type Lookup = dyn Fn(&str, Option<Component>, &[usize]) -> Option<f64>;

/// A parsed expression and its source text.
#[derive(Clone, Debug, PartialEq)]
pub struct Expr {
    /// The syntax tree.
    pub root: Node<Name>,
    /// The text it was parsed from.
    pub source: String,
}

impl Expr {
    /// Parses an expression; the error gives the 1-based column.
    pub fn parse(src: &str) -> Result<Expr, ExprError> {
        Ok(Expr {
            root: parse::parse(src)?,
            source: src.to_string(),
        })
    }

    /// Every name of the expression, index expressions included, depth first.
    pub fn names(&self) -> Vec<&Name> {
        fn walk<'a>(node: &'a Node<Name>, out: &mut Vec<&'a Name>) {
            let mut leaves = Vec::new();
            node.leaves(&mut leaves);
            for l in leaves {
                out.push(l);
                for i in &l.index {
                    walk(i, out);
                }
            }
        }
        let mut out = Vec::new();
        walk(&self.root, &mut out);
        out
    }

    /// Evaluates at `f64` with names looked up by `lookup(name, component, indices)` (indices
    /// evaluated first, each a whole number >= 0); a name `lookup` does not know is an error.
    pub fn eval_f64(&self, lookup: &Lookup) -> Result<f64, EvalError> {
        struct Names<'a>(&'a Lookup);
        impl Env<Name, f64> for Names<'_> {
            fn leaf(&self, n: &Name) -> Result<f64, EvalError> {
                let mut idx = Vec::with_capacity(n.index.len());
                for i in &n.index {
                    idx.push(index_value(&n.name, i.eval(self)?)?);
                }
                (self.0)(&n.name, n.component, &idx).ok_or_else(|| EvalError::Unknown {
                    name: n.name.clone(),
                })
            }
        }
        self.root.eval(&Names(lookup))
    }
}

/// An index expression's value as an index: a whole number >= 0.
pub(crate) fn index_value(name: &str, x: f64) -> Result<usize, EvalError> {
    if x.is_finite() && x >= 0.0 && x.fract() == 0.0 && x <= u32::MAX as f64 {
        Ok(x as usize)
    } else {
        Err(EvalError::BadIndex {
            name: name.to_string(),
            value: x,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn precedence_and_associativity() {
        let e = Expr::parse("1 - 2 - 3 * 2 ^ 2 / 4 + -2 ^ 2").unwrap();
        let v = e.eval_f64(&|_, _, _| None).unwrap();
        assert_eq!(v, 1.0 - 2.0 - 3.0 * 4.0 / 4.0 + -(4.0));
    }

    #[test]
    fn numbers() {
        let e = Expr::parse("1.5e2 + .25 + 2E-1").unwrap();
        assert_eq!(e.eval_f64(&|_, _, _| None).unwrap(), 150.45);
    }
}
