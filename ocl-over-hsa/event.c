/* cltap OpenCL-over-HSA test double -- events.
 *
 * An event is made for every command; the command holds one reference and
 * the application one more when it asked for the event. Status changes are
 * made by the queue's worker thread under one lock, and every waiter sleeps
 * on one condition variable. QUEUED and SUBMIT are host times
 * (CLOCK_MONOTONIC ns); START and END come from HSA profiling (aql.c,
 * transfer.c) on a queue with CL_QUEUE_PROFILING_ENABLE. Callbacks
 * (clSetEventCallback) run on the thread that changes the status, outside
 * the lock, once the status reaches the one they were set for (any error
 * counts as CL_COMPLETE); set after that, they run at once. Each holds a
 * reference to its event until it has run. */
#include "icd.h"

#include <stdlib.h>

static pthread_mutex_t event_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t event_cond = PTHREAD_COND_INITIALIZER;

cl_event ocl_event_new(cl_command_queue q, cl_command_type type) {
  cl_event e = calloc(1, sizeof *e);
  if (!e) return NULL;
  ocl_header_init(&e->hdr, OCL_MAGIC_EVENT);
  e->context = q->context;
  e->queue = q;
  e->type = type;
  e->status = CL_QUEUED;
  e->profiled = (q->properties & CL_QUEUE_PROFILING_ENABLE) != 0;
  e->queued = ocl_now_ns();
  ocl_context_retain(q->context);
  ocl_queue_hold_memory(q);
  return e;
}

void ocl_event_retain(cl_event e) { ocl_retain(&e->hdr); }

void ocl_event_release(cl_event e) {
  if (!ocl_unref(&e->hdr)) return;
  cl_context c = e->context;
  cl_command_queue q = e->queue;
  free(e);
  ocl_queue_drop_memory(q);
  ocl_context_release(c);
}

struct ocl_event_callback {
  struct ocl_event_callback* next;
  cl_int type;
  void(CL_CALLBACK* fn)(cl_event, cl_int, void*);
  void* data;
};

/* Runs (and frees) the callbacks of `list`, in the order they were set. */
static void run_callbacks(cl_event e, struct ocl_event_callback* list, cl_int status) {
  while (list) {
    struct ocl_event_callback* n = list->next;
    list->fn(e, status < 0 ? status : list->type, list->data);
    free(list);
    ocl_event_release(e);
    list = n;
  }
}

/* Takes the callbacks due at `status` off `e`, keeping both lists in the
 * order the callbacks were set (lock held). */
static struct ocl_event_callback* due(cl_event e, cl_int status) {
  struct ocl_event_callback *go = NULL, **go_end = &go, **keep_end = &e->callbacks;
  for (struct ocl_event_callback* c = e->callbacks; c;) {
    struct ocl_event_callback* n = c->next;
    c->next = NULL;
    if (status <= c->type) {
      *go_end = c;
      go_end = &c->next;
    } else {
      *keep_end = c;
      keep_end = &c->next;
    }
    c = n;
  }
  *keep_end = NULL;
  return go;
}

void ocl_event_set_status(cl_event e, cl_int status) {
  pthread_mutex_lock(&event_lock);
  e->status = status;
  struct ocl_event_callback* go = due(e, status);
  pthread_cond_broadcast(&event_cond);
  pthread_mutex_unlock(&event_lock);
  run_callbacks(e, go, status);
}

cl_int CL_API_CALL ocl_clSetEventCallback(cl_event e, cl_int type, void(CL_CALLBACK* fn)(cl_event, cl_int, void*),
                                          void* data) {
  if (!ocl_valid(e, OCL_MAGIC_EVENT)) return CL_INVALID_EVENT;
  if (!fn || (type != CL_COMPLETE && type != CL_SUBMITTED && type != CL_RUNNING)) return CL_INVALID_VALUE;
  struct ocl_event_callback* c = malloc(sizeof *c);
  if (!c) return CL_OUT_OF_HOST_MEMORY;
  *c = (struct ocl_event_callback){NULL, type, fn, data};
  ocl_event_retain(e);
  pthread_mutex_lock(&event_lock);
  const cl_int status = e->status;
  const bool now = status <= type;
  if (!now) {
    struct ocl_event_callback** end = &e->callbacks;
    while (*end) end = &(*end)->next;
    *end = c;
  }
  pthread_mutex_unlock(&event_lock);
  if (now) run_callbacks(e, c, status);
  return CL_SUCCESS;
}

