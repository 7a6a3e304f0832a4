//! SPDY/3.1 framing, the server's half, as far as Kubernetes' streams use it (`moby/spdystream` on the
//! client's side): control frames (SYN_STREAM, SYN_REPLY, RST_STREAM, SETTINGS, PING, GOAWAY, HEADERS,
//! WINDOW_UPDATE) and data frames, with header blocks compressed as one zlib stream per direction and
//! connection, primed with SPDY/3's dictionary and flushed after each block.
//!
//! No maintained, permissively licensed crate speaks SPDY/3.1 (the only one on crates.io is GPL-3.0 and a
//! client), so this is the small framer `kubectl port-forward` needs; zlib itself is flate2's (the zlib-rs
//! backend, which has preset dictionaries). Flow control is not kept: spdystream neither sends nor waits for
//! WINDOW_UPDATE frames.
//!
//! Counterpart: `github.com/moby/spdystream/spdy` (`read.go`, `write.go`, `dictionary.go`) and the SPDY/3
//! draft's section 2.6.10.1 for the dictionary.

use flate2::{Compress, Compression, Decompress, FlushCompress, FlushDecompress};

/// The protocol version every control frame carries.
const VERSION: u16 = 3;
const SYN_STREAM: u16 = 1;
const SYN_REPLY: u16 = 2;
const RST_STREAM: u16 = 3;
const PING: u16 = 6;
const GOAWAY: u16 = 7;
const HEADERS: u16 = 8;
/// A frame's flag: the sender's last frame on the stream.
const FLAG_FIN: u8 = 0x01;
/// The largest data frame written (spdystream reads any length up to the 24-bit limit).
const MAX_DATA_FRAME: usize = 32 * 1024;

/// The header names and the tail of SPDY/3's zlib dictionary: each name is written with its length as
/// four big-endian bytes, then the tail as is.
const DICTIONARY_WORDS: [&str; 65] = [
    "options",
    "head",
    "post",
    "put",
    "delete",
    "trace",
    "accept",
    "accept-charset",
    "accept-encoding",
    "accept-language",
    "accept-ranges",
    "age",
    "allow",
    "authorization",
    "cache-control",
    "connection",
    "content-base",
    "content-encoding",
    "content-language",
    "content-length",
    "content-location",
    "content-md5",
    "content-range",
    "content-type",
    "date",
    "etag",
    "expect",
    "expires",
    "from",
    "host",
    "if-match",
    "if-modified-since",
    "if-none-match",
    "if-range",
    "if-unmodified-since",
    "last-modified",
    "location",
    "max-forwards",
    "pragma",
    "proxy-authenticate",
    "proxy-authorization",
    "range",
    "referer",
    "retry-after",
    "server",
    "te",
    "trailer",
    "transfer-encoding",
    "upgrade",
    "user-agent",
    "vary",
    "via",
    "warning",
    "www-authenticate",
    "method",
    "get",
    "status",
    "200 OK",
    "version",
    "HTTP/1.1",
    "url",
    "public",
    "set-cookie",
    "keep-alive",
    "origin",
];
const DICTIONARY_TAIL: &str =
    "100101201202205206300302303304305306307402405406407408409410411412413414415416417502504505\
203 Non-Authoritative Information204 No Content301 Moved Permanently400 Bad Request401 Unauthorized403 Forbidden\
404 Not Found500 Internal Server Error501 Not Implemented503 Service UnavailableJan Feb Mar Apr May Jun Jul Aug \
Sept Oct Nov Dec 00:00:00 Mon, Tue, Wed, Thu, Fri, Sat, Sun, GMTchunked,text/html,image/png,image/jpg,image/gif,\
application/xml,application/xhtml+xml,text/plain,text/javascript,publicprivatemax-age=gzip,deflate,sdch\
charset=utf-8charset=iso-8859-1,utf-,*,enq=0.";

/// SPDY/3's header-compression dictionary.
fn dictionary() -> Vec<u8> {
    let mut out = Vec::with_capacity(1423);
    for word in DICTIONARY_WORDS {
        out.extend_from_slice(&(word.len() as u32).to_be_bytes());
        out.extend_from_slice(word.as_bytes());
    }
    out.extend_from_slice(DICTIONARY_TAIL.as_bytes());
    out
}

