"""The Python half of the AOTInductor experiment (workloads/aot_inductor.cpp), run by
workloads/aoti/package.cpp as `python export_aoti.py SPEC RESULT` in the package's
folder. It rebuilds the C++ ConvNet as torch.nn layers from the layer list with
convnet_layers.py (beside it: spec python_dir), loads the float32 weights C++
wrote, and follows the documented AOTInductor route: torch.export.export under
no_grad, then torch._inductor.aoti_compile_and_package (Inductor defaults, as
torch.compile's default mode). Any failure ends in one marked line."""

import json
import sys
import time
import traceback


def load_weights(torch, model, layers, blob):
    with torch.no_grad():
        for i, (m, layer) in enumerate(zip(model, layers)):
            for t in layer["tensors"]:
                start, numel = t["offset"], t["numel"]
                end = start + 4 * numel
                if end > len(blob):
                    raise ValueError("weights file ends before layer %d %s" % (i, t["name"]))
                src = torch.frombuffer(bytearray(blob[start:end]), dtype=torch.float32).reshape(t["shape"])
                dst = getattr(m, t["name"])
                if list(dst.shape) != list(src.shape):
                    raise ValueError("layer %d %s: shape %s, weights %s" % (i, t["name"], list(dst.shape), t["shape"]))
                dst.copy_(src)


def main():
    with open(sys.argv[1]) as f:
        spec = json.load(f)
    if sys.byteorder != "little":
        raise RuntimeError("the weights are little-endian float32 and this host is not little-endian")
    import torch
    import torch._inductor
    import torch.export

    sys.path.insert(0, spec["python_dir"])  # the C++ layer list's one Python reading
    from convnet_layers import build_net

    model = build_net(torch.nn, spec["layers"])
    with open(spec["weights"], "rb") as f:
        load_weights(torch, model, spec["layers"], f.read())
    device = spec["device"]
    # fp32 like the C++ variants: nothing compiled in may assume TF32.
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    model = model.eval().to(device)
    x = torch.randn(spec["input_shape"], device=device)
    with torch.no_grad():
        t0 = time.perf_counter()
        ep = torch.export.export(model, (x,))
        t1 = time.perf_counter()
        path = torch._inductor.aoti_compile_and_package(ep, package_path=spec["package"])
        t2 = time.perf_counter()
    with open(sys.argv[2], "w") as f:
        json.dump(
            {"torch_version": torch.__version__, "export_s": t1 - t0, "compile_s": t2 - t1, "package": str(path)}, f
        )


if __name__ == "__main__":
    try:
        main()
    except BaseException as e:
        traceback.print_exc()
        lines = str(e).strip().splitlines()
        first = (": " + lines[0].strip()) if lines else ""
        print("OPTBENCH_AOTI_ERROR: " + type(e).__name__ + first, flush=True)
        sys.exit(1)
