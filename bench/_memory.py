"""Peak memory of the current process, shared by the benchmark workers (stdlib only)."""

import resource


def peak_rss_mb() -> float:
    """Peak resident memory of this process in MiB.

    ``VmHWM`` from /proc (Linux) is reset by ``exec``; ``ru_maxrss`` is not — a
    child inherits its parent's high-water mark across fork + exec — so it is only
    the fallback.
    """
    try:
        with open("/proc/self/status") as status:
            for line in status:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) / 1024
    except OSError:
        pass
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
