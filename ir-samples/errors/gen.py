#!/usr/bin/env python3
"""Generate the malformed-IR error corpus in this directory.

Each case is a small, otherwise-valid IR v11 model (written in OpenVINO's layout, tab-indented)
with exactly one failure mode (except the `multiple_errors_*` cases). The first line after the
XML declaration is a comment naming the intended error. Run: python3 gen.py
Check irc against the corpus with ./check.sh.
"""
import os
import struct

HERE = os.path.dirname(os.path.abspath(__file__))
DECL = '<?xml version="1.0"?>'


# ---------------------------------------------------------------------------------------------
# Tiny builder for OpenVINO-style XML (tab indented, same element order as the serializer).

def port(pid, prec="FP32", dims=(1, 3), names=None):
    return (pid, prec, dims, names)


def render_port(p, d):
    pid, prec, dims, names = p
    nm = f' names="{names}"' if names else ""
    if not dims:
        return [d + f'<port id="{pid}" precision="{prec}"{nm} />']
    out = [d + f'<port id="{pid}" precision="{prec}"{nm}>']
    out += [d + f"\t<dim>{x}</dim>" for x in dims]
    out.append(d + "</port>")
    return out


def layer(lid, name, ty, version="opset1", data=None, inputs=(), outputs=(), pre=(), bodies=(),
          attrs=""):
    """data: attribute string for <data>; pre: raw lines (port_map/back_edges) at depth 0 of the
    layer's children; bodies: (tag, layers, edges) tuples."""
    def f(depth):
        d = "\t" * depth
        out = [d + f'<layer id="{lid}" name="{name}" type="{ty}" version="{version}"{attrs}>']
        c = d + "\t"
        for line in pre:
            out.append(c + line)
        if data is not None:
            out.append(c + f"<data {data} />")
        if inputs:
            out.append(c + "<input>")
            for p in inputs:
                out += render_port(p, c + "\t")
            out.append(c + "</input>")
        if outputs:
            out.append(c + "<output>")
            for p in outputs:
                out += render_port(p, c + "\t")
            out.append(c + "</output>")
        for tag, ls, es in bodies:
            out += graph(ls, es, depth + 1, tag)
        out.append(d + "</layer>")
        return out
    return f


def edge(fl, fp, tl, tp):
    return f'<edge from-layer="{fl}" from-port="{fp}" to-layer="{tl}" to-port="{tp}" />'


def graph(layers, edges, depth, tag):
    d = "\t" * depth
    out = [d + f"<{tag}>", d + "\t<layers>"]
    for l in layers:
        out += l(depth + 2)
    out.append(d + "\t</layers>")
    out.append(d + "\t<edges>")
    out += [d + "\t\t" + e for e in edges]
    out.append(d + "\t</edges>")
    out.append(d + "\t<rt_info />")
    out.append(d + f"</{tag}>")
    return out


def net(name, layers, edges, version="11"):
    g = graph(layers, edges, 0, "net")
    g[0] = f'<net name="{name}" version="{version}">'
    return "\n".join([DECL] + g) + "\n"


# ---------------------------------------------------------------------------------------------
# Base models.

def param(lid, name, shape="1,3", et="f32", prec="FP32", dims=(1, 3)):
    return layer(lid, name, "Parameter", data=f'shape="{shape}" element_type="{et}"',
                 outputs=[port(0, prec, dims, name)])


def relu(lid, name="relu", out_names="out"):
    return layer(lid, name, "ReLU", inputs=[port(0)], outputs=[port(1, names=out_names)])


def result(lid, name="out", prec="FP32", dims=(1, 3), out_names="out"):
    return layer(lid, name, "Result", inputs=[port(0, prec, dims)],
                 attrs=f' output_names="{out_names}"')


def add(lid, name="add"):
    return layer(lid, name, "Add", data='auto_broadcast="numpy"',
                 inputs=[port(0), port(1)], outputs=[port(2, names="sum")])


def base_add2(name):
    """a, b: Parameter f32[1,3] -> Add -> ReLU -> Result. No weights."""
    return net(name, [param(0, "a"), param(1, "b"), add(2), relu(3), result(4)],
               [edge(0, 0, 2, 0), edge(1, 0, 2, 1), edge(2, 2, 3, 0), edge(3, 1, 4, 0)])


def const(lid, name, et, shape, offset, size, prec, dims, extra=""):
    return layer(lid, name, "Const",
                 data=f'element_type="{et}" shape="{shape}" offset="{offset}" size="{size}"{extra}',
                 outputs=[port(0, prec, dims)])


