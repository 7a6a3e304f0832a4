//! Share links: a scenario's YAML in a URL fragment, `#s=<lz-string>`.
//!
//! The text is compressed with lz-string's `compressToEncodedURIComponent` (the `lz-str` crate), whose
//! alphanumeric-plus-`+-$` output needs no escaping in a fragment and which the JavaScript `lz-string` package
//! reads and writes too.
//!
//! Links come from anywhere, so [`decode`] reads them with its own bounded decoder rather than
//! `lz_str::decompress_from_encoded_uri_component`: lz-string's dictionary lets a short input name longer and
//! longer strings, so a 256 KiB link can ask for gigabytes, and that function has no limit and silently drops
//! characters outside its alphabet. This decoder follows the same format (the tests check it against `lz-str`
//! and against a link made by the JavaScript package), keeps each dictionary entry as (prefix, last
//! character), and stops as soon as the output would pass [`MAX_SCENARIO_BYTES`].

use std::fmt;

/// The longest link [`decode`] reads, in bytes.
pub const MAX_LINK_BYTES: usize = 256 * 1024;
/// The largest scenario a link may hold, in bytes of UTF-8 (and in UTF-16 units while decoding).
pub const MAX_SCENARIO_BYTES: usize = 1024 * 1024;

/// lz-string's alphabet for `compressToEncodedURIComponent`: six bits a character. Output only uses the
/// first 64; `$` (64) is read as lz-string reads it, a value whose six low bits are zero.
const ALPHABET: &[u8; 65] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+-$";

/// Why a link holds no readable scenario.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum UrlError {
    /// The link is longer than [`MAX_LINK_BYTES`].
    TooLong { bytes: usize },
    /// No `s=` in the fragment (or no fragment in a URL).
    NoScenario,
    /// `s=` with nothing after it.
    Empty,
    /// A `%` escape that is not `%` and two hex digits of an ASCII character.
    BadEscape { position: usize },
    /// A character lz-string never writes; `position` counts characters of the `s=` value.
    InvalidCharacter { character: char, position: usize },
    /// The data ends early or names dictionary entries that do not exist.
    Corrupt,
    /// It decompresses to nothing.
    NothingInside,
    /// It would decompress past [`MAX_SCENARIO_BYTES`].
    TooLarge,
    /// It decompresses to UTF-16 that is not text (an unpaired surrogate).
    NotText,
}

impl fmt::Display for UrlError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            UrlError::TooLong { bytes } => write!(
                f,
                "the link is {bytes} bytes long; a share link is at most {MAX_LINK_BYTES}"
            ),
            UrlError::NoScenario => {
                f.write_str("no scenario in this link: expected a fragment like #s=…")
            }
            UrlError::Empty => f.write_str("the link's s= is empty"),
            UrlError::BadEscape { position } => {
                write!(f, "the link has a bad %-escape at character {position}")
            }
            UrlError::InvalidCharacter {
                character,
                position,
            } => write!(
                f,
                "the link has {character:?} at character {position} of s=, which a share link never contains (was it mangled?)"
            ),
            UrlError::Corrupt => {
                f.write_str("the link is damaged: its data does not decompress (was it cut short?)")
            }
            UrlError::NothingInside => f.write_str("the link decompresses to nothing"),
            UrlError::TooLarge => write!(
                f,
                "the link decompresses to more than {MAX_SCENARIO_BYTES} bytes; a scenario is smaller"
            ),
            UrlError::NotText => f.write_str("the link decompresses to something that is not text"),
        }
    }
}

impl std::error::Error for UrlError {}

/// The fragment (without `#`) that shares this scenario text: `s=…`.
pub fn encode(scenario_yaml: &str) -> String {
    format!("s={}", lz_str::compress_to_encoded_uri_component(scenario_yaml))
}

/// The scenario text in a share link: a whole URL (`https://host/path#s=…`), a fragment (`#s=…`) or just
/// `s=…`. Other `&`-separated parameters in the fragment are ignored.
pub fn decode(url_or_fragment: &str) -> Result<String, UrlError> {
    if url_or_fragment.len() > MAX_LINK_BYTES {
        return Err(UrlError::TooLong { bytes: url_or_fragment.len() });
    }
    let link = url_or_fragment.trim();
    let fragment = match link.split_once('#') {
        Some((_, f)) => f,
        None if link.contains("://") => return Err(UrlError::NoScenario),
        None => link,
    };
    let value = fragment.split('&').find_map(|param| param.strip_prefix("s=")).ok_or(UrlError::NoScenario)?;
    let value = percent_decode(value)?;
    if value.is_empty() {
        return Err(UrlError::Empty);
    }
    let mut sixes = Vec::with_capacity(value.len());
    for (position, character) in value.chars().enumerate() {
        // A `+` turns into a space when something decodes the link as a form; lz-string reads it back too.
        let c = if character == ' ' { '+' } else { character };
        match ALPHABET.iter().position(|a| char::from(*a) == c) {
            Some(v) => sixes.push(v as u16),
            None => return Err(UrlError::InvalidCharacter { character, position }),
        }
    }
    let units = decompress(&sixes, 6, MAX_SCENARIO_BYTES)?;
    if units.is_empty() {
        return Err(UrlError::NothingInside);
    }
    let text = String::from_utf16(&units).map_err(|_| UrlError::NotText)?;
    if text.len() > MAX_SCENARIO_BYTES {
        return Err(UrlError::TooLarge);
    }
    Ok(text)
}

