// What the recording writer's files cost the kernel, written in several ways (docs/benchmarks.md,
// "Recording every room: 28 rounds, and the kernel's part tried four ways").
//
//   cc -O2 -o /tmp/write-shapes scripts/recording-write-shapes.c
//   /tmp/write-shapes WAY ROUNDS [BYTES] [STEP]     (in a folder on the file system to measure)
//
// 400 files, as `caucus bench media --users 200 --rooms 50 --video --record` records; each round
// gives each file a cluster (5,000 or 14,000 bytes, alternately, or BYTES) and rewrites its
// duration's 8 bytes at offset 40. Prints the process's CPU time per file per round. WAY:
//   shipped   write(2) of the cluster, pwrite(2) of the duration (AppendOnlyFile, WebMFile)
//   write     the write alone
//   pwrite    the duration's pwrite alone
//   reserve   every STEP bytes (65536) one write of the cluster and zeros to the reserve's end,
//             then each cluster written over the reserve's start
//   mmap      the file grown by STEP bytes (262144) with fallocate(2), mapped MAP_SHARED,
//             clusters copied in
//   fallocate fallocate(FALLOC_FL_KEEP_SIZE) STEP bytes (1048576) ahead, then as shipped
//   direct    O_DIRECT: each cluster padded to a multiple of 4 KiB (in a real file an EBML
//             Void), the duration's 4 KiB block written whole
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <unistd.h>

enum { files = 400 };

static double cpuSeconds(void) {
    struct rusage usage;
    getrusage(RUSAGE_SELF, &usage);
    return usage.ru_utime.tv_sec + usage.ru_utime.tv_usec / 1e6 + usage.ru_stime.tv_sec + usage.ru_stime.tv_usec / 1e6;
}

static void check(int ok, const char *what) {
    if (!ok) {
        perror(what);
        exit(1);
    }
}

int main(int argc, char **argv) {
    if (argc < 3) {
        fprintf(stderr, "usage: %s shipped|write|pwrite|reserve|mmap|fallocate|direct ROUNDS [BYTES] [STEP]\n", argv[0]);
        return 2;
    }
    const char *way = argv[1];
    int rounds = atoi(argv[2]);
    long fixedBytes = argc > 3 ? atol(argv[3]) : 0;
    long step = argc > 4 ? atol(argv[4]) : 0;
    int shipped = !strcmp(way, "shipped"), writeOnly = !strcmp(way, "write"), pwriteOnly = !strcmp(way, "pwrite");
    int reserve = !strcmp(way, "reserve"), mapped = !strcmp(way, "mmap"), ahead = !strcmp(way, "fallocate");
    int direct = !strcmp(way, "direct");
    if (!(shipped || writeOnly || pwriteOnly || reserve || mapped || ahead || direct) || rounds < 1) {
        fprintf(stderr, "unknown way or rounds\n");
        return 2;
    }
    if (step <= 0) step = reserve ? 65536 : mapped ? 262144 : 1048576;
    if (mapped) step = (step + 4095) / 4096 * 4096;

    char folder[] = "write-shapes-XXXXXX";
    check(mkdtemp(folder) != NULL, "mkdtemp");
    // Aligned for O_DIRECT.
    static char cluster[1 << 21] __attribute__((aligned(4096)));
    memset(cluster, 7, sizeof cluster);
    int descriptors[files];
    long end[files], room[files];
    char *maps[files];
    for (int index = 0; index < files; index++) {
        char path[256];
        snprintf(path, sizeof path, "%s/%d.webm", folder, index);
        descriptors[index] = open(path, O_RDWR | O_CREAT | O_EXCL | (direct ? O_DIRECT : 0), 0644);
        check(descriptors[index] >= 0, "open");
        end[index] = 0;
        room[index] = 0;
        maps[index] = NULL;
        if (!mapped) {
            long header = direct ? 4096 : 200;
            check(write(descriptors[index], cluster, header) == header, "write header");
            end[index] = room[index] = header;
        }
    }

    double start = cpuSeconds();
    for (int round = 0; round < rounds; round++) {
        for (int index = 0; index < files; index++) {
            long bytes = fixedBytes > 0 ? fixedBytes : (index & 1) ? 14000 : 5000;
            if (bytes + step > (long)sizeof cluster) bytes = sizeof cluster - step;
            int fd = descriptors[index];
            double duration = round;
            if (direct) {
                bytes = (bytes + 4095) / 4096 * 4096;
                check(pwrite(fd, cluster, bytes, end[index]) == bytes, "pwrite cluster");
                end[index] += bytes;
                check(pwrite(fd, cluster, 4096, 0) == 4096, "pwrite duration's block");
                continue;
            }
            if (mapped) {
                if (end[index] + bytes > room[index]) {
                    check(fallocate(fd, 0, room[index], step) == 0, "fallocate");
                    if (maps[index]) munmap(maps[index], room[index]);
                    room[index] += step;
                    maps[index] = mmap(NULL, room[index], PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
                    check(maps[index] != MAP_FAILED, "mmap");
                }
                memcpy(maps[index] + end[index], cluster, bytes);
                end[index] += bytes;
                memcpy(maps[index] + 40, &duration, 8);
                continue;
            }
            if (reserve) {
                if (end[index] + bytes <= room[index]) {
                    check(pwrite(fd, cluster, bytes, end[index]) == bytes, "pwrite cluster");
                } else {
                    static char zeros[1 << 21];
                    memcpy(zeros, cluster, bytes);
                    check(pwrite(fd, zeros, bytes + step, end[index]) == bytes + step, "pwrite reserve");
                    room[index] = end[index] + bytes + step;
                }
                end[index] += bytes;
            } else if (!pwriteOnly) {
                if (ahead && end[index] + bytes > room[index]) {
                    check(fallocate(fd, FALLOC_FL_KEEP_SIZE, room[index], step) == 0, "fallocate");
                    room[index] += step;
                }
                check(write(fd, cluster, bytes) == bytes, "write");
                end[index] += bytes;
            }
            if (!writeOnly) check(pwrite(fd, &duration, 8, 40) == 8, "pwrite duration");
        }
    }
    double spent = cpuSeconds() - start;

    for (int index = 0; index < files; index++) {
        if (maps[index]) munmap(maps[index], room[index]);
        if (room[index] > end[index]) check(ftruncate(descriptors[index], end[index]) == 0, "ftruncate");
        close(descriptors[index]);
        char path[256];
        snprintf(path, sizeof path, "%s/%d.webm", folder, index);
        unlink(path);
    }
    rmdir(folder);
    printf("%s: %.2f µs of CPU per file per round\n", way, spent / rounds / files * 1e6);
    return 0;
}
