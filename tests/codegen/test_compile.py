"""Every hand-built kernel and every device helper compiles for sm_90a with no errors or warnings.

With test_examples_compile.py this is the CI gate of the codegen: nvcc 13, no GPU needed.
Skipped where nvcc is missing.
"""

from __future__ import annotations

import pytest

from codegen import NvccError, compile_check, nvcc_available, to_cuda
from codegen.helpers import HELPER_DEPENDENCIES, helpers_source
from codegen.nvcc import parse_ptxas_log
from codegen.wgmma import WgmmaShape, wrappers_source
from fusion_ir.types import DataType
from tests.codegen import sample_kernels as s

needs_nvcc = pytest.mark.skipif(not nvcc_available(), reason="nvcc is not on PATH")


@needs_nvcc
@pytest.mark.parametrize("name", sorted(s.all_samples()))
def test_sample_kernel_compiles_cleanly(name: str) -> None:
    resources = compile_check(to_cuda(s.all_samples()[name].kernel))
    assert resources.kernel == s.all_samples()[name].kernel.name
    assert 0 < resources.registers <= 255
    assert not resources.spills and resources.stack_bytes == 0


@needs_nvcc
def test_register_sharing_is_not_ignored_by_ptxas() -> None:
    # ptxas says "setmaxnreg ignored" (a warning, which compile_check raises) without a register cap
    resources = compile_check(to_cuda(s.warp_specialized().kernel))
    assert resources.registers <= 168  # 65536 registers / 384 threads, rounded down to a multiple of 8
    assert "setmaxnreg" not in resources.log


HELPER_KERNEL = r"""
extern "C" __global__ void __launch_bounds__(128, 1) helpers_kernel(float* out, const __grid_constant__ TensorMap map) {
  extern __shared__ __align__(1024) char smem[];
  const uint32_t base = toSmem(smem);
  float d[4] = {0.0f, 0.0f, 0.0f, 0.0f};
  float e[8] = {0.0f, 0.0f, 0.0f, 0.0f, 0.0f, 0.0f, 0.0f, 0.0f};
  wgmma::fenceOperands(d);
  wgmma::fence();
  wgmma::mmaM64N8K16F32F16<0, 0>(d, wgmma::smemDescriptor(base, 128, 256, 0), wgmma::smemDescriptor(base + 2048, 128, 256, 0));
  wgmma::mmaM64N16K16F32Bf16<1, 1>(e, wgmma::smemDescriptor(base, 128, 256, 1), wgmma::smemDescriptor(base + 4096, 128, 256, 1));
  wgmma::commit();
  wgmma::wait<0>();
  wgmma::fenceOperands(e);
  stmatrixX1(base + threadIdx.x * 16, 1u);
  stmatrixX2(base + threadIdx.x * 16, 1u, 2u);
  stmatrixX4(base + threadIdx.x * 16, 1u, 2u, 3u, 4u);
  fenceAsyncProxy();
  namedBarrierSync(1, 128);
  __syncthreads();
  if (threadIdx.x == 0) {
    mbarrier::init(base + 8192, 1);
    const uint64_t token = mbarrier::arriveExpectTx(base + 8192, 16);
    Hopper::cpAsyncBulkTensorTileG2S(base, &map, base + 8192, 0, 0, 0);
    Hopper::cpAsyncBulkTensorTileG2S(base, &map, base + 8192, 0, 0, 0, 0, 0);
    mbarrier::wait(base + 8192, token);
    mbarrier::waitParity(base + 8192, 0);
    mbarrier::arrive(base + 8192);
    mbarrier::inval(base + 8192);
    Hopper::cpAsyncBulkTensorTileS2G(&map, base, 0, 0, 0, 0);
    Hopper::cpAsyncBulkCommitGroup();
    Hopper::cpAsyncBulkWaitGroupRead<1>();
  }
  cpAsync<4>(base + 9000 + threadIdx.x * 4, out + threadIdx.x, threadIdx.x < 7);
  cpAsync<8>(base + 10000 + threadIdx.x * 8, out + 2 * threadIdx.x, true);
  cpAsyncCommitGroup();
  cpAsyncWaitGroup<0>();
  const __half h = __float2half(d[0]);
  const __bfloat16 b = __float2bfloat16(e[0]);
  out[threadIdx.x] = __half2float(h) + __bfloat162float(b) + ceilDiv(threadIdx.x, 3) + min64(1, 2) + max64(3, 4);
}
"""


@needs_nvcc
@pytest.mark.parametrize("watchdog", [False, True])
def test_every_device_helper_compiles_cleanly(watchdog: bool) -> None:
    wrappers = wrappers_source({WgmmaShape(8, DataType.Half), WgmmaShape(16, DataType.BFloat16)})
    source = helpers_source(set(HELPER_DEPENDENCIES)) + wrappers + HELPER_KERNEL
    options = ("-DMBARRIER_WATCHDOG_NS=1000000000ULL",) if watchdog else ()
    resources = compile_check(source, options=options)
    assert resources.kernel == "helpers_kernel"


@needs_nvcc
def test_warnings_and_errors_raise_with_the_offending_line() -> None:
    with pytest.raises(NvccError, match=r"warning #177-D[\s\S]*offending source lines:\n\s+2 \|"):
        compile_check('\nextern "C" __global__ void k(float* p) { int unused = 3; p[0] = 1.0f; }\n')
    with pytest.raises(NvccError, match=r"identifier \"q\" is undefined[\s\S]*1 \| extern"):
        compile_check('extern "C" __global__ void k(float* p) { p[0] = q; }\n')


def test_ptxas_log_parsing() -> None:
    log = """ptxas info    : 0 bytes gmem
ptxas info    : Compiling entry function 'k' for 'sm_90a'
ptxas info    : Function properties for k
    16 bytes stack frame, 8 bytes spill stores, 4 bytes spill loads
ptxas info    : Used 40 registers, used 1 barriers, 512 bytes smem, 368 bytes cmem[0]
"""
    r = parse_ptxas_log(log)
    assert (r.kernel, r.registers, r.barriers, r.static_smem_bytes, r.constant_bytes) == ("k", 40, 1, 512, 368)
    assert (r.stack_bytes, r.spill_store_bytes, r.spill_load_bytes, r.spills) == (16, 8, 4, True)
