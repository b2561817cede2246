// The generator of golden.txt: the lines RCP's .atp writer prints for the
// values of golden.rs, made by the same iostream operations RCP's writer
// uses (std::left, std::setw, libstdc++'s output of a pointer), so that the
// column widths and number forms come from the C++ library, not from
// cltap's writer. Written for cltap from the layouts that RCP's sources
// name (the file and function are said beside each case); none of RCP's
// code is here. tests/atp_golden.rs compiles and runs it and compares its
// output with the committed golden.txt; golden.rs and hsa.rs read golden.txt.
//
//   g++ -std=c++11 -O0 -o golden formats/src/atp/tests/golden.cpp && ./golden > formats/src/atp/tests/golden.txt
//
// Output: for each case, a line "@@ <name>", then the case's text.
#include <cstdint>
#include <iomanip>
#include <iostream>
#include <sstream>
#include <string>

using std::left;
using std::setw;

static void emit(const char* name, const std::string& text) { std::cout << "@@ " << name << "\n" << text; }

// A handle, as RCP prints a cl_* object: the pointer through the stream.
static const void* handle(uint64_t v) { return reinterpret_cast<const void*>(static_cast<uintptr_t>(v)); }

// CLTraceAgent/CLAPIDefBase.cpp, CLAPIBase::WriteTimestampEntry.
static void call_columns(std::ostream& s, unsigned type, const char* name, uint64_t start, uint64_t end) {
  s << left << setw(5) << type << setw(45) << name << setw(21) << start << setw(21) << end;
}

// CLAPIDefBase.cpp, CLEnqueueAPIBase::WriteTimestampEntry, for the enqueues
// of golden.rs: queue 1 and context 1 at fixed addresses, device NVIDIA_H200.
static void enqueue_columns(std::ostream& s, unsigned cmd, const char* cmd_name, uint64_t queued, uint64_t submit,
                            uint64_t start, uint64_t end) {
  s << left << setw(8) << cmd << setw(40) << cmd_name << setw(21) << queued << setw(21) << submit << setw(21)
    << start << setw(21) << end << setw(10) << 1u << setw(25) << handle(0x55d0c8a3b2c0ull) << setw(10) << 1u
    << setw(25) << handle(0x55d0c8a1f010ull) << setw(30) << "NVIDIA_H200";
}

// HSAFdnTrace/HSAAqlPacketInfo.cpp, HSAAqlKernelDispatchPacket::WritePacketEntry,
// for the dispatches of hsa.rs (tests/mod.rs's `dispatch`): a kernel handle
// in upper-case hex after "0x", the agent gfx90a, the packet's fields.
static void dispatch_line(std::ostream& s, const std::string& name, uint64_t handle, uint64_t start,
                          uint64_t queue_index, uint64_t packet_id, bool name_overflows) {
  std::ostringstream h;
  h << "0x" << std::hex << std::uppercase << handle;
  s << left << setw(50) << name;
  // A name wider than its column: cltap's writer keeps one space between
  // the fields, as for a long device name (golden.rs,
  // long_device_name_stays_a_separate_field); the columns alone would join them.
  if (name_overflows) s << " ";
  s << setw(21) << h.str() << setw(21) << start << setw(21) << start + 54000 << setw(64) << "gfx90a" << setw(21)
    << "{94215731018240}" << setw(21) << queue_index << setw(10) << 0u << setw(35)
    << "HSA_PACKET_TYPE_KERNEL_DISPATCH" << setw(21) << packet_id
    << "{770,3,256,1,1,0,1048576,1,1,0,0,139887310000192,139887309000000,0,{139887310213120}}" << "\n";
}

