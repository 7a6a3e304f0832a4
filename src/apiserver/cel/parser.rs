//! The CEL parser: a recursive-descent parser with CEL's precedence (`?:` < `||` < `&&` < relations and `in`
//! < `+ -` < `* / %` < unary `! -` < member access, calls and indexing), macro expansion (`has`, `all`,
//! `exists`, `exists_one`, `map`, `filter`) and the parser's limits: nesting and tree depth are capped so
//! that hostile input (`((((…))))`, `1+1+…+1`) is refused with an error instead of exhausting the stack.
//! `&&` and `||` chains are built as balanced trees, as cel-go builds them.

use super::lexer::{tokenize, Tok, Token};
use super::{Pos, MAX_NESTING, MAX_RECURSION_DEPTH};

/// Unary operators.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum UnOp {
    Not,
    Neg,
}

/// Binary operators other than the logical ones.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BinOp {
    Add,
    Sub,
    Mul,
    Div,
    Rem,
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
    In,
}

/// The comprehension macros.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MacroKind {
    All,
    Exists,
    ExistsOne,
    Map,
    Filter,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Comprehension {
    pub kind: MacroKind,
    pub range: Node,
    pub var: String,
    /// The predicate (`all`, `exists`, `exists_one`, `filter`, the 3-argument `map`) or the transform.
    pub step: Node,
    /// The transform of the 3-argument `map(x, predicate, transform)`.
    pub transform: Option<Node>,
}

/// An expression.
#[derive(Debug, Clone, PartialEq)]
pub enum Expr {
    Null,
    Bool(bool),
    Int(i64),
    Uint(u64),
    Double(f64),
    Str(String),
    Bytes(Vec<u8>),
    Ident(String),
    Select(Box<Node>, String),
    /// `has(operand.field)`.
    Has(Box<Node>, String),
    Call {
        target: Option<Box<Node>>,
        name: String,
        args: Vec<Node>,
    },
    Index(Box<Node>, Box<Node>),
    Unary(UnOp, Box<Node>),
    Binary(BinOp, Box<Node>, Box<Node>),
    And(Box<Node>, Box<Node>),
    Or(Box<Node>, Box<Node>),
    Cond(Box<Node>, Box<Node>, Box<Node>),
    List(Vec<Node>),
    Map(Vec<(Node, Node)>),
    Macro(Box<Comprehension>),
}

/// An expression with its source position and the depth of its tree.
#[derive(Debug, Clone, PartialEq)]
pub struct Node {
    pub expr: Expr,
    pub pos: Pos,
    pub depth: usize,
}

/// A parse error; `pos: None` is CEL's "no location" (`<input>:-1:0`).
#[derive(Debug, Clone, PartialEq)]
pub struct ParseError {
    pub pos: Option<Pos>,
    pub message: String,
}

const OPERAND_EXPECTED: &str =
    "{'[', '{', '(', '.', '-', '!', 'true', 'false', 'null', NUM_FLOAT, NUM_INT, NUM_UINT, STRING, BYTES, IDENTIFIER}";

/// Words CEL reserves: not usable as identifiers or function names (field names are fine).
pub const RESERVED: &[&str] = &[
    "as",
    "break",
    "const",
    "continue",
    "else",
    "false",
    "for",
    "function",
    "if",
    "import",
    "in",
    "let",
    "loop",
    "package",
    "namespace",
    "null",
    "return",
    "true",
    "var",
    "void",
    "while",
];

fn recursion_error() -> ParseError {
    ParseError { pos: None, message: format!("expression recursion limit exceeded: {MAX_RECURSION_DEPTH}") }
}

/// A node whose children have the given depths.
fn node(expr: Expr, pos: Pos, children: &[usize]) -> Result<Node, ParseError> {
    let depth = 1 + children.iter().copied().max().unwrap_or(0);
    if depth > MAX_RECURSION_DEPTH {
        return Err(recursion_error());
    }
    Ok(Node { expr, pos, depth })
}

struct Parser {
    toks: Vec<Token>,
    i: usize,
    nesting: usize,
}

