//! Integer expressions over dimension symbols, in a canonical form: a sum of terms, each an
//! integer coefficient times a product of atoms (symbols, floor divisions, minima, maxima),
//! terms sorted and merged. Two expressions that are equal as polynomials are equal values of
//! this type, so "these dims are equal" is `==`.
//!
//! Every operation is exact for all integer values of the symbols, or gives `None` (an
//! overflowing coefficient, a division by zero): the caller then gives the dim a fresh symbol.
//! Symbols stand for dims and counts, which are never negative; that is the one fact the
//! simplifications use (`max(seq, 0)` is `seq`).

use smallvec::SmallVec;
use std::fmt::Write as _;
use std::sync::Arc;

/// A symbol's index in its table.
pub type SymId = u32;

#[derive(Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Debug)]
pub enum Atom {
    Sym(SymId),
    /// `floor(a / b)`.
    Div(Box<Expr>, Box<Expr>),
    Min(Box<Expr>, Box<Expr>),
    Max(Box<Expr>, Box<Expr>),
}

/// A product of atoms, sorted (repeated for powers).
type Mono = SmallVec<[Atom; 2]>;

/// A sum of terms: sorted by monomial, no zero coefficient, the constant term with the empty
/// monomial; never a lone constant or a lone symbol (those are [`Expr::C`], [`Expr::S`]).
#[derive(Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Debug)]
pub struct Poly {
    terms: Vec<(Mono, i64)>,
}

/// An expression. Constants and single symbols (nearly every dim) hold no allocation; equal
/// polynomials are equal values (the form is canonical).
#[derive(Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Debug)]
pub enum Expr {
    C(i64),
    S(SymId),
    P(Arc<Poly>),
}

impl Default for Expr {
    fn default() -> Self {
        Expr::C(0)
    }
}

