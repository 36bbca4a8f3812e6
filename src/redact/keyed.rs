//! HMAC-SHA256 with the key's pads absorbed once, for fingerprinting one secret after another.
//!
//! A secret is hashed per header, cookie or parameter that holds one (a fresh `Idempotency-Key`
//! on every request), so the fixed cost of the generic `hmac` crate per call — cloning two
//! buffered hasher states, then padding and finalizing through them — weighed more than the two
//! SHA-256 blocks a short secret needs. Here the inner and outer states after the key block
//! are kept as bare chaining values, and a fingerprint is the message's blocks, one padding
//! block and one outer block fed straight to the SHA-256 compression function. The result is
//! HMAC-SHA256 bit for bit (RFC 2104; the tests compare it with the `hmac` crate).

use sha2::digest::generic_array::GenericArray;

/// SHA-256 initial chaining value (FIPS 180-4, 5.3.3).
const H0: [u32; 8] = [
    0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19,
];

const BLOCK: usize = 64;

/// HMAC-SHA256 under one 32-byte key.
#[derive(Clone)]
pub(super) struct KeyedMac {
    /// Chaining value after `key ⊕ ipad`.
    inner: [u32; 8],
    /// Chaining value after `key ⊕ opad`.
    outer: [u32; 8],
}

fn compress(state: &mut [u32; 8], block: &[u8]) {
    sha2::compress256(state, std::slice::from_ref(GenericArray::from_slice(block)));
}

/// Hash the rest of a message whose first `prefix` bytes (whole blocks) are in `state`: its
/// whole blocks, then the tail with SHA-256 padding (0x80, zeros, the bit length).
fn finish(state: &mut [u32; 8], prefix: usize, msg: &[u8]) {
    let mut blocks = msg.chunks_exact(BLOCK);
    for b in &mut blocks {
        compress(state, b);
    }
    let tail = blocks.remainder();
    let mut last = [0u8; 2 * BLOCK];
    last[..tail.len()].copy_from_slice(tail);
    last[tail.len()] = 0x80;
    let n = if tail.len() < BLOCK - 8 {
        BLOCK
    } else {
        2 * BLOCK
    };
    let bits = ((prefix + msg.len()) as u64).wrapping_mul(8);
    last[n - 8..n].copy_from_slice(&bits.to_be_bytes());
    for b in last[..n].chunks_exact(BLOCK) {
        compress(state, b);
    }
}

impl KeyedMac {
    pub(super) fn new(key: &[u8; 32]) -> KeyedMac {
        let mut ipad = [0x36u8; BLOCK];
        let mut opad = [0x5cu8; BLOCK];
        for (i, k) in key.iter().enumerate() {
            ipad[i] ^= k;
            opad[i] ^= k;
        }
        let mut inner = H0;
        compress(&mut inner, &ipad);
        let mut outer = H0;
        compress(&mut outer, &opad);
        KeyedMac { inner, outer }
    }

    /// The full 32-byte HMAC-SHA256 of `msg`.
    pub(super) fn tag(&self, msg: &[u8]) -> [u8; 32] {
        let mut inner = self.inner;
        finish(&mut inner, BLOCK, msg);
        let mut digest = [0u8; 32];
        for (d, w) in digest.chunks_exact_mut(4).zip(inner) {
            d.copy_from_slice(&w.to_be_bytes());
        }
        let mut outer = self.outer;
        finish(&mut outer, BLOCK, &digest);
        let mut out = [0u8; 32];
        for (o, w) in out.chunks_exact_mut(4).zip(outer) {
            o.copy_from_slice(&w.to_be_bytes());
        }
        out
    }

    /// The first 4 bytes of [`KeyedMac::tag`]: what a fingerprint shows.
    pub(super) fn tag4(&self, msg: &[u8]) -> [u8; 4] {
        let t = self.tag(msg);
        [t[0], t[1], t[2], t[3]]
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use hmac::{Hmac, Mac};
    use proptest::prelude::*;

    fn reference(key: &[u8; 32], msg: &[u8]) -> [u8; 32] {
        let mut m = Hmac::<sha2::Sha256>::new_from_slice(key).expect("any key length");
        m.update(msg);
        m.finalize().into_bytes().into()
    }

    /// RFC 4231 test case 2 needs a 4-byte key; ours are 32 bytes, so the known-answer check is
    /// the `hmac` crate at every length around the block and padding edges.
    #[test]
    fn equals_the_hmac_crate_at_every_edge_length() {
        let key: [u8; 32] = std::array::from_fn(|i| (i * 7 + 3) as u8);
        let mac = KeyedMac::new(&key);
        for len in 0..=300 {
            let msg: Vec<u8> = (0..len).map(|i| (i * 31 + len) as u8).collect();
            assert_eq!(mac.tag(&msg), reference(&key, &msg), "length {len}");
            assert_eq!(mac.tag4(&msg), reference(&key, &msg)[..4], "length {len}");
        }
        let long = vec![0xa5u8; 70_000];
        assert_eq!(mac.tag(&long), reference(&key, &long));
    }

    proptest! {
        #[test]
        fn equals_the_hmac_crate(key in any::<[u8; 32]>(), msg in proptest::collection::vec(any::<u8>(), 0..400)) {
            prop_assert_eq!(KeyedMac::new(&key).tag(&msg), reference(&key, &msg));
        }
    }
}