F32_W = struct.pack("<3f", 0.5, -1.0, 2.0)  # 12 bytes


def base_const(name, w=None):
    """x: Parameter f32[1,3] + Const w f32[1,3] (12 bytes at offset 0) -> ReLU -> Result."""
    w = w or const(1, "w", "f32", "1, 3", 0, 12, "FP32", (1, 3))
    return net(name, [param(0, "x"), w, add(2), relu(3), result(4)],
               [edge(0, 0, 2, 0), edge(1, 0, 2, 1), edge(2, 2, 3, 0), edge(3, 1, 4, 0)])


def base_packed(name, et, prec, size, binsize):
    """x + Convert(Const et[1,3]) -> ReLU -> Result."""
    conv = layer(2, "w_f32", "Convert", data='destination_type="f32"',
                 inputs=[port(0, prec)], outputs=[port(1)])
    return net(name, [param(0, "x"), const(1, "w", et, "1, 3", 0, size, prec, (1, 3)), conv,
                      add(3), relu(4), result(5)],
               [edge(0, 0, 3, 0), edge(1, 0, 2, 0), edge(2, 1, 3, 1), edge(3, 2, 4, 0),
                edge(4, 1, 5, 0)])


def string_tensor(strs, count=None, offsets=None):
    data = b"".join(s.encode() for s in strs)
    if offsets is None:
        offsets = [0]
        for s in strs:
            offsets.append(offsets[-1] + len(s.encode()))
    n = len(strs) if count is None else count
    return struct.pack(f"<i{len(offsets)}i", n, *offsets) + data


def base_string(name, size):
    """x -> ReLU -> Result, plus Const string[2] -> Result (a string output)."""
    s = layer(3, "labels", "Const", data=f'element_type="string" shape="2" offset="0" size="{size}"',
              outputs=[port(0, "STRING", (2,), "labels")])
    r2 = layer(4, "labels_out", "Result", inputs=[port(0, "STRING", (2,))],
               attrs=' output_names="labels"')
    return net(name, [param(0, "x"), relu(1), result(2), s, r2],
               [edge(0, 0, 1, 0), edge(1, 1, 2, 0), edge(3, 0, 4, 0)])


LOOP_BIN = struct.pack("<q", 3) + b"\x01"  # trip count i64 3 at 0, cond boolean 1 at 8


def base_loop(name, port_map=None, back_edges=None, body_layers=None, body_edges=None):
    """x -> Loop-5 (3 iterations of ReLU, merged input) -> Result."""
    port_map = port_map or [
        '\t<input external_port_id="2" internal_layer_id="0" />',
        '\t<output external_port_id="3" internal_layer_id="3" />',
        '\t<output external_port_id="-1" internal_layer_id="4" purpose="execution_condition" />',
    ]
    back_edges = back_edges or ['\t<edge from-layer="3" to-layer="0" />']
    body_layers = body_layers or [
        param(0, "bx"),
        relu(1, "body_relu", "body_out"),
        layer(2, "body_cond", "Const", data='element_type="boolean" shape="" offset="8" size="1"',
              outputs=[port(0, "BOOL", ())]),
        result(3, "body_res", out_names="body_out"),
        layer(4, "body_cond_res", "Result", inputs=[port(0, "BOOL", ())]),
    ]
    body_edges = body_edges or [edge(0, 0, 1, 0), edge(1, 1, 3, 0), edge(2, 0, 4, 0)]
    pre = ["<port_map>"] + port_map + ["</port_map>", "<back_edges>"] + back_edges + ["</back_edges>"]
    loop = layer(3, "loop", "Loop", version="opset5", pre=pre,
                 inputs=[port(0, "I64", ()), port(1, "BOOL", ()), port(2)],
                 outputs=[port(3, names="out")],
                 bodies=[("body", body_layers, body_edges)])
    return net(name, [
        param(0, "x"),
        layer(1, "trip_count", "Const", data='element_type="i64" shape="" offset="0" size="8"',
              outputs=[port(0, "I64", ())]),
        layer(2, "cond", "Const", data='element_type="boolean" shape="" offset="8" size="1"',
              outputs=[port(0, "BOOL", ())]),
        loop, result(4)],
        [edge(0, 0, 3, 2), edge(1, 0, 3, 0), edge(2, 0, 3, 1), edge(3, 3, 4, 0)])


