"""The Python half of optbench's Python twins (workloads/python/python_twin.h):
a workload built from a JSON spec, stepped on request over a pipe, so a case
can time what a Python user's loop costs beside the C++ one.

Started as `python step_server.py` by the C++ side. Protocol, one line each way:
  first line in   the spec: {"family": ..., "inner_steps": n, "device": ...,
                  "threads": n, ...the family's own fields}
  "ready <json>"  the workload is built; json: torch's version and the
                  workload's one-time figures (compile, trace, freeze seconds)
  "step"          n calls of the workload's step(); on CUDA synchronised before
                  the reply ("ok"), so the C++ side's host clock brackets it all
  "ping"          "pong" at once: the pipe's round trip, measured by the C++ side
  "output"        "output <numel>", then numel float32 values (native byte order,
                  the C++ side's) of what verification compares
  "quit"          ends at once (os._exit: no interpreter finalization, which no
                  budget estimate counts)
Anything else, or an exception, ends the process with a traceback on stdout,
whose last line the C++ side reports.

Families: one module each beside this file (FAMILIES), with
build(torch, spec) -> an object with step(), output() and metrics()."""
import json
import os
import sys

sys.dont_write_bytecode = True  # the family modules are in the source tree: leave it as it is
HERE = os.path.dirname(os.path.abspath(__file__))
# Not the working directory (python puts the script's folder first, and the
# caller's folder may hold a module that shadows the standard library's).
sys.path[:] = [HERE] + [p for p in sys.path if p not in ("", ".", HERE)]

FAMILIES = {
    "convnet_inference": "twin_convnet",  # the torchscript experiment
    "adamw_step": "twin_adamw",  # the fused_optimizer experiment
}


def main():
    spec = json.loads(sys.stdin.readline())
    import torch

    torch.set_num_threads(int(spec["threads"]))
    family = __import__(FAMILIES[spec["family"]])
    work = family.build(torch, spec)
    inner = int(spec["inner_steps"])
    cuda = str(spec["device"]).startswith("cuda")
    out = sys.stdout
    out.write("ready " + json.dumps({"python_torch": torch.__version__, **work.metrics()}) + "\n")
    out.flush()
    for line in sys.stdin:
        cmd = line.strip()
        if cmd == "step":
            for _ in range(inner):
                work.step()
            if cuda:
                torch.cuda.synchronize()
            out.write("ok\n")
        elif cmd == "ping":
            out.write("pong\n")
        elif cmd == "output":
            t = work.output().detach().to("cpu", torch.float32).contiguous().flatten()
            out.write("output %d\n" % t.numel())
            out.flush()
            out.buffer.write(t.numpy().tobytes())
        else:
            break
        out.flush()
    os._exit(0)


if __name__ == "__main__":
    try:
        main()
    except BaseException:
        import traceback

        traceback.print_exc(file=sys.stdout)
        sys.stdout.flush()
        os._exit(1)
