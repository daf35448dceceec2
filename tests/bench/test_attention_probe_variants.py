"""bench/probes/attention_probe.py: the kernel-structure variants (``sN``, ``ws``, ``wg2``, ``rs``, ``rsP_C``) set
``AttentionParams``' stages, warp_specialized, compute_warp_groups and register_split, and the patched schedule takes
them (a subprocess: the probe patches the scheduler and codegen when imported)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

SCRIPT = """
import sys
sys.argv = ["attention_probe"]
sys.path.insert(0, "bench/probes")
import attention_probe as p
from examples import attention
from fusion_ir.schedulers import schedule_attention
from lowering import lower
for variant in ["kv128+ws+s2+wg2+rs", "s3", "ws+rs32_232", "base"]:
    print(variant, "->", p.params_of(variant.split("+"), 64).summary())
p.CHANGES[:] = ["ws", "wg2", "rs"]
fusion = attention.fusion_of(1, 2, 200, 200, 64)
schedule_attention(fusion, p.params_of(p.CHANGES, 64))
print("launch", "block (128, 3, 1)" in str(lower(fusion)))
print("kv128+s2+wg2+pp", "->", p.params_of(["kv128", "s2", "wg2", "pp"], 64).summary())
fusion = attention.fusion_of(1, 1, 256, 256, 128)
schedule_attention(fusion, p.params_of(["kv128", "s2", "wg2", "pp"], 64))
print("turns", "bar.arrive" in str(lower(fusion)))
"""


def test_the_structure_variants_set_the_params_and_schedule() -> None:
    r = subprocess.run([sys.executable, "-c", SCRIPT], cwd=ROOT, capture_output=True, text=True, timeout=300, check=False,
                       env={"PATH": "/usr/bin:/bin", "PYTHONPATH": str(ROOT), "CUDA_VISIBLE_DEVICES": ""})
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    assert "block_kv=128, tensor_cores=True, stages=2, warp_specialized=True, register_split=(24, 240), " \
           "compute_warp_groups=2" in lines[0]
    assert "block_kv=64" in lines[1] and "stages=3, warp_specialized=False" in lines[1]
    assert "stages=2, warp_specialized=True, register_split=(32, 232), compute_warp_groups=1" in lines[2]
    assert "stages=1, warp_specialized=False, register_split=None, compute_warp_groups=1" in lines[3]
    assert lines[4] == "launch True"
    assert "stages=2, warp_specialized=False, register_split=None, compute_warp_groups=2, ping_pong=True" in lines[5]
    assert lines[6] == "turns True"
