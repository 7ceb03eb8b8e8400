//! Repeated blocks (transformer layers, residual stages) found by structure: in the run-time
//! layers' topological sequence, a stretch where every layer has the op of the layer one period
//! earlier and reads the corresponding producers (one period earlier, the same layer, or one of
//! the same op) repeats with that period.
//!
//! Candidate periods come from the distances between consecutive layers of one op; each is
//! checked by one linear scan, so a 100k-layer sequence takes milliseconds.

use std::collections::HashMap;

/// `reps` consecutive copies of `period` layers starting at `start` (sequence positions).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Run {
    pub start: usize,
    pub period: usize,
    pub reps: usize,
}

impl Run {
    pub fn end(&self) -> usize {
        self.start + self.period * self.reps
    }
}

/// Smallest block worth collapsing (layers per repetition).
const MIN_PERIOD: usize = 3;
/// Periods tried, the most promising first.
const CANDIDATES: usize = 16;

/// `tok[i]`: what layer `i` is (op, version, port counts); `inputs[i]`: the sequence positions
/// of its run-time producers, in input order (`None` for a constant input). Returns disjoint
/// runs, in sequence order.
pub fn find(tok: &[u64], inputs: &[Vec<Option<usize>>], min_layers: usize) -> Vec<Run> {
    let n = tok.len();
    if n < 2 * MIN_PERIOD {
        return Vec::new();
    }
    // Candidate periods: distances between consecutive occurrences of each op, weighted by how
    // much of the sequence they would explain.
    let mut last: HashMap<u64, usize> = HashMap::new();
    let mut dist: HashMap<usize, usize> = HashMap::new();
    for (i, &t) in tok.iter().enumerate() {
        if let Some(p) = last.insert(t, i) {
            let d = i - p;
            if d >= MIN_PERIOD {
                *dist.entry(d).or_default() += 1;
            }
        }
    }
    let mut cand: Vec<(usize, usize)> = dist.into_iter().map(|(d, c)| (c * d, d)).collect();
    cand.sort_unstable_by(|a, b| b.cmp(a));
    cand.truncate(CANDIDATES);

    let same = |a: usize, b: usize, p: usize| -> bool {
        if tok[a] != tok[b] || inputs[a].len() != inputs[b].len() {
            return false;
        }
        inputs[a].iter().zip(&inputs[b]).all(|(x, y)| match (x, y) {
            (None, None) => true,
            (Some(x), Some(y)) => *y == *x + p || x == y || tok[*x] == tok[*y],
            _ => false,
        })
    };
    let mut found: Vec<Run> = Vec::new();
    for &(_, p) in &cand {
        let mut j = 0;
        while j + p < n {
            if !same(j, j + p, p) {
                j += 1;
                continue;
            }
            let s = j;
            while j + p < n && same(j, j + p, p) {
                j += 1;
            }
            // Positions s..j match one period on: layers s..j+p repeat.
            let reps = (j - s) / p + 1;
            if reps >= 2 && reps * p >= min_layers {
                found.push(Run {
                    start: s,
                    period: p,
                    reps,
                });
            }
        }
    }
    // Most layers explained first; on a tie the shorter period (more repetitions).
    found.sort_by(|a, b| {
        (b.reps * b.period)
            .cmp(&(a.reps * a.period))
            .then(a.period.cmp(&b.period))
            .then(a.start.cmp(&b.start))
    });
    let mut taken: Vec<Run> = Vec::new();
    for r in found {
        if taken
            .iter()
            .all(|t| r.end() <= t.start || t.end() <= r.start)
        {
            taken.push(r);
        }
    }
    taken.sort_by_key(|r| r.start);
    taken
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A chain: a stem of 2 layers, `reps` blocks of ops [1,2,3,4] each reading the previous
    /// layer (the first op also the block input, a residual), and a head of 2 layers.
    fn chain(reps: usize) -> (Vec<u64>, Vec<Vec<Option<usize>>>) {
        let mut tok = vec![10, 11];
        for _ in 0..reps {
            tok.extend([1, 2, 3, 4]);
        }
        tok.extend([12, 13]);
        let inputs = (0..tok.len())
            .map(|i| {
                if i == 0 {
                    vec![None]
                } else if tok[i] == 4 {
                    // Residual: reads the previous layer and the block's input.
                    vec![Some(i - 1), Some(i - 4)]
                } else {
                    vec![Some(i - 1), None]
                }
            })
            .collect();
        (tok, inputs)
    }

    #[test]
    fn finds_the_repeated_block() {
        let (tok, inputs) = chain(6);
        let runs = find(&tok, &inputs, 8);
        assert_eq!(runs.len(), 1, "{runs:?}");
        let r = runs[0];
        assert_eq!((r.period, r.reps), (4, 6), "{r:?}");
        assert_eq!(r.start, 2);
    }

    #[test]
    fn a_single_copy_or_a_small_run_is_not_a_block() {
        let (tok, inputs) = chain(1);
        assert!(find(&tok, &inputs, 8).is_empty());
        let (tok, inputs) = chain(2);
        assert!(find(&tok, &inputs, 9).is_empty());
    }

    #[test]
    fn a_different_wiring_breaks_the_run() {
        let (tok, mut inputs) = chain(4);
        // The third block's last layer reads a constant instead of the block's input: the
        // first two blocks still repeat, the third and fourth no longer match them.
        let i = 2 + 2 * 4 + 3;
        inputs[i][1] = None;
        let runs = find(&tok, &inputs, 4);
        assert!(
            runs.contains(&Run {
                start: 2,
                period: 4,
                reps: 2
            }),
            "{runs:?}"
        );
        assert!(
            runs.iter().all(|r| !(r.start..r.end()).contains(&i)
                || !(r.start..r.end()).contains(&(i - 4))),
            "a run spans the changed layer and its counterpart: {runs:?}"
        );
    }
}
