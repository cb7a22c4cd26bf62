// ggml's tensor types and their dequantisation to float32. Block layouts follow ggml's
// ggml-common.h; each formula is evaluated in float32 in the order ggml's reference dequantisers
// (ggml-quants.c) use, and this file is compiled with -ffp-contract=off, so no product and sum
// is fused into an FMA: the results equal ggml's scalar code and the gguf Python package's
// numpy dequantisers bit for bit (tests/data/quants/ holds the check).

#include <cstring>
#include <string>

#include "attnlab/error.hpp"
#include "attnlab/gguf.hpp"
#include "attnlab/safetensors.hpp"

namespace attnlab {
namespace {

constexpr int kQK = 32;    // elements per block of the 32-element types
constexpr int kQKK = 256;  // elements per super-block of the k-quants

// Every type ggml.h numbers, with its block size in elements and bytes (ggml.c type_traits).
// Numbers 4 and 5 (Q4_2, Q4_3) and 31–33, 36–38 (repacked Q4_0 / IQ4_NL) are retired from the
// format and stay unknown.
struct TypeRow {
  std::uint32_t number;
  GgmlTypeInfo info;
};
constexpr TypeRow kTypes[] = {
    {0, {"F32", 1, 4, true}},           {1, {"F16", 1, 2, true}},
    {2, {"Q4_0", kQK, 18, true}},       {3, {"Q4_1", kQK, 20, true}},
    {6, {"Q5_0", kQK, 22, true}},       {7, {"Q5_1", kQK, 24, true}},
    {8, {"Q8_0", kQK, 34, true}},       {9, {"Q8_1", kQK, 36, false}},
    {10, {"Q2_K", kQKK, 84, true}},     {11, {"Q3_K", kQKK, 110, true}},
    {12, {"Q4_K", kQKK, 144, true}},    {13, {"Q5_K", kQKK, 176, true}},
    {14, {"Q6_K", kQKK, 210, true}},    {15, {"Q8_K", kQKK, 292, false}},
    {16, {"IQ2_XXS", kQKK, 66, false}}, {17, {"IQ2_XS", kQKK, 74, false}},
    {18, {"IQ3_XXS", kQKK, 98, false}}, {19, {"IQ1_S", kQKK, 50, false}},
    {20, {"IQ4_NL", kQK, 18, true}},    {21, {"IQ3_S", kQKK, 110, false}},
    {22, {"IQ2_S", kQKK, 82, false}},   {23, {"IQ4_XS", kQKK, 136, true}},
    {24, {"I8", 1, 1, false}},          {25, {"I16", 1, 2, false}},
    {26, {"I32", 1, 4, false}},         {27, {"I64", 1, 8, false}},
    {28, {"F64", 1, 8, false}},         {29, {"IQ1_M", kQKK, 56, false}},
    {30, {"BF16", 1, 2, true}},         {34, {"TQ1_0", kQKK, 54, false}},
    {35, {"TQ2_0", kQKK, 66, false}},   {39, {"MXFP4", kQK, 17, false}},
    {40, {"NVFP4", 64, 36, false}},     {41, {"Q1_0", 128, 18, false}},
};

inline float half(const std::byte* p) {
  std::uint16_t bits;
  std::memcpy(&bits, p, 2);
  return halfToFloat(bits);
}

inline std::uint8_t u8(const std::byte* p) { return std::to_integer<std::uint8_t>(*p); }

// --- One block each: x points at the block, y receives its elements ------------------------

// block_q4_0 { half d; uint8 qs[16]; }: y[j] = (lo nibble − 8)·d, y[j + 16] = (hi nibble − 8)·d.
void blockQ4_0(const std::byte* x, float* y) {
  const float d = half(x);
  const std::byte* qs = x + 2;
  for (int j = 0; j < kQK / 2; ++j) {
    const int x0 = (u8(qs + j) & 0x0F) - 8;
    const int x1 = (u8(qs + j) >> 4) - 8;
    y[j] = static_cast<float>(x0) * d;
    y[j + kQK / 2] = static_cast<float>(x1) * d;
  }
}

// block_q4_1 { half d, m; uint8 qs[16]; }: y = q·d + m.
void blockQ4_1(const std::byte* x, float* y) {
  const float d = half(x);
  const float m = half(x + 2);
  const std::byte* qs = x + 4;
  for (int j = 0; j < kQK / 2; ++j) {
    const int x0 = u8(qs + j) & 0x0F;
    const int x1 = u8(qs + j) >> 4;
    y[j] = static_cast<float>(x0) * d + m;
    y[j + kQK / 2] = static_cast<float>(x1) * d + m;
  }
}

// block_q5_0 { half d; uint8 qh[4]; uint8 qs[16]; }: the fifth bit of element j is bit j of qh.
void blockQ5_0(const std::byte* x, float* y) {
  const float d = half(x);
  std::uint32_t qh;
  std::memcpy(&qh, x + 2, 4);
  const std::byte* qs = x + 6;
  for (int j = 0; j < kQK / 2; ++j) {
    const std::uint8_t xh0 = static_cast<std::uint8_t>(((qh >> (j + 0)) << 4) & 0x10);
    const std::uint8_t xh1 = static_cast<std::uint8_t>(((qh >> (j + 12))) & 0x10);
    const int x0 = ((u8(qs + j) & 0x0F) | xh0) - 16;
    const int x1 = ((u8(qs + j) >> 4) | xh1) - 16;
    y[j] = static_cast<float>(x0) * d;
    y[j + kQK / 2] = static_cast<float>(x1) * d;
  }
}

// block_q5_1 { half d, m; uint8 qh[4]; uint8 qs[16]; }: y = q·d + m.
void blockQ5_1(const std::byte* x, float* y) {
  const float d = half(x);
  const float m = half(x + 2);
  std::uint32_t qh;
  std::memcpy(&qh, x + 4, 4);
  const std::byte* qs = x + 8;
  for (int j = 0; j < kQK / 2; ++j) {
    const std::uint8_t xh0 = static_cast<std::uint8_t>(((qh >> (j + 0)) << 4) & 0x10);
    const std::uint8_t xh1 = static_cast<std::uint8_t>(((qh >> (j + 12))) & 0x10);
    const int x0 = (u8(qs + j) & 0x0F) | xh0;
    const int x1 = (u8(qs + j) >> 4) | xh1;
    y[j] = static_cast<float>(x0) * d + m;
    y[j + kQK / 2] = static_cast<float>(x1) * d + m;
  }
}

// block_q8_0 { half d; int8 qs[32]; }: y = q·d.
void blockQ8_0(const std::byte* x, float* y) {
  const float d = half(x);
  for (int j = 0; j < kQK; ++j) {
    y[j] = static_cast<float>(static_cast<std::int8_t>(u8(x + 2 + j))) * d;
  }
}

// The 6-bit scale and min of sub-block j from the 12 packed bytes of Q4_K and Q5_K
// (ggml-quants.c get_scale_min_k4).
inline void scaleMinK4(int j, const std::byte* q, std::uint8_t* d, std::uint8_t* m) {
  if (j < 4) {
    *d = u8(q + j) & 63;
    *m = u8(q + j + 4) & 63;
  } else {
    *d = static_cast<std::uint8_t>((u8(q + j + 4) & 0xF) | ((u8(q + j - 4) >> 6) << 4));
    *m = static_cast<std::uint8_t>((u8(q + j + 4) >> 4) | ((u8(q + j) >> 6) << 4));
  }
}

// block_q4_K { half d, dmin; uint8 scales[12]; uint8 qs[128]; }: 8 sub-blocks of 32,
// y = d·sc·q − dmin·m.
void blockQ4_K(const std::byte* x, float* y) {
  const float d = half(x);
  const float min = half(x + 2);
  const std::byte* scales = x + 4;
  const std::byte* q = x + 16;
  int is = 0;
  std::uint8_t sc, m;
  for (int j = 0; j < kQKK; j += 64) {
    scaleMinK4(is + 0, scales, &sc, &m);
    const float d1 = d * sc;
    const float m1 = min * m;
    scaleMinK4(is + 1, scales, &sc, &m);
    const float d2 = d * sc;
    const float m2 = min * m;
    for (int l = 0; l < 32; ++l) *y++ = d1 * static_cast<float>(u8(q + l) & 0xF) - m1;
    for (int l = 0; l < 32; ++l) *y++ = d2 * static_cast<float>(u8(q + l) >> 4) - m2;
    q += 32;
    is += 2;
  }
}

// block_q5_K { half d, dmin; uint8 scales[12]; uint8 qh[32]; uint8 qs[128]; }.
void blockQ5_K(const std::byte* x, float* y) {
  const float d = half(x);
  const float min = half(x + 2);
  const std::byte* scales = x + 4;
  const std::byte* qh = x + 16;
  const std::byte* ql = x + 48;
  int is = 0;
  std::uint8_t sc, m;
  unsigned u1 = 1, u2 = 2;
  for (int j = 0; j < kQKK; j += 64) {
    scaleMinK4(is + 0, scales, &sc, &m);
    const float d1 = d * sc;
    const float m1 = min * m;
    scaleMinK4(is + 1, scales, &sc, &m);
    const float d2 = d * sc;
    const float m2 = min * m;
    for (int l = 0; l < 32; ++l) {
      *y++ = d1 * static_cast<float>((u8(ql + l) & 0xF) + ((u8(qh + l) & u1) ? 16 : 0)) - m1;
    }
    for (int l = 0; l < 32; ++l) {
      *y++ = d2 * static_cast<float>((u8(ql + l) >> 4) + ((u8(qh + l) & u2) ? 16 : 0)) - m2;
    }
    ql += 32;
    is += 2;
    u1 <<= 2;
    u2 <<= 2;
  }
}

// block_q6_K { uint8 ql[128]; uint8 qh[64]; int8 scales[16]; half d; }: 16 sub-blocks of 16,
// y = d·sc·(q − 32) with 6-bit q from a low nibble and two high bits.
void blockQ6_K(const std::byte* x, float* y) {
  const float d = half(x + 208);
  const std::byte* ql = x;
  const std::byte* qh = x + 128;
  const std::byte* sc = x + 192;
  for (int n = 0; n < kQKK; n += 128) {
    for (int l = 0; l < 32; ++l) {
      const int is = l / 16;
      const int q1 = ((u8(ql + l + 0) & 0xF) | (((u8(qh + l) >> 0) & 3) << 4)) - 32;
      const int q2 = ((u8(ql + l + 32) & 0xF) | (((u8(qh + l) >> 2) & 3) << 4)) - 32;
      const int q3 = ((u8(ql + l + 0) >> 4) | (((u8(qh + l) >> 4) & 3) << 4)) - 32;
      const int q4 = ((u8(ql + l + 32) >> 4) | (((u8(qh + l) >> 6) & 3) << 4)) - 32;
      auto scale = [&](int k) { return static_cast<float>(static_cast<std::int8_t>(u8(sc + k))); };
      y[l + 0] = d * scale(is + 0) * static_cast<float>(q1);
      y[l + 32] = d * scale(is + 2) * static_cast<float>(q2);
      y[l + 64] = d * scale(is + 4) * static_cast<float>(q3);
      y[l + 96] = d * scale(is + 6) * static_cast<float>(q4);
    }
    y += 128;
    ql += 64;
    qh += 32;
    sc += 8;
  }
}

// block_q2_K { uint8 scales[16]; uint8 qs[64]; half d, dmin; }: 16 sub-blocks of 16 with a 4-bit
// scale (low nibble) and min (high nibble) each; y = (d·sc)·q − dmin·m with 2-bit q.
void blockQ2_K(const std::byte* x, float* y) {
  const float d = half(x + 80);
  const float min = half(x + 82);
  const std::byte* q = x + 16;
  int is = 0;
  for (int n = 0; n < kQKK; n += 128) {
    int shift = 0;
    for (int j = 0; j < 4; ++j) {
      for (int half_block = 0; half_block < 2; ++half_block) {
        const std::uint8_t sc = u8(x + is++);
        const float dl = d * static_cast<float>(sc & 0xF);
        const float ml = min * static_cast<float>(sc >> 4);
        const std::byte* ql = q + 16 * half_block;
        for (int l = 0; l < 16; ++l) {
          *y++ = dl * static_cast<float>((u8(ql + l) >> shift) & 3) - ml;
        }
      }
      shift += 2;
    }
    q += 32;
  }
}

// The sixteen 6-bit scales of a Q3_K block from its 12 packed bytes, as ggml unpacks them
// (dequantize_row_q3_K's kmask1 / kmask2 shuffle), each still biased by 32.
inline void q3kScales(const std::byte* packed, std::int8_t* scales) {
  std::uint32_t aux[4];
  std::memcpy(aux, packed, 12);
  constexpr std::uint32_t kMask1 = 0x03030303, kMask2 = 0x0f0f0f0f;
  const std::uint32_t tmp = aux[2];
  aux[2] = ((aux[0] >> 4) & kMask2) | (((tmp >> 4) & kMask1) << 4);
  aux[3] = ((aux[1] >> 4) & kMask2) | (((tmp >> 6) & kMask1) << 4);
  aux[0] = (aux[0] & kMask2) | (((tmp >> 0) & kMask1) << 4);
  aux[1] = (aux[1] & kMask2) | (((tmp >> 2) & kMask1) << 4);
  std::memcpy(scales, aux, 16);
}

// block_q3_K { uint8 hmask[32]; uint8 qs[64]; uint8 scales[12]; half d; }: 16 sub-blocks of 16,
// y = (d·(sc − 32))·(q − 4·(1 − h)) with 2-bit q and its high bit h from hmask.
void blockQ3_K(const std::byte* x, float* y) {
  const float d_all = half(x + 108);
  const std::byte* hm = x;
  const std::byte* q = x + 32;
  std::int8_t scales[16];
  q3kScales(x + 96, scales);
  int is = 0;
  unsigned m = 1;
  for (int n = 0; n < kQKK; n += 128) {
    int shift = 0;
    for (int j = 0; j < 4; ++j) {
      for (int half_block = 0; half_block < 2; ++half_block) {
        const float dl = d_all * static_cast<float>(scales[is++] - 32);
        const int o = 16 * half_block;
        for (int l = 0; l < 16; ++l) {
          const int v = ((u8(q + o + l) >> shift) & 3) - ((u8(hm + o + l) & m) ? 0 : 4);
          *y++ = dl * static_cast<float>(v);
        }
      }
      shift += 2;
      m <<= 1;
    }
    q += 32;
  }
}

// The 16 non-linear levels of IQ4_NL and IQ4_XS (ggml-common.h kvalues_iq4nl).
constexpr std::int8_t kIq4nlValues[16] = {-127, -104, -83, -65, -49, -35, -22, -10,
                                          1,    13,   25,  38,  53,  69,  89,  113};

// block_iq4_nl { half d; uint8 qs[16]; }: y[j] = d·level(lo nibble), y[j + 16] = d·level(hi).
void blockIQ4_NL(const std::byte* x, float* y) {
  const float d = half(x);
  const std::byte* qs = x + 2;
  for (int j = 0; j < kQK / 2; ++j) {
    y[j] = d * static_cast<float>(kIq4nlValues[u8(qs + j) & 0xF]);
    y[j + kQK / 2] = d * static_cast<float>(kIq4nlValues[u8(qs + j) >> 4]);
  }
}

// block_iq4_xs { half d; uint16 scales_h; uint8 scales_l[4]; uint8 qs[128]; }: 8 sub-blocks of
// 32 with a 6-bit scale ls (4 low bits in scales_l, 2 high bits in scales_h), y = (d·(ls − 32))·level.
void blockIQ4_XS(const std::byte* x, float* y) {
  const float d = half(x);
  const unsigned scales_h = u8(x + 2) | (u8(x + 3) << 8);
  const std::byte* qs = x + 8;
  for (int ib = 0; ib < kQKK / 32; ++ib) {
    const int ls = ((u8(x + 4 + ib / 2) >> 4 * (ib % 2)) & 0xF) | (((scales_h >> 2 * ib) & 3) << 4);
    const float dl = d * static_cast<float>(ls - 32);
    for (int j = 0; j < 16; ++j) {
      y[j] = dl * static_cast<float>(kIq4nlValues[u8(qs + j) & 0xF]);
      y[j + 16] = dl * static_cast<float>(kIq4nlValues[u8(qs + j) >> 4]);
    }
    y += 32;
    qs += 16;
  }
}

void blockF32(const std::byte* x, float* y) { std::memcpy(y, x, 4); }
void blockF16(const std::byte* x, float* y) { *y = half(x); }
void blockBF16(const std::byte* x, float* y) {
  std::uint16_t bits;
  std::memcpy(&bits, x, 2);
  *y = bfloat16ToFloat(bits);
}

using BlockFn = void (*)(const std::byte*, float*);

BlockFn blockFunction(std::uint32_t type) {
  switch (type) {
    case 0:
      return blockF32;
    case 1:
      return blockF16;
    case 2:
      return blockQ4_0;
    case 3:
      return blockQ4_1;
    case 6:
      return blockQ5_0;
    case 7:
      return blockQ5_1;
    case 8:
      return blockQ8_0;
    case 10:
      return blockQ2_K;
    case 11:
      return blockQ3_K;
    case 12:
      return blockQ4_K;
    case 13:
      return blockQ5_K;
    case 14:
      return blockQ6_K;
    case 20:
      return blockIQ4_NL;
    case 23:
      return blockIQ4_XS;
    case 30:
      return blockBF16;
    default:
      return nullptr;
  }
}

}  // namespace

const GgmlTypeInfo* ggmlTypeInfo(std::uint32_t type) {
  for (const TypeRow& row : kTypes) {
    if (row.number == type) return &row.info;
  }
  return nullptr;
}

std::string ggmlTypeName(std::uint32_t type) {
  const GgmlTypeInfo* info = ggmlTypeInfo(type);
  return info != nullptr ? std::string(info->name) : "type " + std::to_string(type);
}

std::string dequantisableTypeNames() {
  std::string names;
  for (const TypeRow& row : kTypes) {
    if (!row.info.dequantisable) continue;
    if (!names.empty()) names += ", ";
    names += row.info.name;
  }
  return names;
}

void dequantize(std::uint32_t type, const std::byte* data, std::size_t count, float* out) {
  const GgmlTypeInfo* info = ggmlTypeInfo(type);
  const BlockFn block = blockFunction(type);
  if (info == nullptr || block == nullptr) {
    throw Error(ErrorCode::kInvalidArgument, "cannot dequantise " + ggmlTypeName(type) +
                                                 " (supported: " + dequantisableTypeNames() + ")");
  }
  const auto per_block = static_cast<std::size_t>(info->block_elements);
  if (count % per_block != 0) {
    throw Error(ErrorCode::kInvalidArgument, std::to_string(count) + " " + std::string(info->name) +
                                                 " values are not a whole number of blocks of " +
                                                 std::to_string(per_block));
  }
  if (count == 0) return;  // an empty tensor: out may be null (memcpy's arguments must not be)
  if (type == 0) {  // F32: the bytes are the values
    std::memcpy(out, data, count * sizeof(float));
    return;
  }
  const auto blocks = static_cast<std::ptrdiff_t>(count / per_block);
  const auto block_bytes = static_cast<std::size_t>(info->block_bytes);
  // Plain types in one pass; blocks in parallel once a tensor is worth the threads.
#pragma omp parallel for schedule(static) if (count >= (1u << 18))
  for (std::ptrdiff_t b = 0; b < blocks; ++b) {
    block(data + static_cast<std::size_t>(b) * block_bytes,
          out + static_cast<std::size_t>(b) * per_block);
  }
}

}  // namespace attnlab