/// Decodes `%XX` escapes of ASCII characters (some chat programs escape `$` and `+`).
fn percent_decode(value: &str) -> Result<String, UrlError> {
    if !value.contains('%') {
        return Ok(value.to_string());
    }
    let mut out = String::with_capacity(value.len());
    let mut chars = value.chars().enumerate();
    while let Some((position, c)) = chars.next() {
        if c != '%' {
            out.push(c);
            continue;
        }
        let hex: String = chars.by_ref().take(2).map(|(_, h)| h).collect();
        let digits = hex.len() == 2 && hex.bytes().all(|b| b.is_ascii_hexdigit());
        match u8::from_str_radix(&hex, 16) {
            Ok(b) if digits && b.is_ascii() => out.push(char::from(b)),
            _ => return Err(UrlError::BadEscape { position }),
        }
    }
    Ok(out)
}

/// Reads codes of `width` bits (low bit first) from values of `bits_per_value` bits (high bit first).
struct Bits<'a> {
    values: &'a [u16],
    next: usize,
    current: u16,
    /// The bit of `current` to read next; 0 when it is used up.
    mask: u16,
    top: u16,
}

impl Bits<'_> {
    fn read(&mut self, width: u32) -> Option<u32> {
        let mut code = 0u32;
        for bit in 0..width {
            if self.mask == 0 {
                self.current = *self.values.get(self.next)?;
                self.next += 1;
                self.mask = self.top;
            }
            if self.current & self.mask != 0 {
                code |= 1 << bit;
            }
            self.mask >>= 1;
        }
        Some(code)
    }
}

/// One dictionary entry: the entry it extends (None for a single character), its last and first
/// characters, and its length.
#[derive(Clone, Copy)]
struct Entry {
    prefix: Option<u32>,
    last: u16,
    first: u16,
    len: usize,
}

