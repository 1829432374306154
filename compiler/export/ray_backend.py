"""Run a build's shards as Ray tasks. The driver collects results in shard order and writes them, so a Ray build
is byte-identical to a local one. Ray is an optional dependency (`pip install tessera[ray]`)."""
from __future__ import annotations

from ..errors import TesseraError


def run_shards(shards, args, address, progress, job, shard_task, worker_died: type[Exception]):
    """The results of `shard_task(args, items)` for each shard's items, in shard order, computed as Ray tasks.
    The build passes its task and its WorkerDied in, so this module imports nothing of the build."""
    try:
        import ray
    except ImportError:
        raise TesseraError("--ray needs the ray package: pip install 'tessera[ray]'") from None
    started_here = not ray.is_initialized()
    if started_here:
        try:
            ray.init(address=address or None, include_dashboard=False, log_to_driver=False,
                     configure_logging=False)
        except Exception as exc:  # noqa: BLE001 - connection problems become a message
            raise TesseraError(f"could not start or reach Ray at {address or 'a local instance'}: {exc}") from None
    try:
        remote = ray.remote(shard_task)
        args_ref = ray.put(args)
        refs = [remote.remote(args_ref, shard) for shard in shards]
        for ref, shard in zip(refs, shards):  # in shard order, each as it is done: the driver writes it at once
            try:
                results = ray.get(ref)
            except ray.exceptions.RayTaskError as exc:  # the task raised: say what, not Ray's traceback
                cause = getattr(exc, "cause", None)
                if isinstance(cause, TesseraError):
                    raise TesseraError(str(cause)) from None
                raise TesseraError(f"a Ray task failed: {type(cause).__name__}: {cause}") from None
            except ray.exceptions.RayError as exc:  # a dead worker or node, a lost object
                raise worker_died(f"a Ray worker died ({type(exc).__name__}: {str(exc).splitlines()[0][:200]})"
                                 ) from None
            if progress:
                progress.advance(job, len(shard))
            yield results
    finally:
        if started_here:
            ray.shutdown()
