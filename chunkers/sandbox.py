"""A file's chunking in a process of its own, under CPU and memory limits.

tree-sitter's error recovery can take the square or worse of a construct repeated with nothing to resync on, and
a GB and more of memory, inside one step of the parse that neither of `units.parse_bounded`'s budgets sees, and in
C code that no Python signal or thread can stop. A process can be stopped: `chunk_file_guarded` sends a file of
ISOLATE_MIN_BYTES or more to a worker process (started on first need, kept for the next file) whose CPU time is
limited to `cpu_limit_s(size)` and memory to `memory_limit_mb(size)`, and a worker killed by a limit, or ended any
other way (a grammar's allocation refused, a crash), leaves the file in plain windows with the reason as a note.
Real files chunk well inside the limits, so they change nothing that parses; a smaller file is chunked here. The
limits' reasons and figures: docs/decisions.md ("a file of 4 KB or more is chunked in a worker process") and
benchmarks/hostile_files.md.
"""

from __future__ import annotations

import math
import os
import pickle
import select
import signal
import struct
import subprocess
import sys
import threading
from pathlib import Path

from .model import DEFAULT_OPTIONS, ChunkOptions, ChunkResult
from .redact import redact_text
from .registry import BYTES_CHUNKERS, chunk_file_result
from .extensions import extension_of

try:
    import resource
except ImportError:  # not a POSIX system: no limits to set, so files are chunked in this process
    resource = None

ISOLATE_MIN_BYTES = 4096
# The CPU a file's chunking may take: CPU_MIN_S, plus CPU_S_PER_MB a MB (20 ms a KB, several times what real code
# takes), rounded up to whole seconds (the kernel counts seconds). The memory (address space) the worker may hold:
# MEMORY_MIN_MB, plus MEMORY_MB_PER_MB a MB of the file.
CPU_MIN_S, CPU_S_PER_MB = 2.0, 20.0
MEMORY_MIN_MB, MEMORY_MB_PER_MB = 1024, 512
_HEADER = struct.Struct("<Q")


def cpu_limit_s(size: int) -> int:
    """The CPU seconds the chunking of a file of `size` bytes may take in the worker."""
    return max(1, math.ceil(CPU_MIN_S + CPU_S_PER_MB * size / 2**20))


def memory_limit_mb(size: int) -> int:
    """The address space, in MB, the worker may hold while it chunks a file of `size` bytes."""
    return MEMORY_MIN_MB + math.ceil(MEMORY_MB_PER_MB * size / 2**20)


def _send(stream, obj) -> None:
    blob = pickle.dumps(obj, protocol=pickle.HIGHEST_PROTOCOL)
    stream.write(_HEADER.pack(len(blob)) + blob)
    stream.flush()


def _receive(stream):
    head = stream.read(_HEADER.size)
    if len(head) < _HEADER.size:
        raise EOFError
    blob = stream.read(_HEADER.unpack(head)[0])
    return pickle.loads(blob)


class _Worker:
    """One worker process: requests (path, data, options, limits, plain) in, ChunkResults out, over its pipes."""

    def __init__(self) -> None:
        env = dict(os.environ, PYTHONPATH=os.pathsep.join(
            [str(Path(__file__).resolve().parent.parent), *filter(None, [os.environ.get("PYTHONPATH")])]))
        self.proc = subprocess.Popen([sys.executable, "-c", "from chunkers.sandbox import serve; serve()"],
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, env=env, start_new_session=True)

    def chunk(self, path: str, data: bytes, options: ChunkOptions, cpu_s: int, memory_mb: int,
              plain: bool) -> ChunkResult | str:
        """The worker's ChunkResult, or why there is none (the worker has then ended)."""
        try:
            _send(self.proc.stdin, (path, data, options, cpu_s, memory_mb, plain, MEMORY_MIN_MB * 2**19))
            # A worker stuck but not computing (it never should be) is bounded by wall time too.
            ready, _, _ = select.select([self.proc.stdout], [], [], 4 * cpu_s + 30)
            if ready:
                result, retiring = _receive(self.proc.stdout)
                if retiring:
                    self.stop()
                return result
        except Exception:  # a pipe closed, a reply cut short: whatever it was, the worker is done
            pass
        self.stop()
        code = self.proc.returncode
        if code == -signal.SIGXCPU:
            return f"chunking passed its CPU limit ({cpu_s} s for {len(data) / 1024:.0f} KB) in a process of its own"
        how = f"signal {_signal_name(-code)}" if code and code < 0 else f"exit {code}"
        return f"the chunking process ended ({how}) on this file, under its limits of {cpu_s} CPU s and {memory_mb} MB"

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.wait()

    def alive(self) -> bool:
        return self.proc.poll() is None


