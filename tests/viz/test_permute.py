"""``viz`` on fusions with permutes: the fusion view prints nvFuser's ``Set.Permute`` with its dims, the DAG names
the op, and a transposed matmul operand shows as the TMA load of its input (``Set.TMA.Permute``)."""

from __future__ import annotations


def test_a_transposed_matmul_shows_its_in_place_loads(viz, tmp_path) -> None:
    script = tmp_path / "linear.py"
    script.write_text("from examples import matmul_wgmma\n\n\ndef build():\n"
                      "    return matmul_wgmma.build(tile=(64, 64, 64), stages=2, compute_warp_groups=1,"
                      " transpose_a=True, transpose_b=True)\n")
    r = viz(str(script), "--show", "fusion,dag,cuda")
    assert r.code == 0 and r.err == "", r.err
    assert r.out.count("= Set.TMA.Permute( T") == 2 and r.out.count("dims = {1, 0} );") == 2
    assert "Set.TMA.Permute(T0)" in r.out and "Set.TMA.Permute(T1)" in r.out
    assert "wgmma::mmaM64N64K16F32Bf16<1, 0>(" in r.out


def test_a_pointwise_permute_shows_its_dims(viz, tmp_path) -> None:
    script = tmp_path / "permute.py"
    script.write_text("from fusion_ir import Fusion, ParallelType, inline_most, ops\n\n\ndef build():\n"
                      "    f = Fusion()\n    with f:\n        x = f.add_input(ndim=3)\n"
                      "        f.add_output(ops.neg(ops.permute(x, [2, 0, 1])))\n"
                      "    out = f.outputs[0]\n    out.merge(0, 1).merge(0, 1).split(0, 128)\n"
                      "    out.axis(0).parallelize(ParallelType.BIDx)\n    out.axis(1).parallelize(ParallelType.TIDx)\n"
                      "    p = out.producers()[0]\n    p.transform_like(out)\n    p.parallelize_like(out)\n"
                      "    inline_most(f)\n    return f\n")
    r = viz(str(script), "--show", "fusion,loops")
    assert r.code == 0 and r.err == "", r.err
    assert "= Set.Permute( T0_g_float[iS0{i0}, iS1{i1}, iS2{i2}], dims = {2, 0, 1} );" in r.out