/// The precedence of a binary operator token (higher binds tighter), with its operator.
fn binary_op(tok: &Tok) -> Option<(u8, Option<BinOp>)> {
    Some(match tok {
        Tok::Or => (1, None),
        Tok::And => (2, None),
        Tok::Lt => (3, Some(BinOp::Lt)),
        Tok::Le => (3, Some(BinOp::Le)),
        Tok::Gt => (3, Some(BinOp::Gt)),
        Tok::Ge => (3, Some(BinOp::Ge)),
        Tok::EqEq => (3, Some(BinOp::Eq)),
        Tok::Ne => (3, Some(BinOp::Ne)),
        Tok::In => (3, Some(BinOp::In)),
        Tok::Plus => (4, Some(BinOp::Add)),
        Tok::Minus => (4, Some(BinOp::Sub)),
        Tok::Star => (5, Some(BinOp::Mul)),
        Tok::Slash => (5, Some(BinOp::Div)),
        Tok::Percent => (5, Some(BinOp::Rem)),
        _ => return None,
    })
}

// The functions on the recursive path (expr → binary → unary → postfix → primary → expr) keep their own
// locals few and hand everything else to helpers, so that each nesting level costs little stack.
impl Parser {
    fn peek(&self) -> &Tok {
        self.toks.get(self.i).map_or(&Tok::Eof, |t| &t.tok)
    }

    fn pos(&self) -> Pos {
        self.toks.get(self.i).or(self.toks.last()).map_or(Pos { line: 1, col: 0 }, |t| t.pos)
    }

    /// Consumes the current token and returns its position.
    fn advance(&mut self) -> Pos {
        let p = self.pos();
        if self.i < self.toks.len() {
            self.i += 1;
        }
        p
    }

    fn eat(&mut self, tok: &Tok) -> bool {
        if self.peek() == tok {
            self.i += 1;
            true
        } else {
            false
        }
    }

    #[inline(never)]
    fn syntax(&self, expecting: &str) -> ParseError {
        ParseError {
            pos: Some(self.pos()),
            message: format!("Syntax error: mismatched input {} expecting {expecting}", self.peek().describe()),
        }
    }

    #[inline(never)]
    fn expect(&mut self, tok: Tok) -> Result<Pos, ParseError> {
        if self.peek() == &tok {
            Ok(self.advance())
        } else {
            Err(self.syntax(&tok.describe()))
        }
    }

    fn enter(&mut self) -> Result<(), ParseError> {
        self.nesting += 1;
        if self.nesting > MAX_NESTING {
            return Err(ParseError { pos: None, message: "max recursion depth exceeded".into() });
        }
        Ok(())
    }

    fn leave(&mut self) {
        self.nesting = self.nesting.saturating_sub(1);
    }

    /// `expr := binary ('?' binary ':' expr)?`
    fn expr(&mut self) -> Result<Node, ParseError> {
        self.enter()?;
        let cond = self.binary(1);
        let result = match cond {
            Ok(c) if self.peek() == &Tok::Question => self.ternary(c),
            other => other,
        };
        self.leave();
        result
    }

    #[inline(never)]
    fn ternary(&mut self, cond: Node) -> Result<Node, ParseError> {
        let pos = self.advance();
        let yes = self.binary(1)?;
        self.expect(Tok::Colon)?;
        let no = self.expr()?;
        let depths = [cond.depth, yes.depth, no.depth];
        node(Expr::Cond(Box::new(cond), Box::new(yes), Box::new(no)), pos, &depths)
    }

    /// Precedence climbing over the binary operators of precedence `min` and up. `||` and `&&` chains are
    /// gathered whole and built balanced.
    fn binary(&mut self, min: u8) -> Result<Node, ParseError> {
        let mut left = self.unary()?;
        while let Some((prec, op)) = binary_op(self.peek()) {
            if prec < min {
                break;
            }
            left = match op {
                Some(op) => self.binary_rest(left, op, prec)?,
                None => self.logical_chain(left, prec)?,
            };
        }
        Ok(left)
    }

