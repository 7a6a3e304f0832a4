//! The CEL lexer: turns an expression into tokens with their line and column (columns count Unicode code
//! points, as CEL's error locations do). Handles decimal and hexadecimal integers, `u`-suffixed unsigned
//! integers, doubles with exponents, the four string quotings (`'…'`, `"…"`, `'''…'''`, `"""…"""`), raw
//! (`r'…'`) and byte (`b'…'`) strings with CEL's escapes, `//` comments, and every operator of the grammar.

use super::Pos;

/// One token.
#[derive(Debug, Clone, PartialEq)]
pub enum Tok {
    /// A decimal or hexadecimal integer literal, still unsigned: the parser applies a leading minus.
    Int(u64),
    Uint(u64),
    Double(f64),
    Str(String),
    Bytes(Vec<u8>),
    Ident(String),
    True,
    False,
    Null,
    In,
    LParen,
    RParen,
    LBracket,
    RBracket,
    LBrace,
    RBrace,
    Dot,
    Comma,
    Colon,
    Question,
    Not,
    Minus,
    Plus,
    Star,
    Slash,
    Percent,
    Lt,
    Le,
    Gt,
    Ge,
    EqEq,
    Ne,
    And,
    Or,
    Eof,
}

impl Tok {
    /// How the token reads in a syntax error (`'<EOF>'`, `')'`).
    pub fn describe(&self) -> String {
        let s = match self {
            Tok::Int(n) | Tok::Uint(n) => return format!("'{n}'"),
            Tok::Double(d) => return format!("'{d}'"),
            Tok::Str(_) | Tok::Bytes(_) => return "a string literal".to_string(),
            Tok::Ident(name) => return format!("'{name}'"),
            Tok::True => "true",
            Tok::False => "false",
            Tok::Null => "null",
            Tok::In => "in",
            Tok::LParen => "(",
            Tok::RParen => ")",
            Tok::LBracket => "[",
            Tok::RBracket => "]",
            Tok::LBrace => "{",
            Tok::RBrace => "}",
            Tok::Dot => ".",
            Tok::Comma => ",",
            Tok::Colon => ":",
            Tok::Question => "?",
            Tok::Not => "!",
            Tok::Minus => "-",
            Tok::Plus => "+",
            Tok::Star => "*",
            Tok::Slash => "/",
            Tok::Percent => "%",
            Tok::Lt => "<",
            Tok::Le => "<=",
            Tok::Gt => ">",
            Tok::Ge => ">=",
            Tok::EqEq => "==",
            Tok::Ne => "!=",
            Tok::And => "&&",
            Tok::Or => "||",
            Tok::Eof => "<EOF>",
        };
        format!("'{s}'")
    }
}

#[derive(Debug, Clone, PartialEq)]
pub struct Token {
    pub tok: Tok,
    pub pos: Pos,
}

/// A lexical error: where and what.
#[derive(Debug, Clone, PartialEq)]
pub struct LexError {
    pub pos: Pos,
    pub message: String,
}

struct Lexer {
    chars: Vec<char>,
    i: usize,
    line: u32,
    col: u32,
}

impl Lexer {
    fn peek(&self, ahead: usize) -> Option<char> {
        self.chars.get(self.i + ahead).copied()
    }

    fn bump(&mut self) -> Option<char> {
        let c = self.chars.get(self.i).copied()?;
        self.i += 1;
        if c == '\n' {
            self.line += 1;
            self.col = 0;
        } else {
            self.col += 1;
        }
        Some(c)
    }

    fn pos(&self) -> Pos {
        Pos { line: self.line, col: self.col }
    }

    fn err(&self, pos: Pos, message: impl Into<String>) -> LexError {
        LexError { pos, message: message.into() }
    }

    fn skip_space_and_comments(&mut self) {
        loop {
            match self.peek(0) {
                Some(' ' | '\t' | '\n' | '\r' | '\u{c}') => {
                    self.bump();
                }
                Some('/') if self.peek(1) == Some('/') => {
                    while let Some(c) = self.peek(0) {
                        if c == '\n' {
                            break;
                        }
                        self.bump();
                    }
                }
                _ => return,
            }
        }
    }

