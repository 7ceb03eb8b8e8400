//! `.npz` files as `numpy.savez` writes them (a zip of `.npy` arrays, stored without
//! compression), for `irc verify --data`. No crate: the stored-zip and `.npy` formats are small
//! and fixed; `numpy.savez_compressed` files (deflate) are refused with a message saying so.

use std::collections::BTreeMap;

/// One array: numpy's dtype string (`<f4`, `<i8`, `|b1` …), its shape, little-endian bytes.
#[derive(Debug, Clone, PartialEq)]
pub struct Array {
    pub dtype: String,
    pub shape: Vec<u64>,
    pub data: Vec<u8>,
}

fn u16le(b: &[u8], at: usize) -> Option<u16> {
    Some(u16::from_le_bytes(b.get(at..at + 2)?.try_into().ok()?))
}
fn u32le(b: &[u8], at: usize) -> Option<u32> {
    Some(u32::from_le_bytes(b.get(at..at + 4)?.try_into().ok()?))
}
fn u64le(b: &[u8], at: usize) -> Option<u64> {
    Some(u64::from_le_bytes(b.get(at..at + 8)?.try_into().ok()?))
}

/// The arrays of an `.npz` (its bytes), by name (the member name without `.npy`).
pub fn read(bytes: &[u8]) -> Result<BTreeMap<String, Array>, String> {
    let bad = |what: &str| format!("not a numpy .npz file: {what}");
    // The end of central directory record: the last "PK\x05\x06" within the final 64 KiB.
    let from = bytes.len().saturating_sub(65_557);
    let eocd = (from..bytes.len().saturating_sub(21))
        .rev()
        .find(|&i| bytes[i..].starts_with(b"PK\x05\x06"))
        .ok_or_else(|| bad("no zip directory"))?;
    let mut count = u16le(bytes, eocd + 10).ok_or_else(|| bad("short directory"))? as u64;
    let mut cd = u32le(bytes, eocd + 16).ok_or_else(|| bad("short directory"))? as u64;
    // zip64 (numpy uses it past 4 GiB): the locator just before the record.
    if (count == 0xFFFF || cd == 0xFFFF_FFFF) && eocd >= 20 {
        let loc = eocd - 20;
        if bytes[loc..].starts_with(b"PK\x06\x07") {
            let rec = u64le(bytes, loc + 8).ok_or_else(|| bad("zip64"))? as usize;
            if bytes
                .get(rec..)
                .is_some_and(|r| r.starts_with(b"PK\x06\x06"))
            {
                count = u64le(bytes, rec + 32).ok_or_else(|| bad("zip64"))?;
                cd = u64le(bytes, rec + 48).ok_or_else(|| bad("zip64"))?;
            }
        }
    }
    let mut out = BTreeMap::new();
    let mut at = cd as usize;
    for _ in 0..count {
        if !bytes
            .get(at..)
            .is_some_and(|r| r.starts_with(b"PK\x01\x02"))
        {
            return Err(bad("a broken directory entry"));
        }
        let method = u16le(bytes, at + 10).ok_or_else(|| bad("entry"))?;
        let mut csize = u32le(bytes, at + 20).ok_or_else(|| bad("entry"))? as u64;
        let mut local = u32le(bytes, at + 42).ok_or_else(|| bad("entry"))? as u64;
        let nlen = u16le(bytes, at + 28).ok_or_else(|| bad("entry"))? as usize;
        let xlen = u16le(bytes, at + 30).ok_or_else(|| bad("entry"))? as usize;
        let clen = u16le(bytes, at + 32).ok_or_else(|| bad("entry"))? as usize;
        let name = bytes
            .get(at + 46..at + 46 + nlen)
            .ok_or_else(|| bad("entry name"))?;
        let name = String::from_utf8_lossy(name).into_owned();
        // zip64 extra field: the 64-bit sizes/offset of the fields that are 0xFFFFFFFF.
        let mut x = at + 46 + nlen;
        let xend = x + xlen;
        while x + 4 <= xend {
            let (id, len) = (
                u16le(bytes, x).unwrap_or(0),
                u16le(bytes, x + 2).unwrap_or(0) as usize,
            );
            if id == 1 {
                let mut f = x + 4;
                let usize_ = u32le(bytes, at + 24).unwrap_or(0);
                if usize_ == 0xFFFF_FFFF {
                    f += 8;
                }
                if csize == 0xFFFF_FFFF {
                    csize = u64le(bytes, f).ok_or_else(|| bad("zip64 size"))?;
                    f += 8;
                }
                if local == 0xFFFF_FFFF {
                    local = u64le(bytes, f).ok_or_else(|| bad("zip64 offset"))?;
                }
            }
            x += 4 + len;
        }
        at = xend + clen;
        if method != 0 {
            return Err(format!(
                "{name}: compressed (numpy.savez_compressed); irc reads arrays saved with numpy.savez"
            ));
        }
        let l = local as usize;
        if !bytes.get(l..).is_some_and(|r| r.starts_with(b"PK\x03\x04")) {
            return Err(bad("a broken member"));
        }
        let ln = u16le(bytes, l + 26).ok_or_else(|| bad("member"))? as usize;
        let lx = u16le(bytes, l + 28).ok_or_else(|| bad("member"))? as usize;
        let start = l + 30 + ln + lx;
        let body = bytes
            .get(start..start + csize as usize)
            .ok_or_else(|| bad("a member past the end"))?;
        let key = name.strip_suffix(".npy").unwrap_or(&name).to_string();
        let arr = npy(body).map_err(|e| format!("{name}: {e}"))?;
        out.insert(key, arr);
    }
    Ok(out)
}

