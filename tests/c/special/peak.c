/* peak OUT PROG ARGS...: runs PROG and writes its peak resident memory in
 * KiB to OUT, then exits as PROG did (128 + signal if a signal ended it).
 * A test cannot take this from its own wait4: a child forked from the test
 * process starts as a copy of it, and that copy's memory counts in the
 * child's peak. Forked from this small program, PROG's peak is its own. */
#define _GNU_SOURCE
#include <stdio.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

int main(int argc, char **argv) {
    if (argc < 3) return 2;
    pid_t c = fork();
    if (c == 0) {
        execvp(argv[2], argv + 2);
        _exit(127);
    }
    int st = 0;
    struct rusage ru;
    if (wait4(c, &st, 0, &ru) != c) return 2;
    FILE *f = fopen(argv[1], "w");
    if (!f) return 2;
    fprintf(f, "%ld\n", ru.ru_maxrss);
    fclose(f);
    return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}
