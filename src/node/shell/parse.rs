//! The shell's command line: words with bash's quoting (`'…'`, `"…"`, `\`), command substitution
//! `$(…)`, pipelines (`|`) and lists (`;`, `&&`, `||`). Redirections and background jobs are refused with
//! a clear message rather than misread.

/// One piece of a word: literal text, or a command whose output is substituted.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Part {
    Text(String),
    /// `$(…)`, and whether it stood inside double quotes (then it is not split into words).
    Subst {
        line: String,
        quoted: bool,
    },
}

/// A word before expansion.
pub type Word = Vec<Part>;

/// How a command of a list follows the one before it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Join {
    /// `;` (or the first command).
    Always,
    /// `&&`.
    IfOk,
    /// `||`.
    IfFailed,
}

/// `a | b | c`.
pub type Pipeline = Vec<Vec<Word>>;

/// A whole line: pipelines joined by `;`, `&&`, `||`.
pub type List = Vec<(Join, Pipeline)>;

#[derive(Debug, Clone, PartialEq, Eq)]
enum Token {
    Word(Word),
    Pipe,
    And,
    Or,
    Semi,
}

/// Parses a line; errors are bash's (`syntax error near unexpected token `|'`).
pub fn parse(line: &str) -> Result<List, String> {
    let tokens = tokenize(line)?;
    let mut list: List = Vec::new();
    let mut join = Join::Always;
    let mut pipeline: Pipeline = Vec::new();
    let mut command: Vec<Word> = Vec::new();
    let unexpected = |t: &str| format!("syntax error near unexpected token `{t}'");
    for token in tokens {
        match token {
            Token::Word(w) => command.push(w),
            Token::Pipe => {
                if command.is_empty() {
                    return Err(unexpected("|"));
                }
                pipeline.push(std::mem::take(&mut command));
            }
            Token::And | Token::Or | Token::Semi => {
                let text = match token {
                    Token::And => "&&",
                    Token::Or => "||",
                    _ => ";",
                };
                if command.is_empty() {
                    return Err(unexpected(text));
                }
                pipeline.push(std::mem::take(&mut command));
                list.push((join, std::mem::take(&mut pipeline)));
                join = match token {
                    Token::And => Join::IfOk,
                    Token::Or => Join::IfFailed,
                    _ => Join::Always,
                };
            }
        }
    }
    if command.is_empty() {
        if !pipeline.is_empty() || join != Join::Always {
            return Err("syntax error: unexpected end of file".into());
        }
    } else {
        pipeline.push(command);
        list.push((join, pipeline));
    }
    Ok(list)
}

fn tokenize(line: &str) -> Result<Vec<Token>, String> {
    let chars: Vec<char> = line.chars().collect();
    let mut tokens = Vec::new();
    let mut word: Word = Vec::new();
    let mut text = String::new();
    let mut in_word = false;
    let mut i = 0;
    let flush = |word: &mut Word, text: &mut String| {
        if !text.is_empty() {
            word.push(Part::Text(std::mem::take(text)));
        }
    };
    let end_word = |tokens: &mut Vec<Token>, word: &mut Word, text: &mut String, in_word: &mut bool| {
        if *in_word {
            if !text.is_empty() {
                word.push(Part::Text(std::mem::take(text)));
            }
            if word.is_empty() {
                word.push(Part::Text(String::new()));
            }
            tokens.push(Token::Word(std::mem::take(word)));
            *in_word = false;
        }
    };
    while i < chars.len() {
        let c = chars[i];
        match c {
            '\'' => {
                in_word = true;
                i += 1;
                loop {
                    match chars.get(i) {
                        Some('\'') => break,
                        Some(&x) => text.push(x),
                        None => return Err("unexpected EOF while looking for matching `''".into()),
                    }
                    i += 1;
                }
            }
            '"' => {
                in_word = true;
                i += 1;
                loop {
                    match chars.get(i) {
                        Some('"') => break,
                        Some('\\') => {
                            match chars.get(i + 1) {
                                Some(&x @ ('"' | '\\' | '$' | '`')) => text.push(x),
                                Some(&x) => {
                                    text.push('\\');
                                    text.push(x);
                                }
                                None => return Err("unexpected EOF while looking for matching `\"'".into()),
                            }
                            i += 1;
                        }
                        Some('$') if chars.get(i + 1) == Some(&'(') => {
                            let (inner, end) = substitution(&chars, i + 2)?;
                            flush(&mut word, &mut text);
                            word.push(Part::Subst { line: inner, quoted: true });
                            i = end;
                        }
                        Some(&x) => text.push(x),
                        None => return Err("unexpected EOF while looking for matching `\"'".into()),
                    }
                    i += 1;
                }
            }
            '\\' => {
                in_word = true;
                if let Some(&x) = chars.get(i + 1) {
                    text.push(x);
                    i += 1;
                }
            }
            '$' if chars.get(i + 1) == Some(&'(') => {
                in_word = true;
                let (inner, end) = substitution(&chars, i + 2)?;
                flush(&mut word, &mut text);
                word.push(Part::Subst { line: inner, quoted: false });
                i = end;
            }
            '|' | '&' | ';' => {
                end_word(&mut tokens, &mut word, &mut text, &mut in_word);
                let next = chars.get(i + 1).copied();
                let token = match (c, next) {
                    ('|', Some('|')) => {
                        i += 1;
                        Token::Or
                    }
                    ('&', Some('&')) => {
                        i += 1;
                        Token::And
                    }
                    ('|', _) => Token::Pipe,
                    (';', _) => Token::Semi,
                    _ => return Err("background jobs (`&') are not simulated by kubeglass's node shell".into()),
                };
                tokens.push(token);
            }
            '>' | '<' => {
                return Err(format!(
                    "redirections (`{c}') are not simulated by kubeglass's node shell; use mv, cp or a pipe instead"
                ))
            }
            '#' if !in_word => break,
            c if c.is_whitespace() => end_word(&mut tokens, &mut word, &mut text, &mut in_word),
            c => {
                in_word = true;
                text.push(c);
            }
        }
        i += 1;
    }
    end_word(&mut tokens, &mut word, &mut text, &mut in_word);
    Ok(tokens)
}

