//! A layered (Sugiyama) layout, top to bottom: rank by longest path, order each rank by the
//! barycentre of its neighbours, then place boxes horizontally as close to their neighbours as
//! the order allows (each sweep an exact least-squares placement, pool-adjacent-violators).
//!
//! Linear in nodes plus edges per sweep; an edge spanning many ranks is not threaded through
//! dummy nodes (a mask read by every layer of a 100k-layer graph would add millions) but
//! drawn directly ([`Route::long`]).

/// Horizontal gap between boxes, vertical gap between ranks (edge labels sit in it).
pub const HGAP: f64 = 24.0;
pub const VGAP: f64 = 40.0;
/// Edges spanning more ranks than this are drawn without dummy nodes.
const MAX_SPAN: usize = 8;
/// Ordering and placement sweeps.
const SWEEPS: usize = 4;

#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Size {
    pub w: f64,
    pub h: f64,
}

/// One edge's route: the points it passes through, from the source box's bottom to the target
/// box's top.
#[derive(Debug, Clone, PartialEq)]
pub struct Route {
    pub points: Vec<(f64, f64)>,
    /// Drawn straight across the ranks between (no dummy nodes).
    pub long: bool,
}

#[derive(Debug, Clone)]
pub struct Layout {
    /// Top-left corner of each box.
    pub pos: Vec<(f64, f64)>,
    pub routes: Vec<Route>,
    pub width: f64,
    pub height: f64,
}

/// An edge between boxes, with where it leaves and enters them as a fraction of the width.
#[derive(Debug, Clone, Copy)]
pub struct LEdge {
    pub from: usize,
    pub to: usize,
    pub from_frac: f64,
    pub to_frac: f64,
    /// How strongly the edge pulls its ends together (a constant's edge pulls little: the
    /// constant moves to its reader, not the reader to it).
    pub weight: f64,
}

/// Lay out boxes of the given sizes. `edges` should form a DAG over node indices given in a
/// topological order; an edge that goes backwards in that order is drawn but does not
/// constrain the ranks.
pub fn layout(sizes: &[Size], edges: &[LEdge]) -> Layout {
    let n = sizes.len();
    if n == 0 {
        return Layout {
            pos: Vec::new(),
            routes: Vec::new(),
            width: 0.0,
            height: 0.0,
        };
    }
    let rank = ranks(n, edges);
    // Dummy nodes for edges spanning a few ranks.
    let Dummies {
        node_rank,
        node_size,
        chains,
        up,
        down,
    } = with_dummies(sizes, edges, &rank);
    let total = node_rank.len();
    // A box's weight in placement: its heaviest edge's (a constant gives way to its reader).
    let heft: Vec<f64> = (0..total)
        .map(|v| {
            up[v]
                .iter()
                .chain(&down[v])
                .map(|a| a.1)
                .fold(0.0, f64::max)
        })
        .map(|w| if w > 0.0 { w } else { 1.0 })
        .collect();
    let nranks = node_rank.iter().max().map_or(0, |&r| r + 1);
    let mut ranks: Vec<Vec<usize>> = vec![Vec::new(); nranks];
    for v in 0..total {
        ranks[node_rank[v]].push(v);
    }
    // Order: barycentre sweeps, down then up.
    order_ranks(&mut ranks, &up, &down);
    // Horizontal placement: pack, then sweeps towards the neighbours' centres.
    let mut cx = place_x(&ranks, &up, &down, &node_size, &heft);
    let minx = (0..total)
        .map(|v| cx[v] - node_size[v].w / 2.0)
        .fold(f64::INFINITY, f64::min);
    let mut width: f64 = 0.0;
    for v in 0..total {
        cx[v] -= minx;
        width = width.max(cx[v] + node_size[v].w / 2.0);
    }
    // Vertical: each rank as tall as its tallest box.
    let mut rank_y = vec![0f64; nranks + 1];
    for r in 0..nranks {
        let h = ranks[r].iter().map(|&v| node_size[v].h).fold(0.0, f64::max);
        rank_y[r + 1] = rank_y[r] + h + VGAP;
    }
    let height = rank_y[nranks] - VGAP;
    let rank_h = |r: usize| rank_y[r + 1] - rank_y[r] - VGAP;
    let mut pos = vec![(0.0, 0.0); n];
    for v in 0..n {
        let r = node_rank[v];
        // Boxes are centred in their rank's band.
        let y = rank_y[r] + (rank_h(r) - sizes[v].h) / 2.0;
        pos[v] = (cx[v] - sizes[v].w / 2.0, y);
    }
    let routes = route_edges(sizes, edges, &chains, &pos, &node_rank, &cx, &rank_y);
    Layout {
        pos,
        routes,
        width,
        height: height.max(0.0),
    }
}

