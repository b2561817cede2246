//! Derived-metric expressions: tokens, the tree, the parser (standard
//! precedence) and the evaluator.
//!
//! Grammar (white space allowed between tokens):
//!
//! ```text
//! expr   := term   (('+' | '-') term)*          left-associative
//! term   := factor (('*' | '/') factor)*        left-associative
//! factor := NUMBER | '(' expr ')'
//!         | FUNC '(' NAME ',' INTEGER ')'       FUNC: sum avr min max
//!         | NAME | NAME '[' INTEGER ']'
//! ```
//!
//! rocprofiler v1 groups `+` and `-` differently (see `quirk.rs`); cltap uses
//! the usual rules and warns where the two readings differ.

use std::fmt;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Op {
    Add,
    Sub,
    Mul,
    Div,
}

impl Op {
    pub fn symbol(self) -> char {
        match self {
            Op::Add => '+',
            Op::Sub => '-',
            Op::Mul => '*',
            Op::Div => '/',
        }
    }

    /// 1 for `+ -`, 2 for `* /`.
    pub fn precedence(self) -> u8 {
        match self {
            Op::Add | Op::Sub => 1,
            Op::Mul | Op::Div => 2,
        }
    }
}

/// The reductions over block instances: `sum(NAME,N)` and friends work on
/// `NAME[0]` … `NAME[N-1]`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum AggFn {
    Sum,
    Avr,
    Min,
    Max,
}

impl AggFn {
    pub fn name(self) -> &'static str {
        match self {
            AggFn::Sum => "sum",
            AggFn::Avr => "avr",
            AggFn::Min => "min",
            AggFn::Max => "max",
        }
    }

    fn from_name(name: &str) -> Option<AggFn> {
        [AggFn::Sum, AggFn::Avr, AggFn::Min, AggFn::Max].into_iter().find(|f| f.name() == name)
    }
}

/// An expression tree over leaves of type `L`: [`Name`] as parsed,
/// resolved references once a catalog has looked the names up.
#[derive(Clone, Debug, PartialEq)]
pub enum Expr<L> {
    Num(f64),
    Leaf(L),
    Agg { func: AggFn, counter: L, count: u32 },
    Bin { op: Op, lhs: Box<Expr<L>>, rhs: Box<Expr<L>> },
}

impl<L> Expr<L> {
    pub fn bin(op: Op, lhs: Expr<L>, rhs: Expr<L>) -> Expr<L> {
        Expr::Bin { op, lhs: Box::new(lhs), rhs: Box::new(rhs) }
    }

    /// Every leaf and every reduced counter, left to right.
    pub fn visit<'a>(&'a self, f: &mut impl FnMut(&'a L, Option<(AggFn, u32)>)) {
        match self {
            Expr::Num(_) => {}
            Expr::Leaf(l) => f(l, None),
            Expr::Agg { func, counter, count } => f(counter, Some((*func, *count))),
            Expr::Bin { lhs, rhs, .. } => {
                lhs.visit(f);
                rhs.visit(f);
            }
        }
    }

    /// The same tree with every leaf mapped (and reduced counters too).
    pub fn try_map<M, E>(&self, f: &mut impl FnMut(&L, Option<(AggFn, u32)>) -> Result<M, E>) -> Result<Expr<M>, E> {
        Ok(match self {
            Expr::Num(v) => Expr::Num(*v),
            Expr::Leaf(l) => Expr::Leaf(f(l, None)?),
            Expr::Agg { func, counter, count } => {
                Expr::Agg { func: *func, counter: f(counter, Some((*func, *count)))?, count: *count }
            }
            Expr::Bin { op, lhs, rhs } => Expr::bin(*op, lhs.try_map(f)?, rhs.try_map(f)?),
        })
    }

    /// Rendered with every binary operation in parentheses, for showing how a
    /// text was grouped.
    pub fn full_parens(&self) -> String
    where
        L: fmt::Display,
    {
        match self {
            Expr::Bin { op, lhs, rhs } => format!("({} {} {})", lhs.full_parens(), op.symbol(), rhs.full_parens()),
            other => other.to_string(),
        }
    }
}

/// A name as written: `SQ_WAVES`, `TCC_HIT[3]`, `CU_NUM`; `at` is its byte
/// offset in the expression text.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Name {
    pub name: String,
    pub index: Option<u32>,
    pub at: usize,
}

impl fmt::Display for Name {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.index {
            Some(i) => write!(f, "{}[{}]", self.name, i),
            None => f.write_str(&self.name),
        }
    }
}

