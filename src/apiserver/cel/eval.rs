//! The CEL evaluator: walks the parsed tree over [`Val`]s with CEL's semantics — commutative `&&`/`||` that
//! absorb errors when the other side decides, strict everything else, checked integer arithmetic, macros as
//! loops with their variable in scope — and a cost counter so that no expression runs without bound
//! (`operation cancelled: actual cost limit exceeded`). Error texts are cel-go's (`no such key: foo`,
//! `no such overload`, `division by zero`, …).

use std::cell::RefCell;
use std::cmp::Ordering;
use std::collections::BTreeMap;
use std::rc::Rc;

use regex_lite::Regex;

use super::parser::{BinOp, Comprehension, Expr, MacroKind, Node, UnOp};
use super::value::{compare, equals, format_double, Key, Val};
use super::TYPE_NAMES;
use crate::apiserver::validation::{parse_quantity, Quantity};

/// Why an evaluation failed.
#[derive(Debug, Clone, PartialEq)]
pub struct EvalError {
    pub message: String,
    /// The expression ran out of its cost limit (not an ordinary runtime error).
    pub cost_exceeded: bool,
}

impl EvalError {
    pub fn new(message: impl Into<String>) -> EvalError {
        EvalError { message: message.into(), cost_exceeded: false }
    }
}

impl std::fmt::Display for EvalError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

type R = Result<Val, EvalError>;

fn no_overload() -> EvalError {
    EvalError::new("no such overload")
}

/// What an expression can see: its variables, and a resolver for `variables.<name>` (composition).
pub struct Activation<'a> {
    pub vars: BTreeMap<String, Val>,
    pub variables: Option<&'a dyn Fn(&str) -> R>,
}

/// Evaluates `root`; `limit` is the cost it may spend. Returns the value and the cost spent.
pub fn evaluate(root: &Node, act: &Activation, limit: u64) -> (R, u64) {
    let mut it = Interp { act, locals: Vec::new(), cost: 0, limit, regexes: RefCell::new(BTreeMap::new()) };
    let r = it.eval(root);
    (r, it.cost)
}

struct Interp<'a> {
    act: &'a Activation<'a>,
    locals: Vec<(String, Val)>,
    cost: u64,
    limit: u64,
    regexes: RefCell<BTreeMap<String, Rc<Regex>>>,
}

const REGEX_SIZE_LIMIT: usize = 1 << 20;

