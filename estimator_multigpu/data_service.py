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

import tensorflow as tf

_service = tf.data.experimental.service
__all__ = ["main", "start_dispatcher", "start_worker"]

_GC_CHECK_MS = 600_000  # DispatcherConfig's default job_gc_check_interval_ms.
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

    The host must be non-empty and the port a number 1-65535.
    """
    if not isinstance(address, str):
        return f"a string is needed, not {type(address).__name__}"
    host, colon, port = address.removeprefix("grpc://").rpartition(":")
    if not colon:
        return "no :port"
    if not host:
        return "the host is empty"
    if not (port.isdigit() and 1 <= int(port) <= 65535):
        return f"the port must be a number 1-65535, not {port!r}"
    return None


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
    dispatcher_address: str, port: int = 0, heartbeat_interval_ms: int | None = None
):
    """Starts a `WorkerServer` registered with the dispatcher.

    Args:
      dispatcher_address: the dispatcher's `host:port` (`grpc://` optional).
      port: the port to serve on (0: any free one).
      heartbeat_interval_ms: how often the worker reports to the dispatcher
        (None: TensorFlow's default).

    Returns:
      The started `tf.data.experimental.service.WorkerServer`.
    """
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
    return p


def _check(parser: argparse.ArgumentParser, args) -> None:
    if args.port is not None and not 0 <= args.port <= 65535:
        parser.error(f"--port must be 0..65535, got {args.port}")
    if args.worker and not args.dispatcher_address:
        parser.error("--worker needs --dispatcher_address=host:port")
    if args.dispatcher and args.dispatcher_address:
        parser.error("--dispatcher_address is for --worker; drop it")
    if args.worker and (args.work_dir or args.worker_timeout_ms):
        parser.error("--work_dir and --worker_timeout_ms are for --dispatcher")
    if args.dispatcher and args.heartbeat_interval_ms:
        parser.error("--heartbeat_interval_ms is for --worker")
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
    then serves until stopped.
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
        server = start_worker(
            args.dispatcher_address, _port(args), args.heartbeat_interval_ms
        )
        print(f"worker of {args.dispatcher_address} started", flush=True)
    server.join()
    return 0


if __name__ == "__main__":
    sys.exit(main())
