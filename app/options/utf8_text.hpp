#pragma once
/// \file utf8_text.hpp
/// Bytes of the user's text to QString with every character kept. QString::fromUtf8 and
/// QString::fromStdString drop one leading U+FEFF (Qt's UTF-8 decoder takes it for a byte-order
/// mark), which made "\xEF\xBB\xBFstart" reach the tokenizer as "start"; everything the text goes
/// through on its way from the command line, the stored settings, a lesson or a reparsed command
/// line to the engine comes here instead. The bytes must be valid UTF-8 (checked before, by
/// decodeUtf8: invalid bytes are refused, never replaced); noncharacters (U+FFFE, U+FFFF,
/// U+FDD0…), U+0000, CR, and NFC / NFD forms are kept as they are (tests/app/test_text_bytes.cpp).

#include <QByteArrayView>
#include <QString>
#include <QStringDecoder>
#include <string_view>

namespace attnlab::options {

/// The characters of valid UTF-8 `bytes`, a leading U+FEFF included; QString::toUtf8() gives the
/// same bytes back.
inline QString fromUtf8Exact(std::string_view bytes) {
  QStringDecoder decoder(QStringDecoder::Utf8, QStringDecoder::Flag::ConvertInitialBom);
  return decoder.decode(QByteArrayView(bytes.data(), static_cast<qsizetype>(bytes.size())));
}

}  // namespace attnlab::options
