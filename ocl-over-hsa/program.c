/* cltap OpenCL-over-HSA test double -- programs.
 *
 * A program from source is compiled at clBuildProgram (compile.c); one from
 * a binary takes a gfx906 code object as it is. Either way the code object
 * is then loaded as ROCclr does: hsa_code_object_reader_create_from_memory,
 * hsa_executable_create_alt, hsa_executable_load_agent_code_object,
 * hsa_executable_freeze. Its metadata note gives the kernels' names and
 * argument layouts (codeobj.c). */
#include "icd.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static cl_program program_new(cl_context context) {
  cl_program p = calloc(1, sizeof *p);
  if (!p) return NULL;
  ocl_header_init(&p->hdr, OCL_MAGIC_PROGRAM);
  pthread_mutex_init(&p->lock, NULL);
  p->context = context;
  p->status = CL_BUILD_NONE;
  ocl_context_retain(context);
  return p;
}

cl_program CL_API_CALL ocl_clCreateProgramWithSource(cl_context context, cl_uint count, const char** strings,
                                                     const size_t* lengths, cl_int* errcode_ret) {
  if (!ocl_valid(context, OCL_MAGIC_CONTEXT)) {
    ocl_set_err(errcode_ret, CL_INVALID_CONTEXT);
    return NULL;
  }
  if (count == 0 || !strings) {
    ocl_set_err(errcode_ret, CL_INVALID_VALUE);
    return NULL;
  }
  size_t total = 0;
  for (cl_uint i = 0; i < count; i++) {
    if (!strings[i]) {
      ocl_set_err(errcode_ret, CL_INVALID_VALUE);
      return NULL;
    }
    total += lengths && lengths[i] ? lengths[i] : strlen(strings[i]);
  }
  char* source = malloc(total + 1);
  cl_program p = source ? program_new(context) : NULL;
  if (!p) {
    free(source);
    ocl_set_err(errcode_ret, CL_OUT_OF_HOST_MEMORY);
    return NULL;
  }
  size_t at = 0;
  for (cl_uint i = 0; i < count; i++) {
    size_t n = lengths && lengths[i] ? lengths[i] : strlen(strings[i]);
    memcpy(source + at, strings[i], n);
    at += n;
  }
  source[at] = 0;
  p->source = source;
  ocl_set_err(errcode_ret, CL_SUCCESS);
  return p;
}

cl_program CL_API_CALL ocl_clCreateProgramWithBinary(cl_context context, cl_uint num_devices,
                                                     const cl_device_id* devices, const size_t* lengths,
                                                     const unsigned char** binaries, cl_int* binary_status,
                                                     cl_int* errcode_ret) {
  if (!ocl_valid(context, OCL_MAGIC_CONTEXT)) {
    ocl_set_err(errcode_ret, CL_INVALID_CONTEXT);
    return NULL;
  }
  if (num_devices != 1 || !devices || !lengths || !binaries) {
    ocl_set_err(errcode_ret, CL_INVALID_VALUE);
    return NULL;
  }
  if (devices[0] != &ocl_the_device) {
    ocl_set_err(errcode_ret, CL_INVALID_DEVICE);
    return NULL;
  }
  if (lengths[0] == 0 || !binaries[0]) {
    if (binary_status) binary_status[0] = CL_INVALID_VALUE;
    ocl_set_err(errcode_ret, CL_INVALID_VALUE);
    return NULL;
  }
  ocl_kernel_meta* kernels;
  size_t count;
  const char* why;
  if (ocl_read_code_object(binaries[0], lengths[0], &kernels, &count, &why) != 0) {
    ocl_log("clCreateProgramWithBinary: %s", why);
    if (binary_status) binary_status[0] = CL_INVALID_BINARY;
    ocl_set_err(errcode_ret, CL_INVALID_BINARY);
    return NULL;
  }
  ocl_free_kernel_meta(kernels, count);
  uint8_t* copy = malloc(lengths[0]);
  cl_program p = copy ? program_new(context) : NULL;
  if (!p) {
    free(copy);
    ocl_set_err(errcode_ret, CL_OUT_OF_HOST_MEMORY);
    return NULL;
  }
  memcpy(copy, binaries[0], lengths[0]);
  p->binary = copy;
  p->binary_size = lengths[0];
  if (binary_status) binary_status[0] = CL_SUCCESS;
  ocl_set_err(errcode_ret, CL_SUCCESS);
  return p;
}

/* Drops the loaded executable and the kernel list (lock held). */
static void unload(cl_program p) {
  if (p->loaded) {
    hsa_executable_destroy(p->executable);
    hsa_code_object_reader_destroy(p->reader);
    p->loaded = false;
  }
  ocl_free_kernel_meta(p->kernels, p->kernel_count);
  p->kernels = NULL;
  p->kernel_count = 0;
}

