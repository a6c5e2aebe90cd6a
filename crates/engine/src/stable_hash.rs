//! A hash that never changes across platforms and releases: 64-bit FNV-1a, printed as hex.

/// FNV-1a 64-bit offset basis.
const FNV_OFFSET: u64 = 0xcbf2_9ce4_8422_2325;
/// FNV-1a 64-bit prime.
const FNV_PRIME: u64 = 0x0000_0100_0000_01b3;

/// Incremental 64-bit FNV-1a. Only for identity (fingerprints), never for security.
#[derive(Debug, Clone, Copy)]
pub struct StableHash(u64);

impl Default for StableHash {
    fn default() -> Self {
        StableHash(FNV_OFFSET)
    }
}

impl StableHash {
    /// A fresh hash.
    pub fn new() -> StableHash {
        StableHash::default()
    }

    /// Feeds bytes.
    pub fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0 ^ u64::from(b)).wrapping_mul(FNV_PRIME);
        }
    }

    /// Feeds the byte 0x1F, which separates fields so `("ab","c")` and `("a","bc")` differ.
    pub fn separator(&mut self) {
        self.write(&[0x1f]);
    }

    /// The value.
    pub fn finish(self) -> u64 {
        self.0
    }

    /// The value as 16 lowercase hex digits.
    pub fn hex(self) -> String {
        // By hand, not `format!`: a finalize hashes the code of each of 100,000 findings.
        const DIGITS: &[u8; 16] = b"0123456789abcdef";
        (0..16)
            .rev()
            .map(|place| char::from(DIGITS[((self.0 >> (place * 4)) & 0xf) as usize]))
            .collect()
    }

    /// Hashes fields with separators between them.
    pub fn of_fields<'a>(fields: impl IntoIterator<Item = &'a str>) -> String {
        let mut hash = StableHash::new();
        for (i, field) in fields.into_iter().enumerate() {
            if i > 0 {
                hash.separator();
            }
            hash.write(field.as_bytes());
        }
        hash.hex()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn matches_published_fnv1a_vectors() {
        assert_eq!(StableHash::new().hex(), "cbf29ce484222325");
        let mut h = StableHash::new();
        h.write(b"a");
        assert_eq!(h.hex(), "af63dc4c8601ec8c");
        assert_eq!(h.finish(), 0xaf63_dc4c_8601_ec8c);
        assert_ne!(
            StableHash::of_fields(["ab", "c"]),
            StableHash::of_fields(["a", "bc"])
        );
    }

    #[test]
    fn hex_is_sixteen_lowercase_digits_with_the_leading_zeros() {
        for value in [
            0,
            1,
            0xf,
            0x10,
            0x00ab_cdef,
            u64::MAX,
            0x8000_0000_0000_0000,
        ] {
            assert_eq!(StableHash(value).hex(), format!("{value:016x}"));
        }
    }
}
