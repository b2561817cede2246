/* cltap OpenCL-over-HSA test double -- command queues and their workers.
 *
 * As in ROCclr, each command queue owns an HSA queue on the GPU agent
 * (hsa_queue_create through the exported function, so an HSA tool's
 * replacement -- an intercept queue -- applies) and a worker thread. The
 * application's thread only builds a command and appends it to the queue's
 * list; the worker takes the commands in order, writes their AQL packets,
 * rings the doorbell and waits for each completion signal before the next
 * command (the queue is in order; ROCclr would pipeline, the double keeps
 * one command in flight).
 *
 * Lifetimes: the application's references (hdr.refs) decide when the queue
 * is torn down: the worker finishes what was queued, is joined, and the HSA
 * queue is destroyed. Events keep only the struct's memory alive
 * (memory_refs), so CL_EVENT_COMMAND_QUEUE stays readable; the worker never
 * drops the last application reference itself, so it is never asked to
 * join itself. */
#include "command.h"

#include <stdlib.h>
#include <string.h>

#define HSA_QUEUE_SIZE 1024

/* ---- commands ---- */

ocl_command* ocl_command_new(ocl_command_kind kind, cl_uint mem_count) {
  ocl_command* c = calloc(1, sizeof *c);
  if (!c) return NULL;
  c->kind = kind;
  if (mem_count) {
    c->mems = calloc(mem_count, sizeof *c->mems);
    if (!c->mems) {
      free(c);
      return NULL;
    }
  }
  return c;
}

void ocl_command_add_mem(ocl_command* c, cl_mem m) {
  ocl_mem_retain(m);
  c->mems[c->mem_count++] = m;
}

void ocl_command_free(ocl_command* c) {
  for (cl_uint i = 0; i < c->wait_count; i++) ocl_event_release(c->wait[i]);
  for (cl_uint i = 0; i < c->mem_count; i++) ocl_mem_release(c->mems[i]);
  if (c->kernel) ocl_kernel_release(c->kernel);
  if (c->event) ocl_event_release(c->event);
  if (c->kind == OCL_CMD_NDRANGE) free(c->nd.kernarg);
  free(c->wait);
  free(c->mems);
  free(c);
}

static cl_int check_wait_list(cl_command_queue q, cl_uint n, const cl_event* list) {
  if ((n == 0) != (list == NULL)) return CL_INVALID_EVENT_WAIT_LIST;
  for (cl_uint i = 0; i < n; i++) {
    if (!ocl_valid(list[i], OCL_MAGIC_EVENT)) return CL_INVALID_EVENT_WAIT_LIST;
    if (list[i]->context != q->context) return CL_INVALID_CONTEXT;
  }
  return CL_SUCCESS;
}

cl_int ocl_command_submit(cl_command_queue q, ocl_command* c, cl_command_type type, cl_uint num_wait,
                          const cl_event* wait, cl_event* event_out, bool blocking) {
  cl_int err = check_wait_list(q, num_wait, wait);
  if (err == CL_SUCCESS && num_wait) {
    c->wait = calloc(num_wait, sizeof *c->wait);
    if (!c->wait) err = CL_OUT_OF_HOST_MEMORY;
    for (cl_uint i = 0; c->wait && i < num_wait; i++) {
      ocl_event_retain(wait[i]);
      c->wait[c->wait_count++] = wait[i];
    }
  }
  if (err == CL_SUCCESS && !(c->event = ocl_event_new(q, type))) err = CL_OUT_OF_HOST_MEMORY;
  if (err != CL_SUCCESS) {
    ocl_command_free(c);
    return err;
  }
  cl_event e = c->event;
  if (event_out) {
    ocl_event_retain(e);
    *event_out = e;
  }
  if (blocking) ocl_event_retain(e); /* the worker may drop its reference first */
  pthread_mutex_lock(&q->lock);
  if (q->tail)
    q->tail->next = c;
  else
    q->head = c;
  q->tail = c;
  q->enqueued++;
  pthread_cond_broadcast(&q->cond);
  pthread_mutex_unlock(&q->lock);
  if (!blocking) return CL_SUCCESS;
  cl_int status = ocl_event_wait(e);
  ocl_event_release(e);
  return status < 0 ? CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST : CL_SUCCESS;
}

/* ---- the worker ---- */

