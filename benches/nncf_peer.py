#!/usr/bin/env python3
"""NNCF 3.4.0's data-free compress_weights on an IR, as a user runs it, for benchmarks against
`irc compress --weight-format`: read_model, compress_weights, save_model (the f16 weights left
as they are: compress_to_fp16=False).

    nncf_peer.py IN.xml OUT.xml MODE [GROUP_SIZE [RATIO]]     (MODE: INT4_ASYM, INT8_ASYM, ...)
"""
import sys
import time

import nncf
import openvino as ov

src, dst, mode = sys.argv[1:4]
kw = {}
if len(sys.argv) > 4:
    kw["group_size"] = int(sys.argv[4])
if len(sys.argv) > 5:
    kw["ratio"] = float(sys.argv[5])
t0 = time.time()
m = ov.Core().read_model(src)
t1 = time.time()
cm = nncf.compress_weights(m, mode=getattr(nncf.CompressWeightsMode, mode), **kw)
t2 = time.time()
ov.save_model(cm, dst, compress_to_fp16=False)
t3 = time.time()
print("read %.2f s, compress %.2f s, save %.2f s" % (t1 - t0, t2 - t1, t3 - t2), file=sys.stderr)
