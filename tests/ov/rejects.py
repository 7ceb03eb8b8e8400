#!/usr/bin/env python3
"""Rejected as OpenVINO rejects: hostile edits of valid IR (an attribute, a constant's bytes),
which OpenVINO 2026.4.1's reader refuses; irc must refuse them too (`infer-shapes` exits 1 with
an error at the layer), never read them as something else.

Each case builds a valid model with OpenVINO's Python API and serializes it, then edits the
text or the weights. A case whose edit OpenVINO accepts is itself a failure (the case would test
nothing); `ACCEPTED` cases are the opposite: OpenVINO reads them and irc must give its shapes.

Usage:  python tests/ov/rejects.py [-v]
Env:    IRC_BIN (default <repo>/target/release/irc)
Output: `PASS name` / `FAIL name: ...` per case, then `N passed, M failed`.
"""
import json
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np
import openvino as ov
import openvino.opset1 as op1
import openvino.opset3 as op3
import openvino.opset5 as op5
import openvino.opset7 as op7
import openvino.opset11 as op11
import openvino.opset13 as o

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import report, verdict  # noqa: E402

REPO = Path(__file__).resolve().parents[2]
IRC_BIN = os.environ.get("IRC_BIN", str(REPO / "target" / "release" / "irc"))
MIN_CASES = 15

CASES = []  # (name, build() -> ov.Model, edit(xml, bin) -> (xml, bin), OpenVINO rejects it)


def case(name, edit, rejects=True):
    def deco(build):
        CASES.append((name, build, edit, rejects))
        return build
    return deco


def C(v, t=np.int64, name=None):
    c = o.constant(np.array(v, t))
    if name:
        c.set_friendly_name(name)
    return c


def P(shape, name="x"):
    return o.parameter(shape, np.float32, name=name)


def model(node, *params):
    return ov.Model([o.result(node)], list(params))


def attr(old, new):
    """Edit: the attribute text `old` (which must occur once) becomes `new`."""
    def edit(xml, bin_):
        found = list(re.finditer(re.escape(old), xml, re.I))  # OpenVINO writes some in capitals
        assert len(found) == 1, "%r occurs %d times" % (old, len(found))
        return xml[: found[0].start()] + new + xml[found[0].end():], bin_
    return edit


def const(name, values, dtype=np.int64):
    """Edit: the Constant named `name` holds `values` (same byte size)."""
    def edit(xml, bin_):
        m = re.search(r'<layer[^>]*name="%s"[^>]*>\s*<data[^>]*offset="(\d+)"[^>]*size="(\d+)"' % re.escape(name), xml)
        assert m, "no Constant %s" % name
        off, size = int(m.group(1)), int(m.group(2))
        data = np.array(values, dtype).tobytes()
        assert len(data) == size, "%s: %d bytes for %d" % (name, len(data), size)
        b = bytearray(bin_)
        b[off:off + size] = data
        return xml, bytes(b)
    return edit


# --- ScaledDotProductAttention-13 with an attention sink (OpenVINO 2026): types and shapes -------
def _sdpa_sink():
    from openvino.utils.node_factory import NodeFactory
    q, k, v = P([2, 3, 4], "q"), P([2, 5, 4], "k"), P([2, 5, 6], "v")
    m, sc, sink = P([2, 3, 5], "m"), P([], "sc"), P([2, 3, 1], "sink")
    n = NodeFactory("opset13").create("ScaledDotProductAttention",
                                      [x.output(0) for x in (q, k, v, m, sc, sink)], {"causal": False})
    return ov.Model([o.result(n)], [q, k, v, m, sc, sink])


@case("sdpa_sink_last_dim_2", attr('<data shape="2,3,1" element_type="f32" />',
                                   '<data shape="2,3,2" element_type="f32" />'))
def _():
    return _sdpa_sink()


@case("sdpa_sink_rank_2", attr('<data shape="2,3,1" element_type="f32" />',
                               '<data shape="3,1" element_type="f32" />'))
def _():
    return _sdpa_sink()


@case("sdpa_mask_i64", attr('<data shape="2,3,5" element_type="f32" />',
                            '<data shape="2,3,5" element_type="i64" />'))
def _():
    return _sdpa_sink()


@case("sdpa_sink_f16_mixed", attr('<data shape="2,3,1" element_type="f32" />',
                                  '<data shape="2,3,1" element_type="f16" />'))
def _():
    return _sdpa_sink()


# --- enum attributes (src/ops/enums.rs) ----------------------------------------------------------
@case("round_mode_bogus", attr('mode="half_to_even"', 'mode="bogus"'))
def _():
    x = P([2, 3])
    return model(op5.round(x, "half_to_even"), x)


@case("gelu_approximation_bogus", attr('approximation_mode="ERF"', 'approximation_mode="bogus"'))
def _():
    x = P([2, 3])
    return model(op7.gelu(x, "erf"), x)


