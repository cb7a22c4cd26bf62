// OpenCL device discovery through the Khronos C++ bindings.

#include <CL/opencl.hpp>
#include <mutex>

#include "attnlab/backend.hpp"
#include "opencl/runtime.hpp"

namespace attnlab {

namespace opencl {
/// Every device of every platform, in listOpenClDevices() order. Throws cl::Error when there is no
/// platform.
std::vector<cl::Device> allDevices() {
  // Some ICD loaders and drivers are not safe when two threads enumerate platforms at once (seen
  // as an intermittent crash with the window listing devices while a backend starts).
  static std::mutex mutex;
  const std::lock_guard<std::mutex> lock(mutex);
  std::vector<cl::Platform> platforms;
  cl::Platform::get(&platforms);
  std::vector<cl::Device> out;
  for (const cl::Platform& platform : platforms) {
    std::vector<cl::Device> devices;
    try {
      platform.getDevices(CL_DEVICE_TYPE_ALL, &devices);
    } catch (const cl::Error&) {
      continue;  // a platform without devices reports CL_DEVICE_NOT_FOUND
    }
    out.insert(out.end(), devices.begin(), devices.end());
  }
  return out;
}
}  // namespace opencl

namespace {
std::string deviceType(cl_device_type type) {
  if (type & CL_DEVICE_TYPE_GPU) return "gpu";
  if (type & CL_DEVICE_TYPE_CPU) return "cpu";
  if (type & CL_DEVICE_TYPE_ACCELERATOR) return "accelerator";
  return "other";
}
}  // namespace

std::vector<DeviceInfo> listOpenClDevices(std::string* why) {
  std::vector<DeviceInfo> out;
  try {
    for (const cl::Device& d : opencl::allDevices()) {
      DeviceInfo info;
      info.platform = cl::Platform(d.getInfo<CL_DEVICE_PLATFORM>()).getInfo<CL_PLATFORM_NAME>();
      info.name = d.getInfo<CL_DEVICE_NAME>();
      info.type = deviceType(d.getInfo<CL_DEVICE_TYPE>());
      info.version = d.getInfo<CL_DEVICE_VERSION>();
      info.compute_units = static_cast<int>(d.getInfo<CL_DEVICE_MAX_COMPUTE_UNITS>());
      info.global_memory_bytes = d.getInfo<CL_DEVICE_GLOBAL_MEM_SIZE>();
      out.push_back(std::move(info));
    }
    if (out.empty() && why) *why = "no OpenCL device found on any platform";
  } catch (const cl::Error& e) {
    if (why) *why = std::string("no OpenCL platform (") + e.what() + " returned " +
                    opencl::errorName(e.err()) + ")";
    out.clear();
  }
  return out;
}

}  // namespace attnlab
