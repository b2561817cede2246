/* cltap HSA test double -- host functions that stand in for kernels. */
#include "double.h"

#include <string.h>

#define MAX_HANDLERS 64
#define NAME_MAX_LEN 256

static struct {
  char name[NAME_MAX_LEN];
  cltap_double_kernel_fn fn;
  void* data;
} handlers[MAX_HANDLERS];
static int handler_count;
static pthread_mutex_t handler_lock = PTHREAD_MUTEX_INITIALIZER;

/* "foo.kd" and "foo" name the same kernel. */
static void base_name(const char* in, char* out) {
  snprintf(out, NAME_MAX_LEN, "%s", in);
  size_t n = strlen(out);
  if (n > 3 && strcmp(out + n - 3, ".kd") == 0) out[n - 3] = 0;
}

DBL_EXPORT int cltap_double_set_kernel_handler(const char* kernel_name, cltap_double_kernel_fn fn, void* data) {
  if (!kernel_name) return -1;
  char name[NAME_MAX_LEN];
  base_name(kernel_name, name);
  int rc = 0;
  pthread_mutex_lock(&handler_lock);
  int i;
  for (i = 0; i < handler_count; i++)
    if (strcmp(handlers[i].name, name) == 0) break;
  if (i == handler_count) {
    if (!fn) goto out;
    if (handler_count == MAX_HANDLERS) {
      rc = -1;
      goto out;
    }
    handler_count++;
    memcpy(handlers[i].name, name, sizeof name);
  }
  handlers[i].fn = fn;
  handlers[i].data = data;
out:
  pthread_mutex_unlock(&handler_lock);
  return rc;
}

void dbl_run_kernel(const hsa_kernel_dispatch_packet_t* pkt) {
  char full[NAME_MAX_LEN], name[NAME_MAX_LEN];
  if (!dbl_kernel_name(pkt->kernel_object, full, sizeof full)) {
    dbl_log("dispatch of unknown kernel object %#llx: recorded only", (unsigned long long)pkt->kernel_object);
    return;
  }
  base_name(full, name);
  cltap_double_kernel_fn fn = NULL;
  void* data = NULL;
  pthread_mutex_lock(&handler_lock);
  for (int i = 0; i < handler_count; i++)
    if (strcmp(handlers[i].name, name) == 0) {
      fn = handlers[i].fn;
      data = handlers[i].data;
    }
  pthread_mutex_unlock(&handler_lock);
  dbl_log("dispatch of %s (grid %ux%ux%u)%s", full, pkt->grid_size_x, pkt->grid_size_y, pkt->grid_size_z,
          fn ? ": running its host function" : "");
  if (fn) fn(pkt, data);
}
