//! Symbolic dimensions: every dynamic dim of a model, as a symbol or an integer expression over
//! symbols (`past+seq`, `(h-1)//2+1`), next to the interval bounds inference gives.
//!
//! After inference (ports carry the inferred shapes), the graph is walked once in topological
//! order. Each output port gets its dims as expressions, and small integer tensors (shape
//! values: a ShapeOf and what is gathered, concatenated, computed from it) get their elements
//! as expressions, so `Reshape(x, Concat(ShapeOf(a)[0], 16))` has the dims `[a_0, 16]`. The
//! rules are in [`rules`]; a dim no rule determines gets a fresh symbol of its own, which claims
//! nothing (its origin, a layer's port and axis, is listed).
//!
//! Symbols: each dynamic dim of a model input is one (named by the user with
//! `--input 'input_ids[batch,seq]'`, else `input_ids_1`), each dynamic dim of a state variable
//! (`state0`…), each data-dependent or otherwise unexpressed dim (`nonzero0`, `d0`…). Where the
//! graph requires two dims to be equal (the non-axis dims of a Concat, a MatMul's contracted
//! dims, an elementwise op's broadcast dims — assumed not 1 there, as OpenVINO's symbols do)
//! their symbols are made one, or a symbol is defined as an expression (an attention mask's
//! length as `past+seq`). Expressions are shown with those resolved.

pub mod expr;
mod rules;

pub use expr::{Expr, SymId};

use crate::ir::*;
use crate::passes::infer::InputOverride;

/// Where a symbol comes from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Origin {
    /// A dynamic dim of a model input (`input`: its friendly name).
    Input { input: String, axis: usize },
    /// A dim known only from this output port at run time: data-dependent (a NonZero count),
    /// a state variable's, or one no rule expresses.
    Port {
        layer: String,
        port: usize,
        axis: usize,
    },
}

#[derive(Debug, Clone)]
pub struct Sym {
    pub name: String,
    pub origin: Origin,
}

/// Dims and small integer values of one output port.
#[derive(Debug, Clone, Default)]
pub(crate) struct PortSym {
    /// `None`: a dynamic rank.
    pub dims: Option<Vec<Expr>>,
    /// The elements of a small integer tensor (at most [`MAX_VALS`]), when known.
    pub vals: Option<Vec<Expr>>,
}

/// Elements of integer tensors tracked as expressions, at most.
pub(crate) const MAX_VALS: usize = 16;

/// The symbolic dims of every output port of a graph (bodies excluded).
pub struct Symbolic {
    syms: Vec<Sym>,
    parent: Vec<SymId>,
    def: Vec<Option<Expr>>,
    /// Per node index, per output port.
    ports: Vec<Vec<PortSym>>,
    /// Names taken, and the next number per fresh-name prefix.
    taken: FastMap<String, SymId>,
    counters: FastMap<&'static str, u32>,
}

impl Symbolic {
    /// Analyze `g` (ports carrying inferred shapes). `overrides` give user names of input dims.
    pub fn of(g: &Graph, weights: Option<&Weights>, overrides: &[InputOverride]) -> Symbolic {
        let mut s = Symbolic {
            syms: Vec::new(),
            parent: Vec::new(),
            def: Vec::new(),
            ports: vec![Vec::new(); g.node_bound()],
            taken: FastMap::default(),
            counters: FastMap::default(),
        };
        let Some(order) = g.ordered() else { return s };
        // Inputs first, in order, so their symbols have the lowest ids (they become the names
        // shown for every dim made equal to one of them).
        let user_names: std::collections::BTreeSet<String> = overrides
            .iter()
            .flat_map(|o| o.dim_names.iter().flatten().cloned())
            .collect();
        for &n in &order {
            if g[n].is("Parameter") {
                s.parameter(g, n, overrides, &user_names);
            }
        }
        for &n in &order {
            if g[n].is("Parameter") {
                continue;
            }
            rules::visit(&mut s, g, weights, n);
        }
        s
    }

    /// The symbol table: every symbol ever made, aliases included (see [`Self::free`]).
    pub fn symbols(&self) -> &[Sym] {
        &self.syms
    }

    /// The symbols dims are expressed in: those not made equal to another or defined.
    pub fn free(&self) -> Vec<&Sym> {
        (0..self.syms.len() as SymId)
            .filter(|&i| self.find(i) == i && self.def[i as usize].is_none())
            .map(|i| &self.syms[i as usize])
            .collect()
    }

