"""The tuner's pure-Python side: the candidates (each valid for its problem), the problem key (stable,
blind to tensor names), the tuning cache file (round trip, corrupt files, atomic writes), the params'
``why``, and ``schedule_matmul`` / ``suggest_matmul_params`` picking a cached winner for the installed
device and only then."""

from __future__ import annotations

import copy
import json
import os
import warnings
from dataclasses import asdict, replace
from pathlib import Path

import pytest

from fusion_ir import DataType, Fusion, ScheduleError, ops
from fusion_ir.schedulers import MatmulParams, schedule_matmul, suggest_matmul_params, tuning_cache
from fusion_ir.schedulers.candidates import MAX_CANDIDATES, matmul_candidates
from fusion_ir.schedulers.matmul_key import problem_key
from fusion_ir.schedulers.matmul_problem import matmul_problem
from fusion_ir.schedulers.tuning_cache import (
    Tried,
    TunedEntry,
    TuningCache,
    TuningCacheError,
    TuningCacheWarning,
    params_from_json,
    params_to_json,
)

DEVICE = "NVIDIA H100 80GB HBM3"


def _fusion(m: int | None = 512, n: int = 512, k: int = 512, *, batch: int | None = None, transpose_a: bool = False,
            transpose_b: bool = False, with_c: bool = False, out: DataType | None = DataType.BFloat16,
            shuffle_names: int = 0) -> Fusion:
    """``a @ b`` in bf16 (``m=None``: symbolic), optionally batched, transposed, ``+ C``, cast to ``out``;
    ``shuffle_names`` unused tensors made first, so the same problem gets other tensor names."""
    fusion = Fusion()
    with fusion:
        for _ in range(shuffle_names):
            fusion.new_tensor_name()
        lead = () if batch is None else (batch,)
        if m is None:
            a = fusion.add_input(ndim=2, dtype=DataType.BFloat16)
            b = fusion.add_input(ndim=2, dtype=DataType.BFloat16)
        else:
            a = fusion.add_input(shape=lead + ((k, m) if transpose_a else (m, k)), dtype=DataType.BFloat16)
            b = fusion.add_input(shape=lead + ((n, k) if transpose_b else (k, n)), dtype=DataType.BFloat16)
        nd = a.ndim
        c = ops.matmul(ops.transpose(a, nd - 2, nd - 1) if transpose_a else a,
                       ops.transpose(b, nd - 2, nd - 1) if transpose_b else b)
        if with_c:
            cin = fusion.add_input(shape=lead + (m, n), dtype=DataType.BFloat16)
            c = ops.add(ops.mul(c, 2.0), cin)
        fusion.add_output(c if out is None else ops.cast(c, out))
    return fusion


PROBLEMS = {
    "square": lambda: _fusion(4096, 4096, 4096),
    "small": lambda: _fusion(512, 512, 512),
    "skinny": lambda: _fusion(16384, 256, 4096),
    "few tiles, long K": lambda: _fusion(1024, 1024, 32768),
    "small K": lambda: _fusion(4096, 4096, 256),
    "batched": lambda: _fusion(1024, 1024, 1024, batch=8),
    "transposed": lambda: _fusion(2048, 2048, 2048, transpose_a=True, transpose_b=True),
    "epilogue with C": lambda: _fusion(4096, 4096, 1024, with_c=True),
    "float result": lambda: _fusion(2048, 2048, 2048, out=None),
    "symbolic": lambda: _fusion(None),
}


@pytest.mark.parametrize("name", sorted(PROBLEMS))
def test_every_candidate_validates_and_schedules(name: str) -> None:
    fusion = PROBLEMS[name]()
    problem = matmul_problem(fusion)
    candidates = matmul_candidates(fusion, 132)
    assert candidates[0] == suggest_matmul_params(fusion, sms=132), "the rules' suggestion comes first"
    assert 4 <= len(candidates) <= MAX_CANDIDATES
    assert len(set(candidates)) == len(candidates)
    for params in candidates:
        params.validate(problem.dtype, problem.loaded_tiles, problem.layout)
        schedule_matmul(copy.deepcopy(fusion), params)      # and schedule_matmul takes it for this problem
    assert candidates == matmul_candidates(problem, 132), "a fusion and its problem give the same candidates"