/// The text of `$(…)` starting after `$(` at `start`, and the index of its closing `)`.
fn substitution(chars: &[char], start: usize) -> Result<(String, usize), String> {
    let mut depth = 1;
    let mut quote: Option<char> = None;
    let mut i = start;
    while i < chars.len() {
        let c = chars[i];
        match (quote, c) {
            (Some(q), c) if c == q => quote = None,
            (Some(_), _) => {}
            (None, '\'' | '"') => quote = Some(c),
            (None, '(') => depth += 1,
            (None, ')') => {
                depth -= 1;
                if depth == 0 {
                    return Ok((chars[start..i].iter().collect(), i));
                }
            }
            _ => {}
        }
        i += 1;
    }
    Err("unexpected EOF while looking for matching `)'".into())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(line: &str) -> Vec<Vec<String>> {
        let list = parse(line).unwrap();
        list.into_iter()
            .flat_map(|(_, p)| p)
            .map(|cmd| {
                cmd.into_iter()
                    .map(|w| {
                        w.into_iter()
                            .map(|p| match p {
                                Part::Text(t) => t,
                                Part::Subst { line, .. } => format!("$({line})"),
                            })
                            .collect()
                    })
                    .collect()
            })
            .collect()
    }

    #[test]
    fn quotes_pipes_and_lists_split_like_bash() {
        assert_eq!(
            words("crictl ps -a | grep 'kube apiserver'"),
            vec![vec!["crictl".to_string(), "ps".into(), "-a".into()], vec!["grep".into(), "kube apiserver".into()],]
        );
        let list = parse("systemctl stop kubelet && systemctl start kubelet; ls || true").unwrap();
        let joins: Vec<Join> = list.iter().map(|(j, _)| *j).collect();
        assert_eq!(joins, vec![Join::Always, Join::IfOk, Join::Always, Join::IfFailed]);
        assert_eq!(
            words("echo \"a|b\" x\\ y ''"),
            vec![vec!["echo".to_string(), "a|b".into(), "x y".into(), "".into()]]
        );
        assert_eq!(words("ls # a comment"), vec![vec!["ls".to_string()]]);
    }

    #[test]
    fn command_substitutions_are_kept_for_later() {
        assert_eq!(
            words("crictl logs $(crictl ps -q --name 'etcd')"),
            vec![vec!["crictl".to_string(), "logs".into(), "$(crictl ps -q --name 'etcd')".into()]]
        );
        assert!(parse("echo $(ls").unwrap_err().contains("matching `)'"));
    }

    #[test]
    fn malformed_lines_get_bash_errors() {
        assert_eq!(parse("| grep x").unwrap_err(), "syntax error near unexpected token `|'");
        assert_eq!(parse("ls |").unwrap_err(), "syntax error: unexpected end of file");
        assert_eq!(parse("echo 'abc").unwrap_err(), "unexpected EOF while looking for matching `''");
        assert!(parse("cat > /tmp/x").unwrap_err().contains("redirections"));
        assert!(parse("sleep 1 &").unwrap_err().contains("background"));
        assert_eq!(parse("   ").unwrap(), Vec::new());
    }
}
