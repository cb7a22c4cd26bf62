/// \file token_text.cpp
/// Tokens named in words (token_text.hpp).

#include "views/token_text.hpp"

#include <QStringList>

#include "views/picture.hpp"

namespace attnlab::views {

QString characterPartsText(const TokenDisplay& display) {
  QStringList parts;
  for (const CharacterPiece& p : display.pieces) {
    const QString bytes = QString::fromStdString(hexBytes(p.bytes));
    if (p.parts == 0) {
      parts << viewText("start of a character: %1").arg(bytes);
    } else {
      parts << viewText("%1 (part %2 of %3: %4)")
                   .arg(QString::fromStdString(p.character))
                   .arg(p.part)
                   .arg(p.parts)
                   .arg(bytes);
    }
  }
  return parts.join(QStringLiteral(" · "));
}

QString hoverTokenText(const QString& label, const TokenDisplay* display) {
  const QString quoted = QStringLiteral("'%1'").arg(label);
  const QString parts = display ? characterPartsText(*display) : QString();
  return parts.isEmpty() ? quoted : quoted + QLatin1Char(' ') + parts;
}

}  // namespace attnlab::views