impl Interp<'_> {
    fn charge(&mut self, n: u64) -> Result<(), EvalError> {
        self.cost = self.cost.saturating_add(n);
        if self.cost > self.limit {
            return Err(EvalError {
                message: "operation cancelled: actual cost limit exceeded".into(),
                cost_exceeded: true,
            });
        }
        Ok(())
    }

    fn lookup(&self, name: &str) -> Option<Val> {
        if let Some((_, v)) = self.locals.iter().rev().find(|(n, _)| n == name) {
            return Some(v.clone());
        }
        if let Some(v) = self.act.vars.get(name) {
            return Some(v.clone());
        }
        TYPE_NAMES.iter().find(|t| **t == name).map(|t| Val::Type(t))
    }

    fn is_local_or_var(&self, name: &str) -> bool {
        self.locals.iter().any(|(n, _)| n == name) || self.act.vars.contains_key(name)
    }

    // `eval` only dispatches: every case lives in its own function so that each level of a deep expression
    // costs little stack.
    fn eval(&mut self, n: &Node) -> R {
        self.charge(1)?;
        match &n.expr {
            Expr::Null
            | Expr::Bool(_)
            | Expr::Int(_)
            | Expr::Uint(_)
            | Expr::Double(_)
            | Expr::Str(_)
            | Expr::Bytes(_) => Ok(literal(&n.expr)),
            Expr::Ident(name) => self.ident(name),
            Expr::Select(operand, field) => self.select_expr(operand, field),
            Expr::Has(operand, field) => self.has(operand, field),
            Expr::Index(operand, index) => self.index_expr(operand, index),
            Expr::Unary(op, operand) => self.unary(*op, operand),
            Expr::And(l, r) => self.logic(l, r, false),
            Expr::Or(l, r) => self.logic(l, r, true),
            Expr::Cond(c, yes, no) => self.cond(c, yes, no),
            Expr::Binary(op, l, r) => self.binary_expr(*op, l, r),
            Expr::List(items) => self.list(items),
            Expr::Map(entries) => self.map(entries),
            Expr::Macro(c) => self.comprehension(c),
            Expr::Call { target, name, args } => self.call(target.as_deref(), name, args),
        }
    }

    #[inline(never)]
    fn ident(&mut self, name: &str) -> R {
        self.lookup(name).ok_or_else(|| EvalError::new(format!("no such attribute(s): {name}")))
    }

    #[inline(never)]
    fn select_expr(&mut self, operand: &Node, field: &str) -> R {
        if let Expr::Ident(root) = &operand.expr {
            if root == "variables" && !self.is_local_or_var("variables") {
                return match self.act.variables {
                    Some(resolve) => resolve(field),
                    None => Err(EvalError::new(format!("no such attribute(s): variables.{field}"))),
                };
            }
        }
        let v = self.eval(operand)?;
        select(&v, field)
    }

    #[inline(never)]
    fn has(&mut self, operand: &Node, field: &str) -> R {
        let v = self.eval(operand)?;
        Ok(Val::Bool(match &v {
            Val::Map(m) => m.contains_key(&Key::Str(Rc::from(field))),
            _ => false,
        }))
    }

    #[inline(never)]
    fn index_expr(&mut self, operand: &Node, index: &Node) -> R {
        let v = self.eval(operand)?;
        let i = self.eval(index)?;
        index_value(&v, &i)
    }

    #[inline(never)]
    fn unary(&mut self, op: UnOp, operand: &Node) -> R {
        let v = self.eval(operand)?;
        match (op, v) {
            (UnOp::Not, Val::Bool(b)) => Ok(Val::Bool(!b)),
            (UnOp::Neg, Val::Int(i)) => i.checked_neg().map(Val::Int).ok_or_else(overflow),
            (UnOp::Neg, Val::Double(d)) => Ok(Val::Double(-d)),
            _ => Err(no_overload()),
        }
    }

    #[inline(never)]
    fn cond(&mut self, c: &Node, yes: &Node, no: &Node) -> R {
        match self.eval(c)? {
            Val::Bool(true) => self.eval(yes),
            Val::Bool(false) => self.eval(no),
            _ => Err(no_overload()),
        }
    }

    #[inline(never)]
    fn binary_expr(&mut self, op: BinOp, l: &Node, r: &Node) -> R {
        let a = self.eval(l)?;
        let b = self.eval(r)?;
        self.binary(op, &a, &b)
    }

    #[inline(never)]
    fn list(&mut self, items: &[Node]) -> R {
        let mut out = Vec::with_capacity(items.len());
        for item in items {
            out.push(self.eval(item)?);
        }
        self.charge(out.len() as u64)?;
        Ok(Val::list(out))
    }

    #[inline(never)]
    fn map(&mut self, entries: &[(Node, Node)]) -> R {
        let mut out = BTreeMap::new();
        for (k, v) in entries {
            let key = self.eval(k)?;
            let value = self.eval(v)?;
            let key = Key::from_val(&key)
                .ok_or_else(|| EvalError::new(format!("unsupported key type: {}", key.type_name())))?;
            if out.insert(key.clone(), value).is_some() {
                return Err(EvalError::new(format!("Failed with repeated key: {key}")));
            }
        }
        self.charge(out.len() as u64)?;
        Ok(Val::Map(Rc::new(out)))
    }

    #[inline(never)]
    fn call(&mut self, target: Option<&Node>, name: &str, args: &[Node]) -> R {
        // `sets.contains(…)` and other namespaced functions parse as a call on an identifier.
        let mut global_name = None;
        if let Some(Node { expr: Expr::Ident(ns), .. }) = target {
            if ns == "sets" && !self.is_local_or_var(ns) {
                global_name = Some(format!("{ns}.{name}"));
            }
        }
        let mut vals = Vec::with_capacity(args.len());
        for a in args {
            vals.push(self.eval(a)?);
        }
        match (global_name, target) {
            (Some(g), _) => self.call_global(&g, &vals),
            (None, Some(t)) => {
                let recv = self.eval(t)?;
                self.call_method(name, &recv, &vals)
            }
            (None, None) => self.call_global(name, &vals),
        }
    }

    /// `&&` (`or = false`) and `||`: either side that decides wins, even over an error on the other side.
    #[inline(never)]
    fn logic(&mut self, l: &Node, r: &Node, or: bool) -> R {
        let a = self.eval(l);
        if let Ok(Val::Bool(b)) = a {
            if b == or {
                return Ok(Val::Bool(or));
            }
        }
        if let Err(e) = &a {
            if e.cost_exceeded {
                return a;
            }
        }
        let b = self.eval(r);
        if let Ok(Val::Bool(v)) = b {
            if v == or {
                return Ok(Val::Bool(or));
            }
        }
        match (a, b) {
            (Err(e), _) | (_, Err(e)) => Err(e),
            (Ok(Val::Bool(_)), Ok(Val::Bool(_))) => Ok(Val::Bool(!or)),
            _ => Err(no_overload()),
        }
    }

    fn binary(&mut self, op: BinOp, a: &Val, b: &Val) -> R {
        match op {
            BinOp::Eq => Ok(Val::Bool(equals(a, b))),
            BinOp::Ne => Ok(Val::Bool(!equals(a, b))),
            BinOp::Lt => Ok(Val::Bool(compare(a, b).map_err(EvalError::new)? == Ordering::Less)),
            BinOp::Le => Ok(Val::Bool(compare(a, b).map_err(EvalError::new)? != Ordering::Greater)),
            BinOp::Gt => Ok(Val::Bool(compare(a, b).map_err(EvalError::new)? == Ordering::Greater)),
            BinOp::Ge => Ok(Val::Bool(compare(a, b).map_err(EvalError::new)? != Ordering::Less)),
            BinOp::In => match b {
                Val::List(items) => {
                    self.charge(items.len() as u64)?;
                    Ok(Val::Bool(items.iter().any(|x| equals(x, a))))
                }
                Val::Map(m) => Ok(Val::Bool(Key::from_val(a).is_some_and(|k| m.contains_key(&k)))),
                _ => Err(no_overload()),
            },
            BinOp::Add => match (a, b) {
                (Val::Str(x), Val::Str(y)) => {
                    self.charge((x.len() + y.len()) as u64)?;
                    Ok(Val::str(&format!("{x}{y}")))
                }
                (Val::Bytes(x), Val::Bytes(y)) => {
                    self.charge((x.len() + y.len()) as u64)?;
                    Ok(Val::Bytes(x.iter().chain(y.iter()).copied().collect::<Vec<u8>>().into()))
                }
                (Val::List(x), Val::List(y)) => {
                    self.charge((x.len() + y.len()) as u64)?;
                    Ok(Val::list(x.iter().chain(y.iter()).cloned().collect()))
                }
                _ => arith(op, a, b),
            },
            _ => arith(op, a, b),
        }
    }

    #[inline(never)]
    fn comprehension(&mut self, c: &Comprehension) -> R {
        let range = self.eval(&c.range)?;
        let items: Vec<Val> = match &range {
            Val::List(l) => l.as_ref().clone(),
            Val::Map(m) => m.keys().map(Key::to_val).collect(),
            _ => return Err(no_overload()),
        };
        self.charge(items.len() as u64)?;
        let mut first_error: Option<EvalError> = None;
        let mut count = 0usize;
        let mut out = Vec::new();
        for item in items {
            self.locals.push((c.var.clone(), item.clone()));
            let step = self.eval(&c.step);
            let step = match (c.kind, c.transform.as_ref(), step) {
                (MacroKind::Map, Some(t), Ok(Val::Bool(true))) => self.eval(t).map(Some),
                (MacroKind::Map, Some(_), Ok(Val::Bool(false))) => Ok(None),
                (MacroKind::Map, Some(_), Ok(_)) => Err(no_overload()),
                (_, _, s) => s.map(Some),
            };
            self.locals.pop();
            match c.kind {
                MacroKind::All | MacroKind::Exists => {
                    let decisive = c.kind == MacroKind::Exists;
                    match step {
                        Ok(Some(Val::Bool(b))) if b == decisive => return Ok(Val::Bool(decisive)),
                        Ok(Some(Val::Bool(_))) => {}
                        Ok(_) => {
                            first_error.get_or_insert_with(no_overload);
                        }
                        Err(e) if e.cost_exceeded => return Err(e),
                        Err(e) => {
                            first_error.get_or_insert(e);
                        }
                    }
                }
                MacroKind::ExistsOne => match step? {
                    Some(Val::Bool(true)) => count += 1,
                    Some(Val::Bool(false)) => {}
                    _ => return Err(no_overload()),
                },
                MacroKind::Map => {
                    if let Some(v) = step? {
                        out.push(v);
                    }
                }
                MacroKind::Filter => match step? {
                    Some(Val::Bool(true)) => out.push(item),
                    Some(Val::Bool(false)) => {}
                    _ => return Err(no_overload()),
                },
            }
        }
        match c.kind {
            MacroKind::All | MacroKind::Exists => match first_error {
                Some(e) => Err(e),
                None => Ok(Val::Bool(c.kind == MacroKind::All)),
            },
            MacroKind::ExistsOne => Ok(Val::Bool(count == 1)),
            MacroKind::Map | MacroKind::Filter => {
                self.charge(out.len() as u64)?;
                Ok(Val::list(out))
            }
        }
    }

    fn regex(&mut self, pattern: &str) -> Result<Rc<Regex>, EvalError> {
        if let Some(r) = self.regexes.borrow().get(pattern) {
            return Ok(r.clone());
        }
        self.charge(pattern.len() as u64)?;
        let re = regex_lite::RegexBuilder::new(pattern)
            .size_limit(REGEX_SIZE_LIMIT)
            .nest_limit(100)
            .build()
            .map_err(|e| EvalError::new(format!("error parsing regexp: {e}")))?;
        let re = Rc::new(re);
        self.regexes.borrow_mut().insert(pattern.to_string(), re.clone());
        Ok(re)
    }

    fn call_global(&mut self, name: &str, args: &[Val]) -> R {
        match (name, args) {
            ("size", [x]) => size(x),
            ("int", [x]) => to_int(x),
            ("uint", [x]) => to_uint(x),
            ("double", [x]) => to_double(x),
            ("string", [x]) => to_string(x),
            ("bool", [x]) => to_bool(x),
            ("bytes", [x]) => match x {
                Val::Str(s) => Ok(Val::Bytes(Rc::from(s.as_bytes()))),
                Val::Bytes(_) => Ok(x.clone()),
                other => Err(conversion(other, "bytes")),
            },
            ("type", [x]) => Ok(Val::Type(x.type_name())),
            ("dyn", [x]) => Ok(x.clone()),
            ("matches", [Val::Str(s), Val::Str(re)]) => {
                let re = self.regex(re)?;
                self.charge(s.len() as u64)?;
                Ok(Val::Bool(re.is_match(s)))
            }
            ("quantity", [Val::Str(s)]) => {
                parse_quantity(s).map(|q| Val::Quantity(Rc::new(q))).map_err(|e| EvalError::new(e.to_string()))
            }
            ("isQuantity", [Val::Str(s)]) => Ok(Val::Bool(parse_quantity(s).is_ok())),
            ("sets.contains", [Val::List(a), Val::List(b)]) => {
                self.charge((a.len() * b.len()) as u64)?;
                Ok(Val::Bool(b.iter().all(|x| a.iter().any(|y| equals(x, y)))))
            }
            ("sets.intersects", [Val::List(a), Val::List(b)]) => {
                self.charge((a.len() * b.len()) as u64)?;
                Ok(Val::Bool(b.iter().any(|x| a.iter().any(|y| equals(x, y)))))
            }
            ("sets.equivalent", [Val::List(a), Val::List(b)]) => {
                self.charge((a.len() * b.len()) as u64)?;
                let contains = |p: &Vec<Val>, q: &Vec<Val>| q.iter().all(|x| p.iter().any(|y| equals(x, y)));
                Ok(Val::Bool(contains(a, b) && contains(b, a)))
            }
            _ => Err(no_overload()),
        }
    }

    fn call_method(&mut self, name: &str, recv: &Val, args: &[Val]) -> R {
        self.charge(recv.size_hint())?;
        match (recv, name, args) {
            (_, "size", []) => size(recv),
            (Val::Str(s), _, _) => self.string_method(s, name, args),
            (Val::List(l), _, _) => self.list_method(l, name, args),
            (Val::Quantity(q), _, _) => quantity_method(q, name, args),
            _ => Err(no_overload()),
        }
    }

    fn string_method(&mut self, s: &str, name: &str, args: &[Val]) -> R {
        let chars = || s.chars().collect::<Vec<char>>();
        match (name, args) {
            ("contains", [Val::Str(x)]) => Ok(Val::Bool(s.contains(x.as_ref()))),
            ("startsWith", [Val::Str(x)]) => Ok(Val::Bool(s.starts_with(x.as_ref()))),
            ("endsWith", [Val::Str(x)]) => Ok(Val::Bool(s.ends_with(x.as_ref()))),
            ("matches", [Val::Str(re)]) => {
                let re = self.regex(re)?;
                Ok(Val::Bool(re.is_match(s)))
            }
            ("find", [Val::Str(re)]) => {
                let re = self.regex(re)?;
                Ok(Val::str(re.find(s).map_or("", |m| m.as_str())))
            }
            ("findAll", [Val::Str(re)]) => {
                let re = self.regex(re)?;
                Ok(Val::list(re.find_iter(s).map(|m| Val::str(m.as_str())).collect()))
            }
            ("findAll", [Val::Str(re), Val::Int(n)]) => {
                let re = self.regex(re)?;
                let take = if *n < 0 { usize::MAX } else { *n as usize };
                Ok(Val::list(re.find_iter(s).take(take).map(|m| Val::str(m.as_str())).collect()))
            }
            ("lowerAscii", []) => Ok(Val::str(&s.to_ascii_lowercase())),
            ("upperAscii", []) => Ok(Val::str(&s.to_ascii_uppercase())),
            ("trim", []) => Ok(Val::str(s.trim())),
            ("split", [Val::Str(sep)]) => Ok(split(s, sep, -1)),
            ("split", [Val::Str(sep), Val::Int(n)]) => Ok(split(s, sep, *n)),
            ("replace", [Val::Str(old), Val::Str(new)]) => {
                self.charge(replaced_len(s, old, new, -1))?;
                Ok(Val::str(&replace_n(s, old, new, -1)))
            }
            ("replace", [Val::Str(old), Val::Str(new), Val::Int(n)]) => {
                self.charge(replaced_len(s, old, new, *n))?;
                Ok(Val::str(&replace_n(s, old, new, *n)))
            }
            ("charAt", [Val::Int(i)]) => {
                let cs = chars();
                match usize::try_from(*i) {
                    Ok(i) if i == cs.len() => Ok(Val::str("")),
                    Ok(i) if i < cs.len() => Ok(Val::str(&cs[i].to_string())),
                    _ => Err(EvalError::new(format!("index out of range: {i}"))),
                }
            }
            ("substring", [Val::Int(start)]) => {
                let cs = chars();
                substring(&cs, *start, cs.len() as i64)
            }
            ("substring", [Val::Int(start), Val::Int(end)]) => substring(&chars(), *start, *end),
            ("indexOf", [Val::Str(sub)]) => Ok(Val::Int(index_of(&chars(), sub, 0, false)?)),
            ("indexOf", [Val::Str(sub), Val::Int(off)]) => Ok(Val::Int(index_of(&chars(), sub, *off, false)?)),
            ("lastIndexOf", [Val::Str(sub)]) => {
                let cs = chars();
                let end = cs.len() as i64;
                Ok(Val::Int(index_of(&cs, sub, end, true)?))
            }
            ("lastIndexOf", [Val::Str(sub), Val::Int(off)]) => Ok(Val::Int(index_of(&chars(), sub, *off, true)?)),
            _ => Err(no_overload()),
        }
    }

    fn list_method(&mut self, l: &[Val], name: &str, args: &[Val]) -> R {
        match (name, args) {
            ("join", []) => join(l, ""),
            ("join", [Val::Str(sep)]) => {
                self.charge((l.len() as u64).saturating_mul(sep.len() as u64))?;
                join(l, sep)
            }
            ("isSorted", []) => {
                for w in l.windows(2) {
                    if compare(&w[0], &w[1]).map_err(EvalError::new)? == Ordering::Greater {
                        return Ok(Val::Bool(false));
                    }
                }
                Ok(Val::Bool(true))
            }
            ("sum", []) => {
                let mut acc = match l.first() {
                    Some(Val::Double(_)) => Val::Double(0.0),
                    Some(Val::Uint(_)) => Val::Uint(0),
                    _ => Val::Int(0),
                };
                for x in l {
                    acc = arith(BinOp::Add, &acc, x)?;
                }
                Ok(acc)
            }
            ("min" | "max", []) => {
                let Some(mut best) = l.first().cloned() else {
                    return Err(EvalError::new(format!("{name} called on empty list")));
                };
                for x in &l[1..] {
                    let ord = compare(x, &best).map_err(EvalError::new)?;
                    if (name == "min" && ord == Ordering::Less) || (name == "max" && ord == Ordering::Greater) {
                        best = x.clone();
                    }
                }
                Ok(best)
            }
            ("indexOf", [x]) => Ok(Val::Int(l.iter().position(|y| equals(x, y)).map_or(-1, |i| i as i64))),
            ("lastIndexOf", [x]) => Ok(Val::Int(l.iter().rposition(|y| equals(x, y)).map_or(-1, |i| i as i64))),
            _ => Err(no_overload()),
        }
    }
}

