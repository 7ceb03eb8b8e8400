"""irc_ov — irc, the OpenVINO IR compiler, from Python.

Each function runs one irc command in this process (no subprocess, the GIL released while irc
works, safe from several threads) and returns what ``irc <command> --format json`` prints, as
dicts and lists::

    import irc_ov
    report = irc_ov.fold("model.xml", "folded.xml", inputs={"input_ids": [1, 128]})
    print(report["layers_before"], "->", report["layers_after"])

With OpenVINO's own objects, no files to manage::

    import openvino as ov, irc_ov
    model = ov.Core().read_model("model.xml")
    folded = irc_ov.fold_model(model, inputs=["input_ids[1,128]"])
    compiled = ov.Core().compile_model(folded, "CPU")

Errors raise :class:`IrcError`, whose attributes are the fields of the first error of the JSON
error form (``file``, ``line``, ``column``, ``kind``, ``layer``, ``message``), with all of them
in ``errors``. A difference found by :func:`diff` or :func:`check` is a result, not an error.
"""

from __future__ import annotations

import operator
import os
from typing import Any, Dict, List, Mapping, Optional, Sequence, Tuple, Union

from . import _native

__version__: str = _native.IRC_VERSION

__all__ = [
    "IrcError",
    "fold",
    "edit",
    "extract",
    "compress",
    "verify",
    "infer_shapes",
    "check",
    "normalize",
    "is_normalized",
    "diff",
    "render",
    "stats",
    "dump",
    "fold_model",
    "infer_model",
    "compress_model",
    "run",
    "__version__",
]

PathLike = Union[str, "os.PathLike[str]"]
#: A dim: an int (``-1`` dynamic), ``None`` (dynamic), a ``(min, max)`` interval (``max`` -1 or
#: None: unbounded) or an ovc string (``"?"``, ``"1..10"``).
Dim = Union[int, None, Tuple[Optional[int], Optional[int]], str]
#: ``["input_ids[1,128]", ...]`` (ovc syntax, as ``--input``) or ``{"input_ids": [1, 128]}``.
Inputs = Union[Sequence[str], Mapping[str, Union[Sequence[Dim], str, Any]]]


class IrcError(Exception):
    """irc could not do what was asked: a malformed or invalid model, a bad argument, an
    unwritable output.

    Attributes are those of the first error (``file``, ``line``, ``column``, ``kind``,
    ``layer``, ``message``; each may be ``None``); ``errors`` holds every error as a dict with
    those keys, and ``exit_code`` the command line's exit code.
    """

    def __init__(self, errors: List[Dict[str, Any]], exit_code: int = 1) -> None:
        self.errors: List[Dict[str, Any]] = list(errors) or [
            {"kind": "internal", "message": "irc failed without a report"}
        ]
        first = self.errors[0]
        self.file: Optional[str] = first.get("file")
        self.line: Optional[int] = first.get("line")
        self.column: Optional[int] = first.get("column")
        self.kind: Optional[str] = first.get("kind")
        self.layer: Optional[str] = first.get("layer")
        self.message: str = first.get("message") or ""
        self.exit_code: int = exit_code
        super().__init__(self._render())

    def _render(self) -> str:
        where = ""
        if self.file:
            where = self.file
            if self.line is not None:
                where += f":{self.line}"
                if self.column is not None:
                    where += f":{self.column}"
            where += ": "
        s = f"{where}error[{self.kind}]: {self.message}"
        if self.layer:
            s += f" (at {self.layer})"
        if len(self.errors) > 1:
            s += f" (and {len(self.errors) - 1} more error(s))"
        return s


def _dim(d: Any) -> str:
    if d is None:
        return "?"
    if isinstance(d, str):
        return d
    if isinstance(d, tuple):
        if len(d) != 2:
            raise ValueError(f"an interval dim is (min, max), got {d!r}")
        lo, hi = d
        lo_s = "" if lo is None else str(int(lo))
        hi_s = "" if hi is None or hi == -1 else str(int(hi))
        return f"{lo_s}..{hi_s}"
    try:
        if isinstance(d, bool):
            raise TypeError
        d = operator.index(d)  # ints and numpy integers, not floats
    except TypeError:
        raise ValueError(f"a dim is an int, None, (min, max) or a string, got {d!r}") from None
    return "?" if d < 0 else str(d)


