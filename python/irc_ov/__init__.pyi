"""Type stubs of irc_ov (see __init__.py for the documentation of each function)."""

import os
from typing import Any, Dict, List, Mapping, Optional, Sequence, Tuple, Union

PathLike = Union[str, os.PathLike[str]]
Dim = Union[int, None, Tuple[Optional[int], Optional[int]], str]
Inputs = Union[Sequence[str], Mapping[str, Union[Sequence[Dim], str, Any]]]

__version__: str
__all__: List[str]

class IrcError(Exception):
    errors: List[Dict[str, Any]]
    file: Optional[str]
    line: Optional[int]
    column: Optional[int]
    kind: Optional[str]
    layer: Optional[str]
    message: str
    exit_code: int
    def __init__(self, errors: List[Dict[str, Any]], exit_code: int = ...) -> None: ...

def run(args: Sequence[str]) -> Tuple[int, str, str]: ...
def fold(
    src: PathLike,
    dst: PathLike,
    inputs: Optional[Inputs] = ...,
    max_fold_bytes: Optional[int] = ...,
    verify: bool = ...,
    simplify: bool = ...,
    relax: Sequence[str] = ...,
) -> Dict[str, Any]: ...
def edit(
    src: PathLike,
    dst: PathLike,
    rename_inputs: Optional[Mapping[str, str]] = ...,
    rename_outputs: Optional[Mapping[str, str]] = ...,
    add_outputs: Sequence[str] = ...,
    drop_outputs: Sequence[str] = ...,
    inputs: Optional[Inputs] = ...,
    rt_info: Optional[Mapping[str, str]] = ...,
    strip_rt_info: bool = ...,
) -> Dict[str, Any]: ...
def extract(
    src: PathLike,
    dst: PathLike,
    inputs: Sequence[str] = ...,
    outputs: Sequence[str] = ...,
    around: Optional[str] = ...,
    depth: int = ...,
    shapes: Optional[Inputs] = ...,
) -> Dict[str, Any]: ...
def compress(
    src: PathLike,
    dst: PathLike,
    weight_format: Optional[str] = ...,
    *,
    sym: bool = ...,
    group_size: Optional[int] = ...,
    ratio: Optional[float] = ...,
    all_layers: bool = ...,
    backup_precision: Optional[str] = ...,
    ignore_layers: Sequence[str] = ...,
    ignore_patterns: Sequence[str] = ...,
    ignore_types: Sequence[str] = ...,
    group_size_fallback: Optional[str] = ...,
) -> Dict[str, Any]: ...
def verify(
    ref: PathLike,
    cand: PathLike,
    inputs: Optional[Inputs] = ...,
    seed: Optional[int] = ...,
    runs: Optional[int] = ...,
    steps: Optional[int] = ...,
    rtol: Optional[float] = ...,
    atol: Optional[float] = ...,
    openvino_lib: Optional[PathLike] = ...,
    data: Optional[PathLike] = ...,
    extensions: Optional[Sequence[PathLike]] = ...,
) -> Dict[str, Any]: ...
def infer_shapes(
    src: PathLike, dst: Optional[PathLike] = ..., inputs: Optional[Inputs] = ...
) -> Dict[str, Any]: ...
def check(src: PathLike, inputs: Optional[Inputs] = ...) -> Dict[str, Any]: ...
def normalize(src: PathLike, dst: PathLike) -> Dict[str, Any]: ...
def is_normalized(src: PathLike) -> Dict[str, Any]: ...
def diff(
    a: PathLike, b: PathLike, render: Optional[PathLike] = ..., collapse: str = ...
) -> Dict[str, Any]: ...
def render(
    src: PathLike,
    dst: PathLike,
    inputs: Optional[Inputs] = ...,
    collapse: str = ...,
    around: Optional[str] = ...,
    depth: int = ...,
) -> Dict[str, Any]: ...
def stats(src: PathLike, inputs: Optional[Inputs] = ...) -> Dict[str, Any]: ...
def dump(src: PathLike) -> str: ...
def fold_model(
    model: Any,
    inputs: Optional[Inputs] = ...,
    max_fold_bytes: Optional[int] = ...,
    core: Any = ...,
    simplify: bool = ...,
    relax: Sequence[str] = ...,
) -> Any: ...
def infer_model(model: Any, inputs: Optional[Inputs] = ..., core: Any = ...) -> Any: ...
def compress_model(
    model: Any, weight_format: Optional[str] = ..., core: Any = ..., **options: Any
) -> Any: ...