impl Expr {
    pub fn c(v: i64) -> Expr {
        Expr::C(v)
    }
    pub fn sym(s: SymId) -> Expr {
        Expr::S(s)
    }
    fn atom(a: Atom) -> Expr {
        match a {
            Atom::Sym(s) => Expr::S(s),
            a => {
                let mut m = Mono::new();
                m.push(a);
                Expr::P(Arc::new(Poly {
                    terms: vec![(m, 1)],
                }))
            }
        }
    }
    /// The terms (borrowed from a polynomial, built for a constant or a symbol).
    fn terms(&self) -> std::borrow::Cow<'_, [(Mono, i64)]> {
        use std::borrow::Cow;
        match self {
            Expr::C(0) => Cow::Owned(Vec::new()),
            Expr::C(v) => Cow::Owned(vec![(Mono::new(), *v)]),
            Expr::S(s) => {
                let mut m = Mono::new();
                m.push(Atom::Sym(*s));
                Cow::Owned(vec![(m, 1)])
            }
            Expr::P(p) => Cow::Borrowed(&p.terms),
        }
    }
    /// The value when the expression is a constant.
    pub fn as_const(&self) -> Option<i64> {
        match self {
            Expr::C(v) => Some(*v),
            _ => None,
        }
    }
    /// The symbol when the expression is one symbol alone.
    pub fn as_sym(&self) -> Option<SymId> {
        match self {
            Expr::S(s) => Some(*s),
            _ => None,
        }
    }
    fn from_terms(mut terms: Vec<(Mono, i64)>) -> Option<Expr> {
        terms.sort_by(|a, b| a.0.cmp(&b.0));
        let mut out: Vec<(Mono, i64)> = Vec::with_capacity(terms.len());
        for (m, c) in terms {
            match out.last_mut() {
                Some((lm, lc)) if *lm == m => *lc = lc.checked_add(c)?,
                _ => out.push((m, c)),
            }
        }
        out.retain(|t| t.1 != 0);
        Some(match out.as_slice() {
            [] => Expr::C(0),
            [(m, c)] if m.is_empty() => Expr::C(*c),
            [(m, 1)] if m.len() == 1 && matches!(m[0], Atom::Sym(_)) => match m[0] {
                Atom::Sym(s) => Expr::S(s),
                _ => unreachable!(),
            },
            _ => Expr::P(Arc::new(Poly { terms: out })),
        })
    }
    pub fn add(&self, o: &Expr) -> Option<Expr> {
        if let (Expr::C(a), Expr::C(b)) = (self, o) {
            return Some(Expr::C(a.checked_add(*b)?));
        }
        if o.as_const() == Some(0) {
            return Some(self.clone());
        }
        if self.as_const() == Some(0) {
            return Some(o.clone());
        }
        Expr::from_terms(
            self.terms()
                .iter()
                .chain(o.terms().iter())
                .cloned()
                .collect(),
        )
    }
    pub fn neg(&self) -> Option<Expr> {
        if let Expr::C(a) = self {
            return Some(Expr::C(a.checked_neg()?));
        }
        let terms = self
            .terms()
            .iter()
            .map(|(m, c)| Some((m.clone(), c.checked_neg()?)))
            .collect::<Option<Vec<_>>>()?;
        Expr::from_terms(terms)
    }
    pub fn sub(&self, o: &Expr) -> Option<Expr> {
        if let (Expr::C(a), Expr::C(b)) = (self, o) {
            return Some(Expr::C(a.checked_sub(*b)?));
        }
        if self == o {
            return Some(Expr::C(0));
        }
        self.add(&o.neg()?)
    }
    pub fn mul(&self, o: &Expr) -> Option<Expr> {
        match (self, o) {
            (Expr::C(a), Expr::C(b)) => return Some(Expr::C(a.checked_mul(*b)?)),
            (Expr::C(1), x) | (x, Expr::C(1)) => return Some(x.clone()),
            (Expr::C(0), _) | (_, Expr::C(0)) => return Some(Expr::C(0)),
            _ => {}
        }
        let (ta, tb) = (self.terms(), o.terms());
        let mut terms = Vec::with_capacity(ta.len() * tb.len());
        for (ma, ca) in ta.iter() {
            for (mb, cb) in tb.iter() {
                let mut m: Mono = ma.iter().chain(mb.iter()).cloned().collect();
                m.sort();
                terms.push((m, ca.checked_mul(*cb)?));
            }
        }
        Expr::from_terms(terms)
    }
    /// `floor(self / d)`. Exact quotients are taken out: a constant divisor pulls out the terms
    /// whose coefficients it divides (`(2a+3)//2` is `a+1`); a one-term divisor that divides
    /// every term gives the quotient (`(a*b)//b` is `a`).
    pub fn floordiv(&self, d: &Expr) -> Option<Expr> {
        if let Some(k) = d.as_const() {
            if k == 0 {
                return None;
            }
            if let Some(v) = self.as_const() {
                return Some(Expr::c(floor_div(v, k)?));
            }
            if k == 1 {
                return Some(self.clone());
            }
            let (q, r): (Vec<_>, Vec<_>) = self.terms().iter().cloned().partition(|t| t.1 % k == 0);
            let q = Expr::from_terms(q.into_iter().map(|(m, c)| (m, c / k)).collect())?;
            let r = Expr::from_terms(r)?;
            let rest = match r.as_const() {
                Some(v) => Expr::c(floor_div(v, k)?),
                None => Expr::atom(Atom::Div(Box::new(r), Box::new(d.clone()))),
            };
            return q.add(&rest);
        }
        if self == d {
            // x // x is 1 for every x but 0, where the division is undefined anyway.
            return Some(Expr::c(1));
        }
        let dt = d.terms();
        if let [(dm, dc)] = &dt[..] {
            let mut quot = Vec::new();
            let mut all = true;
            for (m, c) in self.terms().iter() {
                match (remove_all(m, dm), c.checked_rem(*dc)) {
                    (Some(q), Some(0)) => quot.push((q, c / dc)),
                    _ => {
                        all = false;
                        break;
                    }
                }
            }
            if all {
                return Expr::from_terms(quot);
            }
        }
        Some(Expr::atom(Atom::Div(
            Box::new(self.clone()),
            Box::new(d.clone()),
        )))
    }
    /// `ceil(self / d)` for a positive constant `d`: `(self + d - 1) // d`.
    pub fn ceildiv(&self, d: i64) -> Option<Expr> {
        if d <= 0 {
            return None;
        }
        self.add(&Expr::c(d - 1))?.floordiv(&Expr::c(d))
    }
    pub fn minimum(&self, o: &Expr) -> Option<Expr> {
        self.extremum(o, true)
    }
    pub fn maximum(&self, o: &Expr) -> Option<Expr> {
        self.extremum(o, false)
    }
    /// `min`/`max` in a canonical form: nested ones of the same kind flattened, constants
    /// combined, operands another one provably bounds dropped (`max(d-1, -1)` is `d-1`,
    /// `max(x, min(x, c))` is `x`), the rest sorted and nested again.
    fn extremum(&self, o: &Expr, min: bool) -> Option<Expr> {
        if self == o {
            return Some(self.clone());
        }
        let mut ops: Vec<Expr> = Vec::new();
        flatten(self, min, &mut ops);
        flatten(o, min, &mut ops);
        let (consts, mut rest): (Vec<Expr>, Vec<Expr>) =
            ops.into_iter().partition(|e| e.as_const().is_some());
        if let Some(k) =
            consts
                .iter()
                .filter_map(Expr::as_const)
                .reduce(|a, b| if min { a.min(b) } else { a.max(b) })
        {
            rest.push(Expr::C(k));
        }
        rest.sort();
        rest.dedup();
        // x is dropped when another operand y is never beyond it (for min: x >= y).
        let mut keep = vec![true; rest.len()];
        for i in 0..rest.len() {
            for j in 0..rest.len() {
                if i == j || !keep[j] {
                    continue;
                }
                let (x, y) = (&rest[i], &rest[j]);
                let beyond = if min { x.sub(y) } else { y.sub(x) };
                let absorbed = contains_operand(x, min, y);
                if beyond.is_some_and(|d| d.nonneg()) || absorbed {
                    keep[i] = false;
                    break;
                }
            }
        }
        let mut left: Vec<Expr> = rest
            .into_iter()
            .zip(keep)
            .filter_map(|(e, k)| k.then_some(e))
            .collect();
        let mut acc = left.pop()?;
        while let Some(e) = left.pop() {
            let (a, b) = (Box::new(e), Box::new(acc));
            acc = Expr::atom(if min {
                Atom::Min(a, b)
            } else {
                Atom::Max(a, b)
            });
        }
        Some(acc)
    }
    /// Known not to be negative: non-negative coefficients over atoms that are never negative.
    pub fn nonneg(&self) -> bool {
        match self {
            Expr::C(v) => *v >= 0,
            Expr::S(_) => true,
            Expr::P(p) => p
                .terms
                .iter()
                .all(|(m, c)| *c >= 0 && m.iter().all(atom_nonneg)),
        }
    }
    /// Every symbol replaced by what `f` gives for it (itself when `None`).
    pub fn subst(&self, f: &mut dyn FnMut(SymId) -> Option<Expr>) -> Option<Expr> {
        match self {
            Expr::C(_) => return Some(self.clone()),
            Expr::S(s) => return Some(f(*s).unwrap_or_else(|| self.clone())),
            Expr::P(_) => {}
        }
        let mut acc = Expr::c(0);
        for (m, c) in self.terms().iter() {
            let mut t = Expr::c(*c);
            for a in m {
                let x = match a {
                    Atom::Sym(s) => f(*s).unwrap_or_else(|| Expr::sym(*s)),
                    Atom::Div(p, q) => p.subst(f)?.floordiv(&q.subst(f)?)?,
                    Atom::Min(p, q) => p.subst(f)?.minimum(&q.subst(f)?)?,
                    Atom::Max(p, q) => p.subst(f)?.maximum(&q.subst(f)?)?,
                };
                t = t.mul(&x)?;
            }
            acc = acc.add(&t)?;
        }
        Some(acc)
    }
    /// The value for the symbols' values `f` gives (`None` where one has none, or on overflow
    /// or a division by zero).
    pub fn eval(&self, f: &dyn Fn(SymId) -> Option<i64>) -> Option<i64> {
        let mut acc: i64 = 0;
        for (m, c) in self.terms().iter() {
            let mut t = *c;
            for a in m {
                let x = match a {
                    Atom::Sym(s) => f(*s)?,
                    Atom::Div(p, q) => floor_div(p.eval(f)?, q.eval(f)?)?,
                    Atom::Min(p, q) => p.eval(f)?.min(q.eval(f)?),
                    Atom::Max(p, q) => p.eval(f)?.max(q.eval(f)?),
                };
                t = t.checked_mul(x)?;
            }
            acc = acc.checked_add(t)?;
        }
        Some(acc)
    }
    /// For `self = 0`: the newest symbol `x` that occurs once, alone, with a coefficient of 1
    /// or -1, and the expression it equals (`x = rest`); `None` when there is none.
    pub fn solve_for_newest(&self) -> Option<(SymId, Expr)> {
        let terms = self.terms();
        let mut best: Option<(SymId, i64)> = None;
        for (m, c) in terms.iter() {
            if let ([Atom::Sym(x)], 1 | -1) = (m.as_slice(), *c) {
                let elsewhere = terms
                    .iter()
                    .filter(|(m2, _)| m2 != m)
                    .any(|(m2, _)| m2.iter().any(|a| atom_has(a, *x)));
                if !elsewhere && best.is_none_or(|(b, _)| *x > b) {
                    best = Some((*x, *c));
                }
            }
        }
        let (x, c) = best?;
        // c*x + rest = 0  =>  x = -rest/c = -c*rest (c is 1 or -1).
        let rest = self.sub(&Expr::sym(x).mul(&Expr::c(c))?)?;
        Some((x, rest.mul(&Expr::c(-c))?))
    }

    /// Whether symbol `s` occurs in the expression.
    pub fn has(&self, s: SymId) -> bool {
        match self {
            Expr::C(_) => false,
            Expr::S(x) => *x == s,
            Expr::P(p) => p
                .terms
                .iter()
                .any(|(m, _)| m.iter().any(|a| atom_has(a, s))),
        }
    }
    /// Every symbol that occurs, each once, in order of first occurrence.
    pub fn syms(&self, out: &mut Vec<SymId>) {
        match self {
            Expr::C(_) => {}
            Expr::S(x) => {
                if !out.contains(x) {
                    out.push(*x);
                }
            }
            Expr::P(p) => {
                for (m, _) in &p.terms {
                    for a in m {
                        atom_syms(a, out);
                    }
                }
            }
        }
    }
    /// The expression as text, valid Python over the symbols' names: `past+seq`, `2*seq`,
    /// `(seq-1)//2+1`, `min(a,b)`.
    pub fn show(&self, name: &dyn Fn(SymId) -> String) -> String {
        match self {
            Expr::C(v) => return v.to_string(),
            Expr::S(s) => return name(*s),
            Expr::P(_) => {}
        }
        let terms = self.terms();
        // Symbol terms first, the constant last.
        let mut order: Vec<&(Mono, i64)> = terms.iter().filter(|t| !t.0.is_empty()).collect();
        order.extend(terms.iter().filter(|t| t.0.is_empty()));
        let mut s = String::new();
        for (i, (m, c)) in order.iter().enumerate() {
            let neg = *c < 0;
            let a = c.unsigned_abs();
            if i == 0 {
                if neg {
                    s.push('-');
                }
            } else {
                s.push(if neg { '-' } else { '+' });
            }
            if m.is_empty() {
                let _ = write!(s, "{a}");
                continue;
            }
            let single = m.len() == 1 && a == 1;
            if a != 1 {
                let _ = write!(s, "{a}*");
            }
            for (k, at) in m.iter().enumerate() {
                if k > 0 {
                    s.push('*');
                }
                s.push_str(&show_atom(at, name, single));
            }
        }
        s
    }
    /// As text with plain symbol names `s0`, `s1`… (tests, debugging).
    pub fn show_plain(&self) -> String {
        self.show(&|s| format!("s{s}"))
    }
}