def _input_specs(inputs: Optional[Inputs]) -> List[str]:
    """``inputs`` as ``--input=SPEC`` arguments."""
    if inputs is None:
        return []
    if isinstance(inputs, str):
        inputs = [inputs]
    specs: List[str] = []
    if isinstance(inputs, Mapping):
        for name, shape in inputs.items():
            if isinstance(shape, str):
                text = shape if shape.startswith("[") else f"[{shape}]"
            elif isinstance(shape, (list, tuple)):
                text = "[" + ",".join(_dim(d) for d in shape) + "]"
            else:
                # openvino.PartialShape and Shape print as [1,3,?,224] / [1..10,?].
                text = str(shape).replace(" ", "")
                if not text.startswith("["):
                    raise ValueError(f"input {name!r}: cannot read a shape from {shape!r}")
            specs.append(f"{name}{text}")
    else:
        specs = [str(s) for s in inputs]
    return [f"--input={s}" for s in specs]


def _path(p: PathLike) -> str:
    return os.fspath(p)


def run(args: Sequence[str]) -> Tuple[int, str, str]:
    """Run ``irc ARGS...`` in this process: returns ``(exit_code, stdout, stderr)`` as the
    command line would print them. Never raises for irc's own failures (see the exit code)."""
    return _native.run([os.fspath(a) for a in args])


def _call(args: List[str], ok: Tuple[int, ...] = (0,)) -> Any:
    # The report arrives parsed (irc's own JSON, turned into dicts and lists in Rust).
    code, data, err = _native.run_json(args)
    if err.strip():
        # Notes (op types taken on trust …) go to the "irc_ov" logger, at INFO.
        import logging

        log = logging.getLogger("irc_ov")
        for line in err.splitlines():
            if line.strip():
                log.info("%s", line)
    if isinstance(data, dict) and set(data) == {"errors"}:
        raise IrcError(data["errors"], code)
    if code not in ok or data is None:
        raise IrcError(
            [{"kind": "internal", "message": err.strip() or f"irc exited with {code}"}], code
        )
    return data


def fold(
    src: PathLike,
    dst: PathLike,
    inputs: Optional[Inputs] = None,
    max_fold_bytes: Optional[int] = None,
    verify: bool = False,
    simplify: bool = True,
    relax: Sequence[str] = (),
) -> Dict[str, Any]:
    """``irc fold SRC -o DST``: fold every subgraph whose value is known before run time into
    constants, remove dead layers, share identical constants; write DST (.xml, its .bin beside).

    ``inputs`` overrides input shapes as ``--input`` does. ``max_fold_bytes`` caps how much the
    weights may grow (default 16 MiB). ``verify=True``: before DST is put in place, OpenVINO
    runs it and SRC on the same inputs; when they differ nothing is written and IrcError is
    raised (``--verify``). ``simplify=False``: only fold constants and remove dead layers
    (``--no-simplify``; docs/simplify.md). ``relax``: rewrites OpenVINO's MOC makes that irc
    refuses by default (``--relax``): ``"names"`` may drop intermediate tensor names,
    ``"rounding"`` fuses Exp/ReduceSum/Divide into one SoftMax. Returns the fold report (``layers_before``,
    ``layers_after``, ``folded``, ``skipped``, ``simplified``, ``bin_before``, ``bin_after`` …)."""
    args = ["fold", "--format=json", "--quiet", f"--output={_path(dst)}"]
    args += _input_specs(inputs)
    if max_fold_bytes is not None:
        args.append(f"--max-fold-bytes={int(max_fold_bytes)}")
    if not simplify:
        args.append("--no-simplify")
    if isinstance(relax, str):
        relax = [relax]
    for kind in relax:
        args.append(f"--relax={kind}")
    if verify:
        args.append("--verify")
        lib = _ov_lib()
        if lib is not None:
            args.append(f"--openvino-lib={lib}")
    return _call(args + ["--", _path(src)])


