"""Probe schedule variants of the tensor-core attention kernel against torch's flash attention, same rounds.

``python bench/probes/attention_probe.py CASE[,CASE...] VARIANT[,VARIANT...] [--block-kv 64|128]``: each case a
substring of ``bench/attention.py``'s case names (``'seq4096 d128 full'``); each variant a ``+``-joined list of
changes applied after ``schedule_on_tensor_cores`` (``base`` for none):

- ``i32``: 32-bit indexing (``Fusion.set_index_type``);
- ``vpre``: v_j's tile in a circular buffer of two stages, one block ahead (its load issued at the top of the
  previous key block), the WAR by mbarriers;
- ``vpre0``: the same with prefetch 0 (a ring of two, no load ahead);
- ``ex2``: ``exp(x)`` generated as ``exp2f(log2(e) * x)`` (one MUFU.EX2 and a multiply, instead of ``expf``);
- ``fast``: the whole kernel compiled with NVRTC's ``--use_fast_math``;
- ``reuse``: k_j's and v_j's tiles may share memory again (``set_shared_reuse(True)``);
- ``mbN``: ``Fusion.set_min_blocks_per_sm(N)`` (``__launch_bounds__``' minimum blocks: ptxas keeps the registers
  under what N blocks of the SM allow);
- ``kv128`` / ``kv64``: 128 / 64 keys per block (otherwise ``--block-kv``, default 64);
- ``rev``: the query tiles launched in reverse order (``blockIdx.x`` read as ``gridDim.x - 1 - blockIdx.x`` in
  the generated source): with a causal mask the longest tiles first;
- the kernel's structure (``AttentionParams``, ``attention_wgmma.KernelShape``; not measured yet): ``s2`` / ``s3`` /
  ``sN``: k_j's and v_j's tiles in an N-stage circular buffer over the key blocks (``stages``); ``ws``: its loads
  issued by a producer warp group (``warp_specialized``; 2 stages unless an ``sN`` says more); ``wg2``: two compute
  warp groups of 64 query rows per block (``compute_warp_groups``); ``rs``: the register split ``(24, 240)``
  (``register_split``, with ``ws``; ``rsP_C`` for ``(P, C)``, e.g. ``rs32_232``); ``pp``: the two compute warp
  groups take turns on the tensor cores (``ping_pong``, with ``wg2``). E.g. ``kv128+ws+s2+wg2+rs``, ``kv128+s2+wg2+pp``;
  ``pers``: the persistent kernel (``persistent``: the GPU's SM count of blocks walk the tiles grid-stride;
  ``persN``: N blocks; no ``ws``), e.g. ``kv128+s2+wg2+pers``; ``ov``: p_j @ v_j issued in iteration j + 1, under
  the next block's softmax (``overlap``; with an ``sN`` of 2 or more), e.g. ``kv128+s3+ov``.

Every variant is checked against float64 first (as bench/attention.py does), then timed with flash (and cuDNN) in
``runtime.timing.interleaved_ms`` rounds; prints TFLOP/s and ratios to flash. ``--ncu``: no timing, each variant
launched once more after its check (run under ``ncu -k regex:fusion_kernel``). ``--shape=BxHxSxD`` (``c`` at the end:
causal) adds a case outside the bench's list.
"""
from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from bench import attention as bench                     # noqa: E402
from fusion_ir import DataType                           # noqa: E402
from fusion_ir.circular_buffer import Pipelined         # noqa: E402
from fusion_ir.schedulers import AttentionParams, attention as sched  # noqa: E402
from fusion_ir.schedulers.attention_wgmma import KernelShape  # noqa: E402

ORIGINAL = sched.schedule_on_tensor_cores
CHANGES: list[str] = []


def _patched(fusion, r, shape: KernelShape | None = None) -> None:  # noqa: ANN001 - the scheduler's own signature
    ORIGINAL(fusion, r, shape if shape is not None else KernelShape())
    v_s = r.block_out.definition.inputs[1]
    for change in CHANGES:
        if change == "i32":
            fusion.set_index_type(DataType.Int32)
        elif change in ("vpre", "vpre0"):
            v_s.circular_buffer(2, 1 if change == "vpre" else 0, Pipelined(uses_mbarrier_for_war=True))
        elif change[:2] == "mb" and change[2:].isdigit():
            fusion.set_min_blocks_per_sm(int(change[2:]))
        elif change == "reuse":
            r.score_matmul.definition.inputs[1].set_shared_reuse(True)
            v_s.set_shared_reuse(True)
        elif (change[:2] != "mb" and change not in ("base", "ex2", "fast", "kv64", "kv128", "rev", "ws", "wg2", "pp", "ov")
              and _shape_change(change) is None):
            raise SystemExit(f"unknown change {change!r}")


def _shape_change(change: str) -> dict | None:
    """The ``AttentionParams`` fields a kernel-structure change sets (``sN``, ``rs``, ``rsP_C``), or None."""
    if change[:1] == "s" and change[1:].isdigit():
        return {"stages": int(change[1:])}
    if change == "rs":
        return {"register_split": (24, 240)}
    if change.startswith("pers") and (change[4:] == "" or change[4:].isdigit()):
        from runtime import sm_count
        from target import current

        return {"persistent": True, "blocks": int(change[4:]) if change[4:] else sm_count(default=current().sm_count)}
    parts = change[2:].split("_")
    if change.startswith("rs") and len(parts) == 2 and all(p.isdigit() for p in parts):
        return {"register_split": (int(parts[0]), int(parts[1]))}
    return None