/// Renders with the fewest parentheses that keep the tree under standard
/// precedence: a child of lower precedence is wrapped, and so is a right child
/// of equal precedence (`a-(b-c)`, `a/(b*c)`), since the operators are
/// left-associative.
impl<L: fmt::Display> fmt::Display for Expr<L> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Expr::Num(v) => write!(f, "{v}"),
            Expr::Leaf(l) => write!(f, "{l}"),
            Expr::Agg { func, counter, count } => write!(f, "{}({},{})", func.name(), counter, count),
            Expr::Bin { op, lhs, rhs } => {
                let p = op.precedence();
                let wrap_l = matches!(**lhs, Expr::Bin { op: o, .. } if o.precedence() < p);
                let wrap_r = matches!(**rhs, Expr::Bin { op: o, .. } if o.precedence() <= p);
                let side = |f: &mut fmt::Formatter<'_>, e: &Expr<L>, wrap: bool| {
                    if wrap {
                        write!(f, "({e})")
                    } else {
                        write!(f, "{e}")
                    }
                };
                side(f, lhs, wrap_l)?;
                write!(f, "{}", op.symbol())?;
                side(f, rhs, wrap_r)
            }
        }
    }
}

/// What went wrong parsing an expression, at byte `at` of its text.
#[derive(Clone, Debug, PartialEq)]
pub struct ParseError {
    pub at: usize,
    pub kind: ParseErrorKind,
}

#[derive(Clone, Debug, PartialEq)]
pub enum ParseErrorKind {
    Syntax(String),
    UnknownFunction(String),
}

impl ParseError {
    fn syntax(at: usize, msg: impl Into<String>) -> ParseError {
        ParseError { at, kind: ParseErrorKind::Syntax(msg.into()) }
    }
}

#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Tok {
    Num(f64),
    Int(u64),
    Ident(String),
    Op(Op),
    LParen,
    RParen,
    LBracket,
    RBracket,
    Comma,
}

impl Tok {
    fn describe(&self) -> String {
        match self {
            Tok::Num(v) => format!("'{v}'"),
            Tok::Int(v) => format!("'{v}'"),
            Tok::Ident(s) => format!("'{s}'"),
            Tok::Op(o) => format!("'{}'", o.symbol()),
            Tok::LParen => "'('".into(),
            Tok::RParen => "')'".into(),
            Tok::LBracket => "'['".into(),
            Tok::RBracket => "']'".into(),
            Tok::Comma => "','".into(),
        }
    }
}

/// The deepest parentheses an expression may nest. Both parsers, and every
/// walk of the tree they build, recurse; these two limits bound how deep,
/// whatever the file holds.
pub const MAX_NESTING: usize = 64;
/// The most operators one expression may hold: a tree is at most this deep
/// (`a+b+c+…` nests to the left).
pub const MAX_OPERATORS: usize = 256;

/// Splits an expression into tokens with their byte offsets; refuses one
/// nested or long past [`MAX_NESTING`] and [`MAX_OPERATORS`].
pub(crate) fn tokenize(text: &str) -> Result<Vec<(Tok, usize)>, ParseError> {
    let toks = tokens(text)?;
    let (mut depth, mut ops) = (0usize, 0usize);
    for (t, at) in &toks {
        match t {
            Tok::LParen => depth += 1,
            Tok::RParen => depth = depth.saturating_sub(1),
            Tok::Op(_) => ops += 1,
            _ => {}
        }
        if depth > MAX_NESTING {
            return Err(ParseError::syntax(*at, format!("parentheses nested more than {MAX_NESTING} deep")));
        }
        if ops > MAX_OPERATORS {
            return Err(ParseError::syntax(*at, format!("more than {MAX_OPERATORS} operators in one expression")));
        }
    }
    Ok(toks)
}

