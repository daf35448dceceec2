"""The shared-memory model: first fit by first use, alignment, reuse of dead buffers, and the
order-free bound."""

from hypothesis import given, settings
from hypothesis import strategies as st

from smem_model import BufferRequest, bound, lay_out, mbarriers, padding


def test_live_buffers_never_share_bytes_and_start_aligned() -> None:
    layout = lay_out([BufferRequest("bar", 8, 8, (0, 9)), BufferRequest("a", 4096, 1024, (1, 5), stages=2),
                      BufferRequest("b", 100, 128, (1, 5)), BufferRequest("c", 1000, 128, (1, 5))])
    # b fits in the padding before a's 1024-byte alignment; c does not
    assert layout.offsets == {"bar": 0, "a": 1024, "b": 128, "c": 9216}
    assert layout.total == 10216
    assert layout.reuses == {}


def test_a_buffer_takes_the_memory_of_buffers_dead_before_its_first_use() -> None:
    layout = lay_out([BufferRequest("a", 2048, 1024, (0, 4)), BufferRequest("b", 2048, 1024, (0, 4)),
                      BufferRequest("out", 3072, 1024, (5, 6))])
    assert layout.offsets["out"] == 0
    assert layout.reuses == {"out": ("a", "b")}
    assert layout.total == 4096


def test_a_shared_position_counts_as_live_at_once() -> None:
    layout = lay_out([BufferRequest("c", 2048, 1024, (0, 5)), BufferRequest("out", 2048, 1024, (5, 6))])
    assert layout.offsets == {"c": 0, "out": 2048}


def test_buffers_are_placed_by_first_use_then_request_order() -> None:
    late_first = [BufferRequest("a", 1024, 1024, (3, 9)), BufferRequest("bar", 32, 8, (1, 9)),
                  BufferRequest("b", 1024, 1024, (3, 9))]
    assert lay_out(late_first).offsets == {"bar": 0, "a": 1024, "b": 2048}
    early_first = [BufferRequest("a", 1024, 1024, (1, 9)), BufferRequest("bar", 32, 8, (3, 9)),
                   BufferRequest("b", 1024, 1024, (1, 9))]
    assert lay_out(early_first).offsets == {"a": 0, "b": 1024, "bar": 2048}


def test_a_buffer_without_interval_is_always_live_and_placed_first() -> None:
    layout = lay_out([BufferRequest("x", 64, 16, (0, 1)), mbarriers("bar", 3)])
    assert layout.offsets == {"bar": 0, "x": 32}
    assert mbarriers("bar", 3).size == 24


def test_bound_counts_16_byte_units_and_the_padding_of_any_order() -> None:
    requests = [BufferRequest("bar", 8, 8), BufferRequest("a", 1000, 1024)]
    assert padding(requests) == 1024 - 16
    assert bound(requests) == 16 + 1008 + 1008


_requests = st.lists(st.builds(
    BufferRequest, name=st.just(""), nbytes=st.integers(1, 3000), align=st.sampled_from([8, 16, 128, 256, 1024]),
    live=st.one_of(st.none(), st.tuples(st.integers(0, 6), st.integers(0, 6)).map(lambda t: (min(t), max(t)))),
    stages=st.integers(1, 3)), min_size=1, max_size=7)


@settings(max_examples=300, derandomize=True, database=None, deadline=None)
@given(requests=_requests, order=st.randoms(use_true_random=False))
def test_the_bound_holds_for_every_order_and_interval(requests: list[BufferRequest], order) -> None:
    named = [BufferRequest(f"b{i}", r.nbytes, r.align, r.live, r.stages) for i, r in enumerate(requests)]
    shuffled = list(named)
    order.shuffle(shuffled)
    layout = lay_out(shuffled)
    assert layout.total <= bound(named)
    for r in named:
        assert layout.offsets[r.name] % r.align == 0
        for s in named:
            if r is not s and r.overlaps(s):
                a, b = layout.offsets[r.name], layout.offsets[s.name]
                assert a + r.size <= b or b + s.size <= a, (r, s, layout)
