"""tf.data service servers: `python -m estimator_multigpu.data_service`.

`--dispatcher [--port=5050] [--work_dir=DIR]` starts TensorFlow's
`DispatchServer` (with `--work_dir`, in fault-tolerant mode: it journals its
state there and a restarted dispatcher resumes its jobs);
`--worker --dispatcher_address=host:port [--port=0]` starts a `WorkerServer`
that registers with it. Each prints its address and serves until stopped.
"""

from __future__ import annotations

import argparse
import errno
import os
import socket
import sys
import time

import tensorflow as tf

_service = tf.data.experimental.service
__all__ = ["main", "start_dispatcher", "start_worker"]

_GC_CHECK_MS = 600_000  # DispatcherConfig's default job_gc_check_interval_ms.
CONNECT_TIMEOUT = 30.0  # Seconds to wait for a dispatcher to listen.
_CONNECT_RETRY_SECONDS = 0.2
NO_WORK_DIR_NOTE = (
    "note: no --work_dir: this dispatcher keeps its jobs in memory only. If it "
    "restarts, consumers reading a job fail with NotFoundError ('Unknown "
    "iteration client id', 'Iteration id ... not found'): the new dispatcher "
    "never saw that job. Start it with --work_dir=DIR "
    "(fault-tolerant mode: it journals its state there, and a restarted "
    "dispatcher with the same --work_dir resumes the jobs)."
)


def address_problem(address) -> str | None:
    """What is wrong with a `'[grpc://]host:port'` address, or None if nothing.

    The scheme, if any, must be `grpc://`, the host non-empty and the port
    a number 1-65535.
    """
    if not isinstance(address, str):
        return f"a string is needed, not {type(address).__name__}"
    scheme, sep, rest = address.partition("://")
    if sep and scheme != "grpc":
        return (
            f"the service speaks grpc://, not {scheme}://: use 'grpc://{rest}' "
            f"or '{rest}'"
        )
    host, colon, port = address.removeprefix("grpc://").rpartition(":")
    if not colon:
        return "no :port"
    if not host:
        return "the host is empty"
    if not (port.isdigit() and 1 <= int(port) <= 65535):
        return f"the port must be a number 1-65535, not {port!r}"
    return None


def check_timeout(connect_timeout, argument: str = "connect_timeout") -> None:
    """Raises ValueError unless `connect_timeout` is None or a number > 0."""
    if connect_timeout is None:
        return
    if (
        isinstance(connect_timeout, bool)
        or not isinstance(connect_timeout, (int, float))
        or not connect_timeout > 0
    ):
        raise ValueError(
            f"`{argument}` must be a number of seconds > 0 (or None to wait "
            f"as long as TensorFlow does), got {connect_timeout!r}."
        )


def wait_for_dispatcher(address: str, timeout: float | None, argument: str) -> None:
    """Waits up to `timeout` s for a server to listen at the dispatcher's address.

    TensorFlow itself retries a dispatcher nobody listens on for ever (a
    worker's registration, a consumer's `distribute`), holding the thread.

    Args:
      address: the dispatcher's `[grpc://]host:port`, already checked.
      timeout: seconds to keep retrying; None: do not wait (no check).
      argument: the argument `address` came from, for the message.

    Raises:
      ConnectionError: nothing accepted a connection there in `timeout` s.
    """
    if timeout is None:
        return
    host, _, port = address.removeprefix("grpc://").rpartition(":")
    deadline = time.monotonic() + timeout
    while True:
        left = deadline - time.monotonic()
        try:
            with socket.create_connection(
                (host.strip("[]"), int(port)), max(left, 0.1)
            ):
                return
        except OSError as error:
            reason = error.strerror or str(error)
        if left <= 0:
            break
        time.sleep(min(_CONNECT_RETRY_SECONDS, left))
    raise ConnectionError(
        f"`{argument}` {address!r}: no tf.data service dispatcher listens there "
        f"(tried for {timeout:g} s: {reason}). Is the dispatcher started? Start "
        "it first (python -m estimator_multigpu.data_service --dispatcher "
        f"--port={port}), check the host and port, or wait longer "
        "(connect_timeout=, --connect_timeout)."
    )


def start_dispatcher(
    port: int = 0, work_dir: str | None = None, worker_timeout_ms: int | None = None
):
    """Starts a `DispatchServer`; fault tolerant when `work_dir` is given.

    Args:
      port: the port to serve on (0: any free one).
      work_dir: where the dispatcher journals its state, so that a restart
        with the same folder resumes the running epochs (None: a restart
        forgets them and the consumers fail).
      worker_timeout_ms: how long a silent worker counts as alive; it also
        shortens how often the dispatcher looks for lost workers (by default
        every 10 minutes, with job garbage collection).

    Returns:
      The started `tf.data.experimental.service.DispatchServer`.
    """
    check_ms = min(worker_timeout_ms, _GC_CHECK_MS) if worker_timeout_ms else None
    config = _service.DispatcherConfig(
        job_gc_check_interval_ms=check_ms,
        port=port,
        work_dir=work_dir,
        fault_tolerant_mode=bool(work_dir),
        worker_timeout_ms=worker_timeout_ms,
    )
    return _service.DispatchServer(config)