def base_if(name, then_map=None, else_map=None, then_layers=None, then_edges=None):
    """c: boolean scalar, x -> If-8 (then: ReLU, else: Negative) -> Result."""
    then_map = then_map or ['\t<input external_port_id="1" internal_layer_id="0" />',
                            '\t<output external_port_id="2" internal_layer_id="2" />']
    else_map = else_map or ['\t<input external_port_id="1" internal_layer_id="0" />',
                            '\t<output external_port_id="2" internal_layer_id="2" />']
    then_layers = then_layers or [param(0, "tx"), relu(1, "then_relu", "then_out"),
                                  result(2, "then_res", out_names="then_out")]
    then_edges = then_edges or [edge(0, 0, 1, 0), edge(1, 1, 2, 0)]
    else_layers = [param(0, "ex"),
                   layer(1, "else_neg", "Negative", inputs=[port(0)],
                         outputs=[port(1, names="else_out")]),
                   result(2, "else_res", out_names="else_out")]
    else_edges = [edge(0, 0, 1, 0), edge(1, 1, 2, 0)]
    pre = (["<else_port_map>"] + else_map + ["</else_port_map>", "<then_port_map>"] + then_map
           + ["</then_port_map>"])
    iff = layer(2, "if", "If", version="opset8", pre=pre,
                inputs=[port(0, "BOOL", ()), port(1)], outputs=[port(2, names="out")],
                bodies=[("then_body", then_layers, then_edges),
                        ("else_body", else_layers, else_edges)])
    return net(name, [param(0, "c", shape="", et="boolean", prec="BOOL", dims=()),
                      param(1, "x"), iff, result(3)],
               [edge(0, 0, 2, 0), edge(1, 0, 2, 1), edge(2, 2, 3, 0)])


# ---------------------------------------------------------------------------------------------
# Mutation helpers.

def sub(text, old, new, after=None, count=1):
    """Replace the first `count` occurrences of `old` (after the first `after`, if given)."""
    start = 0
    if after is not None:
        start = text.index(after)
    head, tail = text[:start], text[start:]
    assert old in tail, (old, after)
    return head + tail.replace(old, new, count)


def comment(text, msg):
    """Put `<!-- error: msg -->` right after the XML declaration."""
    assert text.startswith(DECL + "\n")
    return DECL + "\n" + f"<!-- error: {msg} -->\n" + text[len(DECL) + 1:]


CASES = {}  # name -> (xml bytes, bin bytes or None)


def case(name, xml, msg=None, bin=None):
    assert name not in CASES, name
    if isinstance(xml, str):
        if msg is not None:
            xml = comment(xml, msg)
        xml = xml.encode()
    CASES[name] = (xml, bin)


# ---------------------------------------------------------------------------------------------
# XML level.

B = base_add2("m")
C = base_const("m")

# The valid models every case is derived from (written by `gen.py --bases DIR`, never committed).
BASES = {
    "add2": (B, None),
    "const": (C, F32_W),
    "packed_u4": (base_packed("m", "u4", "U4", 2, 2), b"\x21\x03"),
    "packed_u3": (base_packed("m", "u3", "U3", 3, 3), b"\x00\x00\x00"),
    "string": (base_string("m", 21), string_tensor(["ab", "xyz"])),
    "loop": (base_loop("m"), LOOP_BIN),
    "if": (base_if("m"), None),
}

t = comment(B, "file truncated in the middle of a layer (unexpected end of file)")
case("xml_truncated", t[: t.index('<layer id="3"') + 30])

t = comment(B, "<net> is never closed: </net> is missing at the end")
case("xml_unclosed_root", t.replace("</net>\n", ""))

case("xml_unclosed_element", sub(B, "\t\t\t</output>\n\t\t</layer>\n\t\t<layer id=\"1\"",
                                  "\t\t</layer>\n\t\t<layer id=\"1\""),
     "<output> of layer 0 is never closed; </layer> closes it instead")

case("xml_unterminated_start_tag", sub(B, '<layer id="3" name="relu" type="ReLU" version="opset1">',
                                       '<layer id="3" name="relu" type="ReLU" version="opset1"'),
     "start tag of layer 3 has no closing '>'")

case("xml_mismatched_end_tag", sub(B, "</output>", "</outptu>", after='<layer id="2"'),
     "mismatched end tag </outptu> for <output> in layer 2")

case("xml_unquoted_attribute", sub(B, 'id="3" name="relu"', 'id=3 name="relu"'),
     "attribute value without quotes: id=3")