/// A frame read from the client.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Frame {
    /// A new stream and its headers (names lowercase), FIN when the client will write nothing on it.
    SynStream {
        stream_id: u32,
        headers: Vec<(String, String)>,
        fin: bool,
    },
    Data {
        stream_id: u32,
        data: Vec<u8>,
        fin: bool,
    },
    /// The client abandoned a stream.
    RstStream {
        stream_id: u32,
    },
    Ping {
        id: u32,
    },
    /// The client is closing the connection.
    GoAway,
    /// More headers, possibly ending the stream (FIN).
    Headers {
        stream_id: u32,
        fin: bool,
    },
    /// SETTINGS, WINDOW_UPDATE, SYN_REPLY and unknown control frames: nothing to do.
    Ignored,
}

/// The reading half: bytes in, frames out.
pub struct Reader {
    buf: Vec<u8>,
    inflate: Decompress,
    dictionary_set: bool,
}

impl Default for Reader {
    fn default() -> Self {
        Reader { buf: Vec::new(), inflate: Decompress::new(true), dictionary_set: false }
    }
}

impl Reader {
    /// More bytes from the connection.
    pub fn push(&mut self, bytes: &[u8]) {
        self.buf.extend_from_slice(bytes);
    }

    /// The next complete frame, None until one is; an error ends the connection (a protocol error).
    pub fn next_frame(&mut self) -> Result<Option<Frame>, String> {
        if self.buf.len() < 8 {
            return Ok(None);
        }
        let length = u32::from_be_bytes([0, self.buf[5], self.buf[6], self.buf[7]]) as usize;
        if self.buf.len() < 8 + length {
            return Ok(None);
        }
        let head: Vec<u8> = self.buf.drain(..8).collect();
        let body: Vec<u8> = self.buf.drain(..length).collect();
        let flags = head[4];
        let fin = flags & FLAG_FIN != 0;
        if head[0] & 0x80 == 0 {
            let stream_id = u32::from_be_bytes([head[0], head[1], head[2], head[3]]);
            return Ok(Some(Frame::Data { stream_id, data: body, fin }));
        }
        let version = u16::from_be_bytes([head[0] & 0x7f, head[1]]);
        if version != VERSION {
            return Err(format!("unsupported SPDY version {version}"));
        }
        let word = |at: usize| -> Result<u32, String> {
            body.get(at..at + 4)
                .map(|b| u32::from_be_bytes([b[0] & 0x7f, b[1], b[2], b[3]]))
                .ok_or_else(|| "short control frame".to_string())
        };
        Ok(Some(match u16::from_be_bytes([head[2], head[3]]) {
            SYN_STREAM => {
                let stream_id = word(0)?;
                let block = body.get(10..).ok_or("short SYN_STREAM frame")?;
                let headers = self.header_block(block)?;
                Frame::SynStream { stream_id, headers, fin }
            }
            HEADERS => {
                let stream_id = word(0)?;
                // The block still goes through the connection's zlib stream, whose state it moves on.
                self.header_block(body.get(4..).ok_or("short HEADERS frame")?)?;
                Frame::Headers { stream_id, fin }
            }
            SYN_REPLY => {
                self.header_block(body.get(4..).ok_or("short SYN_REPLY frame")?)?;
                Frame::Ignored
            }
            RST_STREAM => Frame::RstStream { stream_id: word(0)? },
            PING => {
                let id = body.get(..4).ok_or("short PING frame")?;
                Frame::Ping { id: u32::from_be_bytes([id[0], id[1], id[2], id[3]]) }
            }
            GOAWAY => Frame::GoAway,
            _ => Frame::Ignored,
        }))
    }

    /// A compressed header block: its name/value pairs.
    fn header_block(&mut self, block: &[u8]) -> Result<Vec<(String, String)>, String> {
        let plain = self.inflate_block(block)?;
        parse_headers(&plain)
    }

