//! rocprofiler v1's way of grouping an expression, kept only to warn where it
//! and cltap's standard reading disagree.
//!
//! In `Expr::ParseExpr` (`src/core/counters/metrics/expr.h` of
//! ROCm/rocprofiler) `*` and `/` chain left to right, but after `+` or `-` the
//! whole rest of the (parenthesised) expression is parsed as one right operand
//! and the loop ends: `a-b+c` is `a-(b+c)` and `a-b*c+d` is `a-((b*c)+d)`.
//! Products are never regrouped, so the two trees differ only in which terms
//! of a sum are added and which subtracted; comparing the signed terms of
//! every sum (in any order) tells whether the two readings compute the same.

use super::expr::{tokenize, Cursor, Expr, Name, Op, ParseError, Tok};

/// Parses as rocprofiler v1 does. Meant for texts the standard parser
/// accepted; parentheses are then balanced.
pub fn parse_quirk(text: &str) -> Result<Expr<Name>, ParseError> {
    let toks = tokenize(text)?;
    let mut c = Cursor::new(&toks, text.len());
    rest(&mut c)
}

/// `ParseExpr`: an operand, then `*`/`/` operands; a `+`/`-` takes everything
/// after it; a `)` ends this level (and is consumed here, as rocprofiler does).
fn rest(c: &mut Cursor<'_>) -> Result<Expr<Name>, ParseError> {
    let mut e = arg(c)?;
    while let Some(tok) = c.peek() {
        match tok {
            Tok::RParen => {
                c.bump();
                break;
            }
            Tok::Op(op @ (Op::Mul | Op::Div)) => {
                c.bump();
                e = Expr::bin(*op, e, arg(c)?);
            }
            Tok::Op(op) => {
                c.bump();
                e = Expr::bin(*op, e, rest(c)?);
                break;
            }
            _ => {
                return Err(ParseError { at: c.at(), kind: super::expr::ParseErrorKind::Syntax("bad operator".into()) })
            }
        }
    }
    Ok(e)
}

/// `ParseArg`: `(` opens a sub-expression (whose `)` the inner level eats).
fn arg(c: &mut Cursor<'_>) -> Result<Expr<Name>, ParseError> {
    if c.peek() == Some(&Tok::LParen) {
        c.bump();
        rest(c)
    } else {
        c.operand()
    }
}

/// A tree reduced so that equal arithmetic compares equal: sums become sorted
/// lists of signed terms (literal zeros dropped), products stay as they are.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Canon {
    Num(u64),
    Leaf(String),
    Sum(Vec<(bool, Canon)>),
    Bin(Op, Box<Canon>, Box<Canon>),
}

fn canon(e: &Expr<Name>) -> Canon {
    match e {
        Expr::Num(v) => Canon::Num(v.to_bits()),
        Expr::Leaf(_) | Expr::Agg { .. } => Canon::Leaf(e.to_string()),
        Expr::Bin { op: Op::Add | Op::Sub, .. } => {
            let mut terms = Vec::new();
            terms_of(e, false, &mut terms);
            terms.retain(|(_, t)| *t != Canon::Num(0f64.to_bits()));
            terms.sort();
            Canon::Sum(terms)
        }
        Expr::Bin { op, lhs, rhs } => Canon::Bin(*op, Box::new(canon(lhs)), Box::new(canon(rhs))),
    }
}

fn terms_of(e: &Expr<Name>, negative: bool, out: &mut Vec<(bool, Canon)>) {
    match e {
        Expr::Bin { op: Op::Add, lhs, rhs } => {
            terms_of(lhs, negative, out);
            terms_of(rhs, negative, out);
        }
        Expr::Bin { op: Op::Sub, lhs, rhs } => {
            terms_of(lhs, negative, out);
            terms_of(rhs, !negative, out);
        }
        other => out.push((negative, canon(other))),
    }
}

/// Whether two trees compute the same thing for every input (up to the
/// reordering of sums).
pub fn same_arithmetic(a: &Expr<Name>, b: &Expr<Name>) -> bool {
    canon(a) == canon(b)
}

/// For a text the standard parser accepted: `Some(rocprofiler's tree)` when it
/// computes something else than `standard`.
pub fn disagreement(text: &str, standard: &Expr<Name>) -> Option<Expr<Name>> {
    let quirk = parse_quirk(text).ok()?;
    (!same_arithmetic(standard, &quirk)).then_some(quirk)
}

#[cfg(test)]
mod tests {
    use super::super::expr::parse;
    use super::*;

    fn q(text: &str) -> String {
        parse_quirk(text).unwrap().full_parens()
    }

    #[test]
    fn groups_like_rocprofiler() {
        assert_eq!(q("a-b+c"), "(a - (b + c))");
        assert_eq!(q("a-b*c+d"), "(a - ((b * c) + d))");
        assert_eq!(q("a*b/c*d"), "(((a * b) / c) * d)");
        assert_eq!(q("(a-b)+c"), "((a - b) + c)");
        assert_eq!(q("x-(a+b)*c+d"), "(x - (((a + b) * c) + d))");
        assert_eq!(q("100*sum(T,16)/(sum(T,16)+sum(M,16))"), "((100 * sum(T,16)) / (sum(T,16) + sum(M,16)))");
    }

    fn warns(text: &str) -> bool {
        disagreement(text, &parse(text).unwrap()).is_some()
    }

    #[test]
    fn warns_only_where_the_arithmetic_differs() {
        assert!(warns("a-b+c"));
        assert!(warns("a-b*c+d"));
        assert!(warns("a/b-c/d+e"));
        assert!(warns("(a-b+c)*d"));
        assert!(warns("a-b-c"));
        assert!(!warns("a+b+c"));
        assert!(!warns("a+b-c"));
        assert!(!warns("a-(b+c)"));
        assert!(!warns("(a-b)+c"));
        assert!(!warns("a*b/c/d"));
        assert!(!warns("100*SQ_ACTIVE_INST_VALU*4/SIMD_NUM/GRBM_GUI_ACTIVE"));
        assert!(!warns("(A*32+(R-A)*64+D)/1024"));
        // Adding or subtracting a literal 0 changes nothing.
        assert!(!warns("a-b+0"));
    }
}