fn literal(e: &Expr) -> Val {
    match e {
        Expr::Bool(b) => Val::Bool(*b),
        Expr::Int(i) => Val::Int(*i),
        Expr::Uint(u) => Val::Uint(*u),
        Expr::Double(d) => Val::Double(*d),
        Expr::Str(s) => Val::str(s),
        Expr::Bytes(b) => Val::Bytes(Rc::from(b.as_slice())),
        _ => Val::Null,
    }
}

fn overflow() -> EvalError {
    EvalError::new("integer overflow")
}

fn uoverflow() -> EvalError {
    EvalError::new("unsigned integer overflow")
}

fn arith(op: BinOp, a: &Val, b: &Val) -> R {
    match (a, b) {
        (Val::Int(x), Val::Int(y)) => {
            let (x, y) = (*x, *y);
            let r = match op {
                BinOp::Add => x.checked_add(y),
                BinOp::Sub => x.checked_sub(y),
                BinOp::Mul => x.checked_mul(y),
                BinOp::Div => {
                    if y == 0 {
                        return Err(EvalError::new("division by zero"));
                    }
                    x.checked_div(y)
                }
                BinOp::Rem => {
                    if y == 0 {
                        return Err(EvalError::new("modulus by zero"));
                    }
                    x.checked_rem(y)
                }
                _ => return Err(no_overload()),
            };
            r.map(Val::Int).ok_or_else(overflow)
        }
        (Val::Uint(x), Val::Uint(y)) => {
            let (x, y) = (*x, *y);
            let r = match op {
                BinOp::Add => x.checked_add(y),
                BinOp::Sub => x.checked_sub(y),
                BinOp::Mul => x.checked_mul(y),
                BinOp::Div => {
                    if y == 0 {
                        return Err(EvalError::new("division by zero"));
                    }
                    Some(x / y)
                }
                BinOp::Rem => {
                    if y == 0 {
                        return Err(EvalError::new("modulus by zero"));
                    }
                    Some(x % y)
                }
                _ => return Err(no_overload()),
            };
            r.map(Val::Uint).ok_or_else(uoverflow)
        }
        (Val::Double(x), Val::Double(y)) => Ok(Val::Double(match op {
            BinOp::Add => x + y,
            BinOp::Sub => x - y,
            BinOp::Mul => x * y,
            BinOp::Div => x / y,
            _ => return Err(no_overload()),
        })),
        _ => Err(no_overload()),
    }
}