/// One `.npy` array.
pub fn npy(b: &[u8]) -> Result<Array, String> {
    if !b.starts_with(b"\x93NUMPY") || b.len() < 10 {
        return Err("not a .npy array".into());
    }
    let (hlen, hstart) = match b[6] {
        1 => (u16le(b, 8).unwrap_or(0) as usize, 10),
        2 | 3 => (u32le(b, 8).ok_or("short header")? as usize, 12),
        v => return Err(format!(".npy version {v}")),
    };
    let header = b.get(hstart..hstart + hlen).ok_or("short header")?;
    let header = String::from_utf8_lossy(header);
    let field = |k: &str| -> Option<String> {
        let i = header.find(&format!("'{k}'"))? + k.len() + 2;
        let rest = header[i..].trim_start().strip_prefix(':')?.trim_start();
        Some(rest.to_string())
    };
    let descr = field("descr").ok_or("no descr")?;
    let dtype = descr
        .strip_prefix('\'')
        .and_then(|d| d.split('\'').next())
        .ok_or("descr is not a simple dtype")?
        .to_string();
    if field("fortran_order").is_some_and(|f| f.starts_with("True")) {
        return Err("fortran_order arrays are not read (save a C-contiguous array)".into());
    }
    let shape = field("shape").ok_or("no shape")?;
    let inner = shape
        .strip_prefix('(')
        .and_then(|s| s.split(')').next())
        .ok_or("bad shape")?;
    let shape: Vec<u64> = inner
        .split(',')
        .map(|d| d.trim())
        .filter(|d| !d.is_empty())
        .map(|d| d.parse::<u64>().map_err(|_| format!("bad dim {d}")))
        .collect::<Result<_, _>>()?;
    let data = b[hstart + hlen..].to_vec();
    Ok(Array { dtype, shape, data })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A stored zip of the given members, as numpy.savez writes one.
    fn zip(members: &[(&str, Vec<u8>)]) -> Vec<u8> {
        let mut out = Vec::new();
        let mut cd = Vec::new();
        for (name, body) in members {
            let off = out.len() as u32;
            out.extend_from_slice(b"PK\x03\x04");
            out.extend_from_slice(&[20, 0, 0, 0, 0, 0, 0, 0, 0, 0]);
            out.extend_from_slice(&0u32.to_le_bytes()); // crc (unchecked)
            out.extend_from_slice(&(body.len() as u32).to_le_bytes());
            out.extend_from_slice(&(body.len() as u32).to_le_bytes());
            out.extend_from_slice(&(name.len() as u16).to_le_bytes());
            out.extend_from_slice(&0u16.to_le_bytes());
            out.extend_from_slice(name.as_bytes());
            out.extend_from_slice(body);
            cd.extend_from_slice(b"PK\x01\x02");
            cd.extend_from_slice(&[20, 0, 20, 0, 0, 0, 0, 0, 0, 0, 0, 0]);
            cd.extend_from_slice(&0u32.to_le_bytes());
            cd.extend_from_slice(&(body.len() as u32).to_le_bytes());
            cd.extend_from_slice(&(body.len() as u32).to_le_bytes());
            cd.extend_from_slice(&(name.len() as u16).to_le_bytes());
            cd.extend_from_slice(&[0; 12]);
            cd.extend_from_slice(&off.to_le_bytes());
            cd.extend_from_slice(name.as_bytes());
        }
        let cd_off = out.len() as u32;
        out.extend_from_slice(&cd);
        out.extend_from_slice(b"PK\x05\x06\0\0\0\0");
        out.extend_from_slice(&(members.len() as u16).to_le_bytes());
        out.extend_from_slice(&(members.len() as u16).to_le_bytes());
        out.extend_from_slice(&(cd.len() as u32).to_le_bytes());
        out.extend_from_slice(&cd_off.to_le_bytes());
        out.extend_from_slice(&0u16.to_le_bytes());
        out
    }

    fn npy_bytes(descr: &str, shape: &str, data: &[u8]) -> Vec<u8> {
        let mut h = format!("{{'descr': '{descr}', 'fortran_order': False, 'shape': {shape}, }}");
        while (10 + h.len() + 1) % 64 != 0 {
            h.push(' ');
        }
        h.push('\n');
        let mut b = b"\x93NUMPY\x01\x00".to_vec();
        b.extend_from_slice(&(h.len() as u16).to_le_bytes());
        b.extend_from_slice(h.as_bytes());
        b.extend_from_slice(data);
        b
    }

    #[test]
    fn reads_stored_members() {
        let ids: Vec<u8> = [3i64, 1, 4].iter().flat_map(|v| v.to_le_bytes()).collect();
        let z = zip(&[
            ("input_ids.npy", npy_bytes("<i8", "(1, 3)", &ids)),
            ("x.npy", npy_bytes("<f4", "()", &1.5f32.to_le_bytes())),
        ]);
        let m = read(&z).unwrap();
        assert_eq!(m["input_ids"].shape, vec![1, 3]);
        assert_eq!(m["input_ids"].dtype, "<i8");
        assert_eq!(m["input_ids"].data, ids);
        assert_eq!(m["x"].shape, Vec::<u64>::new());
    }

    #[test]
    fn refuses_what_it_cannot_read() {
        assert!(read(b"not a zip at all").is_err());
        let mut z = zip(&[("a.npy", npy_bytes("<f4", "(1,)", &[0; 4]))]);
        // Mark the member deflated, as savez_compressed writes it.
        let cd = z.windows(4).position(|w| w == b"PK\x01\x02").unwrap();
        z[cd + 10] = 8;
        let e = read(&z).unwrap_err();
        assert!(e.contains("savez_compressed"), "{e}");
        assert!(npy(&npy_bytes("<f4", "(2,)", &[0; 8])[..8]).is_err());
    }
}
