//! One shared copy of each distinct value that many rate-limited rows repeat (a long incident's
//! 429s mostly name a few URLs and methods, and carry a few distinct facts), so a row holds a
//! pointer instead of its own copy. Bounded: past `cap` distinct values, new ones are handed
//! back unshared (correct, just not deduplicated), so an input of all-distinct values cannot
//! grow the pool without limit.

use std::borrow::Borrow;
use std::collections::HashSet;
use std::hash::Hash;
use std::sync::Arc;

pub struct Pool<T: ?Sized> {
    kept: HashSet<Arc<T>, foldhash::fast::FixedState>,
    cap: usize,
}

impl<T: ?Sized + Hash + Eq> Pool<T> {
    pub fn new(cap: usize) -> Self {
        Pool {
            kept: HashSet::default(),
            cap,
        }
    }

    /// The shared copy of `v` (made from it when it is new).
    pub fn share<Q>(&mut self, v: &Q) -> Arc<T>
    where
        Q: ?Sized + Hash + Eq,
        Arc<T>: Borrow<Q> + for<'a> From<&'a Q>,
    {
        if let Some(a) = self.kept.get(v) {
            return a.clone();
        }
        let a: Arc<T> = Arc::from(v);
        if self.kept.len() < self.cap {
            self.kept.insert(a.clone());
        }
        a
    }

    /// The shared copy of `v`, which is kept when it is new.
    pub fn share_owned(&mut self, v: T) -> Arc<T>
    where
        T: Sized,
    {
        if let Some(a) = self.kept.get(&v) {
            return a.clone();
        }
        let a = Arc::new(v);
        if self.kept.len() < self.cap {
            self.kept.insert(a.clone());
        }
        a
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn equal_values_share_one_copy_distinct_ones_do_not() {
        let mut p: Pool<str> = Pool::new(8);
        let a = p.share("https://a.example/x");
        let b = p.share(&String::from("https://a.example/x"));
        let c = p.share("https://a.example/y");
        assert!(Arc::ptr_eq(&a, &b));
        assert!(!Arc::ptr_eq(&a, &c));
        assert_eq!(&*a, "https://a.example/x");
        assert_eq!(&*c, "https://a.example/y");
        let mut q: Pool<(u8, Vec<String>)> = Pool::new(8);
        let x = q.share_owned((1, vec!["s".into()]));
        let y = q.share_owned((1, vec!["s".into()]));
        let z = q.share_owned((2, vec!["s".into()]));
        assert!(Arc::ptr_eq(&x, &y));
        assert!(!Arc::ptr_eq(&x, &z));
    }

    #[test]
    fn past_the_cap_values_come_back_unshared_and_intact() {
        let mut p: Pool<str> = Pool::new(2);
        let a = p.share("a");
        let _ = p.share("b");
        let c1 = p.share("c");
        let c2 = p.share("c");
        assert_eq!((&*c1, &*c2), ("c", "c"));
        assert!(!Arc::ptr_eq(&c1, &c2), "a third value is not kept");
        assert!(Arc::ptr_eq(&a, &p.share("a")), "the kept ones still are");
        assert_eq!(p.kept.len(), 2);
    }
}
