"""The TMA store's two waits (``MatmulParams.store_wait``) on the GPU: the seed-000 kernels, cooperative
(examples/matmul_ws_persistent) and ping-pong (examples/matmul_ping_pong), each with ``"after_boxes"`` and
``"deferred"``, checked against torch.matmul at 4096^3, then timed with torch.matmul at 8192^3 and 4096^3 in
bench/matmul.py's interleaved rounds (three rotating input sets, the median of 15 rounds):
``python -m tests.runtime.run_store_wait_gpu [--json PATH]``. Not a test: it needs a GPU and torch."""

from __future__ import annotations

import json
import sys

import torch

from bench.matmul import interleaved_ms, launches_per_batch, rotating
from bench.matmul_common import relative_error, tflops
from examples import matmul_ping_pong, matmul_ws_persistent
from lowering import lower
from runtime import execute
from runtime.executor import prepare
from runtime.sm_count import sm_count

ARRANGEMENTS = {"cooperative": matmul_ws_persistent, "ping-pong": matmul_ping_pong}
WAITS = ("after_boxes", "deferred")
CHECKED = 4096
TIMED = [(8192, 8192, 8192), (4096, 4096, 4096)]


def kernels() -> dict[tuple[str, str], object]:
    blocks = sm_count()
    return {(name, wait): lower(module.build(blocks=blocks, group_m=8, store_wait=wait))
            for name, module in ARRANGEMENTS.items() for wait in WAITS}


def main(argv: list[str]) -> None:
    torch.manual_seed(0)
    built = kernels()
    rows: list[dict] = []
    a = torch.randn(CHECKED, CHECKED, device="cuda").bfloat16()
    b = torch.randn(CHECKED, CHECKED, device="cuda").bfloat16()
    expected = a.double() @ b.double()
    torch_err = relative_error(torch.matmul(a, b), expected)
    print(f"device: {torch.cuda.get_device_name()}, {sm_count()} SMs; torch.matmul relative error at "
          f"{CHECKED}^3: {torch_err:.3e}")
    for (name, wait), kernel in built.items():
        (out,) = execute(kernel, [a, b])
        err = relative_error(out, expected)
        ok = err < 1.5 * torch_err
        print(f"{CHECKED}^3 {name:<12} {wait:<12} relative error {err:.3e}  {'ok' if ok else 'WRONG'}")
        rows.append({"check": [CHECKED] * 3, "arrangement": name, "store_wait": wait, "rel_error": err, "ok": ok})
    for m, n, k in TIMED:
        sets = [(torch.randn(m, k, device="cuda").bfloat16(), torch.randn(k, n, device="cuda").bfloat16())
                for _ in range(3)]
        out = torch.empty(m, n, device="cuda", dtype=torch.bfloat16)
        names = ["torch.matmul"] + [f"{name} {wait}" for name, wait in built]
        fns = [rotating(lambda s, out=out: (lambda: torch.matmul(s[0], s[1], out=out)), sets)]
        fns += [rotating(lambda s, kernel=kernel, out=out: prepare(kernel, [s[0], s[1]], [out]), sets)
                for kernel in built.values()]
        times = interleaved_ms(fns, batch=launches_per_batch(m, n, k))
        print(f"{m}x{n}x{k}: {'kernel':<26}{'ms':>8}{'TFLOP/s':>9}{'/ torch':>9}")
        for label, ms in zip(names, times):
            ratio = times[0] / ms
            print(f"{'':<{len(f'{m}x{n}x{k}: ')}}{label:<26}{ms:>8.3f}{tflops(m, n, k, ms):>9.1f}{ratio:>9.3f}")
            rows.append({"shape": [m, n, k], "kernel": label, "ms": ms, "TFLOP/s": tflops(m, n, k, ms),
                         "ratio": ratio})
    if "--json" in argv:
        path = argv[argv.index("--json") + 1]
        with open(path, "w") as f:
            json.dump({"device": torch.cuda.get_device_name(), "rows": rows}, f, indent=2)


if __name__ == "__main__":
    main(sys.argv[1:])
