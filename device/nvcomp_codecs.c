/* nvcomp_codecs.c — the parts of nvcomp.h every build has: which
 * codecs nvCOMP covers and the names of its statuses (nvCOMP 6's
 * nvcompStatus_t values, from its shared_types.h). */
#include "device/nvcomp.h"

bool pq_nvcomp_codec(int32_t codec)
{
    /* Parquet's SNAPPY, GZIP, ZSTD and LZ4_RAW (pq_codec). */
    return codec == 1 || codec == 2 || codec == 6 || codec == 7;
}

const char *pq_nvcomp_status_name(int32_t status)
{
    switch (status) {
    case 0: return "nvcompSuccess";
    case 10: return "nvcompErrorInvalidValue";
    case 11: return "nvcompErrorNotSupported";
    case 12: return "nvcompErrorCannotDecompress";
    case 13: return "nvcompErrorBadChecksum";
    case 14: return "nvcompErrorCannotVerifyChecksums";
    case 15: return "nvcompErrorOutputBufferTooSmall";
    case 16: return "nvcompErrorWrongHeaderLength";
    case 17: return "nvcompErrorAlignment";
    case 18: return "nvcompErrorChunkSizeTooLarge";
    case 20: return "nvcompErrorWrongInputLength";
    case 21: return "nvcompErrorBatchSizeTooLarge";
    case 1000: return "nvcompErrorCudaError";
    case 10000: return "nvcompErrorInternal";
    default: return "an unknown nvCOMP status";
    }
}
