//! Sharing identical constants (the last step of `fold`): unnamed Consts with the same element
//! type, shape, rt_info and bytes become one, the first in the graph's order.
//!
//! On a big model what the read gave can be compared ahead ([`ahead`]), on the second core
//! while inference runs: the read model's constants are grouped into classes of equal ones, so
//! the pass reads neither their layers nor their bytes (on a 100k-layer decoder that was 15-20
//! ms of cache misses over 36,800 constants, with nothing else to do for the second core). The
//! constants folding made are compared as before.

use crate::ir::*;
use smallvec::SmallVec;

/// Constants bigger than this are not compared: comparing big ones costs more than it saves.
const MAX_BYTES: usize = 1 << 16;
/// A layer [`Ahead`] found no constant to share.
const NONE: u32 = u32::MAX;

/// The read model's constants, compared ahead: for each layer (by node index) its class of
/// equal constants, or [`NONE`]; each class's key and whole-bytes hash, and the classes by key.
pub struct Ahead {
    /// [`Graph::slot_reuses`] when this was made: while it is the same, an index below
    /// `class.len()` (the node bound then) names the same layer.
    reuses: u64,
    class: Vec<u32>,
    keys: Vec<u64>,
    full: Vec<u64>,
    by_key: FastMap<u64, SmallVec<[u32; 2]>>,
}

/// What [`Ahead`] tells of a layer.
enum Known {
    /// A read layer that is not a constant to share.
    Other,
    /// A read constant of this class, with the class's key.
    Class(u32, u64),
    /// Nothing: a layer made since (or no table, or one made for another state of the graph).
    New,
}

impl Ahead {
    fn known(ahead: Option<&Ahead>, g: &Graph, n: NodeId) -> Known {
        match ahead {
            Some(a) if g.slot_reuses() == a.reuses && n.index() < a.class.len() => {
                match a.class[n.index()] {
                    NONE => Known::Other,
                    c => Known::Class(c, a.keys[c as usize]),
                }
            }
            _ => Known::New,
        }
    }
}

/// The bytes of a constant that may be shared: a Const with one unnamed output whose bytes
/// are at hand (in memory or in the weights) and at most [`MAX_BYTES`].
fn shareable<'x>(l: &'x Layer, weights: Option<&'x Weights>) -> Option<&'x [u8]> {
    if !l.is("Const") || l.outputs.len() != 1 || !l.outputs[0].names().is_empty() {
        return None;
    }
    bytes_of(l, weights).filter(|b| b.len() <= MAX_BYTES)
}

fn bytes_of<'x>(l: &'x Layer, weights: Option<&'x Weights>) -> Option<&'x [u8]> {
    match l.konst.as_ref()? {
        ConstData::Owned(b) => Some(b),
        ConstData::Out { .. } => None,
        ConstData::Bin { offset, size } => weights?
            .bytes()
            .get(*offset as usize..(*offset + *size) as usize),
    }
}

/// A constant's bytes were read from the mapped weights: counted (see `Weights::note_read`).
fn note_read(l: &Layer, b: &[u8], weights: Option<&Weights>) {
    if let (Some(w), Some(ConstData::Bin { .. })) = (weights, &l.konst) {
        w.note_read(b.len());
    }
}

/// The key of a constant with bytes `b`: its type, its shape and at most 64 bytes from each
/// end (its whole bytes are hashed only when another has the same key).
fn key_of(l: &Layer, b: &[u8]) -> u64 {
    let (et, shape) = (
        l.attr("element_type").unwrap_or(""),
        l.attr("shape").unwrap_or(""),
    );
    let ends = if b.len() <= 128 {
        hash_bytes(b)
    } else {
        hash_bytes(&b[..64]) ^ hash_bytes(&b[b.len() - 64..]).rotate_left(3)
    };
    ends ^ hash_bytes(et.as_bytes()).rotate_left(1) ^ hash_bytes(shape.as_bytes()).rotate_left(2)
}

/// Equal constants: bytes, type, shape (without its spaces: "1, 2" is "1,2") and rt_info.
fn same(a: &Layer, b: &Layer, weights: Option<&Weights>) -> bool {
    fn squeezed(x: &str) -> impl Iterator<Item = u8> + '_ {
        x.bytes().filter(|&c| c != b' ')
    }
    fn attr<'l>(l: &'l Layer, k: &str) -> &'l str {
        l.attr(k).unwrap_or("")
    }
    bytes_of(a, weights) == bytes_of(b, weights)
        && attr(a, "element_type") == attr(b, "element_type")
        && squeezed(attr(a, "shape")).eq(squeezed(attr(b, "shape")))
        && a.rt_info == b.rt_info
}

/// Compare the constants of `g` ahead of [`dedup`] (read-only: it runs beside inference).
pub fn ahead(g: &Graph, weights: Option<&Weights>) -> Ahead {
    let mut a = Ahead {
        reuses: g.slot_reuses(),
        class: vec![NONE; g.node_bound()],
        keys: Vec::new(),
        full: Vec::new(),
        by_key: FastMap::default(),
    };
    // The first constant of each class.
    let mut firsts: Vec<NodeId> = Vec::new();
    for n in g.nodes() {
        let l = &g[n];
        let Some(b) = shareable(l, weights) else {
            continue;
        };
        note_read(l, b, weights);
        let k = key_of(l, b);
        let full = hash_bytes(b);
        let list = a.by_key.entry(k).or_default();
        let found = list
            .iter()
            .copied()
            .find(|&c| a.full[c as usize] == full && same(&g[firsts[c as usize]], l, weights));
        a.class[n.index()] = found.unwrap_or_else(|| {
            let c = a.keys.len() as u32;
            a.keys.push(k);
            a.full.push(full);
            firsts.push(n);
            list.push(c);
            c
        });
    }
    a
}