    #[inline(never)]
    fn binary_rest(&mut self, left: Node, op: BinOp, prec: u8) -> Result<Node, ParseError> {
        let pos = self.advance();
        let right = self.binary(prec + 1)?;
        binary(op, left, right, pos)
    }

    #[inline(never)]
    fn logical_chain(&mut self, first: Node, prec: u8) -> Result<Node, ParseError> {
        let op = if prec == 1 { Tok::Or } else { Tok::And };
        let mut terms = vec![Some(first)];
        let mut ops = Vec::new();
        while self.peek() == &op {
            ops.push(self.advance());
            terms.push(Some(self.binary(prec + 1)?));
        }
        if ops.is_empty() {
            return terms.pop().flatten().ok_or_else(recursion_error);
        }
        balanced(&mut terms, &ops, 0, ops.len() - 1, prec == 1)
    }

    /// `!`… and `-`… prefixes: an even number cancels out, as in cel-go; a minus directly before a
    /// numeric literal is the literal's sign.
    fn unary(&mut self) -> Result<Node, ParseError> {
        match self.peek() {
            Tok::Not | Tok::Minus => self.prefixed(),
            _ => {
                let primary = self.primary()?;
                self.postfix(primary)
            }
        }
    }

    #[inline(never)]
    fn prefixed(&mut self) -> Result<Node, ParseError> {
        let pos = self.pos();
        let tok = self.peek().clone();
        let mut n = 0usize;
        while self.eat(&tok) {
            n += 1;
        }
        if tok == Tok::Minus && matches!(self.peek(), Tok::Int(_) | Tok::Double(_) | Tok::Uint(_)) {
            let literal = self.signed_literal(n % 2 == 1)?;
            return self.postfix(literal);
        }
        let primary = self.primary()?;
        let operand = self.postfix(primary)?;
        if n.is_multiple_of(2) {
            return Ok(operand);
        }
        let op = if tok == Tok::Not { UnOp::Not } else { UnOp::Neg };
        let d = operand.depth;
        node(Expr::Unary(op, Box::new(operand)), pos, &[d])
    }

    #[inline(never)]
    fn signed_literal(&mut self, negative: bool) -> Result<Node, ParseError> {
        let pos = self.pos();
        let tok = self.peek().clone();
        self.advance();
        let invalid = |what: &str| ParseError { pos: Some(pos), message: format!("invalid {what} literal") };
        let expr = match tok {
            Tok::Int(v) if negative => {
                if v > i64::MAX as u64 + 1 {
                    return Err(invalid("int"));
                }
                Expr::Int((v as i128).wrapping_neg() as i64)
            }
            Tok::Int(v) => Expr::Int(i64::try_from(v).map_err(|_| invalid("int"))?),
            Tok::Double(d) => Expr::Double(if negative { -d } else { d }),
            Tok::Uint(_) if negative => return Err(invalid("uint")),
            Tok::Uint(u) => Expr::Uint(u),
            _ => return Err(self.syntax(OPERAND_EXPECTED)),
        };
        node(expr, pos, &[])
    }

    /// `.field`, `.method(args)` and `[index]` after a primary.
    fn postfix(&mut self, mut left: Node) -> Result<Node, ParseError> {
        loop {
            left = match self.peek() {
                Tok::Dot => self.dot(left)?,
                Tok::LBracket => self.index(left)?,
                _ => return Ok(left),
            };
        }
    }

    #[inline(never)]
    fn dot(&mut self, left: Node) -> Result<Node, ParseError> {
        let dot = self.advance();
        let name = match self.peek() {
            Tok::Ident(n) => n.clone(),
            Tok::Question => return Err(ParseError { pos: Some(dot), message: "unsupported syntax '.?'".into() }),
            _ => return Err(self.syntax("IDENTIFIER")),
        };
        self.advance();
        if self.peek() == &Tok::LParen {
            let open = self.advance();
            let args = self.args(Tok::RParen)?;
            return member_call(left, name, args, open);
        }
        let d = left.depth;
        node(Expr::Select(Box::new(left), name), dot, &[d])
    }

