"""Where self-play runs: in this process, in a local process pool, or on a Ray cluster.

Arena matches and the self-play table builders split their work into numbered chunks (of game
indices, deal seeds or table rows) and map one picklable function over them. Every game is
seeded from the run's seed and its own index, never from a worker's state, so a chunk's result
is the same wherever and however often it runs; results come back in chunk order, so the
finished run is identical on one process, on a pool, on one Ray worker or on many.

`open_backend` picks the backend: ``cluster=None`` gives the local pool (``jobs`` processes, 1
runs inline), ``cluster="auto"``, ``"HOST:PORT"`` or ``"ray://HOST:PORT"`` connects to a Ray
cluster (the optional extra ``fifteentwo[cluster]``). `Backend.map` keeps a bounded number of
chunks in flight (backpressure: a run of a billion games never submits them all at once), and
retries a chunk whose worker died (a killed process, a lost machine) without changing the result.

A `Checkpoint` appends each finished chunk's result to a file (JSON Lines, one ``write`` and
``fsync`` per chunk, keyed by a hash of the run's parameters), so an interrupted long run given
the same file resumes where it stopped; a file written by a run with other parameters is
refused rather than mixed in. Checkpoint files hold pickled results: load only your own.

Ray is imported only when a cluster is asked for, so the core install never needs it.
"""

from __future__ import annotations

import argparse
import base64
import collections
import contextlib
import hashlib
import importlib
import importlib.metadata
import json
import os
import pickle
import socket
import sys
from collections.abc import Callable, Generator, Iterable, Iterator, Mapping
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from pathlib import Path
from types import TracebackType
from typing import Any, Final, TypeVar

from fifteentwo.errors import FifteenTwoError

__all__ = [
    "INSTALL_HINT",
    "Backend",
    "Checkpoint",
    "CheckpointPart",
    "ClusterError",
    "InlineBackend",
    "ProcessBackend",
    "RayBackend",
    "add_cluster_arguments",
    "chunked",
    "open_backend",
    "parse_address",
]

T = TypeVar("T")
R = TypeVar("R")

INSTALL_HINT: Final = "pip install 'fifteentwo[cluster]'"
DEFAULT_PORT: Final = 6379
"""The port ``ray start --head`` listens on unless told otherwise."""
MAX_RETRIES: Final = 3
"""How many times a chunk whose worker died is run again before the run gives up."""
CHECKPOINT_FORMAT: Final = 1


class ClusterError(FifteenTwoError):
    """A cluster that cannot be reached or used, or a checkpoint that cannot be resumed."""


# --- running a setup once per worker process ----------------------------------------------------

_DONE_SETUPS: set[bytes] = set()
"""Setups already run in this process (a Ray worker runs many tasks of many runs)."""


def _setup_key(setup: Callable[[], object] | None) -> bytes:
    return b"" if setup is None else hashlib.sha256(pickle.dumps(setup)).digest()


def _run_setup(setup: Callable[[], object] | None, key: bytes) -> None:
    """Run ``setup`` (e.g. the arena's warm-up game) the first time this process sees it."""
    if setup is not None and key not in _DONE_SETUPS:
        setup()
        _DONE_SETUPS.add(key)


def _call(fn: Callable[[T], R], item: T, setup: Callable[[], object] | None, key: bytes) -> R:
    """One chunk on a worker: the setup if this worker has not run it yet, then the work."""
    _run_setup(setup, key)
    return fn(item)


# --- checkpoints ---------------------------------------------------------------------------------


