#!/usr/bin/env bash
# nvcomp_modes.sh NVCC SRC_DIR BUILD_DIR [NVCOMP_INCLUDE]
#
# The library must link whether nvCOMP's headers were found or not: the
# build compiles device/nvcomp_cuda.cu one of two ways (the dlopen loader with
# PQ_HAVE_NVCOMP, stubs without). This compiles it both ways, as the build
# does (sm_90, warnings as errors), and checks that the two objects define
# the same symbols, so either links wherever the other does. Without
# nvCOMP's headers (NVCOMP_INCLUDE empty) only the stub way compiles: exit
# 77 (skip), saying so.
set -euo pipefail
nvcc="$1" src="$2" out="$3/nvcomp-modes" inc="${4:-}"
mkdir -p "$out"
flags=(-O2 -std=c++17 -arch=sm_90 --Werror=all-warnings -Xcompiler=-Wall,-Wextra,-Werror,-fvisibility=hidden
       -I"$src" -I"$src/include" -DPQ_HAVE_CUDA=1 -D_POSIX_C_SOURCE=200809L -c "$src/device/nvcomp_cuda.cu")
"$nvcc" "${flags[@]}" -o "$out/stubs.o"
syms() { nm -g --defined-only "$1" | awk '{print $3}' | grep '^pq_' | sort; }
syms "$out/stubs.o" >"$out/stubs.txt"
[ -s "$out/stubs.txt" ] || { echo "the stub object defines no pq_ symbol"; exit 1; }
if [ -z "$inc" ] || [ ! -f "$inc/nvcomp/zstd.h" ]; then
    echo "SKIP: nvCOMP's headers not found (pip install nvidia-libnvcomp-cu13): only the stub build was checked"
    exit 77
fi
"$nvcc" "${flags[@]}" -isystem "$inc" -DPQ_HAVE_NVCOMP=1 -DPQ_NVCOMP_LIBRARY_PATH='""' -o "$out/nvcomp.o"
syms "$out/nvcomp.o" >"$out/nvcomp.txt"
if ! diff -u "$out/stubs.txt" "$out/nvcomp.txt"; then
    echo "nvcomp_cuda.cu defines other symbols with nvCOMP than without (above)"
    exit 1
fi
echo "nvcomp_cuda.cu with and without nvCOMP: the same $(wc -l <"$out/stubs.txt") symbols: $(tr '\n' ' ' <"$out/stubs.txt")"
