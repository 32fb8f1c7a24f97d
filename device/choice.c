/* choice.c — opts.device resolved to where the stages run (choice.h). */
#include "device/choice.h"

#include <stdio.h>
#include <string.h>

#include "device/cuda_runtime.h"
#include "pq_reader.h"

void pq_device_choose(uint32_t device, pq_device_choice *out)
{
    memset(out, 0, sizeof *out);
    const char *why = NULL;
    switch (device) {
    case PQ_DEVICE_HOST_KERNELS:
        out->where = PQ_EXEC_HOST_KERNELS;
        snprintf(out->note, sizeof out->note, "host kernels");
        return;
    case PQ_DEVICE_CUDA:
        if (pq_cuda_device_count(&why) == 0) {
            out->where = PQ_EXEC_CPU;
            out->missing = true;
            out->why = why ? why : "no CUDA device found";
            snprintf(out->note, sizeof out->note, "cuda");
            return;
        }
        out->where = PQ_EXEC_CUDA;
        snprintf(out->note, sizeof out->note, "cuda");
        return;
    case PQ_DEVICE_AUTO:
        if (pq_cuda_device_count(&why) > 0) {
            out->where = PQ_EXEC_CUDA;
            snprintf(out->note, sizeof out->note, "cuda (auto)");
        } else {
            out->why = why ? why : "no CUDA device found";
            snprintf(out->note, sizeof out->note, "cpu (auto: %.140s)", out->why);
        }
        return;
    default:
        snprintf(out->note, sizeof out->note, "cpu");
        return;
    }
}