case("xml_duplicate_attribute", sub(B, 'name="relu" type="ReLU"', 'name="relu" name="relu2" type="ReLU"'),
     "attribute 'name' appears twice on layer 3")

case("not_xml_text",
     b"<!-- error: not XML at all (plain text) -->\nthis is not an OpenVINO IR file\n")

case("not_xml_json",
     b'<!-- error: JSON, not XML -->\n{"net": {"name": "m", "version": 11, "layers": []}}\n')

case("garbage_control_bytes",
     b"<!-- error: control bytes (valid UTF-8, invalid in XML) instead of a document -->\n"
     + bytes(range(0, 32)) + b"\x7f\x01\x02\x03\n")

t = comment(B, "garbage text after the closing </net>")
case("garbage_after_root", t + "}}} trailing garbage <oops\n")

t = comment(B, "invalid UTF-8: byte 0xFF inside the name of layer 3")
case("invalid_utf8", t.encode().replace(b'name="relu"', b'name="re\xfflu"', 1))

t = comment(B, "text after the closing </net> (XML allows only comments/PIs there)")
case("text_after_root", t + "}}} trailing garbage\n")

t = comment(B, "a second root element after </net>")
case("second_root_element", t + '<net name="again" version="11" />\n')

# Regression: 200,000 nested elements in rt_info overflowed the stack (found while building
# this corpus); irc now stops at 256 levels. 300 keeps the file small.
case("rt_info_nested_too_deep",
     B.replace("\t<rt_info />", "\t<rt_info>" + "<a>" * 300 + "</a>" * 300 + "</rt_info>", 1),
     "verbatim elements nested 300 deep inside the model's rt_info (irc's limit is 256)")


case("bad_entity_in_attribute", sub(B, 'name="relu"', 'name="relu &bogus; x"'),
     "undefined entity &bogus; in the name attribute of layer 3")

case("bad_char_reference", sub(B, 'name="relu"', 'name="relu&#xFFFFFFFF;"'),
     "character reference &#xFFFFFFFF; is not a valid character")

case("empty_file", b"")  # no room for a comment: the file is empty by design

case("comment_only", b'<?xml version="1.0"?>\n<!-- error: the file holds only this comment, no <net> -->\n')

case("root_not_net", sub(sub(B, '<net name="m" version="11">', '<model name="m" version="11">'),
                         "</net>", "</model>"),
     "root element is <model>, not <net>")

case("ir_version_missing", sub(B, '<net name="m" version="11">', '<net name="m">'),
     "<net> has no version attribute")
case("ir_version_9", sub(B, 'version="11">', 'version="9">'), "IR version 9 is not supported (10, 11 only)")
case("ir_version_12", sub(B, 'version="11">', 'version="12">'), "IR version 12 is not supported (10, 11 only)")
case("ir_version_abc", sub(B, 'version="11">', 'version="abc">'), "IR version \"abc\" is not a number")

# ---------------------------------------------------------------------------------------------
# Layers.

case("layer_missing_id", sub(B, '<layer id="3" name="relu"', '<layer name="relu"'),
     "layer 'relu' has no id attribute")
case("layer_missing_type", sub(B, 'name="relu" type="ReLU" ', 'name="relu" '),
     "layer 3 'relu' has no type attribute")
case("layer_missing_version", sub(B, 'type="ReLU" version="opset1"', 'type="ReLU"'),
     "layer 3 'relu' has no version attribute")
case("layer_id_not_integer", sub(sub(B, '<layer id="3" name="relu"', '<layer id="three" name="relu"'),
                                 'to-layer="3"', 'to-layer="three"'),
     "layer id \"three\" is not an integer (the edge refers to it the same way)")
case("layer_id_negative", sub(B, '<layer id="3" name="relu"', '<layer id="-3" name="relu"'),
     "layer id -3 is negative")
case("duplicate_layer_id", sub(B, '<layer id="3" name="relu"', '<layer id="2" name="relu"'),
     "duplicate layer id 2 (add and relu)")
case("unknown_opset_99", sub(B, 'type="ReLU" version="opset1"', 'type="ReLU" version="opset99"'),
     "layer 3 'relu' names unknown opset opset99")
case("layer_version_empty", sub(B, 'type="ReLU" version="opset1"', 'type="ReLU" version=""'),
     "layer 3 'relu' has an empty version")

# ---------------------------------------------------------------------------------------------
# Ports.