    #[inline(never)]
    fn index(&mut self, left: Node) -> Result<Node, ParseError> {
        let open = self.advance();
        if self.peek() == &Tok::Question {
            return Err(ParseError { pos: Some(open), message: "unsupported syntax '[?'".into() });
        }
        let index = self.expr()?;
        self.expect(Tok::RBracket)?;
        let depths = [left.depth, index.depth];
        node(Expr::Index(Box::new(left), Box::new(index)), open, &depths)
    }

    /// A comma-separated list up to `close` (a trailing comma allowed), `close` consumed.
    #[inline(never)]
    fn args(&mut self, close: Tok) -> Result<Vec<Node>, ParseError> {
        let mut out = Vec::new();
        loop {
            if self.eat(&close) {
                break;
            }
            out.push(self.expr()?);
            if self.eat(&Tok::Comma) {
                continue;
            }
            self.expect(close.clone())?;
            break;
        }
        Ok(out)
    }

    fn primary(&mut self) -> Result<Node, ParseError> {
        match self.peek() {
            Tok::LParen => self.parenthesized(),
            Tok::LBracket => self.list(),
            Tok::LBrace => self.map(),
            Tok::Dot | Tok::Ident(_) => self.identifier(),
            _ => self.literal(),
        }
    }

    #[inline(never)]
    fn parenthesized(&mut self) -> Result<Node, ParseError> {
        self.advance();
        let inner = self.expr()?;
        self.expect(Tok::RParen)?;
        Ok(inner)
    }

    #[inline(never)]
    fn list(&mut self) -> Result<Node, ParseError> {
        let pos = self.advance();
        let items = self.args(Tok::RBracket)?;
        let depths: Vec<usize> = items.iter().map(|n| n.depth).collect();
        node(Expr::List(items), pos, &depths)
    }

    #[inline(never)]
    fn map(&mut self) -> Result<Node, ParseError> {
        let pos = self.advance();
        let mut entries = Vec::new();
        loop {
            if self.eat(&Tok::RBrace) {
                break;
            }
            let k = self.expr()?;
            self.expect(Tok::Colon)?;
            let v = self.expr()?;
            entries.push((k, v));
            if self.eat(&Tok::Comma) {
                continue;
            }
            self.expect(Tok::RBrace)?;
            break;
        }
        let depths: Vec<usize> = entries.iter().map(|(k, v)| k.depth.max(v.depth)).collect();
        node(Expr::Map(entries), pos, &depths)
    }

    #[inline(never)]
    fn identifier(&mut self) -> Result<Node, ParseError> {
        let pos = self.pos();
        let leading_dot = self.eat(&Tok::Dot);
        let name = match self.peek() {
            Tok::Ident(n) => n.clone(),
            _ => return Err(self.syntax("IDENTIFIER")),
        };
        self.advance();
        if RESERVED.contains(&name.as_str()) {
            return Err(ParseError { pos: Some(pos), message: format!("reserved identifier: {name}") });
        }
        let name = if leading_dot { format!(".{name}") } else { name };
        if self.peek() == &Tok::LParen {
            let open = self.advance();
            let args = self.args(Tok::RParen)?;
            return global_call(name, args, open);
        }
        if self.peek() == &Tok::LBrace {
            return Err(ParseError {
                pos: Some(self.pos()),
                message: format!("unsupported message construction: {name}"),
            });
        }
        node(Expr::Ident(name), pos, &[])
    }

    #[inline(never)]
    fn literal(&mut self) -> Result<Node, ParseError> {
        let pos = self.pos();
        let expr = match self.peek() {
            Tok::Int(_) | Tok::Uint(_) | Tok::Double(_) => return self.signed_literal(false),
            Tok::Str(s) => Expr::Str(s.clone()),
            Tok::Bytes(b) => Expr::Bytes(b.clone()),
            Tok::True => Expr::Bool(true),
            Tok::False => Expr::Bool(false),
            Tok::Null => Expr::Null,
            _ => return Err(self.syntax(OPERAND_EXPECTED)),
        };
        self.advance();
        node(expr, pos, &[])
    }
}

