/* cltap's tracer API on OpenCL calls (tests/tracer.rs runs it on PoCL with
 * cltap as a layer or as the ICD):
 *
 *   tracer_opencl basic        ids, names, parameters read and changed,
 *                              results, instance data, disable, errors
 *   tracer_opencl stress       tracer_common.h's stress, on clGetPlatformInfo
 *   tracer_opencl destroy      tracer_common.h's destroy waits
 *   tracer_opencl inside       destroy from inside a prologue, and from an
 *                              application callback inside a traced call
 *   tracer_opencl passthrough  cltap_tracer_create's answer (printed)
 *
 * Each prints "... ok" lines, or "FAIL ..." and exits 1.
 */
#define CL_TARGET_OPENCL_VERSION 300
#include "tracer_common.h"

#include <CL/cl.h>

#define CL_OK(call)                                                                   \
  do {                                                                                \
    cl_int e_ = (call);                                                               \
    if (e_ != CL_SUCCESS) {                                                           \
      printf("FAIL %s:%d: %s returned %d\n", __FILE__, __LINE__, #call, (int)e_);     \
      exit(1);                                                                        \
    }                                                                                 \
  } while (0)

static cl_platform_id platform;
static cl_device_id device;
static cl_context ctx;
static cl_command_queue queue;
static cl_program program;
static cl_kernel kernel;

static const char* SRC = "__kernel void fill(__global int* out) { size_t i = get_global_id(0); out[i] = (int)i * 2; }";

static void setup(int build) {
  CL_OK(clGetPlatformIDs(1, &platform, NULL));
  CL_OK(clGetDeviceIDs(platform, CL_DEVICE_TYPE_ALL, 1, &device, NULL));
  if (!build) return;
  cl_int err;
  ctx = clCreateContext(NULL, 1, &device, NULL, NULL, &err);
  CL_OK(err);
  queue = clCreateCommandQueueWithProperties(ctx, device, NULL, &err);
  CL_OK(err);
  program = clCreateProgramWithSource(ctx, 1, &SRC, NULL, &err);
  CL_OK(err);
  CL_OK(clBuildProgram(program, 1, &device, NULL, NULL, NULL));
  kernel = clCreateKernel(program, "fill", &err);
  CL_OK(err);
}

/* ---- basic --------------------------------------------------------------- */

typedef struct {
  int ndr_pro, ndr_epi, buf_pro, buf_epi, finish_epi;
  cl_mem buffer_seen;
} seen_t;

static size_t wider[1] = {128};

static void ndr_pro(uint32_t id, void* params, const void* result, void* ud, uint64_t* inst) {
  seen_t* s = ud;
  cltap_params_clEnqueueNDRangeKernel* p = params;
  CHECK(id == CLTAP_API_OPENCL_clEnqueueNDRangeKernel && result == NULL && *inst == 0);
  CHECK(*p->command_queue == queue && *p->kernel == kernel && *p->work_dim == 1);
  CHECK(*p->global_work_offset == NULL && *p->local_work_size == NULL && *p->event == NULL);
  CHECK((*p->global_work_size)[0] == 64); /* what the application passed */
  *p->global_work_size = wider;           /* the call gets 128 */
  *inst = 0xc1a9000000000000ull | (uint64_t)s->ndr_pro;
  s->ndr_pro++;
}

static void ndr_epi(uint32_t id, void* params, const void* result, void* ud, uint64_t* inst) {
  seen_t* s = ud;
  cltap_params_clEnqueueNDRangeKernel* p = params;
  CHECK(id == CLTAP_API_OPENCL_clEnqueueNDRangeKernel && result != NULL);
  CHECK(*(const cl_int*)result == CL_SUCCESS);
  CHECK(*inst == (0xc1a9000000000000ull | (uint64_t)s->ndr_epi));
  CHECK(*p->global_work_size == wider);
  s->ndr_epi++;
}

static void buf_pro(uint32_t id, void* params, const void* result, void* ud, uint64_t* inst) {
  (void)result, (void)inst;
  seen_t* s = ud;
  cltap_params_clCreateBuffer* p = params;
  CHECK(id == CLTAP_API_OPENCL_clCreateBuffer);
  CHECK(*p->context == ctx && *p->size == 256 * sizeof(cl_int) && *p->flags == (CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR));
  s->buf_pro++;
}

static void buf_epi(uint32_t id, void* params, const void* result, void* ud, uint64_t* inst) {
  (void)id, (void)params, (void)inst;
  seen_t* s = ud;
  s->buffer_seen = *(const cl_mem*)result;
  s->buf_epi++;
}

static void finish_epi(uint32_t id, void* params, const void* result, void* ud, uint64_t* inst) {
  seen_t* s = ud;
  cltap_params_clFinish* p = params;
  CHECK(id == CLTAP_API_OPENCL_clFinish && *p->command_queue == queue && *(const cl_int*)result == CL_SUCCESS);
  CHECK(*inst == 0); /* no prologue: the slot stays 0 */
  s->finish_epi++;
}

static void run_basic(void) {
  setup(1);
  load_tracer_api();
  CHECK(strcmp(T.api_name(CLTAP_API_OPENCL_clEnqueueNDRangeKernel), "clEnqueueNDRangeKernel") == 0);
  CHECK(strcmp(T.api_name(CLTAP_API_HSA_hsa_queue_create), "hsa_queue_create") == 0);
  CHECK(T.api_name(CLTAP_API_ID(CLTAP_DOMAIN_OPENCL, CLTAP_API_OPENCL_COUNT)) == NULL);

  seen_t s = {0};
  cltap_tracer_t t;
  CHECK(T.create(&s, NULL) == CLTAP_ERROR_INVALID_ARGUMENT);
  TOK(T.create(&s, &t));
  TOK(T.set_callback(t, CLTAP_API_OPENCL_clEnqueueNDRangeKernel, ndr_pro, ndr_epi));
  TOK(T.set_callback(t, CLTAP_API_OPENCL_clCreateBuffer, buf_pro, buf_epi));
  TOK(T.set_callback(t, CLTAP_API_OPENCL_clFinish, NULL, finish_epi));
  CHECK(T.set_callback(t, CLTAP_API_ID(CLTAP_DOMAIN_OPENCL, 0xfff0), ndr_pro, NULL) == CLTAP_ERROR_INVALID_API_ID);
  CHECK(T.set_domain_callbacks(t, 5, ndr_pro, NULL) == CLTAP_ERROR_INVALID_DOMAIN);

  cl_int host[256], err;
  for (int i = 0; i < 256; i++) host[i] = -1;
  cl_mem buf = clCreateBuffer(ctx, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, sizeof host, host, &err);
  CL_OK(err);
  CHECK(s.buf_pro == 0); /* not enabled yet */

  TOK(T.enable(t));
  CHECK(T.set_callback(t, CLTAP_API_OPENCL_clFinish, NULL, NULL) == CLTAP_ERROR_TRACER_ENABLED);
  cl_mem buf2 = clCreateBuffer(ctx, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, sizeof host, host, &err);
  CL_OK(err);
  CHECK(s.buf_pro == 1 && s.buf_epi == 1 && s.buffer_seen == buf2); /* the result the application got */

  CL_OK(clSetKernelArg(kernel, 0, sizeof buf, &buf));
  size_t gws[1] = {64};
  CL_OK(clEnqueueNDRangeKernel(queue, kernel, 1, NULL, gws, NULL, 0, NULL, NULL));
  CL_OK(clFinish(queue));
  CHECK(s.ndr_pro == 1 && s.ndr_epi == 1 && s.finish_epi == 1);
  CL_OK(clEnqueueReadBuffer(queue, buf, CL_TRUE, 0, sizeof host, host, 0, NULL, NULL));
  /* The prologue's 128 reached the driver: 128 work-items ran. */
  CHECK(host[0] == 0 && host[63] == 126 && host[100] == 200 && host[127] == 254 && host[128] == -1);

  TOK(T.disable(t));
  CL_OK(clEnqueueNDRangeKernel(queue, kernel, 1, NULL, gws, NULL, 0, NULL, NULL));
  CL_OK(clFinish(queue));
  CHECK(s.ndr_pro == 1 && s.ndr_epi == 1 && s.finish_epi == 1);
  TOK(T.destroy(t));
  CHECK(T.destroy(t) == CLTAP_ERROR_INVALID_TRACER);
  CL_OK(clReleaseMemObject(buf2));
  CL_OK(clReleaseMemObject(buf));
  printf("basic ok: ndrange %d/%d, buffer %d/%d, finish %d, global size 64 -> 128\n", s.ndr_pro, s.ndr_epi,
         s.buf_pro, s.buf_epi, s.finish_epi);
}

/* ---- the generic tests' function: clGetPlatformInfo ---------------------- */

static void platform_info_call(uint64_t k) {
  size_t size_ret = 0;
  CL_OK(clGetPlatformInfo(platform, CL_PLATFORM_NAME, (size_t)k, NULL, &size_ret));
}

static uint64_t platform_info_param(void* params) {
  return *((cltap_params_clGetPlatformInfo*)params)->param_value_size;
}

/* ---- destroy from an application callback inside a traced call ----------- */

static cltap_tracer_t build_tracer;
static atomic_int build_pro, build_epi, notify_destroyed;

static void build_pro_cb(uint32_t id, void* params, const void* result, void* ud, uint64_t* inst) {
  (void)id, (void)params, (void)result, (void)ud, (void)inst;
  atomic_fetch_add(&build_pro, 1);
}

static void build_epi_cb(uint32_t id, void* params, const void* result, void* ud, uint64_t* inst) {
  (void)id, (void)params, (void)result, (void)ud, (void)inst;
  atomic_fetch_add(&build_epi, 1);
}

/* clBuildProgram's notification: PoCL calls it before clBuildProgram returns. */
static void CL_CALLBACK notify(cl_program p, void* ud) {
  (void)p, (void)ud;
  TOK(T.destroy(build_tracer));
  atomic_store(&notify_destroyed, 1);
}

static void run_inside(void) {
  run_destroy_in_callback();
  setup(1);
  TOK(T.create(NULL, &build_tracer));
  TOK(T.set_callback(build_tracer, CLTAP_API_OPENCL_clBuildProgram, build_pro_cb, build_epi_cb));
  TOK(T.enable(build_tracer));
  cl_int err;
  cl_program fresh = clCreateProgramWithSource(ctx, 1, &SRC, NULL, &err);
  CL_OK(err);
  CL_OK(clBuildProgram(fresh, 1, &device, NULL, notify, NULL));
  CHECK(atomic_load(&notify_destroyed) == 1);
  CHECK(atomic_load(&build_pro) == 1 && atomic_load(&build_epi) == 0);
  CL_OK(clReleaseProgram(fresh));
  printf("destroy inside a traced call ok\n");
}

int main(int argc, char** argv) {
  setvbuf(stdout, NULL, _IONBF, 0);
  const char* mode = argc > 1 ? argv[1] : "";
  F = (traced_fn_t){CLTAP_API_OPENCL_clGetPlatformInfo, platform_info_call, platform_info_param};
  if (strcmp(mode, "basic") == 0) {
    run_basic();
  } else if (strcmp(mode, "stress") == 0) {
    setup(0);
    load_tracer_api();
    run_stress();
  } else if (strcmp(mode, "destroy") == 0) {
    setup(0);
    load_tracer_api();
    run_destroy_waits();
  } else if (strcmp(mode, "inside") == 0) {
    setup(0);
    load_tracer_api();
    run_inside();
  } else if (strcmp(mode, "passthrough") == 0) {
    setup(0);
    load_tracer_api();
    cltap_tracer_t t;
    cltap_status_t st = T.create(NULL, &t);
    printf("create: %d (%s)\n", (int)st, T.status_string(st));
    /* OpenCL still works through cltap. */
    platform_info_call(0);
  } else {
    printf("usage: %s basic|stress|destroy|inside|passthrough\n", argv[0]);
    return 2;
  }
  return 0;
}