/// The operands of `e` as a min (`min`) or max of nested ones of the same kind.
fn flatten(e: &Expr, min: bool, out: &mut Vec<Expr>) {
    if let Expr::P(p) = e {
        if let [(m, 1)] = p.terms.as_slice() {
            match (m.as_slice(), min) {
                ([Atom::Min(a, b)], true) | ([Atom::Max(a, b)], false) => {
                    flatten(a, min, out);
                    flatten(b, min, out);
                    return;
                }
                _ => {}
            }
        }
    }
    out.push(e.clone());
}

/// Whether `e` is a max (`max`) or min with `y` among its operands (then `e` is at least, or
/// at most, `y`).
fn contains_operand(e: &Expr, max: bool, y: &Expr) -> bool {
    let is_kind = matches!(e, Expr::P(p) if matches!(p.terms.as_slice(),
        [(m, 1)] if matches!(m.as_slice(), [Atom::Max(..)] if max) || matches!(m.as_slice(), [Atom::Min(..)] if !max)));
    if !is_kind {
        return false;
    }
    let mut ops = Vec::new();
    flatten(e, !max, &mut ops);
    ops.iter().any(|x| x == y)
}

fn floor_div(a: i64, b: i64) -> Option<i64> {
    if b == 0 {
        return None;
    }
    let q = a.checked_div(b)?;
    Some(if (a % b != 0) && ((a < 0) != (b < 0)) {
        q - 1
    } else {
        q
    })
}

