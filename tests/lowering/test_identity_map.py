"""lowering.identity_map: a mapping that tells equal objects apart."""

from __future__ import annotations

import pytest

from lowering import kernel_ir as k
from lowering.identity_map import IdentityMap


def test_equal_but_distinct_keys_are_distinct_entries() -> None:
    first, second = k.BlockSync(reason="RAW"), k.BlockSync(reason="RAW")
    assert first == second
    m: IdentityMap[k.Node, int] = IdentityMap()
    m[first] = 1
    m[second] = 2
    assert (m[first], m[second], len(m)) == (1, 2, 2)
    assert list(m) == [first, second] and list(m)[1] is second
    assert k.BlockSync(reason="RAW") not in m and m.get(k.BlockSync(reason="RAW")) is None
    del m[first]
    assert first not in m and second in m
    with pytest.raises(KeyError):
        m[first]
