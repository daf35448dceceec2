"""The matmul tuning cache: the winners of ``runtime.tuning.tune_matmul`` in one JSON file, by device
name and problem key (``matmul_key.problem_key``). Pure Python, no GPU: ``suggest_matmul_params`` reads
it, the tuner (in ``runtime``) writes it.

Where: ``$FUSION_TUNING_CACHE``, else ``~/.cache/fusion_playground/matmul_tuning.json``; ``use(path=...)``
overrides both inside a ``with`` block.

Which device: the cache is read only when a device name is installed: ``use(device=...)`` (a ``with``
block; ``runtime.tuning.use_this_gpu()`` installs the GPU's name from the driver), else
``$FUSION_TUNING_DEVICE``. Nothing here asks the driver, so a CPU run never touches it, and with no
device installed schedules come from the rules alone, whatever a cache file holds: goldens and CPU tests
do not depend on what was tuned on the machine.

The file: ``{"version": 1, "entries": {DEVICE: {KEY: ENTRY}}}``. Writes go to a temporary file beside it,
then ``os.replace`` (atomic on POSIX): a reader sees the old file or the new one, never half of one. An
unreadable or malformed file is a ``TuningCacheError`` naming the file (the tuner refuses to write over
it), or, where a schedule only looks a winner up, a ``TuningCacheWarning`` and the rules.
"""

from __future__ import annotations

import contextlib
import contextvars
import json
import os
import tempfile
import warnings
from collections.abc import Iterator
from dataclasses import asdict, dataclass, field, fields
from pathlib import Path
from typing import Any

from ..types import DataType, StoreWait
from .matmul_params import MatmulParams
from .matmul_why import FieldReason, ParamsWhy, field_values

ENV_CACHE = "FUSION_TUNING_CACHE"
ENV_DEVICE = "FUSION_TUNING_DEVICE"
DEFAULT_PATH = Path("~/.cache/fusion_playground/matmul_tuning.json")
VERSION = 1


class TuningCacheError(ValueError):
    """The cache file cannot be read or written; the message names the file."""


class TuningCacheWarning(UserWarning):
    """A schedule could not read the cache file and used the rules."""


@dataclass(frozen=True)
class Tried:
    """One candidate of a tuning run: its name and either its time or why it was skipped or rejected."""

    name: str
    ms: float | None = None
    tflops: float | None = None
    error: str | None = None
    confirm_ms: float | None = None             # its time in the confirmation round (the first round's fastest)


@dataclass(frozen=True)
class TunedEntry:
    """A tuning run's winner for one device and problem key."""

    device: str
    key: str
    params: MatmulParams
    ms: float
    tflops: float
    date: str                                   # ISO date and time of the run (UTC)
    tried: tuple[Tried, ...] = field(default=())

    def to_json(self) -> dict[str, Any]:
        return {"device": self.device, "key": self.key, "params": params_to_json(self.params), "ms": self.ms,
                "tflops": self.tflops, "date": self.date, "tried": [asdict(t) for t in self.tried]}

    @staticmethod
    def from_json(data: dict[str, Any]) -> TunedEntry:
        return TunedEntry(str(data["device"]), str(data["key"]), params_from_json(data["params"]),
                          float(data["ms"]), float(data["tflops"]), str(data["date"]),
                          tuple(Tried(**t) for t in data.get("tried", [])))


def params_to_json(params: MatmulParams) -> dict[str, Any]:
    """Every field of ``params`` as JSON: tuples as lists, the index type and store wait by name."""
    out: dict[str, Any] = {}
    for f in fields(params):
        value = getattr(params, f.name)
        if isinstance(value, DataType):
            value = value.name
        elif isinstance(value, StoreWait):
            value = value.value
        elif isinstance(value, tuple):
            value = list(value)
        out[f.name] = value
    return out


def params_from_json(data: dict[str, Any]) -> MatmulParams:
    """``params_to_json``'s inverse; unknown fields are a ``KeyError`` naming them."""
    names = {f.name for f in fields(MatmulParams)}
    unknown = sorted(set(data) - names)
    if unknown:
        raise KeyError(f"not MatmulParams fields: {', '.join(unknown)}")
    values = dict(data)
    for name in ("tile", "register_split", "cluster", "epilogue_tile"):
        if isinstance(values.get(name), list):
            values[name] = tuple(values[name])
    if "index_type" in values:
        values["index_type"] = DataType[values["index_type"]]
    return MatmulParams(**values)


# ---- where the cache is and which device reads it -------------------------------------------
_PATH: contextvars.ContextVar[Path | None] = contextvars.ContextVar("tuning_cache_path", default=None)
_DEVICE: contextvars.ContextVar[str | None] = contextvars.ContextVar("tuning_device", default=None)


def cache_path() -> Path:
    """The cache file: ``use(path=...)``, else ``$FUSION_TUNING_CACHE``, else ``DEFAULT_PATH``."""
    path = _PATH.get()
    if path is not None:
        return path
    env = os.environ.get(ENV_CACHE)
    return Path(env).expanduser() if env else DEFAULT_PATH.expanduser()


def current_device() -> str | None:
    """The device whose winners schedules use: ``use(device=...)``, else ``$FUSION_TUNING_DEVICE``, else None
    (no lookup: the rules)."""
    device = _DEVICE.get()
    if device is not None:
        return device
    return os.environ.get(ENV_DEVICE) or None


