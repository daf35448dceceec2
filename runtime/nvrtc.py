"""Compile CUDA source to an sm_90a cubin with NVRTC (cuda-python), cached by source and options."""

from __future__ import annotations

import hashlib
import re
import threading
from dataclasses import dataclass

from target import DEFAULT_TARGET, Target

from .errors import CompileError


def nvrtc_options_for(target: Target) -> tuple[str, ...]:
    return (f"--gpu-architecture={target.arch}", "-default-device", "--std=c++17")


NVRTC_OPTIONS: tuple[str, ...] = nvrtc_options_for(DEFAULT_TARGET)

_cache: dict[str, Cubin] = {}
_lock = threading.Lock()


@dataclass(frozen=True)
class Cubin:
    key: str          # sha256 of source and options
    image: bytes
    log: str          # NVRTC's log (warnings) of a successful compile


def cache_key(source: str, options: tuple[str, ...]) -> str:
    h = hashlib.sha256(source.encode())
    for opt in options:
        h.update(b"\0" + opt.encode())
    return h.hexdigest()


def compile_cubin(source: str, name: str = "kernel.cu", options: tuple[str, ...] = NVRTC_OPTIONS) -> Cubin:
    """The cubin of ``source``; raises ``CompileError`` with NVRTC's log and the offending lines."""
    key = cache_key(source, options)
    with _lock:
        if key in _cache:
            return _cache[key]
    cubin = _compile(source, name, options, key)
    with _lock:
        _cache[key] = cubin
    return cubin


def _compile(source: str, name: str, options: tuple[str, ...], key: str) -> Cubin:
    try:
        from cuda.bindings import nvrtc
    except ImportError as e:
        raise CompileError("cuda-python is not installed (pip install cuda-python); NVRTC is unavailable") from e
    try:
        err, prog = nvrtc.nvrtcCreateProgram(source.encode(), name.encode(), 0, [], [])
    except Exception as e:  # the NVRTC shared library could not be loaded
        raise CompileError(f"NVRTC is unavailable: {e}") from e
    _check(nvrtc, err, "nvrtcCreateProgram")
    try:
        opts = [o.encode() for o in options]
        (compile_err,) = nvrtc.nvrtcCompileProgram(prog, len(opts), opts)
        log = _log(nvrtc, prog)
        if compile_err != nvrtc.nvrtcResult.NVRTC_SUCCESS:
            error = CompileError(format_compile_error(source, name, options, log))
            error.log = log  # type: ignore[attr-defined]
            error.options = options  # type: ignore[attr-defined]
            error.source_lines = offending_lines(source, name, log)  # type: ignore[attr-defined]
            raise error
        err, size = nvrtc.nvrtcGetCUBINSize(prog)
        _check(nvrtc, err, "nvrtcGetCUBINSize")
        image = b" " * size
        (err,) = nvrtc.nvrtcGetCUBIN(prog, image)
        _check(nvrtc, err, "nvrtcGetCUBIN")
        return Cubin(key, image, log)
    finally:
        nvrtc.nvrtcDestroyProgram(prog)


def _log(nvrtc, prog) -> str:
    err, size = nvrtc.nvrtcGetProgramLogSize(prog)
    _check(nvrtc, err, "nvrtcGetProgramLogSize")
    buf = b" " * size
    nvrtc.nvrtcGetProgramLog(prog, buf)
    return buf.rstrip(b"\0 ").decode(errors="replace")


def _check(nvrtc, err, what: str) -> None:
    if err != nvrtc.nvrtcResult.NVRTC_SUCCESS:
        _, text = nvrtc.nvrtcGetErrorString(err)
        raise CompileError(f"{what} failed: {text.decode() if isinstance(text, bytes) else text}")


def offending_lines(source: str, name: str, log: str) -> dict[int, str]:
    """Line number -> text of each source line the log points at (``name(12): error ...``)."""
    lines = source.splitlines()
    wanted = {int(n) for n in re.findall(re.escape(name) + r"\((\d+)\)", log)}
    return {n: lines[n - 1] for n in sorted(wanted) if 1 <= n <= len(lines)}


def format_compile_error(source: str, name: str, options: tuple[str, ...], log: str) -> str:
    """NVRTC's log, the options, and each source line the log points at with one line of context."""
    lines = source.splitlines()
    wanted = sorted(offending_lines(source, name, log))
    parts = [f"NVRTC failed to compile {name} with {' '.join(options)}:", log.rstrip()]
    if wanted:
        parts.append("offending source lines:")
        shown: set[int] = set()
        for n in wanted:
            for m in range(max(1, n - 1), min(len(lines), n + 1) + 1):
                if m not in shown:
                    shown.add(m)
                    parts.append(f"{'>' if m == n else ' '}{m:5d} | {lines[m - 1]}")
    return "\n".join(parts)
