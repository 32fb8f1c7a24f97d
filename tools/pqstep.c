/*
 * pqstep.c — the pqstep command-line tool: global options and dispatch.
 *
 * Usage: pqstep COMMAND [ARGS...]; see docs/cli.md. Each command lives in
 * tools/cmd_<name>.c; this file only finds it in the table below.
 */
#include "cli.h"

#include <errno.h>
#include <signal.h>
#include <string.h>

typedef struct cli_command {
    const char *name;
    int (*run)(int argc, char **argv);
    const char *summary;
} cli_command;

/* One line per command. */
static const cli_command commands[] = {
    {"meta", pq_cmd_meta, "footer summary: row groups, column chunks, statistics"},
    {"schema", pq_cmd_schema, "schema tree with types, levels and Arrow types"},
    {"pages", pq_cmd_pages, "every page of the selected column chunks"},
    {"cat", pq_cmd_cat, "the values, as a table, CSV or JSON lines"},
    {"prune", pq_cmd_prune, "how a predicate prunes row groups before any data is read"},
    {"demo", pq_cmd_demo, "walk the reader's stages and measure footer reuse"},
};

#define NCOMMANDS (sizeof(commands) / sizeof(commands[0]))

static const char *usage_line = "pqstep COMMAND [OPTIONS] FILE  (pqstep --help lists commands)";

static void print_help(FILE *out)
{
    fputs("usage: pqstep COMMAND [OPTIONS] FILE\n"
          "       pqstep COMMAND --help\n"
          "       pqstep --help | --version\n"
          "\n"
          "Inspect Apache Parquet files with the pqstep library.\n"
          "\n"
          "commands:\n",
          out);
    for (size_t i = 0; i < NCOMMANDS; i++)
        fprintf(out, "  %-10s %s\n", commands[i].name, commands[i].summary);
    fputs("\n"
          "options:\n"
          "  -h, --help     show this help\n"
          "  -V, --version  print the library version\n"
          "\n"
          "FILE may be an http:// or https:// URL (read with ranged GETs) or an\n"
          "s3://bucket/key URL (an s3:// prefix or pattern is a dataset). S3 settings\n"
          "come from AWS_ENDPOINT_URL (or AWS_ENDPOINT_URL_S3), AWS_REGION,\n"
          "AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY and AWS_SESSION_TOKEN.\n"
          "\n"
          "exit status: 0 success, 1 the file could not be read (or output failed),\n"
          "2 bad command line.\n",
          out);
}

/* Flush stdout and turn a failed write into exit 1. A closed pipe
 * (`pqstep meta f | head`) is not worth a message. */
static int finish_output(int rc)
{
    errno = 0;
    bool failed = fflush(stdout) != 0;
    int e = errno;
    if (failed || ferror(stdout)) {
        if (e != EPIPE)
            fprintf(stderr, "pqstep: error writing output%s%s\n", e ? ": " : "",
                    e ? strerror(e) : "");
        return CLI_EXIT_ERROR;
    }
    return rc;
}

static int run(int argc, char **argv)
{
    if (argc < 2)
        return cli_usage_error(usage_line, "missing COMMAND");
    const char *cmd = argv[1];
    if (strcmp(cmd, "-h") == 0 || strcmp(cmd, "--help") == 0 || strcmp(cmd, "help") == 0) {
        print_help(stdout);
        return CLI_EXIT_OK;
    }
    if (strcmp(cmd, "-V") == 0 || strcmp(cmd, "--version") == 0) {
        printf("pqstep %s\n", pq_version());
        return CLI_EXIT_OK;
    }
    for (size_t i = 0; i < NCOMMANDS; i++)
        if (strcmp(cmd, commands[i].name) == 0) {
            int n = argc - 1, rc = cli_take_keys(&n, argv + 1);
            return rc != CLI_EXIT_OK ? rc : commands[i].run(n, argv + 1);
        }
    if (cmd[0] == '-')
        return cli_usage_error(usage_line, "unknown option '%s'", cmd);
    return cli_usage_error(usage_line, "unknown command '%s'", cmd);
}

int main(int argc, char **argv)
{
    /* A reader that goes away must give us EPIPE, not kill us. */
    signal(SIGPIPE, SIG_IGN);
    return finish_output(run(argc, argv));
}