int main() {
  {
    // sprofile/AtpFile.cpp, AtpFileWriter::SaveToAtpFile: header keys and order.
    std::ostringstream s;
    s << "TraceFileVersion=" << "3.2" << "\n"
      << "ProfilerVersion=" << "5.6.7" << "\n"
      << "Application=" << "/opt/app" << "\n"
      << "ApplicationArgs=" << "-x" << "\n"
      << "WorkingDirectory=" << "/opt" << "\n"
      << "UserTimer=" << "False" << "\n"
      << "OS Version=" << "Linux" << "\n"
      << "DisplayName=" << "session1" << "\n";
    emit("header", s.str());
  }
  {
    // Common/APIInfoManagerBase.cpp, WriteAPITraceDataToStream: thread id, count.
    std::ostringstream s;
    s << 41877u << "\n" << 3u << "\n";
    emit("block_start", s.str());
  }
  {
    // APIInfoManagerBase.cpp, APIBase::WriteAPIEntry: "ret = name ( args )",
    // the arguments joined by ';' (the example in CLAtpFilePart::Parse).
    std::ostringstream s;
    const char* args[] = {"0x0B69F8C0", "CL_PLATFORM_ICD_SUFFIX_KHR", "0", "NULL", "[4]"};
    s << "CL_SUCCESS" << " = " << "clGetPlatformInfo" << " ( ";
    for (int i = 0; i < 5; i++) s << (i ? ";" : "") << args[i];
    s << " )" << "\n";
    emit("api_call", s.str());
  }
  {
    std::ostringstream s;
    call_columns(s, 39, "clSetKernelArg", 1717000000100ull, 1717000000350ull);
    s << "\n";
    emit("timestamp_call", s.str());
  }
  {
    // CLEnqueueAPIDefs.cpp, CLAPI_clEnqueueNDRangeKernel::WriteTimestampEntry:
    // kernel handle, name, then the sizes with fixed gaps.
    std::ostringstream s;
    call_columns(s, 66, "clEnqueueNDRangeKernel", 1717000001000ull, 1717000004500ull);
    enqueue_columns(s, 4592, "CL_COMMAND_NDRANGE_KERNEL", 1717000003900ull, 1717000005000ull, 1717000012000ull,
                    1717000095000ull);
    s << left << setw(25) << handle(0x55d0c8b40a80ull) << "vadd" << "      " << "{1024,768,4}" << "     "
      << "{16,16,1}" << "        " << "\n";
    emit("timestamp_ndrange_3d", s.str());
  }
  {
    // The same, with no local size from the application.
    std::ostringstream s;
    call_columns(s, 66, "clEnqueueNDRangeKernel", 1717000100000ull, 1717000102000ull);
    enqueue_columns(s, 4592, "CL_COMMAND_NDRANGE_KERNEL", 1717000101500ull, 1717000103000ull, 1717000110000ull,
                    1717000150000ull);
    s << left << setw(25) << handle(0x55d0c8b40a80ull) << "vadd" << "      " << "{4096,64}" << "     " << "{NULL}"
      << "        " << "\n";
    emit("timestamp_ndrange_2d", s.str());
  }
  {
    // CLAPIDefBase.cpp, CLEnqueueDataTransfer::WriteTimestampEntry: the bytes.
    std::ostringstream s;
    call_columns(s, 52, "clEnqueueReadBuffer", 1717000200000ull, 1717000260000ull);
    enqueue_columns(s, 4595, "CL_COMMAND_READ_BUFFER", 1717000200500ull, 1717000201000ull, 1717000210000ull,
                    1717000250000ull);
    s << left << setw(20) << 4194304ull << "\n";
    emit("timestamp_read_buffer", s.str());
  }
  {
    // CLAPIDefBase.cpp, CLEnqueueOther::WriteTimestampEntry: nothing after the device.
    std::ostringstream s;
    call_columns(s, 104, "clEnqueueMarkerWithWaitList", 1717000300000ull, 1717000300900ull);
    enqueue_columns(s, 4606, "CL_COMMAND_MARKER", 1717000300500ull, 1717000300600ull, 1717000301000ull,
                    1717000301000ull);
    s << "\n";
    emit("timestamp_marker", s.str());
  }
  {
    // AMDTActivityLogger.cpp, amdtBeginMarker: spaces as &nbsp;.
    std::ostringstream s;
    s << left << setw(20) << "clBeginPerfMarker" << setw(50) << "outer&nbsp;loop" << setw(20) << 1717000000050ull
      << "   " << "Solver&nbsp;phases" << "\n";
    emit("marker_begin", s.str());
  }
  {
    // AMDTActivityLogger.cpp, amdtEndMarker.
    std::ostringstream s;
    s << left << setw(20) << "clEndPerfMarker" << setw(20) << 1717000400000ull << "\n";
    emit("marker_end", s.str());
  }
  {
    // amdtBeginMarker's layout for a name of 50 bytes or more, and the
    // group RCP gives a marker begun without one.
    std::ostringstream s;
    s << "clBeginPerfMarker   " << std::string(60, 'x') << "   " << 1717000000060ull << "   " << "Default" << "\n";
    emit("marker_begin_long", s.str());
  }
  {
    // HSAFdnTrace/HSAAPIBase.cpp, HSAAPIBase::WriteAPIEntry.
    std::ostringstream s;
    const char* args[] = {"memory_pool={94215731020000}", "size=4096", "flags=0", "ptr=[0x7f3a10000000]"};
    s << "HSA_STATUS_SUCCESS" << " = " << "hsa_amd_memory_pool_allocate" << " ( ";
    for (int i = 0; i < 4; i++) s << (i ? ";" : "") << args[i];
    s << " )" << "\n";
    emit("hsa_api_call", s.str());
  }
  {
    // HSAAPIBase::WriteTimestampEntry: the same four columns as OpenCL's.
    std::ostringstream s;
    call_columns(s, 1, "hsa_init", 1717000000100ull, 1717000002300ull);
    s << "\n";
    emit("hsa_timestamp", s.str());
  }
  {
    // HSAAtpFile.cpp, HSAAtpFilePart::UpdateAsyncCopyTimestamps: the copy's times after them.
    std::ostringstream s;
    call_columns(s, 128, "hsa_amd_memory_async_copy", 1717000005000ull, 1717000005400ull);
    s << left << setw(21) << 1717000006000ull << setw(21) << 1717000090000ull << "\n";
    emit("hsa_timestamp_copy", s.str());
  }
  {
    std::ostringstream s;
    dispatch_line(s, "vadd", 0x7f3a2c001040ull + 3 * 0x40, 1717000010900ull, 0, 3, false);
    emit("hsa_dispatch", s.str());
  }
  {
    // HSAKernelDemangler.cpp, DemangleKernelName: spaces and commas escaped.
    std::ostringstream s;
    dispatch_line(s,
                  "void&nbsp;matmul<float&comma;&nbsp;16>(float&nbsp;const*&comma;&nbsp;float*&comma;&nbsp;"
                  "unsigned&nbsp;long)",
                  0x7f3a2c001040ull + 17 * 0x40, 1717000070000ull, 1, 17, true);
    emit("hsa_dispatch_demangled", s.str());
  }
  return 0;
}
