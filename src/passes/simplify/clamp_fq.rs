//! A Clamp (or a ReLU: [0, +inf)) read only by FakeQuantize layers whose input range lies
//! inside its range is bypassed: FakeQuantize sends everything at or below its input low to the output low and
//! everything above its input high to the output high, so clamping first changes nothing (as
//! OpenVINO's pipeline does with an NNCF INT8 model's ReLU6 Clamps).
//!
//! Checked per element: every input_low and input_high value (constants) within
//! [min, max] of the Clamp. FakeQuantize compares with min(il, ih) and max(il, ih), so the
//! order of the two does not matter.

use super::Cx;

pub fn run(cx: &mut Cx) -> usize {
    let order = cx.order();
    let mut n_done = 0;
    for n in order {
        let l = &cx.g[n];
        let relu = l.is("Relu") || l.is("ReLU");
        if !(l.is("Clamp") || relu) || l.outputs.len() != 1 {
            continue;
        }
        // A ReLU clamps to [0, +inf) (OpenVINO's ReluFakeQuantizeFusion).
        let range = if relu {
            Some((0.0, f64::INFINITY))
        } else {
            l.attr("min")
                .and_then(|v| v.trim().parse::<f64>().ok())
                .zip(l.attr("max").and_then(|v| v.trim().parse::<f64>().ok()))
        };
        let Some((lo, hi)) = range else {
            continue;
        };
        let Some((et, _)) = cx.out(n, 0) else {
            continue;
        };
        if !et.is_float() {
            continue;
        }
        let users = cx.g.users_of(n, 0);
        if users.is_empty() {
            continue;
        }
        let inside = users.iter().all(|&(u, i)| {
            i == 0
                && cx.g[u].is("FakeQuantize")
                && (1..=2).all(|k| {
                    cx.const_input(u, k).is_some_and(|t| {
                        t.et == et
                            && t.to_f64s().is_some_and(|v| {
                                !v.is_empty() && v.iter().all(|&x| x >= lo && x <= hi)
                            })
                    })
                })
        });
        if !inside {
            continue;
        }
        let Some(src) = cx.input(n, 0) else { continue };
        let (name, ty) = (cx.g[n].name.clone(), cx.g[n].ty.as_str().to_string());
        if cx.replace((n, 0), src) {
            cx.note(format!(
                "{ty} '{name}' [{lo}, {hi}]: the FakeQuantize it feeds clamps to a range inside it"
            ));
            n_done += 1;
        }
    }
    n_done
}
