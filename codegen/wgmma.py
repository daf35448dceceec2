"""The ``wgmma.mma_async`` wrappers a kernel calls, generated per instruction shape and operand type.

An m64nNk16 wgmma with f32 accumulators writes ``N / 2`` registers per thread, and each is its
own ``"+f"`` operand of the asm statement (an operand list cannot be written as a C++ template),
so the wrapper of each (N, operand type) a kernel uses is generated here and pasted after
``wgmma.cuh`` (fence, commit, wait, descriptors, the accumulator operand fence)::

    template <int TransA, int TransB>
    __device__ __forceinline__ void mmaM64N8K16F32Bf16(float* d, uint64_t desc_a, uint64_t desc_b, int scaleD = 1) {
      asm volatile(
          "{\\n.reg .pred p;\\n"
          "setp.ne.b32 p, %8, 0;\\n"
          "wgmma.mma_async.sync.aligned.m64n8k16.f32.bf16.bf16 "
          "{%0, %1, %2, %3}, %4, %5, p, 1, 1, %6, %7;\\n"
          "}\\n"
          : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
          : "l"(desc_a), "l"(desc_b), "n"(TransA), "n"(TransB), "r"(scaleD));
    }

Both operands come from shared-memory matrix descriptors; scale-d is the predicate ``scaleD != 0``
(1 by default, D += A * B; 0 writes D = A * B without reading the accumulators: a tile's first k step,
``lowering.passes.mma_init``), scale-a and scale-b are 1, and the transpose
bits are template arguments passed as immediates. ``d`` points at the first accumulator
(``&T3[i]``); the wrapper is force-inlined, so when ``i`` is a compile-time constant nvcc keeps
the whole accumulator array in registers.
"""

from __future__ import annotations

from dataclasses import dataclass

from fusion_ir.types import DataType, SmemSwizzle
from target import current as current_target

PTX_TYPES = {DataType.BFloat16: "bf16", DataType.Half: "f16", DataType.Float: "f32"}   # PTX's names of types
DESCRIPTOR_MODES = {SmemSwizzle.NONE: 0, SmemSwizzle.B128: 1, SmemSwizzle.B64: 2, SmemSwizzle.B32: 3}
_PER_LINE = 16                      # registers per line of the generated asm


