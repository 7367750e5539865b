"""The fused_optimizer experiment's Python twin (workloads/fused_optimizer.cpp):
torch.optim.AdamW's step alone over the parameter shapes C++ sends, as a
Python user calls it: foreach=False (the Python loop over parameters, the
default on a CPU), foreach=True (multi-tensor _foreach_ ops) or fused=True
(one _fused_adamw_ call).

Spec fields (besides step_server.py's): shapes (one list per parameter
tensor, in the C++ model's order), impl (per_tensor, foreach or fused),
lr, beta1, beta2, eps, weight_decay (workloads/training/adamw.h's
AdamWConfig), check_steps. Output: the parameters after check_steps steps
from the same start, as the C++ case's."""


def before_fork(torch):
    """The first optimizer a process builds imports torch._dynamo (about 1 s on
    a 2-core VM): built once in the zygote, every twin forked after has it."""
    torch.optim.AdamW([torch.nn.Parameter(torch.zeros(1))])


class AdamWStep:
    def __init__(self, torch, spec):
        self.torch, self.spec = torch, spec
        impl = spec["impl"]
        if impl not in ("per_tensor", "foreach", "fused"):
            raise ValueError("unknown AdamW implementation %r" % (impl,))
        self.kw = {"foreach": impl == "foreach", "fused": True if impl == "fused" else None}
        self.reset()

    def reset(self):
        torch, spec = self.torch, self.spec
        device = spec["device"]
        g = torch.Generator().manual_seed(0)
        self.params = [torch.nn.Parameter(torch.randn(s, generator=g).to(device)) for s in spec["shapes"]]
        g = torch.Generator().manual_seed(1)
        for p in self.params:  # fixed gradients, as the C++ case's step alone
            p.grad = torch.randn(p.shape, generator=g).to(device)
        self.opt = torch.optim.AdamW(
            self.params,
            lr=spec["lr"],
            betas=(spec["beta1"], spec["beta2"]),
            eps=spec["eps"],
            weight_decay=spec["weight_decay"],
            **self.kw,
        )

    def step(self):
        self.opt.step()

    def output(self):
        self.reset()
        for _ in range(int(self.spec["check_steps"])):
            self.step()
        out = self.torch.cat([p.detach().flatten() for p in self.params])
        self.reset()
        return out

    def metrics(self):
        return {"parameter_tensors": len(self.params), "foreach": self.kw["foreach"], "fused": bool(self.kw["fused"])}


def build(torch, spec):
    return AdamWStep(torch, spec)