    /// Whether symbol `s` (as [`Expr::syms`] lists them, resolved) is a model input's dim.
    pub fn is_input_symbol(&self, s: SymId) -> bool {
        self.syms
            .get(s as usize)
            .is_some_and(|x| matches!(x.origin, Origin::Input { .. }))
    }

    /// The dims of output `o` of `n`, resolved (`None` for a dynamic rank or an unknown port).
    pub fn dims(&self, n: NodeId, o: usize) -> Option<Vec<Expr>> {
        let d = self.ports.get(n.index())?.get(o)?.dims.as_ref()?;
        Some(d.iter().map(|e| self.resolve(e)).collect())
    }

    /// `symbolic` of a port for reports: per dim `None` where `shape` has it static, else the
    /// expression (which may be a number inference did not find).
    pub fn symbolic(
        &self,
        n: NodeId,
        o: usize,
        shape: &PartialShape,
    ) -> Option<Vec<Option<String>>> {
        let d = self.dims(n, o)?;
        let s = shape.dims()?;
        if s.len() != d.len() {
            return None;
        }
        Some(
            d.iter()
                .zip(s)
                .map(|(e, dim)| match dim.is_static() {
                    true => None,
                    false => Some(self.show(e)),
                })
                .collect(),
        )
    }

    /// An expression as text with the symbols' names.
    pub fn show(&self, e: &Expr) -> String {
        e.show(&|s| self.syms[s as usize].name.clone())
    }

    /// The port's shape as text: `[batch,seq,96]`, a dynamic dim with bounds as `seq:1..8`,
    /// one whose expression is a number inference did not find as `16:?`, `[...]` for a
    /// dynamic rank.
    pub fn shape_text(&self, n: NodeId, o: usize, shape: &PartialShape) -> String {
        let plain = || crate::ir::shape::Bracketed(shape).to_string();
        if shape.is_static() {
            return plain();
        }
        let (Some(d), Some(dims)) = (shape.dims(), self.dims(n, o)) else {
            return plain();
        };
        if d.len() != dims.len() {
            return plain();
        }
        let parts: Vec<String> = d
            .iter()
            .zip(&dims)
            .map(|(dim, e)| match (dim.get(), dim.min, dim.max()) {
                (Some(v), _, _) => v.to_string(),
                // A number inference did not find (`16:?`): it is not static to OpenVINO.
                (None, _, _) if e.as_const().is_some() => format!("{}:{dim}", self.show(e)),
                (None, 0, None) => self.show(e),
                // The interval beside the expression: `seq:1..8`.
                (None, _, _) => format!("{}:{dim}", self.show(e)),
            })
            .collect();
        format!("[{}]", parts.join(","))
    }

    // ------------------------------------------------------------------ symbols

    fn new_sym(&mut self, name: String, origin: Origin) -> SymId {
        let id = self.syms.len() as SymId;
        self.taken.insert(name.clone(), id);
        self.syms.push(Sym { name, origin });
        self.parent.push(id);
        self.def.push(None);
        id
    }

    /// A fresh symbol named `prefix` + a number, for `origin`.
    pub(crate) fn fresh(&mut self, prefix: &'static str, origin: Origin) -> Expr {
        loop {
            let k = self.counters.entry(prefix).or_insert(0);
            let name = format!("{prefix}{k}");
            *k += 1;
            if !self.taken.contains_key(&name) {
                return Expr::sym(self.new_sym(name, origin));
            }
        }
    }

    /// A symbol by name (one name, one symbol: the user's word), made when new.
    fn named(&mut self, name: &str, origin: Origin) -> SymId {
        if let Some(&id) = self.taken.get(name) {
            return id;
        }
        self.new_sym(name.to_string(), origin)
    }