cl_int ocl_event_status(cl_event e) {
  pthread_mutex_lock(&event_lock);
  cl_int s = e->status;
  pthread_mutex_unlock(&event_lock);
  return s;
}

cl_int ocl_event_wait(cl_event e) {
  pthread_mutex_lock(&event_lock);
  while (e->status > CL_COMPLETE) pthread_cond_wait(&event_cond, &event_lock);
  cl_int s = e->status;
  pthread_mutex_unlock(&event_lock);
  return s;
}

cl_int CL_API_CALL ocl_clWaitForEvents(cl_uint num_events, const cl_event* events) {
  if (num_events == 0 || !events) return CL_INVALID_VALUE;
  for (cl_uint i = 0; i < num_events; i++) {
    if (!ocl_valid(events[i], OCL_MAGIC_EVENT)) return CL_INVALID_EVENT;
    if (events[i]->context != events[0]->context) return CL_INVALID_CONTEXT;
  }
  cl_int err = CL_SUCCESS;
  for (cl_uint i = 0; i < num_events; i++)
    if (ocl_event_wait(events[i]) < 0) err = CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST;
  return err;
}

cl_int CL_API_CALL ocl_clRetainEvent(cl_event e) {
  if (!ocl_valid(e, OCL_MAGIC_EVENT)) return CL_INVALID_EVENT;
  ocl_event_retain(e);
  return CL_SUCCESS;
}

cl_int CL_API_CALL ocl_clReleaseEvent(cl_event e) {
  if (!ocl_valid(e, OCL_MAGIC_EVENT)) return CL_INVALID_EVENT;
  ocl_event_release(e);
  return CL_SUCCESS;
}

cl_int CL_API_CALL ocl_clGetEventInfo(cl_event e, cl_event_info param, size_t size, void* value, size_t* size_ret) {
  if (!ocl_valid(e, OCL_MAGIC_EVENT)) return CL_INVALID_EVENT;
  switch (param) {
    case CL_EVENT_COMMAND_QUEUE: return ocl_info_ptr(size, value, size_ret, e->queue);
    case CL_EVENT_CONTEXT: return ocl_info_ptr(size, value, size_ret, e->context);
    case CL_EVENT_COMMAND_TYPE: return ocl_info_uint(size, value, size_ret, e->type);
    case CL_EVENT_COMMAND_EXECUTION_STATUS: {
      cl_int s = ocl_event_status(e);
      return ocl_info(size, value, size_ret, &s, sizeof s);
    }
    case CL_EVENT_REFERENCE_COUNT: return ocl_info_uint(size, value, size_ret, ocl_refcount(&e->hdr));
    default: return CL_INVALID_VALUE;
  }
}

cl_int CL_API_CALL ocl_clGetEventProfilingInfo(cl_event e, cl_profiling_info param, size_t size, void* value,
                                               size_t* size_ret) {
  if (!ocl_valid(e, OCL_MAGIC_EVENT)) return CL_INVALID_EVENT;
  if (!e->profiled || ocl_event_status(e) != CL_COMPLETE) return CL_PROFILING_INFO_NOT_AVAILABLE;
  switch (param) {
    case CL_PROFILING_COMMAND_QUEUED: return ocl_info_ulong(size, value, size_ret, e->queued);
    case CL_PROFILING_COMMAND_SUBMIT: return ocl_info_ulong(size, value, size_ret, e->submit);
    case CL_PROFILING_COMMAND_START: return ocl_info_ulong(size, value, size_ret, e->start);
    case CL_PROFILING_COMMAND_END:
    case CL_PROFILING_COMMAND_COMPLETE: return ocl_info_ulong(size, value, size_ret, e->end);
    default: return CL_INVALID_VALUE;
  }
}