    fn inflate_block(&mut self, block: &[u8]) -> Result<Vec<u8>, String> {
        let mut out = Vec::with_capacity(block.len() * 4 + 64);
        let mut input = block;
        loop {
            let (before, written) = (self.inflate.total_in(), out.len());
            out.reserve(256);
            match self.inflate.decompress_vec(input, &mut out, FlushDecompress::Sync) {
                Ok(_) => {}
                Err(e) if e.needs_dictionary().is_some() && !self.dictionary_set => {
                    // The stream's header (with the dictionary's id) is read; the block goes on from there.
                    self.dictionary_set = true;
                    self.inflate.set_dictionary(&dictionary()).map_err(|e| format!("header dictionary: {e}"))?;
                    let used = (self.inflate.total_in() - before) as usize;
                    input = &input[used.min(input.len())..];
                    continue;
                }
                Err(e) => return Err(format!("header block: {e}")),
            }
            let used = (self.inflate.total_in() - before) as usize;
            if used == 0 && out.len() == written && !input.is_empty() {
                return Err("header block: no progress".into());
            }
            input = &input[used.min(input.len())..];
            if input.is_empty() && out.len() < out.capacity() {
                return Ok(out);
            }
            if out.len() > 1 << 20 {
                return Err("header block larger than 1 MiB".into());
            }
        }
    }
}

/// An uncompressed header block: a count, then each name and value with its length (four big-endian bytes
/// each); several values of one name are separated by NUL.
fn parse_headers(plain: &[u8]) -> Result<Vec<(String, String)>, String> {
    let mut at = 0;
    let mut take = |n: usize| -> Result<&[u8], String> {
        let part = plain.get(at..at + n).ok_or("truncated header block")?;
        at += n;
        Ok(part)
    };
    let count = u32::from_be_bytes(take(4)?.try_into().unwrap_or([0; 4]));
    let mut out = Vec::new();
    for _ in 0..count {
        let len = u32::from_be_bytes(take(4)?.try_into().unwrap_or([0; 4])) as usize;
        let name = String::from_utf8_lossy(take(len)?).to_ascii_lowercase();
        let len = u32::from_be_bytes(take(4)?.try_into().unwrap_or([0; 4])) as usize;
        let value = String::from_utf8_lossy(take(len)?).into_owned();
        out.push((name, value));
    }
    Ok(out)
}

/// The writing half: frames out as bytes.
pub struct Writer {
    deflate: Compress,
}

impl Default for Writer {
    fn default() -> Self {
        let mut deflate = Compress::new(Compression::default(), true);
        // A fresh stream takes its dictionary before any input.
        let _ = deflate.set_dictionary(&dictionary());
        Writer { deflate }
    }
}

impl Writer {
    /// SYN_REPLY accepting stream `stream_id`, with no headers (what spdystream's server sends).
    pub fn syn_reply(&mut self, stream_id: u32) -> Vec<u8> {
        let block = self.deflate_block(&0u32.to_be_bytes());
        let mut body = stream_id.to_be_bytes().to_vec();
        body.extend_from_slice(&block);
        control(SYN_REPLY, 0, &body)
    }

    fn deflate_block(&mut self, plain: &[u8]) -> Vec<u8> {
        let mut out = Vec::with_capacity(plain.len() + 64);
        let mut input = plain;
        loop {
            let before = self.deflate.total_in();
            out.reserve(64);
            if self.deflate.compress_vec(input, &mut out, FlushCompress::Sync).is_err() {
                return out;
            }
            input = &input[(self.deflate.total_in() - before) as usize..];
            if input.is_empty() && out.len() < out.capacity() {
                return out;
            }
        }
    }
}

/// PING's answer: the client's own id back.
pub fn ping(id: u32) -> Vec<u8> {
    control(PING, 0, &id.to_be_bytes())
}

/// Data on stream `stream_id`, in frames of at most 32 KiB; `fin` ends the server's side of the stream
/// (an empty frame with FIN, when there is no data).
pub fn data(stream_id: u32, bytes: &[u8], fin: bool) -> Vec<u8> {
    let mut out = Vec::with_capacity(bytes.len() + 16);
    let chunks: Vec<&[u8]> = if bytes.is_empty() { vec![&[]] } else { bytes.chunks(MAX_DATA_FRAME).collect() };
    let last = chunks.len() - 1;
    for (i, chunk) in chunks.into_iter().enumerate() {
        out.extend_from_slice(&(stream_id & 0x7fff_ffff).to_be_bytes());
        out.push(if fin && i == last { FLAG_FIN } else { 0 });
        out.extend_from_slice(&(chunk.len() as u32).to_be_bytes()[1..]);
        out.extend_from_slice(chunk);
    }
    out
}

