#pragma once
// Shared by the engine and app tests of pooled overviews (attnlab/overview.hpp).

#include <catch2/catch.hpp>
#include <cmath>

#include "attnlab/overview.hpp"

namespace attnlab::test {

/// got equals want: the same visible counts, NaN where want has no visible pair, and maxima and
/// means within 1e-6 (the same weights pooled in another order, or by another pass).
inline void checkSamePooled(const PooledAttention& got, const PooledAttention& want) {
  REQUIRE(got.max.data.size() == want.max.data.size());
  REQUIRE(got.mean.data.size() == want.mean.data.size());
  CHECK(got.visible == want.visible);
  for (std::size_t i = 0; i < want.max.data.size(); ++i) {
    if (std::isnan(want.max.data[i])) {
      CHECK(std::isnan(got.max.data[i]));
      continue;
    }
    CHECK(got.max.data[i] == Approx(want.max.data[i]).margin(1e-6));
    CHECK(got.mean.data[i] == Approx(want.mean.data[i]).margin(1e-6));
  }
}

}  // namespace attnlab::test
