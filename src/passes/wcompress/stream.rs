//! Weights through memory, a piece at a time: each weight is read from the mapped input `.bin`
//! in chunks of rows (the mapped pages handed back to the kernel as it goes), its codes written
//! to the output `.bin` as they are computed, its scales and zero points (1/16 of the codes or
//! less) after them. Rows split between two threads. Nothing holds a whole tensor.

use super::kernel::{self, group_codes};
use super::lower::{pairwise_sum, Lowering, Params};
use crate::ir::*;
use std::io::{self, Write};

/// A weight's values as groups: `outer` blocks of `r` rows of `inner` contiguous values; each
/// of a block's `inner` columns is one group of `r` values (`inner == 1`: each row of `r`
/// contiguous values is a group).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Geo {
    pub outer: usize,
    pub r: usize,
    pub inner: usize,
}

impl Geo {
    /// The groups of a weight of `shape` reduced over `axes` (a contiguous run), with
    /// `group` values a group along the single axis (`None`: per channel, the whole run).
    /// `None` when the axes are not contiguous or a group does not divide its axis.
    pub fn of(shape: &[usize], axes: &[usize], group: Option<usize>) -> Option<Geo> {
        let (&a, &b) = (axes.first()?, axes.last()?);
        if b >= shape.len() || axes.windows(2).any(|w| w[1] != w[0] + 1) {
            return None;
        }
        let before: usize = shape[..a].iter().product();
        let run: usize = shape[a..=b].iter().product();
        let inner: usize = shape[b + 1..].iter().product();
        match group {
            None => Some(Geo {
                outer: before,
                r: run,
                inner,
            }),
            Some(g) if a == b && g > 0 && run.is_multiple_of(g) => Some(Geo {
                outer: before * (run / g),
                r: g,
                inner,
            }),
            Some(_) => None,
        }
    }

    pub fn elements(&self) -> usize {
        self.outer * self.r * self.inner
    }

    pub fn groups(&self) -> usize {
        self.outer * self.inner
    }
}

/// A weight's source: where its bytes are and their element type (f16, bf16 or f32).
#[derive(Debug, Clone)]
pub struct Source {
    pub data: ConstData,
    pub et: ElementType,
}

/// One weight to compress and where its parts go in the output `.bin`.
#[derive(Debug, Clone)]
pub struct Job {
    pub src: Source,
    pub geo: Geo,
    pub lowering: Lowering,
    pub codes: (u64, u64),
    /// (offset, size) of the zero points; size 0 for modes without.
    pub zp: (u64, u64),
    pub scale: (u64, u64),
}

/// Bytes of `n` codes of `bits` each, packed.
pub fn packed_len(n: usize, bits: u32) -> u64 {
    (n as u64 * bits as u64).div_ceil(8)
}

/// The source bytes of `s` (a range of the mapped `.bin`, or bytes irc holds).
fn source_bytes<'a>(s: &'a Source, weights: Option<&'a Weights>) -> io::Result<&'a [u8]> {
    let bad = || {
        io::Error::new(
            io::ErrorKind::InvalidData,
            "a weight's bytes are outside the .bin",
        )
    };
    match &s.data {
        ConstData::Owned(b) => Ok(b),
        ConstData::Bin { offset, size } => {
            let w = weights.ok_or_else(bad)?;
            let start = usize::try_from(*offset).map_err(|_| bad())?;
            let end = start
                .checked_add(usize::try_from(*size).map_err(|_| bad())?)
                .ok_or_else(bad)?;
            w.bytes().get(start..end).ok_or_else(bad)
        }
        ConstData::Out { .. } => Err(bad()),
    }
}

fn elem_size(et: ElementType) -> usize {
    match et {
        ElementType::F32 => 4,
        _ => 2,
    }
}

/// Values `[from, from + out.len())` of the source, as f32.
fn decode(bytes: &[u8], et: ElementType, from: usize, out: &mut [f32]) {
    let sz = elem_size(et);
    let src = &bytes[from * sz..(from + out.len()) * sz];
    match et {
        ElementType::F32 => {
            for (o, c) in out.iter_mut().zip(src.chunks_exact(4)) {
                *o = f32::from_le_bytes([c[0], c[1], c[2], c[3]]);
            }
        }
        ElementType::Bf16 => {
            for (o, c) in out.iter_mut().zip(src.chunks_exact(2)) {
                *o = f32::from_bits((u16::from_le_bytes([c[0], c[1]]) as u32) << 16);
            }
        }
        _ => kernel::f16_to_f32(src, out),
    }
}

/// Packs codes of `bits` (8 or 4) into bytes, element 2j in the low nibble of byte j.
struct Packer {
    bits: u32,
    out: Vec<u8>,
    half: Option<u8>,
}