    fn number(&mut self, start: Pos) -> Result<Tok, LexError> {
        if self.peek(0) == Some('0') && matches!(self.peek(1), Some('x' | 'X')) {
            self.bump();
            self.bump();
            let mut digits = String::new();
            while let Some(c) = self.peek(0).filter(char::is_ascii_hexdigit) {
                digits.push(c);
                self.bump();
            }
            let value = u64::from_str_radix(&digits, 16).map_err(|_| self.err(start, "invalid int literal"))?;
            if matches!(self.peek(0), Some('u' | 'U')) {
                self.bump();
                return Ok(Tok::Uint(value));
            }
            return Ok(Tok::Int(value));
        }
        let mut text = String::new();
        while let Some(c) = self.peek(0).filter(char::is_ascii_digit) {
            text.push(c);
            self.bump();
        }
        let mut is_double = false;
        if self.peek(0) == Some('.') && self.peek(1).is_some_and(|c| c.is_ascii_digit()) {
            is_double = true;
            text.push('.');
            self.bump();
            while let Some(c) = self.peek(0).filter(char::is_ascii_digit) {
                text.push(c);
                self.bump();
            }
        }
        if matches!(self.peek(0), Some('e' | 'E')) {
            let sign = matches!(self.peek(1), Some('+' | '-'));
            let digit_at = if sign { 2 } else { 1 };
            if self.peek(digit_at).is_some_and(|c| c.is_ascii_digit()) {
                is_double = true;
                for _ in 0..digit_at {
                    if let Some(c) = self.bump() {
                        text.push(c);
                    }
                }
                while let Some(c) = self.peek(0).filter(char::is_ascii_digit) {
                    text.push(c);
                    self.bump();
                }
            }
        }
        if is_double {
            return text.parse::<f64>().map(Tok::Double).map_err(|_| self.err(start, "invalid double literal"));
        }
        let value = text.parse::<u64>().map_err(|_| self.err(start, "invalid int literal"))?;
        if matches!(self.peek(0), Some('u' | 'U')) {
            self.bump();
            return Ok(Tok::Uint(value));
        }
        Ok(Tok::Int(value))
    }

    /// A quoted literal after its prefix letters; `raw` disables escapes.
    fn quoted(&mut self, start: Pos, raw: bool) -> Result<Vec<u8>, LexError> {
        let quote = self.bump().unwrap_or('\'');
        let triple = self.peek(0) == Some(quote) && self.peek(1) == Some(quote);
        if triple {
            self.bump();
            self.bump();
        }
        let mut out: Vec<u8> = Vec::new();
        loop {
            let Some(c) = self.peek(0) else {
                return Err(self.err(start, "token recognition error: unterminated string literal"));
            };
            if c == quote {
                if !triple {
                    self.bump();
                    return Ok(out);
                }
                if self.peek(1) == Some(quote) && self.peek(2) == Some(quote) {
                    self.bump();
                    self.bump();
                    self.bump();
                    return Ok(out);
                }
            }
            if !triple && (c == '\n' || c == '\r') {
                return Err(self.err(start, "token recognition error: newline in string literal"));
            }
            if c == '\\' && !raw {
                let at = self.pos();
                self.bump();
                self.escape(at, &mut out)?;
                continue;
            }
            self.bump();
            let mut buf = [0u8; 4];
            out.extend_from_slice(c.encode_utf8(&mut buf).as_bytes());
        }
    }

    fn hex_digits(&mut self, n: usize, at: Pos) -> Result<u32, LexError> {
        let mut v: u32 = 0;
        for _ in 0..n {
            let d = self.peek(0).and_then(|c| c.to_digit(16)).ok_or_else(|| self.err(at, "invalid escape sequence"))?;
            self.bump();
            v = v.wrapping_mul(16).wrapping_add(d);
        }
        Ok(v)
    }

    fn escape(&mut self, at: Pos, out: &mut Vec<u8>) -> Result<(), LexError> {
        let Some(c) = self.bump() else {
            return Err(self.err(at, "invalid escape sequence"));
        };
        let simple = match c {
            'a' => Some(7u8),
            'b' => Some(8),
            'f' => Some(12),
            'n' => Some(b'\n'),
            'r' => Some(b'\r'),
            't' => Some(b'\t'),
            'v' => Some(11),
            '\\' => Some(b'\\'),
            '\'' => Some(b'\''),
            '"' => Some(b'"'),
            '`' => Some(b'`'),
            '?' => Some(b'?'),
            _ => None,
        };
        if let Some(b) = simple {
            out.push(b);
            return Ok(());
        }
        let code = match c {
            'x' | 'X' => self.hex_digits(2, at)?,
            'u' => self.hex_digits(4, at)?,
            'U' => self.hex_digits(8, at)?,
            '0'..='3' => {
                let mut v = c.to_digit(8).unwrap_or(0);
                for _ in 0..2 {
                    let d = self
                        .peek(0)
                        .and_then(|c| c.to_digit(8))
                        .ok_or_else(|| self.err(at, "invalid escape sequence"))?;
                    self.bump();
                    v = v * 8 + d;
                }
                v
            }
            _ => return Err(self.err(at, "invalid escape sequence")),
        };
        let ch = char::from_u32(code).ok_or_else(|| self.err(at, "invalid unicode code point"))?;
        let mut buf = [0u8; 4];
        out.extend_from_slice(ch.encode_utf8(&mut buf).as_bytes());
        Ok(())
    }
}