def test_candidates_leave_out_what_cannot_run_or_cannot_help() -> None:
    # a float result: no TMA store (stmatrix stores 16-bit elements)
    assert not any(p.tma_store for p in matmul_candidates(_fusion(2048, 2048, 2048, out=None), 132))
    # C loaded by TMA: ping-pong too (each warp group loads the C tile of its own turn), and it schedules
    with_c = [p for p in matmul_candidates(_fusion(4096, 4096, 1024, with_c=True), 132) if p.ping_pong]
    assert with_c and all(p.tile == (128, 128, 64) for p in with_c)
    schedule_matmul(_fusion(4096, 4096, 1024, with_c=True), with_c[0])
    # fewer tiles than SMs: nothing for a persistent loop to walk
    small = matmul_candidates(_fusion(512, 512, 512), 132)
    assert not any(p.persistent for p in small)
    assert any(p.persistent for p in matmul_candidates(_fusion(512, 512, 512), 4))
    # the large square: the rules' tiles, both store kinds, persistent and not, ping-pong, group_m variants
    big = matmul_candidates(_fusion(4096, 4096, 4096), 132)
    assert {p.tile for p in big} >= {(128, 256, 64), (256, 128, 64), (128, 128, 64), (64, 128, 64)}
    assert {p.tma_store for p in big} == {p.persistent for p in big} == {True, False}
    assert any(p.ping_pong and p.tile == (128, 128, 64) for p in big)
    assert {p.group_m for p in big} >= {4, 8}
    assert any(p.tile == (192, 192, 64) and p.compute_warp_groups == 3 for p in big)
    assert all(p.blocks == 132 for p in big)


def test_the_key_is_stable_printable_and_blind_to_tensor_names() -> None:
    key = problem_key(_fusion(4096, 4096, 1024, with_c=True))
    assert key == problem_key(_fusion(4096, 4096, 1024, with_c=True, shuffle_names=7))
    assert key == ("bfloat16 4096x4096x1024 batch 1 | A [M,K] K-major, B [K,N] N-major | out bfloat16 | "
                   "e0=mul(acc,scalar);e1=add(e0,in2<bfloat16,2>);e2=cast<bfloat16>(e1);out=e2")
    assert key.isprintable()
    others = [_fusion(4096, 4096, 1024), _fusion(4096, 4096, 2048, with_c=True),
              _fusion(1024, 1024, 1024, batch=8, with_c=True), _fusion(4096, 4096, 1024, with_c=True, out=DataType.Half),
              _fusion(4096, 4096, 1024, transpose_b=True, with_c=True)]
    keys = [problem_key(f) for f in others]
    assert len(set(keys + [key])) == len(keys) + 1, keys
    assert "batch 8" in keys[2] and "A [B,M,K]" in keys[2] and "N-major" not in keys[4]
    assert problem_key(_fusion(None)).startswith("bfloat16 ?x?x? batch 1")


def _entry(params: MatmulParams, key: str, device: str = DEVICE, ms: float = 0.25) -> TunedEntry:
    return TunedEntry(device, key, params, ms, 123.4, "2026-11-25T22:00:00+00:00",
                      (Tried("ws 128x128x64 s4 wg2", ms=ms, tflops=123.4), Tried("other", error="skipped: CompileError")))


def test_params_and_entries_round_trip_through_json(tmp_path: Path) -> None:
    params = MatmulParams(tile=(128, 192, 64), stages="auto", persistent=True, warp_specialized=True,
                          index_type=DataType.Int32, group_m=4, register_split=None, tma_store=True,
                          store_wait="deferred", blocks=114)
    assert params_from_json(json.loads(json.dumps(params_to_json(params)))) == params
    sub_tiled = MatmulParams(tile=(128, 256, 64), warp_specialized=True, tma_store=True, cluster=(2, 1),
                             epilogue_tile=(128, 64), epilogue_stages=3)
    assert params_from_json(json.loads(json.dumps(params_to_json(sub_tiled)))) == sub_tiled
    cache = TuningCache(tmp_path / "sub" / "cache.json")
    assert cache.entries() == {}                                 # no file yet: empty
    entry = _entry(params, "k1")
    cache.store(entry)
    cache.store(_entry(MatmulParams(), "k2", device="NVIDIA H200"))
    assert cache.lookup(DEVICE, "k1") == entry
    assert cache.lookup("NVIDIA H200", "k2").params == MatmulParams()
    assert cache.lookup(DEVICE, "k2") is None and cache.lookup("other", "k1") is None
    data = json.loads(cache.path.read_text())
    assert data["version"] == 1 and set(data["entries"]) == {DEVICE, "NVIDIA H200"}