/// Ranks: the longest path from the sources, in the given (topological) order; then every
/// box just above its first reader.
fn ranks(n: usize, edges: &[LEdge]) -> Vec<usize> {
    let mut preds: Vec<Vec<usize>> = vec![Vec::new(); n];
    let mut succs: Vec<Vec<usize>> = vec![Vec::new(); n];
    for e in edges {
        if e.from < e.to {
            preds[e.to].push(e.from);
            succs[e.from].push(e.to);
        }
    }
    let mut rank = vec![0usize; n];
    for v in 0..n {
        rank[v] = preds[v].iter().map(|&u| rank[u] + 1).max().unwrap_or(0);
    }
    // Every box sits just above its first reader, not as high as its inputs allow: sources
    // (constants, inputs) and chains read only deep down (state, masks) come down to where
    // they are used. In reverse order, so a reader's rank is final before its producers move.
    for v in (0..n).rev() {
        if let Some(m) = succs[v].iter().map(|&s| rank[s]).min() {
            rank[v] = rank[v].max(m.saturating_sub(1));
        }
    }
    rank
}

/// The layout nodes: the boxes and the dummies of edges spanning a few ranks.
struct Dummies {
    node_rank: Vec<usize>,
    node_size: Vec<Size>,
    /// Per edge: the chain of layout nodes it passes through (dummies), or None when long.
    chains: Vec<Option<Vec<usize>>>,
    /// Adjacency over layout nodes (real + dummies) between consecutive ranks.
    up: Vec<Vec<(usize, f64)>>,
    down: Vec<Vec<(usize, f64)>>,
}

/// Dummy nodes for edges spanning a few ranks (at most `MAX_SPAN`); longer ones stay unrouted.
fn with_dummies(sizes: &[Size], edges: &[LEdge], rank: &[usize]) -> Dummies {
    let n = sizes.len();
    let mut node_rank = rank.to_vec();
    let mut node_size: Vec<Size> = sizes.to_vec();
    // Per edge: the chain of layout nodes it passes through (dummies), or None when long.
    let mut chains: Vec<Option<Vec<usize>>> = Vec::with_capacity(edges.len());
    // Adjacency over layout nodes (real + dummies) between consecutive ranks.
    let mut up: Vec<Vec<(usize, f64)>> = vec![Vec::new(); n];
    let mut down: Vec<Vec<(usize, f64)>> = vec![Vec::new(); n];
    for e in edges {
        let (ru, rv) = (rank[e.from], rank[e.to]);
        if e.from >= e.to || rv <= ru || rv - ru > MAX_SPAN {
            chains.push(None);
            continue;
        }
        let mut chain = Vec::new();
        let mut prev = e.from;
        for r in ru + 1..rv {
            let d = node_rank.len();
            node_rank.push(r);
            node_size.push(Size { w: 8.0, h: 0.0 });
            up.push(Vec::new());
            down.push(Vec::new());
            down[prev].push((d, e.weight));
            up[d].push((prev, e.weight));
            chain.push(d);
            prev = d;
        }
        down[prev].push((e.to, e.weight));
        up[e.to].push((prev, e.weight));
        chains.push(Some(chain));
    }
    Dummies {
        node_rank,
        node_size,
        chains,
        up,
        down,
    }
}