case("duplicate_port_id", sub(B, '<port id="1" precision="FP32">', '<port id="0" precision="FP32">',
                              after='<layer id="2"'),
     "layer 2 'add' has two ports with id 0")
case("port_id_not_integer", sub(B, '<port id="1" precision="FP32" names="out">',
                                '<port id="one" precision="FP32" names="out">'),
     "output port id \"one\" of layer 3 'relu' is not an integer")
case("port_precision_fp32_lowercase", sub(B, 'precision="FP32"', 'precision="fp32"', after='<layer id="3"'),
     "port precision \"fp32\" (type_from_string is case-sensitive) in layer 3")
case("port_precision_float", sub(B, 'precision="FP32"', 'precision="FLOAT"', after='<layer id="3"'),
     "port precision \"FLOAT\" is not an element type (layer 3)")
for tag, val, msg in [("minus2", "-2", "-2 (must be >= -1)"),
                      ("question_mark", "?", "\"?\" (port dims are integers; -1 is dynamic)"),
                      ("interval", "1..4", "\"1..4\" (port dims cannot hold intervals)"),
                      ("abc", "abc", "\"abc\"")]:
    case(f"port_dim_{tag}", sub(B, "<dim>3</dim>", f"<dim>{val}</dim>", after='<layer id="3"'),
         f"input port 0 of layer 3 'relu' has dim {msg}")
case("port_dim_empty", sub(B, "<dim>3</dim>", "<dim/>", after='<layer id="3"'),
     "input port 0 of layer 3 'relu' has an empty <dim/>")
case("port_dim_empty_text", sub(B, "<dim>3</dim>", "<dim></dim>", after='<layer id="3"'),
     "input port 0 of layer 3 'relu' has <dim></dim> with no value")

# ---------------------------------------------------------------------------------------------
# Edges.

case("edge_to_missing_layer", sub(B, edge(3, 1, 4, 0), edge(3, 1, 9, 0)),
     "edge goes to layer 9, which does not exist (Result 4 is left unfed)")
case("edge_from_missing_layer", sub(B, edge(1, 0, 2, 1), edge(7, 0, 2, 1)),
     "edge comes from layer 7, which does not exist")
case("edge_from_input_port", sub(B, edge(2, 2, 3, 0), edge(2, 0, 3, 0)),
     "edge leaves port 0 of layer 2 'add', which is an input port")
case("edge_from_nonexistent_port", sub(B, edge(2, 2, 3, 0), edge(2, 7, 3, 0)),
     "edge leaves port 7 of layer 2 'add', which does not exist")
case("edge_to_output_port", sub(B, edge(1, 0, 2, 1), edge(1, 0, 2, 2)),
     "edge enters port 2 of layer 2 'add', which is its output port")
case("edge_to_nonexistent_port", sub(B, edge(1, 0, 2, 1), edge(1, 0, 2, 5)),
     "edge enters port 5 of layer 2 'add', which does not exist")
case("two_edges_into_one_port", sub(B, edge(1, 0, 2, 1), edge(1, 0, 2, 1) + "\n\t\t" + edge(0, 0, 2, 1)),
     "input port 1 of layer 2 'add' has two incoming edges")
case("input_port_without_edge", sub(B, "\t\t" + edge(1, 0, 2, 1) + "\n", ""),
     "input port 1 of layer 2 'add' has no incoming edge")
# 2-cycle: relu feeds add's port 1 and add feeds relu (b is left dangling, which is allowed).
case("cycle_two_layers", sub(B, edge(1, 0, 2, 1), edge(3, 1, 2, 1)),
     "cycle add(2) -> relu(3) -> add(2)")
# Self loop: relu's output goes back into its own input; add feeds nothing.
case("cycle_self_loop", sub(B, edge(2, 2, 3, 0), edge(3, 1, 3, 0)),
     "self loop: layer 3 'relu' feeds its own input")
case("edge_attr_not_integer", sub(B, edge(2, 2, 3, 0), '<edge from-layer="2" from-port="two" to-layer="3" to-port="0" />'),
     "edge from-port \"two\" is not an integer")
case("edge_attr_missing", sub(B, edge(2, 2, 3, 0), '<edge from-layer="2" to-layer="3" to-port="0" />'),
     "edge has no from-port attribute")
case("edge_attr_negative", sub(B, edge(2, 2, 3, 0), '<edge from-layer="2" from-port="2" to-layer="-3" to-port="0" />'),
     "edge to-layer is -3")