fn select(v: &Val, field: &str) -> R {
    match v {
        Val::Map(m) => {
            let key = Key::Str(Rc::from(field));
            m.get(&key).cloned().ok_or_else(|| EvalError::new(format!("no such key: {field}")))
        }
        Val::List(_) => Err(EvalError::new("unsupported index type 'string' in list")),
        _ => Err(EvalError::new(format!("no such key: {field}"))),
    }
}

fn index_value(v: &Val, i: &Val) -> R {
    match v {
        Val::List(l) => {
            let idx = match i {
                Val::Int(n) => *n,
                Val::Uint(u) => i64::try_from(*u).unwrap_or(i64::MAX),
                Val::Double(d) if d.fract() == 0.0 => *d as i64,
                Val::Double(d) => return Err(EvalError::new(format!("unsupported index value {d} in list"))),
                other => return Err(EvalError::new(format!("unsupported index type '{}' in list", other.type_name()))),
            };
            usize::try_from(idx)
                .ok()
                .and_then(|u| l.get(u))
                .cloned()
                .ok_or_else(|| EvalError::new(format!("index out of bounds: {idx}")))
        }
        Val::Map(m) => {
            let missing = || match i {
                Val::Str(s) => EvalError::new(format!("no such key: {s}")),
                Val::Double(d) => EvalError::new(format!("no such key: {}", format_double(*d))),
                other => EvalError::new(format!(
                    "no such key: {}",
                    Key::from_val(other).map_or_else(String::new, |k| k.to_string())
                )),
            };
            Key::from_val(i).and_then(|k| m.get(&k)).cloned().ok_or_else(missing)
        }
        _ => Err(no_overload()),
    }
}

