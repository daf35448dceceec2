"""Compile a translation unit with nvcc for sm_90a and read ptxas's resource report.

Used by CI (every generated kernel must compile with no errors and no warnings) and by
``viz --show resources``. The GPU executor compiles with NVRTC instead (``runtime/nvrtc.py``).
"""

from __future__ import annotations

import re
import shutil
import subprocess
import tempfile
from dataclasses import dataclass, replace
from pathlib import Path

from target import DEFAULT_TARGET, Target
from target import current as current_target

from .errors import NvccError


def arch_flags(target: Target) -> tuple[str, ...]:
    """nvcc's ``-gencode`` for ``target`` (``-gencode=arch=compute_90a,code=sm_90a``)."""
    return (f"-gencode=arch={target.virtual_arch},code={target.arch}",)


NVCC_ARCH_FLAGS = arch_flags(DEFAULT_TARGET)


@dataclass(frozen=True)
class PtxasResources:
    """What ptxas reports for one kernel (bytes unless named otherwise)."""

    kernel: str
    registers: int
    barriers: int
    static_smem_bytes: int
    constant_bytes: int
    stack_bytes: int
    spill_store_bytes: int
    spill_load_bytes: int
    log: str
    sass: str | None = None        # ``cuobjdump -sass`` of the cubin, where asked for and cuobjdump is on PATH

    @property
    def spills(self) -> bool:
        return self.spill_store_bytes > 0 or self.spill_load_bytes > 0


@dataclass(frozen=True)
class WgmmaIssue:
    """How a kernel's wgmmas issue, read from its SASS: ``moves`` counts the ``R2UR`` (a value moved from a thread's
    registers to the warp's uniform ones) between a ``WARPGROUP.ARRIVE`` and the ``WARPGROUP.DEPBAR`` after it, where
    the wgmmas (``HGMMA``) of a k tile issue. A wgmma reads its descriptors from uniform registers: descriptors built
    in uniform registers need no move, while each one built per thread waits on its moves before it can issue."""

    wgmmas: int
    moves: int


_SASS_OP = re.compile(r"/\*[0-9a-f]{4,}\*/\s+(?:@!?U?P\w+\s+)?([A-Z0-9_.]+)")


def wgmma_issue(sass: str) -> WgmmaIssue:
    """Count the wgmmas of ``sass`` and the ``R2UR`` among them (``WgmmaIssue``)."""
    issuing, wgmmas, moves = False, 0, 0
    for op in _SASS_OP.findall(sass):
        if op.startswith("WARPGROUP.ARRIVE"):
            issuing = True
        elif op.startswith("WARPGROUP.DEPBAR"):
            issuing = False
        elif op.startswith("HGMMA"):
            wgmmas += 1
        elif issuing and op.startswith("R2UR"):
            moves += 1
    return WgmmaIssue(wgmmas, moves)


def nvcc_available(nvcc: str = "nvcc") -> bool:
    return shutil.which(nvcc) is not None


def compile_check(source: str, *, options: tuple[str, ...] = (), nvcc: str = "nvcc", sass: bool = False,
                  timeout_s: float = 300.0) -> PtxasResources:
    """Compile ``source`` to a cubin of the current target (sm_90a); raise ``NvccError`` on any error or warning.

    Returns the resources of the (first) kernel in the translation unit; with ``sass``, and ``cuobjdump`` on PATH,
    its SASS too.
    """
    exe = shutil.which(nvcc)
    if exe is None:
        raise NvccError(f"{nvcc} is not on PATH; compile_check needs the CUDA toolkit")
    with tempfile.TemporaryDirectory(prefix="codegen_") as tmp:
        src = Path(tmp) / "kernel.cu"
        src.write_text(source)
        cmd = [exe, *arch_flags(current_target()), "-cubin", "-Xptxas", "-v", *options,
               "-o", str(Path(tmp) / "kernel.cubin"), str(src)]
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout_s, cwd=tmp, check=False)
        dump = shutil.which("cuobjdump") if sass and proc.returncode == 0 else None
        listing = None if dump is None else subprocess.run(
            [dump, "-sass", str(Path(tmp) / "kernel.cubin")], capture_output=True, text=True, timeout=timeout_s,
            check=True).stdout
    log = (proc.stdout + proc.stderr).replace(str(src), "kernel.cu")
    if proc.returncode != 0:
        raise NvccError(f"nvcc failed ({' '.join(cmd[1:-3])}):\n{_with_source_lines(log, source)}", log)
    warnings = [line for line in log.splitlines() if re.search(r"\bwarning\b", line, re.IGNORECASE)]
    if warnings:
        raise NvccError("nvcc reported warnings:\n" + _with_source_lines(log, source), log)
    return replace(parse_ptxas_log(log), sass=listing)


def parse_ptxas_log(log: str) -> PtxasResources:
    name_match = re.search(r"Function properties for (\S+)", log)
    if name_match is None:
        raise NvccError(f"no kernel in ptxas output:\n{log}", log)
    tail = log[name_match.start():]

    def number(pattern: str) -> int:
        m = re.search(pattern, tail)
        return int(m.group(1)) if m else 0

    return PtxasResources(
        kernel=name_match.group(1),
        registers=number(r"Used (\d+) registers"),
        barriers=number(r"used (\d+) barriers"),
        static_smem_bytes=number(r"(\d+) bytes smem"),
        constant_bytes=number(r"(\d+) bytes cmem\[0\]"),
        stack_bytes=number(r"(\d+) bytes stack frame"),
        spill_store_bytes=number(r"(\d+) bytes spill stores"),
        spill_load_bytes=number(r"(\d+) bytes spill loads"),
        log=log,
    )


def _with_source_lines(log: str, source: str) -> str:
    """The log followed by the source lines it points at (``kernel.cu(12): ...``)."""
    lines = source.splitlines()
    wanted = sorted({int(n) for n in re.findall(r"kernel\.cu\((\d+)\)", log)})
    if not wanted:
        return log
    shown = [log.rstrip(), "", "offending source lines:"]
    for n in wanted:
        if 1 <= n <= len(lines):
            shown.append(f"{n:5d} | {lines[n - 1]}")
    return "\n".join(shown)