# ---------------------------------------------------------------------------------------------
# Const / weights.

case("const_missing_bin", C, "Const w needs 12 bytes but there is no .bin beside the .xml")
case("const_outside_bin", C, "Const w: offset 0 + size 12 > 8 bytes in the .bin", bin=F32_W[:8])
case("const_offset_past_end", sub(C, 'offset="0" size="12"', 'offset="16" size="12"'),
     "Const w: offset 16 + size 12 = 28 > 12 bytes in the .bin", bin=F32_W)
case("const_offset_overflows", sub(C, 'offset="0" size="12"', 'offset="18446744073709551615" size="12"'),
     "Const w: offset u64::MAX + size 12 overflows", bin=F32_W)
case("const_size_too_small_f32", sub(C, 'offset="0" size="12"', 'offset="0" size="8"'),
     "Const w f32[1,3] needs 12 bytes, size is 8", bin=F32_W)
case("const_size_too_small_u4", base_packed("m", "u4", "U4", 1, 2),
     "Const w u4[1,3] needs 2 bytes (3 nibbles), size is 1", bin=b"\x21\x03")
case("const_size_too_small_u3", base_packed("m", "u3", "U3", 1, 3),
     "Const w u3[1,3] needs 2 bytes (3 x 3 bits; 3 bytes padded), size is 1", bin=b"\x00\x00\x00")
case("const_size_too_small_u1", base_packed("m", "u1", "BIN", 0, 1),
     "Const w u1[1,3] needs 1 byte, size is 0", bin=b"\xa0")
case("const_element_type_FP32", sub(C, 'element_type="f32" shape="1, 3"', 'element_type="FP32" shape="1, 3"'),
     "Const element_type \"FP32\" (a precision spelling, not an element_type)", bin=F32_W)
case("const_element_type_float", sub(C, 'element_type="f32" shape="1, 3"', 'element_type="float" shape="1, 3"'),
     "Const element_type \"float\" is unknown", bin=F32_W)
case("const_element_type_undefined", sub(C, 'element_type="f32" shape="1, 3"', 'element_type="undefined" shape="1, 3"'),
     "Const element_type \"undefined\" (dynamic) cannot hold data", bin=F32_W)
case("const_shape_negative", sub(C, 'shape="1, 3"', 'shape="-1"'),
     "Const shape \"-1\" (Const shapes are static)", bin=F32_W)
case("const_shape_not_numbers", sub(C, 'shape="1, 3"', 'shape="a,b"'),
     "Const shape \"a,b\" is not a list of integers", bin=F32_W)
case("const_shape_interval", sub(C, 'shape="1, 3"', 'shape="1..2, 3"'),
     "Const shape \"1..2, 3\" holds an interval", bin=F32_W)
case("const_missing_offset", sub(C, ' offset="0" size="12"', ' size="12"'),
     "Const w <data> has no offset", bin=F32_W)
case("const_missing_size", sub(C, ' offset="0" size="12"', ' offset="0"'),
     "Const w <data> has no size", bin=F32_W)
case("const_missing_element_type", sub(C, 'element_type="f32" shape="1, 3"', 'shape="1, 3"'),
     "Const w <data> has no element_type", bin=F32_W)
case("const_without_data", sub(C, '<data element_type="f32" shape="1, 3" offset="0" size="12" />\n', "",
                               after='name="w"'),
     "Const w has no <data>", bin=F32_W)
case("const_size_not_integer", sub(C, 'size="12"', 'size="12.0"'),
     "Const w size \"12.0\" is not an integer", bin=F32_W)
case("const_shape_overflows", sub(C, 'shape="1, 3"', 'shape="4294967296, 4294967296, 4, 1"'),
     "Const shape 2^32 x 2^32 x 4 x 1 has 2^66 elements (overflows u64)", bin=F32_W)
case("const_byte_size_overflows", sub(C, 'shape="1, 3"', 'shape="4611686018427387904, 1"'),
     "Const f32 shape 2^62 x 1: element count fits in u64, byte size 2^64 does not", bin=F32_W)
case("const_huge_shape_small_size", sub(C, 'shape="1, 3"', 'shape="1000000, 1000000"'),
     "Const f32[1000000,1000000] needs 4e12 bytes, size is 12", bin=F32_W)

case("string_const_count_mismatch", base_string("m", 25),
     "string Const data holds 3 strings but the shape says 2",
     bin=struct.pack("<5i", 3, 0, 2, 5, 5) + b"abxyz")
