"""The torchscript experiment's Python twin (workloads/torchscript.cpp): the
ConvNet of workloads/models/convnet.h rebuilt as torch.nn layers from the
layer list C++ sends, inference under torch.no_grad() as a Python user runs
it: eager, torch.jit.script, torch.jit.trace, or scripted then
torch.jit.freeze + torch.jit.optimize_for_inference.

Spec fields (besides step_server.py's): layers (the C++ layer list, to_json of
each LayerSpec), batch, image, seed, input_seed, jit (eager, script, trace or
frozen). The weights are seeded here the way make_convnet seeds them in C++
(seeded init, BatchNorm affine parameters drawn away from 1 and 0, running
statistics from one seeded batch), not copied: verification compares the
twin's variants with the twin's eager one."""

import time

from convnet_layers import build_net


def calibrate(torch, net, image, seed):
    """Non-trivial BatchNorm: every BN a real per-channel affine map, so folding it
    into the convolution changes the weights (as make_convnet's calibrate)."""
    bns = [m for m in net if isinstance(m, torch.nn.BatchNorm2d)]
    with torch.no_grad():
        for bn in bns:
            bn.weight.uniform_(0.5, 1.5)
            bn.bias.uniform_(-0.2, 0.2)
            bn.momentum = 1.0
        net.train()
        g = torch.Generator().manual_seed(seed + 1)
        net(torch.randn(8, 3, image, image, generator=g))
        for bn in bns:
            bn.momentum = 0.1
    net.eval()


class ConvNetInference:
    def __init__(self, torch, spec):
        self.torch = torch
        device = spec["device"]
        torch.manual_seed(int(spec["seed"]))
        net = build_net(torch.nn, spec["layers"])
        calibrate(torch, net, int(spec["image"]), int(spec["seed"]))
        net = net.to(device)
        g = torch.Generator().manual_seed(int(spec["input_seed"]))
        b, s = int(spec["batch"]), int(spec["image"])
        self.x = torch.randn(b, 3, s, s, generator=g).to(device)
        self.times = {}
        jit = spec["jit"]
        t0 = time.perf_counter()
        with torch.no_grad():
            if jit == "eager":
                self.model = net
            elif jit == "script":
                self.model = torch.jit.script(net)
                self.times["script_compile_s"] = time.perf_counter() - t0
            elif jit == "trace":
                self.model = torch.jit.trace(net, self.x)
                self.times["trace_s"] = time.perf_counter() - t0
            elif jit == "frozen":
                scripted = torch.jit.script(net)
                t1 = time.perf_counter()
                frozen = torch.jit.freeze(scripted)
                t2 = time.perf_counter()
                self.model = torch.jit.optimize_for_inference(frozen)
                self.times.update(
                    script_compile_s=t1 - t0, freeze_s=t2 - t1, optimize_for_inference_s=time.perf_counter() - t2
                )
            else:
                raise ValueError("unknown jit mode %r" % (jit,))
        self.out = None

    def step(self):
        with self.torch.no_grad():
            self.out = self.model(self.x)

    def output(self):
        with self.torch.no_grad():
            return self.model(self.x)

    def metrics(self):
        return self.times


def build(torch, spec):
    # fp32 like the C++ variants (compat::strict_fp32): no TF32 anywhere.
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    return ConvNetInference(torch, spec)