static void run(cl_command_queue q, ocl_command* c) {
  cl_event e = c->event;
  cl_int status = CL_COMPLETE;
  for (cl_uint i = 0; i < c->wait_count; i++)
    if (ocl_event_wait(c->wait[i]) < 0) status = CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST;
  e->submit = ocl_now_ns();
  ocl_event_set_status(e, CL_SUBMITTED);
  if (status == CL_COMPLETE) {
    ocl_event_set_status(e, CL_RUNNING);
    cl_int err = CL_SUCCESS;
    switch (c->kind) {
      case OCL_CMD_NDRANGE: err = ocl_aql_run(q, c); break;
      case OCL_CMD_COPY: err = ocl_copy_run(q, c); break;
      case OCL_CMD_MARKER: e->start = e->end = ocl_now_ns(); break;
    }
    if (err != CL_SUCCESS) status = err;
  }
  if (status != CL_COMPLETE) e->start = e->end = e->submit;
  ocl_event_set_status(e, status);
}

static void* worker_main(void* arg) {
  cl_command_queue q = arg;
  for (;;) {
    pthread_mutex_lock(&q->lock);
    while (!q->head && !q->stop) pthread_cond_wait(&q->cond, &q->lock);
    ocl_command* c = q->head;
    if (!c) { /* stopped, and nothing is left */
      pthread_mutex_unlock(&q->lock);
      break;
    }
    q->head = c->next;
    if (!q->head) q->tail = NULL;
    pthread_mutex_unlock(&q->lock);
    run(q, c);
    ocl_command_free(c);
    pthread_mutex_lock(&q->lock);
    q->completed++;
    pthread_cond_broadcast(&q->cond);
    pthread_mutex_unlock(&q->lock);
  }
  return NULL;
}

/* ---- queues ---- */

static void queue_error(hsa_status_t status, hsa_queue_t* queue, void* data) {
  ocl_log("HSA queue %llu reported error %#x", (unsigned long long)queue->id, (unsigned)status);
}

static cl_command_queue queue_new(cl_context context, cl_device_id device, cl_command_queue_properties props,
                                  cl_int* errcode_ret) {
  if (!ocl_valid(context, OCL_MAGIC_CONTEXT)) {
    ocl_set_err(errcode_ret, CL_INVALID_CONTEXT);
    return NULL;
  }
  if (device != &ocl_the_device) {
    ocl_set_err(errcode_ret, CL_INVALID_DEVICE);
    return NULL;
  }
  if (props & ~(cl_command_queue_properties)(CL_QUEUE_PROFILING_ENABLE | CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE)) {
    ocl_set_err(errcode_ret, CL_INVALID_VALUE);
    return NULL;
  }
  if (props & CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE) {
    ocl_set_err(errcode_ret, CL_INVALID_QUEUE_PROPERTIES);
    return NULL;
  }
  cl_command_queue q = calloc(1, sizeof *q);
  if (!q) {
    ocl_set_err(errcode_ret, CL_OUT_OF_HOST_MEMORY);
    return NULL;
  }
  ocl_header_init(&q->hdr, OCL_MAGIC_QUEUE);
  q->context = context;
  q->properties = props;
  q->memory_refs = 1; /* the application side's, dropped at teardown */
  if (hsa_queue_create(ocl_rt.gpu, HSA_QUEUE_SIZE, HSA_QUEUE_TYPE_MULTI, queue_error, NULL, UINT32_MAX, UINT32_MAX,
                       &q->hsa_queue) != HSA_STATUS_SUCCESS) {
    free(q);
    ocl_set_err(errcode_ret, CL_OUT_OF_RESOURCES);
    return NULL;
  }
  if (props & CL_QUEUE_PROFILING_ENABLE) {
    hsa_amd_profiling_set_profiler_enabled(q->hsa_queue, 1);
    hsa_amd_profiling_async_copy_enable(true);
  }
  pthread_mutex_init(&q->lock, NULL);
  pthread_cond_init(&q->cond, NULL);
  if (pthread_create(&q->worker, NULL, worker_main, q) != 0) {
    hsa_queue_destroy(q->hsa_queue);
    pthread_mutex_destroy(&q->lock);
    pthread_cond_destroy(&q->cond);
    free(q);
    ocl_set_err(errcode_ret, CL_OUT_OF_HOST_MEMORY);
    return NULL;
  }
  pthread_setname_np(q->worker, "cltap-ocl-queue");
  ocl_context_retain(context);
  ocl_runtime_queue_link(q);
  ocl_log("command queue on HSA queue %llu%s", (unsigned long long)q->hsa_queue->id,
          (props & CL_QUEUE_PROFILING_ENABLE) ? " (profiling)" : "");
  ocl_set_err(errcode_ret, CL_SUCCESS);
  return q;
}