fn size(x: &Val) -> R {
    Ok(Val::Int(match x {
        Val::Str(s) => s.chars().count() as i64,
        Val::Bytes(b) => b.len() as i64,
        Val::List(l) => l.len() as i64,
        Val::Map(m) => m.len() as i64,
        _ => return Err(no_overload()),
    }))
}

fn conversion(from: &Val, to: &str) -> EvalError {
    EvalError::new(format!("type conversion error from '{}' to '{to}'", from.type_name()))
}

fn to_int(x: &Val) -> R {
    match x {
        Val::Int(_) => Ok(x.clone()),
        Val::Uint(u) => i64::try_from(*u).map(Val::Int).map_err(|_| overflow()),
        Val::Double(d) => {
            if d.is_nan() || *d <= i64::MIN as f64 || *d >= i64::MAX as f64 {
                Err(overflow())
            } else {
                Ok(Val::Int(*d as i64))
            }
        }
        Val::Str(s) => go_parse_int(s).map(Val::Int).ok_or_else(|| conversion(x, "int")),
        other => Err(conversion(other, "int")),
    }
}

fn to_uint(x: &Val) -> R {
    match x {
        Val::Uint(_) => Ok(x.clone()),
        Val::Int(i) => u64::try_from(*i).map(Val::Uint).map_err(|_| uoverflow()),
        Val::Double(d) => {
            if d.is_nan() || *d < 0.0 || *d >= u64::MAX as f64 {
                Err(uoverflow())
            } else {
                Ok(Val::Uint(*d as u64))
            }
        }
        Val::Str(s) => {
            let ok = !s.is_empty() && s.bytes().all(|c| c.is_ascii_digit());
            ok.then(|| s.parse::<u64>().ok()).flatten().map(Val::Uint).ok_or_else(|| conversion(x, "uint"))
        }
        other => Err(conversion(other, "uint")),
    }
}

