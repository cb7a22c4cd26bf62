#pragma once
/// \file translator_models.hpp
/// Private to the engine: the two translator architectures behind attnlab::Translator
/// (translator_additive_gru.cpp, translator_transformer.cpp), and what they share.

#include <memory>

#include "attnlab/safetensors.hpp"
#include "attnlab/translator.hpp"

namespace attnlab::translators {

/// The Bahdanau et al. (2015) model of `config` with the weights of `file` (tensor names and
/// shapes of docs/DESIGN.md "Trained translators"). Throws Error(kInvalidInput) naming a missing
/// or wrongly shaped tensor.
std::unique_ptr<Translator> additiveGru(const TranslatorConfig& config,
                                        const TranslatorVocab& vocab, const SafeTensors& file);

/// The pre-LayerNorm Transformer encoder–decoder of `config` (Vaswani et al. 2017). Throws as
/// additiveGru.
std::unique_ptr<Translator> transformer(const TranslatorConfig& config,
                                        const TranslatorVocab& vocab, const SafeTensors& file);

}  // namespace attnlab::translators
