//! Tokenizer and recursive-descent parser of the expression language.
//!
//! ```text
//! expr   := term (('+' | '-') term)*
//! term   := unary (('*' | '/') unary)*
//! unary  := ('-' | '+') unary | power
//! power  := atom ('^' INTEGER)?
//! atom   := NUMBER | '(' expr ')' | FUNC '(' expr (',' expr)* ')'
//!         | NAME ('[' expr ']')* ('.' ('mg' | 'eg'))?
//! ```
//! So `-x^2` is `-(x^2)`, and `a - b - c` is `(a - b) - c`.

use super::tree::{BinOp, Component, ExprError, Func, Name, Node};

/// How deeply expressions may nest (parentheses, calls, unary minus, indices).
const MAX_DEPTH: usize = 64;

#[derive(Clone, Debug, PartialEq)]
enum Tok {
    Num(f64),
    Ident(String),
    Sym(char),
    End,
}

fn tokenize(src: &str) -> Result<Vec<(Tok, usize)>, ExprError> {
    let chars: Vec<char> = src.chars().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        let col = i + 1;
        if c.is_whitespace() {
            i += 1;
        } else if c.is_ascii_digit()
            || (c == '.' && chars.get(i + 1).is_some_and(|d| d.is_ascii_digit()))
        {
            let start = i;
            while i < chars.len() && (chars[i].is_ascii_digit() || chars[i] == '.') {
                i += 1;
            }
            // An exponent: e or E, an optional sign, digits.
            if i < chars.len() && (chars[i] == 'e' || chars[i] == 'E') {
                let mut j = i + 1;
                if j < chars.len() && (chars[j] == '+' || chars[j] == '-') {
                    j += 1;
                }
                if j < chars.len() && chars[j].is_ascii_digit() {
                    while j < chars.len() && chars[j].is_ascii_digit() {
                        j += 1;
                    }
                    i = j;
                }
            }
            let text: String = chars[start..i].iter().collect();
            let x: f64 = text.parse().map_err(|_| ExprError {
                column: col,
                message: format!("bad number `{text}`"),
            })?;
            if !x.is_finite() {
                return Err(ExprError {
                    column: col,
                    message: format!("number `{text}` out of range"),
                });
            }
            out.push((Tok::Num(x), col));
        } else if c.is_ascii_alphabetic() || c == '_' {
            let start = i;
            while i < chars.len() && (chars[i].is_ascii_alphanumeric() || chars[i] == '_') {
                i += 1;
            }
            out.push((Tok::Ident(chars[start..i].iter().collect()), col));
        } else if "+-*/^()[],.".contains(c) {
            out.push((Tok::Sym(c), col));
            i += 1;
        } else {
            return Err(ExprError {
                column: col,
                message: format!("unexpected character `{c}`"),
            });
        }
    }
    out.push((Tok::End, chars.len() + 1));
    Ok(out)
}

struct Parser {
    toks: Vec<(Tok, usize)>,
    pos: usize,
    depth: usize,
}

/// The longest expression accepted, in characters (this bounds the depth of the tree that
/// chains such as `a + b + c + ...` build, and so the evaluation's recursion).
pub const MAX_LEN: usize = 2000;

/// Parses a whole expression.
pub(super) fn parse(src: &str) -> Result<Node<Name>, ExprError> {
    if src.chars().count() > MAX_LEN {
        return Err(ExprError {
            column: MAX_LEN + 1,
            message: format!("longer than {MAX_LEN} characters"),
        });
    }
    let mut p = Parser {
        toks: tokenize(src)?,
        pos: 0,
        depth: 0,
    };
    if p.peek() == &Tok::End {
        return Err(p.error("empty expression"));
    }
    let e = p.expr()?;
    match p.peek() {
        Tok::End => Ok(e),
        Tok::Sym(')') => Err(p.error("unmatched `)`")),
        t => {
            let t = describe(t);
            Err(p.error(&format!("expected an operator, found {t}")))
        }
    }
}

fn describe(t: &Tok) -> String {
    match t {
        Tok::Num(x) => format!("the number {x}"),
        Tok::Ident(s) => format!("`{s}`"),
        Tok::Sym(c) => format!("`{c}`"),
        Tok::End => "the end".to_string(),
    }
}

impl Parser {
    fn peek(&self) -> &Tok {
        &self.toks[self.pos].0
    }

    fn column(&self) -> usize {
        self.toks[self.pos].1
    }

    fn next(&mut self) -> Tok {
        let t = self.toks[self.pos].0.clone();
        if self.pos + 1 < self.toks.len() {
            self.pos += 1;
        }
        t
    }

    fn error(&self, message: &str) -> ExprError {
        ExprError {
            column: self.column(),
            message: message.to_string(),
        }
    }

    fn expect(&mut self, c: char, what: &str) -> Result<(), ExprError> {
        if self.peek() == &Tok::Sym(c) {
            self.next();
            Ok(())
        } else {
            let found = describe(self.peek());
            Err(self.error(&format!("expected `{c}` {what}, found {found}")))
        }
    }