impl Packer {
    fn new(bits: u32, cap: usize) -> Self {
        Packer {
            bits,
            out: Vec::with_capacity(cap),
            half: None,
        }
    }

    #[inline]
    fn push(&mut self, c: u8) {
        if self.bits == 8 {
            self.out.push(c);
        } else if let Some(lo) = self.half.take() {
            self.out.push(lo | (c << 4));
        } else {
            self.half = Some(c & 0x0f);
        }
    }

    /// Push codes `cs` in order (a nibble left waiting before them is completed first).
    fn push_all(&mut self, cs: &[u8]) {
        if self.bits == 8 {
            self.out.extend_from_slice(cs);
            return;
        }
        let mut cs = cs;
        if let (Some(lo), Some((&c, rest))) = (self.half, cs.split_first()) {
            self.out.push(lo | (c << 4));
            self.half = None;
            cs = rest;
        }
        let start = self.out.len();
        self.out.resize(start + cs.len() / 2, 0);
        kernel::pack_nibbles(cs, &mut self.out[start..]);
        if let Some(&c) = cs.chunks_exact(2).remainder().first() {
            self.half = Some(c & 0x0f);
        }
    }

    fn finish(mut self) -> Vec<u8> {
        if let Some(lo) = self.half.take() {
            self.out.push(lo);
        }
        self.out
    }
}

/// Codes and group parameters of rows `[a, b)` of a row-grouped weight (`inner == 1`).
fn rows(
    bytes: &[u8],
    et: ElementType,
    low: Lowering,
    r: usize,
    a: usize,
    b: usize,
) -> (Vec<u8>, Vec<Params>) {
    let (mut vals, mut codes) = (vec![0f32; r], vec![0u8; r]);
    let n = (b - a) * r;
    let mut pk = Packer::new(low.bits(), packed_len(n, low.bits()) as usize);
    let mut ps = Vec::with_capacity(b - a);
    for row in a..b {
        decode(bytes, et, row * r, &mut vals);
        ps.push(group_codes(low, &vals, &mut codes));
        pk.push_all(&codes);
    }
    (pk.finish(), ps)
}

/// Rows a chunk holds: about 4 MiB of source values.
fn chunk_rows(r: usize, et: ElementType) -> usize {
    ((4 << 20) / (r * elem_size(et)).max(1)).max(1)
}

/// Write the parts of `job` at the sink's current position (which must be `job.codes.0`).
/// `progress` is told the source bytes done.
pub fn write_job<W: Write>(
    job: &Job,
    weights: Option<&Weights>,
    out: &mut W,
    progress: &mut dyn FnMut(u64),
) -> io::Result<()> {
    let bytes = source_bytes(&job.src, weights)?;
    let (inner, low) = (job.geo.inner, job.lowering);
    let esz = elem_size(job.src.et);
    if bytes.len() != job.geo.elements() * esz {
        return Err(io::Error::new(
            io::ErrorKind::InvalidData,
            "a weight's byte size does not match its shape",
        ));
    }
    let mut params: Vec<Params> = Vec::with_capacity(job.geo.groups());
    let release = |n: usize| {
        if let (Some(w), ConstData::Bin { .. }) = (weights, &job.src.data) {
            w.note_read(n);
        }
    };
    if inner == 1 {
        write_row_groups(job, bytes, out, &mut params, &release, progress)?;
    } else {
        write_column_groups(job, bytes, out, &mut params, &release, progress)?;
    }
    write_params(out, low, &params)
}

/// Writes the codes of a weight whose rows are its groups (`inner == 1`), chunk by chunk on
/// two threads, adding each group's parameters to `params`.
fn write_row_groups<W: Write>(
    job: &Job,
    bytes: &[u8],
    out: &mut W,
    params: &mut Vec<Params>,
    release: &dyn Fn(usize),
    progress: &mut dyn FnMut(u64),
) -> io::Result<()> {
    let Geo { outer, r, .. } = job.geo;
    let (et, low) = (job.src.et, job.lowering);
    let esz = elem_size(et);
    // Rows are groups: chunks of rows, each chunk's rows split between two threads at an
    // even element (4-bit codes pack two to a byte); while the helper computes its half,
    // this thread first writes the chunk before, then computes the other half.
    let step = chunk_rows(r, et);
    let mut pending_nibble: Option<u8> = None;
    let mut done: Vec<(Vec<u8>, Vec<Params>)> = Vec::new();
    let mut put = |parts: Vec<(Vec<u8>, Vec<Params>)>, params: &mut Vec<Params>| {
        for (codes, ps) in parts {
            write_codes(out, &codes, ps.len() * r, low.bits(), &mut pending_nibble)?;
            params.extend(ps);
        }
        io::Result::Ok(())
    };
    let mut row = 0;
    while row < outer {
        let end = (row + step).min(outer);
        let mut mid = row + (end - row) / 2;
        if low.bits() == 4 && ((mid - row) * r) % 2 == 1 {
            mid += 1; // the first half packs whole bytes
        }
        let parallel = (end - row) * r >= 1 << 16 && mid < end && mid > row;
        let before = std::mem::take(&mut done);
        let (parts, wrote) = if parallel {
            std::thread::scope(|s| {
                let h = s.spawn(|| rows(bytes, et, low, r, mid, end));
                let wrote = put(before, params);
                let a = rows(bytes, et, low, r, row, mid);
                let b = h.join().expect("a compression thread panicked");
                (vec![a, b], wrote)
            })
        } else {
            let wrote = put(before, params);
            (vec![rows(bytes, et, low, r, row, end)], wrote)
        };
        wrote?;
        done = parts;
        release((end - row) * r * esz);
        progress(((end - row) * r * esz) as u64);
        row = end;
    }
    put(done, params)?;
    if let Some(lo) = pending_nibble {
        out.write_all(&[lo])?;
    }
    Ok(())
}