fn to_double(x: &Val) -> R {
    match x {
        Val::Double(_) => Ok(x.clone()),
        Val::Int(i) => Ok(Val::Double(*i as f64)),
        Val::Uint(u) => Ok(Val::Double(*u as f64)),
        Val::Str(s) => s.parse::<f64>().map(Val::Double).map_err(|_| conversion(x, "double")),
        other => Err(conversion(other, "double")),
    }
}

fn to_string(x: &Val) -> R {
    match x {
        Val::Str(_) => Ok(x.clone()),
        Val::Int(i) => Ok(Val::str(&i.to_string())),
        Val::Uint(u) => Ok(Val::str(&u.to_string())),
        Val::Double(d) => Ok(Val::str(&format_double(*d))),
        Val::Bool(b) => Ok(Val::str(if *b { "true" } else { "false" })),
        Val::Bytes(b) => std::str::from_utf8(b).map(Val::str).map_err(|_| conversion(x, "string")),
        Val::Type(t) => Ok(Val::str(t)),
        other => Err(conversion(other, "string")),
    }
}

fn to_bool(x: &Val) -> R {
    match x {
        Val::Bool(_) => Ok(x.clone()),
        Val::Str(s) => match s.as_ref() {
            "1" | "t" | "T" | "TRUE" | "true" | "True" => Ok(Val::Bool(true)),
            "0" | "f" | "F" | "FALSE" | "false" | "False" => Ok(Val::Bool(false)),
            _ => Err(conversion(x, "bool")),
        },
        other => Err(conversion(other, "bool")),
    }
}

