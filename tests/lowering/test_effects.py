"""``lowering.effects``: every kernel-IR node class answers what it reads, writes, allocates and frees."""

from __future__ import annotations

from dataclasses import fields, is_dataclass

import pytest

from fusion_ir.scalar import Val
from fusion_ir.types import DataType, MemoryType, SmemSwizzle
from lowering import kernel_ir as k
from lowering import kir_nodes
from lowering.effects import EFFECTS, Completion, Effect, EffectKind, Proxy, Role, effects, touched_names, value_reads

R, W = EffectKind.Read, EffectKind.Write
I = Val.symbol("i")
ZERO = Val.const(0)
G = k.Buffer("T0", DataType.Float, MemoryType.Global, Val.symbol("i0"), (Val.symbol("i0"),), is_param=True)
OUT = k.Buffer("T9", DataType.Float, MemoryType.Global, Val.symbol("i0"), (Val.symbol("i0"),), is_param=True)
S = k.Buffer("T1", DataType.Float, MemoryType.Shared, Val.const(256), align=128)
H = k.Buffer("T5", DataType.BFloat16, MemoryType.Shared, Val.const(1024), align=128)
L = k.Buffer("T2", DataType.Float, MemoryType.Local, Val.const(32))
LH = k.Buffer("T6", DataType.BFloat16, MemoryType.Local, Val.const(8))
MB = k.Buffer("T3", DataType.Int64, MemoryType.Shared, Val.const(2))
TOK = k.Buffer("T4", DataType.Int64, MemoryType.Local, Val.const(2))
TMAP = k.TensorMapParam("tmap_T0", G, (256,))
SEM = k.Buffer("T7_sem", DataType.Int32, MemoryType.Global, Val.const(4), (Val.const(4),), is_param=True)


def kinds(node: object) -> list[tuple[EffectKind, str, Proxy, Role]]:
    return [(e.kind, e.name, e.proxy, e.role) for e in effects(node)]


def _desc(buf: k.Buffer) -> k.MatrixDescriptor:
    return k.MatrixDescriptor(buf, ZERO, 16, 128, SmemSwizzle.NONE, False)


GEN, TMA, WG = Proxy.Generic, Proxy.AsyncTma, Proxy.Wgmma
DATA, MBAR, TOKEN = Role.Data, Role.MBarrier, Role.Token

