/// \file run_translator.cpp
/// The run pipeline's trained translators (issue 23; run.hpp): validate, load (one copy per folder
/// in the process), check against the model's config (run::checkTranslator), translate (the
/// engine checks the source and a forced target), then the attention shown.

#include <QString>
#include <chrono>
#include <filesystem>

#include "attnlab/error.hpp"
#include "run/run.hpp"

namespace attnlab::run {
namespace {

using options::LabSettings;
using options::TranslatorAttention;

/// A character as a picture labels it: white space made visible ("␣"), like a model's tokens.
QString shown(const std::string& character) {
  const QString text = QString::fromStdString(character);
  return text == QLatin1String(" ") ? QStringLiteral("␣") : text;
}

void setTokens(const std::vector<std::string>& texts, std::vector<Token>* raw, QStringList* labels) {
  for (const std::string& t : texts) {
    raw->push_back(Token{t, 0, 0, 0, 0});
    *labels << shown(t);
  }
}

}  // namespace

std::shared_ptr<Run> Session::runTranslator(const LabSettings& settings, const RunHooks& hooks) {
  options::validate(settings);  // 1. validate
  auto r = std::make_shared<Run>();
  r->settings = settings;
  if (!translator_info_ || translator_info_->dir != settings.model_dir) {  // 2. load
    const auto t0 = std::chrono::steady_clock::now();
    try {
      if (hooks.loading) hooks.loading(settings.model_dir);
      std::shared_ptr<const Translator> model = ModelCache::instance().translator(settings.model_dir);
      auto info = std::make_shared<TranslatorInfo>();
      info->dir = settings.model_dir;
      info->name = QString::fromStdString(model->name());
      info->config = model->config();
      info->load_ms = model->loadMs();
      translator_ = std::move(model);
      translator_info_ = std::move(info);
    } catch (const Error& e) {
      throw LoadFailure(e);
    } catch (const std::bad_alloc&) {
      throw LoadFailure(ErrorCode::kInternal,
                        options::Message(ATTNLAB_MSG("not enough memory to load this model")));
    }
    r->model_ms =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  }
  auto shown = std::make_shared<results::TranslatorRun>();
  shown->info = translator_info_;
  const Translator& model = *translator_;
  const TranslatorConfig& config = model.config();
  run::checkTranslator(settings, shown->info->name, config);  // 3. check
  auto translation = std::make_shared<Translation>(model.translate(  // 4. run
      settings.source.toUtf8().toStdString(), run::toTranslatorOptions(settings),
      backend(settings)));
  const Translation& t = *translation;
  shown->translation = translation;

  // The attention shown, its rows and columns.
  const bool additive = config.kind == TranslatorKind::kAdditiveGru;
  const TranslatorAttention kind = settings.translator_attention;
  const std::vector<AttentionResult>* layers = &t.cross;
  if (kind == TranslatorAttention::kEncoderSelf) layers = &t.encoder_self;
  if (kind == TranslatorAttention::kDecoderSelf) layers = &t.decoder_self;
  const std::vector<AttentionResult> one{t.additive};
  if (additive) layers = &one;
  for (int l = 0; l < static_cast<int>(layers->size()); ++l) {
    if (settings.layer && *settings.layer != l) continue;
    shown->layers.push_back((*layers)[static_cast<std::size_t>(l)]);
    shown->layer_indices.push_back(l);
  }
  std::vector<std::string> inputs;
  for (int id : t.decoder_inputs) inputs.push_back(model.targetText(id));
  const std::vector<std::string>& rows =
      kind == TranslatorAttention::kEncoderSelf && !additive ? t.source_chars : t.target_chars;
  const std::vector<std::string>& columns =
      kind == TranslatorAttention::kDecoderSelf && !additive ? inputs : t.source_chars;
  setTokens(rows, &r->run.query_tokens, &r->query_tokens);
  setTokens(columns, &r->run.key_tokens, &r->key_tokens);
  r->run.cross = additive || kind == TranslatorAttention::kCross;
  r->run.compute_ms = t.compute_ms;

  const AttentionResult& first = shown->layers.front();
  r->translator = std::move(shown);
  r->spec.mechanism = first.mechanism;
  r->spec.mask = first.mask;
  r->spec.heads = first.heads();
  r->spec.d_model = additive ? config.decoder_hidden : config.d_model;
  r->spec.d_k = additive ? config.attention_dim : config.d_k;
  r->spec.d_a = additive ? config.attention_dim : 0;
  r->spec.temperature = settings.spec.temperature;
  return r;
}

}  // namespace attnlab::run