case("string_const_offsets_outside_data", base_string("m", 21),
     "string Const offsets 0,2,9 point past the 5 bytes of string data",
     bin=struct.pack("<4i", 2, 0, 2, 9) + b"abxyz")
case("string_const_offsets_decreasing", base_string("m", 21),
     "string Const offsets 0,4,2 decrease",
     bin=struct.pack("<4i", 2, 0, 4, 2) + b"abxyz")
case("string_const_too_short_for_header", base_string("m", 8),
     "string Const size 8 cannot hold count + 3 offsets",
     bin=struct.pack("<2i", 2, 0))

# ---------------------------------------------------------------------------------------------
# Parameter.

case("parameter_without_data", sub(B, '\t\t\t<data shape="1,3" element_type="f32" />\n', "", after='name="b"'),
     "Parameter b has no <data>")
case("parameter_shape_bad_dim", sub(B, 'shape="1,3"', 'shape="1,x"', after='name="b"'),
     "Parameter b shape \"1,x\"")
case("parameter_shape_bad_interval", sub(B, 'shape="1,3"', 'shape="1,5..3"', after='name="b"'),
     "Parameter b shape \"1,5..3\": interval max < min")
case("parameter_shape_negative", sub(B, 'shape="1,3"', 'shape="1,-2"', after='name="b"'),
     "Parameter b shape \"1,-2\" (only -1 means dynamic)")
case("parameter_unknown_element_type", sub(B, 'element_type="f32"', 'element_type="float32"', after='name="b"'),
     "Parameter b element_type \"float32\" is unknown")
case("parameter_element_type_FP32", sub(B, 'element_type="f32"', 'element_type="FP32"', after='name="b"'),
     "Parameter b element_type \"FP32\" (precision spelling, rejected by EnumNames<Type_t>)")

# ---------------------------------------------------------------------------------------------
# Bodies (Loop-5, If-8).

case("loop_port_map_missing_internal_layer",
     base_loop("m", port_map=['\t<input external_port_id="2" internal_layer_id="0" />',
                              '\t<output external_port_id="3" internal_layer_id="7" />',
                              '\t<output external_port_id="-1" internal_layer_id="4" purpose="execution_condition" />']),
     "Loop port_map output internal_layer_id 7 is not a body layer", bin=LOOP_BIN)
case("loop_back_edge_missing_layer", base_loop("m", back_edges=['\t<edge from-layer="8" to-layer="0" />']),
     "Loop back_edge from-layer 8 is not a body layer", bin=LOOP_BIN)
case("loop_external_port_missing",
     base_loop("m", port_map=['\t<input external_port_id="6" internal_layer_id="0" />',
                              '\t<output external_port_id="3" internal_layer_id="3" />',
                              '\t<output external_port_id="-1" internal_layer_id="4" purpose="execution_condition" />']),
     "Loop port_map input external_port_id 6 is not a port of the Loop", bin=LOOP_BIN)
case("loop_body_duplicate_layer_id",
     sub(base_loop("m"), '<layer id="1" name="body_relu"', '<layer id="0" name="body_relu"'),
     "duplicate layer id 0 inside the Loop body", bin=LOOP_BIN)
case("loop_body_edge_to_missing_layer",
     sub(base_loop("m"), edge(1, 1, 3, 0), edge(1, 1, 9, 0)),
     "Loop body edge goes to body layer 9, which does not exist", bin=LOOP_BIN)
case("loop_body_const_outside_bin",
     sub(base_loop("m"), 'offset="8" size="1"', 'offset="9" size="1"', after='name="body_cond"'),
     "Loop body Const body_cond: offset 9 + size 1 > 9 bytes in the .bin", bin=LOOP_BIN)
case("if_port_map_output_not_result",
     base_if("m", then_map=['\t<input external_port_id="1" internal_layer_id="0" />',
                            '\t<output external_port_id="2" internal_layer_id="1" />']),
     "If then_port_map output internal_layer_id 1 is the ReLU, not a Result of the body "
     "(OpenVINO's reader fails: unordered_map::at)")
case("loop_port_map_input_not_parameter",
     base_loop("m", port_map=['\t<input external_port_id="2" internal_layer_id="1" />',
                              '\t<output external_port_id="3" internal_layer_id="3" />',
                              '\t<output external_port_id="-1" internal_layer_id="4" purpose="execution_condition" />']),
     "Loop port_map input internal_layer_id 1 is the ReLU, not a Parameter of the body", bin=LOOP_BIN)
