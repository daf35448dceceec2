"""Temporary: run every hand-built sample once (for compute-sanitizer). Not part of the project."""
import sys

import numpy as np

from runtime import execute
from tests.codegen import sample_kernels as s

names = sys.argv[1:] or list(s.gpu_samples())
for name in names:
    sample = s.gpu_samples()[name]
    size = sample.sizes[1]
    inputs = sample.make_inputs(size, np.random.default_rng(0))
    (out,) = execute(sample.kernel, inputs)
    (ref,) = sample.reference(*inputs)
    ok = np.allclose(out.astype(np.float64), ref.astype(np.float64), rtol=2e-3, atol=2e-3)
    print(name, size, "OK" if ok else "MISMATCH", flush=True)
