//! kube-proxy's chain names: `KUBE-SVC-`, `KUBE-SVL-`, `KUBE-EXT-`, `KUBE-FW-` + the first 16 characters of
//! the standard base32 encoding of sha256(servicePortName + lowercase protocol), and `KUBE-SEP-` + the same
//! over servicePortName + protocol + `ip:port`. servicePortName is `namespace/name:portName`, or
//! `namespace/name` when the port has no name. Counterpart: `pkg/proxy/iptables/proxier.go` (portProtoHash,
//! servicePortPolicyClusterChain, servicePortEndpointChainName). SHA-256 is FIPS 180-4; base32 is RFC 4648.

/// The 16-character hash kube-proxy puts after a chain prefix.
pub fn port_proto_hash(service_port_name: &str, protocol: &str) -> String {
    let mut input = String::with_capacity(service_port_name.len() + protocol.len());
    input.push_str(service_port_name);
    input.push_str(protocol);
    base32_std(&sha256(input.as_bytes()))[..16].to_string()
}

/// `KUBE-SVC-<hash>`: the service port's chain for Cluster traffic policy.
pub fn svc_chain(service_port_name: &str, protocol: &str) -> String {
    format!("KUBE-SVC-{}", port_proto_hash(service_port_name, protocol))
}

/// `KUBE-SVL-<hash>`: the service port's chain for Local traffic policy.
pub fn svl_chain(service_port_name: &str, protocol: &str) -> String {
    format!("KUBE-SVL-{}", port_proto_hash(service_port_name, protocol))
}

/// `KUBE-EXT-<hash>`: where NodePort, LoadBalancer and external-IP traffic for the service port goes.
pub fn ext_chain(service_port_name: &str, protocol: &str) -> String {
    format!("KUBE-EXT-{}", port_proto_hash(service_port_name, protocol))
}

/// `KUBE-FW-<hash>`: the loadBalancerSourceRanges filter of the service port.
pub fn fw_chain(service_port_name: &str, protocol: &str) -> String {
    format!("KUBE-FW-{}", port_proto_hash(service_port_name, protocol))
}

/// `KUBE-SEP-<hash>`: one endpoint (`ip:port`) of the service port.
pub fn sep_chain(service_port_name: &str, protocol: &str, endpoint: &str) -> String {
    let input = format!("{service_port_name}{protocol}{endpoint}");
    format!("KUBE-SEP-{}", &base32_std(&sha256(input.as_bytes()))[..16])
}

/// RFC 4648 base32 with the standard alphabet and `=` padding (Go's `base32.StdEncoding`).
pub fn base32_std(bytes: &[u8]) -> String {
    const ALPHABET: &[u8; 32] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";
    let mut out = String::with_capacity(bytes.len().div_ceil(5) * 8);
    for chunk in bytes.chunks(5) {
        let mut block = [0u8; 5];
        block[..chunk.len()].copy_from_slice(chunk);
        let bits = block.iter().fold(0u64, |acc, b| (acc << 8) | u64::from(*b));
        let symbols = (chunk.len() * 8).div_ceil(5);
        for i in 0..8 {
            if i < symbols {
                out.push(ALPHABET[((bits >> (35 - i * 5)) & 31) as usize] as char);
            } else {
                out.push('=');
            }
        }
    }
    out
}

const K: [u32; 64] = [
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5, 0xd807aa98,
    0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174, 0xe49b69c1, 0xefbe4786,
    0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da, 0x983e5152, 0xa831c66d, 0xb00327c8,
    0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967, 0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13,
    0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85, 0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819,
    0xd6990624, 0xf40e3585, 0x106aa070, 0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a,
    0x5b9cca4f, 0x682e6ff3, 0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7,
    0xc67178f2,
];