cl_command_queue CL_API_CALL ocl_clCreateCommandQueue(cl_context context, cl_device_id device,
                                                      cl_command_queue_properties props, cl_int* errcode_ret) {
  return queue_new(context, device, props, errcode_ret);
}

cl_command_queue CL_API_CALL ocl_clCreateCommandQueueWithProperties(cl_context context, cl_device_id device,
                                                                    const cl_queue_properties* list,
                                                                    cl_int* errcode_ret) {
  cl_command_queue_properties props = 0;
  size_t n = 0;
  for (; list && list[n]; n += 2) {
    if (list[n] != CL_QUEUE_PROPERTIES || n >= 2) { /* no CL_QUEUE_SIZE: no device-side queues */
      ocl_set_err(errcode_ret, CL_INVALID_VALUE);
      return NULL;
    }
    props = (cl_command_queue_properties)list[n + 1];
  }
  cl_command_queue q = queue_new(context, device, props, errcode_ret);
  if (q && list) {
    memcpy(q->props_array, list, (n + 1) * sizeof *list);
    q->props_array_size = (n + 1) * sizeof *list;
  }
  return q;
}

void ocl_queue_hold_memory(cl_command_queue q) { __atomic_add_fetch(&q->memory_refs, 1, __ATOMIC_RELAXED); }

void ocl_queue_drop_memory(cl_command_queue q) {
  if (__atomic_sub_fetch(&q->memory_refs, 1, __ATOMIC_ACQ_REL) != 0) return;
  pthread_mutex_destroy(&q->lock);
  pthread_cond_destroy(&q->cond);
  free(q);
}

void ocl_queue_teardown(cl_command_queue q) {
  pthread_mutex_lock(&q->lock);
  bool already = q->stop;
  q->stop = true;
  pthread_cond_broadcast(&q->cond);
  pthread_mutex_unlock(&q->lock);
  if (already) return;
  pthread_join(q->worker, NULL);
  hsa_queue_destroy(q->hsa_queue);
  q->hsa_queue = NULL;
  ocl_runtime_queue_unlink(q);
}

cl_int CL_API_CALL ocl_clRetainCommandQueue(cl_command_queue q) {
  if (!ocl_valid(q, OCL_MAGIC_QUEUE)) return CL_INVALID_COMMAND_QUEUE;
  ocl_retain(&q->hdr);
  return CL_SUCCESS;
}

cl_int CL_API_CALL ocl_clReleaseCommandQueue(cl_command_queue q) {
  if (!ocl_valid(q, OCL_MAGIC_QUEUE)) return CL_INVALID_COMMAND_QUEUE;
  if (!ocl_unref(&q->hdr)) return CL_SUCCESS;
  /* The last release flushes and waits for the queued commands. */
  ocl_queue_teardown(q);
  cl_context c = q->context;
  ocl_queue_drop_memory(q);
  ocl_context_release(c);
  return CL_SUCCESS;
}

cl_int CL_API_CALL ocl_clFinish(cl_command_queue q) {
  if (!ocl_valid(q, OCL_MAGIC_QUEUE)) return CL_INVALID_COMMAND_QUEUE;
  pthread_mutex_lock(&q->lock);
  uint64_t target = q->enqueued;
  while (q->completed < target) pthread_cond_wait(&q->cond, &q->lock);
  pthread_mutex_unlock(&q->lock);
  return CL_SUCCESS;
}

/* The worker takes each command as soon as it is queued: nothing to flush. */
cl_int CL_API_CALL ocl_clFlush(cl_command_queue q) {
  return ocl_valid(q, OCL_MAGIC_QUEUE) ? CL_SUCCESS : CL_INVALID_COMMAND_QUEUE;
}

cl_int CL_API_CALL ocl_clGetCommandQueueInfo(cl_command_queue q, cl_command_queue_info param, size_t size,
                                             void* value, size_t* size_ret) {
  if (!ocl_valid(q, OCL_MAGIC_QUEUE)) return CL_INVALID_COMMAND_QUEUE;
  switch (param) {
    case CL_QUEUE_CONTEXT: return ocl_info_ptr(size, value, size_ret, q->context);
    case CL_QUEUE_DEVICE: return ocl_info_ptr(size, value, size_ret, &ocl_the_device);
    case CL_QUEUE_REFERENCE_COUNT: return ocl_info_uint(size, value, size_ret, ocl_refcount(&q->hdr));
    case CL_QUEUE_PROPERTIES: return ocl_info_ulong(size, value, size_ret, q->properties);
    case CL_QUEUE_PROPERTIES_ARRAY: return ocl_info(size, value, size_ret, q->props_array, q->props_array_size);
    default: return CL_INVALID_VALUE;
  }
}