class Checkpoint:
    """Finished chunk results of one run, appended to a JSON Lines file as they arrive.

    The first line names the run (``key``: a hash of ``params``, and the params themselves for a
    reader); each further line is ``{"part": name, "chunk": i, "data": base64 pickle}``.
    Appends are whole lines written with one call and fsynced, so an interruption loses at most
    the line being written, and a torn last line is dropped when the file is opened again.
    """

    def __init__(self, path: str | os.PathLike[str], params: Mapping[str, Any]) -> None:
        self.path = Path(path)
        self.params = {**params, "fifteentwo": _version()}  # another version may play otherwise
        text = json.dumps(self.params, sort_keys=True, default=str)
        self.key = hashlib.sha256(text.encode()).hexdigest()[:32]
        self.parts: dict[str, dict[int, Any]] = {"": {}}
        """Stored results by part name and chunk number (`part`)."""
        self.done = self.parts[""]
        """The results of the main part (the only one of most runs)."""
        self._open()

    def _open(self) -> None:
        try:
            raw = self.path.read_bytes()
        except FileNotFoundError:
            raw = b""
        except OSError as exc:
            raise ClusterError(f"cannot read checkpoint {self.path}: {exc.strerror}") from None
        good = 0  # bytes of whole, valid lines
        lines = raw.split(b"\n")
        for number, line in enumerate(lines[:-1]):  # the part after the last newline is torn
            try:
                entry = json.loads(line)
            except ValueError:
                entry = None
            if number == 0:
                self._check_header(entry)
            elif isinstance(entry, dict) and isinstance(entry.get("chunk"), int):
                store = self.parts.setdefault(str(entry.get("part", "")), {})
                with contextlib.suppress(Exception):  # a damaged line: run that chunk again
                    store[entry["chunk"]] = pickle.loads(base64.b64decode(entry["data"]))
            good += len(line) + 1
        try:
            if not good:
                header = {
                    "fifteentwo_checkpoint": CHECKPOINT_FORMAT,
                    "key": self.key,
                    "params": self.params,
                }
                self.path.parent.mkdir(parents=True, exist_ok=True)
                self._write_atomically(json.dumps(header, default=str).encode() + b"\n")
            elif good != len(raw):
                with self.path.open("r+b") as fh:  # drop the torn tail before appending
                    fh.truncate(good)
        except OSError as exc:
            raise ClusterError(f"cannot write checkpoint {self.path}: {exc.strerror}") from None

    def _check_header(self, entry: object) -> None:
        if not isinstance(entry, dict) or "fifteentwo_checkpoint" not in entry:
            raise ClusterError(f"{self.path} is not a fifteentwo checkpoint file")
        if entry.get("key") != self.key:
            raise ClusterError(
                f"checkpoint {self.path} belongs to a run with other parameters "
                f"({_differences(entry.get('params'), self.params)}); "
                "give another file or delete it"
            )

    def _write_atomically(self, data: bytes) -> None:
        tmp = self.path.with_name(self.path.name + ".tmp")
        with tmp.open("wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        tmp.replace(self.path)

    def part(self, name: str) -> CheckpointPart:
        """The chunks of one phase of a run with several (e.g. a builder's two passes), kept in
        the same file and numbered on their own."""
        return CheckpointPart(self, name)

    def append(self, chunk: int, result: object, part: str = "") -> None:
        """Record one finished chunk (one line, one write, fsynced)."""
        data = base64.b64encode(pickle.dumps(result, protocol=pickle.HIGHEST_PROTOCOL))
        label = json.dumps(part).encode()
        line = b'{"part": %s, "chunk": %d, "data": "%s"}\n' % (label, chunk, data)
        try:
            fd = os.open(self.path, os.O_WRONLY | os.O_APPEND)
            try:
                os.write(fd, line)
                os.fsync(fd)
            finally:
                os.close(fd)
        except OSError as exc:
            raise ClusterError(f"cannot write checkpoint {self.path}: {exc.strerror}") from None
        self.parts.setdefault(part, {})[chunk] = result


class CheckpointPart:
    """One named part of a `Checkpoint` (same file, chunks numbered from 0 again)."""

    def __init__(self, checkpoint: Checkpoint, name: str) -> None:
        self.checkpoint = checkpoint
        self.name = name
        self.done = checkpoint.parts.setdefault(name, {})

    def append(self, chunk: int, result: object) -> None:
        """Record one finished chunk of this part."""
        self.checkpoint.append(chunk, result, self.name)


def _version() -> str:
    try:
        return importlib.metadata.version("fifteentwo")
    except importlib.metadata.PackageNotFoundError:  # pragma: no cover - run from a checkout
        return "unknown"


def _differences(old: object, new: Mapping[str, Any]) -> str:
    """Which parameters differ, for the refusal message."""
    if not isinstance(old, dict):
        return "unknown parameters"
    keys = sorted(set(old) | set(new))
    diff = [
        f"{k}: {old.get(k)!r} there, {new.get(k)!r} now"
        for k in keys
        if json.dumps(old.get(k), default=str) != json.dumps(new.get(k), default=str)
    ]
    return "; ".join(diff[:3]) or "different parameters"


# --- backends ------------------------------------------------------------------------------------


class Backend:
    """Maps a function over work items in order, somewhere. Use as a context manager."""

    name = "backend"
    workers = 1
    """How many chunks run at once (processes, or the cluster's CPUs)."""

    def __init__(self, setup: Callable[[], object] | None = None) -> None:
        self.setup = setup
        self._key = _setup_key(setup)

    def describe(self) -> str:
        """A few words for a progress line, e.g. ``2 processes`` or ``Ray at HOST:6379, 8 CPUs``."""
        return self.name

    def window(self) -> int:
        """How many chunks may be in flight at once: enough to keep every worker busy while
        the oldest result is awaited, few enough that a huge run is never submitted whole."""
        return 2 * self.workers + 2

    def _imap(self, fn: Callable[[T], R], items: Iterator[T]) -> Generator[R, None, None]:
        raise NotImplementedError

    def map(
        self,
        fn: Callable[[T], R],
        items: Iterable[T],
        *,
        checkpoint: Checkpoint | CheckpointPart | None = None,
    ) -> Generator[R, None, None]:
        """``fn`` over ``items`` (read lazily), results in item order.

        With a ``checkpoint``, chunks it already holds are not run again: their stored results
        are yielded in their place, and every new result is appended to it before it is yielded.
        Stopping early (closing the iterator) cancels what is still in flight.
        """
        if checkpoint is None:
            yield from self._imap(fn, iter(items))
            return
        done = checkpoint.done
        source = enumerate(items)
        held: collections.deque[tuple[int, T]] = collections.deque()
        seen = -1  # the last index read from ``items``
        ended = False

        def pull() -> tuple[int, T] | None:
            nonlocal seen, ended
            pair = next(source, None)
            if pair is None:
                ended = True
            else:
                seen = pair[0]
            return pair

        def todo() -> Iterator[tuple[int, T]]:
            """The items not in the checkpoint, in order (read by the backend as it needs)."""
            while True:
                if held:
                    yield held.popleft()
                    continue
                pair = pull()
                if pair is None:
                    return
                if pair[0] not in done:
                    yield pair

        results = self._imap(_Numbered(fn), todo())
        index = 0
        try:
            while True:
                while seen < index and not ended:  # does item ``index`` exist?
                    pair = pull()
                    if pair is not None and pair[0] not in done:
                        held.append(pair)
                if seen < index:
                    return
                if index in done:
                    yield done[index]
                else:
                    got, result = next(results)
                    assert got == index, (got, index)
                    checkpoint.append(got, result)
                    yield result
                index += 1
        finally:
            results.close()

    def close(self) -> None:
        """Release the processes or the cluster connection."""

    def __enter__(self) -> Backend:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        value: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()


class _Numbered:
    """Carries an item's index through a backend with its result (picklable, unlike a lambda)."""

    def __init__(self, fn: Callable[[Any], Any]) -> None:
        self.fn = fn

    def __call__(self, pair: tuple[int, Any]) -> tuple[int, Any]:
        index, item = pair
        return index, self.fn(item)


class InlineBackend(Backend):
    """Everything in this process: no start-up cost, and the reference for the others."""

    name = "1 process"

    def _imap(self, fn: Callable[[T], R], items: Iterator[T]) -> Generator[R, None, None]:
        _run_setup(self.setup, self._key)
        for item in items:
            yield fn(item)


class ProcessBackend(Backend):
    """A pool of ``jobs`` local processes (spawned: safe with threads, same on every OS).

    A worker process that dies (killed, out of memory) breaks the pool; the pool is started
    again and the chunks that were in flight run again, up to `MAX_RETRIES` times.
    """

    def __init__(
        self,
        jobs: int,
        setup: Callable[[], object] | None = None,
        *,
        max_retries: int = MAX_RETRIES,
    ) -> None:
        super().__init__(setup)
        if jobs < 1:
            raise ClusterError("jobs must be at least 1")
        self.workers = jobs
        self.name = f"{jobs} processes"
        self.max_retries = max_retries
        self._pool: ProcessPoolExecutor | None = None

    def _start(self) -> ProcessPoolExecutor:
        import multiprocessing

        if self._pool is None:
            self._pool = ProcessPoolExecutor(
                self.workers,
                mp_context=multiprocessing.get_context("spawn"),
            )
        return self._pool

    def _imap(self, fn: Callable[[T], R], items: Iterator[T]) -> Generator[R, None, None]:
        pending: collections.deque[tuple[T, Future[R]]] = collections.deque()
        failures = 0
        try:
            while True:
                while len(pending) < self.window():
                    item = next(items, _END)
                    if item is _END:
                        break
                    try:
                        future = self._submit(fn, item)
                    except BrokenProcessPool:  # a worker died since the last result was read
                        failures = self._recover(failures)
                        pending = self._resubmit(fn, pending)
                        future = self._submit(fn, item)
                    pending.append((item, future))
                if not pending:
                    return
                item, future = pending[0]
                try:
                    result = future.result()
                except BrokenProcessPool:
                    failures = self._recover(failures)
                    pending = self._resubmit(fn, pending)
                    continue
                pending.popleft()
                yield result
        finally:
            for _, future in pending:
                future.cancel()

    def _recover(self, failures: int) -> int:
        """One more pool lost: start a fresh one, or give up after `max_retries`."""
        failures += 1
        if failures > self.max_retries:
            raise ClusterError(f"worker processes died {failures} times; giving up") from None
        self._restart()
        return failures

    def _resubmit(
        self, fn: Callable[[T], R], pending: collections.deque[tuple[T, Future[R]]]
    ) -> collections.deque[tuple[T, Future[R]]]:
        """The unfinished items again, on the fresh pool, in order."""
        return collections.deque((it, self._submit(fn, it)) for it, _ in pending)

    def _submit(self, fn: Callable[[T], R], item: T) -> Future[R]:
        # The setup runs inside the first task of each process (not as the pool's initializer),
        # so a setup that raises is reported as that error, as on the other backends.
        return self._start().submit(_call, fn, item, self.setup, self._key)

    def _restart(self) -> None:
        if self._pool is not None:
            self._pool.shutdown(wait=False, cancel_futures=True)
            self._pool = None

    def close(self) -> None:
        if self._pool is not None:
            self._pool.shutdown(wait=True, cancel_futures=True)
            self._pool = None


_END: Final[Any] = object()


def parse_address(address: str) -> str:
    """The address to give ``ray.init``: ``auto``, ``ray://HOST:PORT`` or ``HOST:PORT``
    (a bare host gets Ray's default port 6379).

    >>> parse_address("10.0.0.5"), parse_address("auto"), parse_address("ray://h:10001")
    ('10.0.0.5:6379', 'auto', 'ray://h:10001')
    """
    address = address.strip()
    if not address:
        raise ClusterError("--cluster needs an address: auto, HOST:PORT or ray://HOST:PORT")
    if address in {"auto", "local"}:
        return address
    rest = address.removeprefix("ray://")
    host, sep, port = rest.rpartition(":")
    if not sep:
        host, port = rest, str(DEFAULT_PORT if rest == address else 10001)
    if not host or not port.isdigit() or not 0 < int(port) < 65536 or "/" in host:
        raise ClusterError(
            f"bad cluster address {address!r}: give auto, HOST:PORT or ray://HOST:PORT"
        )
    return f"{address[: len(address) - len(rest)]}{host}:{port}"


def _reachable(address: str, timeout: float = 5.0) -> None:
    """Fail in seconds, with one line, when nothing listens at a HOST:PORT address (Ray
    itself would retry for a minute and then print pages)."""
    if address in {"auto", "local"}:
        return
    host, _, port = address.removeprefix("ray://").rpartition(":")
    try:
        with socket.create_connection((host.strip("[]"), int(port)), timeout=timeout):
            pass
    except OSError as exc:
        reason = exc.strerror or type(exc).__name__
        raise ClusterError(
            f"no Ray cluster answers at {address} ({reason}); start one with "
            "'ray start --head' or check the address"
        ) from None


def _import_ray() -> Any:
    try:
        return _module("ray")
    except ImportError:
        raise ClusterError(f"running on a cluster needs Ray: {INSTALL_HINT}") from None


def _module(name: str) -> Any:
    """An optional dependency, imported when needed (untyped: Ray may not be installed)."""
    return importlib.import_module(name)


def _probe_gcs(address: str, timeout: float = 10.0) -> None:
    """Ask the head's GCS for its cluster id, with a deadline, at the address Ray itself will
    use: ``ray.init`` retries a port that is not Ray's (or a head it cannot reach) for minutes.
    Skipped for ``ray://`` (the client server answers there) and when gRPC is not installed."""
    if address.startswith("ray://") or address == "local":
        return
    try:
        services = _module("ray._private.services")
    except ImportError:  # pragma: no cover - a Ray without it: let ray.init try
        return
    try:
        target = services.canonicalize_bootstrap_address(address)
    except Exception as exc:
        raise ClusterError(f"no Ray cluster found at {address}: {_first_line(exc)}") from None
    if target is None:
        return
    try:
        grpc = _module("grpc")
        gcs_service_pb2 = _module("ray.core.generated.gcs_service_pb2")
        gcs_service_pb2_grpc = _module("ray.core.generated.gcs_service_pb2_grpc")
    except ImportError:  # pragma: no cover - Ray without gRPC: let ray.init try
        return
    channel = grpc.insecure_channel(target)
    try:
        stub = gcs_service_pb2_grpc.NodeInfoGcsServiceStub(channel)
        stub.GetClusterId(gcs_service_pb2.GetClusterIdRequest(), timeout=timeout)
    except grpc.RpcError as exc:
        via = "" if target == address else f" (reached as {target})"
        raise ClusterError(
            f"no Ray cluster answers at {address}{via}: {exc.code().name.lower()}; start one "
            "with 'ray start --head' or check the address"
        ) from None
    finally:
        channel.close()


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    return text[0] if text else type(exc).__name__


class RayBackend(Backend):
    """Chunks as Ray tasks on a cluster: one CPU each, at most `window` in flight, retried up
    to ``max_retries`` times when their worker dies (a task that raises is not retried: games
    are deterministic, so it would raise again)."""

    def __init__(
        self,
        address: str,
        setup: Callable[[], object] | None = None,
        *,
        max_retries: int = MAX_RETRIES,
        workers: int | None = None,
    ) -> None:
        super().__init__(setup)
        self.address = parse_address(address)
        self.ray = _import_ray()
        _reachable(self.address)
        _probe_gcs(self.address)
        self._owns_connection = not self.ray.is_initialized()
        if self._owns_connection:
            try:
                self.ray.init(
                    address=self.address,
                    log_to_driver=False,
                    logging_level="ERROR",
                    configure_logging=True,
                )
            except Exception as exc:
                raise ClusterError(
                    f"cannot connect to the Ray cluster at {self.address}: {_first_line(exc)}"
                ) from None
        cpus = int(self.ray.cluster_resources().get("CPU", 0))
        if cpus < 1:
            self.close()
            raise ClusterError(f"the Ray cluster at {self.address} has no CPUs to run on")
        self.cpus = cpus
        self.workers = cpus if workers is None else max(1, min(workers, cpus))
        self.name = f"Ray at {self.address}, {cpus} CPUs"
        self._remote = self.ray.remote(num_cpus=1, max_retries=max_retries)(_call)

    def _imap(self, fn: Callable[[T], R], items: Iterator[T]) -> Generator[R, None, None]:
        ray = self.ray
        fn_ref = ray.put(fn)  # shipped once, not with every chunk
        setup_ref = ray.put(self.setup)
        pending: collections.deque[Any] = collections.deque()
        try:
            while True:
                while len(pending) < self.window():
                    item = next(items, _END)
                    if item is _END:
                        break
                    pending.append(self._remote.remote(fn_ref, item, setup_ref, self._key))
                if not pending:
                    return
                ref = pending.popleft()
                yield self._get(ref)
        finally:
            for ref in pending:
                with contextlib.suppress(Exception):  # best effort on the way out
                    ray.cancel(ref, force=False)

    def _get(self, ref: Any) -> Any:
        exceptions = self.ray.exceptions
        try:
            return self.ray.get(ref)
        except exceptions.RayTaskError as exc:
            cause = getattr(exc, "cause", None)
            if isinstance(cause, BaseException):
                raise cause from None  # the same error the local backend would raise
            raise ClusterError(f"a task failed on the cluster: {_first_line(exc)}") from None
        except (exceptions.WorkerCrashedError, exceptions.NodeDiedError) as exc:
            raise ClusterError(
                f"a chunk's worker died more than {MAX_RETRIES} times: {_first_line(exc)}"
            ) from None
        except exceptions.RayError as exc:
            raise ClusterError(f"the Ray cluster failed: {_first_line(exc)}") from None

    def close(self) -> None:
        if self._owns_connection and self.ray.is_initialized():
            self.ray.shutdown()
        self._owns_connection = False


def open_backend(
    cluster: str | None = None,
    jobs: int = 0,
    *,
    setup: Callable[[], object] | None = None,
    max_retries: int = MAX_RETRIES,
) -> Backend:
    """The backend a command asked for: Ray at ``cluster`` when given, else ``jobs`` local
    processes (0: every core; 1: this process). ``setup`` runs once in each worker first."""
    if cluster is not None:
        return RayBackend(cluster, setup, max_retries=max_retries)
    if jobs < 0:
        raise ClusterError("jobs must be 0 (all cores) or more")
    jobs = jobs or os.cpu_count() or 1
    if jobs == 1:
        return InlineBackend(setup)
    return ProcessBackend(jobs, setup, max_retries=max_retries)


def add_cluster_arguments(parser: argparse.ArgumentParser) -> None:
    """Add ``--cluster ADDRESS`` and ``--checkpoint FILE`` to a self-play command's parser."""
    parser.add_argument(
        "--cluster",
        metavar="ADDRESS",
        help="run on the Ray cluster at ADDRESS: auto, HOST:PORT or ray://HOST:PORT "
        f"(needs {INSTALL_HINT}; default: local processes)",
    )
    parser.add_argument(
        "--checkpoint",
        metavar="FILE",
        type=Path,
        help="append finished work to FILE, and resume from it when the same run is started again",
    )


def chunked(items: Iterable[T], size: int) -> Iterator[list[T]]:
    """Consecutive lists of ``size`` items (the last may be shorter), read lazily.

    >>> list(chunked(range(5), 2))
    [[0, 1], [2, 3], [4]]
    """
    if size < 1:
        raise ValueError("chunk size must be at least 1")
    chunk: list[T] = []
    for item in items:
        chunk.append(item)
        if len(chunk) == size:
            yield chunk
            chunk = []
    if chunk:
        yield chunk


if __name__ == "__main__":  # pragma: no cover
    sys.exit("fifteentwo.cluster is a library; see docs/cluster.md")