/// A constant kept so far, under its key.
struct Kept {
    n: NodeId,
    /// Its whole bytes' hash, once needed.
    full: Option<u64>,
}

/// Share identical unnamed constants: each becomes the first equal one in the graph's order.
/// `ahead` is what [`ahead`] found for this graph, if anything. How many were shared.
///
/// The constants kept are all different, so a constant has at most one equal kept before it,
/// wherever it is looked for: among the classes' kept ones, or among those kept here.
pub fn dedup(g: &mut Graph, weights: Option<&Weights>, ahead: Option<&Ahead>) -> usize {
    dedup_take(g, weights, ahead).shared
}

/// What [`dedup_take`] did.
pub struct Deduped {
    /// How many constants were shared.
    pub shared: usize,
    /// The constants removed (freed when dropped).
    pub removed: Removed,
    /// [`Graph::ordered`] of the graph as dedup leaves it, when the layers' keys alone
    /// ordered it (see [`Graph::ordered_by_key`]): dedup only removes layers and moves their
    /// readers to an equal constant earlier in that order.
    pub order: Option<Vec<NodeId>>,
}

/// [`dedup`], handing back the removed constants and the order.
pub fn dedup_take(g: &mut Graph, weights: Option<&Weights>, ahead: Option<&Ahead>) -> Deduped {
    let Some((order, sorted)) = g.ordered_by_key() else {
        return Deduped {
            shared: 0,
            removed: Removed::default(),
            order: None,
        };
    };
    // Find duplicates in a read-only pass (bytes are borrowed, keys are hashes), then merge.
    let mut merges: Vec<(NodeId, NodeId)> = Vec::new();
    // The kept constant of each class of `ahead`, once there is one.
    let mut kept_of: Vec<Option<NodeId>> = vec![None; ahead.map_or(0, |a| a.keys.len())];
    // Other kept constants (all of them without `ahead`), by key.
    let mut seen: FastMap<u64, Vec<Kept>> = FastMap::default();
    let hash = |m: NodeId| bytes_of(&g[m], weights).map_or(0, hash_bytes);
    for &n in &order {
        // This constant's whole-bytes hash, once needed.
        let mut full = None;
        // An equal constant among those kept here under `key` (whole-byte hashes first, so
        // many big constants that differ only inside are not compared byte by byte).
        let kept_here = |seen: &mut FastMap<u64, Vec<Kept>>, key: u64, full: &mut Option<u64>| {
            seen.get_mut(&key)?.iter_mut().find_map(|k| {
                let hn = *full.get_or_insert_with(|| hash(n));
                let hk = *k.full.get_or_insert_with(|| hash(k.n));
                (hk == hn && same(&g[k.n], &g[n], weights)).then_some(k.n)
            })
        };
        match Ahead::known(ahead, g, n) {
            Known::Other => {}
            Known::Class(c, key) => {
                debug_assert_eq!(
                    shareable(&g[n], weights).map(|b| key_of(&g[n], b)),
                    Some(key),
                    "{} changed since it was compared ahead",
                    g[n].label()
                );
                let kept = &mut kept_of[c as usize];
                match kept.or_else(|| kept_here(&mut seen, key, &mut full)) {
                    Some(k) => {
                        merges.push((n, k));
                        *kept = Some(k);
                    }
                    None => *kept = Some(n),
                }
            }
            Known::New => {
                let l = &g[n];
                let Some(b) = shareable(l, weights) else {
                    continue;
                };
                note_read(l, b, weights);
                let key = key_of(l, b);
                // A kept constant of a class with this key, else one kept here.
                let of_class = ahead.and_then(|a| {
                    let classes = a.by_key.get(&key)?;
                    classes.iter().find_map(|&c| {
                        let k = kept_of[c as usize]?;
                        let equal = a.full[c as usize] == *full.get_or_insert_with(|| hash(n))
                            && same(&g[k], l, weights);
                        equal.then_some(k)
                    })
                });
                match of_class.or_else(|| kept_here(&mut seen, key, &mut full)) {
                    Some(k) => merges.push((n, k)),
                    None => seen.entry(key).or_default().push(Kept { n, full }),
                }
            }
        }
    }
    for &(n, keep) in &merges {
        g.replace_uses((n, 0), (keep, 0));
    }
    // One batch: removing them one by one walks the graph's edge lists each time.
    let dead: Vec<NodeId> = merges.iter().map(|m| m.0).collect();
    let order = sorted.then(|| {
        let mut gone = vec![false; g.node_bound()];
        for n in &dead {
            gone[n.index()] = true;
        }
        let mut order = order;
        order.retain(|&n| !gone[n.index()]);
        order
    });
    Deduped {
        shared: merges.len(),
        removed: g.take_layers(&dead),
        order,
    }
}