def _signal_name(number: int) -> str:
    try:
        return signal.Signals(number).name
    except ValueError:
        return str(number)


_lock = threading.Lock()
_worker: _Worker | None = None


def chunk_file_guarded(path: str, data: bytes, options: ChunkOptions = DEFAULT_OPTIONS,
                       cpu_s: int | None = None) -> ChunkResult:
    """`chunk_file_result`, in the worker for a file of ISOLATE_MIN_BYTES or more (or given `cpu_s`). A file whose
    chunking passes a limit or ends the worker is plain windows with the reason as a note, cut in a fresh worker
    under the same limits; past them again, a skip with both reasons (the parent never does a file's work itself)."""
    if resource is None or (len(data) < ISOLATE_MIN_BYTES and cpu_s is None):
        return chunk_file_result(path, data, options)
    limits = (cpu_s or cpu_limit_s(len(data)), memory_limit_mb(len(data)))
    first = _in_worker(path, data, options, *limits, plain=False)
    if isinstance(first, ChunkResult):
        return first
    if extension_of(path) in BYTES_CHUNKERS:  # a PDF has no plain windows
        return ChunkResult([], skip_reason=first)
    second = _in_worker(path, data, options, *limits, plain=True)
    if isinstance(second, ChunkResult):
        return ChunkResult(second.pieces, second.skip_reason, (redact_text(f"{first}: plain windows"),))
    return ChunkResult([], skip_reason=redact_text(f"{first}; its plain windows too: {second}"))


def _in_worker(path: str, data: bytes, options: ChunkOptions, cpu_s: int, memory_mb: int,
               plain: bool) -> ChunkResult | str:
    global _worker
    with _lock:
        if _worker is None or not _worker.alive():
            _worker = _Worker()
        return _worker.chunk(path, data, options, cpu_s, memory_mb, plain)


def stop_worker() -> None:
    """End the worker (it ends by itself when this process's end closes its pipe)."""
    global _worker
    with _lock:
        if _worker is not None:
            _worker.stop()
            _worker = None


def serve() -> None:
    """The worker's loop: each request's chunking under the limits it names; the parent's pipe closed ends it."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the parent's Ctrl-C is the parent's; its pipe closing ends this
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))  # killed by the limit: no core file
    stdin, stdout = sys.stdin.buffer, sys.stdout.buffer
    sys.stdout = sys.stderr  # a chunker's print must not corrupt the replies
    while True:
        try:
            path, data, options, cpu_s, memory_mb, plain, retire_above = _receive(stdin)
        except EOFError:
            return
        used = resource.getrusage(resource.RUSAGE_SELF)
        _set_soft_limit(resource.RLIMIT_CPU, math.ceil(used.ru_utime + used.ru_stime) + cpu_s)
        try:
            _set_soft_limit(resource.RLIMIT_AS, memory_mb * 2**20)
        except (ValueError, OSError):  # a kernel that will not bound the address space (macOS): the CPU limit holds
            pass
        result = chunk_file_result(path, data, options, plain_only=plain)
        # Retiring after this reply: a worker grown past half the least limit, or one whose chunker left a thread
        # running (a PDF's reader past its deadline), which would spend the next file's limits.
        _send(stdout, (result, _address_space() > retire_above or threading.active_count() > 1))


def _set_soft_limit(kind: int, value: int) -> None:
    """Set this process's soft limit of `kind` to `value`, or to its hard limit where that is lower."""
    _, hard = resource.getrlimit(kind)
    resource.setrlimit(kind, (value if hard == resource.RLIM_INFINITY else min(value, hard), hard))


def _address_space() -> int:
    """This process's address space in bytes (0 where /proc does not say)."""
    try:
        with open("/proc/self/statm") as statm:
            return int(statm.read().split()[0]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError, IndexError):
        return 0

