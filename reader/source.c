/* madvise(MADV_DONTNEED) is outside POSIX (posix_madvise's DONTNEED does nothing in glibc). */
#define _DEFAULT_SOURCE
#include "reader/source.h"

#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "metadata/error.h"
#include "reader/file_map.h"

void pq_file_source_init(pq_file_source *fs)
{
    fs->fd = -1;
    fs->map = NULL;
    fs->map_entry = NULL;
    fs->map_tried = false;
}

pq_status pq_file_source_open(pq_file_source *fs, const char *path, pq_error *err)
{
    pq_file_source_init(fs);
    /* O_NONBLOCK: opening a FIFO for reading would otherwise wait for a
     * writer, forever if none comes; it changes nothing for the files and
     * block devices read below, whose reads never block on it. */
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    if (fd < 0) return pq_error_set(err, PQ_ERR_IO, "cannot open: %s", strerror(errno));
    struct stat st;
    if (fstat(fd, &st) != 0) {
        int e = errno;
        close(fd);
        return pq_error_set(err, PQ_ERR_IO, "cannot stat: %s", strerror(e));
    }
    if (S_ISDIR(st.st_mode)) {
        close(fd);
        return pq_error_set(err, PQ_ERR_IO, "is a directory");
    }
    uint64_t size = (uint64_t)st.st_size;
    if (S_ISBLK(st.st_mode)) { /* a device's st_size is 0: its end tells */
        off_t end = lseek(fd, 0, SEEK_END);
        if (end < 0) {
            int e = errno;
            close(fd);
            return pq_error_set(err, PQ_ERR_IO, "cannot find the device's size: %s", strerror(e));
        }
        size = (uint64_t)end;
    } else if (!S_ISREG(st.st_mode)) {
        close(fd);
        /* a footer is read from the end, pages by position: a stream has neither */
        const char *kind = S_ISFIFO(st.st_mode)   ? "a pipe"
                           : S_ISCHR(st.st_mode)  ? "a character device"
                           : S_ISSOCK(st.st_mode) ? "a socket"
                                                  : "not seekable";
        return pq_error_set(err, PQ_ERR_IO,
                            "not a regular file (%s): Parquet is read by position; save it to a file first", kind);
    }
    fs->fd = fd;
    fs->size = size;
    fs->mtime_ns = (int64_t)st.st_mtim.tv_sec * 1000000000 + st.st_mtim.tv_nsec;
    return PQ_OK;
}

void pq_file_source_close(pq_file_source *fs)
{
    pq_file_map_release(fs->map_entry, fs->map, fs->size);
    fs->map = NULL;
    fs->map_entry = NULL;
    if (fs->fd >= 0) close(fs->fd);
    fs->fd = -1;
}

pq_status pq_file_source_dup(pq_file_source *dst, const pq_file_source *src, pq_error *err)
{
    pq_file_source_init(dst);
    dst->size = src->size;
    dst->mtime_ns = src->mtime_ns;
    dst->fd = fcntl(src->fd, F_DUPFD_CLOEXEC, 0);
    if (dst->fd < 0) return pq_error_set(err, PQ_ERR_IO, "duplicating the file descriptor: %s", strerror(errno));
    return PQ_OK;
}

const uint8_t *pq_file_source_map(pq_file_source *fs)
{
    if (fs->map_tried) return fs->map;
    fs->map_tried = true;
    if (fs->fd < 0) return NULL;
    /* fstat there refuses a size changed since open */
    fs->map = pq_file_map_acquire(fs->fd, fs->size, &fs->map_entry);
    return fs->map;
}

static _Atomic uint64_t drop_min = PQ_DROP_PAGES_MIN_FILE;

void pq_file_source_set_drop_min(uint64_t bytes)
{
    atomic_store(&drop_min, bytes);
}

bool pq_file_source_drops_pages(const pq_file_source *fs)
{
    return fs->map && fs->size >= atomic_load(&drop_min);
}