/// The order within each rank: barycentre sweeps, down then up.
fn order_ranks(ranks: &mut [Vec<usize>], up: &[Vec<(usize, f64)>], down: &[Vec<(usize, f64)>]) {
    let nranks = ranks.len();
    let total = up.len();
    let mut idx = vec![0f64; total];
    for r in ranks.iter() {
        for (i, &v) in r.iter().enumerate() {
            idx[v] = i as f64;
        }
    }
    for s in 0..SWEEPS * 2 {
        let downward = s % 2 == 0;
        let order: Vec<usize> = if downward {
            (1..nranks).collect()
        } else {
            (0..nranks.saturating_sub(1)).rev().collect()
        };
        for r in order {
            let nb = if downward { up } else { down };
            let mut keyed: Vec<(f64, usize)> = ranks[r]
                .iter()
                .map(|&v| {
                    let adj = &nb[v];
                    let wsum: f64 = adj.iter().map(|a| a.1).sum();
                    let b = if adj.is_empty() || wsum <= 0.0 {
                        idx[v]
                    } else {
                        adj.iter().map(|&(u, w)| idx[u] * w).sum::<f64>() / wsum
                    };
                    (b, v)
                })
                .collect();
            keyed.sort_by(|a, b| a.0.total_cmp(&b.0));
            ranks[r] = keyed.into_iter().map(|(_, v)| v).collect();
            for (i, &v) in ranks[r].iter().enumerate() {
                idx[v] = i as f64;
            }
        }
    }
}

/// Horizontal centres: packed, then sweeps towards the neighbours' centres.
fn place_x(
    ranks: &[Vec<usize>],
    up: &[Vec<(usize, f64)>],
    down: &[Vec<(usize, f64)>],
    node_size: &[Size],
    heft: &[f64],
) -> Vec<f64> {
    let nranks = ranks.len();
    let total = node_size.len();
    let mut cx = vec![0f64; total];
    for r in ranks {
        let mut x = 0.0;
        for &v in r {
            cx[v] = x + node_size[v].w / 2.0;
            x += node_size[v].w + HGAP;
        }
    }
    for s in 0..SWEEPS * 2 + 1 {
        let both = s == SWEEPS * 2;
        let downward = s % 2 == 0;
        let order: Vec<usize> = if both || downward {
            (0..nranks).collect()
        } else {
            (0..nranks).rev().collect()
        };
        for r in order {
            let want: Vec<f64> = ranks[r]
                .iter()
                .map(|&v| {
                    let mut sum = 0.0;
                    let mut k = 0.0;
                    let lists: [&Vec<(usize, f64)>; 2] = [&up[v], &down[v]];
                    for (i, l) in lists.iter().enumerate() {
                        let use_it = both || (downward == (i == 0));
                        if use_it {
                            for &(u, w) in l.iter() {
                                sum += cx[u] * w;
                                k += w;
                            }
                        }
                    }
                    if k <= 0.0 {
                        cx[v]
                    } else {
                        sum / k
                    }
                })
                .collect();
            let widths: Vec<f64> = ranks[r].iter().map(|&v| node_size[v].w).collect();
            let weights: Vec<f64> = ranks[r].iter().map(|&v| heft[v]).collect();
            let placed = place(&want, &widths, &weights);
            for (i, &v) in ranks[r].iter().enumerate() {
                cx[v] = placed[i];
            }
        }
    }
    cx
}

/// Each edge's route: from the source's bottom to the target's top, through its dummies.
fn route_edges(
    sizes: &[Size],
    edges: &[LEdge],
    chains: &[Option<Vec<usize>>],
    pos: &[(f64, f64)],
    node_rank: &[usize],
    cx: &[f64],
    rank_y: &[f64],
) -> Vec<Route> {
    let rank_h = |r: usize| rank_y[r + 1] - rank_y[r] - VGAP;
    edges
        .iter()
        .zip(chains)
        .map(|(e, chain)| {
            let (sx, sy) = pos[e.from];
            let (tx, ty) = pos[e.to];
            let a = (sx + sizes[e.from].w * e.from_frac, sy + sizes[e.from].h);
            let b = (tx + sizes[e.to].w * e.to_frac, ty);
            let mut points = vec![a];
            if let Some(c) = chain {
                for &d in c {
                    let r = node_rank[d];
                    points.push((cx[d], rank_y[r]));
                    points.push((cx[d], rank_y[r] + rank_h(r)));
                }
            }
            points.push(b);
            Route {
                points,
                long: chain.is_none(),
            }
        })
        .collect()
}