def params_of(changes: list[str], block_kv: int) -> AttentionParams:
    """The tensor-core params of a variant: ``kvN`` keys per block (else ``block_kv``), the kernel structure of
    ``sN``, ``ws``, ``wg2``, ``pp``, ``rs`` / ``rsP_C``."""
    fields: dict = {}
    for change in changes:
        fields.update(_shape_change(change) or {})
    if "ws" in changes:
        fields["warp_specialized"] = True
        fields.setdefault("stages", 2)
    if "wg2" in changes:
        fields["compute_warp_groups"] = 2
    if "pp" in changes:
        fields["ping_pong"] = True
    if "ov" in changes:
        fields["overlap"] = True
    kv = [int(c[2:]) for c in changes if c.startswith("kv") and c[2:].isdigit()]
    return AttentionParams(block_q=64, block_kv=kv[0] if kv else block_kv, tensor_cores=True, **fields)


sched.schedule_on_tensor_cores = _patched


def _patch_codegen() -> None:
    """``ex2`` and ``fast``: read from CHANGES when a kernel is generated and compiled."""
    from codegen import expressions
    from runtime import executor

    unary, options_for = expressions._unary, executor.nvrtc_options_for

    def ex2_unary(v, access):  # noqa: ANN001, ANN202 - codegen's own signature
        text, dtype, paren = unary(v, access)
        if "ex2" in CHANGES and text.startswith("expf(") and text.endswith(")"):
            text = f"exp2f(1.4426950408889634f * ({text[5:-1]}))"
        return text, dtype, paren

    def fast_options(target):  # noqa: ANN001, ANN202
        return options_for(target) + (("--use_fast_math",) if "fast" in CHANGES else ())

    compile_cubin = executor.compile_cubin

    def reversed_tiles(source, name, options):  # noqa: ANN001, ANN202
        if "rev" in CHANGES:                      # the query tiles in reverse launch order: the longest first
            source = source.replace("blockIdx.x", "(gridDim.x - 1 - blockIdx.x)")
        return compile_cubin(source, name, options)

    expressions._unary = ex2_unary
    executor.nvrtc_options_for = fast_options
    executor.compile_cubin = reversed_tiles


_patch_codegen()


def main() -> None:
    import torch

    from lowering import lower
    from runtime.executor import prepare
    from runtime.timing import interleaved_ms

    wanted, variants = sys.argv[1].split(","), sys.argv[2].split(",")
    # "--shape BxHxSxD[c]": cases outside bench/attention.py's list (c: causal)
    extra = [a for a in sys.argv[1:] if a.startswith("--shape=")]
    shapes = [bench.Case(*(int(x) for x in a[len("--shape="):].rstrip("c").split("x")), a.endswith("c"))
              for a in extra]
    block_kv = int(sys.argv[sys.argv.index("--block-kv") + 1]) if "--block-kv" in sys.argv else 64
    torch.manual_seed(0)
    print(f"device: {torch.cuda.get_device_name()}")
    for case in shapes + [c for c in bench.CASES if any(w in c.name for w in wanted)]:
        check = bench.random_set(torch, case)
        expected = bench.float64_reference(torch, *check, case.causal)
        sets = [bench.random_set(torch, case) for _ in range(3)]
        out = torch.empty(case.shapes[0], device="cuda", dtype=torch.bfloat16)
        timed = [("flash", bench.rotating(lambda s: (lambda: bench.sdpa(torch, "flash", *s, case.causal)), sets))]
        for variant in variants:
            CHANGES[:] = variant.split("+")
            fusion = case.build()
            try:
                given = params_of(CHANGES, block_kv)
                bench.schedule(fusion, sizes=case.shapes, params=given)
                kernel = lower(fusion)
            except Exception as e:  # noqa: BLE001 - reported per variant
                print(f"{case.name} {variant}: refused: {type(e).__name__}: {str(e)[:300]}")
                continue
            out.fill_(float("nan"))
            prepare(kernel, list(check), [out])()
            torch.cuda.synchronize()
            err = bench.relative_error(out, expected)
            print(f"{case.name} {variant}: rel error {err:.2e}")
            if not err < 1e-2:
                continue
            timed.append((variant, bench.rotating(lambda s, k=kernel: prepare(k, list(s), [out]), sets)))
        if "--ncu" in sys.argv:                  # each variant launched once more after its check, for ncu
            for _, fn in timed[1:]:
                fn()
            torch.cuda.synchronize()
            continue
        batch = max(1, round(bench.TARGET_BATCH_MS / (case.flops / bench.ASSUMED_TFLOPS / 1e9)))
        times = interleaved_ms([fn for _, fn in timed], batch, 9)
        flash_ms = times[0]
        for (name, _), ms in zip(timed, times):
            print(f"  {case.name:<28} {name:<16} {bench.tflops(case.flops, ms):7.1f} TFLOP/s  {flash_ms / ms:5.2f} of flash")


if __name__ == "__main__":
    main()