/// Go's `strconv.ParseInt(s, 10, 64)`.
fn go_parse_int(s: &str) -> Option<i64> {
    let digits = s.strip_prefix(['+', '-']).unwrap_or(s);
    if digits.is_empty() || !digits.bytes().all(|c| c.is_ascii_digit()) {
        return None;
    }
    s.parse::<i64>().ok()
}

fn split(s: &str, sep: &str, n: i64) -> Val {
    if n == 0 {
        return Val::list(Vec::new());
    }
    let parts: Vec<Val> = if sep.is_empty() {
        let cs: Vec<char> = s.chars().collect();
        let limit = if n < 0 { cs.len() } else { (n as usize).min(cs.len()) };
        let mut out: Vec<Val> = cs.iter().take(limit.saturating_sub(1)).map(|c| Val::str(&c.to_string())).collect();
        if limit > 0 {
            let rest: String = cs.iter().skip(limit - 1).collect();
            out.push(Val::str(&rest));
        }
        out
    } else if n < 0 {
        s.split(sep).map(Val::str).collect()
    } else {
        s.splitn(n as usize, sep).map(Val::str).collect()
    };
    Val::list(parts)
}

/// The length of `replace`'s result, charged before it is built (an empty pattern matches between every
/// character, so a long replacement could otherwise make a huge string).
fn replaced_len(s: &str, old: &str, new: &str, n: i64) -> u64 {
    let found = if old.is_empty() { s.chars().count() + 1 } else { s.matches(old).count() };
    let count = if n < 0 { found } else { found.min(n as usize) };
    (s.len() as u64).saturating_add((count as u64).saturating_mul(new.len() as u64))
}