case("loop_back_edge_from_not_result", base_loop("m", back_edges=['\t<edge from-layer="1" to-layer="0" />']),
     "Loop back_edge from-layer 1 is the ReLU, not a Result of the body", bin=LOOP_BIN)
t = base_loop("m")
case("loop_missing_body", t[:t.index("\t\t\t<body>")] + t[t.index("</body>\n") + 8:],
     "Loop has a port_map and back_edges but no <body>", bin=LOOP_BIN)
t = base_if("m")
case("if_missing_else_body", t[:t.index("\t\t\t<else_body>")] + t[t.index("</else_body>\n") + 13:],
     "If has an else_port_map but no <else_body>")
case("if_then_port_map_missing_internal_layer",
     base_if("m", then_map=['\t<input external_port_id="1" internal_layer_id="5" />',
                            '\t<output external_port_id="2" internal_layer_id="2" />']),
     "If then_port_map input internal_layer_id 5 is not a then_body layer")
case("if_else_port_map_external_port_missing",
     base_if("m", else_map=['\t<input external_port_id="1" internal_layer_id="0" />',
                            '\t<output external_port_id="4" internal_layer_id="2" />']),
     "If else_port_map output external_port_id 4 is not a port of the If")
case("if_then_body_cycle",
     sub(base_if("m"), edge(0, 0, 1, 0), edge(1, 1, 1, 0)),
     "then_body: layer 1 'then_relu' feeds its own input (self loop inside a body)")

# ---------------------------------------------------------------------------------------------
# Several errors in one file: irc should report every one of them.

t = B
t = sub(t, '<layer id="3" name="relu"', '<layer id="2" name="relu"')            # duplicate id 2
t = sub(t, 'precision="FP32"', 'precision="fp32"', after='<layer id="4"')       # bad precision
t = sub(t, 'shape="1,3"', 'shape="1,x"', after='name="b"')                      # bad Parameter shape
t = sub(t, "<dim>3</dim>", "<dim>-5</dim>", after='name="a"')                   # bad port dim
t = sub(t, edge(3, 1, 4, 0), edge(3, 1, 4, 0) + "\n\t\t" + edge(8, 0, 4, 0))     # edge from missing
case("multiple_errors", t,
     "five errors: duplicate layer id 2; Parameter b shape \"1,x\"; dim -5 in Parameter a; "
     "precision fp32 in Result 4; edge from missing layer 8")

t = C
t = sub(t, 'offset="0" size="12"', 'offset="4" size="12"')                      # outside .bin
t = sub(t, 'type="ReLU" version="opset1"', 'type="ReLU" version="opset99"')     # unknown opset
t = sub(t, "\t\t" + edge(3, 1, 4, 0) + "\n", "")                                # Result unfed
case("multiple_errors_const_opset_edge", t,
     "three errors: Const w outside the .bin (4+12 > 12); layer 3 opset99; Result 4 input has no edge",
     bin=F32_W)

t = base_loop("m")
t = sub(t, '<layer id="1" name="body_relu"', '<layer id="0" name="body_relu"')  # dup in body
t = sub(t, 'element_type="f32"', 'element_type="f31"', after='name="x"')        # outer Parameter
case("multiple_errors_body_and_outer", t,
     "two errors: duplicate layer id 0 in the Loop body; Parameter x element_type f31", bin=LOOP_BIN)


def main():
    import sys
    if len(sys.argv) == 3 and sys.argv[1] == "--bases":
        os.makedirs(sys.argv[2], exist_ok=True)
        for name, (xml, bin) in BASES.items():
            with open(os.path.join(sys.argv[2], name + ".xml"), "w") as f:
                f.write(xml)
            if bin is not None:
                with open(os.path.join(sys.argv[2], name + ".bin"), "wb") as f:
                    f.write(bin)
        print(f"{len(BASES)} bases in {sys.argv[2]}")
        return
    # Remove previously generated cases so renames do not leave stale files.
    for f in os.listdir(HERE):
        if f.endswith((".xml", ".bin")):
            os.remove(os.path.join(HERE, f))
    for name, (xml, bin) in sorted(CASES.items()):
        with open(os.path.join(HERE, name + ".xml"), "wb") as f:
            f.write(xml)
        if bin is not None:
            with open(os.path.join(HERE, name + ".bin"), "wb") as f:
                f.write(bin)
    print(f"{len(CASES)} cases")


if __name__ == "__main__":
    main()