/// Writes the codes of a weight whose columns are its groups, block by block, adding each
/// group's parameters to `params`.
fn write_column_groups<W: Write>(
    job: &Job,
    bytes: &[u8],
    out: &mut W,
    params: &mut Vec<Params>,
    release: &dyn Fn(usize),
    progress: &mut dyn FnMut(u64),
) -> io::Result<()> {
    let Geo { outer, r, inner } = job.geo;
    let (et, low) = (job.src.et, job.lowering);
    let esz = elem_size(et);
    // Columns are groups: per block, a pass for the columns' least and greatest values,
    // then one for the codes, row by row.
    let mut pk_state: Option<u8> = None;
    let mut vals = vec![0f32; inner];
    for o in 0..outer {
        let base = o * r * inner;
        let (mut lo, mut hi) = (vec![f32::INFINITY; inner], vec![f32::NEG_INFINITY; inner]);
        for k in 0..r {
            decode(bytes, et, base + k * inner, &mut vals);
            for j in 0..inner {
                lo[j] = lo[j].min(vals[j]);
                hi[j] = hi[j].max(vals[j]);
            }
        }
        let ps: Vec<Params> = (0..inner).map(|j| low.params(lo[j], hi[j])).collect();
        for k in 0..r {
            decode(bytes, et, base + k * inner, &mut vals);
            let mut pk = Packer::new(low.bits(), inner);
            for j in 0..inner {
                pk.push(low.code(vals[j], ps[j]));
            }
            let codes = pk.finish();
            write_codes(out, &codes, inner, low.bits(), &mut pk_state)?;
            release(inner * esz);
        }
        params.extend(ps);
        progress((r * inner * esz) as u64);
    }
    if let Some(lo) = pk_state {
        out.write_all(&[lo])?;
    }
    Ok(())
}

/// Writes the groups' zero points (u8, or u4 packed) when `low` has them, then their scales.
fn write_params<W: Write>(out: &mut W, low: Lowering, params: &[Params]) -> io::Result<()> {
    if low.has_zero_point() {
        let mut pk = Packer::new(low.bits(), params.len());
        for p in params {
            pk.push(p.zp as u8);
        }
        out.write_all(&pk.finish())?;
    }
    let mut sb = Vec::with_capacity(params.len() * 2);
    for p in params {
        low.scale_bytes(*p, &mut sb);
    }
    out.write_all(&sb)
}

/// Write `n` packed codes (4-bit: two a byte, the first in the low nibble) that continue a
/// stream whose last low nibble, if any, waits in `pending`; an odd count leaves its last
/// nibble waiting in turn.
fn write_codes<W: Write>(
    out: &mut W,
    codes: &[u8],
    n: usize,
    bits: u32,
    pending: &mut Option<u8>,
) -> io::Result<()> {
    if bits == 8 {
        return out.write_all(&codes[..n]);
    }
    let Some(lo) = pending.take() else {
        out.write_all(&codes[..n / 2])?;
        if n % 2 == 1 {
            *pending = Some(codes[n / 2] & 0x0f);
        }
        return Ok(());
    };
    // After an odd piece: every nibble moves up one place.
    let mut buf = Vec::with_capacity(n / 2 + 1);
    let mut prev = Some(lo);
    for k in 0..n {
        let c = (codes[k / 2] >> (4 * (k % 2))) & 0x0f;
        match prev.take() {
            Some(l) => buf.push(l | (c << 4)),
            None => prev = Some(c),
        }
    }
    *pending = prev;
    out.write_all(&buf)
}