/* The part of [p, p + len) inside a map whose pages are dropped: false
 * when none; else *len cut at the map's end, *at_end whether it reaches
 * it, *mask the page size less one. */
static bool map_part(const pq_file_source *fs, const uint8_t *p, size_t *len, bool *at_end, uintptr_t *mask)
{
    if (!pq_file_source_drops_pages(fs) || !p || p < fs->map || p >= fs->map + fs->size) return false;
    size_t room = (size_t)(fs->map + fs->size - p);
    if (*len > room) *len = room;
    *at_end = *len == room;
    long page_size = sysconf(_SC_PAGESIZE);
    *mask = (uintptr_t)(page_size > 0 ? page_size : 4096) - 1;
    return true;
}

void pq_file_source_done_with(const pq_file_source *fs, const uint8_t *p, size_t len)
{
    bool at_end;
    uintptr_t mask;
    if (!map_part(fs, p, &len, &at_end, &mask)) return;
    uintptr_t first = ((uintptr_t)p + mask) & ~mask, end = ((uintptr_t)p + len) & ~mask;
    if (at_end) end = ((uintptr_t)p + len + mask) & ~mask; /* the map's last page is this range's alone */
    if (end > first) (void)madvise((void *)first, end - first, MADV_DONTNEED); /* advice: a failure changes nothing */
}

void pq_file_source_will_need(const pq_file_source *fs, const uint8_t *p, size_t len)
{
    bool at_end;
    uintptr_t mask;
    if (!map_part(fs, p, &len, &at_end, &mask)) return;
    uintptr_t first = (uintptr_t)p & ~mask, end = ((uintptr_t)p + len + mask) & ~mask;
    if (end > first) (void)madvise((void *)first, end - first, MADV_WILLNEED); /* advice only */
}

pq_status pq_file_source_read_at(void *user, uint64_t offset, size_t len, void *dst, pq_error *err)
{
    pq_file_source *fs = user;
    if (offset > fs->size || len > fs->size - offset)
        return pq_error_set(err, PQ_ERR_IO, "read of %zu bytes at %llu is past the end (%llu bytes)",
                            len, (unsigned long long)offset, (unsigned long long)fs->size);
    if (fs->map) {
        if (len) memcpy(dst, fs->map + offset, len);
        return PQ_OK;
    }
    return pq_file_source_pread(user, offset, len, dst, err);
}

pq_status pq_file_source_pread(void *user, uint64_t offset, size_t len, void *dst, pq_error *err)
{
    pq_file_source *fs = user;
    if (offset > fs->size || len > fs->size - offset)
        return pq_error_set(err, PQ_ERR_IO, "read of %zu bytes at %llu is past the end (%llu bytes)",
                            len, (unsigned long long)offset, (unsigned long long)fs->size);
    uint8_t *p = dst;
    while (len) {
        ssize_t n = pread(fs->fd, p, len, (off_t)offset);
        if (n < 0) {
            if (errno == EINTR) continue;
            return pq_error_set(err, PQ_ERR_IO, "read failed at %llu: %s",
                                (unsigned long long)offset, strerror(errno));
        }
        if (n == 0)
            return pq_error_set(err, PQ_ERR_IO, "file shrank: unexpected end at %llu",
                                (unsigned long long)offset);
        p += n;
        offset += (uint64_t)n;
        len -= (size_t)n;
    }
    return PQ_OK;
}

pq_status pq_memory_source_read_at(void *user, uint64_t offset, size_t len, void *dst,
                                   pq_error *err)
{
    pq_memory_source *ms = user;
    if (offset > ms->size || len > ms->size - offset)
        return pq_error_set(err, PQ_ERR_IO, "read of %zu bytes at %llu is past the end (%llu bytes)",
                            len, (unsigned long long)offset, (unsigned long long)ms->size);
    if (len) memcpy(dst, ms->data + offset, len);
    return PQ_OK;
}
