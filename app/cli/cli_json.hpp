#pragma once
/// \file cli_json.hpp
/// Internal to attention-lab-cli: the `compute` JSON and its size contract.

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "attnlab/attention.hpp"
#include "attnlab/head_roles.hpp"
#include "attnlab/pretrained.hpp"
#include "attnlab/synthetic.hpp"
#include "options/options.hpp"

#include "results/attention.hpp"

namespace attnlab::cli {

/// Most matrix cells (scores and weights, every head and layer) `compute` writes into its JSON;
/// above it the JSON keeps tokens and statistics and says where the matrices are (about 25 MB of
/// JSON at the limit). --full lifts it.
inline constexpr long long kJsonCellLimit = 1LL << 20;

/// The JSON of a synthetic run (see docs/cli.md, "Command line (stable contract)").
nlohmann::json syntheticJson(const options::Options& options, const LabRun& run);

/// The JSON of a model run; `model_name`, `config` and `load_ms` describe the model;
/// `head_roles` (compute --head-roles) adds "head_roles" (headRolesJson).
nlohmann::json modelJson(const options::Options& options, const ModelRun& run,
                         const std::string& model_name, const ModelConfig& config, double load_ms,
                         const HeadRoles* head_roles = nullptr);

/// A model run's interventions (compute --ablate, --logit-lens, --dla, --patch-from; docs/cli.md):
/// "ablation" {heads, mode, first_layer, next_tokens_before / after, loss_before / after,
/// mean_loss_before / after}, "logit_lens" (one row per layer: per position the top token, its
/// probability, the final prediction's rank and probability), "dla" {target, versus, heads [L, h],
/// mlp [L], attention_bias [L], embedding, norm_bias, total, logit} and "patching" {target,
/// versus, clean, corrupted, heads [L, h], residual [L, n], corrupted_tokens}, each present when
/// asked. Written into `j`.
void interventionsJson(const results::Interventions& interventions, nlohmann::json& j);

/// "head_roles" of compute --head-roles (docs/cli.md, "Command line (stable contract)"): the sequence (seed,
/// period T, prefix, suffix, ids), the definitions, and per role in kHeadRoles order its [L, h]
/// scores, median and top 5 heads.
nlohmann::json headRolesJson(const HeadRoles& roles);

}  // namespace attnlab::cli
