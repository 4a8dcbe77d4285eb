// Copy bandwidth: `gcc -O2 -pthread tools/copybw.c -o /tmp/copybw && /tmp/copybw MB THREADS`
// copies MB megabytes (MiB) split over THREADS (1 or 2) threads with memcpy, best of 7.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <pthread.h>
#include <time.h>
static size_t N; static char *src[2], *dst[2];
static void *run(void *a){ long i=(long)a; memcpy(dst[i],src[i],N); return 0; }
static double now(){struct timespec t; clock_gettime(CLOCK_MONOTONIC,&t); return t.tv_sec+t.tv_nsec*1e-9;}
int main(int c,char**v){ if(c!=3){fprintf(stderr,"usage: %s MB THREADS (1 or 2)\n",v[0]);return 2;}
 size_t total=(size_t)atol(v[1])<<20; int th=atoi(v[2]); if(th<1||th>2||total==0){fprintf(stderr,"MB > 0, THREADS 1 or 2\n");return 2;} N=total/th;
 for(int i=0;i<th;i++){src[i]=malloc(N);dst[i]=malloc(N);memset(src[i],1,N);memset(dst[i],2,N);}
 double best=1e9; for(int r=0;r<7;r++){ double t=now(); pthread_t p[2]; for(long i=0;i<th;i++) pthread_create(&p[i],0,run,(void*)i); for(int i=0;i<th;i++) pthread_join(p[i],0); t=now()-t; if(t<best)best=t;}
 printf("%zu MB copied on %d threads: best %.2f ms, %.1f GB/s (read+write %.1f GB/s)\n", total>>20, th, best*1e3, total/best/1e9, 2*total/best/1e9); }