static void append_log(cl_program p, const char* fmt, const char* detail) {
  size_t old = p->log ? strlen(p->log) : 0;
  size_t add = strlen(fmt) + strlen(detail) + 2;
  char* grown = realloc(p->log, old + add);
  if (!grown) return;
  snprintf(grown + old, add, fmt, detail);
  p->log = grown;
}

/* Loads p->binary into an executable for the GPU agent (lock held). */
static cl_int load(cl_program p) {
  const char* why = NULL;
  if (ocl_read_code_object(p->binary, p->binary_size, &p->kernels, &p->kernel_count, &why) != 0) {
    append_log(p, "cltap OpenCL-over-HSA test double: %s\n", why);
    return CL_BUILD_PROGRAM_FAILURE;
  }
  hsa_status_t st = hsa_code_object_reader_create_from_memory(p->binary, p->binary_size, &p->reader);
  if (st == HSA_STATUS_SUCCESS) {
    st = hsa_executable_create_alt(ocl_the_device.props.profile, HSA_DEFAULT_FLOAT_ROUNDING_MODE_DEFAULT, "",
                                   &p->executable);
    if (st != HSA_STATUS_SUCCESS) hsa_code_object_reader_destroy(p->reader);
  }
  if (st == HSA_STATUS_SUCCESS) {
    p->loaded = true;
    st = hsa_executable_load_agent_code_object(p->executable, ocl_rt.gpu, p->reader, "", NULL);
    if (st == HSA_STATUS_SUCCESS) st = hsa_executable_freeze(p->executable, "");
  }
  for (size_t i = 0; i < p->kernel_count; i++)
    ocl_log("kernel %s: %u explicit and %u hidden arguments", p->kernels[i].name, p->kernels[i].explicit_count,
            p->kernels[i].arg_count - p->kernels[i].explicit_count);
  if (st != HSA_STATUS_SUCCESS) {
    const char* text = NULL;
    hsa_status_string(st, &text);
    append_log(p, "cltap OpenCL-over-HSA test double: loading the code object failed: %s\n", text ? text : "?");
    unload(p);
    return CL_BUILD_PROGRAM_FAILURE;
  }
  return CL_SUCCESS;
}

static cl_int build_locked(cl_program p, const char* options) {
  unload(p);
  free(p->log);
  p->log = NULL;
  free(p->options);
  p->options = strdup(options ? options : "");
  p->status = CL_BUILD_IN_PROGRESS;
  if (p->source) {
    free(p->binary);
    p->binary = NULL;
    if (ocl_compile(p->source, options, ocl_the_device.props.name, &p->binary, &p->binary_size, &p->log) != 0) {
      p->status = CL_BUILD_ERROR;
      return CL_BUILD_PROGRAM_FAILURE;
    }
  }
  if (!p->log) p->log = strdup("");
  cl_int err = load(p);
  p->status = err == CL_SUCCESS ? CL_BUILD_SUCCESS : CL_BUILD_ERROR;
  return err;
}

cl_int CL_API_CALL ocl_clBuildProgram(cl_program p, cl_uint num_devices, const cl_device_id* devices,
                                      const char* options, void(CL_CALLBACK* notify)(cl_program, void*),
                                      void* user_data) {
  if (!ocl_valid(p, OCL_MAGIC_PROGRAM)) return CL_INVALID_PROGRAM;
  if ((num_devices == 0) != (devices == NULL) || (!notify && user_data)) return CL_INVALID_VALUE;
  for (cl_uint i = 0; i < num_devices; i++)
    if (devices[i] != &ocl_the_device) return CL_INVALID_DEVICE;
  pthread_mutex_lock(&p->lock);
  cl_int err;
  if (p->live_kernels)
    err = CL_INVALID_OPERATION;
  else
    err = build_locked(p, options);
  pthread_mutex_unlock(&p->lock);
  /* The build is synchronous: the callback runs before the return. */
  if (notify && err != CL_INVALID_OPERATION) notify(p, user_data);
  return err;
}

void ocl_program_retain(cl_program p) { ocl_retain(&p->hdr); }

void ocl_program_release(cl_program p) {
  if (!ocl_unref(&p->hdr)) return;
  unload(p);
  free(p->source);
  free(p->binary);
  free(p->options);
  free(p->log);
  pthread_mutex_destroy(&p->lock);
  cl_context c = p->context;
  free(p);
  ocl_context_release(c);
}

cl_int CL_API_CALL ocl_clRetainProgram(cl_program p) {
  if (!ocl_valid(p, OCL_MAGIC_PROGRAM)) return CL_INVALID_PROGRAM;
  ocl_program_retain(p);
  return CL_SUCCESS;
}