@case("pad_mode_bogus", attr('pad_mode="constant"', 'pad_mode="bogus"'))
def _():
    x = P([2, 3])
    return model(o.pad(x, C([0, 1]), C([0, 1]), "constant"), x)


@case("mvn_eps_mode_add", attr('eps_mode="inside_sqrt"', 'eps_mode="add"'))
def _():
    x = P([2, 3])
    return model(o.mvn(x, C([1]), True, 1e-5, "inside_sqrt"), x)


@case("normalize_l2_eps_mode_inside_sqrt", attr('eps_mode="add"', 'eps_mode="inside_sqrt"'))
def _():
    x = P([2, 3])
    return model(o.normalize_l2(x, C([1]), 1e-6, "max"), x)


@case("conv_auto_pad_notset", attr('auto_pad="same_upper"', 'auto_pad="notset"'))
def _():
    x = P([1, 2, 5, 5])
    return model(o.convolution(x, o.constant(np.ones((2, 2, 3, 3), np.float32)), [1, 1], [0, 0], [0, 0], [1, 1],
                               "same_upper"), x)


@case("scatter_elements_reduction_sub", attr('reduction="sum"', 'reduction="sub"'))
def _():
    x = P([2, 3])
    return model(o.scatter_elements_update(x, C([[0]]), o.constant(np.ones((1, 1), np.float32)), C(1), "sum"), x)


@case("psroi_pooling_mode_upper", attr('mode="average"', 'mode="AVERAGE"'))
def _():
    x = P([1, 8, 6, 6])
    return model(op1.psroi_pooling(x, o.constant(np.array([[0, 0, 0, 3, 3]], np.float32)), 2, 2, 1.0, 1, 1,
                                   "average"), x)


@case("broadcast3_mode_bogus", attr('mode="numpy"', 'mode="bogus"'))
def _():
    x = P([3])
    return model(op3.broadcast(x, C([2, 3])), x)


@case("broadcast1_mode_bidirectional", attr('mode="numpy"', 'mode="bidirectional"'))
def _():
    x = P([3])
    return model(op1.broadcast(x, C([2, 3])), x)


# --- explicit Broadcast: its axes_mapping ----------------------------------------------------------
@case("broadcast1_explicit_without_axes", attr('mode="numpy"', 'mode="explicit"'))
def _():
    x = P([3])
    return model(op1.broadcast(x, C([2, 3])), x)


@case("broadcast1_explicit_axes_unsorted", const("axes", [1, 0]))
def _():
    x = P([3, 3])
    return model(op1.broadcast(x, C([3, 3, 4]), C([0, 1], name="axes"), "explicit"), x)


@case("broadcast1_explicit_axis_out_of_range", const("axes", [2]))
def _():
    x = P([3])
    return model(op1.broadcast(x, C([2, 3]), C([1], name="axes"), "explicit"), x)


@case("broadcast1_explicit_axis_negative", const("axes", [-1]))
def _():
    x = P([3])
    return model(op1.broadcast(x, C([2, 3]), C([1], name="axes"), "explicit"), x)


@case("broadcast1_explicit_target_incompatible", const("target", [2, 4]))
def _():
    x = P([3])
    return model(op1.broadcast(x, C([2, 3], name="target"), C([1]), "explicit"), x)


@case("broadcast3_explicit_target_incompatible", const("target", [2, 4]))
def _():
    x = P([3])
    return model(op3.broadcast(x, C([2, 3], name="target"), C([1]), "explicit"), x)


@case("broadcast1_explicit_input_dim_1", const("target", [2, 4]), rejects=False)
def _():
    x = P([1])
    return model(op1.broadcast(x, C([2, 3], name="target"), C([1]), "explicit"), x)


@case("broadcast1_explicit_axes_repeated", const("axes", [1, 1]), rejects=False)
def _():
    x = P([3, 3])
    return model(op1.broadcast(x, C([3, 3]), C([0, 1], name="axes"), "explicit"), x)


# --- Interpolate-11: input 1 holds scales or sizes, as the mode says -------------------------------
@case("interpolate11_scales_mode_integer_input",
      attr('shape_calculation_mode="sizes"', 'shape_calculation_mode="scales"'))
def _():
    x = P([1, 4, 6, 6])
    return model(op11.interpolate(x, C([12, 12]), "linear", "sizes", axes=C([2, 3])), x)


@case("interpolate11_sizes_mode_float_input",
      attr('shape_calculation_mode="scales"', 'shape_calculation_mode="sizes"'))
def _():
    x = P([1, 4, 6, 6])
    return model(op11.interpolate(x, o.constant(np.array([2, 2], np.float32)), "linear", "scales", axes=C([2, 3])), x)


def drop_port(ty, port):
    """Edit: the layer of type `ty` no longer declares output port `port` (nothing reads it)."""
    def edit(xml, bin_):
        pat = r'(<layer[^>]*type="%s".*?<output>.*?)\s*<port id="%d"[^>]*>.*?</port>' % (ty, port)
        new, n = re.subn(pat, r"\1", xml, count=1, flags=re.S)
        assert n == 1, "no output port %d on %s" % (port, ty)
        return new, bin_
    return edit


