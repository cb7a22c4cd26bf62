/// \file colormap.cpp
/// viridis, the colour map of every attention heatmap, and the masked-cell colour.

#include <qcustomplot.h>

#include <algorithm>
#include <array>
#include <cmath>

#include "views.hpp"

namespace attnlab::views {
namespace {

/// One stop of the colour map: position t in [0, 1] and its sRGB colour.
struct Stop {
  double t;
  unsigned rgb;  ///< 0xRRGGBB.
};

/// matplotlib's viridis (van der Walt & Smith 2015) sampled at t = k/8 and t = k/10, 17 stops;
/// linear interpolation in RGB between them stays within one 8-bit step of the 256-entry table.
// clang-format off
constexpr std::array<Stop, 17> kViridisStops{{
    {0.000, 0x440154}, {0.100, 0x482576}, {0.125, 0x472d7b}, {0.200, 0x414487},
    {0.250, 0x3b528b}, {0.300, 0x35608d}, {0.375, 0x2c728e}, {0.400, 0x2a788e},
    {0.500, 0x21908c}, {0.600, 0x22a884}, {0.625, 0x27ad81}, {0.700, 0x43bf71},
    {0.750, 0x5dc863}, {0.800, 0x7ad151}, {0.875, 0xaadc32}, {0.900, 0xbbdf27},
    {1.000, 0xfde725},
}};
// clang-format on

QColor toColor(unsigned rgb) {
  return QColor(static_cast<int>((rgb >> 16) & 0xff), static_cast<int>((rgb >> 8) & 0xff),
                static_cast<int>(rgb & 0xff));
}

}  // namespace

QColor viridis(double t) {
  if (!std::isfinite(t)) return kMaskedColor;
  t = std::clamp(t, 0.0, 1.0);
  // The first stop whose position is ≥ t; interpolate from the one before it.
  const auto* upper =
      std::lower_bound(kViridisStops.begin(), kViridisStops.end(), t,
                       [](const Stop& stop, double value) { return stop.t < value; });
  if (upper == kViridisStops.begin()) return toColor(upper->rgb);
  const auto* lower = upper - 1;
  const double f = (t - lower->t) / (upper->t - lower->t);
  const QColor a = toColor(lower->rgb);
  const QColor b = toColor(upper->rgb);
  auto mix = [f](int x, int y) { return static_cast<int>(std::lround(x + f * (y - x))); };
  return QColor(mix(a.red(), b.red()), mix(a.green(), b.green()), mix(a.blue(), b.blue()));
}

QCPColorGradient viridisGradient() {
  QCPColorGradient gradient;
  gradient.clearColorStops();
  for (const Stop& stop : kViridisStops) gradient.setColorStopAt(stop.t, toColor(stop.rgb));
  gradient.setColorInterpolation(QCPColorGradient::ciRGB);
  gradient.setLevelCount(350);
  gradient.setNanHandling(QCPColorGradient::nhNanColor);
  gradient.setNanColor(kMaskedColor);
  return gradient;
}

QCPColorGradient divergingGradient() {
  // ColorBrewer RdBu (11 classes, reversed so that red is "more than uniform").
  // clang-format off
  constexpr std::array<Stop, 7> kStops{{
      {0.000, 0x2166ac}, {0.167, 0x4393c3}, {0.333, 0x92c5de}, {0.500, 0xf7f7f7},
      {0.667, 0xf4a582}, {0.833, 0xd6604d}, {1.000, 0xb2182b},
  }};
  // clang-format on
  QCPColorGradient gradient;
  gradient.clearColorStops();
  for (const Stop& stop : kStops) gradient.setColorStopAt(stop.t, toColor(stop.rgb));
  gradient.setColorInterpolation(QCPColorGradient::ciRGB);
  gradient.setLevelCount(350);
  gradient.setNanHandling(QCPColorGradient::nhNanColor);
  gradient.setNanColor(kMaskedDarkColor);
  return gradient;
}

QColor kvGroupColor(int group) {
  // Okabe & Ito (2008), "Color Universal Design": distinguishable with every common colour-vision
  // deficiency; yellow is left out (it vanishes on white and inside viridis' top end), orange comes
  // after the first four (it is close to vermillion).
  // clang-format off
  constexpr std::array<unsigned, 8> kPalette{
      0xd55e00, 0x0072b2, 0x009e73, 0xcc79a7, 0xe69f00, 0x56b4e9, 0x000000, 0x999999};
  // clang-format on
  const auto size = static_cast<int>(kPalette.size());
  return toColor(kPalette[static_cast<std::size_t>(((group % size) + size) % size)]);
}

QColor kvGroupTextColor(int group) { return kvGroupColor(group).darker(140); }

}  // namespace attnlab::views
