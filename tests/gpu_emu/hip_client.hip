// A HIP program for cltap's emulated gfx906 (gpu-emu), built with Debian's hipcc
// (--offload-arch=gfx906). The emulated GPU runs its machine code. It checks the bytes of: a
// vector add, hipMemset (ROCclr's fill kernel), device-to-device copies (aligned and not),
// two streams ordered by an event, and one kernel (inc_u32) launched 10,000 times. Ends with "hip_client: all checks passed" and exit 0.
#include <hip/hip_runtime.h>
#include <stdio.h>
#include <string.h>

static int failures;
#define CHECK(cond, ...)                                           \
  do {                                                             \
    if (!(cond)) {                                                 \
      printf("hip_client: FAIL line %d: %s: ", __LINE__, #cond);   \
      printf(__VA_ARGS__);                                         \
      printf("\n");                                                \
      failures++;                                                  \
    }                                                              \
  } while (0)
#define CHECK_OK(call)                                                                                  \
  do {                                                                                                  \
    hipError_t e_ = (call);                                                                             \
    if (e_ != hipSuccess) {                                                                             \
      printf("hip_client: FAIL line %d: %s: %s\n", __LINE__, #call, hipGetErrorString(e_));             \
      return 1;                                                                                         \
    }                                                                                                   \
  } while (0)

extern "C" __global__ void vadd_f32(const float* a, const float* b, float* c, unsigned n) {
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) c[i] = a[i] + b[i];
}

extern "C" __global__ void inc_u32(unsigned* p, unsigned n) {
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) p[i] += 1;
}

enum { N = 4096, BYTES = N * sizeof(float), LAUNCHES = 10000, COUNTERS = 256 };

static unsigned wrong(const float* got, float base, float step) {
  unsigned bad = 0;
  for (unsigned i = 0; i < N; i++) bad += got[i] != base + step * i;
  return bad;
}

int main() {
  setvbuf(stdout, NULL, _IONBF, 0);
  static float ha[N], hb[N], hc[N];
  for (unsigned i = 0; i < N; i++) {
    ha[i] = (float)i;
    hb[i] = 0.5f;
  }
  float *a, *b, *c, *d;
  CHECK_OK(hipMalloc(&a, BYTES));
  CHECK_OK(hipMalloc(&b, BYTES));
  CHECK_OK(hipMalloc(&c, BYTES));
  CHECK_OK(hipMalloc(&d, BYTES));
  CHECK_OK(hipMemcpy(a, ha, BYTES, hipMemcpyHostToDevice));
  CHECK_OK(hipMemcpy(b, hb, BYTES, hipMemcpyHostToDevice));

  hipLaunchKernelGGL(vadd_f32, dim3(N / 256), dim3(256), 0, 0, a, b, c, N);
  CHECK_OK(hipGetLastError());
  CHECK_OK(hipMemcpy(hc, c, BYTES, hipMemcpyDeviceToHost));
  CHECK(wrong(hc, 0.5f, 1.0f) == 0, "vadd: %u wrong, c[1]=%f", wrong(hc, 0.5f, 1.0f), hc[1]);

  // hipMemset: every byte of d.
  CHECK_OK(hipMemset(d, 0x3c, BYTES));
  static unsigned char bytes[BYTES];
  CHECK_OK(hipMemcpy(bytes, d, BYTES, hipMemcpyDeviceToHost));
  unsigned unset = 0;
  for (unsigned i = 0; i < BYTES; i++) unset += bytes[i] != 0x3c;
  CHECK(unset == 0, "hipMemset: %u bytes not set", unset);

  // Device to device: whole buffer, then a misaligned byte range.
  CHECK_OK(hipMemcpy(d, c, BYTES, hipMemcpyDeviceToDevice));
  CHECK_OK(hipMemcpy(hc, d, BYTES, hipMemcpyDeviceToHost));
  CHECK(wrong(hc, 0.5f, 1.0f) == 0, "device to device: %u wrong", wrong(hc, 0.5f, 1.0f));
  CHECK_OK(hipMemset(d, 0, BYTES));
  CHECK_OK(hipMemcpy((char*)d + 3, (char*)c + 1, BYTES - 9, hipMemcpyDeviceToDevice));
  CHECK_OK(hipMemcpy(bytes, d, BYTES, hipMemcpyDeviceToHost));
  CHECK(memcmp(bytes + 3, (char*)hc + 1, BYTES - 9) == 0 && bytes[0] == 0 && bytes[BYTES - 1] == 0,
        "misaligned device to device");

  // Two streams: s2 waits for an event recorded on s1 after s1's kernel.
  hipStream_t s1, s2;
  hipEvent_t start, mid, end;
  CHECK_OK(hipStreamCreate(&s1));
  CHECK_OK(hipStreamCreate(&s2));
  CHECK_OK(hipEventCreate(&start));
  CHECK_OK(hipEventCreate(&mid));
  CHECK_OK(hipEventCreate(&end));
  CHECK_OK(hipEventRecord(start, s1));
  hipLaunchKernelGGL(vadd_f32, dim3(N / 256), dim3(256), 0, s1, a, a, c, N);  // c = 2i
  CHECK_OK(hipEventRecord(mid, s1));
  CHECK_OK(hipStreamWaitEvent(s2, mid, 0));
  hipLaunchKernelGGL(vadd_f32, dim3(N / 256), dim3(256), 0, s2, c, b, d, N);  // d = 2i + 0.5
  CHECK_OK(hipEventRecord(end, s2));
  CHECK_OK(hipEventSynchronize(end));
  CHECK_OK(hipMemcpy(hc, d, BYTES, hipMemcpyDeviceToHost));
  CHECK(wrong(hc, 0.5f, 2.0f) == 0, "two streams: %u wrong, d[1]=%f", wrong(hc, 0.5f, 2.0f), hc[1]);
  float first = -1, whole = -1;
  CHECK_OK(hipEventElapsedTime(&first, start, mid));
  CHECK_OK(hipEventElapsedTime(&whole, start, end));
  CHECK(first >= 0 && whole >= first, "event times %f ms then %f ms", first, whole);

  // One kernel launched 10,000 times on one stream: each launch sees the previous one's result.
  unsigned* counts;
  static unsigned hcounts[COUNTERS];
  CHECK_OK(hipMalloc(&counts, sizeof hcounts));
  CHECK_OK(hipMemset(counts, 0, sizeof hcounts));
  for (int i = 0; i < LAUNCHES; i++) hipLaunchKernelGGL(inc_u32, dim3(1), dim3(COUNTERS), 0, s1, counts, COUNTERS);
  CHECK_OK(hipStreamSynchronize(s1));
  CHECK_OK(hipMemcpy(hcounts, counts, sizeof hcounts, hipMemcpyDeviceToHost));
  unsigned off = 0;
  for (unsigned i = 0; i < COUNTERS; i++) off += hcounts[i] != LAUNCHES;
  CHECK(off == 0, "%u launches: %u counters off (counts[0]=%u)", LAUNCHES, off, hcounts[0]);
  CHECK_OK(hipFree(counts));

  CHECK_OK(hipStreamDestroy(s1));
  CHECK_OK(hipStreamDestroy(s2));
  CHECK_OK(hipFree(a));
  CHECK_OK(hipFree(b));
  CHECK_OK(hipFree(c));
  CHECK_OK(hipFree(d));
  if (failures) {
    printf("hip_client: %d checks failed\n", failures);
    return 1;
  }
  printf("hip_client: all checks passed\n");
  return 0;
}