cl_int CL_API_CALL ocl_clReleaseProgram(cl_program p) {
  if (!ocl_valid(p, OCL_MAGIC_PROGRAM)) return CL_INVALID_PROGRAM;
  ocl_program_release(p);
  return CL_SUCCESS;
}

/* "a;b;c", the kernel names (lock held). */
static char* kernel_names(cl_program p) {
  size_t len = 1;
  for (size_t i = 0; i < p->kernel_count; i++) len += strlen(p->kernels[i].name) + 1;
  char* s = calloc(1, len);
  for (size_t i = 0; s && i < p->kernel_count; i++) {
    if (i) strcat(s, ";");
    strcat(s, p->kernels[i].name);
  }
  return s;
}

static cl_int program_info_locked(cl_program p, cl_program_info param, size_t size, void* value, size_t* size_ret) {
  switch (param) {
    case CL_PROGRAM_REFERENCE_COUNT: return ocl_info_uint(size, value, size_ret, ocl_refcount(&p->hdr));
    case CL_PROGRAM_CONTEXT: return ocl_info_ptr(size, value, size_ret, p->context);
    case CL_PROGRAM_NUM_DEVICES: return ocl_info_uint(size, value, size_ret, 1);
    case CL_PROGRAM_DEVICES: return ocl_info_ptr(size, value, size_ret, &ocl_the_device);
    case CL_PROGRAM_SOURCE: return ocl_info_str(size, value, size_ret, p->source ? p->source : "");
    case CL_PROGRAM_BINARY_SIZES: return ocl_info_size(size, value, size_ret, p->binary ? p->binary_size : 0);
    case CL_PROGRAM_BINARIES: {
      /* An array of one pointer, to memory the application provides. */
      if (value) {
        if (size < sizeof(unsigned char*)) return CL_INVALID_VALUE;
        unsigned char* dst = *(unsigned char**)value;
        if (dst && p->binary) memcpy(dst, p->binary, p->binary_size);
      }
      if (size_ret) *size_ret = sizeof(unsigned char*);
      return CL_SUCCESS;
    }
    case CL_PROGRAM_NUM_KERNELS:
      if (p->status != CL_BUILD_SUCCESS) return CL_INVALID_PROGRAM_EXECUTABLE;
      return ocl_info_size(size, value, size_ret, p->kernel_count);
    case CL_PROGRAM_KERNEL_NAMES: {
      if (p->status != CL_BUILD_SUCCESS) return CL_INVALID_PROGRAM_EXECUTABLE;
      char* names = kernel_names(p);
      if (!names) return CL_OUT_OF_HOST_MEMORY;
      cl_int err = ocl_info_str(size, value, size_ret, names);
      free(names);
      return err;
    }
    default: return CL_INVALID_VALUE;
  }
}

cl_int CL_API_CALL ocl_clGetProgramInfo(cl_program p, cl_program_info param, size_t size, void* value,
                                        size_t* size_ret) {
  if (!ocl_valid(p, OCL_MAGIC_PROGRAM)) return CL_INVALID_PROGRAM;
  pthread_mutex_lock(&p->lock);
  cl_int err = program_info_locked(p, param, size, value, size_ret);
  pthread_mutex_unlock(&p->lock);
  return err;
}

cl_int CL_API_CALL ocl_clGetProgramBuildInfo(cl_program p, cl_device_id device, cl_program_build_info param,
                                             size_t size, void* value, size_t* size_ret) {
  if (!ocl_valid(p, OCL_MAGIC_PROGRAM)) return CL_INVALID_PROGRAM;
  if (device != &ocl_the_device) return CL_INVALID_DEVICE;
  pthread_mutex_lock(&p->lock);
  cl_int err;
  switch (param) {
    case CL_PROGRAM_BUILD_STATUS: err = ocl_info(size, value, size_ret, &p->status, sizeof p->status); break;
    case CL_PROGRAM_BUILD_OPTIONS: err = ocl_info_str(size, value, size_ret, p->options ? p->options : ""); break;
    case CL_PROGRAM_BUILD_LOG: err = ocl_info_str(size, value, size_ret, p->log ? p->log : ""); break;
    case CL_PROGRAM_BINARY_TYPE:
      err = ocl_info_uint(size, value, size_ret,
                          p->status == CL_BUILD_SUCCESS ? CL_PROGRAM_BINARY_TYPE_EXECUTABLE : CL_PROGRAM_BINARY_TYPE_NONE);
      break;
    default: err = CL_INVALID_VALUE;
  }
  pthread_mutex_unlock(&p->lock);
  return err;
}
