/* A program built against an installed pqstep, as a user would build one:
 * prints the row count and row group count of a file's footer. */
#include <inttypes.h>
#include <stdio.h>

#include <pqstep.h>

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: consumer FILE\n");
        return 2;
    }
    pq_error err;
    pq_reader *r = pq_reader_open_path(argv[1], NULL, &err);
    if (!r || pq_reader_advance_to(r, PQ_STAGE_FOOTER, &err) != PQ_OK) {
        fprintf(stderr, "consumer: %s\n", err.message);
        pq_reader_close(r);
        return 1;
    }
    const pq_file_metadata *fm = pq_metadata_file(pq_reader_metadata(r));
    printf("%" PRId64 " %u %s\n", fm->num_rows, fm->row_groups_len, pq_version());
    pq_reader_close(r);
    return 0;
}