EXPECTED: dict[type, tuple[object, list[tuple[EffectKind, str, Proxy, Role]]]] = {
    k.Allocate: (k.Allocate(S), [(EffectKind.Allocate, "T1", GEN, DATA)]),
    k.Assign: (k.Assign(S, I, k.BinaryValue("add", k.Load(G, I), k.Load(L, ZERO), DataType.Float)),
               [(R, "T0", GEN, DATA), (R, "T2", GEN, DATA), (W, "T1", GEN, DATA)]),
    k.BlockReduce: (k.BlockReduce(L, ZERO, k.Load(S, I), "add", (), 0.0, MB),
                    [(R, "T1", GEN, DATA), (W, "T3", GEN, Role.Workspace), (R, "T3", GEN, Role.Workspace),
                     (W, "T2", GEN, DATA)]),
    k.WarpShuffleXor: (k.WarpShuffleXor(L, ZERO, "max", 2), [(R, "T2", GEN, DATA), (W, "T2", GEN, DATA)]),
    k.ForLoop: (k.ForLoop(I, ZERO, Val.const(4), (k.Assign(S, I, k.Const(0, DataType.Float)),)), []),
    k.IfThenElse: (k.IfThenElse(I.lt(4), (k.Assign(S, I, k.Const(0, DataType.Float)),)), []),
    k.ElectSync: (k.ElectSync((k.Assign(S, I, k.Const(0, DataType.Float)),)), []),
    k.BlockSync: (k.BlockSync(), []),
    k.NamedBarrier: (k.NamedBarrier(1, Val.const(128)), []),
    k.Comment: (k.Comment("x"), []),
    k.Let: (k.Let("j", I + 1), []),
    k.MBarrierInit: (k.MBarrierInit(MB, ZERO, Val.const(1)), [(W, "T3", GEN, MBAR)]),
    k.MBarrierInval: (k.MBarrierInval(MB, ZERO), [(W, "T3", GEN, MBAR)]),
    k.MBarrierArrive: (k.MBarrierArrive(MB, ZERO), [(R, "T3", GEN, MBAR), (W, "T3", GEN, MBAR)]),
    # the peer block's barrier at the same offset: the same buffer
    k.MBarrierRemoteArrive: (k.MBarrierRemoteArrive(MB, ZERO, Val.const(1)), [(R, "T3", GEN, MBAR),
                                                                              (W, "T3", GEN, MBAR)]),
    k.ClusterSync: (k.ClusterSync(fence_init=True), []),
    k.MBarrierArriveExpectTx: (k.MBarrierArriveExpectTx(MB, ZERO, Val.const(1024), TOK, ZERO),
                               [(R, "T3", GEN, MBAR), (W, "T3", GEN, MBAR), (W, "T4", GEN, TOKEN)]),
    k.MBarrierWait: (k.MBarrierWait(MB, ZERO, TOK, ZERO), [(R, "T3", GEN, MBAR), (R, "T4", GEN, TOKEN)]),
    k.MBarrierWaitParity: (k.MBarrierWaitParity(MB, ZERO, ZERO), [(R, "T3", GEN, MBAR)]),
    k.TmaLoad: (k.TmaLoad(S, ZERO, TMAP, (I,), MB, ZERO),
                [(R, "T0", TMA, DATA), (W, "T1", TMA, DATA), (W, "T3", TMA, MBAR)]),
    k.TmaStore: (k.TmaStore(S, ZERO, TMAP, (I,)), [(R, "T1", TMA, DATA), (W, "T0", TMA, DATA)]),
    k.CpAsync: (k.CpAsync(S, I, G, I, 4), [(R, "T0", GEN, DATA), (W, "T1", GEN, DATA)]),
    k.AsyncCommit: (k.AsyncCommit(k.AsyncKind.CpAsync), []),
    k.AsyncWait: (k.AsyncWait(k.AsyncKind.CpAsync), []),
    k.FenceAsyncProxy: (k.FenceAsyncProxy(), []),
    k.SetMaxNReg: (k.SetMaxNReg(232, True), []),
    k.Return: (k.Return(), []),
    k.Continue: (k.Continue(), []),
    k.WgmmaFence: (k.WgmmaFence(), []),
    k.Mma: (k.Mma(L, ZERO, _desc(H), _desc(H), (64, 64, 16), DataType.BFloat16),
            [(R, "T5", WG, DATA), (R, "T5", WG, DATA), (R, "T2", WG, DATA), (W, "T2", WG, DATA)]),
    k.StMatrix: (k.StMatrix(H, ZERO, LH, ZERO, 4), [(R, "T6", GEN, DATA), (W, "T5", GEN, DATA)]),
    k.LdMatrix: (k.LdMatrix(LH, ZERO, H, ZERO, 4), [(R, "T5", GEN, DATA), (W, "T6", GEN, DATA)]),
    k.GridFence: (k.GridFence(), []),
    k.SemaphoreArrive: (k.SemaphoreArrive(SEM, I, Val.const(3), "last_T7"),
                        [(R, "T7_sem", GEN, Role.Semaphore), (W, "T7_sem", GEN, Role.Semaphore)]),
    k.Discard: (k.Discard(L), [(W, "T2", GEN, DATA)]),      # every register given an undefined value
}


@pytest.mark.parametrize("cls", k.NODE_TYPES, ids=lambda c: c.__name__)
def test_effects_of_each_node_type(cls: type) -> None:
    node, expected = EXPECTED[cls]
    assert kinds(node) == expected


