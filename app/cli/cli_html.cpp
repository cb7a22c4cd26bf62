/// \file cli_html.cpp
/// render --out FILE.html and generate --out FILE.html: the interactive page of a run or a
/// generation (views/html_page.hpp), its size said on stderr before it is written.

#include <QFile>
#include <QFileInfo>

#include "attnlab/error.hpp"
#include "cli/cli.hpp"
#include "cli/commands.hpp"
#include "views/html_page.hpp"

namespace attnlab::cli {
namespace {

std::string utf8(const QString& text) { return text.toUtf8().toStdString(); }

QString megabytes(long long bytes) {
  return QString::number(static_cast<double>(bytes) / (1024.0 * 1024.0), 'f',
                         bytes < 1024 * 1024 ? 2 : 1);
}

}  // namespace

bool isHtml(const QString& path) {
  return QFileInfo(path).suffix().toLower() == QLatin1String("html");
}

QString pageLanguage(const QString& language) {
  return language == QLatin1String("zh_CN") ? language : QStringLiteral("en");
}

QString pageTitle(const views::HtmlView& view, const QString& language) {
  const QString lab = language == QLatin1String("zh_CN") ? QStringLiteral("注意力实验室")
                                                         : QStringLiteral("Attention Lab");
  const QString what = view.title.isEmpty()
                           ? (language == QLatin1String("zh_CN") ? QStringLiteral("合成实验")
                                                                 : QStringLiteral("synthetic lab"))
                           : view.title;
  return lab + QStringLiteral(" · ") + what;
}

void writePage(views::HtmlPage& page, const QString& path, std::ostream& err) {
  views::fitHtmlPage(page);
  const QByteArray bytes = views::htmlPageBytes(page);
  bool pooled = false;
  for (const views::HtmlView& v : page.views)
    for (const views::HtmlLayer& l : v.layers) pooled = pooled || !l.result;
  err << "attention-lab-cli: note: " << utf8(path) << ": " << utf8(megabytes(bytes.size()))
      << " MB (at most " << views::kHtmlLimitBytes / (1024 * 1024)
      << " MB; weights and scores as float16"
      << (pooled ? "; a pooled overview: the full data would pass the limit" : "") << ")\n";
  QFile file(path);
  if (!file.open(QIODevice::WriteOnly | QIODevice::Truncate) || file.write(bytes) != bytes.size() ||
      !file.flush())
    throw Error(ErrorCode::kIo, "cannot write " + utf8(path) + ": " + utf8(file.errorString()));
}

int renderHtml(const options::Options& o, const std::shared_ptr<const results::Run>& r,
               std::ostream& out, std::ostream& err) {
  views::HtmlPage page;
  page.language = pageLanguage(o.window.language);
  page.views.push_back(
      views::htmlViewOf(r, o.head, std::nullopt, o.picture.color_scale, o.picture.pool));
  page.title = pageTitle(page.views.front(), page.language);
  writePage(page, o.output.out, err);
  out << utf8(o.output.out) << "\n";
  return kExitOk;
}

void generationHtml(const options::Options& o, const std::shared_ptr<const results::Generated>& g,
                    std::ostream& err) {
  views::HtmlPage page;
  page.language = pageLanguage(o.window.language);
  page.views.push_back(views::htmlViewOf(g, o.head, o.picture.color_scale));
  page.title = pageTitle(page.views.front(), page.language);
  writePage(page, o.output.out, err);
}

}  // namespace attnlab::cli
