#pragma once
/// \file variants.hpp
/// Settings derived from a parsed command line, read by the same option table and parser as the
/// command line itself, so a bad value is refused with the option's own words:
/// - the second setting B of a difference map (render --diff "OPTIONS", the window's
///   "Compare with…"): A's options with OPTIONS applied on top;
/// - the frames of a sweep (attention-lab-cli sweep, the window's play buttons and
///   "Export sweep…"): one render setting per value of the swept option.
/// Both take whatever the option table knows: a new option (issue 12's --window, issue 13's
/// precision) can be compared and swept as soon as it is in the table.

#include <QString>
#include <QStringList>
#include <vector>

#include "options/options.hpp"

namespace attnlab::options {

/// Splits OPTIONS as a shell would: white space separates, '…' and "…" quote, \ escapes.
QStringList splitOptions(const QString& options);

/// The second setting of `a` (a render or window command line): A's options (toArguments) with
/// every option that OPTIONS (a.diff) names removed, then OPTIONS appended and everything parsed
/// as a render command. "--no-X" removes X when the table has no option "no-X" of its own
/// (--no-causal, --no-temperature, --no-rollout …). OPTIONS may name the attention options (those
/// of the compute command) and --head; not --text, --source or --pair (a difference compares
/// the same tokens) nor output or picture options. Throws OptionError: "--diff needs the second
/// setting's options …", "--diff cannot change --text: …", "--diff cannot set --out: …", an
/// unknown option, or any refusal of the parser ("--head must be between 0 and 7 (got 9)").
Options secondSetting(const Options& a);
/// The same for the window: B from the window's settings and head (−1 = every head) and OPTIONS.
Options secondSetting(const LabSettings& a, int head, const QString& diff);

/// One frame of a sweep.
struct SweepFrame {
  Options options;  ///< A render setting (command kRender).
  QString value;    ///< The swept option's value as given ("64", "0.5", "all").
};

/// The table entry that --param names ("d_k" and "d-k" both name d-k): a whole-number, number or
/// choice option of the attention (compute) or --head. Throws OptionError naming the ones that can
/// be swept, or for "window" that the sliding window is not in this version yet.
const OptionSpec& sweptOption(const QString& param);

/// The values swept when --values is not given: d_k 1, 2, 4, … 1024; temperature 0.125, 0.25, …,
/// 8; layer and head 0 … count − 1 (count = the model's layers or the heads; 0 when not known
/// yet: returns empty). Other options need --values (OptionError).
QStringList defaultSweepValues(const OptionSpec& spec, int count);

/// Expands "..." (or "…") in a list: between a and the next value z it continues the pattern of
/// the values before it — a constant ratio when three or more of them have one (1,2,4,...,1024),
/// else a constant step (1,2,...,10; 0.5,1,...,4). Throws OptionError when the pattern is missing
/// or does not reach z.
QStringList expandValues(const QStringList& items, const OptionSpec& spec);

/// Most frames of one sweep.
inline constexpr int kMaxSweepFrames = 200;

/// The frames of a sweep (command kSweep): every value (--values expanded, else
/// defaultSweepValues(count)) as a render setting, each parsed from the sweep's options plus
/// "--<param> <value>". Throws OptionError for fewer than two values ("a sweep needs at least two
/// values (got 1)"), more than kMaxSweepFrames, or a value the option refuses. Returns no frames
/// when the values depend on a count not known yet (count = 0 for layer / head of a model).
std::vector<SweepFrame> sweepFrames(const Options& sweep, int count);

}  // namespace attnlab::options