    fn parameter(
        &mut self,
        g: &Graph,
        n: NodeId,
        overrides: &[InputOverride],
        user_names: &std::collections::BTreeSet<String>,
    ) {
        let l = &g[n];
        let Some(p) = l.outputs.first() else { return };
        let user = overrides
            .iter()
            .find(|o| l.name == o.name || p.names().contains(&o.name));
        // Auto names: the input's smallest tensor name (what OpenVINO calls it), else its
        // friendly name, made an identifier, and the axis.
        let base = ident(p.names().iter().min().unwrap_or(&l.name));
        let dims = p.shape.dims().map(|d| {
            d.iter()
                .enumerate()
                .map(|(axis, dim)| {
                    if let Some(v) = dim.get() {
                        return Expr::c(v as i64);
                    }
                    let origin = Origin::Input {
                        input: l.name.clone(),
                        axis,
                    };
                    let given = user.and_then(|u| u.dim_names.get(axis).cloned().flatten());
                    match given {
                        // One name, one symbol: the user's word.
                        Some(name) => Expr::sym(self.named(&name, origin)),
                        // An auto name never joins another symbol: not one a user gave
                        // (to any input), not another input's whose name cleans the same.
                        None => {
                            let mut name = format!("{base}_{axis}");
                            let mut k = 2;
                            while self.taken.contains_key(&name) || user_names.contains(&name) {
                                name = format!("{base}_{axis}_{k}");
                                k += 1;
                            }
                            Expr::sym(self.new_sym(name, origin))
                        }
                    }
                })
                .collect()
        });
        self.set(n, 0, PortSym { dims, vals: None });
    }

    pub(crate) fn find(&self, mut s: SymId) -> SymId {
        while self.parent[s as usize] != s {
            s = self.parent[s as usize];
        }
        s
    }

    /// `e` with every symbol replaced by its class's representative or definition.
    pub(crate) fn resolve(&self, e: &Expr) -> Expr {
        // Nearly every dim is a constant, or a symbol nothing was made equal to.
        match e {
            Expr::C(_) => return e.clone(),
            Expr::S(s) if self.parent[*s as usize] == *s && self.def[*s as usize].is_none() => {
                return e.clone()
            }
            _ => {}
        }
        self.resolve_depth(e, 0)
    }

    fn resolve_depth(&self, e: &Expr, depth: u32) -> Expr {
        if depth > 16 {
            return e.clone();
        }
        let mut changed = false;
        let r = e.subst(&mut |s| {
            let root = self.find(s);
            match &self.def[root as usize] {
                Some(d) => {
                    changed = true;
                    Some(d.clone())
                }
                None if root != s => {
                    changed = true;
                    Some(Expr::sym(root))
                }
                None => None,
            }
        });
        match (r, changed) {
            (Some(r), true) => self.resolve_depth(&r, depth + 1),
            _ => e.clone(),
        }
    }

    /// Record that `a` and `b` are equal for every input the model runs on: two symbols become
    /// one (the older stays), or a symbol is defined as the other side. Anything else (two
    /// expressions neither of which is a symbol) is not solved.
    pub(crate) fn unify(&mut self, a: &Expr, b: &Expr) {
        let (a, b) = (self.resolve(a), self.resolve(b));
        if a == b {
            return;
        }
        match (a.as_sym(), b.as_sym()) {
            (Some(x), Some(y)) => {
                let (keep, gone) = if x < y { (x, y) } else { (y, x) };
                self.parent[gone as usize] = keep;
            }
            (Some(x), None) if !b.has(x) => self.def[x as usize] = Some(b),
            (None, Some(y)) if !a.has(y) => self.def[y as usize] = Some(a),
            // `seq+past1 = seq+past2`: solved for the newest symbol that occurs alone with a
            // coefficient of 1 or -1 (`past2 := past1`).
            _ => {
                let Some(d) = a.sub(&b) else { return };
                let Some((x, rest)) = d.solve_for_newest() else {
                    return;
                };
                match rest.as_sym() {
                    Some(y) => {
                        let (keep, gone) = if x < y { (x, y) } else { (y, x) };
                        self.parent[gone as usize] = keep;
                    }
                    None => self.def[x as usize] = Some(rest),
                }
            }
        }
    }

    pub(crate) fn port(&self, p: Option<(NodeId, usize)>) -> Option<&PortSym> {
        let (n, o) = p?;
        self.ports.get(n.index())?.get(o)
    }

    pub(crate) fn set(&mut self, n: NodeId, o: usize, p: PortSym) {
        let Some(v) = self.ports.get_mut(n.index()) else {
            return;
        };
        if v.len() <= o {
            v.resize(o + 1, PortSym::default());
        }
        v[o] = p;
    }
}

/// `s` as an identifier: other characters as `_`, a leading digit prefixed.
fn ident(s: &str) -> String {
    let mut out: String = s
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
        .collect();
    if out.is_empty() || out.starts_with(|c: char| c.is_ascii_digit()) {
        out.insert(0, 'd');
    }
    out
}
