// The GPU-shaped kernels' tile sizes, chosen to fit the device's local memory and work-group
// limits before a program is built (see chooseGpuTiles in runtime.hpp).

#include <algorithm>
#include <functional>
#include <sstream>
#include <string>

#include "attnlab/error.hpp"
#include "opencl/runtime.hpp"

namespace attnlab::opencl {

namespace {

constexpr int kGpuQueries = 64;  // BQ at most: queries per work-group in the GPU fused kernel
constexpr int kGpuKeys = 16;     // BKG at most: keys per local-memory tile in the GPU fused kernel
constexpr int kGpuTile = 16;     // TILE at most: edge of the GPU materialised tiles

std::string kib(std::size_t bytes) {
  std::ostringstream o;
  o << bytes / 1024.0 << " KiB";
  return o.str();
}

int largestPowerOfTwo(int start, const std::function<bool(std::size_t)>& fits) {
  for (int t = start; t >= 1; t /= 2)
    if (fits(static_cast<std::size_t>(t))) return t;
  return 0;
}

Error workGroupError(const DeviceLimits& limits) {
  return Error(ErrorCode::kBackend,
               "the GPU-shaped kernels need work-groups of at least 1 work-item; the device "
               "allows " +
                   std::to_string(std::min(limits.max_work_group, limits.max_work_item[0])) +
                   " (CL_DEVICE_MAX_WORK_GROUP_SIZE / CL_DEVICE_MAX_WORK_ITEM_SIZES)");
}

Error localMemoryError(const DeviceLimits& limits, std::size_t needed, const char* what, int d_k,
                       int d_v) {
  return Error(ErrorCode::kBackend,
               "the GPU-shaped kernels need " + kib(needed) + " of local memory (" + what +
                   ") at d_k = " + std::to_string(d_k) + ", d_v = " + std::to_string(d_v) +
                   "; the device has " + kib(limits.local_memory_bytes) +
                   " (CL_DEVICE_LOCAL_MEM_SIZE)");
}

}  // namespace

// BQ and BKG of flash_fwd_gpu: BQ work-items per group, BKG·(d_k + d_v) floats of local memory.
void fusedTiles(const DeviceLimits& limits, int d_k, int d_v, GpuTiles& tiles) {
  const std::size_t items = std::min(limits.max_work_group, limits.max_work_item[0]);
  const std::size_t f = sizeof(float), local = limits.local_memory_bytes;
  tiles.queries = largestPowerOfTwo(kGpuQueries, [&](std::size_t t) { return t <= items; });
  if (tiles.queries == 0) throw workGroupError(limits);
  tiles.keys = largestPowerOfTwo(kGpuKeys, [&](std::size_t t) {
    return t * static_cast<std::size_t>(d_k + d_v) * f <= local;
  });
  if (tiles.keys == 0)
    throw localMemoryError(limits, static_cast<std::size_t>(d_k + d_v) * f, "one key of K and V",
                           d_k, d_v);
}

// TILE of the materialised pass kernels: TILE² work-items per group in both; row_norm_gpu stages
// TILE rows of K (TILE·d_k floats), write_probs_gpu a TILE × TILE tile of Q and a TILE × (TILE + 1)
// tile of K.
void materializedTiles(const DeviceLimits& limits, int d_k, int d_v, GpuTiles& tiles) {
  const std::size_t items = std::min(limits.max_work_group, limits.max_work_item[0]);
  const std::size_t f = sizeof(float), local = limits.local_memory_bytes;
  auto fits_memory = [&](std::size_t t) {
    return t * static_cast<std::size_t>(d_k) * f <= local && (t * t + t * (t + 1)) * f <= local;
  };
  tiles.tile = largestPowerOfTwo(kGpuTile, [&](std::size_t t) {
    return t * t <= items && t <= limits.max_work_item[1] && fits_memory(t);
  });
  if (tiles.tile > 0) return;
  if (!fits_memory(1))
    throw localMemoryError(limits, std::max<std::size_t>(d_k, 3) * f, "one row of K", d_k, d_v);
  throw workGroupError(limits);
}

GpuTiles chooseGpuTiles(const DeviceLimits& limits, int d_k, int d_v) {
  GpuTiles tiles;
  fusedTiles(limits, d_k, d_v, tiles);
  materializedTiles(limits, d_k, d_v, tiles);
  return tiles;
}

}  // namespace attnlab::opencl