/// `m` without the atoms of `d` (each as often as `d` has it), or `None` if `m` lacks one.
fn remove_all(m: &Mono, d: &Mono) -> Option<Mono> {
    let mut rest = m.clone();
    for a in d {
        let i = rest.iter().position(|x| x == a)?;
        rest.remove(i);
    }
    Some(rest)
}

fn atom_nonneg(a: &Atom) -> bool {
    match a {
        Atom::Sym(_) => true,
        Atom::Div(p, q) => p.nonneg() && q.as_const().is_some_and(|k| k > 0),
        Atom::Min(p, q) => p.nonneg() && q.nonneg(),
        Atom::Max(p, q) => p.nonneg() || q.nonneg(),
    }
}

fn atom_has(a: &Atom, s: SymId) -> bool {
    match a {
        Atom::Sym(x) => *x == s,
        Atom::Div(p, q) | Atom::Min(p, q) | Atom::Max(p, q) => p.has(s) || q.has(s),
    }
}

fn atom_syms(a: &Atom, out: &mut Vec<SymId>) {
    match a {
        Atom::Sym(x) => {
            if !out.contains(x) {
                out.push(*x);
            }
        }
        Atom::Div(p, q) | Atom::Min(p, q) | Atom::Max(p, q) => {
            p.syms(out);
            q.syms(out);
        }
    }
}