@pytest.mark.parametrize("text,expected", [
    ("{not json", "not JSON"),
    ('{"version": 7, "entries": {}}', "expected"),
    ('{"version": 1, "entries": {"dev": {"k": {"params": {"tile": [1]}}}}}', "malformed"),
    (('{"version": 1, "entries": {"dev": {"k": {"device": "dev", "key": "k", "ms": 1, "tflops": 1, "date": "d", '
      '"params": {"tiles": [128, 128, 64]}}}}}'), "malformed"),
])
def test_a_corrupt_cache_is_an_error_naming_the_file(tmp_path: Path, text: str, expected: str) -> None:
    path = tmp_path / "cache.json"
    path.write_text(text)
    with pytest.raises(TuningCacheError, match=expected) as info:
        TuningCache(path).entries()
    assert str(path) in str(info.value)
    with pytest.raises(TuningCacheError):                 # the tuner never writes over it
        TuningCache(path).store(_entry(MatmulParams(), "k"))
    assert path.read_text() == text


def test_a_schedule_warns_of_a_corrupt_cache_and_uses_the_rules(tmp_path: Path) -> None:
    path = tmp_path / "cache.json"
    path.write_text("{broken")
    fusion = _fusion(512, 512, 512)
    with tuning_cache.use(device=DEVICE, path=path), pytest.warns(TuningCacheWarning, match=str(path)):
        params = suggest_matmul_params(fusion)
    assert params == suggest_matmul_params(_fusion(512, 512, 512)) and params.why.source == "rule"


