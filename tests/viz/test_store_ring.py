"""viz shows a sub-tiled epilogue's ring of staging tiles: ``--show smem`` names the buffer a ring of its tiles,
``--show pipeline`` lists the first tile's sub-tiles as the simulator ran them (the slot each writes, the wait
before it, the store after it)."""

from __future__ import annotations

from examples import matmul_epilogue
from lowering import lower
from viz.pipeline import pipeline_view
from viz.smem import smem_view


def _kernel(**params):
    return lower(matmul_epilogue.build("alpha_beta", persistent=False, **params))


def test_smem_names_the_ring_and_its_tiles() -> None:
    kinds = {b["name"]: b["kind"] for b in smem_view(_kernel(epilogue_tile=(128, 64))).data["buffers"]}
    assert sorted(k for k in kinds.values() if k.startswith("tma store ring")) == ["tma store ring x2"]
    assert not any(b["kind"].startswith("tma store ring") for b in smem_view(_kernel()).data["buffers"])


def test_pipeline_lists_the_sub_tiles_slot_by_slot() -> None:
    ring = pipeline_view(_kernel(epilogue_tile=(128, 64))).data["store_ring"]
    assert ring["stages"] == 2
    stores = [r for r in ring["rows"] if r["what"].startswith("stmatrix done")]
    assert [r["sub_tile"] for r in stores] == [0, 1, 2, 3] and [r["slot"] for r in stores] == [0, 1, 0, 1]
    waits = [r for r in ring["rows"] if r["what"].startswith("wait until at most 1")]
    assert len(waits) == 4 and all(w["step"] < s["step"] for w, s in zip(waits, stores))
    assert ring["rows"][-1]["what"] == "wait until no store reads"


def test_a_whole_tile_epilogue_has_no_ring() -> None:
    assert pipeline_view(_kernel()).data["store_ring"] is None
