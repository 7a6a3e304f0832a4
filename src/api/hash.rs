//! Template hashes as controllers name things with them (`pod-template-hash`, `controller-revision-hash`):
//! FNV-32a over the template, plus the collision count, printed in decimal and each digit mapped through
//! apimachinery's `SafeEncodeString` alphabet, so a hash only holds `[4-9bcdf]`.
//!
//! The real controllers hash Go's `spew` printing of the template struct; kubeglass hashes the template's
//! canonical JSON (keys sorted). Hashes therefore look exactly like real ones and change exactly when the
//! template changes, but are not the same digits a real cluster would compute for the same template.

/// apimachinery's `rand.alphanums`: no vowels, no confusable characters.
pub const SAFE_ALPHABET: &[u8] = b"bcdfghjklmnpqrstvwxz2456789";

/// FNV-32a.
pub fn fnv32a(bytes: &[u8]) -> u32 {
    let mut h: u32 = 0x811c_9dc5;
    for b in bytes {
        h ^= u32::from(*b);
        h = h.wrapping_mul(0x0100_0193);
    }
    h
}

/// `rand.SafeEncodeString`: every character mapped to `SAFE_ALPHABET[c % 27]`.
pub fn safe_encode(text: &str) -> String {
    text.bytes().map(|b| SAFE_ALPHABET[b as usize % SAFE_ALPHABET.len()] as char).collect()
}

/// `controller.ComputeHash`: the hash of a template (its JSON) and an optional collision count.
pub fn template_hash(template: &serde_json::Value, collision_count: Option<i32>) -> String {
    let mut bytes = serde_json::to_vec(template).unwrap_or_default();
    if let Some(c) = collision_count {
        bytes.extend_from_slice(&c.to_le_bytes());
    }
    safe_encode(&fnv32a(&bytes).to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn digits_map_to_the_safe_alphabet_as_the_reference_lists() {
        assert_eq!(safe_encode("0123456789"), "456789bcdf");
        // The reference's example: 3718868910 → web-7c5ddbdf54.
        assert_eq!(safe_encode("3718868910"), "7c5ddbdf54");
    }

    #[test]
    fn fnv32a_matches_the_published_test_vectors() {
        assert_eq!(fnv32a(b""), 0x811c_9dc5);
        assert_eq!(fnv32a(b"a"), 0xe40c_292c);
        assert_eq!(fnv32a(b"foobar"), 0xbf9c_f968);
    }

    #[test]
    fn a_template_hash_uses_only_hash_characters_and_follows_the_template() {
        let a = template_hash(&serde_json::json!({"spec": {"containers": [{"image": "nginx"}]}}), None);
        let b = template_hash(&serde_json::json!({"spec": {"containers": [{"image": "nginx:1.27"}]}}), None);
        assert!(a.chars().all(|c| "456789bcdf".contains(c)) && (1..=10).contains(&a.len()), "{a}");
        assert_ne!(a, b);
        assert_ne!(a, template_hash(&serde_json::json!({"spec": {"containers": [{"image": "nginx"}]}}), Some(1)));
    }
}