fn tokens(text: &str) -> Result<Vec<(Tok, usize)>, ParseError> {
    let s = text.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < s.len() {
        let c = s[i];
        let start = i;
        let tok = match c {
            b' ' | b'\t' | b'\n' | b'\r' => {
                i += 1;
                continue;
            }
            b'+' => Tok::Op(Op::Add),
            b'-' => Tok::Op(Op::Sub),
            b'*' => Tok::Op(Op::Mul),
            b'/' => Tok::Op(Op::Div),
            b'(' => Tok::LParen,
            b')' => Tok::RParen,
            b'[' => Tok::LBracket,
            b']' => Tok::RBracket,
            b',' => Tok::Comma,
            b'0'..=b'9' | b'.' => {
                while i < s.len() && (s[i].is_ascii_digit() || s[i] == b'.') {
                    i += 1;
                }
                // An identifier glued to a number (`2x`) is an error, not two tokens.
                if i < s.len() && (s[i].is_ascii_alphabetic() || s[i] == b'_') {
                    return Err(ParseError::syntax(start, format!("bad number '{}'", word(text, start))));
                }
                let lit = &text[start..i];
                let tok = if lit.contains('.') {
                    Tok::Num(lit.parse().map_err(|_| ParseError::syntax(start, format!("bad number '{lit}'")))?)
                } else {
                    Tok::Int(
                        lit.parse().map_err(|_| ParseError::syntax(start, format!("number '{lit}' is too large")))?,
                    )
                };
                out.push((tok, start));
                continue;
            }
            c if c.is_ascii_alphabetic() || c == b'_' => {
                while i < s.len() && (s[i].is_ascii_alphanumeric() || s[i] == b'_') {
                    i += 1;
                }
                out.push((Tok::Ident(text[start..i].to_string()), start));
                continue;
            }
            _ => {
                let ch = text[i..].chars().next().unwrap_or('?');
                return Err(ParseError::syntax(i, format!("unexpected character '{ch}'")));
            }
        };
        out.push((tok, start));
        i += 1;
    }
    Ok(out)
}

fn word(text: &str, start: usize) -> &str {
    let end = text[start..]
        .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == '.'))
        .map_or(text.len(), |p| start + p);
    &text[start..end]
}

/// A cursor over tokens, shared by the standard and the quirk parser.
pub(crate) struct Cursor<'a> {
    toks: &'a [(Tok, usize)],
    pos: usize,
    end: usize,
}

impl<'a> Cursor<'a> {
    pub fn new(toks: &'a [(Tok, usize)], text_len: usize) -> Cursor<'a> {
        Cursor { toks, pos: 0, end: text_len }
    }

    pub fn peek(&self) -> Option<&'a Tok> {
        self.toks.get(self.pos).map(|(t, _)| t)
    }

    pub fn at(&self) -> usize {
        self.toks.get(self.pos).map_or(self.end, |(_, a)| *a)
    }

    pub fn bump(&mut self) -> Option<&'a Tok> {
        let t = self.peek();
        self.pos += 1;
        t
    }

    pub fn done(&self) -> bool {
        self.pos >= self.toks.len()
    }

    fn found(&self) -> String {
        self.peek().map_or("the end of the expression".into(), Tok::describe)
    }

    fn expect(&mut self, want: Tok, what: &str) -> Result<(), ParseError> {
        if self.peek() == Some(&want) {
            self.bump();
            Ok(())
        } else {
            Err(ParseError::syntax(self.at(), format!("expected {what} but found {}", self.found())))
        }
    }

    fn integer(&mut self, what: &str) -> Result<u32, ParseError> {
        let at = self.at();
        match self.bump() {
            Some(Tok::Int(v)) => {
                u32::try_from(*v).map_err(|_| ParseError::syntax(at, format!("{what} {v} is too large")))
            }
            _ => {
                self.pos -= 1;
                Err(ParseError::syntax(at, format!("expected {what} (an integer) but found {}", self.found())))
            }
        }
    }

    /// A number, a name, `NAME[i]` or `FUNC(NAME,N)`; parentheses are the
    /// caller's business since the two parsers treat them differently.
    pub fn operand(&mut self) -> Result<Expr<Name>, ParseError> {
        let at = self.at();
        match self.bump() {
            Some(Tok::Int(v)) => Ok(Expr::Num(*v as f64)),
            Some(Tok::Num(v)) => Ok(Expr::Num(*v)),
            Some(Tok::Ident(id)) => {
                if self.peek() == Some(&Tok::LParen) {
                    let func = AggFn::from_name(id)
                        .ok_or(ParseError { at, kind: ParseErrorKind::UnknownFunction(id.clone()) })?;
                    self.bump();
                    let name_at = self.at();
                    let name = match self.bump() {
                        Some(Tok::Ident(n)) => n.clone(),
                        _ => {
                            self.pos -= 1;
                            return Err(ParseError::syntax(
                                name_at,
                                format!("expected a counter name in {}() but found {}", id, self.found()),
                            ));
                        }
                    };
                    self.expect(Tok::Comma, "','")?;
                    let count_at = self.at();
                    let count = self.integer("an instance count")?;
                    if count == 0 {
                        return Err(ParseError::syntax(count_at, "the instance count must be at least 1"));
                    }
                    self.expect(Tok::RParen, "')'")?;
                    Ok(Expr::Agg { func, counter: Name { name, index: None, at: name_at }, count })
                } else if self.peek() == Some(&Tok::LBracket) {
                    self.bump();
                    let index = self.integer("an instance index")?;
                    self.expect(Tok::RBracket, "']'")?;
                    Ok(Expr::Leaf(Name { name: id.clone(), index: Some(index), at }))
                } else {
                    Ok(Expr::Leaf(Name { name: id.clone(), index: None, at }))
                }
            }
            _ => {
                self.pos -= 1;
                Err(ParseError::syntax(at, format!("expected a number, a name or '(' but found {}", self.found())))
            }
        }
    }
}