def test_writes_are_atomic(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A write that fails half way leaves the old file as it was and no temporary file behind."""
    cache = TuningCache(tmp_path / "cache.json")
    cache.store(_entry(MatmulParams(), "old"))
    before = cache.path.read_text()

    def failing_replace(src: str, dst: str) -> None:
        raise OSError("disk full")
    monkeypatch.setattr(tuning_cache.os, "replace", failing_replace)
    with pytest.raises(TuningCacheError, match="disk full") as info:
        cache.store(_entry(MatmulParams(), "new"))
    assert str(cache.path) in str(info.value)
    assert cache.path.read_text() == before
    assert sorted(os.listdir(tmp_path)) == ["cache.json", "cache.json.lock"]   # the lock file stays, empty


def test_the_cache_path_and_device_come_from_use_or_the_environment(tmp_path: Path,
                                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(tuning_cache.ENV_CACHE, raising=False)
    monkeypatch.delenv(tuning_cache.ENV_DEVICE, raising=False)
    assert tuning_cache.cache_path() == tuning_cache.DEFAULT_PATH.expanduser()
    assert tuning_cache.current_device() is None
    monkeypatch.setenv(tuning_cache.ENV_CACHE, str(tmp_path / "env.json"))
    monkeypatch.setenv(tuning_cache.ENV_DEVICE, "env device")
    assert tuning_cache.cache_path() == tmp_path / "env.json" and tuning_cache.current_device() == "env device"
    with tuning_cache.use(device="mine", path=tmp_path / "mine.json"):
        assert tuning_cache.cache_path() == tmp_path / "mine.json" and tuning_cache.current_device() == "mine"
    assert tuning_cache.current_device() == "env device"


def test_schedule_matmul_picks_the_cached_winner_for_the_installed_device(tmp_path: Path) -> None:
    fusion = _fusion(4096, 4096, 4096)
    rules = suggest_matmul_params(fusion)
    winner = MatmulParams(tile=(256, 128, 64), stages=3, warp_specialized=True, tma_store=True)
    assert winner != rules
    path = tmp_path / "cache.json"
    TuningCache(path).store(_entry(winner, problem_key(fusion)))
    with tuning_cache.use(path=path):                               # no device installed: the rules
        assert suggest_matmul_params(fusion) == rules
    with tuning_cache.use(device="another GPU", path=path):         # no entry for that device
        assert suggest_matmul_params(fusion) == rules
    with tuning_cache.use(device=DEVICE, path=path):
        picked = suggest_matmul_params(fusion)
        assert picked == winner and picked.why.source == "tuned"
        assert DEVICE in picked.why.summary and "0.2500 ms" in picked.why.summary and "2 candidates" in picked.why.summary
        assert picked.why.tuned.tried[1].error == "skipped: CompileError"
        assert suggest_matmul_params(fusion, tile=(128, 128, 64)).why.source == "rule"   # a pinned field: the rules
        assert suggest_matmul_params(fusion, sms=114).why.source == "rule"               # another SM count
        scheduled = schedule_matmul(_fusion(4096, 4096, 4096, shuffle_names=3))        # same problem, other names
        assert scheduled.scheduler_choice.params == winner
        assert scheduled.scheduler_choice.why.source == "tuned"
        other = schedule_matmul(_fusion(4096, 4096, 2048))                              # another problem: rules
        assert other.scheduler_choice.why.source == "rule"


def test_a_cached_winner_that_no_longer_validates_is_skipped_with_a_warning(tmp_path: Path) -> None:
    fusion = _fusion(2048, 2048, 2048, out=None)
    bad = MatmulParams(tile=(128, 256, 64), stages=7, compute_warp_groups=2)     # over the shared memory
    path = tmp_path / "cache.json"
    TuningCache(path).store(_entry(bad, problem_key(fusion)))
    with tuning_cache.use(device=DEVICE, path=path), pytest.warns(TuningCacheWarning, match="no longer validate"):
        assert suggest_matmul_params(fusion).why.source == "rule"


def test_the_rules_say_why_field_by_field() -> None:
    params = suggest_matmul_params(_fusion(4096, 4096, 256))
    why = params.why
    assert why.source == "rule" and why.summary.startswith("K of at most 4 tiles (K = 256: 4 tiles of 64)")
    assert [f.name for f in why.fields] == list(asdict(params))
    assert why.reason("tma_store") == "rule short K: the TMA store: a 16-bit result"
    assert why.reason("ping_pong").startswith("rule short K: persistent ping-pong")
    assert why.reason("stages").startswith("depth: ping-pong at a K of at most 12 tiles and 4 waves or more")
    assert suggest_matmul_params(_fusion(2048, 2048, 256)).why.reason("stages").startswith(
        "depth: the cap measured for this tile, 4")
    assert suggest_matmul_params(_fusion(4096, 4096, 1024)).why.reason("stages").startswith(
        "depth: as deep as shared memory allows")
    assert suggest_matmul_params(_fusion(1024, 1024, 32768)).why.summary.startswith("T < S and a long K: 32 tiles")
    assert suggest_matmul_params(_fusion(1024, 1024, 2048)).why.summary.startswith("T < S: 32 tiles")
    persistent = suggest_matmul_params(_fusion(8192, 8192, 960))
    assert persistent.why.summary.startswith("T >= 4 S and a 16-bit result: 2048 tiles")
    assert persistent.why.summary.endswith(": persistent 256 x 128")
    assert persistent.why.reason("index_type").startswith("rule persistent tile: 64-bit indices: with 32-bit ones")
    mid = suggest_matmul_params(_fusion(8192, 8192, 2048))
    assert mid.why.summary.startswith("persistent 256 x 128: 2048 tiles of 256 x 128 on 132 SMs and K of 32 tiles")
    assert "a tile per block" in mid.why.reason("tile") and mid.index_type == DataType.Int64
    assert suggest_matmul_params(_fusion(None)).why.summary.startswith("M or N unknown")
    pinned = suggest_matmul_params(_fusion(4096, 4096, 4096), tile=(128, 128, 64))
    assert pinned.why.reason("tile") == "pinned by the caller" and "pinned: tile" in pinned.why.summary


def test_why_is_no_field() -> None:
    params = suggest_matmul_params(_fusion(4096, 4096, 4096))
    assert params.why is not None
    assert "why" not in asdict(params) and "_why" not in params.__dict__
    assert replace(params, stages=2).why is None                   # a changed params no longer explains itself
    assert MatmulParams(**params.__dict__) == params
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert MatmulParams().why is None


def test_schedule_matmul_records_given_params() -> None:
    fusion = _fusion(512, 512, 512)
    params = MatmulParams(tile=(128, 128, 64), stages=4)
    schedule_matmul(fusion, params)
    choice = fusion.scheduler_choice
    assert choice.params == params and choice.why.source == "given" and choice.key == problem_key(_fusion(512, 512, 512))
    assert choice.why.reason("tile") == "given"


def test_tuning_needs_no_device_to_schedule() -> None:
    """With nothing installed a CPU run schedules from the rules and never reads a cache file."""
    with tuning_cache.use(path="/nonexistent/dir/cache.json"):
        assert schedule_matmul(_fusion(512, 512, 512)).scheduler_choice.why.source == "rule"
    with pytest.raises(ScheduleError, match="1 matmuls|0 matmuls"):
        problem_key(Fusion())


def _store_many(path: str, start: int, count: int) -> None:
    for i in range(start, start + count):
        TuningCache(Path(path)).store(_entry(MatmulParams(), f"key {i}"))


def test_concurrent_stores_keep_every_entry(tmp_path: Path) -> None:
    """Two processes storing at once: the lock beside the cache serializes each read-update-rename, so no entry is
    lost (without it, one process's rename drops what the other stored in between)."""
    import multiprocessing

    path = tmp_path / "cache.json"
    context = multiprocessing.get_context("fork")
    workers = [context.Process(target=_store_many, args=(str(path), start, 25)) for start in (0, 100)]
    for w in workers:
        w.start()
    for w in workers:
        w.join(60)
    assert all(w.exitcode == 0 for w in workers)
    keys = set(TuningCache(path).entries()[DEVICE])
    assert keys == {f"key {i}" for i in (*range(25), *range(100, 125))}


def test_the_candidates_include_persistent_clusters_of_two() -> None:
    """Persistent 128 x 256 and 128 x 160 in clusters of two along M (3000 x 5000 x 1000 on the H100: 0.90 of cuBLAS
    against 0.84 for the best candidate without them), within the candidates' limit."""
    from fusion_ir.schedulers.candidates import PERSISTENT_CLUSTERED
    from runtime.tuning import matmul_fusion
    candidates = matmul_candidates(matmul_problem(matmul_fusion(3000, 5000, 1000)), 132)
    clustered = {p.tile for p in candidates if p.persistent and p.cluster == (2, 1) and not p.swap_ab}
    assert clustered == set(PERSISTENT_CLUSTERED)


@pytest.mark.parametrize("shape,tiles", [
    ((160, 8192, 8192), {(192, 64, 64), (192, 128, 64)}),     # M of 129 to 192: both spanning tiles
    ((8192, 176, 8192), {(64, 192, 64)}),                     # N of 129 to 192
    ((256, 8192, 8192), set()),                               # two rows of 128: no tile spans them on one group
])
def test_the_candidates_include_spanning_tiles_on_one_warp_group(shape: tuple[int, int, int], tiles: set) -> None:
    """Where one tile spans a skinny side, the candidates hold it on one compute warp group, the rules' span or not
    (they apply it from 168 rows and at N of 192 only)."""
    from runtime.tuning import matmul_fusion
    candidates = matmul_candidates(matmul_problem(matmul_fusion(*shape)), 132)
    spanning = {p.tile for p in candidates if p.compute_warp_groups == 1 and 192 in p.tile[:2]}
    assert spanning == tiles


@pytest.mark.parametrize("shape,narrow", [
    ((10496, 64, 2816), True), ((8192, 40, 8192), True),      # N of at most 64 columns
    ((8192, 72, 8192), False), ((64, 8192, 8192), False),     # a wider N; a narrow M has its own tiles
])
def test_the_candidates_hold_a_tile_no_wider_than_a_narrow_n(shape: tuple[int, int, int], narrow: bool) -> None:
    """With N of at most 64 columns the candidates hold the 128 x 64 tile (128 x 128 spends half its MMAs and stage
    bytes on padded columns), valid and lowered for the problem; not where N is wider."""
    from fusion_ir.schedulers.suggest import NARROW_TILE_WIDE
    from lowering import lower
    from runtime.tuning import matmul_fusion
    candidates = matmul_candidates(matmul_problem(matmul_fusion(*shape)), 132)
    found = [p for p in candidates if p.tile == NARROW_TILE_WIDE and p.split_k == 1 and not p.persistent]
    assert bool(found) == narrow
    for params in found:                  # the rules' own pick (over a wave of 64-row tiles) and the candidate
        assert params.compute_warp_groups == 2 and params.stages >= 6
        lower(schedule_matmul(matmul_fusion(*shape), params))


@pytest.mark.parametrize("shape,splits", [
    ((16, 28672, 4096), {1}),              # over a wave of 64-column tiles: not the rules' pick, a candidate
    ((256, 2048, 8192), {1, 4}),           # M over 192: not the rules' pick, a candidate, in 4 splits a wave
    ((238, 1200, 5424), {1, 2}),           # K of 85 tiles: 2 splits of at least 32
    ((272, 4096, 4096), set()),            # M over 256
])
def test_the_candidates_hold_all_of_a_short_m_swapped(shape: tuple[int, int, int], splits: set) -> None:
    """With M of at most 256 rows the candidates hold all of M by 64, swapped, on one compute warp group, unsplit and
    in ``short_split``'s splits, valid and lowered for the problem; not where M is longer."""
    from lowering import lower
    from runtime.tuning import matmul_fusion
    from fusion_ir.schedulers.suggest import short_tile
    candidates = matmul_candidates(matmul_problem(matmul_fusion(*shape)), 132)
    found = [p for p in candidates if p.swap_ab and p.tile == short_tile(shape[0]) and not p.persistent]
    assert {p.split_k for p in found} == splits
    for params in found:
        assert params.compute_warp_groups == 1 and params.cluster == (1, 1)
        lower(schedule_matmul(matmul_fusion(*shape), params))


def test_persistent_cooperative_candidates_take_64_bit_indices() -> None:
    """32-bit indices slowed the persistent cooperative kernel (0.80 of cuBLAS against 1.00 at 8192 x 8192 x 2048 on
    the H100) and sped ping-pong up: the candidates take each kernel's faster index type."""
    candidates = matmul_candidates(_fusion(8192, 8192, 2048), sms=132)
    cooperative = [c for c in candidates if c.persistent and not c.ping_pong]
    ping_pong = [c for c in candidates if c.ping_pong]
    assert cooperative and ping_pong
    assert all(c.index_type is DataType.Int64 for c in cooperative)
    assert all(c.index_type is DataType.Int32 for c in ping_pong)
    # a ring beside the stages (swapped: suggest._swapped_sub_tile's)
    assert all(c.epilogue_tile is not None for c in cooperative if c.tma_store and not c.swap_ab)


@pytest.mark.parametrize("shape,expected", [
    # 32 tiles of 128 x 256 or 256 x 128, 64 of 128 x 128: 256 x 128 in 4 splits ran 0.94 of cuBLAS against 0.83
    ((1000, 1000, 20000), {((128, 256, 64), 4), ((256, 128, 64), 4), ((128, 128, 64), 2)}),
    # M of 96: 128 x 128 in 4 splits ran 0.95 against 0.90 for 128 x 256 in 4; the rules' swapped 96 x 64 in 2
    ((96, 4096, 16384), {((128, 256, 64), 8), ((256, 128, 64), 4), ((128, 128, 64), 4), ((96, 64, 64), 2)}),
])
def test_split_k_candidates_of_each_tile_under_a_wave(shape: tuple[int, int, int], expected: set) -> None:
    """Split-K candidates of 128 x 256, 256 x 128 and 128 x 128, each where its tiles are under a wave, in as many
    splits as keep the blocks within a wave and every split 16 K tiles or more; none where the tiles fill a wave."""
    from runtime.tuning import matmul_fusion
    candidates = matmul_candidates(matmul_fusion(*shape), 132)
    split = {(c.tile, c.split_k) for c in candidates if c.split_k > 1}
    assert split == expected
    for c in candidates:
        if c.split_k > 1:
            m, n, _ = shape
            assert -(-m // c.tile[0]) * -(-n // c.tile[1]) * c.split_k <= 132
    assert not any(c.split_k > 1 for c in matmul_candidates(matmul_fusion(4096, 4096, 16384), 132))


def test_the_swapped_tiles_are_candidates_where_both_operands_are_tma_loaded_and_the_result_is_16_bit() -> None:
    """Persistent tiles with the instruction's rows along N: 208 x 128 and 192 x 128 in clusters of two along N (two
    compute warp groups of 64 rows of N each), 160 x 256 and 192 x 192 (three compute warp groups) in clusters along
    M, each with the staging suggest._swapped_sub_tile gives; none where the result is fp32 (register stores of a
    swapped fragment write two rows of a column a thread)."""
    swapped = [c for c in matmul_candidates(_fusion(6632, 2944, 5048), sms=132) if c.swap_ab]
    assert [(c.tile, c.cluster, c.compute_warp_groups, c.epilogue_tile) for c in swapped] == [
        ((208, 128, 64), (1, 2), 2, None), ((192, 128, 64), (1, 2), 2, None),
        ((160, 256, 64), (2, 1), 2, (16, 256)), ((192, 192, 64), (2, 1), 3, (32, 192))]
    assert all(c.persistent and c.tma_store and c.stages == 4 for c in swapped)
    assert not any(c.swap_ab for c in matmul_candidates(_fusion(6632, 2944, 5048, out=None), sms=132))   # fp32