/// Centres as close (weighted least squares) to `want` as the order and the boxes' widths
/// allow: `x[i+1] - x[i] >= (w[i] + w[i+1]) / 2 + HGAP`. Subtracting each box's minimal offset
/// turns this into isotonic regression, solved exactly by pooling adjacent violators.
pub fn place(want: &[f64], widths: &[f64], weights: &[f64]) -> Vec<f64> {
    let n = want.len();
    let mut off = vec![0f64; n];
    for i in 1..n {
        off[i] = off[i - 1] + (widths[i - 1] + widths[i]) / 2.0 + HGAP;
    }
    // Pools of (weighted mean, weight, count).
    let mut pools: Vec<(f64, f64, usize)> = Vec::with_capacity(n);
    for i in 0..n {
        let mut cur = (want[i] - off[i], weights[i], 1usize);
        while let Some(&(m, w, c)) = pools.last() {
            if m <= cur.0 {
                break;
            }
            pools.pop();
            let wk = w + cur.1;
            cur = ((m * w + cur.0 * cur.1) / wk, wk, c + cur.2);
        }
        pools.push(cur);
    }
    let mut out = Vec::with_capacity(n);
    for (m, _, c) in pools {
        for _ in 0..c {
            let i = out.len();
            out.push(m + off[i]);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn placement_keeps_order_and_gaps_and_is_least_squares() {
        let widths = [40.0, 60.0, 20.0];
        // Wanted centres that collide: pooled around their mean.
        let x = place(&[100.0, 100.0, 100.0], &widths, &[1.0; 3]);
        for i in 1..3 {
            let gap = x[i] - x[i - 1] - (widths[i - 1] + widths[i]) / 2.0;
            assert!((gap - HGAP).abs() < 1e-9, "{x:?}");
        }
        let mean = x.iter().sum::<f64>() / 3.0;
        // The offsets' mean is pooled onto the wanted mean.
        assert!((mean - 100.0).abs() < 1e-9, "{x:?}");
        // Wanted centres far apart are kept as they are.
        assert_eq!(
            place(&[0.0, 500.0], &[10.0, 10.0], &[1.0; 2]),
            vec![0.0, 500.0]
        );
        // A light box gives way: the heavy one stays (almost) where it wants to be.
        let x = place(&[100.0, 100.0], &[10.0, 10.0], &[1.0, 0.001]);
        assert!((x[0] - 100.0).abs() < 0.1 && x[1] > 130.0, "{x:?}");
    }

    #[test]
    fn ranks_follow_edges_and_boxes_do_not_overlap() {
        // A diamond, and a source (3) that should sit just above its reader (4).
        let sizes = vec![Size { w: 50.0, h: 20.0 }; 5];
        let e = |from, to| LEdge {
            from,
            to,
            from_frac: 0.5,
            to_frac: 0.5,
            weight: 1.0,
        };
        let edges = [e(0, 1), e(0, 2), e(1, 4), e(2, 4), e(3, 4)];
        let l = layout(&sizes, &edges);
        let y: Vec<f64> = l.pos.iter().map(|p| p.1).collect();
        assert!(y[0] < y[1] && y[1] == y[2] && y[2] < y[4]);
        // Node 3 (a source) is one rank above its reader.
        assert_eq!(y[3], y[1]);
        for i in 0..5 {
            for j in i + 1..5 {
                if y[i] == y[j] {
                    let (a, b) = (l.pos[i].0, l.pos[j].0);
                    assert!((a - b).abs() >= 50.0 + HGAP - 1e-9, "{:?}", l.pos);
                }
            }
        }
        // Every route starts at its source's bottom and ends at its target's top.
        for (r, e) in l.routes.iter().zip(&edges) {
            assert_eq!(r.points.first().unwrap().1, l.pos[e.from].1 + 20.0);
            assert_eq!(r.points.last().unwrap().1, l.pos[e.to].1);
        }
    }
}
