"""viz/cli.py: every ``--show`` of every example, checked against the fusion and kernel it shows."""

from __future__ import annotations

import json
import re

import pytest

import examples
from codegen import to_cuda
from codegen.nvcc import nvcc_available
from fusion_ir import LoadStoreOp, LoadStoreOpType
from lowering import kernel_ir as k
from lowering import lower
from lowering.pipeline import PASS_NAMES
from viz.cli import SHOWS
from viz.cuda_view import issues_wgmma, kernel_signature
from viz.pipeline import has_pipeline

ASYNC = (LoadStoreOpType.TMA, LoadStoreOpType.CpAsync)
# --show resources runs nvcc (~0.3 s a kernel): through the command for these, for the rest in parallel below
RESOURCES_BY_COMMAND = ("seed_circular_buffer", "smem_staging", "pointwise_2d")


def positions(text: str, needles: list[str]) -> list[int]:
    """Where each needle first occurs in ``text``, searching on from the previous one (-1: missing)."""
    out, start = [], 0
    for needle in needles:
        at = text.find(needle, start)
        out.append(at)
        if at >= 0:
            start = at + len(needle)
    return out


def in_order(text: str, needles: list[str]) -> bool:
    return all(p >= 0 for p in positions(text, needles))


def listing_lines(kernel: k.Kernel, pattern: str) -> list[int]:
    """1-based lines of the kernel IR listing that match ``pattern``."""
    return [n for n, line in enumerate(str(kernel).splitlines(), 1) if re.search(pattern, line)]


# an example of examples.UNSCHEDULED (none today): every view would start with the note that it runs on one thread
@pytest.mark.parametrize("name", examples.scheduled_names())
def test_every_show_of_every_example(name: str, viz) -> None:
    fusion = examples.load(name).build()
    kernel = lower(fusion)
    text: dict[str, str] = {}
    for show in SHOWS:
        if show == "resources" and (name not in RESOURCES_BY_COMMAND or not nvcc_available()):
            continue
        r = viz(name, "--show", show)
        if show == "heuristics" and fusion.scheduler_choice is None:    # alone, no matmul scheduler: a usage error
            assert r.code == 2 and "UsageError: " in r.err and "heuristics" in r.err, r.err
            continue
        assert r.code == 0 and r.err == "", f"--show {show}: {r.err}"
        text[show] = r.out

    # fusion and transforms: nvFuser notation of every tensor
    assert "%kernel_math {" in text["fusion"]
    for tv in fusion.used_tensors():
        assert tv.label() in text["fusion"]
        if not tv.is_input:
            assert f"T{tv.name}:\n root domain : (" in text["transforms"]
            assert f" loop domain : ({', '.join(i.label() for i in tv.loop)})" in text["transforms"]

    # loops: the kernel line, one line per loop in program order, stage clones named in order
    loops = [n for n in k.walk(kernel.body) if isinstance(n, k.ForLoop)]
    assert text["loops"].startswith(f"{kernel.name}  grid (")
    assert in_order(text["loops"], [f"for {lp.index} in [" for lp in loops])
    stages = [lp.stage.value for lp in loops if lp.stage is not None]
    assert in_order(text["loops"], [f"  {s}\n" for s in stages])
    for alloc in (n for n in k.walk(kernel.body) if isinstance(n, k.Allocate)):
        assert f"ALLOC {alloc.buffer.name}: " in text["loops"]

    # kir and passes
    assert text["kir"].splitlines()[0] == str(kernel).splitlines()[0]
    assert in_order(text["passes"], [f"│ {p} " for p in PASS_NAMES])

    # cuda: the kernel signature; resources: ptxas's register count
    signature = kernel_signature(to_cuda(kernel))
    assert signature is not None and signature in text["cuda"]
    if "resources" in text:
        check_resources(text["resources"], kernel)

    # dag: every tensor, and the async loads in the load sub-DAG
    loads = [tv for tv in fusion.used_tensors() if isinstance(tv.definition, LoadStoreOp)
             and tv.definition.op_type in ASYNC]
    for tv in fusion.used_tensors():
        assert tv.label() in text["dag"]
    load_line = next(line for line in text["dag"].splitlines() if line.startswith("load sub-DAG: "))
    for tv in loads:
        assert re.search(rf"\bT{tv.name}\b", load_line)
    if not loads:
        assert "(empty" in load_line

    # smem: every shared buffer, and each mbarrier array from its init to its inval
    shared = [n.buffer for n in k.walk(kernel.body) if isinstance(n, k.Allocate)
              and n.buffer.memory.name == "Shared"]
    if not shared:
        assert "no shared memory" in text["smem"]
    for buf in shared:
        assert re.search(rf"│ {re.escape(buf.name)} +│ ", text["smem"])
    for mbar in {n.mbar.name for n in k.walk(kernel.body) if isinstance(n, k.MBarrierInit)}:
        init, inval = listing_lines(kernel, rf"mbarrier::init\({mbar}\["), listing_lines(kernel, rf"mbarrier::inval\({mbar}\[")
        assert re.search(rf"│ {mbar} +│ mbarrier( full\+empty)? +│", text["smem"])
        live = re.search(rf"│ {mbar} +│ (\d+)-(\d+) +│", text["smem"])
        assert live is not None
        start, end = int(live.group(1)), int(live.group(2))
        assert start <= min(init) and end >= max(inval)

    # pipeline: a timeline for circular-buffered loops, a note otherwise
    if has_pipeline(kernel):
        assert "pipeline timeline" in text["pipeline"] or "no asynchronous copies" in text["pipeline"]
    else:
        assert "no circular-buffered loop" in text["pipeline"]