def edit(
    src: PathLike,
    dst: PathLike,
    rename_inputs: Optional[Mapping[str, str]] = None,
    rename_outputs: Optional[Mapping[str, str]] = None,
    add_outputs: Sequence[str] = (),
    drop_outputs: Sequence[str] = (),
    inputs: Optional[Inputs] = None,
    rt_info: Optional[Mapping[str, str]] = None,
    strip_rt_info: bool = False,
) -> Dict[str, Any]:
    """``irc edit SRC -o DST``: edit the model's inputs and outputs; the weights are copied
    untouched. Edits apply in this order (each group in the order given): ``strip_rt_info``,
    ``rename_inputs`` ({old: new}), ``rename_outputs`` ({old: new}), ``add_outputs`` (tensor
    names, or ``"LAYER:INDEX"``), ``drop_outputs``, ``inputs`` (shapes made permanent, as
    ``--set-input``), ``rt_info`` ({"runtime_options/KV_CACHE_PRECISION": "u8"}). Names are
    friendly names or tensor names. Raises IrcError (nothing written) on an unknown name
    (the message lists close matches) or a name the model already has. Returns the report:
    ``applied`` (one line per edit), ``removed_dead``, ``bin_bytes``, ``inputs``, ``outputs``."""
    args = ["edit", "--format=json", "--quiet", f"--output={_path(dst)}"]
    if strip_rt_info:
        args.append("--strip-rt-info")
    for old, new in (rename_inputs or {}).items():
        args.append(f"--rename-input={old}={new}")
    for old, new in (rename_outputs or {}).items():
        args.append(f"--rename-output={old}={new}")
    args += [f"--add-output={t}" for t in ([add_outputs] if isinstance(add_outputs, str) else add_outputs)]
    args += [f"--drop-output={t}" for t in ([drop_outputs] if isinstance(drop_outputs, str) else drop_outputs)]
    args += ["--set-input=" + a[len("--input="):] for a in _input_specs(inputs)]
    for path, value in (rt_info or {}).items():
        args.append(f"--set-rt-info={path}={value}")
    return _call(args + ["--", _path(src)])


def extract(
    src: PathLike,
    dst: PathLike,
    inputs: Sequence[str] = (),
    outputs: Sequence[str] = (),
    around: Optional[str] = None,
    depth: int = 2,
    shapes: Optional[Inputs] = None,
) -> Dict[str, Any]:
    """``irc extract SRC -o DST``: cut a subgraph out of the model. ``inputs`` (tensor names,
    a single-output layer's name, or ``"LAYER:INDEX"``) become Parameters named after them;
    ``outputs`` become the outputs, in order; only what they need stays (constants with their
    decompression chains, bodies whole, state variables with both their ReadValue and Assign).
    Or ``around="LAYER"``: the layers within ``depth`` edges of it. ``shapes`` sets input shapes
    first, as ``--input`` does (a ShapeOf of a static shape then becomes a constant). Raises
    IrcError (nothing written) when an output still needs a model input not given (it is
    named), or a name is unknown (close matches listed). Returns the report: ``inputs``,
    ``outputs``, ``variables``, ``layers_before``, ``layers_after``, ``bin_bytes``."""
    args = ["extract", "--format=json", "--quiet", f"--output={_path(dst)}"]
    ins = [inputs] if isinstance(inputs, str) else list(inputs)
    outs = [outputs] if isinstance(outputs, str) else list(outputs)
    args += [f"--inputs={t}" for t in ins]
    args += [f"--outputs={t}" for t in outs]
    if around is not None:
        args += [f"--around={around}", f"--depth={int(depth)}"]
    args += _input_specs(shapes)
    return _call(args + ["--", _path(src)])


