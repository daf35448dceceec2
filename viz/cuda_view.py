"""``--show cuda`` and ``--show resources``: the generated source, and what ptxas makes of it."""

from __future__ import annotations

import re
from typing import Any

from rich.syntax import Syntax
from rich.table import Table
from rich.text import Text

from lowering import kernel_ir as k

from .view import View


class ToolMissing(RuntimeError):
    """A tool the show needs (nvcc) is not installed."""


def kernel_signature(source: str) -> str | None:
    """The ``__global__`` line of the generated source, without its opening brace."""
    match = re.search(r"^.*__global__.*$", source, re.MULTILINE)
    return None if match is None else match.group(0).rstrip(" {")


def cuda_view(source: str, *, no_color: bool) -> View:
    # the terminal's own background: no padding to the console width when piped
    renderable: Any = source if no_color else Syntax(source, "cuda", line_numbers=False, word_wrap=False,
                                                     background_color="default")
    data = {"source": source, "signature": kernel_signature(source)}
    return View("cuda", "CUDA", [renderable], data, soft_wrap=True)


def issues_wgmma(kernel: k.Kernel) -> bool:
    """Whether the kernel issues a wgmma (an ``Mma`` node): its resources view reads the SASS too."""
    return any(isinstance(n, k.Mma) for n in k.walk(kernel.body))


def resources_view(kernel: k.Kernel, source: str) -> View:
    """Compile with nvcc for sm_90a (``-Xptxas -v``) and tabulate registers, shared memory, stack and spills; for a
    kernel that issues wgmma, how many ``R2UR`` its SASS has among the wgmmas (``codegen.nvcc.wgmma_issue``)."""
    from codegen.nvcc import NVCC_ARCH_FLAGS, compile_check, nvcc_available, wgmma_issue

    if not nvcc_available():
        raise ToolMissing("nvcc is not on PATH: --show resources compiles the kernel with nvcc -Xptxas -v "
                          "(CUDA toolkit 12.3 or newer, for sm_90a)")
    wgmma = issues_wgmma(kernel)
    res = compile_check(source, sass=wgmma)
    # ptxas prints no constant-bank line for some kernels; 0 would claim a size it never reported.
    constant_reported = "cmem[0]" in res.log
    constant = f"{res.constant_bytes} B" if constant_reported else "not reported"
    dynamic = kernel.smem_bytes
    dynamic_const = dynamic.const_value()
    static = res.static_smem_bytes
    if dynamic_const is not None:
        total = str(static + dynamic_const)
    else:
        total = str(dynamic) if static == 0 else f"{static} + {dynamic}"
    rows: list[tuple[str, str, str]] = [
        ("registers", f"{res.registers}", "per thread"),
        ("shared memory, static", f"{static} B", "declared in the source (ptxas)"),
        ("shared memory, dynamic", f"{dynamic} B", "Kernel.smem_bytes, set at launch"),
        ("shared memory, total", f"{total} B", "per block"),
        ("stack frame", f"{res.stack_bytes} B", "per thread"),
        ("spill stores", f"{res.spill_store_bytes} B", "to local memory"),
        ("spill loads", f"{res.spill_load_bytes} B", "from local memory"),
        ("barriers", f"{res.barriers}", "named barriers"),
        ("constant bank 0", constant, "parameters (tensor maps included)"),
    ]
    issue = wgmma_issue(res.sass) if wgmma and res.sass is not None else None
    if issue is not None:
        rows.append(("wgmma descriptor moves", f"{issue.moves} R2UR",
                     f"among the {issue.wgmmas} wgmma of the SASS; 0: descriptors built in uniform registers"))
    elif wgmma:
        rows.append(("wgmma descriptor moves", "not read", "cuobjdump is not on PATH"))
    table = Table("resource", "value", "", title=f"ptxas: {res.kernel} (sm_90a)")
    for name, value, note in rows:
        bad = name.startswith("spill") and not value.startswith("0 ")
        slow = name.startswith("wgmma") and value[0].isdigit() and not value.startswith("0 ")   # waits, not wrong
        style = "bold red" if bad else "bold yellow" if slow else "bold"
        table.add_row(name, Text(value, style=style), Text(note, style="dim"))
    verdict = (Text("spills: yes — registers overflow to local memory", style="bold red") if res.spills
               else Text("no spills", style="green"))
    flags = " ".join(NVCC_ARCH_FLAGS)
    data = {"kernel": res.kernel, "registers": res.registers, "static_smem_bytes": static,
            "dynamic_smem_bytes": str(dynamic), "total_smem_bytes": total, "stack_bytes": res.stack_bytes,
            "spill_store_bytes": res.spill_store_bytes, "spill_load_bytes": res.spill_load_bytes,
            "spills": res.spills, "barriers": res.barriers,
            "constant_bytes": res.constant_bytes if constant_reported else None,
            "wgmma": None if issue is None else {"wgmmas": issue.wgmmas, "descriptor_moves": issue.moves},
            "nvcc_flags": [*NVCC_ARCH_FLAGS, "-Xptxas", "-v"], "log": res.log}
    return View("resources", "ptxas resources", [table, verdict, Text(f"nvcc {flags} -Xptxas -v", style="dim")],
                data)
