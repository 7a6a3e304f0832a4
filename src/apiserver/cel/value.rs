//! CEL values: null, bool, int, uint, double, string, bytes, list, map, type and Kubernetes' quantity, built
//! from the JSON form of API objects (integers become `int`, other numbers `double`), with CEL's
//! heterogeneous equality (`1 == 1u == 1.0`), its ordering rules and Go's renderings where they show in
//! messages (`%v` of a missing key, `%g` of a double).

use std::cmp::Ordering;
use std::collections::BTreeMap;
use std::rc::Rc;

use serde_json::Value;

use crate::apiserver::validation::Quantity;

/// A map key: CEL allows bool, int, uint and string keys; numeric keys that fit `int` are kept as `int`
/// so that `1`, `1u` and `1.0` find the same entry.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub enum Key {
    Bool(bool),
    Int(i64),
    Uint(u64),
    Str(Rc<str>),
}

impl Key {
    /// The key for a value, or None when the value cannot be a key (list, map, double with a fraction …).
    pub fn from_val(v: &Val) -> Option<Key> {
        Some(match v {
            Val::Bool(b) => Key::Bool(*b),
            Val::Int(i) => Key::Int(*i),
            Val::Uint(u) => match i64::try_from(*u) {
                Ok(i) => Key::Int(i),
                Err(_) => Key::Uint(*u),
            },
            Val::Double(d) if d.fract() == 0.0 && *d >= i64::MIN as f64 && *d < i64::MAX as f64 => Key::Int(*d as i64),
            Val::Str(s) => Key::Str(s.clone()),
            _ => return None,
        })
    }

    pub fn to_val(&self) -> Val {
        match self {
            Key::Bool(b) => Val::Bool(*b),
            Key::Int(i) => Val::Int(*i),
            Key::Uint(u) => Val::Uint(*u),
            Key::Str(s) => Val::Str(s.clone()),
        }
    }
}

impl std::fmt::Display for Key {
    /// Go's `%v` of the key (`no such key: foo`).
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Key::Bool(b) => write!(f, "{b}"),
            Key::Int(i) => write!(f, "{i}"),
            Key::Uint(u) => write!(f, "{u}"),
            Key::Str(s) => f.write_str(s),
        }
    }
}

/// A CEL value.
#[derive(Debug, Clone)]
pub enum Val {
    Null,
    Bool(bool),
    Int(i64),
    Uint(u64),
    Double(f64),
    Str(Rc<str>),
    Bytes(Rc<[u8]>),
    List(Rc<Vec<Val>>),
    Map(Rc<BTreeMap<Key, Val>>),
    /// A type value (`int`, `string`, `type(x)`), by its CEL name.
    Type(&'static str),
    Quantity(Rc<Quantity>),
}

impl Val {
    pub fn str(s: &str) -> Val {
        Val::Str(Rc::from(s))
    }

    pub fn list(items: Vec<Val>) -> Val {
        Val::List(Rc::new(items))
    }

    /// The CEL type name (`int`, `list`, `map`, `null_type`, …).
    pub fn type_name(&self) -> &'static str {
        match self {
            Val::Null => "null_type",
            Val::Bool(_) => "bool",
            Val::Int(_) => "int",
            Val::Uint(_) => "uint",
            Val::Double(_) => "double",
            Val::Str(_) => "string",
            Val::Bytes(_) => "bytes",
            Val::List(_) => "list",
            Val::Map(_) => "map",
            Val::Type(_) => "type",
            Val::Quantity(_) => "kubernetes.Quantity",
        }
    }

    /// An API object (or any JSON) as a CEL value.
    pub fn from_json(v: &Value) -> Val {
        match v {
            Value::Null => Val::Null,
            Value::Bool(b) => Val::Bool(*b),
            Value::Number(n) => match (n.as_i64(), n.as_u64()) {
                (Some(i), _) => Val::Int(i),
                (None, Some(u)) => Val::Uint(u),
                _ => Val::Double(n.as_f64().unwrap_or(0.0)),
            },
            Value::String(s) => Val::str(s),
            Value::Array(a) => Val::list(a.iter().map(Val::from_json).collect()),
            Value::Object(m) => {
                Val::Map(Rc::new(m.iter().map(|(k, v)| (Key::Str(Rc::from(k.as_str())), Val::from_json(v))).collect()))
            }
        }
    }

