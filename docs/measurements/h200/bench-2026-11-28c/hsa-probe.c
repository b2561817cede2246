#include <hsa/hsa.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
static double now(void){struct timespec t;clock_gettime(CLOCK_MONOTONIC,&t);return t.tv_sec*1e9+t.tv_nsec;}
int main(int argc,char**argv){
  long n = argc>1?atol(argv[1]):1000000;
  if(hsa_init()!=HSA_STATUS_SUCCESS){puts("init failed");return 1;}
  hsa_signal_t s; if(hsa_signal_create(7,0,NULL,&s)!=HSA_STATUS_SUCCESS){puts("sig failed");return 1;}
  volatile long sum=0;
  for(int rep=0;rep<5;rep++){
    double t0=now();
    for(long i=0;i<n;i++) sum+=hsa_signal_load_relaxed(s);
    double t1=now();
    for(long i=0;i<n;i++) hsa_signal_store_relaxed(s,7);
    double t2=now();
    printf("load %.1f ns  store %.1f ns\n",(t1-t0)/n,(t2-t1)/n);
  }
  hsa_signal_destroy(s); hsa_shut_down();
  return sum==7L*n*5?0:2;
}
