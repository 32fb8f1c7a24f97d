/*
 * choice.h — where a read's decode and filter run, resolved once from
 * pq_reader_options.device (the select stage keeps the answer, and the
 * executor made from it, executor.h, that the filter and decode stages
 * run through).
 */
#ifndef PQ_DEVICE_CHOICE_H
#define PQ_DEVICE_CHOICE_H

#include <stdbool.h>
#include <stdint.h>

/* opts.device's value for the device executor's kernels run on the host,
 * with host memory standing for the device's: what CI checks against the
 * CPU executor, and a way to debug kernels without a GPU. Tests and tools
 * only, so not in the public pq_device enum. */
#define PQ_DEVICE_HOST_KERNELS 3u

typedef enum pq_exec_where {
    PQ_EXEC_CPU = 0,         /* the CPU executor and the CPU evaluator */
    PQ_EXEC_HOST_KERNELS,    /* the device executor's kernels and the predicate kernel, run on the host */
    PQ_EXEC_CUDA             /* ... on the CUDA device */
} pq_exec_where;

typedef struct pq_device_choice {
    pq_exec_where where;
    bool missing;            /* PQ_DEVICE_CUDA asked for and no CUDA device is usable: the
                              * decode stage fails with `why` */
    char note[160];          /* how the choice reads in pq_reader_device_note: "cpu", "host
                              * kernels", "cuda", "cuda (auto)", "cpu (auto: why)" */
    const char *why;         /* no usable device: why (a constant string), else NULL */
} pq_device_choice;

/* The choice for `device` (a pq_device value the select stage checked):
 * CUDA where asked for or, with AUTO, where pq_cuda_device_count finds a
 * usable device. */
void pq_device_choose(uint32_t device, pq_device_choice *out);

#endif