# --- an op with more outputs than its layer declares ports: OpenVINO reads it -------------------
@case("topk_values_port_only", drop_port("TopK", 3), rejects=False)
def _():
    x = P([4, 5])
    return model(op11.topk(x, C(2), 1, "max", "value").output(0), x)


# --- found by tests/extremes.rs (irc panicked or accepted them) -----------------------------------
@case("split_num_splits_below_outputs", attr('num_splits="3"', 'num_splits="2"'))
def _():
    x = P([6, 3])
    s = o.split(x, C(0), 3)
    return ov.Model([o.result(s.output(i)) for i in range(3)], [x])


@case("split_num_splits_above_outputs", attr('num_splits="3"', 'num_splits="6"'), rejects=False)
def _():
    x = P([6, 3])
    s = o.split(x, C(0), 3)
    return ov.Model([o.result(s.output(i)) for i in range(3)], [x])


@case("variadic_split_length_below_minus_one", const("lens", [-2, 8]))
def _():
    x = P([6, 3])
    s = o.variadic_split(x, C(0), C([2, 4], name="lens"))
    return ov.Model([o.result(s.output(i)) for i in range(2)], [x])


# OpenVINO wraps the sum of the lengths (irc matches it: docs/openvino-differences.md).
@case("variadic_split_lengths_overflow", const("lens", [2**62, 2**62, 2**62, -1]), rejects=False)
def _():
    x = P([6, 3])
    s = o.variadic_split(x, C(0), C([1, 1, 1, -1], name="lens"))
    return ov.Model([o.result(s.output(i)) for i in range(4)], [x])


@case("scatter_elements_indices_rank", const("axis", [5]))
def _():
    x = P([-1, 3])
    return model(o.scatter_elements_update(x, C([[1]]), o.constant(np.ones((1, 1), np.float32)), C(0, name="axis")), x)


@case("gather_nd_batch_dims_past_indices_rank", attr('batch_dims="0"', 'batch_dims="1"'))
def _():
    x = P([1, 2, 3, 4])
    return model(o.gather_nd(x, C([0], np.int32), 0), x)


@case("gather_nd_batch_dims_past_data_rank", attr('batch_dims="1"', 'batch_dims="2"'))
def _():
    x = P([1, 2])
    return model(o.gather_nd(x, C(np.zeros((1, 2, 1, 1)), np.int32), 1), x)


def ov_shapes(xml):
    m = ov.Core().read_model(xml)
    return [str(r.get_output_partial_shape(0)).replace(" ", "") for r in m.get_results()]


def irc_error(p):
    try:
        e = json.loads(p.stdout)["errors"][0]
        return "%s:%s: %s" % (e.get("line"), e.get("column"), e["message"].splitlines()[0])
    except (ValueError, KeyError, IndexError):
        return (p.stdout + p.stderr).strip()[:200]


def irc_shapes(xml):
    p = subprocess.run([IRC_BIN, "infer-shapes", xml, "--format", "json"], capture_output=True, text=True,
                       timeout=60)
    if p.returncode != 0:
        return None, p
    show = lambda s: "[" + ",".join(str(d) for d in s) + "]" if isinstance(s, list) else "[...]"  # noqa: E731
    return [show(g["shape"]) for g in json.loads(p.stdout)["outputs"]], p


def main():
    verbose = "-v" in sys.argv
    passed = failed = 0
    with tempfile.TemporaryDirectory() as d:
        for name, build, edit, rejects in CASES:
            xml = os.path.join(d, name + ".xml")
            binp = xml[:-4] + ".bin"
            ov.serialize(build(), xml, binp)
            text, data = edit(open(xml).read(), open(binp, "rb").read())
            open(xml, "w").write(text)
            open(binp, "wb").write(data)
            try:
                want = ov_shapes(xml)
                why = None
            except Exception as e:
                want = None
                why = [x for x in str(e).splitlines() if x.strip()][-1][:140]
            got, p = irc_shapes(xml)
            if rejects and want is not None:
                msg = "the case is wrong: OpenVINO reads it (%s)" % want
            elif not rejects and want is None:
                msg = "the case is wrong: OpenVINO rejects it (%s)" % why
            elif want is None and got is None and p.returncode != 1:
                msg = "irc exits %d (want 1): %s" % (p.returncode, irc_error(p))
            else:
                msg = verdict(want, why, got, irc_error(p))
            if not report(name, msg, False):
                failed += 1
            else:
                passed += 1
                if verbose:
                    print("    OpenVINO: %s\n    irc: %s" % (why or want, got or irc_error(p)))
    print("%d passed, %d failed" % (passed, failed))
    sys.exit(1 if failed or passed < MIN_CASES else 0)


if __name__ == "__main__":
    main()