def check_resources(text: str, kernel: k.Kernel) -> None:
    match = re.search(r"registers\s+│\s+(\d+)", text)
    assert match is not None and int(match.group(1)) > 0
    assert re.search(r"spill stores\s+│\s+\d+ B", text) and re.search(r"spill loads\s+│\s+\d+ B", text)
    assert re.search(rf"shared memory, dynamic\s+│\s+{re.escape(str(kernel.smem_bytes))} B", text)
    assert f"ptxas: {kernel.name} (sm_90a)" in text
    assert ("wgmma descriptor moves" in text) == issues_wgmma(kernel)


# Every example's resources view is checked by tests/codegen/test_examples_compile.py, on the
# report of the nvcc run that gates the example (one nvcc run per example, not two).


def test_resources_without_nvcc_is_a_short_error(viz, monkeypatch: pytest.MonkeyPatch, tmp_path) -> None:
    monkeypatch.setenv("PATH", str(tmp_path))
    r = viz("pointwise_2d", "--show", "resources")
    assert r.code == 2 and r.out == ""
    assert "nvcc is not on PATH" in r.err and "Traceback" not in r.err


@pytest.mark.parametrize("name", ["seed_circular_buffer", "smem_staging", "cp_async_pipeline"])
def test_json_matches_the_text(name: str, viz) -> None:
    shows = [s for s in SHOWS if s != "resources"]
    r = viz(name, "--show", ",".join(shows), "--format", "json")
    assert r.code == 0, r.err
    doc = {v["show"]: v for v in json.loads(r.out)["views"]}
    assert list(doc) == shows and all(v["target"] == name for v in doc.values())
    kernel = lower(examples.load(name).build())
    assert doc["kir"]["text"] == str(kernel)
    assert [p["name"] for p in doc["passes"]["passes"]] == PASS_NAMES
    assert doc["cuda"]["source"] == to_cuda(kernel)
    assert doc["loops"]["kernel"] == kernel.name and doc["loops"]["body"]
    buffers = {b["name"]: b for b in doc["smem"]["buffers"]}
    for alloc in (n for n in k.walk(kernel.body) if isinstance(n, k.Allocate) and n.buffer.memory.name == "Shared"):
        assert buffers[alloc.buffer.name]["offset"] == str(alloc.offset)
    assert doc["pipeline"]["circular_buffered"] == has_pipeline(kernel)


def test_seed_circular_buffer_loop_nest_names_the_five_stages_in_order(viz) -> None:
    r = viz("seed_circular_buffer")
    stage_lines = [line for line in r.out.splitlines() if line.rstrip().endswith(
        ("pre-prologue", "prologue", "main", "epilogue", "post-epilogue"))]
    assert [line.split()[-1] for line in stage_lines] == ["pre-prologue", "prologue", "main", "epilogue",
                                                          "post-epilogue"]
    assert "for i1 in [0, ceilDiv(i0, 32) - 2)  serial  iS2{ceilDiv(i0, 32)}  main" in r.out
    assert "for i1 in [0, min(2, ceilDiv(i0, 32)))  unroll  iS2{ceilDiv(i0, 32)}  prologue" in r.out


def test_seed_circular_buffer_smem_lists_the_mbarrier_array_with_its_live_range(viz) -> None:
    r = viz("seed_circular_buffer", "--show", "smem")
    kernel = lower(examples.load("seed_circular_buffer").build())
    first_init_loop = min(listing_lines(kernel, r"mbarrier::init\(T2_mbar")) - 1   # the FOR line above
    last_inval = max(listing_lines(kernel, r"mbarrier::inval\(T2_mbar"))
    assert re.search(r"│ T2_mbar +│ mbarrier +│ int64_t\[3\] +│ \+0 +│ 24 +│ 8 +│", r.out)
    assert re.search(rf"│ T2_mbar +│ {first_init_loop}-{last_inval} +│", r.out)
    assert listing_lines(kernel, r"FOR s0 ")[0] == first_init_loop


