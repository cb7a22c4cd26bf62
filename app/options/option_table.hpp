#pragma once
/// \file option_table.hpp
/// Internal to app/options: the entries of the one option table, kept in two files by group
/// (option_table_lab.cpp: input, mechanism, shapes, variants, models, backend — what the
/// computation reads; option_table_output.cpp: pictures, output, saturation, cost, sweep, the
/// window), and the small helpers their setters and getters share. options.cpp joins them, in
/// this order, into table().

#include <QLocale>
#include <QString>
#include <array>
#include <optional>
#include <span>
#include <string_view>

#include "options/options.hpp"

namespace attnlab::options::detail {

inline constexpr unsigned kRunCommands = kCompute | kRender | kWindow | kSweep | kDecode;
inline constexpr unsigned kImageCommands = kRender | kSaturation | kCost | kSweep | kDecode | kGenerate;
inline constexpr unsigned kPictureCommands = kRender | kWindow | kSweep | kDecode;  // draw heatmaps

/// A table string as a QString.
inline QString q(std::string_view text) {
  return QString::fromUtf8(text.data(), static_cast<qsizetype>(text.size()));
}
inline QString num(long long value) { return QString::number(value); }
/// A number in the fewest digits that read back as the same double ("0.1", never
/// "0.10000000000000001"): what toArguments, the stored settings and reproduce lines write.
inline QString num(double value) {
  return QString::number(value, 'g', QLocale::FloatingPointShortest);
}

/// The index of `value` in `list`, or −1.
template <std::size_t N>
int indexOf(const std::array<std::string_view, N>& list, const QString& value) {
  for (std::size_t i = 0; i < N; ++i)
    if (q(list[i]) == value) return static_cast<int>(i);
  return -1;
}

// Getters' helpers: nullopt when the value is the default.
inline std::optional<QString> text(const QString& value, const QString& fallback = {}) {
  if (value == fallback) return std::nullopt;
  return value;
}
template <class T>
std::optional<QString> integer(const std::optional<T>& value) {
  if (!value) return std::nullopt;
  return num(static_cast<long long>(*value));
}
inline std::optional<QString> integerIf(long long value, long long fallback) {
  if (value == fallback) return std::nullopt;
  return num(value);
}
inline std::optional<QString> flag(bool on) {
  return on ? std::optional<QString>(QString()) : std::nullopt;
}

/// The rules of generate and decode --model (generate_checks.cpp): --model required (generate),
/// one --cache-window and --sink-tokens for generate, sinks only with a window, --top-k and
/// --seed only with --sample-temperature, softmax attention, --out a picture; decode --model
/// takes no --layer, --head, --pair, --rollout or --hide-special. Throws OptionError.
void checkCachePolicy(const Options& o, unsigned command);

/// The entries of groups input … backend, in --help and setter order.
std::span<const OptionSpec> labOptions();
/// The entries of groups pictures … the window, in --help and setter order.
std::span<const OptionSpec> outputOptions();

}  // namespace attnlab::options::detail
