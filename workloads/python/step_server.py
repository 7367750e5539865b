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
build(torch, spec) -> an object with step(), output() and metrics(), and
optionally before_fork(torch): what the zygote does once, before it forks the
family's first twin, so that each twin does not pay it after its fork.

`python step_server.py --zygote` imports torch once and forks each twin from
there, so a case's variants do not each pay the interpreter's start (2-4 s on a
2-core VM, most of a further process's time): each twin is still a process of
its own. Protocol, one line each way:
  "fork <family> <path>"
                  forks a twin of that family, which connects to the Unix
                  socket at path ("@name": abstract) and serves the protocol
                  above over it; "forked <pid>"
  "status <pid>"  "status running", "status exited <n>" or
                  "status killed by signal <n> (<name>)": how a twin ended
  "quit"          ends the zygote (its twins end with their sockets)
Nothing here touches CUDA: a twin initialises it after the fork."""

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


def serve():
    """One twin: its spec, then requests until quit or the end of its input."""
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


def how_it_ended(status):
    if os.WIFSIGNALED(status):
        import signal

        sig = os.WTERMSIG(status)
        return "killed by signal %d (%s)" % (sig, signal.Signals(sig).name)
    return "exited %d" % os.waitstatus_to_exitcode(status)


def forked_twin(path):
    """In a child of the zygote: the socket becomes its stdin and stdout, then it
    serves. Until it is connected its stdout is still the zygote's replies, so a
    failure to connect goes to stderr and ends it (the zygote reports the exit)."""
    import socket

    try:
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        s.connect("\0" + path[1:] if path.startswith("@") else path)  # "@name": Linux's abstract namespace
    except BaseException:
        import traceback

        traceback.print_exc(file=sys.stderr)
        os._exit(2)
    # The same sys.stdout object, now writing to the socket (a wrapper a
    # sitecustomize put there stays); a fresh stdin, with nothing read ahead.
    os.dup2(s.fileno(), 0)
    os.dup2(s.fileno(), 1)
    s.close()
    sys.stdin = os.fdopen(0, "r", closefd=False)
    serve()


def zygote():
    import torch  # imported once: every twin forked below starts with it

    ended = {}
    prepared = set()
    for line in sys.stdin:
        cmd, _, arg = line.strip().partition(" ")
        while True:  # the twins that ended, reaped
            try:
                pid, status = os.waitpid(-1, os.WNOHANG)
            except ChildProcessError:
                break
            if pid == 0:
                break
            ended[pid] = how_it_ended(status)
        if cmd == "fork":
            family, _, path = arg.partition(" ")
            if family not in prepared:
                prepared.add(family)
                before_fork = getattr(__import__(FAMILIES[family]), "before_fork", None)
                if before_fork:
                    before_fork(torch)
            sys.stdout.flush()
            pid = os.fork()
            if pid == 0:
                run(lambda a=path: forked_twin(a))
            reply = "forked %d" % pid
        elif cmd == "status":
            reply = "status " + ended.get(int(arg), "running")
        else:
            break
        sys.stdout.write(reply + "\n")
        sys.stdout.flush()


def run(body):
    """Runs body, then ends the process without finalization; an exception's
    traceback goes to stdout, whose last line the C++ side reports."""
    try:
        body()
    except BaseException:
        import traceback

        traceback.print_exc(file=sys.stdout)
        sys.stdout.flush()
        os._exit(1)
    sys.stdout.flush()
    os._exit(0)


if __name__ == "__main__":
    run(zygote if sys.argv[1:] == ["--zygote"] else serve)
