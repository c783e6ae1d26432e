/* replay_main.c -- runs a fuzz target's LLVMFuzzerTestOneInput over files.
 *
 * Usage: fuzz_X_replay PATH...  where each PATH is a file or a directory
 * (its regular files are replayed, not recursively, in name order so that
 * runs are reproducible).  Prints "replayed N inputs"; exits 1 if a path
 * cannot be read or nothing was replayed.  Crashes surface as sanitizer
 * reports, which is the point of running it in the ASan build.
 */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int replay_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        fprintf(stderr, "replay: cannot open %s\n", path);
        return -1;
    }
    size_t cap = 4096, len = 0;
    uint8_t *buf = malloc(cap);
    while (buf) {
        if (len == cap) {
            uint8_t *nb = realloc(buf, cap * 2);
            if (!nb) {
                free(buf);
                buf = NULL;
                break;
            }
            buf = nb;
            cap *= 2;
        }
        size_t k = fread(buf + len, 1, cap - len, f);
        len += k;
        if (k == 0) break;
    }
    fclose(f);
    if (!buf) return -1;
    LLVMFuzzerTestOneInput(buf, len);
    free(buf);
    return 1;
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static int replay_dir(const char *dir)
{
    DIR *d = opendir(dir);
    if (!d) return -1;
    char **names = NULL;
    size_t n = 0, cap = 0;
    for (struct dirent *e; (e = readdir(d)) != NULL;) {
        if (e->d_name[0] == '.') continue;
        if (n == cap) {
            cap = cap ? 2 * cap : 64;
            char **nn = realloc(names, cap * sizeof *names);
            if (!nn) break;
            names = nn;
        }
        size_t len = strlen(dir) + strlen(e->d_name) + 2;
        names[n] = malloc(len);
        if (!names[n]) break;
        snprintf(names[n], len, "%s/%s", dir, e->d_name);
        n++;
    }
    closedir(d);
    if (n) qsort(names, n, sizeof *names, cmp_str);
    int count = 0;
    for (size_t i = 0; i < n; i++) {
        struct stat st;
        if (stat(names[i], &st) == 0 && S_ISREG(st.st_mode)) {
            int r = replay_file(names[i]);
            if (r < 0) count = -1;
            else if (count >= 0) count += r;
        }
        free(names[i]);
    }
    free(names);
    return count;
}

int main(int argc, char **argv)
{
    long total = 0;
    int bad = 0;
    for (int i = 1; i < argc; i++) {
        struct stat st;
        int r = stat(argv[i], &st) != 0 ? -1
                : S_ISDIR(st.st_mode)   ? replay_dir(argv[i])
                                        : replay_file(argv[i]);
        if (r < 0) {
            fprintf(stderr, "replay: cannot read %s\n", argv[i]);
            bad = 1;
        } else {
            total += r;
        }
    }
    printf("replayed %ld inputs\n", total);
    return bad || total == 0 ? 1 : 0;
}