/// SHA-256 of `data` (FIPS 180-4).
pub fn sha256(data: &[u8]) -> [u8; 32] {
    let mut h: [u32; 8] =
        [0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19];
    let mut message = data.to_vec();
    let bit_len = (data.len() as u64).wrapping_mul(8);
    message.push(0x80);
    while message.len() % 64 != 56 {
        message.push(0);
    }
    message.extend_from_slice(&bit_len.to_be_bytes());
    for block in message.chunks(64) {
        let mut w = [0u32; 64];
        for (i, word) in block.chunks(4).enumerate() {
            w[i] = u32::from_be_bytes([word[0], word[1], word[2], word[3]]);
        }
        for i in 16..64 {
            let s0 = w[i - 15].rotate_right(7) ^ w[i - 15].rotate_right(18) ^ (w[i - 15] >> 3);
            let s1 = w[i - 2].rotate_right(17) ^ w[i - 2].rotate_right(19) ^ (w[i - 2] >> 10);
            w[i] = w[i - 16].wrapping_add(s0).wrapping_add(w[i - 7]).wrapping_add(s1);
        }
        let [mut a, mut b, mut c, mut d, mut e, mut f, mut g, mut hh] = h;
        for i in 0..64 {
            let s1 = e.rotate_right(6) ^ e.rotate_right(11) ^ e.rotate_right(25);
            let ch = (e & f) ^ (!e & g);
            let t1 = hh.wrapping_add(s1).wrapping_add(ch).wrapping_add(K[i]).wrapping_add(w[i]);
            let s0 = a.rotate_right(2) ^ a.rotate_right(13) ^ a.rotate_right(22);
            let maj = (a & b) ^ (a & c) ^ (b & c);
            let t2 = s0.wrapping_add(maj);
            hh = g;
            g = f;
            f = e;
            e = d.wrapping_add(t1);
            d = c;
            c = b;
            b = a;
            a = t1.wrapping_add(t2);
        }
        for (x, y) in h.iter_mut().zip([a, b, c, d, e, f, g, hh]) {
            *x = x.wrapping_add(y);
        }
    }
    let mut out = [0u8; 32];
    for (i, word) in h.iter().enumerate() {
        out[i * 4..i * 4 + 4].copy_from_slice(&word.to_be_bytes());
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hex(bytes: &[u8]) -> String {
        bytes.iter().map(|b| format!("{b:02x}")).collect()
    }

    #[test]
    fn sha256_matches_the_published_test_vectors() {
        assert_eq!(hex(&sha256(b"")), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
        assert_eq!(hex(&sha256(b"abc")), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
        // Two blocks (56 bytes of input push the length into a second block).
        assert_eq!(
            hex(&sha256(b"abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq")),
            "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"
        );
    }

    #[test]
    fn base32_matches_rfc_4648() {
        assert_eq!(base32_std(b""), "");
        assert_eq!(base32_std(b"f"), "MY======");
        assert_eq!(base32_std(b"fo"), "MZXQ====");
        assert_eq!(base32_std(b"foo"), "MZXW6===");
        assert_eq!(base32_std(b"foob"), "MZXW6YQ=");
        assert_eq!(base32_std(b"fooba"), "MZXW6YTB");
        assert_eq!(base32_std(b"foobar"), "MZXW6YTBOI======");
    }

    #[test]
    fn service_chains_match_the_reference_examples() {
        // The examples in the behaviour reference, computed from portProtoHash.
        assert_eq!(svc_chain("default/kubernetes:https", "tcp"), "KUBE-SVC-NPX46M4PTMTKRN6Y");
        assert_eq!(svc_chain("kube-system/kube-dns:dns", "udp"), "KUBE-SVC-TCOU7JCQXEZGVUNU");
        assert_eq!(svc_chain("kube-system/kube-dns:dns-tcp", "tcp"), "KUBE-SVC-ERIFXISQEP7F7OF4");
        assert_eq!(svc_chain("default/web", "tcp"), "KUBE-SVC-LOLE4ISW44XBNF3G");
        assert_eq!(svc_chain("default/web:http", "tcp"), "KUBE-SVC-CDGGSHYLG3RE2FKL");
    }

    #[test]
    fn every_chain_kind_shares_the_hash_and_differs_by_prefix() {
        let h = port_proto_hash("default/web:http", "tcp");
        assert_eq!(h.len(), 16);
        assert_eq!(ext_chain("default/web:http", "tcp"), format!("KUBE-EXT-{h}"));
        assert_eq!(svl_chain("default/web:http", "tcp"), format!("KUBE-SVL-{h}"));
        assert_eq!(fw_chain("default/web:http", "tcp"), format!("KUBE-FW-{h}"));
        // The protocol is part of the input: the same port name over UDP is another chain.
        assert_ne!(svc_chain("default/web:http", "udp"), svc_chain("default/web:http", "tcp"));
    }

    #[test]
    fn endpoint_chains_hash_the_endpoint_too() {
        let a = sep_chain("default/web:http", "tcp", "10.244.1.2:80");
        let b = sep_chain("default/web:http", "tcp", "10.244.1.3:80");
        assert!(a.starts_with("KUBE-SEP-") && a.len() == "KUBE-SEP-".len() + 16);
        assert_ne!(a, b);
        // The endpoint string is appended to the service-port name and protocol before hashing.
        let whole = base32_std(&sha256(b"default/web:httptcp10.244.1.2:80"));
        assert_eq!(a, format!("KUBE-SEP-{}", &whole[..16]));
    }
}