/// Splits `source` into tokens, ending with [`Tok::Eof`].
pub fn tokenize(source: &str) -> Result<Vec<Token>, LexError> {
    let mut lx = Lexer { chars: source.chars().collect(), i: 0, line: 1, col: 0 };
    let mut out = Vec::new();
    loop {
        lx.skip_space_and_comments();
        let pos = lx.pos();
        let Some(c) = lx.peek(0) else {
            out.push(Token { tok: Tok::Eof, pos });
            return Ok(out);
        };
        let tok = match c {
            '0'..='9' => lx.number(pos)?,
            '.' if lx.peek(1).is_some_and(|d| d.is_ascii_digit()) => lx.number(pos)?,
            '\'' | '"' => {
                let bytes = lx.quoted(pos, false)?;
                Tok::Str(String::from_utf8(bytes).map_err(|_| lx.err(pos, "invalid UTF-8 in string literal"))?)
            }
            c if c.is_ascii_alphabetic() || c == '_' => {
                // String prefixes: r, R, b, B and their combinations.
                let mut j = 0;
                let mut raw = false;
                let mut bytes = false;
                while j < 2 {
                    match lx.peek(j) {
                        Some('r' | 'R') if !raw => raw = true,
                        Some('b' | 'B') if !bytes => bytes = true,
                        _ => break,
                    }
                    j += 1;
                }
                if j > 0 && matches!(lx.peek(j), Some('\'' | '"')) {
                    for _ in 0..j {
                        lx.bump();
                    }
                    let content = lx.quoted(pos, raw)?;
                    if bytes {
                        Tok::Bytes(content)
                    } else {
                        Tok::Str(
                            String::from_utf8(content).map_err(|_| lx.err(pos, "invalid UTF-8 in string literal"))?,
                        )
                    }
                } else {
                    let mut name = String::new();
                    while let Some(ch) = lx.peek(0).filter(|ch| ch.is_ascii_alphanumeric() || *ch == '_') {
                        name.push(ch);
                        lx.bump();
                    }
                    match name.as_str() {
                        "true" => Tok::True,
                        "false" => Tok::False,
                        "null" => Tok::Null,
                        "in" => Tok::In,
                        _ => Tok::Ident(name),
                    }
                }
            }
            _ => {
                let two = (c, lx.peek(1));
                let (tok, len) = match two {
                    ('<', Some('=')) => (Tok::Le, 2),
                    ('>', Some('=')) => (Tok::Ge, 2),
                    ('=', Some('=')) => (Tok::EqEq, 2),
                    ('!', Some('=')) => (Tok::Ne, 2),
                    ('&', Some('&')) => (Tok::And, 2),
                    ('|', Some('|')) => (Tok::Or, 2),
                    ('(', _) => (Tok::LParen, 1),
                    (')', _) => (Tok::RParen, 1),
                    ('[', _) => (Tok::LBracket, 1),
                    (']', _) => (Tok::RBracket, 1),
                    ('{', _) => (Tok::LBrace, 1),
                    ('}', _) => (Tok::RBrace, 1),
                    ('.', _) => (Tok::Dot, 1),
                    (',', _) => (Tok::Comma, 1),
                    (':', _) => (Tok::Colon, 1),
                    ('?', _) => (Tok::Question, 1),
                    ('!', _) => (Tok::Not, 1),
                    ('-', _) => (Tok::Minus, 1),
                    ('+', _) => (Tok::Plus, 1),
                    ('*', _) => (Tok::Star, 1),
                    ('/', _) => (Tok::Slash, 1),
                    ('%', _) => (Tok::Percent, 1),
                    ('<', _) => (Tok::Lt, 1),
                    ('>', _) => (Tok::Gt, 1),
                    (other, _) => {
                        return Err(lx.err(pos, format!("token recognition error at: '{other}'")));
                    }
                };
                for _ in 0..len {
                    lx.bump();
                }
                tok
            }
        };
        out.push(Token { tok, pos });
    }
}
