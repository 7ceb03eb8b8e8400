//! Short runs of values (a shape's dims) in one array, a run equal to one of the last few
//! stored shared instead of stored again: a graph repeats a handful of shapes, so a 100k-layer
//! decoder's 190,000 dims take 58,000 places. Runs are never changed once stored.

/// Runs remembered for sharing (compared in order on each push: a few compares).
const RECENT: usize = 8;

#[derive(Debug, Clone)]
pub struct Runs<T> {
    items: Vec<T>,
    /// (start, length) of the last runs stored, oldest overwritten first.
    recent: [(u32, u32); RECENT],
    next: usize,
}

impl<T> Default for Runs<T> {
    fn default() -> Self {
        Runs {
            items: Vec::new(),
            recent: [(0, 0); RECENT],
            next: 0,
        }
    }
}

impl<T: Copy + PartialEq> Runs<T> {
    /// Room for `n` values (untouched room costs no memory).
    pub fn with_capacity(n: usize) -> Self {
        Runs {
            items: Vec::with_capacity(n),
            ..Default::default()
        }
    }

    /// Where `run` is: a recent equal run, else appended. `(start, length)`.
    pub fn push(&mut self, run: &[T]) -> (u32, u32) {
        if run.is_empty() {
            return (0, 0);
        }
        let len = run.len() as u32;
        for &(at, n) in &self.recent {
            if n == len && self.items[at as usize..(at + n) as usize] == *run {
                return (at, n);
            }
        }
        let at = self.items.len() as u32;
        self.items.extend_from_slice(run);
        self.recent[self.next] = (at, len);
        self.next = (self.next + 1) % RECENT;
        (at, len)
    }

    /// The run at `start` of `len` values.
    pub fn get(&self, start: u32, len: u32) -> Option<&[T]> {
        self.items
            .get(start as usize..(start as usize).checked_add(len as usize)?)
    }

    /// Values stored (shared runs counted once).
    pub fn stored(&self) -> usize {
        self.items.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A run equal to a recent one is shared, an older or different one appended; every run
    /// comes back as pushed.
    #[test]
    fn recent_runs_are_shared() {
        let mut r = Runs::default();
        let a = r.push(&[1, 2, 3]);
        let b = r.push(&[4, 5]);
        assert_eq!(r.push(&[1, 2, 3]), a);
        assert_eq!(r.push(&[]), (0, 0));
        assert_eq!(r.stored(), 5);
        for i in 0..RECENT as i32 {
            r.push(&[100 + i]);
        }
        // [1, 2, 3] has left the recent runs: stored again.
        let c = r.push(&[1, 2, 3]);
        assert_ne!(c, a);
        for (run, want) in [
            (a, &[1, 2, 3][..]),
            (b, &[4, 5]),
            (c, &[1, 2, 3]),
            ((0, 0), &[]),
        ] {
            assert_eq!(r.get(run.0, run.1), Some(want));
        }
        assert_eq!(r.get(u32::MAX, 2), None);
    }
}
