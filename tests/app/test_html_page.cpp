/// \file test_html_page.cpp
/// The interactive page's data (issue 52, views/html_page.hpp): binary16 by hand for the values
/// whose bits are known, the stated precision over generated weights, the size limit (pooled
/// overview where the full data would not fit, refusal with the size above it) and a page that
/// names no network address. The page in a browser: tests/app/html_export.py.

#include <QJsonDocument>
#include <QJsonObject>
#include <catch2/catch.hpp>
#include <cmath>
#include <limits>
#include <random>

#include "options/message.hpp"
#include "views/html_page.hpp"

// The file's own namespace: its helpers never meet another test file's in a unity batch.
namespace attnlab_test_html_page {

namespace {

using attnlab::AttentionResult;
using attnlab::Tensor3;
namespace views = attnlab::views;

/// binary16 bits → value (the page's decoder, written again).
double fromHalf(quint16 bits) {
  const int sign = (bits & 0x8000) ? -1 : 1, exp = (bits >> 10) & 0x1f, frac = bits & 0x3ff;
  if (exp == 0) return sign * frac * std::ldexp(1.0, -24);
  if (exp == 31) return frac ? std::numeric_limits<double>::quiet_NaN() : sign * INFINITY;
  return sign * (1.0 + frac / 1024.0) * std::ldexp(1.0, exp - 15);
}

/// h heads of n × n uniform rows: weights 1/n, scores j.
AttentionResult uniform(int h, int n) {
  AttentionResult r;
  r.weights = Tensor3(h, n, n, 1.0f / static_cast<float>(n));
  r.scores = Tensor3(h, n, n);
  for (int k = 0; k < h; ++k)
    for (int i = 0; i < n; ++i)
      for (int j = 0; j < n; ++j) r.scores(k, i, j) = static_cast<float>(j);
  return r;
}

}  // namespace

TEST_CASE("toHalf: the binary16 bits of values known by hand", "[html]") {
  CHECK(views::toHalf(1.0f) == 0x3c00);
  CHECK(views::toHalf(-2.0f) == 0xc000);
  CHECK(views::toHalf(0.5f) == 0x3800);
  CHECK(views::toHalf(0.0f) == 0x0000);
  CHECK(views::toHalf(65504.0f) == 0x7bff);                          // the largest finite
  CHECK(views::toHalf(65520.0f) == 0x7c00);                          // rounds up to infinity
  CHECK(views::toHalf(std::ldexp(1.0f, -14)) == 0x0400);             // the smallest normal
  CHECK(views::toHalf(std::ldexp(1.0f, -24)) == 0x0001);             // the smallest subnormal
  CHECK(views::toHalf(1.0f + std::ldexp(1.0f, -11)) == 0x3c00);      // halfway: to even
  CHECK(views::toHalf(1.0f + 3 * std::ldexp(1.0f, -11)) == 0x3c02);  // halfway: to even (up)
  CHECK(views::toHalf(1.0f / 3.0f) == 0x3555);
  CHECK(std::isnan(fromHalf(views::toHalf(std::numeric_limits<float>::quiet_NaN()))));
  CHECK(views::toHalf(std::numeric_limits<float>::infinity()) == 0x7c00);
  // A masked cell's bits are a NaN no value becomes.
  CHECK(std::isnan(fromHalf(views::kMaskedHalf)));
  CHECK(views::toHalf(std::numeric_limits<float>::quiet_NaN()) != views::kMaskedHalf);
  CHECK(views::toHalf(-std::numeric_limits<float>::quiet_NaN()) != views::kMaskedHalf);
}

TEST_CASE("toHalf: within the stated precision for weights and scores", "[html]") {
  std::mt19937 gen(52);
  const float lo = GENERATE(1e-9f, 1e-4f, 0.01f, 1.0f);
  std::uniform_real_distribution<float> draw(lo, 100 * lo);
  for (int k = 0; k < 2000; ++k) {
    const float x = draw(gen);
    const double v = fromHalf(views::toHalf(x));
    // 2^-11 relative for normal numbers; below 2^-14 the subnormal step 2^-24, half of it.
    CHECK(std::fabs(v - x) <=
          std::max(std::ldexp(std::fabs(static_cast<double>(x)), -11), std::ldexp(1.0, -25)));
  }
}

TEST_CASE("htmlPageBytes: one file, its data inline, no network address", "[html]") {
  const AttentionResult r = uniform(2, 3);
  views::HtmlPage page;
  views::HtmlView view;
  view.query_labels = view.key_labels =
      QStringList{QStringLiteral("猫"), QStringLiteral("</script>"), QStringLiteral("x")};
  view.layers.push_back({-1, &r, nullptr});
  page.views.push_back(view);
  const QByteArray bytes = views::htmlPageBytes(page);
  const QString text = QString::fromUtf8(bytes);
  CHECK_FALSE(text.contains(QStringLiteral("http://")));
  CHECK_FALSE(text.contains(QStringLiteral("https://")));
  CHECK_FALSE(text.contains(QStringLiteral("src=\"/")));
  CHECK(text.contains(QStringLiteral("猫")));
  CHECK(text.count(QStringLiteral("</script>")) == 2);  // the label's is escaped
  // The data: weights 1/3 → 0x3555 little-endian, base64 of six of them.
  const int at = text.indexOf(QStringLiteral("type=\"application/json\">")) + 24;
  const QJsonObject data =
      QJsonDocument::fromJson(
          text.mid(at, text.indexOf(QStringLiteral("</script>"), at) - at).toUtf8())
          .object();
  const QByteArray w =
      QByteArray::fromBase64(data["views"][0]["layers"][0]["w"].toString().toLatin1());
  REQUIRE(w.size() == 2 * 2 * 9);
  CHECK(static_cast<unsigned char>(w[0]) == 0x55);
  CHECK(static_cast<unsigned char>(w[1]) == 0x35);
  CHECK(data["views"][0]["layers"][0]["s"].isString());
}

TEST_CASE("fitHtmlPage: a pooled overview under the limit, refused above it with the size",
          "[html]") {
  const AttentionResult r = uniform(4, 256);  // 4 × 256² cells: about 1.4 MB of data
  views::HtmlPage page;
  views::HtmlView view;
  for (int i = 0; i < 256; ++i) view.query_labels << QStringLiteral("t");
  view.key_labels = view.query_labels;
  view.layers.push_back({0, &r, nullptr});
  page.views.push_back(view);
  const long long limit = 400 * 1024;
  views::fitHtmlPage(page, limit);
  const views::HtmlLayer& l = page.views.front().layers.front();
  REQUIRE(l.result == nullptr);
  REQUIRE(l.pooled);
  CHECK(l.pooled->block == 2);  // the smallest block that fits
  CHECK(views::htmlPageBytes(page, limit).size() <= limit);
  try {
    (void)views::htmlPageBytes(page, 50 * 1024);
    FAIL("a page over the limit was written");
  } catch (const attnlab::options::OptionError& e) {
    CHECK(e.message().english().contains(QStringLiteral("the HTML file would be")));
    CHECK(e.message().english().contains(QStringLiteral("at most 0.05 MB")));
  }
}

}  // namespace attnlab_test_html_page