fn binary(op: BinOp, left: Node, right: Node, pos: Pos) -> Result<Node, ParseError> {
    let depth = 1 + left.depth.max(right.depth);
    if depth > MAX_RECURSION_DEPTH {
        return Err(recursion_error());
    }
    Ok(Node { expr: Expr::Binary(op, Box::new(left), Box::new(right)), pos, depth })
}

/// cel-go's balanced tree over `terms[lo..=hi+1]` joined by `ops[lo..=hi]`.
fn balanced(terms: &mut [Option<Node>], ops: &[Pos], lo: usize, hi: usize, or: bool) -> Result<Node, ParseError> {
    let mid = (lo + hi).div_ceil(2);
    let left = if mid == lo { terms[mid].take() } else { Some(balanced(terms, ops, lo, mid - 1, or)?) };
    let right = if mid == hi { terms[mid + 1].take() } else { Some(balanced(terms, ops, mid + 1, hi, or)?) };
    let (Some(left), Some(right)) = (left, right) else {
        return Err(ParseError { pos: None, message: "internal error building a logical chain".into() });
    };
    let depth = 1 + left.depth.max(right.depth);
    let expr = if or { Expr::Or(Box::new(left), Box::new(right)) } else { Expr::And(Box::new(left), Box::new(right)) };
    Ok(Node { expr, pos: ops[mid], depth })
}

fn global_call(name: String, args: Vec<Node>, open: Pos) -> Result<Node, ParseError> {
    if name == "has" && args.len() == 1 {
        let Some(arg) = args.into_iter().next() else {
            return Err(recursion_error());
        };
        return match arg.expr {
            Expr::Select(operand, field) => {
                let d = operand.depth;
                node(Expr::Has(operand, field), open, &[d])
            }
            _ => Err(ParseError { pos: Some(arg.pos), message: "invalid argument to has() macro".into() }),
        };
    }
    let depths: Vec<usize> = args.iter().map(|n| n.depth).collect();
    node(Expr::Call { target: None, name, args }, open, &depths)
}

fn member_call(target: Node, name: String, args: Vec<Node>, open: Pos) -> Result<Node, ParseError> {
    let kind = match (name.as_str(), args.len()) {
        ("all", 2) => Some(MacroKind::All),
        ("exists", 2) => Some(MacroKind::Exists),
        ("exists_one" | "existsOne", 2) => Some(MacroKind::ExistsOne),
        ("map", 2 | 3) => Some(MacroKind::Map),
        ("filter", 2) => Some(MacroKind::Filter),
        _ => None,
    };
    if let Some(kind) = kind {
        let mut it = args.into_iter();
        let (Some(var), Some(step)) = (it.next(), it.next()) else {
            return Err(recursion_error());
        };
        let transform = it.next();
        let Expr::Ident(var_name) = var.expr else {
            return Err(ParseError { pos: Some(var.pos), message: "argument must be a simple name".into() });
        };
        let depths = [target.depth, step.depth, transform.as_ref().map_or(0, |t| t.depth)];
        let expr = Expr::Macro(Box::new(Comprehension { kind, range: target, var: var_name, step, transform }));
        return node(expr, open, &depths);
    }
    let mut depths: Vec<usize> = args.iter().map(|n| n.depth).collect();
    depths.push(target.depth);
    node(Expr::Call { target: Some(Box::new(target)), name, args }, open, &depths)
}

/// Parses a whole expression.
pub fn parse(source: &str) -> Result<Node, ParseError> {
    let toks = tokenize(source).map_err(|e| ParseError { pos: Some(e.pos), message: e.message })?;
    let mut p = Parser { toks, i: 0, nesting: 0 };
    let root = p.expr()?;
    if p.peek() != &Tok::Eof {
        return Err(p.syntax("<EOF>"));
    }
    Ok(root)
}