fn replace_n(s: &str, old: &str, new: &str, n: i64) -> String {
    if n < 0 {
        s.replace(old, new)
    } else {
        s.replacen(old, new, n as usize)
    }
}

fn substring(cs: &[char], start: i64, end: i64) -> R {
    let len = cs.len() as i64;
    if start < 0 || start > len {
        return Err(EvalError::new(format!("index out of range: {start}")));
    }
    if end < 0 || end > len {
        return Err(EvalError::new(format!("index out of range: {end}")));
    }
    if start > end {
        return Err(EvalError::new(format!("invalid substring range. start: {start}, end: {end}")));
    }
    Ok(Val::str(&cs[start as usize..end as usize].iter().collect::<String>()))
}

/// `indexOf` / `lastIndexOf` over code points; `offset` is where the search starts (or, backwards, ends).
fn index_of(cs: &[char], sub: &str, offset: i64, last: bool) -> Result<i64, EvalError> {
    let len = cs.len() as i64;
    if offset < 0 || offset > len {
        return Err(EvalError::new(format!("index out of range: {offset}")));
    }
    let sub: Vec<char> = sub.chars().collect();
    let m = sub.len() as i64;
    if last {
        let mut i = offset.min(len - m);
        while i >= 0 {
            if cs[i as usize..(i + m) as usize] == sub[..] {
                return Ok(i);
            }
            i -= 1;
        }
        return Ok(-1);
    }
    let mut i = offset;
    while i + m <= len {
        if cs[i as usize..(i + m) as usize] == sub[..] {
            return Ok(i);
        }
        i += 1;
    }
    Ok(-1)
}

fn join(l: &[Val], sep: &str) -> R {
    let mut parts = Vec::with_capacity(l.len());
    for x in l {
        match x {
            Val::Str(s) => parts.push(s.to_string()),
            _ => return Err(no_overload()),
        }
    }
    Ok(Val::str(&parts.join(sep)))
}

fn quantity_arg(v: &Val) -> Result<Quantity, EvalError> {
    match v {
        Val::Quantity(q) => Ok(q.as_ref().clone()),
        Val::Int(i) => Ok(Quantity::count(*i)),
        _ => Err(no_overload()),
    }
}

fn quantity_method(q: &Quantity, name: &str, args: &[Val]) -> R {
    let ord = |o: &Val| -> Result<Ordering, EvalError> {
        match o {
            Val::Quantity(p) => Ok(q.nanos().cmp(&p.nanos())),
            _ => Err(no_overload()),
        }
    };
    match (name, args) {
        ("isGreaterThan", [o]) => Ok(Val::Bool(ord(o)? == Ordering::Greater)),
        ("isLessThan", [o]) => Ok(Val::Bool(ord(o)? == Ordering::Less)),
        ("compareTo", [o]) => Ok(Val::Int(match ord(o)? {
            Ordering::Less => -1,
            Ordering::Equal => 0,
            Ordering::Greater => 1,
        })),
        ("sign", []) => Ok(Val::Int(q.nanos().signum() as i64)),
        ("isInteger", []) => Ok(Val::Bool(q.nanos() % 1_000_000_000 == 0 && i64::try_from(q.value()).is_ok())),
        ("asInteger", []) => {
            if q.nanos() % 1_000_000_000 != 0 {
                return Err(EvalError::new("cannot convert value to integer"));
            }
            i64::try_from(q.value()).map(Val::Int).map_err(|_| EvalError::new("cannot convert value to integer"))
        }
        ("asApproximateFloat", []) => Ok(Val::Double(q.nanos() as f64 / 1e9)),
        ("add", [o]) => Ok(Val::Quantity(Rc::new(q.plus(&quantity_arg(o)?)))),
        ("sub", [o]) => Ok(Val::Quantity(Rc::new(q.minus(&quantity_arg(o)?)))),
        _ => Err(no_overload()),
    }
}