def start_worker(
    dispatcher_address: str,
    port: int = 0,
    heartbeat_interval_ms: int | None = None,
    connect_timeout: float | None = CONNECT_TIMEOUT,
):
    """Starts a `WorkerServer` registered with the dispatcher.

    Args:
      dispatcher_address: the dispatcher's `host:port` (`grpc://` optional).
      port: the port to serve on (0: any free one).
      heartbeat_interval_ms: how often the worker reports to the dispatcher
        (None: TensorFlow's default).
      connect_timeout: seconds to wait for the dispatcher to listen before
        failing (None: wait as TensorFlow does, for ever).

    Returns:
      The started `tf.data.experimental.service.WorkerServer`.

    Raises:
      ValueError: a malformed `dispatcher_address` or `connect_timeout`.
      ConnectionError: no dispatcher listens there within `connect_timeout`.
    """
    problem = address_problem(dispatcher_address)
    if problem:
        raise ValueError(
            "`dispatcher_address` must be 'host:port' or 'grpc://host:port', "
            f"got {dispatcher_address!r}: {problem}."
        )
    check_timeout(connect_timeout)
    wait_for_dispatcher(dispatcher_address, connect_timeout, "dispatcher_address")
    config = _service.WorkerConfig(
        dispatcher_address=dispatcher_address.removeprefix("grpc://"),
        port=port,
        heartbeat_interval_ms=heartbeat_interval_ms,
    )
    return _service.WorkerServer(config)


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="python -m estimator_multigpu.data_service",
        description="Start a tf.data service dispatcher or worker.",
    )
    role = p.add_mutually_exclusive_group(required=True)
    role.add_argument("--dispatcher", action="store_true")
    role.add_argument("--worker", action="store_true")
    p.add_argument("--port", type=int, default=None, help="0 picks a free port")
    p.add_argument("--work_dir", default=None, help="dispatcher journal folder")
    p.add_argument("--worker_timeout_ms", type=int, default=None)
    p.add_argument("--dispatcher_address", default=None, help="host:port")
    p.add_argument("--heartbeat_interval_ms", type=int, default=None)
    p.add_argument(
        "--connect_timeout",
        type=float,
        default=None,
        help=f"seconds a worker waits for the dispatcher (default {CONNECT_TIMEOUT:g})",
    )
    return p


def _role_problem(args) -> str | None:
    """Why a flag does not go with the server's role (dispatcher or worker)."""
    if args.worker and not args.dispatcher_address:
        return "--worker needs --dispatcher_address=host:port"
    if args.dispatcher and args.dispatcher_address:
        return "--dispatcher_address is for --worker; drop it"
    if args.worker and (args.work_dir or args.worker_timeout_ms):
        return "--work_dir and --worker_timeout_ms are for --dispatcher"
    if args.dispatcher and args.heartbeat_interval_ms:
        return "--heartbeat_interval_ms is for --worker"
    if args.dispatcher and args.connect_timeout is not None:
        return "--connect_timeout is for --worker"
    return None


def _check(parser: argparse.ArgumentParser, args) -> None:
    if args.port is not None and not 0 <= args.port <= 65535:
        parser.error(f"--port must be 0..65535, got {args.port}")
    problem = _role_problem(args)
    if problem:
        parser.error(problem)
    if args.connect_timeout is not None and not args.connect_timeout > 0:
        parser.error(
            f"--connect_timeout must be > 0 seconds, got {args.connect_timeout:g}"
        )
    _check_paths(parser, args)


def _port(args) -> int:
    """The port the server will listen on (0: any free one)."""
    if args.dispatcher:
        return 5050 if args.port is None else args.port
    return args.port or 0


def _port_in_use(port: int) -> bool:
    """Whether a process listens on `port` of every interface, as servers bind."""
    with socket.socket() as sock:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            sock.bind(("", port))
        except OSError as error:
            if error.errno == errno.EADDRINUSE:
                return True
            raise
    return False


def _check_paths(parser: argparse.ArgumentParser, args) -> None:
    """The dispatcher's address and the journal folder, before anything starts."""
    if args.dispatcher_address:
        problem = address_problem(args.dispatcher_address)
        if problem:
            parser.error(
                "--dispatcher_address must be host:port (or grpc://host:port) "
                f"with a non-empty host and a port 1-65535, got "
                f"{args.dispatcher_address!r}: {problem}"
            )
    port = _port(args)
    if port and _port_in_use(port):
        parser.error(
            f"--port {port} is in use by another process (a server already "
            "running there?): stop it, or choose another --port (--port=0 "
            "picks a free one)"
        )
    work_dir = args.work_dir
    if (
        work_dir is not None
        and os.path.exists(work_dir)
        and not os.path.isdir(work_dir)
    ):
        parser.error(
            f"--work_dir {work_dir!r} is a file, not a folder: give a folder "
            "(it is created if missing) for the dispatcher's journal"
        )


def main(argv: list[str] | None = None) -> int:
    """`python -m estimator_multigpu.data_service --dispatcher|--worker ...`.

    Checks the arguments (exit 2 with the reason before anything starts),
    then serves until stopped; a worker whose dispatcher does not listen
    within `--connect_timeout` seconds exits with status 1.
    """
    parser = _parser()
    args = parser.parse_args(argv)
    _check(parser, args)
    if args.dispatcher:
        server = start_dispatcher(_port(args), args.work_dir, args.worker_timeout_ms)
        if not args.work_dir:  # Before the banner, which callers wait for.
            print(NO_WORK_DIR_NOTE, file=sys.stderr, flush=True)
        print(f"dispatcher listening on {server.target}", flush=True)
    else:
        timeout = args.connect_timeout or CONNECT_TIMEOUT
        try:
            server = start_worker(
                args.dispatcher_address,
                _port(args),
                args.heartbeat_interval_ms,
                timeout,
            )
        except ConnectionError as error:
            print(f"error: {error}", file=sys.stderr, flush=True)
            return 1
        print(f"worker of {args.dispatcher_address} started", flush=True)
    server.join()
    return 0


if __name__ == "__main__":
    sys.exit(main())