/// lz-string's decompression of `values` (each `bits_per_value` wide), refusing output past `limit`
/// UTF-16 units. Codes 0 and 1 bring a new 8- or 16-bit character, 2 ends the stream, and every later code
/// names a dictionary entry (entries start at 3), the one being defined included.
fn decompress(values: &[u16], bits_per_value: u32, limit: usize) -> Result<Vec<u16>, UrlError> {
    let mut bits = Bits { values, next: 0, current: 0, mask: 0, top: 1 << (bits_per_value.clamp(1, 16) - 1) };
    let corrupt = UrlError::Corrupt;
    let mut dict: Vec<Entry> = Vec::new();
    let literal = |bits: &mut Bits, kind: u32| -> Option<Entry> {
        let c = bits.read(if kind == 0 { 8 } else { 16 })? as u16;
        Some(Entry { prefix: None, last: c, first: c, len: 1 })
    };
    let first = match bits.read(2).ok_or(UrlError::Corrupt)? {
        kind @ (0 | 1) => literal(&mut bits, kind).ok_or(UrlError::Corrupt)?,
        2 => return Ok(Vec::new()),
        _ => return Err(corrupt),
    };
    dict.push(first);
    let mut out = vec![first.last];
    let mut w: u32 = 3;
    let mut width: u32 = 3;
    let mut enlarge_in: u64 = 4;
    loop {
        if width > 24 {
            return Err(UrlError::Corrupt);
        }
        let mut code = bits.read(width).ok_or(UrlError::Corrupt)?;
        match code {
            0 | 1 => {
                dict.push(literal(&mut bits, code).ok_or(UrlError::Corrupt)?);
                code = dict.len() as u32 + 2;
                enlarge_in -= 1;
            }
            2 => return Ok(out),
            _ => {}
        }
        if enlarge_in == 0 {
            enlarge_in = 1 << width;
            width += 1;
        }
        let size = dict.len() as u32 + 3;
        let w_entry = *dict.get((w - 3) as usize).ok_or(UrlError::Corrupt)?;
        let entry_first = if code < size {
            dict[(code - 3) as usize].first
        } else if code == size {
            w_entry.first
        } else {
            return Err(UrlError::Corrupt);
        };
        // The new entry: w followed by the first character of the entry being output.
        dict.push(Entry { prefix: Some(w), last: entry_first, first: w_entry.first, len: w_entry.len + 1 });
        let entry = dict[(code - 3) as usize];
        if out.len() + entry.len > limit {
            return Err(UrlError::TooLarge);
        }
        let start = out.len();
        let mut at = Some(code);
        while let Some(c) = at {
            let e = dict[(c - 3) as usize];
            out.push(e.last);
            at = e.prefix;
        }
        out[start..].reverse();
        enlarge_in -= 1;
        w = code;
        if enlarge_in == 0 {
            enlarge_in = 1 << width;
            width += 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::Rng;

    /// The sample scenario below, compressed by the JavaScript `lz-string` 1.5.0 package:
    /// `LZString.compressToEncodedURIComponent(text)` under node 20.
    const JS_LINK: &str = "IYBwlgagpgTgzmA9gOwFwAIDWBXARlAcwBtg44A6AEygDcB6GgRmCJAAthGAoTMZSjAGUAxlGTAYSLgFsoAF2CVgC1F3TpxsjHGFsolbEVgBaSogDuyNemo7JIOUjToAclHPoQiSnHRwFAJ7oAApilHwE6OZsYEbocnp+uvqGsOhgvv6IICD66IAoBOjCwABmAJfogKhk6IC8G4ABe1xwucKq6nBQ+hgA7Nb+UCBwrejGfnLZGDj4xjp6BkYw1iOTUMJyRBgw2MhRULjDxmDSwARQALzIBHwAHotRwGByGADMAAxwt8ur6+gncp7e73U6igV2aj2sQKKKAUfEGITCES4QA";

    const SAMPLE: &str = "apiVersion: kubeglass.dev/v1alpha1\nkind: Scenario\nmetadata:\n  name: scheduler-down\n  description: New pods stay Pending while the scheduler is stopped — café ☕ 🚀\nspec:\n  seed: 7\n  steps:\n  - stop: kube-scheduler\n  - kubectl: run web --image=nginx\n  - wait: 30s\n  - kubectl: get pods\n    expect:\n      contains: Pending\n";

    #[test]
    fn a_link_made_by_the_javascript_package_decodes_to_the_same_text() {
        assert_eq!(decode(&format!("s={JS_LINK}")).as_deref(), Ok(SAMPLE));
        assert_eq!(decode(&format!("https://kubeglass.dev/play/#s={JS_LINK}")).as_deref(), Ok(SAMPLE));
    }

    #[test]
    fn encoding_writes_what_the_javascript_package_writes() {
        assert_eq!(encode(SAMPLE), format!("s={JS_LINK}"));
    }

    #[test]
    fn links_round_trip_in_every_accepted_form() {
        let texts = [
            SAMPLE.to_string(),
            "a".into(),
            "ab".repeat(5000),
            "𝄞 surrogate pairs and \u{0} nul".into(),
            (0..3000).map(|i| char::from(b'a' + (i * 7 % 26) as u8)).collect(),
        ];
        for text in texts {
            let fragment = encode(&text);
            for link in [
                fragment.clone(),
                format!("#{fragment}"),
                format!("http://localhost:8080/#{fragment}"),
                format!("https://x.example/p?q=1#view=map&{fragment}&z=2"),
                format!("  {fragment}\n"),
                fragment.replace('+', " "),
                fragment.replace('+', "%2B").replace('A', "%41"),
            ] {
                assert_eq!(decode(&link).as_deref(), Ok(text.as_str()), "{link:.60}");
            }
        }
    }

    #[test]
    fn malformed_links_are_refused_with_a_reason() {
        assert_eq!(decode("https://host/play"), Err(UrlError::NoScenario));
        assert_eq!(decode("#x=abc"), Err(UrlError::NoScenario));
        assert_eq!(decode(""), Err(UrlError::NoScenario));
        assert_eq!(decode("#s="), Err(UrlError::Empty));
        assert_eq!(decode("s=ab!c"), Err(UrlError::InvalidCharacter { character: '!', position: 2 }));
        assert_eq!(decode("s=é"), Err(UrlError::InvalidCharacter { character: 'é', position: 0 }));
        assert_eq!(decode("s=ab%2"), Err(UrlError::BadEscape { position: 2 }));
        assert_eq!(decode("s=%+1"), Err(UrlError::BadEscape { position: 0 }));
        assert_eq!(decode("s=ab%C3%A9"), Err(UrlError::BadEscape { position: 2 }));
        assert_eq!(decode("s=Q"), Err(UrlError::NothingInside));
        assert_eq!(decode("s=$$$$"), Err(UrlError::Corrupt));
        let cut = &JS_LINK[..JS_LINK.len() / 2];
        assert_eq!(decode(&format!("s={cut}")), Err(UrlError::Corrupt));
        let huge = format!("s={}", "A".repeat(MAX_LINK_BYTES));
        assert!(matches!(decode(&huge), Err(UrlError::TooLong { .. })));
        for e in [UrlError::Corrupt, UrlError::TooLarge, UrlError::NotText] {
            assert!(!e.to_string().is_empty());
        }
    }

    #[test]
    fn a_lone_surrogate_is_not_text() {
        let units: Vec<u16> = vec![0xd800, b'a' as u16];
        let link = format!("s={}", lz_str::compress_to_encoded_uri_component(&units[..]));
        assert_eq!(decode(&link), Err(UrlError::NotText));
    }

    /// A hand-made stream whose codes each name the entry being defined: every step outputs one more
    /// character than the last, so n codes ask for about n²/2 characters.
    fn bomb(codes: usize) -> String {
        let mut bitstream: Vec<bool> = Vec::new();
        let put = |value: u32, width: u32, out: &mut Vec<bool>| {
            for b in 0..width {
                out.push(value >> b & 1 == 1);
            }
        };
        put(0, 2, &mut bitstream);
        put(u32::from(b'a'), 8, &mut bitstream);
        let (mut size, mut width, mut enlarge_in) = (4u32, 3u32, 4u64);
        for _ in 0..codes {
            put(size, width, &mut bitstream);
            size += 1;
            enlarge_in -= 1;
            if enlarge_in == 0 {
                enlarge_in = 1 << width;
                width += 1;
            }
        }
        put(2, width, &mut bitstream);
        // One bit of padding, as lz-string always writes (lz-str's reader needs it).
        bitstream.push(false);
        let chars: String = bitstream
            .chunks(6)
            .map(|six| {
                let v = six.iter().enumerate().fold(0usize, |acc, (i, b)| acc | usize::from(*b) << (5 - i));
                char::from(ALPHABET[v])
            })
            .collect();
        format!("s={chars}")
    }

    #[test]
    fn a_decompression_bomb_stops_at_the_size_limit() {
        // 100 codes: 5,150 characters, as lz-str agrees.
        let small = bomb(100);
        let text = decode(&small).expect("small bomb");
        assert_eq!(text.len(), 1 + (2..=101).sum::<usize>());
        assert!(text.bytes().all(|b| b == b'a'));
        let reference = lz_str::decompress_from_encoded_uri_component(&small[2..]).expect("lz-str");
        assert_eq!(String::from_utf16(&reference).ok(), Some(text));
        // 60,000 codes would be 1.8 billion characters from a 160 KB link.
        let big = bomb(60_000);
        assert!(big.len() < MAX_LINK_BYTES);
        assert_eq!(decode(&big), Err(UrlError::TooLarge));
    }

    #[test]
    fn decoding_agrees_with_lz_str_on_random_data() {
        let mut rng = Rng::new(42);
        for round in 0..3000 {
            let len = 1 + rng.below(40) as usize;
            let mut s: String = (0..len).map(|_| char::from(ALPHABET[rng.below(64) as usize])).collect();
            if round % 3 == 0 {
                // Start with a valid header (an 8-bit literal) so more inputs get past it.
                let valid = encode(&format!("x{round}"));
                s = format!("{}{}", &valid[2..4], s);
            }
            let ours = decode(&format!("s={s}"));
            let theirs = lz_str::decompress_from_encoded_uri_component(&s);
            if let Some(units) = &theirs {
                match String::from_utf16(units) {
                    Ok(text) if !text.is_empty() => assert_eq!(ours, Ok(text), "{s}"),
                    Ok(_) => assert_eq!(ours, Err(UrlError::NothingInside), "{s}"),
                    Err(_) => assert_eq!(ours, Err(UrlError::NotText), "{s}"),
                }
            }
            if let Ok(text) = ours {
                let back = theirs.map(|u| String::from_utf16(&u));
                assert!(matches!(back, None | Some(Ok(_))), "{s}");
                if let Some(Ok(t)) = back {
                    assert_eq!(t, text);
                }
            }
        }
    }

    #[test]
    fn random_garbage_never_panics() {
        let mut rng = Rng::new(7);
        let pool: Vec<char> = "sS=#&%$+- aZ09é😀\u{0}/?:".chars().collect();
        for _ in 0..3000 {
            let len = rng.below(60) as usize;
            let s: String = (0..len).map(|_| pool[rng.below(pool.len() as u64) as usize]).collect();
            let _ = decode(&s);
        }
    }
}
