//! A per-name memo for questions asked of every header name of every record (which redaction
//! rule, which reader class): direct-mapped by a hash of the name as written, so a lookup is
//! one hash and one comparison, and a miss overwrites its slot, so no input makes a lookup much
//! slower than answering afresh. A `HashMap` with boxed names cost ~126 instructions per header.

use std::hash::BuildHasher;

/// Slots of a memo (a power of two), and the longest name a slot holds: longer names (and the
/// empty one) are answered afresh every time.
const SLOTS: usize = 256;
pub const MAX_NAME: usize = 48;

#[derive(Clone, Copy)]
struct Slot<V> {
    /// 0 when the slot is empty (an empty name is never remembered).
    len: u8,
    name: [u8; MAX_NAME],
    value: V,
}

/// The answers `judge` gave for the names seen last.
pub struct NameMemo<V> {
    /// Allocated on the first lookup.
    slots: Vec<Slot<V>>,
}

impl<V: Copy> Default for NameMemo<V> {
    fn default() -> Self {
        Self::new()
    }
}

impl<V: Copy> NameMemo<V> {
    pub const fn new() -> Self {
        NameMemo { slots: Vec::new() }
    }

    /// `judge(name)`, remembered. `judge` must depend on the name alone.
    pub fn get(&mut self, name: &str, judge: impl Fn(&str) -> V) -> V {
        let b = name.as_bytes();
        if b.is_empty() || b.len() > MAX_NAME {
            return judge(name);
        }
        if self.slots.is_empty() {
            let empty = Slot {
                len: 0,
                name: [0; MAX_NAME],
                value: judge(name),
            };
            self.slots = vec![empty; SLOTS];
        }
        let at = foldhash::fast::FixedState::default().hash_one(b) as usize & (SLOTS - 1);
        let slot = &mut self.slots[at];
        if slot.name[..slot.len as usize] != *b {
            slot.len = b.len() as u8;
            slot.name[..b.len()].copy_from_slice(b);
            slot.value = judge(name);
        }
        slot.value
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_answer_is_the_judges_own_through_collisions_and_limits() {
        let judge = |n: &str| (n.len(), n.bytes().map(u32::from).sum::<u32>());
        let mut m = NameMemo::new();
        let mut names: Vec<String> = (0..SLOTS * 3).map(|i| format!("x-h{i}")).collect();
        names.extend(["".into(), "a".repeat(MAX_NAME), "a".repeat(MAX_NAME + 1)]);
        names.extend(["Retry-After".into(), "retry-after".into()]);
        for _ in 0..2 {
            for n in &names {
                assert_eq!(m.get(n, judge), judge(n), "{n}");
            }
        }
        // A slot left empty answers nothing stale: the empty name is judged afresh.
        let mut fresh = NameMemo::new();
        assert_eq!(fresh.get("", |_| 7u8), 7);
        assert_eq!(fresh.get("x", |_| 1u8), 1);
        assert_eq!(fresh.get("", |_| 9u8), 9);
    }
}