def test_seed_circular_buffer_pipeline_fills_stages_round_robin(viz) -> None:
    r = viz("seed_circular_buffer", "--show", "pipeline", "--format", "json")
    doc = json.loads(r.out)
    assert doc["stages"] == 3 and doc["prefetch"] == 2 and doc["barriers"] == ["T2_mbar"]
    loads = [e for e in doc["events"] if e["kind"] == "tma.issue"]
    assert [e["slot"] for e in loads[:5]] == [0, 1, 2, 0, 1]
    assert [e["stage"] for e in loads[:3]] == ["prologue", "prologue", "main"]
    waits = [e for e in doc["events"] if e["kind"] == "mbarrier.wait_parity" and e["stage"] == "main"
             and not e["text"].endswith("passed")]
    assert [e["slot"] for e in waits] == [0, 1, 2]
    assert all(e["text"].startswith("wait parity 0") for e in waits)
    stages = [e["stage"] for e in doc["events"] if e["stage"] is not None]
    order = ["pre-prologue", "prologue", "main", "epilogue", "post-epilogue"]
    assert sorted(set(stages), key=order.index) == order
    assert [order.index(s) for s in stages] == sorted(order.index(s) for s in stages)


def test_passes_count_the_lines_each_pass_changed(viz) -> None:
    r = viz("seed_circular_buffer", "--show", "passes", "--format", "json")
    rows = {p["name"]: p for p in json.loads(r.out)["passes"]}
    assert rows["circular_buffer"]["changed"] and rows["circular_buffer"]["added"] > 0
    assert rows["mbarrier"]["added"] > 0
    traced = lower(examples.load("seed_circular_buffer").build(), trace=True)
    assert rows["launch"]["lines"] == len(str(traced.kernel).splitlines())


def test_passes_with_a_pass_shows_its_diff(viz) -> None:
    r = viz("seed_circular_buffer", "--show", "passes", "--pass", "mbarrier")
    assert "what mbarrier changed:" in r.out
    assert re.search(r"^\+\s+ALLOC T2_mbar: Shared int64_t\[3\]", r.out, re.MULTILINE)


def test_kir_and_loops_after_a_pass(viz) -> None:
    traced = lower(examples.load("smem_staging").build(), trace=True)
    r = viz("smem_staging", "--show", "kir", "--pass", "loop_nest")
    assert r.out.rstrip("\n") == str(traced.after("loop_nest"))
    r = viz("smem_staging", "--show", "loops", "--pass", "allocation")
    assert "__syncthreads" not in r.out and "ALLOC T2" in r.out   # syncs come later


def test_dag_dot_has_both_sub_dags(viz) -> None:
    r = viz("seed_circular_buffer", "--show", "dag", "--format", "dot")
    assert r.out.startswith("digraph fusion {")
    load = r.out[r.out.index("subgraph cluster_load"):r.out.index("subgraph cluster_compute")]
    assert '"T0"' in load and '"T2"' in load and '"T1"' not in load
    assert '"T2" -> "T1" [label="Set"];' in r.out
    assert '"T0" -> "T2" [label="Set.TMA"];' in r.out


def test_list_names_every_example_with_its_description(viz) -> None:
    r = viz("--list")
    for name in examples.names():
        assert re.search(rf"│ {name} +│ {re.escape(examples.load(name).DESCRIPTION[:30])}", r.out)
    doc = json.loads(viz("--list", "--format", "json").out)
    assert [e["name"] for e in doc["examples"]] == examples.names()


def test_several_shows_print_in_order_under_rules(viz) -> None:
    r = viz("pointwise_2d", "--show", "fusion,loops")
    assert in_order(r.out, ["--show fusion", "%kernel_math", "--show loops", "fusion_kernel  grid"])
    assert viz("pointwise_2d", "--show", "all", "--format", "json").code == 0 or not nvcc_available()


def test_kir_lists_the_bounds_predicates_register_statements_leave_out(viz) -> None:
    """After the indexing pass, ``--show kir`` says which tensors' register statements leave out their bounds
    conditions (``predicate_elimination``) and why the others keep theirs; before it, nothing."""
    r = viz("attention_wgmma", "--show", "kir", "--format", "json")
    assert r.code == 0, r.err
    lines = json.loads(r.out)["predicates"]
    assert any("no bounds predicate along" in line for line in lines)
    assert any("bounds predicate kept: a TMA load" in line for line in lines)
    text = viz("attention_wgmma", "--show", "kir").out
    assert "predicate elimination (bounds conditions of register statements):" in text
    early = viz("attention_wgmma", "--show", "kir", "--pass", "syncs", "--format", "json")
    assert json.loads(early.out)["predicates"] == []
