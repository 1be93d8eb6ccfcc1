#!/usr/bin/env python3
"""Generates the inspection target's segmentation model (`inspection_seg`), a tiny hand-weighted
ONNX net, byte for byte the same on every run.

Input  `image`: float32 NCHW [1, 3, 48, 64], RGB in 0..1 (the simulator's 64x48 rgb8 camera / 255).
Output `score`: float32 [1, 1, 48, 64], per pixel the score (0..1) that it shows the target.

The target is the `inspection_target` mast, drawn magenta (`color_rgb: [230, 30, 210]` in
worlds/inspection.yaml): red and blue high, green low. Nothing else the simulator draws is:
its sky, ground, vehicles and palette colours all have green at least about a quarter of red
plus blue. So:

1. a 1x1 convolution gives each pixel the logit GAIN * (r + b - 4 g - BIAS); the feature
   r + b - 4 g is 1.25 for the mast's colour up close, still 0.50 at the camera's far plane (the
   renderer darkens with distance, to 40 % at 40 m), 0.20 for the palette's purple, below 0.05
   for everything else;
2. a 3x3 mean convolution (zero padded: size kept) averages the logits of each pixel's
   neighbourhood, so an isolated pixel cannot become a detection, and a blob's edge moves by
   the same amount on every side (its centre stays put);
3. a sigmoid turns the logit into the score; the node thresholds it (`score_threshold`, 0.5).

Usage (needs the `onnx` package): `python3 model/generate_model.py [OUT]`, OUT defaulting to
artifacts/inspection_seg/model.onnx next to this directory. After regenerating, rewrite the
artifact's manifest and signature (`model_sign manifest` then `model_sign sign`, see the
package README).
"""

import pathlib
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

HEIGHT, WIDTH = 48, 64
# The logit's slope: a feature 0.15 above BIAS already scores sigmoid(2.4) = 0.92.
GAIN = 16.0
# Between the palette's purple (0.20) and the mast at the far plane (0.50).
BIAS = 0.35
# Opset and IR version fixed so the bytes do not follow the installed onnx's defaults.
OPSET = 13
IR_VERSION = 7


def build() -> onnx.ModelProto:
    colour_weights = numpy_helper.from_array(
        (GAIN * np.array([1.0, -4.0, 1.0], dtype=np.float32)).reshape(1, 3, 1, 1), "colour_w")
    colour_bias = numpy_helper.from_array(np.array([-GAIN * BIAS], dtype=np.float32), "colour_b")
    smooth_weights = numpy_helper.from_array(
        np.full((1, 1, 3, 3), 1.0 / 9.0, dtype=np.float32), "smooth_w")
    nodes = [
        helper.make_node("Conv", ["image", "colour_w", "colour_b"], ["logit"], name="colour",
                         kernel_shape=[1, 1]),
        helper.make_node("Conv", ["logit", "smooth_w"], ["smoothed"], name="smooth",
                         kernel_shape=[3, 3], pads=[1, 1, 1, 1]),
        helper.make_node("Sigmoid", ["smoothed"], ["score"], name="score"),
    ]
    graph = helper.make_graph(
        nodes,
        "inspection_seg",
        [helper.make_tensor_value_info("image", TensorProto.FLOAT, [1, 3, HEIGHT, WIDTH])],
        [helper.make_tensor_value_info("score", TensorProto.FLOAT, [1, 1, HEIGHT, WIDTH])],
        initializer=[colour_weights, colour_bias, smooth_weights],
    )
    model = helper.make_model(graph, producer_name="fieldproof generate_model.py",
                              producer_version="1", opset_imports=[helper.make_opsetid("", OPSET)])
    model.ir_version = IR_VERSION
    model.doc_string = ("inspection_seg: per-pixel score of the magenta inspection target in a "
                        "64x48 RGB image (hand-weighted, generated; not trained)")
    onnx.checker.check_model(model)
    return model


def main() -> None:
    default = pathlib.Path(__file__).resolve().parents[1] / "artifacts/inspection_seg/model.onnx"
    out = pathlib.Path(sys.argv[1]) if len(sys.argv) > 1 else default
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_bytes(build().SerializeToString())
    print(f"wrote {out}")


if __name__ == "__main__":
    main()
