//! A small interpreter for the Common Expression Language (CEL), the language of ValidatingAdmissionPolicy
//! expressions: [`compile`] parses an expression and checks its references the way the apiserver does when
//! a policy is written (`undeclared reference to 'foo' (in container '')`, reported in cel-go's
//! `ERROR: <input>:1:5: …` form with the source line and a caret), and [`Program::eval`] runs it over
//! [`Val`]s built from API objects' JSON.
//!
//! Covered: literals (int, uint, double, string, bytes, bool, null, lists, maps), identifiers, field
//! selection, indexing, `has()`, `! - * / % + -`, comparisons, `in`, `&& || ?:` (with CEL's error
//! absorption), the macros `all`, `exists`, `exists_one`, `map` (2 and 3 arguments) and `filter`, the
//! conversions `int uint double string bool bytes type dyn`, `size`, the string functions (`contains`,
//! `startsWith`, `endsWith`, `matches`, `find`, `findAll`, `lowerAscii`, `upperAscii`, `trim`, `split`,
//! `replace`, `charAt`, `substring`, `indexOf`, `lastIndexOf`), the Kubernetes list functions (`join`,
//! `isSorted`, `sum`, `min`, `max`, `indexOf`, `lastIndexOf`), `sets.contains/intersects/equivalent`, and
//! Kubernetes quantities (`quantity`, `isQuantity`, comparisons and arithmetic on them).
//!
//! Not covered (refused at compile time as undeclared): timestamps and durations, optional values (`.?`,
//! `[?`), message construction, two-variable comprehensions, the `authorizer`, URL, IP/CIDR, semver and
//! format libraries, and static type checking against OpenAPI schemas (a type mistake shows at evaluation
//! as `no such overload`). Syntax error texts are close to cel-go's but come from this parser, not ANTLR.
//!
//! Limits keep hostile input harmless: at most [`MAX_CODE_POINTS`] code points, a tree depth of
//! [`MAX_RECURSION_DEPTH`] (`expression recursion limit exceeded: 250`), a nesting of [`MAX_NESTING`]
//! (`max recursion depth exceeded`; lower than cel-go's 250 so that evaluation never exhausts the stack),
//! and a per-evaluation cost limit (`operation cancelled: actual cost limit exceeded`). Nothing here panics
//! on any input.

pub mod eval;
pub mod lexer;
pub mod parser;
pub mod value;

#[cfg(test)]
mod tests;

use std::collections::BTreeSet;

pub use eval::{Activation, EvalError};
pub use value::Val;

use parser::{Expr, Node};

/// A position in the source: 1-based line, 0-based column in code points.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Pos {
    pub line: u32,
    pub col: u32,
}

/// cel-go's default parser recursion limit, applied here to the depth of the expression tree.
pub const MAX_RECURSION_DEPTH: usize = 250;
/// How deeply brackets, calls, macros and prefixes may nest. cel-go allows 250; kubeglass stops at 100 so
/// that the deepest expression fits the stack of a debug build (about 5 KiB per level) and of WebAssembly.
pub const MAX_NESTING: usize = 100;
/// cel-go's default expression size limit, in code points.
pub const MAX_CODE_POINTS: usize = 100_000;
/// Kubernetes' per-expression cost limit (`PerCallLimit`).
pub const PER_CALL_LIMIT: u64 = 1_000_000;

/// The identifiers that name types.
pub const TYPE_NAMES: &[&str] =
    &["int", "uint", "double", "bool", "string", "bytes", "list", "map", "null_type", "type"];

const GLOBAL_FUNCTIONS: &[&str] = &[
    "size",
    "int",
    "uint",
    "double",
    "string",
    "bool",
    "bytes",
    "type",
    "dyn",
    "matches",
    "quantity",
    "isQuantity",
    "sets.contains",
    "sets.intersects",
    "sets.equivalent",
];

const MEMBER_FUNCTIONS: &[&str] = &[
    "size",
    "contains",
    "startsWith",
    "endsWith",
    "matches",
    "find",
    "findAll",
    "lowerAscii",
    "upperAscii",
    "trim",
    "split",
    "replace",
    "charAt",
    "substring",
    "indexOf",
    "lastIndexOf",
    "join",
    "isSorted",
    "sum",
    "min",
    "max",
    "isGreaterThan",
    "isLessThan",
    "compareTo",
    "sign",
    "isInteger",
    "asInteger",
    "asApproximateFloat",
    "add",
    "sub",
];

/// What an expression may reference.
#[derive(Debug, Clone, Default)]
pub struct Declarations {
    /// Top-level variables (`object`, `oldObject`, `request`, `params`, `namespaceObject`).
    pub variables: BTreeSet<String>,
    /// The names reachable as `variables.<name>`; None when the policy has no variables.
    pub composited: Option<BTreeSet<String>>,
}

/// A compiled expression.
#[derive(Debug, Clone)]
pub struct Program {
    root: Node,
}

impl Program {
    /// Evaluates with at most `limit` cost; returns the result and the cost spent.
    pub fn eval(&self, act: &Activation, limit: u64) -> (Result<Val, EvalError>, u64) {
        eval::evaluate(&self.root, act, limit)
    }
}

struct Issue {
    pos: Option<Pos>,
    message: String,
}

