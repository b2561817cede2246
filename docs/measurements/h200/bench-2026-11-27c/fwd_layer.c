/* The floor of any OpenCL layer (an experiment, not part of cltap): a
 * layer that forwards the three cheap calls of `cltap bench`'s calls part
 * to the next dispatch table and does nothing else. Passed to
 * `cltap bench --layer`, its "pass-through" column is what ocl-icd's layer
 * mechanism itself costs (one more indirect call per API call).
 * Build: cc -O2 -shared -fPIC -o libfwd_layer.so fwd_layer.c */
#define CL_TARGET_OPENCL_VERSION 300
#include <CL/cl_layer.h>
#include <string.h>

static cl_icd_dispatch next, mine;

static cl_int CL_API_CALL platform_info(cl_platform_id p, cl_platform_info n, size_t s, void *v, size_t *r) {
    return next.clGetPlatformInfo(p, n, s, v, r);
}
static cl_int CL_API_CALL set_arg(cl_kernel k, cl_uint i, size_t s, const void *v) {
    return next.clSetKernelArg(k, i, s, v);
}
static cl_int CL_API_CALL event_info(cl_event e, cl_event_info n, size_t s, void *v, size_t *r) {
    return next.clGetEventInfo(e, n, s, v, r);
}

CL_API_ENTRY cl_int CL_API_CALL clGetLayerInfo(cl_layer_info name, size_t size, void *value, size_t *size_ret) {
    if (name != CL_LAYER_API_VERSION) return CL_INVALID_VALUE;
    if (size_ret) *size_ret = sizeof(cl_layer_api_version);
    if (value) {
        if (size < sizeof(cl_layer_api_version)) return CL_INVALID_VALUE;
        *(cl_layer_api_version *)value = CL_LAYER_API_VERSION_100;
    }
    return CL_SUCCESS;
}

CL_API_ENTRY cl_int CL_API_CALL clInitLayer(cl_uint n, const cl_icd_dispatch *target, cl_uint *n_ret,
                                            const cl_icd_dispatch **ret) {
    size_t have = n * sizeof(void *);
    memset(&next, 0, sizeof next);
    memcpy(&next, target, have < sizeof next ? have : sizeof next);
    mine = next;
    mine.clGetPlatformInfo = platform_info;
    mine.clSetKernelArg = set_arg;
    mine.clGetEventInfo = event_info;
    *n_ret = sizeof mine / sizeof(void *);
    *ret = &mine;
    return CL_SUCCESS;
}