/// Parses with standard precedence.
pub fn parse(text: &str) -> Result<Expr<Name>, ParseError> {
    let toks = tokenize(text)?;
    let mut c = Cursor::new(&toks, text.len());
    if c.done() {
        return Err(ParseError::syntax(0, "empty expression"));
    }
    let e = sum(&mut c)?;
    if !c.done() {
        let msg = if c.peek() == Some(&Tok::RParen) {
            "')' without a matching '('".to_string()
        } else {
            format!("expected an operator but found {}", c.found())
        };
        return Err(ParseError::syntax(c.at(), msg));
    }
    Ok(e)
}

fn sum(c: &mut Cursor<'_>) -> Result<Expr<Name>, ParseError> {
    let mut e = product(c)?;
    while let Some(Tok::Op(op @ (Op::Add | Op::Sub))) = c.peek() {
        c.bump();
        e = Expr::bin(*op, e, product(c)?);
    }
    Ok(e)
}

fn product(c: &mut Cursor<'_>) -> Result<Expr<Name>, ParseError> {
    let mut e = factor(c)?;
    while let Some(Tok::Op(op @ (Op::Mul | Op::Div))) = c.peek() {
        c.bump();
        e = Expr::bin(*op, e, factor(c)?);
    }
    Ok(e)
}

fn factor(c: &mut Cursor<'_>) -> Result<Expr<Name>, ParseError> {
    if c.peek() == Some(&Tok::LParen) {
        let open = c.at();
        c.bump();
        let e = sum(c)?;
        if c.peek() != Some(&Tok::RParen) {
            let msg = if c.done() {
                "'(' is never closed".to_string()
            } else {
                format!("expected ')' but found {}", c.found())
            };
            return Err(ParseError::syntax(if c.done() { open } else { c.at() }, msg));
        }
        c.bump();
        Ok(e)
    } else {
        c.operand()
    }
}

/// Why an evaluation stopped.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stop {
    /// A divisor was 0: the whole metric is 0 (rocprofiler v1 catches the
    /// exception at the top of the expression).
    DivZero,
    /// An input value is not there.
    Missing,
}

/// Values of the leaves during an evaluation.
pub trait Env<L> {
    fn leaf(&mut self, leaf: &L) -> Result<f64, Stop>;
    /// Instance `i` of a reduced counter.
    fn instance(&mut self, counter: &L, i: u32) -> Result<f64, Stop>;
}

/// Evaluates in f64; a division by zero stops with [`Stop::DivZero`].
pub fn eval<L>(e: &Expr<L>, env: &mut impl Env<L>) -> Result<f64, Stop> {
    match e {
        Expr::Num(v) => Ok(*v),
        Expr::Leaf(l) => env.leaf(l),
        Expr::Agg { func, counter, count } => {
            let mut acc = match func {
                AggFn::Min => f64::INFINITY,
                AggFn::Max => f64::NEG_INFINITY,
                _ => 0.0,
            };
            for i in 0..*count {
                let v = env.instance(counter, i)?;
                acc = match func {
                    AggFn::Sum | AggFn::Avr => acc + v,
                    AggFn::Min => acc.min(v),
                    AggFn::Max => acc.max(v),
                };
            }
            Ok(if *func == AggFn::Avr { acc / f64::from(*count) } else { acc })
        }
        Expr::Bin { op, lhs, rhs } => {
            let a = eval(lhs, env)?;
            let b = eval(rhs, env)?;
            match op {
                Op::Add => Ok(a + b),
                Op::Sub => Ok(a - b),
                Op::Mul => Ok(a * b),
                Op::Div if b == 0.0 => Err(Stop::DivZero),
                Op::Div => Ok(a / b),
            }
        }
    }
}

/// The value of a metric from an evaluation result: 0 after a division by
/// zero, nothing when an input was missing.
pub fn outcome(r: Result<f64, Stop>) -> Option<f64> {
    match r {
        Ok(v) => Some(v),
        Err(Stop::DivZero) => Some(0.0),
        Err(Stop::Missing) => None,
    }
}
