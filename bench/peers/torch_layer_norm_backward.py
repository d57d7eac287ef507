"""PyTorch's native_layer_norm_backward on one shape, timed as aclnn_host_layer_norm_backward.cpp
times aclnn-host (best mean over 5 rounds of 5 calls back to back).

Usage: torch_layer_norm_backward.py M N f32|bf16 THREADS ; prints "GB/s <value>".
The out= variant reuses the output tensors, so page faults of fresh outputs are not timed.
"""
import sys
import time

import torch


def main():
    rows, cols, dtype_name, threads = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3], int(sys.argv[4])
    torch.set_num_threads(threads)
    dtype = torch.bfloat16 if dtype_name == "bf16" else torch.float32
    generator = torch.Generator().manual_seed(7)
    grad_out = torch.randn(rows, cols, generator=generator).to(dtype)
    x = torch.randn(rows, cols, generator=generator).to(dtype)
    # PyTorch's CPU kernel wants the statistics in the input's dtype.
    mean = torch.zeros(rows, 1, dtype=dtype)
    rstd = torch.ones(rows, 1, dtype=dtype)
    weight = torch.ones(cols, dtype=dtype)
    bias = torch.zeros(cols, dtype=dtype)
    outputs = (torch.empty_like(x), torch.empty_like(weight), torch.empty_like(weight))
    backward = torch.ops.aten.native_layer_norm_backward.out

    def call():
        backward(grad_out, x, [cols], mean, rstd, weight, bias, [True, True, True],
                 out0=outputs[0], out1=outputs[1], out2=outputs[2])

    call()
    best = float("inf")
    for _ in range(5):
        iterations = 5
        start = time.perf_counter()
        for _ in range(iterations):
            call()
        best = min(best, (time.perf_counter() - start) / iterations)
    element = 2 if dtype == torch.bfloat16 else 4
    print("GB/s %.3f" % (3.0 * element * rows * cols / best / 1e9))


if __name__ == "__main__":
    main()