@dataclass(frozen=True)
class WgmmaShape:
    """One ``wgmma.mma_async.sync.aligned.m64nNk16.f32.<t>.<t>`` form: N and the operand type (M, K and
    the accumulator type are the current target's)."""

    n: int
    dtype: DataType
    register_a: bool = False     # A from four 32-bit registers per thread instead of a matrix descriptor

    @property
    def m(self) -> int:
        return current_target().wgmma.m

    @property
    def k(self) -> int:
        return current_target().wgmma.k_for(self.dtype.size)

    @property
    def accumulator_ptx_type(self) -> str:
        return PTX_TYPES[DataType[current_target().wgmma.accumulator_type]]

    @property
    def registers(self) -> int:
        return self.n // 2

    @property
    def ptx_type(self) -> str:
        return PTX_TYPES[self.dtype]

    @property
    def instruction(self) -> str:
        t = self.ptx_type
        return f"wgmma.mma_async.sync.aligned.m{self.m}n{self.n}k{self.k}.{self.accumulator_ptx_type}.{t}.{t}"

    @property
    def function(self) -> str:
        """The wrapper's name in namespace ``wgmma``, e.g. ``mmaM64N256K16F32Bf16``."""
        acc = self.accumulator_ptx_type.capitalize()
        return f"mmaM{self.m}N{self.n}K{self.k}{acc}{self.ptx_type.capitalize()}{'RegA' if self.register_a else ''}"

    def callee(self, trans_a: bool, trans_b: bool) -> str:
        """``wgmma::mmaM64N256K16F32Bf16<0, 1>``: the wrapper with its transpose bits (A's, then B's; a register
        A has none)."""
        if self.register_a:
            return f"wgmma::{self.function}<{int(trans_b)}>"
        return f"wgmma::{self.function}<{int(trans_a)}, {int(trans_b)}>"

    def wrapper(self) -> str:
        """The C++ text of the wrapper: one asm statement with N / 2 ``"+f"`` accumulator operands; A and B from
        shared-memory descriptors, or (``register_a``) A as four 32-bit registers (eight 16-bit elements, pairs
        packed low half first) and B from its descriptor, with no transpose bit for A."""
        r = self.registers
        reg_lines, operand_lines = self._accumulator_lines()
        shape = f"// {self.instruction}: D[{self.m} x {self.n}] += A[{self.m} x {self.k}] * B[{self.k} x {self.n}], "
        if self.register_a:
            head = [shape + "A in registers (a0..a3: this thread's",
                    "// fragment, 16-bit pairs packed low half first), B in shared memory;"]
            template = "template <int TransB>"
            signature = [(f"__device__ __forceinline__ void {self.function}(float* d, uint32_t a0, uint32_t a1, "
                          "uint32_t a2, uint32_t a3,"),
                         f"{' ' * (len(self.function) + 37)}uint64_t desc_b, int scaleD = 1) {{"]
            sources = f'      "{{%{r}, %{r + 1}, %{r + 2}, %{r + 3}}}, %{r + 4}, p, 1, 1, %{r + 5};\\n"'
            inputs = '      : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "l"(desc_b), "n"(TransB), "r"(scaleD));'
            scale = r + 6
        else:
            head = [shape + "A and B in shared memory;"]
            template = "template <int TransA, int TransB>"
            signature = [f"__device__ __forceinline__ void {self.function}(float* d, uint64_t desc_a, "
                         "uint64_t desc_b, int scaleD = 1) {"]
            sources = f'      "%{r}, %{r + 1}, p, 1, 1, %{r + 2}, %{r + 3};\\n"'
            inputs = '      : "l"(desc_a), "l"(desc_b), "n"(TransA), "n"(TransB), "r"(scaleD));'
            scale = r + 4
        lines = [
            *head,
            f"// {r} {self.accumulator_ptx_type} accumulators per thread at d[0 .. {r - 1}].",
            template,
            *signature,
            "  asm volatile(",
            '      "{\\n.reg .pred p;\\n"',
            f'      "setp.ne.b32 p, %{scale}, 0;\\n"',
            f'      "{self.instruction} "',
            *(f'      "{line}"' for line in reg_lines),
            sources,
            '      "}\\n"',
            "      : " + ",\n        ".join(operand_lines),
            inputs,
            "}",
        ]
        return "\n".join(lines) + "\n"

    def _accumulator_lines(self) -> tuple[list[str], list[str]]:
        """The asm's accumulator list ``{%0, ..., %r-1}, `` and its ``"+f"(d[i])`` operands, a line per 16 / 8."""
        r = self.registers
        regs = [f"%{i}" for i in range(r)]
        reg_lines = [", ".join(regs[i:i + _PER_LINE]) for i in range(0, r, _PER_LINE)]
        reg_lines[0] = "{" + reg_lines[0]
        reg_lines = [line + ", " for line in reg_lines[:-1]] + [reg_lines[-1] + "}, "]
        operands = [f'"+f"(d[{i}])' for i in range(r)]
        operand_lines = [", ".join(operands[i:i + _PER_LINE // 2]) for i in range(0, r, _PER_LINE // 2)]
        return reg_lines, operand_lines



# A register A operand is read by the wgmma until the wait_group that retires it: like the accumulators, its
# 32-bit registers are pinned on their side of wgmma.fence and wgmma.wait_group.
REGISTER_OPERAND_FENCE = """// The 32-bit A registers of wgmmas (16-bit pairs): formed before the wgmma.fence that precedes the wgmmas
// reading them, not touched again before the wait_group that retires them.
template <int N>
__device__ __forceinline__ void fenceOperands(uint32_t (&a)[N]) {
#pragma unroll
  for (int i = 0; i < N; ++i) {
    asm volatile("" : "+r"(a[i])::"memory");
  }
}
"""


def wrappers_source(shapes: set[WgmmaShape]) -> str:
    """The wrappers of ``shapes`` in namespace ``wgmma``, in a stable order (type, then N, the register-A forms
    after the descriptor ones), and the register operand fence when a register-A form is among them."""
    if not shapes:
        return ""
    ordered = sorted(shapes, key=lambda s: (s.register_a, s.ptx_type, s.n))
    body = "\n".join(s.wrapper() for s in ordered)
    if any(s.register_a for s in shapes):
        body += "\n" + REGISTER_OPERAND_FENCE
    return ("// wgmma.mma_async wrappers generated by codegen/wgmma.py for the shapes this kernel issues.\n"
            f"namespace wgmma {{\n\n{body}\n}}  // namespace wgmma\n")
