"""Property 6: drawn attention fusions keep their meaning under the online-softmax rewrite, and drawn
AttentionParams either raise ScheduleError (and change nothing) or give a kernel that matches numpy in the
simulator."""

from hypothesis import given, settings

from fusion_ir.schedulers import AttentionParams
from fuzz.attention import AttentionCase, attention_cases, check_attention_case

from .profiles import budget


@settings(max_examples=budget("attention"))
@given(case=attention_cases())
def test_drawn_attention_cases_are_refused_or_match_numpy(case: AttentionCase) -> None:
    check_attention_case(case)


def test_an_invalid_and_a_valid_case() -> None:
    bad = AttentionCase((2,), 20, 30, 8, 0.5, True, False, False, AttentionParams(block_q=2048), 1)
    assert check_attention_case(bad) == "refused"
    good = AttentionCase((1, 2), 33, 47, 16, 0.25, True, True, True, AttentionParams(block_q=32, block_kv=7), 2)
    assert check_attention_case(good) == "matched"
    plain = AttentionCase((), 5, 1, 8, 1.0, False, False, False, AttentionParams(block_q=32, block_kv=64), 3)
    assert check_attention_case(plain) == "matched"