/// cel-go's `Error.ToDisplayString`: `ERROR: <input>:line:col: message`, then the source line and a caret.
fn display(source: &str, issue: &Issue) -> String {
    let Some(pos) = issue.pos else {
        return format!("ERROR: <input>:-1:0: {}", issue.message);
    };
    let mut out = format!("ERROR: <input>:{}:{}: {}", pos.line, pos.col + 1, issue.message);
    if let Some(line) = source.split('\n').nth(pos.line.saturating_sub(1) as usize) {
        let snippet = line.replace('\t', " ");
        out.push_str("\n | ");
        out.push_str(&snippet);
        out.push_str("\n | ");
        let mut chars = snippet.chars();
        for _ in 0..pos.col {
            match chars.next() {
                Some(c) if c.len_utf8() > 1 => out.push('\u{ff0e}'),
                Some(_) => out.push('.'),
                None => break,
            }
        }
        match chars.next() {
            Some(c) if c.len_utf8() > 1 => out.push('\u{ff3e}'),
            _ => out.push('^'),
        }
    }
    out
}

/// Parses and checks `source`. The error is the display form of every issue found, one per line group.
pub fn compile(source: &str, decls: &Declarations) -> Result<Program, String> {
    let size = source.chars().count();
    if size > MAX_CODE_POINTS {
        let issue = Issue {
            pos: None,
            message: format!("expression code point size exceeds limit: size: {size}, limit {MAX_CODE_POINTS}"),
        };
        return Err(display(source, &issue));
    }
    let root = parser::parse(source).map_err(|e| display(source, &Issue { pos: e.pos, message: e.message }))?;
    let mut issues = Vec::new();
    let mut scope = Vec::new();
    check(&root, decls, &mut scope, &mut issues);
    if !issues.is_empty() {
        issues.sort_by_key(|i| i.pos.map(|p| (p.line, p.col)));
        return Err(issues.iter().map(|i| display(source, i)).collect::<Vec<_>>().join("\n"));
    }
    Ok(Program { root })
}

fn undeclared(name: &str, pos: Pos) -> Issue {
    Issue { pos: Some(pos), message: format!("undeclared reference to '{name}' (in container '')") }
}

fn declared(name: &str, decls: &Declarations, scope: &[String]) -> bool {
    scope.iter().any(|s| s == name)
        || decls.variables.contains(name)
        || TYPE_NAMES.contains(&name)
        || (name == "variables" && decls.composited.is_some())
}

fn check(n: &Node, decls: &Declarations, scope: &mut Vec<String>, issues: &mut Vec<Issue>) {
    match &n.expr {
        Expr::Null | Expr::Bool(_) | Expr::Int(_) | Expr::Uint(_) | Expr::Double(_) | Expr::Str(_) | Expr::Bytes(_) => {
        }
        Expr::Ident(name) => {
            if !declared(name, decls, scope) {
                issues.push(undeclared(name, n.pos));
            }
        }
        Expr::Select(operand, field) | Expr::Has(operand, field) => {
            if let (Expr::Ident(root), Some(names)) = (&operand.expr, &decls.composited) {
                if root == "variables" && !scope.iter().any(|s| s == "variables") {
                    if !names.contains(field) {
                        issues.push(Issue { pos: Some(n.pos), message: format!("undefined field '{field}'") });
                    }
                    return;
                }
            }
            check(operand, decls, scope, issues);
        }
        Expr::Index(a, b) | Expr::Binary(_, a, b) | Expr::And(a, b) | Expr::Or(a, b) => {
            check(a, decls, scope, issues);
            check(b, decls, scope, issues);
        }
        Expr::Unary(_, a) => check(a, decls, scope, issues),
        Expr::Cond(a, b, c) => {
            check(a, decls, scope, issues);
            check(b, decls, scope, issues);
            check(c, decls, scope, issues);
        }
        Expr::List(items) => items.iter().for_each(|i| check(i, decls, scope, issues)),
        Expr::Map(entries) => entries.iter().for_each(|(k, v)| {
            check(k, decls, scope, issues);
            check(v, decls, scope, issues);
        }),
        Expr::Macro(c) => {
            check(&c.range, decls, scope, issues);
            scope.push(c.var.clone());
            check(&c.step, decls, scope, issues);
            if let Some(t) = &c.transform {
                check(t, decls, scope, issues);
            }
            scope.pop();
        }
        Expr::Call { target, name, args } => {
            let namespaced = match target.as_deref() {
                Some(Node { expr: Expr::Ident(ns), .. }) if !declared(ns, decls, scope) => Some(format!("{ns}.{name}")),
                _ => None,
            };
            match (&namespaced, target) {
                (Some(full), _) => {
                    if !GLOBAL_FUNCTIONS.contains(&full.as_str()) {
                        issues.push(undeclared(full, n.pos));
                    }
                }
                (None, Some(t)) => {
                    if !MEMBER_FUNCTIONS.contains(&name.as_str()) {
                        issues.push(undeclared(name, n.pos));
                    }
                    check(t, decls, scope, issues);
                }
                (None, None) => {
                    if !GLOBAL_FUNCTIONS.contains(&name.as_str()) {
                        issues.push(undeclared(name, n.pos));
                    }
                }
            }
            args.iter().for_each(|a| check(a, decls, scope, issues));
        }
    }
}
