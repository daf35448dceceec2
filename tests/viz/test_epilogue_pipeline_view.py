"""viz shows the epilogue pipeline the producer warp group runs (``MatmulParams(epilogue_loads="producer")``):
``--show smem`` names its buffer and barrier array, ``--show pipeline`` gives its stages columns of their own,
where the producer's loads and the compute warp groups' waits and releases land stage by stage."""

from __future__ import annotations

from examples import matmul_epilogue
from lowering import lower
from viz.pipeline import pipeline_view
from viz.smem import smem_view


def _kernel(epilogue_loads: str = "producer"):
    return lower(matmul_epilogue.build("alpha_beta", tile=(128, 128, 64), stages=3, epilogue_tile=(128, 64),
                                       persistent=False, epilogue_loads=epilogue_loads))


def test_smem_names_the_epilogue_loads_and_their_barriers() -> None:
    kinds = {b["name"]: b["kind"] for b in smem_view(_kernel()).data["buffers"]}
    assert sorted(v for v in kinds.values() if "epilogue" in v) == ["epilogue loads x2", "mbarrier epilogue full+empty"]
    assert not any("epilogue" in b["kind"] for b in smem_view(_kernel("consumer")).data["buffers"])


def test_pipeline_shows_the_epilogue_stages_in_columns_of_their_own() -> None:
    data = pipeline_view(_kernel()).data
    (barrier,) = data["epilogue_barriers"]
    assert barrier.endswith("_epilogue_mbar") and data["epilogue_stages"] == 2
    assert barrier not in data["barriers"]
    events = [e for e in data["events"] if e["column"].startswith("epilogue")]
    loads = [e for e in events if e["kind"] == "tma.issue"]
    assert {e["column"] for e in loads} == {"epilogue 0", "epilogue 1"}
    assert all(e["role"] == "producer" for e in loads)
    waits = [e for e in events if e["kind"].startswith("mbarrier.wait") and not e["text"].startswith("WAR")]
    releases = [e for e in events if e["kind"] == "mbarrier.arrive" and e["role"] != "producer"
                and e["where"] == ""]
    assert waits and all(e["role"].startswith("compute") for e in waits)
    assert releases and all(e["text"].startswith("WAR arrive") for e in releases)
    assert data["events"].index(loads[0]) < data["events"].index(waits[-1])