fn control(kind: u16, flags: u8, body: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(body.len() + 8);
    out.extend_from_slice(&(0x8000 | VERSION).to_be_bytes());
    out.extend_from_slice(&kind.to_be_bytes());
    out.push(flags);
    out.extend_from_slice(&(body.len() as u32).to_be_bytes()[1..]);
    out.extend_from_slice(body);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The client's half of a header block, as spdystream writes it.
    fn client_block(deflate: &mut Compress, headers: &[(&str, &str)]) -> Vec<u8> {
        let mut plain = (headers.len() as u32).to_be_bytes().to_vec();
        for (name, value) in headers {
            plain.extend_from_slice(&(name.len() as u32).to_be_bytes());
            plain.extend_from_slice(name.as_bytes());
            plain.extend_from_slice(&(value.len() as u32).to_be_bytes());
            plain.extend_from_slice(value.as_bytes());
        }
        let mut out = Vec::with_capacity(plain.len() + 64);
        deflate.compress_vec(&plain, &mut out, FlushCompress::Sync).unwrap();
        out
    }

    /// GOAWAY as a client closing the connection writes it.
    fn go_away(last_stream: u32) -> Vec<u8> {
        let mut body = last_stream.to_be_bytes().to_vec();
        body.extend_from_slice(&0u32.to_be_bytes());
        control(GOAWAY, 0, &body)
    }

    fn syn_stream(deflate: &mut Compress, stream_id: u32, headers: &[(&str, &str)], fin: bool) -> Vec<u8> {
        let mut body = stream_id.to_be_bytes().to_vec();
        body.extend_from_slice(&[0, 0, 0, 0, 0, 0]);
        body.extend_from_slice(&client_block(deflate, headers));
        control(SYN_STREAM, if fin { FLAG_FIN } else { 0 }, &body)
    }

    #[test]
    fn the_dictionary_is_spdy3s() {
        let dict = dictionary();
        assert_eq!(dict.len(), 1423);
        // The zlib dictionary id every SPDY/3 header stream names (Adler-32 of the dictionary).
        let (mut a, mut b) = (1u32, 0u32);
        for byte in &dict {
            a = (a + u32::from(*byte)) % 65_521;
            b = (b + a) % 65_521;
        }
        assert_eq!((b << 16) | a, 0xe3c6_a7c2);
    }

    #[test]
    fn streams_data_and_pings_are_read_across_pieces_of_the_connection() {
        let mut client = Compress::new(Compression::default(), true);
        client.set_dictionary(&dictionary()).unwrap();
        let mut wire =
            syn_stream(&mut client, 1, &[("streamtype", "error"), ("port", "80"), ("requestid", "0")], false);
        wire.extend(syn_stream(&mut client, 3, &[("streamtype", "data"), ("port", "80"), ("requestid", "0")], false));
        wire.extend(data(3, b"GET / HTTP/1.1\r\n\r\n", false));
        wire.extend(data(1, b"", true));
        wire.extend(ping(1));
        wire.extend(go_away(0));
        let mut reader = Reader::default();
        let mut frames = Vec::new();
        // Byte by byte: a frame is only read once all of it is there.
        for byte in wire {
            reader.push(&[byte]);
            while let Some(frame) = reader.next_frame().unwrap() {
                frames.push(frame);
            }
        }
        let headers = |kind: &str| {
            vec![
                ("streamtype".to_string(), kind.to_string()),
                ("port".into(), "80".into()),
                ("requestid".into(), "0".into()),
            ]
        };
        assert_eq!(
            frames,
            vec![
                Frame::SynStream { stream_id: 1, headers: headers("error"), fin: false },
                Frame::SynStream { stream_id: 3, headers: headers("data"), fin: false },
                Frame::Data { stream_id: 3, data: b"GET / HTTP/1.1\r\n\r\n".to_vec(), fin: false },
                Frame::Data { stream_id: 1, data: Vec::new(), fin: true },
                Frame::Ping { id: 1 },
                Frame::GoAway,
            ]
        );
    }

    #[test]
    fn kubectls_own_first_stream_is_read() {
        // The first SYN_STREAM kubectl v1.32.4 wrote for `port-forward pod/web 18080:80` (its `-v=8` trace).
        let mut wire = vec![0x80, 0x03, 0x00, 0x01, 0x00, 0x00, 0x00, 0x3d, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0];
        wire.extend([
            0x78, 0xf9, 0xe3, 0xc6, 0xa7, 0xc2, 0x02, 0x25, 0x3a, 0x70, 0x3a, 0x2b, 0x29, 0x4a, 0x4d, 0xcc, 0x85, 0x16,
            0x25, 0xac, 0xa9, 0xa0, 0x80, 0x86, 0x14, 0xcb, 0x45, 0xa0, 0x24, 0xcc, 0x64, 0x61, 0xc0, 0xc0, 0xc0, 0xc0,
            0x59, 0x04, 0x89, 0xc4, 0x4c, 0x50, 0xe2, 0x66, 0x34, 0x00, 0x00, 0x00, 0x00, 0xff, 0xff,
        ]);
        let mut reader = Reader::default();
        reader.push(&wire);
        let frame = reader.next_frame().unwrap().unwrap();
        let Frame::SynStream { stream_id: 1, headers, fin: false } = frame else { panic!("{frame:?}") };
        let mut headers = headers;
        headers.sort();
        let want = [("port", "80"), ("requestid", "0"), ("streamtype", "error")];
        assert_eq!(headers, want.map(|(k, v)| (k.to_string(), v.to_string())).to_vec());
    }

    #[test]
    fn a_reply_is_an_empty_header_block_the_client_can_inflate() {
        let mut writer = Writer::default();
        let mut inflate = Decompress::new(true);
        let mut set = false;
        for stream_id in [1u32, 3] {
            let frame = writer.syn_reply(stream_id);
            assert_eq!(&frame[..4], &[0x80, 0x03, 0x00, 0x02]);
            assert_eq!(u32::from_be_bytes(frame[8..12].try_into().unwrap()), stream_id);
            let mut out = Vec::with_capacity(64);
            let mut input = &frame[12..];
            loop {
                let before = inflate.total_in();
                match inflate.decompress_vec(input, &mut out, FlushDecompress::Sync) {
                    Err(e) if e.needs_dictionary().is_some() && !set => {
                        set = true;
                        inflate.set_dictionary(&dictionary()).unwrap();
                    }
                    other => {
                        other.unwrap();
                    }
                }
                input = &input[(inflate.total_in() - before) as usize..];
                if input.is_empty() {
                    break;
                }
            }
            assert_eq!(out, vec![0, 0, 0, 0], "no headers");
        }
    }

    #[test]
    fn large_data_is_cut_into_frames_and_the_last_carries_fin() {
        let bytes = vec![b'x'; MAX_DATA_FRAME + 10];
        let mut reader = Reader::default();
        reader.push(&data(5, &bytes, true));
        let first = reader.next_frame().unwrap().unwrap();
        let second = reader.next_frame().unwrap().unwrap();
        assert!(matches!(first, Frame::Data { stream_id: 5, ref data, fin: false } if data.len() == MAX_DATA_FRAME));
        assert!(matches!(second, Frame::Data { stream_id: 5, ref data, fin: true } if data.len() == 10));
        reader.push(&data(5, b"", true));
        assert_eq!(reader.next_frame().unwrap(), Some(Frame::Data { stream_id: 5, data: Vec::new(), fin: true }));
    }

    #[test]
    fn garbage_is_a_protocol_error_not_a_panic() {
        let mut reader = Reader::default();
        reader.push(&[0x80, 0x02, 0x00, 0x01, 0, 0, 0, 2, 1, 2]);
        assert!(reader.next_frame().is_err(), "SPDY/2 is refused");
        let mut reader = Reader::default();
        reader.push(&control(SYN_STREAM, 0, &[0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 1, 2, 3]));
        assert!(reader.next_frame().is_err(), "a header block that is not zlib");
        let mut reader = Reader::default();
        reader.push(&control(PING, 0, &[1]));
        assert!(reader.next_frame().is_err());
    }
}