def compress(
    src: PathLike,
    dst: PathLike,
    weight_format: Optional[str] = None,
    *,
    sym: bool = False,
    group_size: Optional[int] = None,
    ratio: Optional[float] = None,
    all_layers: bool = False,
    backup_precision: Optional[str] = None,
    ignore_layers: Sequence[str] = (),
    ignore_patterns: Sequence[str] = (),
    ignore_types: Sequence[str] = (),
    group_size_fallback: Optional[str] = None,
) -> Dict[str, Any]:
    """``irc compress SRC -o DST``.

    Without ``weight_format`` (``--fp16``): store the f32 constants as f16, each followed by a
    ``decompression`` Convert, as OpenVINO's ``save_model(..., compress_to_fp16=True)`` does
    (the same constants, the same bytes). Returns the report: ``compressed``, ``kept``
    ([name, reason] pairs), ``skipped_model`` (why nothing was compressed, for an already
    optimized model), ``bin_before``, ``bin_after``.

    With ``weight_format`` (``"int8"``, ``"int4"``, ``"nf4"``, ``"fp8_e4m3"``, ``"fp4"``,
    ``"mxfp4"``, ``"mxfp8_e4m3"``; ``"int8_sym"``... spelled out work too): NNCF 3.4.0's
    data-free ``compress_weights``, byte for byte, streamed from the
    mapped ``.bin``. The keywords are NNCF's parameters under optimum-cli's names: ``sym``
    (INT*_SYM), ``group_size`` (-1: per channel; 128 by default for int4/nf4), ``ratio``,
    ``all_layers``, ``backup_precision`` (``"int8_asym"``, ``"int8_sym"``, ``"fp8_e4m3"``,
    ``"mxfp8_e4m3"``, ``"none"``), the
    ignored scope as ``ignore_layers`` / ``ignore_patterns`` (``re.match``) / ``ignore_types``,
    and ``group_size_fallback`` (``"error"``, ``"ignore"``, ``"adjust"``). What NNCF refuses
    raises IrcError. Returns the report: ``mode``, ``compressed``, ``kept``, ``bytes_before``,
    ``bytes_after``, ``bin_before``, ``bin_after`` and ``weights`` (per weight: ``name``,
    ``layer``, ``mode``, ``group_size``, ``shape``, ``bytes_before``, ``bytes_after``, and
    ``kept``, why it stays float); see docs/json.md."""
    args = ["compress", "--format=json", "--quiet", f"--output={_path(dst)}"]
    if weight_format is None:
        extra = [sym, group_size, ratio, all_layers, backup_precision, group_size_fallback]
        if any(x not in (None, False) for x in extra) or ignore_layers or ignore_patterns or ignore_types:
            raise TypeError("compress: NNCF's options need a weight_format (int8, int4, nf4)")
        return _call(args + ["--fp16", "--", _path(src)])
    args.append(f"--weight-format={weight_format}")
    if sym:
        args.append("--sym")
    if group_size is not None:
        args.append(f"--group-size={int(group_size)}")
    if ratio is not None:
        args.append(f"--ratio={float(ratio)!r}")
    if all_layers:
        args.append("--all-layers")
    if backup_precision is not None:
        args.append(f"--backup-precision={backup_precision}")
    for flag, values in (
        ("--ignore-layer", ignore_layers),
        ("--ignore-pattern", ignore_patterns),
        ("--ignore-type", ignore_types),
    ):
        args += [f"{flag}={v}" for v in ([values] if isinstance(values, str) else values)]
    if group_size_fallback is not None:
        args.append(f"--group-size-fallback={group_size_fallback}")
    return _call(args + ["--", _path(src)])


def _ov_lib() -> Optional[str]:
    """libopenvino_c of the ``openvino`` package of this Python, if it has one (found without
    importing it), so verify runs the same OpenVINO as the caller's."""
    import glob
    import importlib.util

    spec = importlib.util.find_spec("openvino")
    if spec is None or not spec.origin:
        return None
    libs = sorted(glob.glob(os.path.join(os.path.dirname(spec.origin), "libs", "libopenvino_c.so*")))
    return libs[0] if libs else None