@contextlib.contextmanager
def use(*, device: str | None = None, path: str | Path | None = None) -> Iterator[None]:
    """Inside the block, look winners up for ``device`` in the cache at ``path`` (each when given)."""
    tokens = []
    if device is not None:
        tokens.append((_DEVICE, _DEVICE.set(device)))
    if path is not None:
        tokens.append((_PATH, _PATH.set(Path(path).expanduser())))
    try:
        yield
    finally:
        for var, token in reversed(tokens):
            var.reset(token)


# ---- the file ----------------------------------------------------------------------------------
class TuningCache:
    """The cache file at ``path`` (default: ``cache_path()``), read on each call (another process may have
    tuned since)."""

    def __init__(self, path: str | Path | None = None) -> None:
        self.path = Path(path).expanduser() if path is not None else cache_path()

    def __repr__(self) -> str:
        return f"TuningCache({str(self.path)!r})"

    def entries(self) -> dict[str, dict[str, TunedEntry]]:
        """Every entry by device and key; a missing file is empty, an unreadable one a ``TuningCacheError``."""
        try:
            text = self.path.read_text(encoding="utf-8")
        except FileNotFoundError:
            return {}
        except OSError as e:
            raise TuningCacheError(f"matmul tuning cache {self.path}: cannot read it ({e})") from e
        try:
            data = json.loads(text)
        except json.JSONDecodeError as e:
            raise TuningCacheError(f"matmul tuning cache {self.path}: not JSON ({e}); delete or move the file "
                                   f"(it is rewritten by the next tuning run)") from e
        if not isinstance(data, dict) or data.get("version") != VERSION or not isinstance(data.get("entries"), dict):
            raise TuningCacheError(f"matmul tuning cache {self.path}: expected {{\"version\": {VERSION}, \"entries\": "
                                   f"{{DEVICE: {{KEY: ENTRY}}}}}}; delete or move the file")
        out: dict[str, dict[str, TunedEntry]] = {}
        for device, by_key in data["entries"].items():
            if not isinstance(by_key, dict):
                raise TuningCacheError(f"matmul tuning cache {self.path}: the entries of device {device!r} are not "
                                       f"an object; delete or move the file")
            for key, entry in by_key.items():
                try:
                    out.setdefault(device, {})[key] = TunedEntry.from_json(entry)
                except (KeyError, TypeError, ValueError) as e:
                    raise TuningCacheError(f"matmul tuning cache {self.path}: the entry for device {device!r}, key "
                                           f"{key!r} is malformed ({type(e).__name__}: {e}); delete or move the "
                                           f"file") from e
        return out

    def lookup(self, device: str, key: str) -> TunedEntry | None:
        return self.entries().get(device, {}).get(key)

    def store(self, entry: TunedEntry) -> None:
        """Add or replace ``entry`` (read, update, write a temporary file beside the cache, rename it over), holding
        an exclusive lock on ``<cache>.lock`` from the read to the rename, so two tuners storing at once keep both
        entries."""
        with _locked(self.path):
            entries = self.entries()
            entries.setdefault(entry.device, {})[entry.key] = entry
            data = {"version": VERSION, "entries": {device: {key: e.to_json() for key, e in sorted(by_key.items())}
                                                    for device, by_key in sorted(entries.items())}}
            write_atomic(self.path, json.dumps(data, indent=1) + "\n")


@contextlib.contextmanager
def _locked(path: Path) -> Iterator[None]:
    """An exclusive ``flock`` on ``<path>.lock`` (made beside the cache) for the block; where the platform has no
    ``fcntl``, no lock."""
    try:
        import fcntl
    except ImportError:          # not POSIX: writes stay atomic, concurrent stores may drop one
        yield
        return
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        handle = open(path.with_name(path.name + ".lock"), "a")   # noqa: SIM115 - held for the block
    except OSError as e:
        raise TuningCacheError(f"matmul tuning cache {path}: cannot lock it in {path.parent} ({e})") from e
    with handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def write_atomic(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` through a temporary file in the same folder and ``os.replace``."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, temp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    except OSError as e:
        raise TuningCacheError(f"matmul tuning cache {path}: cannot write in {path.parent} ({e})") from e
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(text)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(temp, path)
    except BaseException as e:
        with contextlib.suppress(OSError):
            os.unlink(temp)
        if isinstance(e, OSError):
            raise TuningCacheError(f"matmul tuning cache {path}: cannot write it ({e})") from e
        raise


def lookup_winner(key: str) -> TunedEntry | None:
    """The winner for ``key`` on ``current_device()``, or None: no device installed, no entry, or a cache
    that cannot be read (then a ``TuningCacheWarning`` naming the file)."""
    device = current_device()
    if device is None:
        return None
    cache = TuningCache()
    try:
        return cache.lookup(device, key)
    except TuningCacheError as e:
        warnings.warn(f"{e}; scheduling with the rules", TuningCacheWarning, stacklevel=3)
        return None


def tuned_why(entry: TunedEntry) -> ParamsWhy:
    """Why a tuned winner: its run (device, date, time, how many candidates), every field ``tuned``."""
    tried = len(entry.tried)
    confirmed = sum(t.confirm_ms is not None for t in entry.tried)
    again = f", then of {confirmed} timed again" if confirmed > 1 else ""
    summary = (f"tuned on {entry.device} ({entry.date}): {entry.ms:.4f} ms, {entry.tflops:.1f} TFLOP/s, the fastest "
               f"of {tried} candidate{'s' if tried != 1 else ''}{again}")
    reasons = tuple(FieldReason(name, value, f"tuned ({entry.device}, {entry.date})")
                    for name, value in field_values(entry.params))
    return ParamsWhy("tuned", summary, reasons, entry)