/// An operand of `//` or `*`: bare when it is one symbol or a non-negative constant, else in
/// parentheses.
fn operand(e: &Expr, name: &dyn Fn(SymId) -> String) -> String {
    let bare = e.as_sym().is_some() || e.as_const().is_some_and(|c| c >= 0);
    let s = e.show(name);
    if bare {
        s
    } else {
        format!("({s})")
    }
}

fn show_atom(a: &Atom, name: &dyn Fn(SymId) -> String, alone: bool) -> String {
    match a {
        Atom::Sym(s) => name(*s),
        Atom::Div(p, q) => {
            let t = format!("{}//{}", operand(p, name), operand(q, name));
            if alone {
                t
            } else {
                format!("({t})")
            }
        }
        Atom::Min(p, q) => format!("min({},{})", p.show(name), q.show(name)),
        Atom::Max(p, q) => format!("max({},{})", p.show(name), q.show(name)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn s(i: SymId) -> Expr {
        Expr::sym(i)
    }
    fn c(v: i64) -> Expr {
        Expr::c(v)
    }

    #[test]
    fn canonical_sums_and_products() {
        let a = s(0).add(&s(1)).unwrap();
        let b = s(1).add(&s(0)).unwrap();
        assert_eq!(a, b);
        assert_eq!(a.show_plain(), "s0+s1");
        let d = a.sub(&s(0)).unwrap();
        assert_eq!(d, s(1));
        let sq = a.mul(&a).unwrap();
        assert_eq!(sq.show_plain(), "s0*s0+2*s0*s1+s1*s1");
        assert_eq!(s(0).sub(&c(1)).unwrap().show_plain(), "s0-1");
        assert_eq!(c(3).sub(&s(0)).unwrap().show_plain(), "-s0+3");
    }

    #[test]
    fn floor_division() {
        // (2a+3)//2 = a+1
        let e = s(0).mul(&c(2)).unwrap().add(&c(3)).unwrap();
        assert_eq!(e.floordiv(&c(2)).unwrap().show_plain(), "s0+1");
        // (a*b)//b = a
        let ab = s(0).mul(&s(1)).unwrap();
        assert_eq!(ab.floordiv(&s(1)).unwrap(), s(0));
        // (a-1)//2+1 stays a division
        let conv = s(0)
            .sub(&c(1))
            .unwrap()
            .floordiv(&c(2))
            .unwrap()
            .add(&c(1))
            .unwrap();
        assert_eq!(conv.show_plain(), "(s0-1)//2+1");
        for v in 0..10 {
            let want = (v - 1i64).div_euclid(2) + 1;
            assert_eq!(conv.eval(&|_| Some(v)), Some(want));
        }
        assert_eq!(c(-7).floordiv(&c(2)), Some(c(-4)));
        assert_eq!(s(0).floordiv(&c(0)), None);
    }

    #[test]
    fn extrema() {
        assert_eq!(s(0).maximum(&c(0)).unwrap(), s(0));
        assert_eq!(s(0).minimum(&c(0)).unwrap(), c(0));
        let a1 = s(0).add(&c(1)).unwrap();
        assert_eq!(a1.minimum(&s(0)).unwrap(), s(0));
        let m = s(0).minimum(&s(1)).unwrap();
        assert_eq!(m.show_plain(), "min(s0,s1)");
        assert_eq!(m, s(1).minimum(&s(0)).unwrap());
        assert_eq!(m.eval(&|x| Some([5, 3][x as usize])), Some(3));
        // Nested constants combine; an operand a max already holds goes.
        let a = c(1000).minimum(&s(0)).unwrap();
        let b = c(2147483647).minimum(&a).unwrap();
        assert_eq!(b, a);
        assert_eq!(a.maximum(&s(0)).unwrap(), s(0));
        let m3 = s(0).minimum(&s(1)).unwrap().minimum(&s(2)).unwrap();
        assert_eq!(m3, s(2).minimum(&s(1).minimum(&s(0)).unwrap()).unwrap());
        assert_eq!(m3.show_plain(), "min(s0,min(s1,s2))");
    }

    #[test]
    fn solving() {
        // s0 + s1 - (s0 + s2) = 0 gives s2 = s1.
        let d = s(0)
            .add(&s(1))
            .unwrap()
            .sub(&s(0).add(&s(2)).unwrap())
            .unwrap();
        assert_eq!(d.solve_for_newest(), Some((2, s(1))));
        // s0*s1 - s2 - 3 = 0 gives s2 = s0*s1 - 3.
        let d = s(0)
            .mul(&s(1))
            .unwrap()
            .sub(&s(2))
            .unwrap()
            .sub(&c(3))
            .unwrap();
        let (x, r) = d.solve_for_newest().unwrap();
        assert_eq!((x, r.show_plain()), (2, "s0*s1-3".into()));
        // 2*s0 - 4 = 0 is not solved (no coefficient of 1).
        assert_eq!(
            s(0).mul(&c(2))
                .unwrap()
                .sub(&c(4))
                .unwrap()
                .solve_for_newest(),
            None
        );
    }

    #[test]
    fn substitution() {
        // a := b + 1 in 2a - b gives b + 2
        let e = s(0).mul(&c(2)).unwrap().sub(&s(1)).unwrap();
        let r = e
            .subst(&mut |x| (x == 0).then(|| s(1).add(&c(1)).unwrap()))
            .unwrap();
        assert_eq!(r.show_plain(), "s1+2");
        assert!(r.has(1) && !r.has(0));
    }
}