/// The mixed-precision error of a weight: int8 asymmetric per channel over `geo` (the weight's
/// reduction axes, no groups), `max over channels of mean((dequantized - w)^2)` in f32 as NNCF
/// computes it (numpy's pairwise sum along contiguous rows, sequential down columns).
pub fn int8_error(src: &Source, geo: Geo, weights: Option<&Weights>) -> io::Result<f32> {
    let bytes = source_bytes(src, weights)?;
    let Geo { outer, r, inner } = geo;
    let low = Lowering::Asym { bits: 8 };
    let esz = elem_size(src.et);
    if bytes.len() != geo.elements() * esz {
        return Err(io::Error::new(
            io::ErrorKind::InvalidData,
            "a weight's byte size does not match its shape",
        ));
    }
    let release = |n: usize| {
        if let (Some(w), ConstData::Bin { .. }) = (weights, &src.data) {
            w.note_read(n);
        }
    };
    let mut worst = f32::NEG_INFINITY;
    let row_err = |vals: &[f32], codes: &mut [u8], sq: &mut [f32]| -> f32 {
        let p = group_codes(low, vals, codes);
        for ((d, &c), &w) in sq.iter_mut().zip(codes.iter()).zip(vals) {
            let e = low.dequantize(c, p) - w;
            *d = e * e;
        }
        pairwise_sum(sq) / r as f32
    };
    if inner == 1 {
        let step = chunk_rows(r, src.et);
        let mut row = 0;
        while row < outer {
            let end = (row + step).min(outer);
            let mid = row + (end - row) / 2;
            let part = |a: usize, b: usize| {
                let (mut vals, mut sq, mut codes) = (vec![0f32; r], vec![0f32; r], vec![0u8; r]);
                let mut m = f32::NEG_INFINITY;
                for k in a..b {
                    decode(bytes, src.et, k * r, &mut vals);
                    m = m.max(row_err(&vals, &mut codes, &mut sq));
                }
                m
            };
            let m = if (end - row) * r >= 1 << 16 && mid > row {
                std::thread::scope(|s| {
                    let h = s.spawn(|| part(mid, end));
                    let a = part(row, mid);
                    a.max(h.join().expect("a compression thread panicked"))
                })
            } else {
                part(row, end)
            };
            worst = worst.max(m);
            release((end - row) * r * esz);
            row = end;
        }
    } else {
        let mut vals = vec![0f32; inner];
        for o in 0..outer {
            let base = o * r * inner;
            let (mut lo, mut hi) = (vec![f32::INFINITY; inner], vec![f32::NEG_INFINITY; inner]);
            for k in 0..r {
                decode(bytes, src.et, base + k * inner, &mut vals);
                for j in 0..inner {
                    lo[j] = lo[j].min(vals[j]);
                    hi[j] = hi[j].max(vals[j]);
                }
            }
            let ps: Vec<Params> = (0..inner).map(|j| low.params(lo[j], hi[j])).collect();
            let mut sum = vec![0f32; inner];
            for k in 0..r {
                decode(bytes, src.et, base + k * inner, &mut vals);
                for j in 0..inner {
                    let d = low.dequantize(low.code(vals[j], ps[j]), ps[j]) - vals[j];
                    sum[j] += d * d;
                }
                release(inner * esz);
            }
            for s in sum {
                worst = worst.max(s / r as f32);
            }
        }
    }
    Ok(worst)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn geometry() {
        // [K,N] with transpose_b=false, groups of 16 along K: [K/16, 16, N]
        assert_eq!(
            Geo::of(&[64, 96], &[0], Some(16)),
            Some(Geo {
                outer: 4,
                r: 16,
                inner: 96
            })
        );
        // [N,K] transpose_b=true: rows of 16
        assert_eq!(
            Geo::of(&[64, 96], &[1], Some(16)),
            Some(Geo {
                outer: 64 * 6,
                r: 16,
                inner: 1
            })
        );
        // a convolution per channel over (1,2,3)
        assert_eq!(
            Geo::of(&[8, 3, 3, 3], &[1, 2, 3], None),
            Some(Geo {
                outer: 8,
                r: 27,
                inner: 1
            })
        );
        assert_eq!(Geo::of(&[4, 8, 3], &[0, 2], None), None);
        assert_eq!(Geo::of(&[64, 96], &[1], Some(64)), None);
    }

    #[test]
    fn nibbles_continue_across_pieces() {
        // codes 1,2,3 | 4,5 | 6: one stream 0x21 0x43 0x65
        let mut out = Vec::new();
        let mut pending = None;
        write_codes(&mut out, &[0x21, 0x03], 3, 4, &mut pending).unwrap();
        assert_eq!((out.clone(), pending), (vec![0x21], Some(3)));
        write_codes(&mut out, &[0x54], 2, 4, &mut pending).unwrap();
        assert_eq!((out.clone(), pending), (vec![0x21, 0x43], Some(5)));
        write_codes(&mut out, &[0x06], 1, 4, &mut pending).unwrap();
        assert_eq!((out, pending), (vec![0x21, 0x43, 0x65], None));
    }
}
