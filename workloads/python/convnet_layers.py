"""The C++ ConvNet's layer list (workloads/models/convnet.h, to_json of each
LayerSpec) as torch.nn layers: the one Python reading of it, for the torchscript
experiment's Python twin (twin_convnet.py) and AOTInductor's export script
(workloads/python/export_aoti.py), so a layer kind added in C++ is mapped once."""


def build_net(nn, layers):
    mods = []
    for layer in layers:
        k = layer["kind"]
        if k == "conv2d":
            m = nn.Conv2d(
                layer["in"], layer["out"], layer["kernel"], stride=layer["stride"], padding=layer["padding"], bias=False
            )
        elif k == "batch_norm2d":
            m = nn.BatchNorm2d(layer["features"], eps=layer["eps"])
        elif k == "relu":
            m = nn.ReLU()
        elif k == "global_avg_pool":
            m = nn.AdaptiveAvgPool2d(1)
        elif k == "flatten":
            m = nn.Flatten(1, -1)
        elif k == "linear":
            m = nn.Linear(layer["in"], layer["out"], bias=layer["bias"])
        else:
            raise ValueError("unknown layer kind %r" % (k,))
        mods.append(m)
    return nn.Sequential(*mods)
