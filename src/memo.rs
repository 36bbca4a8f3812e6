//! The one memo of the engine: answers to a question asked again and again of the same bytes
//! (a header name's redaction rule, a secret's fingerprint, a limit-header set's stated limit),
//! kept per worker thread.
//!
//! **The key rule.** A memo's key is every byte its answer depends on: the text as written,
//! plus the redactor's run id when the answer holds anything a redactor made (a fingerprint, a
//! redacted text). A remembered answer is then exactly what computing it again would give, and
//! nothing else decides whether an answer is reused. Callers that cannot put all of it in the
//! key (an answer read against the record's time, a text that warned) do not remember it.
//!
//! **The shape.** Direct-mapped: a key hashes to one slot, a hit is one hash and one comparison,
//! a miss overwrites that slot. No probing, no growth, no clearing: no input makes a lookup
//! much slower than computing the answer, and memory is bounded by slots × the longest key
//! kept. Keys longer than that bound are answered afresh every time. Keys may be secrets (the
//! fingerprint memo): a memo has no `Debug`, is never printed, and zeroes its keys when dropped.
//!
//! Each use states what it saves, measured on the realistic bench inputs (docs/performance.md);
//! a memo that does not pay on them is removed, not kept for a synthetic input.

use std::hash::BuildHasher;

/// The longest name a name memo ([`Memo::names`]) keeps: header and field names past it are
/// answered afresh (and most are warned about as too long elsewhere).
pub const NAME_MAX: usize = 48;

/// Answers for the keys seen last.
pub struct Memo<V> {
    /// Allocated on the first lookup (most threads never ask most questions).
    slots: Vec<Slot<V>>,
    /// Number of slots (a power of two).
    size: usize,
    /// The longest key kept.
    max_key: usize,
}

struct Slot<V> {
    key: Vec<u8>,
    value: Option<V>,
}

/// Where to [`Memo::put`] the answer for a key [`Memo::find`] did not know.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Miss(usize);

impl<V> Memo<V> {
    /// A memo of `size` slots (a power of two) keeping keys of up to `max_key` bytes.
    pub const fn new(size: usize, max_key: usize) -> Memo<V> {
        assert!(size.is_power_of_two());
        Memo {
            slots: Vec::new(),
            size,
            max_key,
        }
    }

    /// A memo of answers per header or field name, as written: 256 slots, names up to
    /// [`NAME_MAX`] bytes (a log repeats a few dozen names on every record).
    pub const fn names() -> Memo<V> {
        Memo::new(256, NAME_MAX)
    }

    /// `Ok`: the answer remembered for `key`; `Err(Some(miss))`: none, [`Memo::put`] it at
    /// `miss` once known; `Err(None)`: a key too long to keep.
    #[inline]
    pub fn find(&mut self, key: &[u8]) -> Result<&V, Option<Miss>> {
        if key.len() > self.max_key {
            return Err(None);
        }
        if self.slots.is_empty() {
            self.slots.resize_with(self.size, || Slot {
                key: Vec::new(),
                value: None,
            });
        }
        let at = match self.size {
            // One slot: the last key (a time text repeated line after line), no hash.
            1 => 0,
            n => foldhash::fast::FixedState::default().hash_one(key) as usize & (n - 1),
        };
        match &self.slots[at] {
            Slot {
                key: k,
                value: Some(v),
            } if k[..] == *key => Ok(v),
            _ => Err(Some(Miss(at))),
        }
    }

    /// Remember `value` as the answer for `key` (the key given to the `find` that missed).
    pub fn put(&mut self, miss: Miss, key: &[u8], value: V) {
        if let Some(slot) = self.slots.get_mut(miss.0) {
            wipe(&mut slot.key);
            slot.key.extend_from_slice(key);
            slot.value = Some(value);
        }
    }

    /// The answer for `key`, computed by `compute` when not remembered.
    #[inline]
    pub fn get_or(&mut self, key: &[u8], compute: impl FnOnce() -> V) -> V
    where
        V: Clone,
    {
        match self.find(key) {
            Ok(v) => v.clone(),
            Err(miss) => {
                let v = compute();
                if let Some(miss) = miss {
                    self.put(miss, key, v.clone());
                }
                v
            }
        }
    }
}

/// Zero a key's bytes before they are dropped or overwritten by a shorter key (volatile
/// writes, so the stores are not optimized away), then empty it.
fn wipe(key: &mut Vec<u8>) {
    for b in key.iter_mut() {
        // SAFETY: `b` is a valid, aligned, exclusive reference to a byte.
        unsafe { std::ptr::write_volatile(b, 0) };
    }
    key.clear();
}

impl<V> Drop for Memo<V> {
    fn drop(&mut self) {
        for slot in &mut self.slots {
            wipe(&mut slot.key);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every answer is the one computing it gives, through slot collisions, overwrites, keys
    /// at and past the bound, the empty key and keys that are prefixes of one another.
    #[test]
    fn every_answer_is_computed_afresh_or_remembered_exactly() {
        let answer = |k: &[u8]| (k.len(), k.iter().map(|&b| u32::from(b)).sum::<u32>());
        let mut m = Memo::new(16, 8);
        let mut keys: Vec<Vec<u8>> = (0..100u32).map(|i| format!("k{i}").into_bytes()).collect();
        keys.extend([
            vec![],
            b"12345678".to_vec(),
            b"123456789".to_vec(),
            b"1234".to_vec(),
        ]);
        for _ in 0..3 {
            for k in &keys {
                assert_eq!(m.get_or(k, || answer(k)), answer(k), "{k:?}");
            }
        }
        // A key past the bound is never kept; one within it is, once put.
        assert_eq!(m.find(b"123456789").err(), Some(None));
        let miss = m.find(b"fresh").err().flatten().expect("a slot");
        m.put(miss, b"fresh", (9, 9));
        assert_eq!(m.find(b"fresh").ok(), Some(&(9, 9)));
        // An empty slot answers nothing, not even for the empty key.
        let mut fresh: Memo<u8> = Memo::new(4, 8);
        assert!(fresh.find(b"").is_err());
        assert_eq!(fresh.get_or(b"", || 7), 7);
        assert_eq!(fresh.get_or(b"", || 9), 7);
    }
}