def verify(
    ref: PathLike,
    cand: PathLike,
    inputs: Optional[Inputs] = None,
    seed: Optional[int] = None,
    runs: Optional[int] = None,
    steps: Optional[int] = None,
    rtol: Optional[float] = None,
    atol: Optional[float] = None,
    openvino_lib: Optional[PathLike] = None,
    data: Optional[PathLike] = None,
    extensions: Optional[Sequence[PathLike]] = None,
) -> Dict[str, Any]:
    """``irc verify REF CAND``: run both models with OpenVINO's runtime on the same inputs and
    compare every output. Returns the report (``equal``, ``openvino``, ``outputs`` with
    ``max_abs``/``max_rel``/``ok`` each …); a difference is a result, not an error.
    ``openvino_lib`` defaults to the ``openvino`` package of this Python; ``data`` is a
    ``numpy.savez`` file of inputs by name (``--data``); ``extensions`` are OpenVINO extension
    libraries to load (``--extension``; openvino-tokenizers' is found by itself)."""
    args = ["verify", "--format=json"] + _input_specs(inputs)
    for flag, v in (("seed", seed), ("runs", runs), ("steps", steps), ("rtol", rtol), ("atol", atol)):
        if v is not None:
            args.append(f"--{flag}={v}")
    if data is not None:
        args.append(f"--data={_path(data)}")
    for e in extensions or ():
        args.append(f"--extension={_path(e)}")
    lib = _path(openvino_lib) if openvino_lib is not None else _ov_lib()
    if lib is not None:
        args.append(f"--openvino-lib={lib}")
    return _call(args + ["--", _path(ref), _path(cand)], ok=(0, 1))


def infer_shapes(
    src: PathLike, dst: Optional[PathLike] = None, inputs: Optional[Inputs] = None
) -> Dict[str, Any]:
    """``irc infer-shapes``: recompute every port's element type and shape. With ``dst``,
    write the model with them; returns the inputs and outputs with their inferred types and
    shapes."""
    args = ["infer-shapes", "--format=json", "--quiet"]
    if dst is not None:
        args.append(f"--output={_path(dst)}")
    args += _input_specs(inputs)
    return _call(args + ["--", _path(src)])


def check(src: PathLike, inputs: Optional[Inputs] = None) -> Dict[str, Any]:
    """``irc infer-shapes --check``: compare the shapes and types recorded in the file with
    inference. Returns ``{"ok": bool, "diffs": [...]}`` (drift is a result, not an error)."""
    args = ["infer-shapes", "--check", "--format=json", "--quiet"] + _input_specs(inputs)
    return _call(args + ["--", _path(src)], ok=(0, 1))


def normalize(src: PathLike, dst: PathLike) -> Dict[str, Any]:
    """``irc normalize SRC -o DST``: read, validate and write the model in canonical form."""
    args = ["normalize", "--format=json", "--quiet", f"--output={_path(dst)}"]
    return _call(args + ["--", _path(src)])


def is_normalized(src: PathLike) -> Dict[str, Any]:
    """``irc normalize --check``: is the file already what :func:`normalize` writes?
    Returns ``{"normal": bool, "xml_normal": bool, "bin_normal": bool, "file": ...}``."""
    return _call(["normalize", "--check", "--format=json", "--", _path(src)], ok=(0, 1))


def diff(
    a: PathLike, b: PathLike, render: Optional[PathLike] = None, collapse: str = "auto"
) -> Dict[str, Any]:
    """``irc diff A B``: the semantic difference of two models (``equal`` says whether there
    is any); a difference is not an error. ``render="change.html"`` (or ``.svg``) also draws B
    with what changed marked (``irc diff --render``)."""
    args = ["diff", "--format=json"]
    if render is not None:
        args += [f"--render={_path(render)}", f"--collapse={collapse}"]
    return _call(args + ["--", _path(a), _path(b)], ok=(0, 1))