    fn enter(&mut self) -> Result<(), ExprError> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return Err(self.error(&format!("nested more than {MAX_DEPTH} levels deep")));
        }
        Ok(())
    }

    fn expr(&mut self) -> Result<Node<Name>, ExprError> {
        let mut a = self.term()?;
        loop {
            let op = match self.peek() {
                Tok::Sym('+') => BinOp::Add,
                Tok::Sym('-') => BinOp::Sub,
                _ => return Ok(a),
            };
            self.next();
            let b = self.term()?;
            a = Node::Bin(op, Box::new(a), Box::new(b));
        }
    }

    fn term(&mut self) -> Result<Node<Name>, ExprError> {
        let mut a = self.unary()?;
        loop {
            let op = match self.peek() {
                Tok::Sym('*') => BinOp::Mul,
                Tok::Sym('/') => BinOp::Div,
                _ => return Ok(a),
            };
            self.next();
            let b = self.unary()?;
            a = Node::Bin(op, Box::new(a), Box::new(b));
        }
    }

    fn unary(&mut self) -> Result<Node<Name>, ExprError> {
        match self.peek() {
            Tok::Sym(c @ ('-' | '+')) => {
                let neg = *c == '-';
                self.next();
                self.enter()?;
                let a = self.unary()?;
                self.depth -= 1;
                Ok(if neg { Node::Neg(Box::new(a)) } else { a })
            }
            _ => self.power(),
        }
    }

    fn power(&mut self) -> Result<Node<Name>, ExprError> {
        let a = self.atom()?;
        if self.peek() != &Tok::Sym('^') {
            return Ok(a);
        }
        self.next();
        match self.peek().clone() {
            Tok::Num(x) if x.fract() == 0.0 && (0.0..=i32::MAX as f64).contains(&x) => {
                self.next();
                if self.peek() == &Tok::Sym('^') {
                    return Err(self.error("`^` after `^`: write parentheses, `(a ^ 2) ^ 3`"));
                }
                Ok(Node::Pow(Box::new(a), x as i32))
            }
            t => Err(self.error(&format!(
                "the exponent of `^` must be a non-negative integer literal, found {}",
                describe(&t)
            ))),
        }
    }

    fn atom(&mut self) -> Result<Node<Name>, ExprError> {
        let col = self.column();
        match self.next() {
            Tok::Num(x) => Ok(Node::Num(x)),
            Tok::Sym('(') => {
                self.enter()?;
                let e = self.expr()?;
                self.depth -= 1;
                self.expect(')', "to close the `(`")?;
                Ok(e)
            }
            Tok::Ident(name) if self.peek() == &Tok::Sym('(') => self.call(name, col),
            Tok::Ident(name) => self.name(name, col),
            t => {
                self.pos -= 1;
                Err(self.error(&format!(
                    "expected a number, a name or `(`, found {}",
                    describe(&t)
                )))
            }
        }
    }

    fn call(&mut self, name: String, col: usize) -> Result<Node<Name>, ExprError> {
        let Some((func, arity)) = Func::from_name(&name) else {
            return Err(ExprError {
                column: col,
                message: format!(
                    "unknown function `{name}` (functions: min, max, clamp, abs, sign, sigmoid, exp, trunc)"
                ),
            });
        };
        self.next(); // (
        self.enter()?;
        let mut args = vec![self.expr()?];
        while self.peek() == &Tok::Sym(',') {
            self.next();
            args.push(self.expr()?);
        }
        self.depth -= 1;
        self.expect(')', &format!("to close `{name}(`"))?;
        if args.len() != arity {
            return Err(ExprError {
                column: col,
                message: format!(
                    "`{name}` takes {arity} argument{}, given {}",
                    if arity == 1 { "" } else { "s" },
                    args.len()
                ),
            });
        }
        Ok(Node::Call(func, args))
    }

    fn name(&mut self, name: String, col: usize) -> Result<Node<Name>, ExprError> {
        let mut index = Vec::new();
        while self.peek() == &Tok::Sym('[') {
            self.next();
            self.enter()?;
            index.push(self.expr()?);
            self.depth -= 1;
            self.expect(']', "to close the index")?;
        }
        let mut component = None;
        if self.peek() == &Tok::Sym('.') {
            self.next();
            component = match self.next() {
                Tok::Ident(c) if c == "mg" => Some(Component::Mg),
                Tok::Ident(c) if c == "eg" => Some(Component::Eg),
                t => {
                    self.pos -= 1;
                    return Err(self.error(&format!(
                        "expected `mg` or `eg` after `{name}.`, found {}",
                        describe(&t)
                    )));
                }
            };
        }
        Ok(Node::Leaf(Name {
            name,
            index,
            component,
            column: col,
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn col(src: &str) -> usize {
        parse(src).unwrap_err().column
    }

    #[test]
    fn errors_name_the_column() {
        assert_eq!(col("max(s, ) * 2"), 8);
        assert_eq!(col("s ^ 1.5"), 5);
        assert_eq!(col("s ^ x"), 5);
        assert_eq!(col("foo(s)"), 1);
        assert_eq!(col("max(s)"), 1);
        assert_eq!(col("(s + 1"), 7);
        assert_eq!(col("s + 1)"), 6);
        assert_eq!(col("s $ 1"), 3);
        assert_eq!(col("w.xg"), 3);
        assert_eq!(col(""), 1);
        assert_eq!(col("a b"), 3);
        assert_eq!(col("2 ^ 2 ^ 2"), 7);
        let deep = "(".repeat(100) + "1" + &")".repeat(100);
        assert!(parse(&deep).is_err());
    }
}