    /// A rough size for the cost accounting (characters, bytes or elements).
    pub fn size_hint(&self) -> u64 {
        match self {
            Val::Str(s) => s.len() as u64,
            Val::Bytes(b) => b.len() as u64,
            Val::List(l) => l.len() as u64,
            Val::Map(m) => m.len() as u64,
            _ => 1,
        }
    }
}

fn numeric(v: &Val) -> Option<f64> {
    match v {
        Val::Int(i) => Some(*i as f64),
        Val::Uint(u) => Some(*u as f64),
        Val::Double(d) => Some(*d),
        _ => None,
    }
}

/// CEL's heterogeneous equality: values of different types are unequal, except numbers, which compare by value.
pub fn equals(a: &Val, b: &Val) -> bool {
    match (a, b) {
        (Val::Null, Val::Null) => true,
        (Val::Bool(x), Val::Bool(y)) => x == y,
        (Val::Int(x), Val::Int(y)) => x == y,
        (Val::Uint(x), Val::Uint(y)) => x == y,
        (Val::Int(x), Val::Uint(y)) | (Val::Uint(y), Val::Int(x)) => u64::try_from(*x).is_ok_and(|x| x == *y),
        (Val::Str(x), Val::Str(y)) => x == y,
        (Val::Bytes(x), Val::Bytes(y)) => x == y,
        (Val::List(x), Val::List(y)) => x.len() == y.len() && x.iter().zip(y.iter()).all(|(p, q)| equals(p, q)),
        (Val::Map(x), Val::Map(y)) => {
            x.len() == y.len() && x.iter().all(|(k, v)| y.get(k).is_some_and(|w| equals(v, w)))
        }
        (Val::Type(x), Val::Type(y)) => x == y,
        (Val::Quantity(x), Val::Quantity(y)) => x == y,
        _ => match (numeric(a), numeric(b)) {
            (Some(x), Some(y)) => x == y,
            _ => false,
        },
    }
}

/// CEL's ordering (`<`, `<=`, …): numbers across types, strings, bytes, bools; anything else has no overload.
pub fn compare(a: &Val, b: &Val) -> Result<Ordering, String> {
    match (a, b) {
        (Val::Int(x), Val::Int(y)) => Ok(x.cmp(y)),
        (Val::Uint(x), Val::Uint(y)) => Ok(x.cmp(y)),
        (Val::Int(x), Val::Uint(y)) => Ok((*x as i128).cmp(&(*y as i128))),
        (Val::Uint(x), Val::Int(y)) => Ok((*x as i128).cmp(&(*y as i128))),
        (Val::Str(x), Val::Str(y)) => Ok(x.cmp(y)),
        (Val::Bytes(x), Val::Bytes(y)) => Ok(x.cmp(y)),
        (Val::Bool(x), Val::Bool(y)) => Ok(x.cmp(y)),
        _ => match (numeric(a), numeric(b)) {
            (Some(x), Some(y)) => x.partial_cmp(&y).ok_or_else(|| "NaN values cannot be ordered".to_string()),
            _ => Err("no such overload".to_string()),
        },
    }
}

/// Go's `%g` of a float64 (shortest representation; exponent form below 1e-4 and from 1e6 up).
pub fn format_double(d: f64) -> String {
    if d.is_nan() {
        return "NaN".to_string();
    }
    if d.is_infinite() {
        return if d > 0.0 { "+Inf".to_string() } else { "-Inf".to_string() };
    }
    if d == 0.0 {
        return if d.is_sign_negative() { "-0".to_string() } else { "0".to_string() };
    }
    let sci = format!("{d:e}");
    let (mantissa, exp) = sci.split_once('e').unwrap_or((&sci, "0"));
    let exp: i32 = exp.parse().unwrap_or(0);
    let negative = mantissa.starts_with('-');
    let digits: String = mantissa.chars().filter(char::is_ascii_digit).collect();
    let sign = if negative { "-" } else { "" };
    if !(-4..6).contains(&exp) {
        let (first, rest) = digits.split_at(1.min(digits.len()));
        let frac = if rest.is_empty() { String::new() } else { format!(".{rest}") };
        let esign = if exp < 0 { '-' } else { '+' };
        return format!("{sign}{first}{frac}e{esign}{:02}", exp.abs());
    }
    if exp < 0 {
        let zeros = "0".repeat((-exp - 1) as usize);
        return format!("{sign}0.{zeros}{digits}");
    }
    let point = exp as usize + 1;
    if digits.len() <= point {
        format!("{sign}{digits}{}", "0".repeat(point - digits.len()))
    } else {
        format!("{sign}{}.{}", &digits[..point], &digits[point..])
    }
}
