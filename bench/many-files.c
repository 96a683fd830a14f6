/* The ceiling of extracting many small files from several threads (issue 32, item 4): creates FOLDERS
   folders of FILES files of SIZE bytes each, as an extractor would (mkdir; open O_CREAT|O_EXCL, write,
   fchmod, futimens, close), the folders spread over THREADS threads, and prints the wall time. Only the
   kernel's part is measured: no archive is read, so a threaded extractor can gain at most this.
   Usage: many-files DEST THREADS [FOLDERS FILES SIZE]   (default 100 1000 300: the 100,000-file corpus) */
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static const char *dest;
static int threads, folders, files, size;
static char data[65536];

static void *work(void *arg) {
    long first = (long)arg;
    char path[4096];
    for (int folder = (int)first; folder < folders; folder += threads) {
        snprintf(path, sizeof path, "%s/d%03d", dest, folder);
        if (mkdir(path, 0755) != 0) { perror(path); exit(1); }
        for (int file = 0; file < files; file++) {
            snprintf(path, sizeof path, "%s/d%03d/f%04d.txt", dest, folder, file);
            int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
            if (fd < 0 || write(fd, data, (size_t)size) != size) { perror(path); exit(1); }
            struct timespec times[2] = {{1700000000, 0}, {1700000000, 0}};
            fchmod(fd, 0644);
            futimens(fd, times);
            close(fd);
        }
    }
    return 0;
}

int main(int argc, char **argv) {
    if (argc < 3) return 2;
    dest = argv[1];
    threads = atoi(argv[2]);
    folders = argc > 3 ? atoi(argv[3]) : 100;
    files = argc > 4 ? atoi(argv[4]) : 1000;
    size = argc > 5 ? atoi(argv[5]) : 300;
    memset(data, 'x', sizeof data);
    struct timespec start, end;
    clock_gettime(CLOCK_MONOTONIC, &start);
    pthread_t ids[64];
    for (long i = 0; i < threads; i++) pthread_create(&ids[i], 0, work, (void *)i);
    for (int i = 0; i < threads; i++) pthread_join(ids[i], 0);
    sync();
    clock_gettime(CLOCK_MONOTONIC, &end);
    printf("%d threads: %.2f s\n", threads, (end.tv_sec - start.tv_sec) + (end.tv_nsec - start.tv_nsec) / 1e9);
    return 0;
}