def render(
    src: PathLike,
    dst: PathLike,
    inputs: Optional[Inputs] = None,
    collapse: str = "auto",
    around: Optional[str] = None,
    depth: int = 2,
) -> Dict[str, Any]:
    """``irc render``: draw the graph to ``dst`` (``.svg``, or a self-contained ``.html`` page
    with pan/zoom, search and details); returns the counts of boxes, edges, layers and
    collapsed blocks. ``collapse="none"`` gives every run-time layer its own box; ``around``
    draws only the layers within ``depth`` edges of that layer."""
    args = ["render", "--format=json", f"--output={_path(dst)}", f"--collapse={collapse}"]
    args += _input_specs(inputs)
    if around is not None:
        args += [f"--around={around}", f"--depth={depth}"]
    return _call(args + ["--", _path(src)])


def stats(src: PathLike, inputs: Optional[Inputs] = None) -> Dict[str, Any]:
    """``irc stats``: op histogram, weights per element type, decompression chains, inputs and
    outputs, why output dims stay dynamic, MACs/FLOPs."""
    args = ["stats", "--format=json"] + _input_specs(inputs)
    return _call(args + ["--", _path(src)])


def dump(src: PathLike) -> str:
    """``irc dump``: the stable text form of the graph (for snapshot review)."""
    return _call(["dump", "--format=json", "--", _path(src)])["text"]


# --- OpenVINO's own objects -------------------------------------------------------------------

_core: Any = None


def _ov_core() -> Any:
    global _core
    if _core is None:
        import openvino

        # Two threads may both make one; either is fine (the last one stays).
        _core = openvino.Core()
    return _core


def _through_files(model: Any, work: Any, core: Any) -> Any:
    import tempfile

    import openvino

    with tempfile.TemporaryDirectory(prefix="irc-ov-") as d:
        src = os.path.join(d, "in.xml")
        dst = os.path.join(d, "out.xml")
        # ov.serialize keeps the weights as they are (ov.save_model would compress them to f16).
        openvino.serialize(model, src, os.path.join(d, "in.bin"))
        work(src, dst)
        os.remove(src)
        os.remove(os.path.join(d, "in.bin"))
        # The .bin is memory-mapped by OpenVINO; the mapping outlives the directory.
        return (core or _ov_core()).read_model(dst)


def fold_model(
    model: Any,
    inputs: Optional[Inputs] = None,
    max_fold_bytes: Optional[int] = None,
    core: Any = None,
    simplify: bool = True,
    relax: Sequence[str] = (),
) -> Any:
    """Fold an ``openvino.Model``: returns a new ``openvino.Model`` (the argument is left as
    it is), as :func:`fold` would write it. ``inputs``, ``relax`` as for :func:`fold`; ``core`` the
    ``openvino.Core`` to read the result with (default: one shared by this module)."""
    return _through_files(
        model,
        lambda s, d: fold(
            s, d, inputs=inputs, max_fold_bytes=max_fold_bytes, simplify=simplify, relax=relax
        ),
        core,
    )


def infer_model(model: Any, inputs: Optional[Inputs] = None, core: Any = None) -> Any:
    """Reshape-and-infer an ``openvino.Model``: a new model with ``inputs`` applied (as
    ``--input``) and every port's type and shape inferred by irc."""
    return _through_files(model, lambda s, d: infer_shapes(s, d, inputs=inputs), core)


def compress_model(
    model: Any, weight_format: Optional[str] = None, core: Any = None, **options: Any
) -> Any:
    """Compress an ``openvino.Model``'s weights: returns a new ``openvino.Model`` (the argument
    is left as it is), as :func:`compress` would write it; ``weight_format`` and ``options`` as
    for :func:`compress` (``weight_format=None``: f16). For the data-free modes, the model
    ``nncf.compress_weights(model, mode=..., ...)`` returns, with the same constants."""
    return _through_files(model, lambda s, d: compress(s, d, weight_format, **options), core)