def test_every_node_class_declares_effects() -> None:
    """A new node class must say what it touches: no silent empty default."""
    statement_classes = {obj for obj in vars(kir_nodes).values()
                         if isinstance(obj, type) and obj.__module__ == kir_nodes.__name__ and is_dataclass(obj)}
    not_statements = {k.Buffer, k.TensorMapParam, k.ScalarParam, k.Load, k.Const, k.UnaryValue, k.BinaryValue, k.CastValue,
                      k.ScalarValue, k.CompareValue, k.SelectValue,
                      k.MatrixDescriptor, k.RegisterFragment}
    missing = sorted(c.__name__ for c in statement_classes - not_statements if c not in EFFECTS)
    assert missing == []
    assert set(k.NODE_TYPES) <= set(EFFECTS)
    assert set(EXPECTED) == set(k.NODE_TYPES)


def test_a_node_class_without_effects_is_refused() -> None:
    class Unknown:
        pass

    with pytest.raises(TypeError, match="Unknown declares no effects"):
        effects(Unknown())


def test_async_effects_say_what_completes_them() -> None:
    tma = effects(EXPECTED[k.TmaLoad][0])
    assert {e.completes for e in tma if e.role is DATA} == {Completion.MBarrier}
    store = effects(EXPECTED[k.TmaStore][0])
    assert all(e.completes is Completion.BulkGroup for e in store)
    cp = effects(EXPECTED[k.CpAsync][0])
    assert all(e.completes is Completion.CpAsyncGroup for e in cp)
    mma = effects(EXPECTED[k.Mma][0])
    assert all(e.completes is Completion.WgmmaGroup for e in mma)


def test_a_register_a_operand_is_read_by_the_wgmma_group_at_its_index() -> None:
    node = k.Mma(L, ZERO, k.RegisterFragment(LH, I), _desc(H), (64, 64, 16), DataType.BFloat16)
    reads = [(e.name, e.index, e.proxy, e.completes) for e in effects(node) if e.kind is R]
    assert reads[0] == ("T6", I, WG, Completion.WgmmaGroup)
    assert [e.name for e in effects(node) if e.kind is W] == ["T2"]


def test_reduce_assign_reads_its_target_and_effects_carry_indices() -> None:
    node = k.Assign(L, I, k.Load(S, I + 1), reduce_op="add")
    assert [(e.kind, e.name, e.index) for e in effects(node)] == [(R, "T1", I + 1), (R, "T2", I), (W, "T2", I)]
    assert isinstance(effects(node)[0], Effect) and effects(node)[0].buffer is S


def _buffers_in_fields(obj: object, out: set[str]) -> None:
    """Every Buffer a node holds, through values, descriptors and tensor maps (not nested statements)."""
    if isinstance(obj, k.Buffer):
        out.add(obj.name)
    elif isinstance(obj, tuple):
        for x in obj:
            if not type(x) in EFFECTS or type(x) is k.TensorOp:
                _buffers_in_fields(x, out)
    elif is_dataclass(obj) and not isinstance(obj, (Val, type)):
        for f in fields(obj):
            _buffers_in_fields(getattr(obj, f.name), out)


def test_effects_name_every_buffer_a_lowered_kernel_holds() -> None:
    """Over the examples' kernels: a statement's effects cover every buffer it holds."""
    import examples
    from lowering import lower

    for name in examples.names():
        kernel = lower(examples.load(name).build())
        for node in k.walk(kernel.body):
            held: set[str] = set()
            for f in fields(node):
                if f.name not in k.body_fields(type(node)):
                    _buffers_in_fields(getattr(node, f.name), held)
            assert touched_names([node]) | {e.name for e in effects(node)} == held, (name, node)


def test_new_value_nodes_read_what_their_operands_read() -> None:
    buf = k.Buffer("T0", DataType.Float, MemoryType.Local, Val.const(4))
    load = k.Load(buf, Val.const(1))
    select = k.SelectValue(k.CompareValue("lt", load, k.Const(0.0, DataType.Float), DataType.Float),
                           k.ScalarValue(Val.symbol("i0")), load, DataType.Float)
    reads = value_reads(select)
    assert [(e.resource, e.index) for e in reads] == [(buf, Val.const(1)), (buf, Val.const(1))]
    assert value_reads(k.ScalarValue(Val.symbol("i0"))) == ()
